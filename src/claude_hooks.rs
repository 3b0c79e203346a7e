//! The Claude Code hooks `goal` answers, in one table: `goal integrate claude` merges them into a
//! project's `.claude/settings.json`, and the Claude Code plugin's `plugins/goal/hooks/hooks.json`
//! is rendered from the same table (a test keeps the committed file equal to [`plugin_hooks`]).

use serde_json::{Value, json};

/// The command every hook runs.
pub const COMMAND: &str = "goal hook claude";

/// The events `goal hook claude` answers, in the order they are written.
pub const EVENTS: &[&str] = &["UserPromptSubmit", "SessionStart", "Stop"];

/// Where the plugin's hooks file lives, from the repository root.
pub const PLUGIN_HOOKS_PATH: &str = "plugins/goal/hooks/hooks.json";

/// The plugin's command: [`COMMAND`] run from PATH, failing open — without `goal` on PATH, or if
/// it fails, the hook exits 0 with no output and Claude Code carries on as if it were not there.
pub fn plugin_command() -> String {
    format!("command -v goal >/dev/null 2>&1 || exit 0; {COMMAND} || exit 0")
}

/// The plugin's `hooks/hooks.json`, as committed (pretty JSON and a final newline).
pub fn plugin_hooks() -> String {
    let mut hooks = serde_json::Map::new();
    for event in EVENTS {
        hooks.insert(
            event.to_string(),
            json!([{"hooks": [{"type": "command", "command": plugin_command()}]}]),
        );
    }
    let file = json!({
        "description": format!("goal: `{COMMAND}` on {} (the same hooks as `goal integrate claude`); a no-op without `goal` on PATH", EVENTS.join(", ")),
        "hooks": Value::Object(hooks),
    });
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    text
}

/// What every block reason of goal's Stop hook says, before the block's number.
pub const GOALS_BLOCK: &str = "goal's stop block ";

/// How Claude Code opens the message that carries one Stop hook's blocking reason.
const FEEDBACK: &str = "Stop hook feedback:";

/// The transcript entries' roles and texts (user and assistant only), oldest first.
fn transcript_entries(jsonl: &str) -> Vec<(String, String)> {
    jsonl
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|entry| {
            let role = entry.get("type")?.as_str()?.to_string();
            if role != "user" && role != "assistant" {
                return None;
            }
            let text = match entry.get("message").and_then(|m| m.get("content")) {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Array(blocks)) => blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => String::new(),
            };
            Some((role, text))
        })
        .collect()
}

/// Whether the last stop goal blocked (its feedback carries `reason`) was blocked by another
/// Stop hook as well: Claude Code writes one feedback message per blocking hook, side by side
/// between two assistant turns. Pure over the transcript's text.
pub fn shared_in(jsonl: &str, reason: &str) -> bool {
    let entries = transcript_entries(jsonl);
    let ours = |text: &str| text.starts_with(FEEDBACK) && text.contains(reason);
    let Some(at) = entries
        .iter()
        .rposition(|(role, text)| role == "user" && ours(text))
    else {
        return false;
    };
    let before = entries[..at].iter().rev();
    let after = entries[at + 1..].iter();
    let other = |(role, text): &(String, String)| -> Option<bool> {
        (role == "user").then(|| text.starts_with(FEEDBACK) && !text.contains(GOALS_BLOCK))
    };
    let mut neighbours = before.map_while(other).chain(after.map_while(other));
    neighbours.any(|other_hook| other_hook)
}

/// How long a stop waits for Claude Code to write the last block's feedback into the transcript
/// (it writes the transcript behind the session, later under load): `GOAL_TRANSCRIPT_WAIT_MS`,
/// default 3,000 ms.
pub fn transcript_wait() -> std::time::Duration {
    let ms = std::env::var("GOAL_TRANSCRIPT_WAIT_MS")
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(3_000);
    std::time::Duration::from_millis(ms)
}

