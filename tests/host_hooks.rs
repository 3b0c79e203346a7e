//! `goal hook <host>` on recorded payloads (codex 0.169.0 and gemini 0.61.0 as they sent them;
//! Cursor's in its documented format, unverified), and `goal integrate <host>` with
//! `--uninstall` giving each file back byte for byte.

use serde_json::{Value, json};

use crate::common::{Repo, stderr, stdout};

/// A recorded payload of `host` for `event`, in the repository's folder.
fn payload(host: &str, event: &str, repo: &Repo, extra: Value) -> Value {
    let cwd = repo.path().display().to_string();
    let mut v = match (host, event) {
        // Recorded from codex 0.169.0 (`codex exec`).
        ("codex", name) => json!({
            "session_id": "01a250b0-c16a-7553-8572-e501535a6b1d",
            "turn_id": "01a250b0-c195-7d53-95f0-362d92c81ccc",
            "transcript_path": "/nonexistent/rollout.jsonl",
            "cwd": cwd, "hook_event_name": name, "model": "gpt-5",
            "permission_mode": "bypassPermissions", "stop_hook_active": false,
            "last_assistant_message": "I am done."
        }),
        // Recorded from gemini 0.61.0 (`gemini -p`).
        ("gemini", name) => json!({
            "session_id": "268c7e41-9711-4e36-b2e8-2eea6ebe1837",
            "transcript_path": "/nonexistent/session.jsonl",
            "cwd": cwd, "hook_event_name": name, "timestamp": "2026-12-07T13:28:45.424Z",
            "prompt": "do it", "prompt_response": "I am done.", "stop_hook_active": false
        }),
        // What goal's opencode plugin sends.
        ("opencode", name) => json!({"hook_event_name": name, "session_id": "ses_1", "cwd": cwd}),
        // Cursor's documented hook input (its own hooks, and Claude Code's hooks it runs).
        (_, name) => json!({
            "conversation_id": "conv-1", "generation_id": "gen-1", "hook_event_name": name,
            "workspace_roots": [cwd], "status": "completed", "loop_count": 0
        }),
    };
    if let (Value::Object(v), Value::Object(extra)) = (&mut v, extra) {
        v.extend(extra);
    }
    v
}

/// `goal hook <host>` on `input`: its stdout as JSON (Null when it printed nothing).
fn hook(repo: &Repo, host: &str, input: &Value, args: &[&str]) -> Value {
    let out = repo
        .goal()
        .args(["hook", host])
        .args(args)
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    if text.trim().is_empty() {
        return Value::Null;
    }
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{host}: {e}: {text}"))
}

/// (host, its stop event, where its answer puts the reason).
const STOPS: &[(&str, &str, &str)] = &[
    ("claude", "Stop", "/reason"),
    ("codex", "Stop", "/reason"),
    ("gemini", "AfterAgent", "/reason"),
    ("opencode", "session.idle", "/reason"),
    ("cursor", "stop", "/followup_message"),
];

#[test]
fn every_host_answers_a_stop_in_its_own_format_with_the_same_verdict() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let mut reasons = Vec::new();
    for (host, event, at) in STOPS {
        let input = payload(
            host,
            event,
            &repo,
            json!({"generation_id": format!("g-{host}")}),
        );
        let answer = hook(&repo, host, &input, &[]);
        let reason = answer.pointer(at).and_then(Value::as_str);
        let reason = reason.unwrap_or_else(|| panic!("{host}: {answer}"));
        assert!(reason.contains("1. a passes (open)"), "{host}: {reason}");
        assert!(
            reason.contains("\nGOAL-PROOF: open 0/1"),
            "{host}: {reason}"
        );
        let decision = answer.get("decision").and_then(Value::as_str);
        let want = match *host {
            "gemini" => Some("deny"),
            "cursor" => None,
            _ => Some("block"),
        };
        assert_eq!(decision, want, "{host}: {answer}");
        // The reason but for the block's number is the same on every host.
        reasons.push(reason.split(" stop block ").nth(1).unwrap()[1..].to_string());
    }
    assert!(reasons.windows(2).all(|w| w[0] == w[1]), "{reasons:#?}");
    // `--json`: the host-neutral verdict.
    let input = payload("codex", "Stop", &repo, json!({}));
    let v = hook(&repo, "codex", &input, &["--json"]);
    assert_eq!(
        (
            v["decision"].as_str(),
            v["proven"].as_u64(),
            v["total"].as_u64()
        ),
        (Some("block"), Some(0), Some(1))
    );
    // A finished goal lets every host stop.
    repo.ok(&["block", "--reason", "waiting on the vendor"]);
    for (host, event, _) in STOPS {
        let input = payload(
            host,
            event,
            &repo,
            json!({"generation_id": format!("h-{host}")}),
        );
        let answer = hook(&repo, host, &input, &[]);
        assert!(answer.is_null() || answer == json!({}), "{host}: {answer}");
    }
}

