//! The real Qwen Code CLI (npm `@qwen-code/qwen-code`, pinned in tests/fixtures/agents/qwen/package.json), driven
//! by `goal run --agent qwen` offline against tests/fixtures/agents/qwen/fake_api.py (the OpenAI chat completions
//! API). OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL with
//! `security.auth.selectedType: "openai"` in ~/.qwen/settings.json, as a user would set them, and
//! `model.generationConfig.maxRetries: 0` so that its rate-limit retries (10, a minute or more
//! apart) stay out; its own 7 tries on a 5xx remain (the stand-in's 503 says `retry-after: 1`).

use std::process::Output;

use crate::agent_cli::{StandIn, installed, path_with, turn_usage};
use crate::common::Repo;
use crate::run::{code, events, explain, named, project, state};

/// `goal run --json --agent qwen` with the CLI set up against the stand-in.
fn run_qwen(repo: &Repo, dir: &std::path::Path, api: &StandIn, key: Option<&str>) -> Output {
    let home = state(repo);
    std::fs::create_dir_all(home.join(".qwen")).unwrap();
    std::fs::write(
        home.join(".qwen/settings.json"),
        r#"{"security": {"auth": {"selectedType": "openai"}}, "model": {"generationConfig": {"maxRetries": 0}}}"#,
    )
    .unwrap();
    let tmp = home.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut goal = repo.goal();
    match key {
        Some(key) => goal.env("OPENAI_API_KEY", key),
        None => goal.env_remove("OPENAI_API_KEY"),
    };
    goal.env("PATH", path_with(dir))
        .env("GOAL_TIME_SCALE", "0")
        .env(
            "OPENAI_BASE_URL",
            format!("http://127.0.0.1:{}/v1", api.port),
        )
        .env("OPENAI_MODEL", "fake-model")
        .env("TMPDIR", &tmp)
        .args(["run", "--json", "--turn-timeout", "90s", "--agent", "qwen"])
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap()
}

/// What the stand-in answered each `qwen` call that began a turn's conversation (its own
/// repeats of a failed call included).
fn calls(api: &StandIn) -> Vec<String> {
    api.requests()
        .iter()
        .filter(|r| r["follow_up"] == false && r["kind"] != "side")
        .map(|r| r["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_real_qwen_cli_in_a_fresh_repository_writes_verifies_and_completes_after_a_503() {
    let Some(dir) = installed("qwen", "qwen") else {
        return;
    };
    let repo = project();
    let api = StandIn::start(&dir, &state(&repo), "503,work", &[]);
    let out = run_qwen(&repo, &dir, &api, Some("offline-test-key"));
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    assert_eq!(named(&ev, "done").len(), 1, "{}", explain(&out));
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    // The stand-in's `run_shell_command` call ran `echo hello > hello.txt && goal verify -c 1`
    // through qwen's own shell tool; the last message is the final `result` event's.
    assert_eq!(repo.git(&["show", "HEAD:hello.txt"]).trim(), "hello");
    let subject = repo.git(&["log", "-1", "--format=%s", "HEAD~2"]);
    assert!(
        subject
            .trim()
            .ends_with(": Wrote hello.txt; goal verify passed."),
        "{subject}"
    );
    let files = repo.git(&["log", "--name-only", "--format="]);
    assert!(!files.contains(".qwen"), "{files}");
    // Turn 1: qwen tried the 503 seven times by itself, then exited 1; goal retried it after
    // the nominal 30 s.
    let retries = named(&ev, "retry");
    assert_eq!(retries.len(), 1, "{ev:?}");
    assert_eq!(retries[0]["delay_s"], 30);
    let reason = retries[0]["reason"].as_str().unwrap();
    assert!(reason.contains("503"), "{reason}");
    let ends = named(&ev, "turn_end");
    assert_eq!(ends[0]["exit_code"], 1, "{ev:?}");
    let mut want = vec!["503"; 7];
    want.push("work");
    assert_eq!(calls(&api), want);
    // Its usage report: two calls, each 300 prompt tokens (10 cached) and 20 out.
    let usage = turn_usage(&repo, "qwen", 2);
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.cost_usd),
        (Some(580), Some(40), None)
    );
}

#[test]
fn the_real_qwen_cli_with_a_bad_key_stops_at_once() {
    let Some(dir) = installed("qwen", "qwen") else {
        return;
    };
    let repo = project();
    let head = repo.head();
    let api = StandIn::start(&dir, &state(&repo), "401", &[]);
    let out = run_qwen(&repo, &dir, &api, Some("sk-offline-test"));
    assert_eq!(code(&out), 2, "{}", explain(&out));
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "{ev:?}");
    let ends = named(&ev, "turn_end");
    assert_eq!(ends.len(), 1, "{}", explain(&out));
    assert_eq!(ends[0]["exit_code"], 1, "{ev:?}");
    // One call: qwen does not repeat a 401 either.
    assert_eq!(calls(&api), ["401"]);
    assert_eq!(repo.head(), head);
    let reason = named(&ev, "error")[0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("[API Error: 401"), "{reason}");
}

#[test]
fn the_real_qwen_cli_waits_out_its_quota_without_spending_a_retry() {
    let Some(dir) = installed("qwen", "qwen") else {
        return;
    };
    let repo = project();
    // OpenAI's quota (429 insufficient_quota, no reset given: the first 30 min step), then the
    // work. qwen tries the 429 seven times by itself (`retry-after: 1`) before it exits 1.
    let api = StandIn::start(&dir, &state(&repo), "quota,work", &[]);
    let out = run_qwen(&repo, &dir, &api, Some("offline-test-key"));
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    assert_eq!(named(&ev, "done").len(), 1, "{}", explain(&out));
    assert!(named(&ev, "retry").is_empty(), "no retry spent: {ev:?}");
    let waits: Vec<(u64, &str)> = named(&ev, "wait")
        .iter()
        .map(|w| (w["delay_s"].as_u64().unwrap(), w["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(waits, [(1800, "usage_limit")], "{ev:?}");
    let mut want = vec!["quota"; 7];
    want.push("work");
    assert_eq!(calls(&api), want);
    assert_eq!(repo.git(&["show", "HEAD:hello.txt"]).trim(), "hello");
}

#[test]
fn the_real_qwen_cli_with_no_key_stops_at_once() {
    let Some(dir) = installed("qwen", "qwen") else {
        return;
    };
    let repo = project();
    let api = StandIn::start(&dir, &state(&repo), "work", &[]);
    let out = run_qwen(&repo, &dir, &api, None);
    // "Missing API key for OpenAI-compatible auth. …", exit 1, before any request.
    assert_eq!(code(&out), 2, "{}", explain(&out));
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "{ev:?}");
    assert_eq!(named(&ev, "turn_end")[0]["exit_code"], 1, "{ev:?}");
    let reason = named(&ev, "error")[0]["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.contains("Missing API key"), "{reason}");
    assert!(api.requests().is_empty(), "no request reached the API");
}
