// goal — Pi extension. Maps Pi's events to `goal` commands and decides nothing itself: every rule
// (detection, state, stagnation, the texts the model sees) lives in the `goal` binary.
//
//   input               → `goal detect --json -`; a goal phrase runs `goal init`, an abandon phrase
//                          `goal abandon`; a stale goal is offered continue / replace / abandon
//                          (10 s, then continue; no UI → continue)
//   before_agent_start  → `goal inject` (with --context-usage at ≥ 80 %), appended to the system prompt
//   tool_result         → at ≥ 80 % context usage, the save-progress directive steered in once per prompt
//   agent_end           → one follow-up nudge per user prompt while the goal is in progress
//   /goal <args>        → runs `goal <args>` and shows the output (the person's command: unmarked)
//   load                → GOAL_AGENT=pi in Pi's environment, which the commands its tools run
//                          inherit: `goal … --confirm` from the model is refused (a confirmation is
//                          the person's)
//
// It fails open: a missing binary, a timeout, a non-zero exit or bad JSON never breaks the turn;
// it is reported with `notify` where there is a UI. The binary is GOAL_BIN, else `goal` on PATH.

import { spawn } from "node:child_process";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";

/** Milliseconds a `goal` call may take before it is killed (GOAL_PI_TIMEOUT_MS). */
const TIMEOUT_MS = Number(process.env.GOAL_PI_TIMEOUT_MS ?? "") || 20_000;
/** The seed's timeout for the stale-goal question. */
const QUESTION_MS = 10_000;
/** What the user sees when a goal is abandoned: how to take it back. */
const ABANDONED = "goal: the goal was abandoned (restore it with `goal restore`)";
/**
 * The request for criteria the model is given (in the system prompt, after `goal inject`'s text,
 * which stays as the binary prints it) on the turn a goal was just set: the Claude adapter's words.
 */
export const CRITERIA_FIRST =
  'goal: a new goal was set from this prompt. Write its acceptance criteria first — each an observable outcome pinned to the test that proves it — with `goal criteria add "<outcome>" --verify "<test command>"`. ' +
  "Test first: write or name the test of each criterion before the code, run `goal verify -c N` and see it fail, then make it pass; never edit a test to make it pass. " +
  'A `--verify` criterion must be seen failing on the code before the goal and passing at the end (if you never ran it failing, `goal done` runs it on the old code itself); use `--guard "<command>"` only for what must stay green (a regression suite, a linter): a goal whose criteria are all guards is refused.';
/** Added to the request for criteria when the goal's `mutants` setting is on (`goal`'s words). */
export const MUTANTS_ON =
  "Mutation check on: `goal done` reverts each change you made to the code and mutates the functions you changed, whole (code kept but bypassed under test shows survivors); every change must turn an acceptance test red, and the tests must kill its mutants. A survivor (file:line, the mutation) is a test to write, never a test to weaken; an unneeded change is code to test or remove. `goal verify --mutants` shows them.";
/** Whether the goal just set has its mutation check on (`settings.mutants` of `goal status --json`). */
export async function mutantsOn(cwd: string): Promise<boolean> {
  const status = await runGoal(["status", "--json"], cwd);
  const mode = status.code === 0 ? parseJson(status.stdout)?.settings?.mutants : undefined;
  return mode === "report" || mode === "gate";
}
/** Context usage (percent) from which the save-progress directive is asked for. */
const CONTEXT_PERCENT = 80;

export interface GoalResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not run or was killed. */
  error?: string;
}

/** The mark of an agent's environment (`goal` refuses `--confirm` from it). */
export const AGENT_MARK = "GOAL_AGENT";
/** Whether this extension set the mark itself (else `goal run` or the user did). */
let markedHere = false;

/**
 * Mark Pi's environment as the agent's: the commands its tools run (bash) inherit it. Pi gives an
 * extension no per-command environment, so the mark goes on Pi's own process; an existing mark
 * (from `goal run --agent pi`) is kept.
 */
export function markAgentEnv(env: NodeJS.ProcessEnv = process.env): void {
  if (!env[AGENT_MARK]) {
    env[AGENT_MARK] = "pi";
    markedHere = true;
  }
}

