//! The real aider CLI (PyPI `aider-chat`, pinned in tests/fixtures/agents/aider/requirements.txt; .ci/run installs
//! it into a cached venv, `$GOAL_TEST_CACHE` or ~/.cache/goal-tests, `aider-<version>`) driven by
//! `goal run --agent aider`, offline, against tests/fixtures/agents/aider/fake_api.py (OpenAI's chat completions)
//! with `--model openai/fake-model` and OPENAI_API_BASE.
//!
//! aider 0.86.2 retries a failed call by itself for about 90 s, and no setting changes that, so
//! the tests lower its `RETRY_TIMEOUT` through tests/fixtures/agents/aider/fast_retries/sitecustomize.py on
//! PYTHONPATH: one retry, then the failure reaches `goal run`.

use std::path::PathBuf;
use std::process::Output;

use crate::common::Repo;
use crate::common::stand_in::{
    StandIn, assert_completed, cli_dir, code, events, explain, installed, named, path_with, project,
};

/// The venv's folder for the pinned version (`aider-chat==X` in requirements.txt).
fn venv() -> PathBuf {
    let pinned = std::fs::read_to_string(cli_dir("aider").join("requirements.txt")).unwrap();
    let version = pinned
        .lines()
        .find_map(|l| l.trim().strip_prefix("aider-chat=="))
        .unwrap()
        .to_string();
    let cache = std::env::var_os("GOAL_TEST_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/goal-tests")
        });
    cache.join(format!("aider-{version}"))
}

fn aider() -> Option<PathBuf> {
    installed(
        "aider",
        &venv().join("bin/aider"),
        "bash .ci/run installs it, or: python3 -m venv <that folder> && <that folder>/bin/pip install -r tests/fixtures/agents/aider/requirements.txt",
    )
}

/// aider's price list: the stand-in's model priced, so aider reports a cost.
const PRICED: &str = r#"{"openai/fake-model": {"max_input_tokens": 128000, "max_output_tokens": 4096, "input_cost_per_token": 0.000003, "output_cost_per_token": 0.000015, "litellm_provider": "openai", "mode": "chat"}}"#;

fn run(repo: &Repo, bin: &std::path::Path, api: &StandIn) -> Output {
    run_with(repo, bin, api, PRICED, &[])
}

/// `goal run --agent aider` with `prices` as aider's price list and `extra` flags.
fn run_with(
    repo: &Repo,
    bin: &std::path::Path,
    api: &StandIn,
    prices: &str,
    extra: &[&str],
) -> Output {
    // A non-empty price list, so aider fetches none.
    let caches = repo.home().join(".aider/caches");
    std::fs::create_dir_all(&caches).unwrap();
    std::fs::write(caches.join("model_prices_and_context_window.json"), prices).unwrap();
    repo.goal()
        .env("PATH", path_with(&[bin.parent().unwrap()]))
        .env("GOAL_TIME_SCALE", "0")
        .env(
            "OPENAI_API_BASE",
            format!("http://127.0.0.1:{}/v1", api.port),
        )
        .env("OPENAI_API_KEY", "sk-offline-test")
        .env("PYTHONPATH", cli_dir("aider").join("fast_retries"))
        .env("GOAL_TEST_AIDER_RETRY_TIMEOUT", "0.3")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args([
            "run",
            "--json",
            "--agent",
            "aider",
            "--agent-arg",
            "--model",
            "--agent-arg",
            "openai/fake-model",
            "--turn-timeout",
            "300s",
        ])
        .args(extra)
        .timeout(std::time::Duration::from_secs(400))
        .output()
        .unwrap()
}

fn stand_in(repo: &Repo, plan: &str) -> StandIn {
    StandIn::start(repo, &cli_dir("aider").join("fake_api.py"), plan, &[])
}

#[test]
fn aider_edits_goal_verify_runs_as_its_test_command_and_the_run_completes() {
    let Some(bin) = aider() else { return };
    let repo = project();
    let api = stand_in(&repo, "work");
    let out = run(&repo, &bin, &api);
    // The iteration is goal run's (aider commits nothing) and its summary is aider's answer.
    assert_completed(&repo, &out, "turn 1: I will create hello.txt.");
    assert_eq!(api.turns(), 1);
    let ev = events(&out);
    assert_eq!(
        repo.git(&["log", "--format=%s", "HEAD~3"]).trim(),
        "goal: init \"Say hello\"\ntest\ninitial",
        "no commit of aider's own"
    );
    // aider's own files are in the worktree, excluded, and in no commit; .gitignore untouched.
    assert!(repo.exists(".aider.chat.history.md"));
    let exclude = std::fs::read_to_string(repo.path().join(".git/info/exclude")).unwrap();
    assert!(exclude.lines().any(|l| l == "/.aider*"), "{exclude}");
    let tracked = repo.git(&["ls-tree", "-r", "--name-only", "HEAD"]);
    assert!(!tracked.contains(".aider"), "{tracked}");
    assert!(!repo.exists(".gitignore"));
    assert_eq!(repo.git(&["status", "--porcelain"]).trim(), "");
    // What aider reported of the turn: one call, 200 in / 40 out, $0.0012.
    let log =
        std::fs::read_to_string(named(&ev, "turn_start")[0]["log"].as_str().unwrap()).unwrap();
    let usage = goal::usage::aider(&log);
    assert_eq!(usage.input_tokens, Some(200));
    assert_eq!(usage.output_tokens, Some(40));
    assert_eq!(usage.cost_usd, Some(0.0012));
}

