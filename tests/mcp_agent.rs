//! A real agent CLI configured to use `goal mcp`: Claude Code (tests/fixtures/agents/claude, pinned
//! there), offline against tests/fixtures/agents/claude/fake_api.py in its `mcp` mode, whose scripted
//! model calls the server's `goal_verify` and then `goal_done` — the tools Claude Code names
//! `mcp__goal__goal_verify` and `mcp__goal__goal_done` — and no shell. The server is configured
//! as a user would, with `--mcp-config` naming `goal mcp` on PATH, and its two tools allowed
//! with `--allowedTools` (Claude Code asks before any other tool).

use crate::common::{FakeApi, Repo, claude_dir, stdout};

#[test]
fn claude_code_proves_and_completes_a_goal_through_goal_mcp_alone() {
    let Some(dir) = claude_dir() else {
        return;
    };
    let repo = Repo::new();
    repo.write(
        "test.sh",
        "#!/bin/sh\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    crate::common::commit_all(&repo, "test");
    // The person sets the goal and its pin in their terminal (so the pin is theirs, approved).
    repo.ok(&[
        "init",
        "Say hello",
        "-c",
        "hello.txt exists (verify: `sh test.sh`)",
    ]);
    repo.write("hello.txt", "hello\n");
    let config = repo.home().join("mcp.json");
    std::fs::write(
        &config,
        r#"{"mcpServers": {"goal": {"command": "goal", "args": ["mcp"]}}}"#,
    )
    .unwrap();
    let api = FakeApi::start(&dir, "mcp", &repo.home().join("api.jsonl"), "false");
    let mut cmd = repo.command(dir.join("node_modules/.bin/claude"));
    cmd.envs(api.claude_env())
        .args(["-p", "Prove the goal and complete it", "--mcp-config"])
        .arg(&config)
        .args([
            "--strict-mcp-config",
            "--allowedTools=mcp__goal__goal_verify,mcp__goal__goal_done",
        ]);
    let out = assert_cmd::Command::from_std(cmd)
        .timeout(std::time::Duration::from_secs(180))
        .write_stdin("")
        .output()
        .unwrap();
    let said = format!(
        "stdout: {}\nstderr: {}\nrequests: {:#?}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr),
        api.requests()
    );
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        stdout(&out).contains("goal_done completed the goal"),
        "{said}"
    );
    // The model saw goal's tools, and each call's result was the command's document.
    let calls: Vec<serde_json::Value> = api
        .requests()
        .into_iter()
        .filter(|r| r["kind"] == "mcp")
        .collect();
    assert_eq!(calls.len(), 3, "{said}");
    let tools = calls[0]["tools"].as_array().unwrap();
    for name in ["mcp__goal__goal_verify", "mcp__goal__goal_done"] {
        assert!(tools.iter().any(|t| t == name), "{name}: {said}");
    }
    let verified: serde_json::Value =
        serde_json::from_str(calls[1]["tool_result"].as_str().unwrap()).unwrap();
    assert_eq!(verified["passes"], true, "{said}");
    let done: serde_json::Value =
        serde_json::from_str(calls[2]["tool_result"].as_str().unwrap()).unwrap();
    assert_eq!(done["goal"], "Say hello", "{said}");
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    assert_eq!(repo.git(&["show", "HEAD:hello.txt"]).trim(), "hello");
    repo.assert_fsck();
}
