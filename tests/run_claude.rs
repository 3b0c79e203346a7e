//! `goal run` with the real Claude Code CLI, offline against its stand-in API: a 529 retried to
//! completion, a bad key stopping at once.

use std::process::Output;

use crate::common::{FakeApi, Repo, claude_dir};
#[allow(unused_imports)]
use crate::run::*;

fn fake_api(repo: &Repo, dir: &std::path::Path, script: &str) -> FakeApi {
    FakeApi::start(
        dir,
        script,
        &state(repo).join("api.jsonl"),
        "echo hello > hello.txt && goal verify -c 1",
    )
}

fn run_claude(repo: &Repo, dir: &std::path::Path, api: &FakeApi) -> Output {
    let path = format!(
        "{}:{}",
        dir.join("node_modules/.bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_goal"))
        .parent()
        .unwrap()
        .display()
        .to_string();
    repo.goal()
        .env("PATH", format!("{bin}:{path}"))
        .env("GOAL_TIME_SCALE", "0")
        .envs(api.claude_env())
        // Claude Code's own retries of a 529 (10 by default) are not what is under test.
        .env("CLAUDE_CODE_MAX_RETRIES", "1")
        .args([
            "run",
            "--json",
            "--agent",
            "claude",
            "--turn-timeout",
            "90s",
        ])
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap()
}

fn api_sessions(api: &FakeApi) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for line in std::fs::read_to_string(&api.log)
        .unwrap_or_default()
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let s = v["session"].as_str().unwrap().to_string();
        if v["kind"] != "side" && !seen.contains(&s) {
            seen.push(s);
        }
    }
    seen
}

#[test]
fn the_real_claude_code_cli_writes_code_verifies_and_completes_after_a_529() {
    let Some(dir) = claude_dir() else { return };
    let repo = project();
    let api = fake_api(&repo, &dir, "529,work");
    let out = run_claude(&repo, &dir, &api);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    // Turn 1: the API answered 529; Claude Code exited 1; goal run backed off 30 s and retried.
    let retries = named(&ev, "retry");
    assert_eq!(retries.len(), 1, "{ev:?}");
    assert_eq!(retries[0]["delay_s"], 30);
    assert!(
        retries[0]["reason"].as_str().unwrap().contains("529"),
        "{:?}",
        retries[0]
    );
    // Turn 2: a Bash tool call wrote hello.txt and ran `goal verify -c 1`; goal done completed.
    assert_eq!(api_sessions(&api).len(), 2);
    assert_eq!(named(&ev, "done").len(), 1);
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    let subject = repo.git(&["log", "-1", "--format=%s", "HEAD~2"]);
    assert_eq!(
        subject.trim(),
        "goal: iteration 1: turn 2: Wrote hello.txt; goal verify passed."
    );
    assert_eq!(repo.git(&["show", "HEAD:hello.txt"]).trim(), "hello");
    // Its usage report (the result's `usage` and `total_cost_usd`).
    let usage = crate::agent_cli::turn_usage(&repo, "claude", 2);
    assert!(usage.tokens().is_some_and(|t| t > 0), "{usage:?}");
    assert!(usage.cost_usd.is_some(), "{usage:?}");
}

#[test]
fn the_real_claude_code_cli_with_a_bad_key_stops_at_once() {
    let Some(dir) = claude_dir() else { return };
    let repo = project();
    let api = fake_api(&repo, &dir, "401");
    let out = run_claude(&repo, &dir, &api);
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert_eq!(api_sessions(&api).len(), 1, "one call");
    assert!(named(&events(&out), "retry").is_empty());
}