/** The environment of a command the person gives (`/goal …`): without the mark this extension set. */
export function personEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (!markedHere) return env;
  const copy = { ...env };
  delete copy[AGENT_MARK];
  return copy;
}

export function goalBinary(): string {
  return process.env.GOAL_BIN || "goal";
}

/** Run `goal args…` (no shell), feeding `input` on stdin. Never rejects. */
export function runGoal(
  args: string[],
  cwd: string,
  input?: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<GoalResult> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    const finish = (result: GoalResult) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(result);
      }
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(goalBinary(), args, { cwd, stdio: ["pipe", "pipe", "pipe"], env });
    } catch (e) {
      resolve({ code: null, stdout, stderr, error: String(e) });
      return;
    }
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ code: null, stdout, stderr, error: `timed out after ${TIMEOUT_MS} ms` });
    }, TIMEOUT_MS);
    child.stdout?.on("data", (d) => (stdout += d));
    child.stderr?.on("data", (d) => (stderr += d));
    child.on("error", (e) => finish({ code: null, stdout, stderr, error: e.message }));
    child.on("close", (code) => finish({ code, stdout, stderr }));
    child.stdin?.on("error", () => {});
    child.stdin?.end(input ?? "");
  });
}

/** Split `/goal` arguments like a shell would split words (quotes, backslashes); nothing runs a shell. */
export function splitArgs(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | null = null;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      started = true;
    } else if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = "";
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (started) words.push(word);
  return words;
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export default function goalExtension(pi: ExtensionAPI) {
  markAgentEnv();
  // Per user prompt: at most one steer of the save-progress directive and one nudge.
  let steered = false;
  let nudged = false;
  // A goal was just set: the next turn's system prompt asks for its criteria, test first.
  let askCriteria = false;
  let askMutants = false;

  const report = (ctx: ExtensionContext, what: string, r?: GoalResult) => {
    const detail = r ? r.error ?? (r.stderr.trim().split("\n")[0] || `exit ${r.code}`) : "";
    try {
      if (ctx.hasUI) ctx.ui.notify(`goal: ${what}${detail ? `: ${detail}` : ""}`, "warning");
    } catch {
      // The context can be gone (the session ended): nothing left to tell.
    }
  };

  const usagePercent = (ctx: ExtensionContext): number | undefined => {
    try {
      const percent = ctx.getContextUsage()?.percent;
      return typeof percent === "number" ? percent : undefined;
    } catch {
      return undefined;
    }
  };

  const injectArgs = (ctx: ExtensionContext): string[] => {
    const percent = usagePercent(ctx);
    return percent !== undefined && percent >= CONTEXT_PERCENT
      ? ["inject", "--context-usage", String(Math.min(percent, 100))]
      : ["inject"];
  };

  pi.on("input", async (event, ctx) => {
    if (event.source === "extension") return { action: "continue" };
    steered = false;
    nudged = false;
    const cwd = ctx.cwd;
    try {
      const detected = await runGoal(["detect", "--json", "-"], cwd, event.text);
      const d = parseJson(detected.stdout);
      if (!d || (detected.code !== 0 && detected.code !== 1)) {
        report(ctx, "detect failed", detected);
        return { action: "continue" };
      }
      if (!d.trigger) return { action: "continue" };
      if (d.kind === "abandon") {
        // The user's own words: the person's act, run without the agent's mark.
        const r = await runGoal(["abandon", "--reason", "abandoned by the user"], cwd, undefined, personEnv());
        if (r.code === 0 && ctx.hasUI) ctx.ui.notify(ABANDONED, "info");
        else if (r.code !== 1) report(ctx, "abandon failed", r);
        return { action: "continue" };
      }
      const status = await runGoal(["status", "--json"], cwd);
      if (status.code === 1) {
        const r = await runGoal(["init", String(d.goal)], cwd);
        if (r.code === 0) askCriteria = true;
        if (r.code === 0) askMutants = await mutantsOn(cwd);
        if (r.code === 0 && ctx.hasUI) ctx.ui.notify(`goal: new goal set: ${d.goal}`, "info");
        else if (r.code !== 0) report(ctx, "init failed", r);
        return { action: "continue" };
      }
      if (status.code !== 0) {
        report(ctx, "status failed", status);
        return { action: "continue" };
      }
      // A goal is already active: the seed's stale-state question, with a timed default.
      const active = parseJson(status.stdout);
      let choice = 0;
      if (ctx.hasUI) {
        const options = ["继续当前目标 (continue)", "替换为新目标 (replace)", "放弃当前目标 (abandon)"];
        const picked = await ctx.ui.select(`A goal is already active: "${active?.goal ?? ""}"`, options, {
          timeout: QUESTION_MS,
        });
        choice = picked === undefined ? 0 : Math.max(0, options.indexOf(picked));
      }
      if (choice === 1) {
        const r = await runGoal(["init", "--replace", String(d.goal)], cwd, undefined, personEnv());
        if (r.code !== 0) report(ctx, "replace failed", r);
        else {
          askCriteria = true;
          askMutants = await mutantsOn(cwd);
        }
        if (r.code === 0 && ctx.hasUI) ctx.ui.notify(`${ABANDONED}; new goal set: ${d.goal}`, "info");
      } else if (choice === 2) {
        const r = await runGoal(["init", "--abandon-current"], cwd, undefined, personEnv());
        if (r.code !== 0) report(ctx, "abandon failed", r);
        else if (ctx.hasUI) ctx.ui.notify(ABANDONED, "info");
      }
    } catch (e) {
      report(ctx, `input handler failed: ${String(e)}`);
    }
    return { action: "continue" };
  });

  pi.on("before_agent_start", async (event, ctx) => {
    try {
      const r = await runGoal(injectArgs(ctx), ctx.cwd);
      if (r.code !== 0) {
        report(ctx, "inject failed", r);
        return undefined;
      }
      const ask = askCriteria ? `\n${CRITERIA_FIRST}${askMutants ? ` ${MUTANTS_ON}` : ""}\n` : "";
      askCriteria = false;
      askMutants = false;
      if (!r.stdout.trim() && !ask) return undefined;
      return { systemPrompt: `${event.systemPrompt}\n\n${r.stdout}${ask}` };
    } catch (e) {
      report(ctx, `inject failed: ${String(e)}`);
      return undefined;
    }
  });

  pi.on("tool_result", async (_event, ctx) => {
    try {
      const percent = usagePercent(ctx);
      if (steered || percent === undefined || percent < CONTEXT_PERCENT) return undefined;
      const r = await runGoal(injectArgs(ctx), ctx.cwd);
      if (r.code === 0 && r.stdout.trim()) {
        steered = true;
        pi.sendMessage({ customType: "goal-save-progress", content: r.stdout, display: true }, { deliverAs: "steer" });
      } else if (r.code !== 0) {
        report(ctx, "inject failed", r);
      }
    } catch (e) {
      report(ctx, `tool_result handler failed: ${String(e)}`);
    }
    return undefined;
  });

  pi.on("agent_end", async (_event, ctx) => {
    try {
      if (nudged) return;
      const cwd = ctx.cwd;
      const status = await runGoal(["status", "--json"], cwd);
      if (status.code !== 0) return; // no goal (1) or a problem `goal` reports itself
      if (parseJson(status.stdout)?.status !== "in-progress") return;
      const r = await runGoal(["inject"], cwd);
      if (r.code !== 0 || !r.stdout.trim()) return;
      nudged = true;
      pi.sendMessage(
        { customType: "goal-nudge", content: `${r.stdout}Continue the iteration.`, display: true },
        { deliverAs: "followUp", triggerTurn: true },
      );
    } catch (e) {
      report(ctx, `agent_end handler failed: ${String(e)}`);
    }
  });

  pi.registerCommand("goal", {
    description: "Run `goal <args>` (e.g. /goal status) and show its output",
    handler: async (args, ctx) => {
      const r = await runGoal(splitArgs(args ?? ""), ctx.cwd, undefined, personEnv());
      const text = [r.stdout.trimEnd(), r.stderr.trimEnd(), r.error ?? ""].filter(Boolean).join("\n") || `exit ${r.code}`;
      if (ctx.hasUI) ctx.ui.notify(text, r.code === 0 ? "info" : "warning");
      else process.stdout.write(`${text}\n`);
    },
  });
}