#[test]
fn a_slash_command_is_never_a_goal_phrase_on_any_host() {
    let prompts = [
        ("claude", "UserPromptSubmit"),
        ("codex", "UserPromptSubmit"),
        ("gemini", "BeforeAgent"),
        ("opencode", "chat.message"),
        ("cursor", "beforeSubmitPrompt"),
    ];
    let repo = Repo::new();
    for (host, event) in prompts {
        for prompt in [
            "/goal make the parser handle unicode",
            "/review my goal is to ship it",
        ] {
            let input = payload(host, event, &repo, json!({"prompt": prompt}));
            hook(&repo, host, &input, &[]);
            assert!(!repo.exists(crate::common::GOAL), "{host}: {prompt}");
        }
    }
    // The same words without the slash set the goal (Gemini CLI's BeforeAgent here), and the
    // context goes back in Gemini's format.
    let input = payload(
        "gemini",
        "BeforeAgent",
        &repo,
        json!({"prompt": "my goal is to make the parser handle unicode"}),
    );
    let answer = hook(&repo, "gemini", &input, &[]);
    assert!(repo.exists(crate::common::GOAL));
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("a new goal was set from this prompt"),
        "{answer}"
    );
    assert!(
        answer.get("decision").is_none(),
        "never deny a person's prompt: {answer}"
    );
    // goal's own block reason sent back as the next prompt is never read as the person's.
    let reason = "The goal \"x\" is not done (goal's stop block 1). Abandon the goal.";
    let input = payload("gemini", "BeforeAgent", &repo, json!({"prompt": reason}));
    hook(&repo, "gemini", &input, &[]);
    assert!(repo.exists(crate::common::GOAL));
}

/// Cursor runs its own hooks and Claude Code's: with goal in both, each stop is judged by the
/// first to ask, the other gets the same answer, and goal's bound counts the stop once.
#[test]
fn under_cursor_a_stop_is_judged_once_when_both_its_hooks_and_claudes_run_goal() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let mut answers = Vec::new();
    for n in 0..4u64 {
        let ids = json!({"generation_id": format!("gen-{n}"), "loop_count": n});
        let cursor = hook(
            &repo,
            "cursor",
            &payload("cursor", "stop", &repo, ids.clone()),
            &[],
        );
        let claude = hook(&repo, "claude", &payload("cursor", "Stop", &repo, ids), &[]);
        assert_eq!(
            cursor["followup_message"], claude["reason"],
            "stop {n}: {cursor} {claude}"
        );
        answers.push(cursor["followup_message"].is_string());
    }
    // goal.stopBlocks (3) stops kept going, the 4th let through: counted once each.
    assert_eq!(answers, [true, true, true, false]);
    // A stop the person aborted is not judged.
    let aborted = payload(
        "cursor",
        "stop",
        &repo,
        json!({"status": "aborted", "generation_id": "x"}),
    );
    assert_eq!(hook(&repo, "cursor", &aborted, &[]), Value::Null);
}

#[test]
fn cursor_session_start_marks_the_agent_and_its_prompt_hook_never_blocks() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let start = hook(
        &repo,
        "cursor",
        &payload("cursor", "sessionStart", &repo, json!({})),
        &[],
    );
    assert_eq!(start["env"]["GOAL_AGENT"], "cursor");
    let context = start["additional_context"].as_str().unwrap();
    assert!(context.contains("GOAL-PROOF: open 0/1"), "{context}");
    let prompt = payload(
        "cursor",
        "beforeSubmitPrompt",
        &repo,
        json!({"prompt": "go on"}),
    );
    assert_eq!(
        hook(&repo, "cursor", &prompt, &[]),
        json!({"continue": true})
    );
    let codex = hook(
        &repo,
        "codex",
        &payload("codex", "SessionStart", &repo, json!({"source": "startup"})),
        &[],
    );
    assert_eq!(codex["hookSpecificOutput"]["hookEventName"], "SessionStart");
    // A payload without its event: named by --event, else said as a systemMessage.
    let bare = json!({"cwd": repo.path().display().to_string()});
    let said = hook(&repo, "opencode", &bare, &[]);
    assert!(
        said["systemMessage"].as_str().unwrap().contains("--event"),
        "{said}"
    );
    let v = hook(&repo, "opencode", &bare, &["--event", "session.idle"]);
    assert_eq!(v["decision"], "block", "{v}");
}

/// A settings file of the user's, with comments, tabs, a trailing comma and hooks of their own.
const USERS: &str = "// team settings\n{\n\t\"hooks\" : {\n\t\t\"Stop\": [ {\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}, ], // ours\n\t\t/* keep */ \"sessionStart\": [{\"command\": \"echo hi\"}]\n\t},\n\t\"version\": 1, \"model\":\"x\"\n}\n";

