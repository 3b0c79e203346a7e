// Test-only Pi extension: a scripted model (Pi's faux provider) that needs no network and logs
// every request it receives (system prompt and messages) to GOAL_TEST_LOG, one JSON line each.
//
// GOAL_TEST_SCRIPT=tool makes the first answer a bash tool call (GOAL_TEST_BASH, default
// `echo tool-ran`), so a tool_result event happens.
// GOAL_TEST_CONTEXT_WINDOW sets the model's context window (a small one makes usage high).

import { appendFileSync } from "node:fs";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from "@mariozechner/pi-ai";

function text(content: any): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: any) => (b.type === "text" ? b.text : b.type === "toolCall" ? `[tool ${b.name}]` : "")).join("\n");
}

export default function (pi: any) {
  const window = Number(process.env.GOAL_TEST_CONTEXT_WINDOW ?? "") || 200_000;
  const model = {
    id: "faux-1",
    name: "Faux",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: window,
    maxTokens: 1000,
  };
  const faux = registerFauxProvider({ provider: "faux", models: [model] });
  const respond = (context: any, _options: any, state: { callCount: number }) => {
    const log = process.env.GOAL_TEST_LOG;
    if (log) {
      const messages = (context.messages ?? []).map((m: any) => ({ role: m.role, text: text(m.content) }));
      appendFileSync(log, JSON.stringify({ call: state.callCount, systemPrompt: context.systemPrompt ?? "", messages }) + "\n");
    }
    if (process.env.GOAL_TEST_SCRIPT === "tool" && state.callCount === 1) {
      const command = process.env.GOAL_TEST_BASH || "echo tool-ran";
      return fauxAssistantMessage(fauxToolCall("bash", { command }), { stopReason: "toolUse" });
    }
    return fauxAssistantMessage(`ok ${state.callCount}`);
  };
  faux.setResponses(Array.from({ length: 20 }, () => respond));
  pi.registerProvider("faux", {
    baseUrl: "http://localhost:0",
    apiKey: "faux-key",
    api: faux.api,
    models: [model],
  });
}
