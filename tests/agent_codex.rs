//! The real Codex CLI (npm `@openai/codex`, pinned in tests/fixtures/agents/codex/package.json), driven by
//! `goal run --agent codex` offline against tests/fixtures/agents/codex/fake_api.py (the Responses API over HTTP
//! and SSE; the WebSocket attempt is refused at once). The key is CODEX_API_KEY and the base URL
//! `openai_base_url` in a temporary CODEX_HOME, as a user would set them.

use std::process::Output;

use crate::agent_cli::{StandIn, installed, path_with, turn_log, turn_usage};
use crate::common::Repo;
use crate::run::{code, events, explain, named, project, state};

fn run_codex(repo: &Repo, dir: &std::path::Path, api: &StandIn, tz: &str) -> Output {
    let home = state(repo).join("codex-home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!("openai_base_url = \"http://127.0.0.1:{}/v1\"\n", api.port),
    )
    .unwrap();
    repo.goal()
        .env("PATH", path_with(dir))
        .env("GOAL_TIME_SCALE", "0")
        .env("CODEX_HOME", &home)
        .env("CODEX_API_KEY", "sk-offline-test")
        .env("TZ", tz)
        .args(["run", "--json", "--agent", "codex", "--turn-timeout", "90s"])
        .timeout(std::time::Duration::from_secs(300))
        .output()
        .unwrap()
}

/// The sessions (one per `codex exec`) the stand-in saw, in order, with what each was answered.
fn sessions(api: &StandIn) -> Vec<String> {
    let mut seen: Vec<(String, String)> = Vec::new();
    for r in api.requests() {
        let s = r["session"].as_str().unwrap().to_string();
        if !seen.iter().any(|(id, _)| *id == s) {
            seen.push((s, r["kind"].as_str().unwrap().to_string()));
        }
    }
    seen.into_iter().map(|(_, kind)| kind).collect()
}

fn assert_completed_by_its_own_tool(repo: &Repo, out: &Output) {
    assert_eq!(code(out), 0, "{}", explain(out));
    assert_eq!(named(&events(out), "done").len(), 1, "{}", explain(out));
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    // The stand-in's tool call ran `echo hello > hello.txt && goal verify -c 1` through codex's
    // own `exec` tool; its last message is the iteration's summary.
    assert_eq!(repo.git(&["show", "HEAD:hello.txt"]).trim(), "hello");
    let subject = repo.git(&["log", "-1", "--format=%s", "HEAD~2"]);
    assert!(
        subject
            .trim()
            .ends_with(": Wrote hello.txt; goal verify passed."),
        "{subject}"
    );
    // Nothing of codex's own ends up in the commits.
    let files = repo.git(&["log", "--name-only", "--format="]);
    assert!(!files.contains(".codex"), "{files}");
}

#[test]
fn the_real_codex_cli_writes_verifies_and_completes_after_a_429() {
    let Some(dir) = installed("codex", "codex") else {
        return;
    };
    let repo = project();
    let api = StandIn::start(&dir, &state(&repo), "429,work", &[]);
    let out = run_codex(&repo, &dir, &api, "UTC");
    assert_completed_by_its_own_tool(&repo, &out);
    // Turn 1: 429 (codex: "exceeded retry limit, last status: 429 Too Many Requests", exit 1),
    // retried after the nominal 30 s; turn 2 did the work.
    let ev = events(&out);
    let retries = named(&ev, "retry");
    assert_eq!(retries.len(), 1, "{}", explain(&out));
    assert_eq!(retries[0]["delay_s"], 30);
    let reason = retries[0]["reason"].as_str().unwrap();
    assert!(reason.contains("429"), "{reason}");
    assert_eq!(sessions(&api), ["429", "work"]);
    // Its usage report: two requests of 1200 input tokens (200 of them cached) and 30 output.
    let usage = turn_usage(&repo, "codex", 2);
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.cost_usd),
        (Some(2000), Some(60), None)
    );
    assert_eq!(turn_usage(&repo, "codex", 1).tokens(), None);
}

#[test]
fn the_real_codex_cli_waits_out_usage_limits_given_as_local_clock_times_and_dates() {
    let Some(dir) = installed("codex", "codex") else {
        return;
    };
    let repo = project();
    // The first limit resets in 2 minutes; codex prints it as a clock time in the machine's zone
    // with no zone named ("…or try again at 7:32 PM."). The second resets in 50 hours, printed
    // as a date and a time ("…or try again at Dec 3rd, 2026 8:40 PM."). Tokyo here, 9 hours
    // from UTC, so a reading in the wrong zone would be hours off.
    let api = StandIn::start(
        &dir,
        &state(&repo),
        "limit,limit-180000,work",
        &[("RESET_S", "120")],
    );
    let out = run_codex(&repo, &dir, &api, "Asia/Tokyo");
    assert_completed_by_its_own_tool(&repo, &out);
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty(), "no retry spent: {ev:?}");
    let waits = named(&ev, "wait");
    assert_eq!(waits.len(), 2, "{ev:?}");
    assert!(waits.iter().all(|w| w["kind"] == "usage_limit"), "{ev:?}");
    let delay = |n: usize| waits[n]["delay_s"].as_u64().unwrap();
    // The printed times drop the seconds: up to a minute early.
    assert!(
        (30..=180).contains(&delay(0)),
        "waited {} s: {ev:?}",
        delay(0)
    );
    assert!(
        (179_850..=180_060).contains(&delay(1)),
        "waited {} s: {ev:?}",
        delay(1)
    );
    let reason = waits[0]["reason"].as_str().unwrap();
    assert!(reason.contains("usage limit"), "{reason}");
    let first = turn_log(&repo, 1);
    assert!(first.contains("You’ve hit your usage limit"), "{first}");
    let second = turn_log(&repo, 2);
    assert!(second.contains(", 20"), "a date: {second}");
    assert_eq!(sessions(&api), ["limit", "limit-180000", "work"]);
}

#[test]
fn the_real_codex_cli_with_a_bad_key_stops_at_once() {
    let Some(dir) = installed("codex", "codex") else {
        return;
    };
    let repo = project();
    let head = repo.head();
    let api = StandIn::start(&dir, &state(&repo), "401", &[]);
    let out = run_codex(&repo, &dir, &api, "UTC");
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert!(named(&events(&out), "retry").is_empty());
    // One codex process (it retried the 401 by itself first), no second turn, no commit.
    assert_eq!(sessions(&api), ["401"]);
    assert!(api.requests().iter().all(|r| r["authorization"] == true));
    assert_eq!(repo.head(), head);
    let ev = events(&out);
    let stop = named(&ev, "error");
    assert_eq!(stop.len(), 1, "{ev:?}");
    let reason = stop[0]["reason"].as_str().unwrap();
    assert!(reason.contains("401 Unauthorized"), "{reason}");
}
