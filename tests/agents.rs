//! Agent integration: detect, inject, continuation, criteria lint, the Claude Code adapter,
//! integrate, and phases.

use serde_json::Value;

use crate::common::{GOAL, Repo, fixture, json, project, stderr, stdout};

/// A recorded Claude Code hook input with the session's directory (and prompt) filled in.
fn event(name: &str, repo: &Repo, prompt: &str) -> String {
    let text = std::fs::read_to_string(fixture(&format!("claude/{name}.json"))).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["cwd"] = Value::String(repo.path().display().to_string());
    if v.get("prompt").is_some() {
        v["prompt"] = Value::String(prompt.to_string());
    }
    v.to_string()
}

fn hook(repo: &Repo, input: &str) -> std::process::Output {
    let out = repo
        .goal()
        .args(["hook", "claude"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the hook always exits 0: {}",
        stderr(&out)
    );
    out
}

fn stop(repo: &Repo, active: bool) -> Option<Value> {
    let mut v: Value = serde_json::from_str(&event("stop", repo, "")).unwrap();
    v["stop_hook_active"] = Value::Bool(active);
    let out = hook(repo, &v.to_string());
    let text = stdout(&out);
    (!text.trim().is_empty()).then(|| serde_json::from_str(&text).unwrap())
}

#[test]
fn detect_reports_triggers_with_exit_codes_and_json() {
    let repo = Repo::new();
    let out = repo
        .goal()
        .args([
            "detect",
            "--json",
            "my goal is to make the client cancel slow requests",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["trigger"], true);
    assert_eq!(v["kind"], "goal");
    assert_eq!(v["goal"], "make the client cancel slow requests");
    assert_eq!(v["lang"], "en");
    assert!(v["rejected"].is_null());
    assert_eq!(v["granularity"], "fine");
    assert!(v["signals"].is_object());
    let out = repo
        .goal()
        .args(["detect", "--json", "-"])
        .write_stdin("> 我的目标是重写整个系统")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["rejected"], "quote");
    let out = repo
        .goal()
        .args(["detect"])
        .write_stdin("放弃")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "abandon the active goal\n");
    // Works outside a repository too: it reads only the message.
    let outside = tempfile::TempDir::new().unwrap();
    repo.goal_in(outside.path())
        .args(["detect", "hello"])
        .assert()
        .code(1);
}

