//! The real Gemini CLI (npm `@google/gemini-cli`, pinned in tests/fixtures/agents/gemini/package.json), driven by
//! `goal run --agent gemini` offline against tests/fixtures/agents/gemini/fake_api.py (the Gemini API's
//! `streamGenerateContent`). GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY with
//! `security.auth.selectedType: "gemini-api-key"` in settings.json, as a user would set them, and
//! `general.maxAttempts: 1` so that its own retries (10 by default, minutes on a 503) stay out.

use std::process::Output;

use crate::agent_cli::{StandIn, installed, path_with, turn_usage};
use crate::common::Repo;
use crate::run::{code, events, explain, named, project, state};

fn run_gemini(repo: &Repo, dir: &std::path::Path, api: &StandIn) -> Output {
    run_gemini_with_key(repo, dir, api, Some("offline-test-key"))
}

fn run_gemini_with_key(
    repo: &Repo,
    dir: &std::path::Path,
    api: &StandIn,
    key: Option<&str>,
) -> Output {
    run_gemini_as(repo, dir, api, key, &["--agent", "gemini"])
}

/// `goal run --json <how>` with the CLI set up against the stand-in.
fn run_gemini_as(
    repo: &Repo,
    dir: &std::path::Path,
    api: &StandIn,
    key: Option<&str>,
    how: &[&str],
) -> Output {
    let home = state(repo);
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(
        home.join(".gemini/settings.json"),
        r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"maxAttempts": 1}}"#,
    )
    .unwrap();
    let tmp = home.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut goal = repo.goal();
    match key {
        Some(key) => goal.env("GEMINI_API_KEY", key),
        None => goal.env_remove("GEMINI_API_KEY"),
    };
    goal.env("PATH", path_with(dir))
        .env("GOAL_TIME_SCALE", "0")
        .env(
            "GOOGLE_GEMINI_BASE_URL",
            format!("http://127.0.0.1:{}", api.port),
        )
        // Its error reports go to the temporary folder: keep them in the test's own.
        .env("TMPDIR", &tmp)
        // It starts itself a second time (to raise node's heap limit) unless told not to: half
        // its start-up time, nothing the tests look at.
        .env("GEMINI_CLI_NO_RELAUNCH", "true")
        .args(["run", "--json", "--turn-timeout", "90s"])
        .args(how)
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap()
}

/// What the stand-in answered each `gemini` process's first request.
fn turns(api: &StandIn) -> Vec<String> {
    api.requests()
        .iter()
        .filter(|r| r["follow_up"] == false)
        .map(|r| r["kind"].as_str().unwrap().to_string())
        .collect()
}

fn assert_completed_by_its_own_tool(repo: &Repo, out: &Output) {
    assert_eq!(code(out), 0, "{}", explain(out));
    assert_eq!(named(&events(out), "done").len(), 1, "{}", explain(out));
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    // The stand-in's `run_shell_command` call ran `echo hello > hello.txt && goal verify -c 1`;
    // the last message comes from the JSON answer on stdout, after the warnings on stderr.
    assert_eq!(repo.git(&["show", "HEAD:hello.txt"]).trim(), "hello");
    let subject = repo.git(&["log", "-1", "--format=%s", "HEAD~2"]);
    assert!(
        subject
            .trim()
            .ends_with(": Wrote hello.txt; goal verify passed."),
        "{subject}"
    );
    let files = repo.git(&["log", "--name-only", "--format="]);
    assert!(!files.contains(".gemini"), "{files}");
}

#[test]
fn the_real_gemini_cli_in_a_fresh_repository_writes_verifies_and_completes_after_a_503() {
    let Some(dir) = installed("gemini", "gemini") else {
        return;
    };
    let repo = project();
    let api = StandIn::start(&dir, &state(&repo), "503,work", &[]);
    let out = run_gemini(&repo, &dir, &api);
    assert_completed_by_its_own_tool(&repo, &out);
    // Turn 1: 503, gemini exited 247 (503 mod 256): retried after the nominal 30 s.
    let ev = events(&out);
    let retries = named(&ev, "retry");
    assert_eq!(retries.len(), 1, "{ev:?}");
    assert_eq!(retries[0]["delay_s"], 30);
    let reason = retries[0]["reason"].as_str().unwrap();
    assert!(reason.contains("exit 247"), "{reason}");
    let ends = named(&ev, "turn_end");
    assert_eq!(ends[0]["exit_code"], 247, "{ev:?}");
    assert_eq!(turns(&api), ["503", "work"]);
    // Its usage report: the router's request and two of the agent's, each 900 prompt tokens (100
    // cached) and 25 out.
    let usage = turn_usage(&repo, "gemini", 2);
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.cost_usd),
        (Some(2400), Some(75), None)
    );
}