#[test]
fn integrate_and_uninstall_give_each_file_back_byte_for_byte() {
    for (host, file) in [
        ("claude", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
        ("cursor", ".cursor/hooks.json"),
    ] {
        let repo = Repo::new();
        // A file goal created is deleted again, with the folder it made.
        repo.ok(&["integrate", host]);
        assert!(
            repo.read(file).contains(&format!("goal hook {host}")),
            "{host}"
        );
        repo.ok(&["integrate", host, "--uninstall"]);
        assert!(!repo.exists(file), "{host}");
        assert!(!repo.path().join(file).parent().unwrap().exists(), "{host}");
        // The user's file comes back as it was.
        repo.write(file, USERS);
        repo.ok(&["integrate", host]);
        let once = repo.read(file);
        assert!(
            once.starts_with("// team settings\n{\n\t\"hooks\" : {\n"),
            "{host}: {once}"
        );
        repo.ok(&["integrate", host]);
        assert_eq!(repo.read(file), once, "{host}: idempotent");
        repo.ok(&["integrate", host, "--uninstall"]);
        assert_eq!(repo.read(file), USERS, "{host}");
        let out = repo
            .goal()
            .args(["integrate", host, "--uninstall"])
            .output()
            .unwrap();
        assert!(
            stdout(&out).contains("does not run"),
            "{host}: {}",
            stdout(&out)
        );
    }
}

#[test]
fn codex_gets_the_mark_in_its_config_and_opencode_and_pi_their_files_back() {
    let repo = Repo::new();
    let config =
        "# mine\nmodel = \"o3\"   # fast\n\n[shell_environment_policy]\ninherit = \"core\"\n";
    repo.write(".codex/config.toml", config);
    let out = repo.goal().args(["integrate", "codex"]).output().unwrap();
    let said = stdout(&out);
    assert!(
        said.contains("trust: Codex loads a project's .codex/ only when"),
        "{said}"
    );
    let with = repo.read(".codex/config.toml");
    assert!(
        with.starts_with(config) && with.contains("GOAL_AGENT = \"codex\""),
        "{with}"
    );
    repo.ok(&["integrate", "codex", "--uninstall"]);
    assert_eq!(repo.read(".codex/config.toml"), config);
    assert!(!repo.exists(".codex/hooks.json"));
    for host in ["opencode", "pi"] {
        repo.ok(&["integrate", host]);
        repo.ok(&["integrate", host, "--uninstall"]);
    }
    assert!(!repo.exists(".opencode") && !repo.exists(".pi"));
    // A plugin file changed since is left, said so (exit 1).
    repo.ok(&["integrate", "opencode"]);
    repo.write(".opencode/plugins/goal.js", "// mine now\n");
    repo.refused(
        &["integrate", "opencode", "--uninstall"],
        1,
        &["differs from the file goal wrote"],
    );
    assert_eq!(repo.read(".opencode/plugins/goal.js"), "// mine now\n");
}

#[test]
fn a_file_goal_cannot_parse_is_refused_and_left_as_it_is() {
    let repo = Repo::new();
    for (file, text, host) in [
        (
            ".gemini/settings.json",
            "{\n  // c\n  \"hooks\": [1\n}\n",
            "gemini",
        ),
        (
            ".cursor/hooks.json",
            "{\n  \"version\": 1,\n  \"hooks\" {}\n}\n",
            "cursor",
        ),
        (".codex/config.toml", "model = \n", "codex"),
    ] {
        repo.write(file, text);
        for args in [
            vec!["integrate", host],
            vec!["integrate", host, "--uninstall"],
        ] {
            repo.refused(
                &args,
                2,
                &[file, "goal never rewrites a file it cannot parse"],
            );
            assert_eq!(repo.read(file), text);
        }
        std::fs::remove_file(repo.path().join(file)).unwrap();
    }
}

#[test]
fn cursor_says_when_claude_code_runs_goal_too_and_no_claude_takes_it_out() {
    let repo = Repo::new();
    repo.ok(&["integrate", "claude"]);
    let out = repo.goal().args(["integrate", "cursor"]).output().unwrap();
    assert!(
        stdout(&out).contains("goal judges each stop once"),
        "{}",
        stdout(&out)
    );
    repo.ok(&["integrate", "cursor", "--no-claude"]);
    assert!(!repo.exists(".claude/settings.json"));
    assert!(
        repo.read(".cursor/hooks.json")
            .contains("\"loop_limit\": 4")
    );
}

#[test]
fn status_names_each_integrated_host_and_whether_its_hook_ran() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.ok(&["integrate", "gemini"]);
    let v = crate::common::json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(v["hosts"][0]["host"], "gemini");
    assert_eq!(v["hosts"][0]["last_ran"], Value::Null);
    let said = stdout(&repo.goal().arg("status").output().unwrap());
    assert!(
        said.contains("Agent host gemini: hooks installed, never ran: Gemini CLI reads"),
        "{said}"
    );
    hook(
        &repo,
        "gemini",
        &payload("gemini", "SessionStart", &repo, json!({})),
        &[],
    );
    let said = stdout(&repo.goal().arg("status").output().unwrap());
    assert!(
        said.contains("Agent host gemini: hooks installed, last ran 20"),
        "{said}"
    );
}