#[test]
fn aider_overloaded_exits_0_and_goal_run_retries_it() {
    let Some(bin) = aider() else { return };
    let repo = project();
    let api = stand_in(&repo, "overload,work");
    let out = run(&repo, &bin, &api);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    assert_eq!(
        named(&ev, "turn_end")[0]["exit_code"],
        0,
        "{}",
        explain(&out)
    );
    let retries = named(&ev, "retry");
    assert_eq!(retries.len(), 1, "{}", explain(&out));
    assert_eq!(retries[0]["delay_s"], 30);
    assert!(
        retries[0]["reason"].as_str().unwrap().contains("APIError"),
        "{:?}",
        retries[0]
    );
    assert_eq!(api.turns(), 2);
    assert_eq!(named(&ev, "done").len(), 1);
}

#[test]
fn aider_usage_limit_is_waited_out_without_a_retry() {
    let Some(bin) = aider() else { return };
    let repo = project();
    let api = stand_in(&repo, "quota,work");
    let out = run(&repo, &bin, &api);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "{}", explain(&out));
    let waits = named(&ev, "wait");
    assert_eq!(waits.len(), 1, "{}", explain(&out));
    assert_eq!(waits[0]["kind"], "usage_limit");
    // "Your quota will reset in 2 hours", read across aider's line wrap.
    assert_eq!(waits[0]["delay_s"], 7200, "{:?}", waits[0]);
    assert_eq!(api.turns(), 2);
    assert_eq!(named(&ev, "done").len(), 1);
}

#[test]
fn aider_with_a_bad_key_exits_0_and_goal_run_stops_with_exit_2() {
    let Some(bin) = aider() else { return };
    let repo = project();
    let head = repo.head();
    let api = stand_in(&repo, "401");
    let out = run(&repo, &bin, &api);
    assert_eq!(code(&out), 2, "{}", explain(&out));
    let ev = events(&out);
    assert_eq!(
        named(&ev, "turn_end")[0]["exit_code"],
        0,
        "{}",
        explain(&out)
    );
    assert!(named(&ev, "retry").is_empty(), "{}", explain(&out));
    assert_eq!(api.requests().len(), 1, "aider does not retry a 401");
    assert_eq!(repo.head(), head, "no iteration recorded");
}

#[test]
fn aider_reporting_no_cost_under_max_cost_leaves_the_run_after_its_turn_and_it_exits_2() {
    let Some(bin) = aider() else { return };
    let repo = project();
    // A second criterion aider's turn does not prove, so the run would go on.
    repo.write("world.sh", "#!/bin/sh\necho '0 passed, 1 failed'\nexit 1\n");
    repo.git(&["add", "world.sh"]);
    repo.git(&["commit", "-q", "-m", "world"]);
    repo.ok(&[
        "criteria",
        "add",
        "the world test passes (verify: `sh world.sh`)",
    ]);
    let head = repo.head();
    let api = stand_in(&repo, "work");
    // A price list without the model: aider prints its tokens and no cost.
    let unpriced = PRICED.replace("openai/fake-model", "openai/other-model");
    let out = run_with(&repo, &bin, &api, &unpriced, &["--max-cost", "1"]);
    assert_eq!(code(&out), 2, "{}", explain(&out));
    let ev = events(&out);
    let ends = named(&ev, "turn_end");
    assert_eq!(ends.len(), 1, "{}", explain(&out));
    // aider's tokens (its edit and the reflection on the test's output), and no cost.
    let usage = &ends[0]["usage"];
    assert!(
        usage["input_tokens"].as_u64().is_some_and(|n| n > 0),
        "{usage}"
    );
    assert!(
        usage["output_tokens"].as_u64().is_some_and(|n| n > 0),
        "{usage}"
    );
    assert_eq!(usage["cost_usd"], serde_json::Value::Null, "{usage}");
    // The turn is recorded first: one iteration commit, made by the run.
    assert_eq!(named(&ev, "iterate").len(), 1, "{}", explain(&out));
    assert_eq!(repo.git(&["rev-parse", "HEAD~1"]).trim(), head.trim());
    assert!(
        repo.trailer("HEAD", "Goal-Run")
            .is_some_and(|t| t.contains("agent=aider"))
    );
    let error = named(&ev, "error");
    assert_eq!(error.len(), 1, "{}", explain(&out));
    let reason = error[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("aider's turn reported no cost") && reason.contains("--max-cost"),
        "{reason}"
    );
    assert_eq!(api.turns(), 1, "no second turn");
}