#[test]
fn inject_is_silent_without_a_goal_and_exact_in_every_state() {
    let repo = Repo::new();
    let out = repo.goal().arg("inject").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "");
    let outside = tempfile::TempDir::new().unwrap();
    let out = repo.goal_in(outside.path()).arg("inject").output().unwrap();
    assert_eq!((out.status.code(), stdout(&out)), (Some(0), String::new()));

    repo.init_goal(&["a passes", "b passes"]);
    let inject = |args: &[&str]| stdout(&repo.goal().arg("inject").args(args).output().unwrap());
    assert_eq!(
        inject(&[]),
        "[goal-driven-loop] ACTIVE GOAL\nMake the thing work\nProgress: 0/2 criteria passed, iteration 0\nNext step: read .agents/goal/GOAL.md and continue iteration\n"
    );
    let save = "Context window is over 80% full: save progress now. Before anything else, record this turn's work with `goal iterate -m \"<what was done and verified>\"` so .agents/goal/GOAL.md holds the current state, then end your reply with exactly:\n🔄 目标状态已保存至 .agents/goal/GOAL.md\n当前进度：0/2 criteria 通过，第 0 轮迭代。\n";
    assert_eq!(
        inject(&["--context-usage", "0.85"]),
        format!(
            "[goal-driven-loop] ACTIVE GOAL\nMake the thing work\nProgress: 0/2 criteria passed, iteration 0\nNext step: read .agents/goal/GOAL.md and continue iteration\n{save}"
        )
    );
    assert_eq!(
        inject(&["--context-usage", "85"]),
        inject(&["--context-usage", "0.85"])
    );
    assert!(!inject(&["--context-usage", "0.8"]).contains("save progress"));
    repo.refused(
        &["inject", "--context-usage", "-1"],
        2,
        &["unexpected argument '-1'"],
    );
    repo.refused(
        &["inject", "--context-usage", "abc"],
        2,
        &["invalid value 'abc' for '--context-usage"],
    );

    repo.ok(&["block", "--reason", "the staging database is down"]);
    insta::assert_snapshot!(inject(&[]), @r"
[goal-driven-loop] ACTIVE GOAL
Make the thing work
Progress: 0/2 criteria passed, iteration 0
Blocked: the staging database is down
Stagnation detected. Current approach not making progress. Try:
- Different tool or library
- Refactor before retry
- Split the failing criterion into sub-steps
When the blocker is resolved, run `goal resume`.
");
    repo.ok(&["resume"]);
    repo.write(
        GOAL,
        &repo
            .goal_md()
            .replace("status: in-progress", "status: complete")
            .replace("- [ ]", "- [x]"),
    );
    insta::assert_snapshot!(inject(&[]), @r"
[goal-driven-loop] ACTIVE GOAL
Make the thing work
Progress: 0/2 criteria passed, iteration 0
Marked complete, but 0/2 criteria are proven on this code: set it back with `goal resume`, prove the rest, then run `goal done`.
");
}

#[test]
fn inject_for_a_goal_without_criteria_and_with_phases() {
    let repo = Repo::new();
    repo.ok(&["init", "Port the CLI to Windows"]);
    insta::assert_snapshot!(stdout(&repo.goal().arg("inject").output().unwrap()), @r#"
[goal-driven-loop] ACTIVE GOAL
Port the CLI to Windows
Progress: 0/0 criteria passed, iteration 0
Criteria are still to be written: add each, pinned to the test that proves it, with `goal criteria add "<observable outcome>" --verify "<test command>"`.
Next step: read .agents/goal/GOAL.md and continue iteration
"#);
    let repo = Repo::new();
    repo.ok(&[
        "init",
        "Rebuild the storage layer",
        "-c",
        "design doc DESIGN.md exists",
        "--phases",
        "Design,Build",
    ]);
    repo.ok(&[
        "criteria",
        "add",
        "--phase",
        "2",
        "cargo test storage passes",
    ]);
    assert!(repo.goal_md().contains("### Phase 1: Design\n- [ ] design doc DESIGN.md exists\n### Phase 2: Build\n- [ ] cargo test storage passes\n"));
    let text = stdout(&repo.goal().arg("inject").output().unwrap());
    assert!(
        text.contains(
            "Progress: 0/2 criteria passed, iteration 0\nCurrent phase: Phase 1: Design\n"
        ),
        "{text}"
    );
    repo.test_script("pass.sh", 1, 0);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    let v = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(v["phase"], "Phase 2: Build");
    assert_eq!(v["criteria"][1]["phase"], 2);
    // done needs every phase.
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("criterion 2"), "{}", stderr(&out));
    repo.refused(
        &["criteria", "add", "--phase", "3", "x"],
        2,
        &["there is no phase 3"],
    );
}

#[test]
fn continuation_prints_the_seeds_two_lines() {
    let repo = Repo::new();
    repo.init_goal(&["a passes", "b passes", "c passes"]);
    repo.ok(&["iterate", "-m", "x"]);
    let out = repo.goal().arg("continuation").output().unwrap();
    insta::assert_snapshot!(stdout(&out), @r"
🔄 目标状态已保存至 .agents/goal/GOAL.md
当前进度：0/3 criteria 通过，第 1 轮迭代。
");
    let repo = Repo::new();
    repo.refused(&["continuation"], 1, &["no active goal", "goal init"]);
}

#[test]
fn criteria_lint_flags_the_seeds_vague_examples() {
    let repo = Repo::new();
    let out = repo
        .goal()
        .args([
            "init",
            "Rate limiting",
            "-c",
            "Implement rate limiting",
            "-c",
            "Rate limiter middleware mounts on auth routes, excess requests return 429",
            "-c",
            "Code quality is good",
            "-c",
            "Related files lint clean, typecheck passes",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("criterion 1 \"Implement rate limiting\" is not verifiable"),
        "{err}"
    );
    assert!(
        err.contains("criterion 3 \"Code quality is good\" is not verifiable"),
        "{err}"
    );
    assert!(!err.contains("criterion 2"), "{err}");
    let out = repo
        .goal()
        .args(["criteria", "lint", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let verdicts: Vec<bool> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["verifiable"].as_bool().unwrap())
        .collect();
    assert_eq!(verdicts, [false, true, false, true]);
    for key in ["number", "text", "verifiable", "reason"] {
        assert!(v[0].get(key).is_some(), "{key}");
    }
    repo.ok(&["criteria", "remove", "1", "--confirm"]);
    repo.ok(&["criteria", "remove", "2", "--confirm"]);
    repo.ok(&["criteria", "lint"]);
    let out = repo
        .goal()
        .args(["criteria", "add", "Make it better"])
        .output()
        .unwrap();
    assert!(stderr(&out).contains("is not verifiable"));
}

#[test]
fn claude_user_prompt_creates_the_goal_and_injects_it() {
    let repo = Repo::new();
    let out = hook(
        &repo,
        &event(
            "user-prompt-submit",
            &repo,
            "My goal is to make the CSV importer skip malformed rows",
        ),
    );
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(context.starts_with("[goal-driven-loop] ACTIVE GOAL\nmake the CSV importer skip malformed rows\nProgress: 0/0"), "{context}");
    assert!(context.contains("goal criteria add"), "{context}");
    assert!(
        repo.goal_md()
            .contains("goal: \"make the CSV importer skip malformed rows\"")
    );
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "goal: init \"make the CSV importer skip malformed rows\""
    );

    // An ordinary prompt: the goal is injected, nothing changes.
    let head = repo.head();
    let v: Value = serde_json::from_str(&stdout(&hook(
        &repo,
        &event("user-prompt-submit", &repo, "what next?"),
    )))
    .unwrap();
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .starts_with("[goal-driven-loop] ACTIVE GOAL")
    );
    // A second goal while one is active: reported, not replaced.
    let v: Value = serde_json::from_str(&stdout(&hook(
        &repo,
        &event(
            "user-prompt-submit",
            &repo,
            "my goal is to rewrite the scheduler in Go",
        ),
    )))
    .unwrap();
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("already active")
    );
    assert_eq!(repo.head(), head);

    // Abandon.
    let v: Value = serde_json::from_str(&stdout(&hook(
        &repo,
        &event("user-prompt-submit", &repo, "放弃"),
    )))
    .unwrap();
    assert!(
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("abandoned")
    );
    assert!(!repo.exists(GOAL));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("abandoned")
    );
    // No goal, no trigger: no output.
    assert_eq!(
        stdout(&hook(&repo, &event("user-prompt-submit", &repo, "hello"))),
        ""
    );
}

