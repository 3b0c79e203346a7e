//! `goal run` over more than one agent: failover. Stand-in `claude` and `pi` binaries (shell
//! scripts first on PATH) print each CLI's real usage-limit and auth texts; GOAL_TIME_SCALE=0
//! makes every wait instant while the run's clock counts it in full.

use std::path::PathBuf;
use std::process::Output;

use crate::common::Repo;
use crate::run::{code, events, explain, named, project, state};

const WORK: &str = "echo hello > hello.txt\ngoal verify -c 1 >/dev/null 2>&1\necho 'Wrote hello.txt; the test passes'";
const CLAUDE_AUTH: &str = r#"{"type":"result","is_error":true,"result":"Failed to authenticate. API Error: 401 authentication_error"}"#;

/// Claude Code at its usage limit, resetting `secs` from now (its stream-json events).
fn claude_limit(secs: u64) -> String {
    format!(
        "echo \"{{\\\"type\\\":\\\"rate_limit_event\\\",\\\"rate_limit_info\\\":{{\\\"status\\\":\\\"rejected\\\",\\\"resetsAt\\\":$(( $(date +%s) + {secs} ))}}}}\"\necho '{{\"type\":\"result\",\"is_error\":true,\"result\":\"You have hit your limit\"}}'\nexit 1"
    )
}

/// Pi at its provider's quota (it names the reset in words).
const PI_LIMIT: &str =
    "echo '{\"type\":\"agent_end\",\"error\":\"429: quota will reset after 2h\"}'\nexit 1";

/// The folder of the stand-in binaries.
fn bin(repo: &Repo) -> PathBuf {
    state(repo).join("bin")
}