/// [`shared_in`] on the transcript file Claude Code names in the Stop event. `reason` is unique to
/// goal's last block (it carries the block's number), so an older block is never taken for it.
/// Until that block's feedback is there, the file is read again (for `wait`, [`transcript_wait`]
/// in the hook), the file itself too; a transcript that is never there, or never shows the block,
/// says nothing shared, so the block counts (the limit holds either way).
pub fn shared_block(transcript: &std::path::Path, reason: &str, wait: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + wait;
    loop {
        // Claude Code creates the transcript file behind the session too: a file not there yet
        // is waited for like a block not written yet.
        if let Ok(jsonl) = std::fs::read_to_string(transcript)
            && feedback_written(&jsonl, reason)
        {
            return shared_in(&jsonl, reason);
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Whether the transcript text holds goal's feedback carrying `reason`.
fn feedback_written(jsonl: &str, reason: &str) -> bool {
    transcript_entries(jsonl)
        .iter()
        .any(|(role, text)| role == "user" && text.starts_with(FEEDBACK) && text.contains(reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether goal's last block was shared with another Stop hook, from the transcript lines
    /// Claude Code writes (one feedback message per blocking hook between assistant turns).
    #[test]
    fn a_block_is_shared_when_another_hooks_feedback_stands_beside_it() {
        let user = |text: &str| {
            json!({"type": "user", "message": {"role": "user", "content": text}}).to_string()
        };
        let assistant = || {
            json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}}).to_string()
        };
        let attachment = || {
            json!({"type": "attachment", "attachment": {"type": "goal_status", "met": false}})
                .to_string()
        };
        let ours = "Stop hook feedback:\nThe goal is not done (goal's stop block 1). why";
        let judge = "Stop hook feedback:\n[all tests pass]: not met";
        let table: Vec<(Vec<String>, bool)> = vec![
            (
                vec![
                    assistant(),
                    user(judge),
                    attachment(),
                    user(ours),
                    assistant(),
                ],
                true,
            ),
            (
                vec![assistant(), user(ours), user(judge), assistant()],
                true,
            ),
            (vec![assistant(), user(ours), assistant()], false),
            // The judge's feedback of an earlier stop is not beside goal's latest block.
            (
                vec![
                    assistant(),
                    user(judge),
                    assistant(),
                    user(ours),
                    assistant(),
                ],
                false,
            ),
            (
                vec![
                    assistant(),
                    user(ours),
                    user(judge),
                    assistant(),
                    user(ours),
                    assistant(),
                ],
                false,
            ),
            (vec![assistant(), user(judge), assistant()], false),
            (vec!["not json".into(), user(ours), user(judge)], true),
            (vec![], false),
        ];
        for (lines, want) in table {
            let jsonl = lines.join("\n");
            assert_eq!(shared_in(&jsonl, "why"), want, "{jsonl}");
        }
    }

    /// A block whose feedback is not in the transcript yet is not shared: goal waits for it, then
    /// counts it as its own.
    #[test]
    fn a_block_not_written_yet_is_not_shared() {
        let user = |text: &str| {
            json!({"type": "user", "message": {"role": "user", "content": text}}).to_string()
        };
        let older = [
            user("Stop hook feedback:\nThe goal is not done (goal's stop block 1). why"),
            user("Stop hook feedback:\n[all tests pass]: not met"),
        ]
        .join("\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        std::fs::write(&path, &older).unwrap();
        let now = std::time::Duration::ZERO;
        assert!(shared_block(&path, "stop block 1)", now));
        assert!(!shared_block(&path, "stop block 2)", now));
        assert!(!shared_block(
            &dir.path().join("none.jsonl"),
            "stop block 1)",
            now
        ));
    }

    /// The committed plugin hooks file is the rendered table. To refresh it after changing the
    /// table: `GOAL_WRITE_PLUGIN_HOOKS=1 cargo test --locked plugin_hooks_file`.
    #[test]
    fn plugin_hooks_file_is_rendered_from_the_table() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(PLUGIN_HOOKS_PATH);
        let want = plugin_hooks();
        if std::env::var_os("GOAL_WRITE_PLUGIN_HOOKS").is_some() {
            std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            have,
            want,
            "{} differs from the hook table in src/claude_hooks.rs: run `GOAL_WRITE_PLUGIN_HOOKS=1 cargo test --locked plugin_hooks_file`",
            path.display()
        );
    }

    #[test]
    fn plugin_hooks_cover_every_event_with_the_same_command() {
        let v: Value = serde_json::from_str(&plugin_hooks()).unwrap_or_default();
        let events: Vec<&String> = v["hooks"]
            .as_object()
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        assert_eq!(events, EVENTS.to_vec());
        for event in EVENTS {
            let command = v["hooks"][event][0]["hooks"][0]["command"]
                .as_str()
                .unwrap_or("");
            assert!(command.contains(COMMAND), "{event}: {command}");
            assert!(command.starts_with("command -v goal"), "{event}: {command}");
        }
    }

    /// Without `goal` on PATH, the plugin's command exits 0 and prints nothing; with a `goal` that
    /// fails, it still exits 0.
    #[test]
    fn plugin_command_fails_open() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let run = |path: &std::ffi::OsStr| {
            std::process::Command::new("/bin/sh")
                .args(["-c", &plugin_command()])
                .env("PATH", path)
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let out = run(dir.path().as_os_str());
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
        let fake = dir.path().join("goal");
        std::fs::write(&fake, "#!/bin/sh\nexit 2\n").unwrap_or_else(|e| panic!("{e}"));
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755))
            .unwrap_or_else(|e| panic!("{e}"));
        let path = format!("{}:/usr/bin:/bin", dir.path().display());
        let out = run(path.as_ref());
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
}
