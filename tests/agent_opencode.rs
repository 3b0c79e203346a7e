//! The real opencode CLI (npm `opencode-ai`, pinned in tests/fixtures/agents/opencode/package.json; .ci/run
//! installs it into tests/fixtures/agents/opencode/node_modules) driven by `goal run --agent opencode`, offline,
//! against tests/fixtures/agents/opencode/fake_api.py (Anthropic's messages API) through a provider in an
//! opencode.json outside the worktree.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::Repo;
use crate::common::stand_in::{
    StandIn, assert_completed, cli_dir, code, events, explain, installed, named, path_with, project,
};

fn opencode() -> Option<PathBuf> {
    installed(
        "opencode",
        &cli_dir("opencode").join("node_modules/.bin/opencode"),
        "cd tests/fixtures/agents/opencode && npm ci",
    )
}

fn stand_in(repo: &Repo, plan: &str) -> StandIn {
    StandIn::start(
        repo,
        &cli_dir("opencode").join("fake_api.py"),
        plan,
        &[("WORK_COMMAND", "echo hello > hello.txt && goal verify -c 1")],
    )
}

/// `goal run --json --agent opencode` with opencode's config (a provider at the stand-in, with
/// prices so it reports a cost) outside the worktree.
fn run(repo: &Repo, bin: &Path, api: &StandIn, flags: &[&str]) -> Output {
    let config = repo.home().join("opencode.json");
    std::fs::write(
        &config,
        serde_json::json!({
            "$schema": "https://opencode.ai/config.json",
            "model": "fake/claude-fake",
            "provider": {"fake": {
                "npm": "@ai-sdk/anthropic",
                "name": "Stand-in",
                "options": {"baseURL": format!("http://127.0.0.1:{}/v1", api.port), "apiKey": "sk-ant-dummy"},
                "models": {"claude-fake": {"name": "Claude (stand-in)", "cost": {"input": 3, "output": 15}}}
            }}
        })
        .to_string(),
    )
    .unwrap();
    repo.goal()
        .env("PATH", path_with(&[bin.parent().unwrap()]))
        .env("GOAL_TIME_SCALE", "0")
        .env("OPENCODE_CONFIG", &config)
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("OPENCODE_DISABLE_SHARE", "1")
        .args([
            "run",
            "--json",
            "--agent",
            "opencode",
            "--turn-timeout",
            "300s",
        ])
        .args(flags)
        .timeout(std::time::Duration::from_secs(400))
        .output()
        .unwrap()
}

fn turn_log(repo: &Repo, out: &Output, turn: u64) -> String {
    let ev = events(out);
    let start = ev
        .iter()
        .find(|e| e["event"] == "turn_start" && e["turn"] == turn)
        .unwrap_or_else(|| panic!("no turn {turn}: {ev:?}"));
    let _ = repo;
    std::fs::read_to_string(start["log"].as_str().unwrap()).unwrap()
}

#[test]
fn opencode_writes_the_code_runs_goal_verify_and_the_run_completes() {
    let Some(bin) = opencode() else { return };
    let repo = project();
    let api = stand_in(&repo, "work");
    let out = run(&repo, &bin, &api, &[]);
    // Its bash tool wrote hello.txt and ran `goal verify -c 1`; goal run called goal done.
    assert_completed(&repo, &out, "turn 1: Wrote hello.txt; goal verify passed.");
    assert_eq!(api.turns(), 1);
    // What opencode reported of the turn's usage: two model calls of 120 in / 30 out, priced
    // at $3 / $15 per million tokens.
    let usage = goal::usage::opencode(&turn_log(&repo, &out, 1));
    assert_eq!(usage.input_tokens, Some(240));
    assert_eq!(usage.output_tokens, Some(60));
    let cost = usage.cost_usd.unwrap();
    assert!((cost - 0.00162).abs() < 1e-9, "{cost}");
    // Nothing of opencode's own is in the worktree.
    assert_eq!(repo.git(&["status", "--porcelain", "--ignored"]).trim(), "");
}

#[test]
fn opencode_overloaded_is_retried_by_goal_run() {
    let Some(bin) = opencode() else { return };
    let repo = project();
    let api = stand_in(&repo, "529,work");
    let out = run(&repo, &bin, &api, &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    let retries = named(&ev, "retry");
    assert_eq!(retries.len(), 1, "{}", explain(&out));
    assert_eq!(retries[0]["delay_s"], 30);
    assert!(
        retries[0]["reason"].as_str().unwrap().contains("529"),
        "{:?}",
        retries[0]
    );
    // opencode's own tries of turn 1 (1 + 5, quick on the stand-in's retry-after-ms), then turn 2.
    let first: Vec<_> = api
        .requests()
        .into_iter()
        .filter(|r| r["turn"] == 1 && r["kind"] == "529")
        .collect();
    assert_eq!(first.len(), 6, "{:?}", api.requests());
    assert_eq!(api.turns(), 2);
    assert_eq!(named(&ev, "done").len(), 1);
}

#[test]
fn opencode_spend_limit_is_waited_out_without_a_retry() {
    let Some(bin) = opencode() else { return };
    let repo = project();
    let api = stand_in(&repo, "spend,work");
    let out = run(&repo, &bin, &api, &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "{}", explain(&out));
    let waits = named(&ev, "wait");
    assert_eq!(waits.len(), 1, "{}", explain(&out));
    assert_eq!(waits[0]["kind"], "usage_limit");
    // Until 00:00 UTC on the day the stand-in named: tomorrow.
    let delay = waits[0]["delay_s"].as_u64().unwrap();
    assert!(delay > 0 && delay <= 86_400, "{:?}", waits[0]);
    assert!(
        waits[0]["reason"]
            .as_str()
            .unwrap()
            .contains("reached your specified API usage limits"),
        "{:?}",
        waits[0]
    );
    assert_eq!(api.turns(), 2);
    assert_eq!(named(&ev, "done").len(), 1);
}

#[test]
fn opencode_403_stops_at_once_with_exit_2() {
    let Some(bin) = opencode() else { return };
    let repo = project();
    let head = repo.head();
    let api = stand_in(&repo, "403");
    let out = run(&repo, &bin, &api, &[]);
    assert_eq!(code(&out), 2, "{}", explain(&out));
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "{}", explain(&out));
    assert_eq!(api.turns(), 1);
    assert_eq!(
        api.requests().iter().filter(|r| r["status"] == 403).count(),
        1
    );
    assert_eq!(repo.head(), head, "no iteration recorded");
}

#[test]
fn opencode_asleep_on_a_retry_after_is_a_usage_limit_not_a_failed_try() {
    let Some(bin) = opencode() else { return };
    let repo = project();
    // Turn 1: a 429 with `retry-after: 86400`; opencode sleeps inside the turn, silent.
    let api = stand_in(&repo, "wait,work");
    let out = run(&repo, &bin, &api, &["--idle-timeout", "45s"]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    let ends = named(&ev, "turn_end");
    assert_eq!(ends[0]["end"], "idle timeout: killed", "{}", explain(&out));
    // The idle timeout is read as a usage limit with no reset time (a wait in growing steps),
    // never as the idle timeout of a hung agent.
    let reasons: Vec<&str> = ev
        .iter()
        .filter(|e| e["event"] == "wait" || e["event"] == "retry")
        .map(|e| e["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons.len(), 1, "{}", explain(&out));
    assert!(
        reasons[0].contains("went quiet waiting inside its turn"),
        "{reasons:?}\n{}",
        explain(&out)
    );
    assert_eq!(api.turns(), 2);
    assert_eq!(named(&ev, "done").len(), 1);
}