/// A stand-in for the CLI `name`: it counts its calls in `calls-<name>`, appends its name to
/// `order`, reads its stdin, then runs `body` with `$n` its call number.
fn fake(repo: &Repo, name: &str, body: &str) {
    let s = state(repo);
    std::fs::create_dir_all(bin(repo)).unwrap();
    let path = bin(repo).join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nS='{}'\nn=$(cat \"$S/calls-{name}\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$S/calls-{name}\"\necho {name} >> \"$S/order\"\necho \"$GOAL_RUN_AGENT\" >> \"$S/env-agent\"\ncat > /dev/null\n{body}\n",
            s.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The stand-ins called, in order.
fn order(repo: &Repo) -> Vec<String> {
    std::fs::read_to_string(state(repo).join("order"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// `goal run --json --agent A --agent B …` with only the stand-ins, `goal` and the system's
/// tools on PATH (no real agent CLI can answer).
fn run_agents(repo: &Repo, agents: &[&str], flags: &[&str]) -> Output {
    let goal_dir = std::path::Path::new(env!("CARGO_BIN_EXE_goal"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = std::env::join_paths([
        bin(repo),
        goal_dir,
        PathBuf::from("/usr/bin"),
        PathBuf::from("/bin"),
    ])
    .unwrap();
    let mut cmd = repo.goal();
    cmd.env("PATH", path)
        .env("GOAL_TIME_SCALE", "0")
        .env("GOAL_SIGNAL_GRACE", "0.1")
        .args(["run", "--json"]);
    for a in agents {
        cmd.args(["--agent", a]);
    }
    cmd.args(flags)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

/// The `agent` of each `turn_start` (and of each `turn_end`, which must agree).
fn turn_agents(ev: &[serde_json::Value]) -> Vec<String> {
    let starts: Vec<String> = named(ev, "turn_start")
        .iter()
        .map(|e| e["agent"].as_str().unwrap().to_string())
        .collect();
    let ends: Vec<String> = named(ev, "turn_end")
        .iter()
        .map(|e| e["agent"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(starts, ends, "turn_start and turn_end name the same agent");
    starts
}

fn run_id(ev: &[serde_json::Value]) -> String {
    named(ev, "start")[0]["run"].as_str().unwrap().to_string()
}

#[test]
fn a_usage_limit_hands_the_next_turn_to_the_next_agent_at_once() {
    let repo = project();
    fake(&repo, "claude", &claude_limit(3600));
    fake(&repo, "pi", WORK);
    let out = run_agents(&repo, &["claude", "pi"], &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    assert_eq!(order(&repo), ["claude", "pi"]);
    assert_eq!(turn_agents(&ev), ["claude", "pi"]);
    assert!(named(&ev, "wait").is_empty(), "no wait: {}", explain(&out));
    assert!(
        named(&ev, "retry").is_empty(),
        "a usage limit spends no retry"
    );
    let switch = named(&ev, "switch");
    assert_eq!(switch.len(), 1, "{}", explain(&out));
    assert_eq!(switch[0]["from"], "claude");
    assert_eq!(switch[0]["to"], "pi");
    let reason = switch[0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("usage limit (available again in 60 min)"),
        "{reason}"
    );
    let start = &named(&ev, "start")[0];
    assert_eq!(start["agents"], serde_json::json!(["claude", "pi"]));
    // Each agent was told its name.
    let told = std::fs::read_to_string(state(&repo).join("env-agent")).unwrap();
    assert_eq!(told.lines().collect::<Vec<_>>(), ["claude", "pi"]);
    // The iteration pi made says so, read by git itself.
    let id = run_id(&ev);
    let iteration = repo
        .git(&["log", "--format=%H", "--grep=^goal: iteration 1:"])
        .trim()
        .to_string();
    assert!(!iteration.is_empty());
    assert_eq!(
        repo.trailer(&iteration, "Goal-Run"),
        Some(format!("{id} agent=pi"))
    );
}

#[test]
fn every_agent_limited_waits_for_the_earliest_reset_then_the_first_agent_again() {
    let repo = project();
    // claude: limited for 10 min on its first call, then works; pi: limited for 2 h.
    fake(
        &repo,
        "claude",
        &format!("if [ $n -eq 1 ]; then\n{}\nfi\n{WORK}", claude_limit(600)),
    );
    fake(&repo, "pi", PI_LIMIT);
    let out = run_agents(&repo, &["claude", "pi"], &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    assert_eq!(turn_agents(&ev), ["claude", "pi", "claude"]);
    let waits = named(&ev, "wait");
    assert_eq!(waits.len(), 1, "{}", explain(&out));
    let delay = waits[0]["delay_s"].as_u64().unwrap();
    assert!((590..=600).contains(&delay), "the earliest reset: {delay}");
    assert!(
        waits[0]["reason"]
            .as_str()
            .unwrap()
            .ends_with("every agent is at its usage limit"),
        "{}",
        waits[0]
    );
    let switches: Vec<(String, String)> = named(&ev, "switch")
        .iter()
        .map(|s| {
            (
                s["from"].as_str().unwrap().to_string(),
                s["to"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        switches,
        [
            ("claude".to_string(), "pi".to_string()),
            ("pi".to_string(), "claude".to_string())
        ]
    );
    assert_eq!(
        named(&ev, "switch")[1]["reason"],
        "available again: its usage limit has reset"
    );
    // The iteration is claude's.
    let iteration = repo
        .git(&["log", "--format=%H", "--grep=^goal: iteration 1:"])
        .trim()
        .to_string();
    assert_eq!(
        repo.trailer(&iteration, "Goal-Run"),
        Some(format!("{} agent=claude", run_id(&ev)))
    );
}

#[test]
fn an_auth_failure_takes_the_agent_out_and_the_next_one_goes_on() {
    let repo = project();
    fake(&repo, "claude", &format!("echo '{CLAUDE_AUTH}'\nexit 1"));
    // pi works twice without proving anything, then proves it: claude is never asked again.
    fake(
        &repo,
        "pi",
        &format!("if [ $n -le 2 ]; then echo 'still working'; exit 0; fi\n{WORK}"),
    );
    let out = run_agents(&repo, &["claude", "pi"], &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    assert_eq!(order(&repo), ["claude", "pi", "pi", "pi"]);
    assert!(named(&ev, "retry").is_empty());
    let switch = named(&ev, "switch");
    assert_eq!(switch.len(), 1);
    assert!(
        switch[0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("out of the run: "),
        "{}",
        switch[0]
    );
    assert!(
        switch[0]["reason"]
            .as_str()
            .unwrap()
            .contains("authentication_error"),
        "{}",
        switch[0]
    );
}

#[test]
fn the_run_stops_with_two_only_when_no_agent_is_left() {
    // claude's key is bad and gemini is not installed: nobody is left.
    let repo = project();
    fake(&repo, "claude", &format!("echo '{CLAUDE_AUTH}'\nexit 1"));
    let before = repo.commit_count();
    let out = run_agents(&repo, &["claude", "gemini"], &[]);
    assert_eq!(code(&out), 2, "{}", explain(&out));
    let ev = events(&out);
    assert_eq!(turn_agents(&ev), ["claude", "gemini"]);
    let error = named(&ev, "error");
    assert_eq!(error.len(), 1, "{}", explain(&out));
    let reason = error[0]["reason"].as_str().unwrap();
    assert!(reason.ends_with("no agent is left in the run"), "{reason}");
    assert!(
        reason.contains("gemini"),
        "the last failure is named: {reason}"
    );
    assert_eq!(repo.commit_count(), before, "no iteration was made");
    assert!(repo.goal_md().contains("status: in-progress"));

    // The same agent twice is refused before anything runs.
    let repo = project();
    fake(&repo, "claude", WORK);
    let before = repo.commit_count();
    let out = run_agents(&repo, &["claude", "claude"], &[]);
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert!(order(&repo).is_empty());
    assert_eq!(repo.commit_count(), before);
    assert!(
        crate::common::stderr(&out).contains("`--agent claude` is given twice"),
        "{}",
        explain(&out)
    );
}

/// Pi's assistant `message_end` event with its usage.
fn pi_usage(input: u64, output: u64, cost: &str) -> String {
    format!(
        "echo '{{\"type\":\"message_end\",\"message\":{{\"role\":\"assistant\",\"usage\":{{\"input\":{input},\"output\":{output},\"cacheRead\":999,\"cost\":{{\"total\":{cost}}}}}}}}}'"
    )
}

#[test]
fn goal_log_and_report_show_each_iterations_agent_and_the_runs_totals() {
    let repo = project();
    // claude: a usage limit, after spending $0.01 (its result reports it).
    fake(
        &repo,
        "claude",
        &claude_limit(3600).replace(
            r#""result":"You have hit your limit""#,
            r#""result":"You have hit your limit","total_cost_usd":0.01,"usage":{"input_tokens":100,"output_tokens":10}"#,
        ),
    );
    // pi: a turn recorded by the run, then one it records itself and that proves the goal.
    fake(
        &repo,
        "pi",
        &format!(
            "{}\nif [ $n -eq 1 ]; then echo 'still working'; exit 0; fi\n{WORK}\ngoal iterate -m 'wrote hello.txt' >/dev/null",
            pi_usage(200, 20, "0.02")
        ),
    );
    let out = run_agents(&repo, &["claude", "pi"], &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    let id = run_id(&ev);
    assert_eq!(turn_agents(&ev), ["claude", "pi", "pi"]);
    let done = &named(&ev, "done")[0];
    assert_eq!(done["usage"]["input_tokens"], 500, "{done}");
    assert_eq!(done["usage"]["output_tokens"], 50);
    assert!((done["usage"]["cost_usd"].as_f64().unwrap() - 0.05).abs() < 1e-9);

    // In git: the run's first iteration carries claude's failed turn and pi's; pi's own
    // iteration names pi and no usage (the turn was not over); the completion the run made
    // carries that turn's usage.
    let rev = |grep: &str| {
        repo.git(&["log", "--format=%H", &format!("--grep={grep}")])
            .trim()
            .to_string()
    };
    let first = rev("^goal: iteration 1:");
    let second = rev("^goal: iteration 2:");
    let complete = rev("^goal: complete ");
    assert_eq!(
        repo.trailer(&first, "Goal-Run"),
        Some(format!("{id} agent=pi"))
    );
    assert_eq!(
        repo.trailer(&first, "Goal-Usage").as_deref(),
        Some("input=300 output=30 cost=0.03")
    );
    assert_eq!(
        repo.trailer(&second, "Goal-Run"),
        Some(format!("{id} agent=pi"))
    );
    assert_eq!(repo.trailer(&second, "Goal-Usage"), None);
    assert_eq!(repo.trailer(&complete, "Goal-Run"), Some(id.clone()));
    assert_eq!(
        repo.trailer(&complete, "Goal-Usage").as_deref(),
        Some("input=200 output=20 cost=0.02")
    );

    // goal log: each row names its agent; the run line sums the run.
    let log = repo.goal().args(["log"]).output().unwrap();
    let text = String::from_utf8_lossy(&log.stdout);
    assert!(text.contains(&format!("run {id} (pi)")), "{text}");
    assert!(
        text.contains(&format!(
            "run {id}: iterations 1-2 pi · 550 tokens (500 in, 50 out) · $0.0500"
        )),
        "{text}"
    );
    let rows = crate::common::json(&repo.goal().args(["log", "--json"]).output().unwrap());
    let rows = rows.as_array().unwrap();
    let row = |n: u64| {
        rows.iter()
            .find(|r| r["iteration"] == n && r["status"] != "complete")
            .unwrap_or_else(|| panic!("no row {n}: {rows:?}"))
    };
    assert_eq!(row(1)["agent"], "pi", "{rows:?}");
    assert_eq!(row(1)["run"], id.as_str());
    assert_eq!(
        row(1)["usage"],
        serde_json::json!({"input_tokens": 300, "output_tokens": 30, "cost_usd": 0.03})
    );
    assert_eq!(row(2)["agent"], "pi");
    assert_eq!(row(2)["usage"], serde_json::Value::Null);

    // goal report: the runs, with the agent of each iteration and the totals.
    let report = crate::common::json(&repo.goal().args(["report", "--json"]).output().unwrap());
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{report}");
    assert_eq!(runs[0]["run"], id.as_str());
    assert_eq!(
        runs[0]["iterations"],
        serde_json::json!([{"iteration": 1, "agent": "pi"}, {"iteration": 2, "agent": "pi"}])
    );
    assert_eq!(runs[0]["usage"]["input_tokens"], 500);
    assert_eq!(runs[0]["usage"]["output_tokens"], 50);
    assert!((runs[0]["usage"]["cost_usd"].as_f64().unwrap() - 0.05).abs() < 1e-9);
    let text = repo.goal().args(["report"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(&format!("  run {id}: iterations 1-2 pi · 550 tokens")),
        "{text}"
    );
    let md = repo.goal().args(["report", "--markdown"]).output().unwrap();
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains("### Runs"), "{md}");
    assert!(md.contains(&format!("- `{id}`: iterations 1-2 pi")), "{md}");
}

#[test]
fn the_agents_take_turns_and_goal_log_names_each_one() {
    // claude makes iteration 1, hits its limit; pi makes iteration 2 and proves it.
    let repo = project();
    fake(
        &repo,
        "claude",
        &format!(
            "if [ $n -eq 1 ]; then echo 'still working'; exit 0; fi\n{}",
            claude_limit(3600)
        ),
    );
    fake(&repo, "pi", WORK);
    let out = run_agents(&repo, &["claude", "pi"], &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let ev = events(&out);
    let id = run_id(&ev);
    assert_eq!(turn_agents(&ev), ["claude", "claude", "pi"]);
    let log = repo.goal().args(["log"]).output().unwrap();
    let text = String::from_utf8_lossy(&log.stdout);
    assert!(text.contains(&format!("run {id} (claude)")), "{text}");
    assert!(
        text.contains(&format!(
            "run {id}: iterations 1 claude, 2 pi · no usage recorded"
        )),
        "{text}"
    );
}

#[test]
fn a_budget_a_listed_agent_cannot_keep_is_refused_before_failover_or_a_race() {
    // codex reports no cost: --max-cost is refused whether it fails over or races, nothing made.
    for race in [&[][..], &["--race", "2"][..]] {
        let repo = project();
        fake(&repo, "claude", WORK);
        fake(&repo, "codex", WORK);
        let before = (repo.commit_count(), repo.git(&["branch", "--list"]));
        let mut flags = vec!["--max-cost", "1"];
        flags.extend_from_slice(race);
        let out = run_agents(&repo, &["claude", "codex"], &flags);
        assert_eq!(code(&out), 2, "{race:?}: {}", explain(&out));
        assert!(
            crate::common::stderr(&out)
                .contains("--max-cost cannot be kept with the agent `codex`"),
            "{}",
            explain(&out)
        );
        assert!(order(&repo).is_empty());
        assert_eq!(
            (repo.commit_count(), repo.git(&["branch", "--list"])),
            before,
            "{race:?}"
        );
    }
}