#[test]
fn claude_session_start_reinjects_after_compaction() {
    let repo = Repo::new();
    assert_eq!(
        stdout(&hook(&repo, &event("session-start-compact", &repo, ""))),
        ""
    );
    repo.init_goal(&["a passes"]);
    let v: Value = serde_json::from_str(&stdout(&hook(
        &repo,
        &event("session-start-compact", &repo, ""),
    )))
    .unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert_eq!(
        v["hookSpecificOutput"]["additionalContext"],
        "[goal-driven-loop] ACTIVE GOAL\nMake the thing work\nProgress: 0/1 criteria passed, iteration 0\nNext step: read .agents/goal/GOAL.md and continue iteration\nGOAL-PROOF: open 0/1 criterion 1 is open: `goal verify -c 1 -- <test command>`\n"
    );
}

#[test]
fn claude_stop_blocks_a_bounded_number_of_times() {
    let repo = Repo::new();
    assert_eq!(stop(&repo, false), None, "no goal: allowed");
    repo.init_goal(&["a passes"]);
    let first = stop(&repo, false).expect("blocks while in progress");
    assert_eq!(first["decision"], "block");
    assert!(first["reason"].as_str().unwrap().contains("1. a passes"));
    assert!(stop(&repo, true).is_some(), "2nd block");
    assert!(stop(&repo, true).is_some(), "3rd block");
    assert_eq!(
        stop(&repo, true),
        None,
        "the bound: a 4th stop without a new iteration is allowed"
    );
    assert_eq!(stop(&repo, true), None);
    // A new iteration commit restarts the count.
    repo.ok(&["iterate", "-m", "progress"]);
    assert!(stop(&repo, true).is_some());
    // A configured bound.
    repo.git(&["config", "goal.stopBlocks", "0"]);
    assert_eq!(stop(&repo, false), None);
    repo.git(&["config", "--unset", "goal.stopBlocks"]);
    // Blocked or complete: allowed.
    repo.ok(&["block", "--reason", "r"]);
    assert_eq!(stop(&repo, false), None);
}

#[test]
fn claude_garbage_and_unhandled_events_never_crash() {
    let repo = Repo::new();
    for input in [
        "",
        "not json",
        "[1,2]",
        "{}",
        "{\"hook_event_name\": 3}",
        "\u{0}\u{1}binary",
        "{\"hook_event_name\": \"UserPromptSubmit\", \"prompt\": 5}",
    ] {
        let out = hook(&repo, input);
        let v: Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|_| panic!("{input:?}: {}", stdout(&out)));
        assert!(
            v["systemMessage"]
                .as_str()
                .unwrap()
                .starts_with("goal hook claude:"),
            "{input:?}"
        );
    }
    assert_eq!(stdout(&hook(&repo, &event("pre-tool-use", &repo, ""))), "");
    // A broken GOAL.md is reported, not crashed on.
    repo.write(GOAL, "garbage\n");
    let v: Value = serde_json::from_str(&stdout(&hook(
        &repo,
        &event("session-start-compact", &repo, ""),
    )))
    .unwrap();
    assert!(
        v["systemMessage"].as_str().unwrap().contains("GOAL.md:1"),
        "{v}"
    );
}