#[test]
fn the_real_gemini_cli_waits_out_its_quotas_without_spending_a_retry() {
    let Some(dir) = installed("gemini", "gemini") else {
        return;
    };
    let repo = project();
    // A per-minute quota whose delay is over 300 s ("Please retry in 3600s."), then the daily
    // quota ("You have exhausted your daily quota on this model.", no reset: the first 30 min
    // step), then the work.
    let api = StandIn::start(&dir, &state(&repo), "quota,daily,work", &[]);
    let out = run_gemini(&repo, &dir, &api);
    assert_completed_by_its_own_tool(&repo, &out);
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "no retry spent: {ev:?}");
    let waits: Vec<(u64, &str)> = named(&ev, "wait")
        .iter()
        .map(|w| (w["delay_s"].as_u64().unwrap(), w["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(waits.len(), 2, "{ev:?}");
    assert!(
        (3598..=3601).contains(&waits[0].0),
        "the quota's 3600 s: {waits:?}"
    );
    assert_eq!(waits[1], (1800, "usage_limit"));
    assert_eq!(waits[0].1, "usage_limit");
    assert_eq!(turns(&api), ["quota", "daily", "work"]);
}

#[test]
fn the_real_gemini_cli_with_a_bad_key_stops_at_once() {
    let Some(dir) = installed("gemini", "gemini") else {
        return;
    };
    let repo = project();
    let head = repo.head();
    let api = StandIn::start(&dir, &state(&repo), "400", &[]);
    let out = run_gemini(&repo, &dir, &api);
    assert_eq!(code(&out), 2, "{}", explain(&out));
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "{ev:?}");
    assert_eq!(named(&ev, "turn_end")[0]["exit_code"], 144, "{ev:?}");
    assert_eq!(turns(&api), ["400"]);
    assert_eq!(repo.head(), head);
    let reason = named(&ev, "error")[0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("exited 144") && reason.contains("API key not valid"),
        "{reason}"
    );
}

#[test]
fn the_real_gemini_cli_with_no_key_stops_at_once() {
    let Some(dir) = installed("gemini", "gemini") else {
        return;
    };
    let repo = project();
    let api = StandIn::start(&dir, &state(&repo), "work", &[]);
    let out = run_gemini_with_key(&repo, &dir, &api, None);
    // "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.", exit 41.
    assert_eq!(code(&out), 2, "{}", explain(&out));
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "{ev:?}");
    assert_eq!(named(&ev, "turn_end")[0]["exit_code"], 41, "{ev:?}");
    assert!(turns(&api).is_empty(), "no request reached the API");
}

#[test]
fn the_real_gemini_cli_in_an_untrusted_folder_stops_at_once_even_as_a_custom_command() {
    let Some(dir) = installed("gemini", "gemini") else {
        return;
    };
    let repo = project();
    let api = StandIn::start(&dir, &state(&repo), "work", &[]);
    // The old preset's command line, without --skip-trust: gemini refuses the fresh repository
    // (exit 55, the reason on stderr). Read with every preset's patterns, that stops the run.
    let how = [
        "--",
        "gemini",
        "--yolo",
        "--output-format",
        "json",
        "-p",
        "{prompt}",
    ];
    let out = run_gemini_as(&repo, &dir, &api, Some("offline-test-key"), &how);
    assert_eq!(code(&out), 2, "{}", explain(&out));
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "{ev:?}");
    assert_eq!(named(&ev, "turn_end")[0]["exit_code"], 55, "{ev:?}");
    let reason = named(&ev, "error")[0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("trusted directory"), "{reason}");
    assert!(turns(&api).is_empty(), "no request reached the API");
}
