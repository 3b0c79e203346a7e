// goal's opencode plugin, written by `goal integrate opencode` (and deleted by
// `goal integrate opencode --uninstall`). All logic is in the `goal` binary: this file sends
// opencode's session events to `goal hook opencode` and does what it answers.
//   - every shell command of the agent carries goal's mark (GOAL_AGENT=opencode);
//   - a prompt is checked for a goal or abandon phrase, and the goal's state added to the system
//     prompt;
//   - when a session goes idle with the goal's criteria open, goal's reason is sent as the next
//     prompt, bounded by goal.stopBlocks (goal counts its own continuations).
// Without `goal` on PATH, or if it fails, the plugin does nothing.
import { spawnSync } from "node:child_process"

function hook(payload) {
  const run = spawnSync("goal", ["hook", "opencode"], {
    input: JSON.stringify(payload),
    encoding: "utf8",
    timeout: 15 * 60 * 1000,
  })
  if (run.error || run.status !== 0) return {}
  try {
    return JSON.parse(run.stdout || "{}") || {}
  } catch {
    return {}
  }
}

export const GoalPlugin = async ({ client, directory, worktree }) => {
  const cwd = directory || worktree
  // Sessions goal itself continued since the person's last prompt, with the text it sent.
  const continued = new Map()
  // The goal's state per session, added to the system prompt.
  const context = new Map()
  return {
    "shell.env": async (_input, output) => {
      output.env.GOAL_AGENT = "opencode"
    },
    "chat.message": async (input, output) => {
      const prompt = (output.parts || [])
        .filter((p) => p.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n")
      if (continued.get(input.sessionID) !== prompt) continued.delete(input.sessionID)
      const answer = hook({ hook_event_name: "chat.message", session_id: input.sessionID, cwd, prompt })
      if (answer.context) context.set(input.sessionID, answer.context)
    },
    "experimental.chat.system.transform": async (input, output) => {
      const text = context.get(input.sessionID)
      if (text && Array.isArray(output.system)) output.system.push(text)
    },
    event: async ({ event }) => {
      if (event.type !== "session.idle") return
      const id = event.properties.sessionID
      const answer = hook({
        hook_event_name: "session.idle",
        session_id: id,
        cwd,
        stop_hook_active: continued.has(id),
      })
      if (answer.decision !== "block" || !answer.reason) {
        continued.delete(id)
        return
      }
      continued.set(id, answer.reason)
      await client.session.prompt({ path: { id }, body: { parts: [{ type: "text", text: answer.reason }] } })
    },
  }
}