#[test]
fn integrate_claude_merges_idempotently_and_keeps_everything() {
    let repo = Repo::new();
    let existing = r#"{
  "permissions": {"allow": ["Bash(cargo test:*)"]},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]
  },
  "model": "opus"
}
"#;
    repo.write(".claude/settings.json", existing);
    repo.ok(&["integrate", "claude"]);
    let once = repo.read(".claude/settings.json");
    repo.ok(&["integrate", "claude"]);
    assert_eq!(repo.read(".claude/settings.json"), once, "idempotent");
    let v: Value = serde_json::from_str(&once).unwrap();
    assert_eq!(v["permissions"]["allow"][0], "Bash(cargo test:*)");
    assert_eq!(v["model"], "opus");
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "audit.sh"
    );
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    for event in ["UserPromptSubmit", "SessionStart", "Stop"] {
        let commands: Vec<&str> = v["hooks"][event]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| {
                g["hooks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|h| h["command"].as_str().unwrap())
            })
            .collect();
        assert_eq!(
            commands
                .iter()
                .filter(|c| **c == "goal hook claude")
                .count(),
            1,
            "{event}"
        );
    }
    // Malformed settings: exit 2, untouched.
    repo.write(".claude/settings.json", "{ not json");
    repo.refused(
        &["integrate", "claude"],
        2,
        &["not JSON", "goal never rewrites a file it cannot"],
    );
    assert_eq!(repo.read(".claude/settings.json"), "{ not json");
}

#[test]
fn integrate_pi_installs_the_extension_idempotently() {
    let repo = Repo::new();
    repo.ok(&["integrate", "pi"]);
    let installed = repo.read(".pi/extensions/goal/index.ts");
    let source = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("integrations/pi/index.ts"),
    )
    .unwrap();
    assert_eq!(installed, source);
    let out = repo.goal().args(["integrate", "pi"]).output().unwrap();
    assert!(stdout(&out).contains("up to date"), "{}", stdout(&out));
}

/// The bound counts stops Claude Code makes while continuing for us: a fresh stop (the user's
/// next turn) starts it again, and a complete goal never blocks.
#[test]
fn claude_stop_count_resets_on_a_fresh_stop_and_a_complete_goal_is_let_go() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.test_script("pass.sh", 1, 0);
    let blocks = |repo: &Repo| {
        let mut n = 0;
        let mut active = false;
        while stop(repo, active).is_some() {
            n += 1;
            active = true;
            assert!(n <= 10, "the stop hook never lets go");
        }
        n
    };
    assert_eq!(blocks(&repo), 3, "the default bound");
    assert_eq!(stop(&repo, true), None, "still spent while continuing");
    assert_eq!(blocks(&repo), 3, "a fresh stop starts the count again");
    // Proven but not yet done: the reason says to run `goal done`.
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    let reason = stop(&repo, false).unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_string();
    insta::assert_snapshot!(reason, @r#"The goal "Make the thing work" is not done (1/1 criteria proven, iteration 0, goal's stop block 7). Every criterion is proven on the current code: run `goal done` to finish. If you are truly stuck, run `goal block --reason "<why>"`.
GOAL-PROOF: open 1/1 every criterion is proven: run `goal done`"#);
    // Complete (status: complete in GOAL.md, as `goal done`'s first commit leaves it).
    repo.ok(&["done"]);
    repo.git(&["checkout", "-q", "HEAD~1", "--", ".agents"]);
    assert!(repo.goal_md().contains("status: complete\n"));
    assert_eq!(stop(&repo, false), None, "a complete goal is let go");
    assert_eq!(stop(&repo, true), None);
}

#[test]
fn the_continuation_counts_proven_criteria() {
    let repo = project(&["division works"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    let text = stdout(&repo.goal().arg("continuation").output().unwrap());
    assert!(text.contains("当前进度：1/1 criteria 通过"), "{text}");
    repo.write("late.py", "changed\n");
    let text = stdout(&repo.goal().arg("continuation").output().unwrap());
    assert!(text.contains("当前进度：0/1 criteria 通过"), "{text}");
}

/// An abandon phrase the user typed still abandons through the prompt hook when the session is
/// marked as an agent's: the hook acts on the person's own words, where `goal abandon` run by the
/// agent is refused.
#[test]
fn the_users_abandon_phrase_abandons_under_the_agents_mark() {
    let repo = project(&["the thing works"]);
    let out = repo
        .goal()
        .env("GOAL_AGENT", "claude")
        .args(["abandon"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(repo.exists(GOAL));
    let out = repo
        .goal()
        .env("GOAL_AGENT", "claude")
        .args(["hook", "claude"])
        .write_stdin(event("user-prompt-submit", &repo, "abandon the goal"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("abandoned"), "{}", stdout(&out));
    assert!(!repo.exists(GOAL));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("abandoned")
    );
}
