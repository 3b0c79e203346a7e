//! `goal run` with scripted agents (shell scripts that answer, fail with each preset's real error
//! text, hang, hit a usage limit, and call `goal verify` as an agent would). GOAL_TIME_SCALE=0
//! makes every backoff and usage-limit wait instant; timeouts are given small.

use std::path::PathBuf;
use std::process::Output;

pub(crate) use crate::common::stand_in::project;
use crate::common::{Repo, stderr};

pub(crate) const OVERLOADED: &str = r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"result":"API Error: 529 overloaded_error. Please try again later."}"#;
pub(crate) const AUTH: &str = r#"{"type":"result","is_error":true,"result":"Failed to authenticate. API Error: 401 authentication_error"}"#;

/// The agent script's folder (outside the worktree): call counter, prompts, pids.
pub(crate) fn state(repo: &Repo) -> PathBuf {
    repo.home().to_path_buf()
}

/// An agent script: counts its calls in `calls`, saves each prompt (stdin) to `prompt-N`,
/// then runs `body` with `$n` the call number and `$S` the state folder.
pub(crate) fn agent(repo: &Repo, body: &str) -> String {
    let s = state(repo);
    let path = s.join("agent.sh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\nS='{}'\nn=$(cat \"$S/calls\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$S/calls\"\ncat > \"$S/prompt-$n\"\n{body}\n",
            s.display()
        ),
    )
    .unwrap();
    path.display().to_string()
}

pub(crate) const WORK: &str = "echo hello > hello.txt\ngoal verify -c 1 >/dev/null 2>&1\necho 'Wrote hello.txt; the test passes'";

pub(crate) fn run(repo: &Repo, script: &str, flags: &[&str]) -> Output {
    repo.goal()
        .env("GOAL_TIME_SCALE", "0")
        .env("GOAL_SIGNAL_GRACE", "0.1")
        .args(["run", "--json"])
        .args(flags)
        .args(["--", "sh", script])
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

pub(crate) fn events(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

pub(crate) fn named<'a>(events: &'a [serde_json::Value], name: &str) -> Vec<&'a serde_json::Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

pub(crate) fn calls(repo: &Repo) -> u32 {
    std::fs::read_to_string(state(repo).join("calls"))
        .map(|s| s.trim().parse().unwrap())
        .unwrap_or(0)
}

pub(crate) fn prompt(repo: &Repo, n: u32) -> String {
    std::fs::read_to_string(state(repo).join(format!("prompt-{n}"))).unwrap()
}

pub(crate) fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

pub(crate) fn explain(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        stderr(out)
    )
}

#[test]
pub(crate) fn completion_is_decided_by_evidence_and_the_turn_is_recorded_by_the_run() {
    let repo = project();
    let script = agent(&repo, WORK);
    let out = run(&repo, &script, &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    assert_eq!(calls(&repo), 1);
    let ev = events(&out);
    let done = named(&ev, "done");
    assert_eq!(done.len(), 1, "{ev:?}");
    let run_id = done[0]["run"].as_str().unwrap().to_string();
    // The goal went through `goal done`: complete, then the goal files deleted.
    assert!(!repo.exists(".agents/goal/GOAL.md"));
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    // The turn made no iteration commit itself: the run recorded one, with its run id.
    let subject = repo.git(&["log", "-1", "--format=%s", "HEAD~2"]);
    assert_eq!(
        subject.trim(),
        "goal: iteration 1: turn 1: Wrote hello.txt; the test passes"
    );
    assert_eq!(
        repo.trailer("HEAD~2", "Goal-Run"),
        Some(format!("{run_id} agent=sh"))
    );
    // The iteration says which new files it brought into git.
    let iterate = named(&ev, "iterate");
    assert_eq!(
        iterate[0]["new_files"],
        serde_json::json!(["hello.txt"]),
        "{ev:?}"
    );
    // `goal log` shows which iterations the run made.
    let log = repo.goal().args(["log", "--all"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&log.stdout).contains(&format!("run {run_id}")),
        "{}",
        String::from_utf8_lossy(&log.stdout)
    );
    let rows = crate::common::json(
        &repo
            .goal()
            .args(["log", "--all", "--json"])
            .output()
            .unwrap(),
    );
    assert!(
        rows.as_array()
            .unwrap()
            .iter()
            .any(|r| r["run"] == run_id.as_str())
    );
    // The prompt held the goal and the open criterion with its re-run line.
    let p = prompt(&repo, 1);
    assert!(
        p.contains("[goal-driven-loop] ACTIVE GOAL\nSay hello\n"),
        "{p}"
    );
    assert!(p.contains("hello.txt exists and the test passes"), "{p}");
    assert!(p.contains("`goal verify -c 1`"), "{p}");
    // The turn's output went to its log under the git dir.
    let log_file = repo
        .path()
        .join(".git/goal/runs")
        .join(&run_id)
        .join("turn-1.log");
    assert!(
        std::fs::read_to_string(log_file)
            .unwrap()
            .contains("Wrote hello.txt")
    );
    repo.assert_fsck();
}

#[test]
pub(crate) fn an_agent_that_only_says_it_is_done_never_completes() {
    let repo = project();
    let script = agent(&repo, "echo 'done, all tests pass'");
    let out = run(&repo, &script, &["--max-iterations", "2"]);
    assert_eq!(code(&out), 3, "{}", explain(&out));
    assert_eq!(calls(&repo), 2);
    let ev = events(&out);
    assert_eq!(named(&ev, "budget").len(), 1);
    assert!(named(&ev, "done").is_empty());
    assert!(repo.goal_md().contains("iteration: 2"));
    assert!(repo.goal_md().contains("status: in-progress"));
}

#[test]
pub(crate) fn a_transient_failure_is_retried_with_backoff_in_the_same_iteration() {
    let repo = project();
    let script = agent(
        &repo,
        &format!("if [ $n -le 2 ]; then echo '{OVERLOADED}'; exit 1; fi\n{WORK}"),
    );
    let out = run(&repo, &script, &["--max-iterations", "1"]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    assert_eq!(calls(&repo), 3);
    let ev = events(&out);
    let delays: Vec<u64> = named(&ev, "retry")
        .iter()
        .map(|e| e["delay_s"].as_u64().unwrap())
        .collect();
    assert_eq!(delays, [30, 60]);
    // Failed turns made no iteration: the one iteration is the good turn's.
    let iterations: Vec<_> = named(&ev, "iterate");
    assert_eq!(iterations.len(), 1);
    assert_eq!(iterations[0]["iteration"], 1);
    // Every try of the iteration saw the goal and the open criterion.
    for n in 1..=3 {
        let p = prompt(&repo, n);
        assert!(
            p.contains("Say hello") && p.contains("hello.txt exists"),
            "{p}"
        );
    }
    assert!(
        prompt(&repo, 2).contains("overloaded"),
        "{}",
        prompt(&repo, 2)
    );
}

#[test]
pub(crate) fn the_eleventh_failure_in_an_iteration_blocks_the_goal() {
    let repo = project();
    let script = agent(&repo, &format!("echo '{OVERLOADED}'\nexit 1"));
    let out = run(&repo, &script, &[]);
    assert_eq!(code(&out), 1, "{}", explain(&out));
    assert_eq!(calls(&repo), 11);
    let ev = events(&out);
    let delays: Vec<u64> = named(&ev, "retry")
        .iter()
        .map(|e| e["delay_s"].as_u64().unwrap())
        .collect();
    assert_eq!(delays, [30, 60, 120, 240, 300, 300, 300, 300, 300, 300]);
    assert_eq!(named(&ev, "blocked").len(), 1);
    // The same state and commit as `goal retry` after its last retry.
    assert!(repo.goal_md().contains("status: blocked"));
    assert!(repo.goal_md().contains("Retries exhausted"));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Action").as_deref(),
        Some("escalate")
    );
    assert!(repo.goal_md().contains("iteration: 0"));
}

#[test]
pub(crate) fn an_auth_failure_stops_at_once() {
    let repo = project();
    let script = agent(&repo, &format!("echo '{AUTH}'\nexit 1"));
    let out = run(&repo, &script, &[]);
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert_eq!(calls(&repo), 1);
    let ev = events(&out);
    assert!(named(&ev, "retry").is_empty());
    assert!(
        named(&ev, "error")[0]["reason"]
            .as_str()
            .unwrap()
            .contains("authentication_error")
    );
}

#[test]
pub(crate) fn a_missing_agent_binary_stops_at_once() {
    let repo = project();
    let out = repo
        .goal()
        .args(["run", "--", "/nonexistent/agent-cli", "{prompt}"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert!(stderr(&out).contains("not found"), "{}", stderr(&out));
}

pub(crate) fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())) {
        // A zombie waiting for a reaper is dead already.
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
pub(crate) fn idle_and_turn_timeouts_kill_the_agents_process_group() {
    for (flag, hang) in [
        // Prints nothing: the idle timeout.
        ("--idle-timeout", "sleep 60"),
        // Keeps printing, never ends: the turn timeout.
        (
            "--turn-timeout",
            "while :; do echo working; sleep 0.05; done",
        ),
    ] {
        let repo = project();
        let script = agent(
            &repo,
            &format!(
                "if [ $n -eq 1 ]; then sleep 60 & echo $! > \"$S/sleeper\"; {hang}; fi\n{WORK}"
            ),
        );
        // Small, but roomy enough for the good turn (it runs `goal verify`) on a loaded machine.
        let out = run(&repo, &script, &[flag, "2s"]);
        assert_eq!(code(&out), 0, "{flag}: {}", explain(&out));
        assert_eq!(calls(&repo), 2, "{flag}");
        let ev = events(&out);
        let ends = named(&ev, "turn_end");
        assert!(
            ends[0]["end"]
                .as_str()
                .unwrap()
                .contains(if flag == "--idle-timeout" {
                    "idle timeout"
                } else {
                    "turn timeout"
                }),
            "{ev:?}"
        );
        assert_eq!(named(&ev, "retry").len(), 1, "{flag}");
        let sleeper = std::fs::read_to_string(state(&repo).join("sleeper")).unwrap();
        assert!(
            !alive(&sleeper),
            "{flag}: the background sleeper {sleeper} survived"
        );
    }
}

#[test]
pub(crate) fn a_usage_limit_is_waited_out_without_spending_a_retry() {
    let repo = project();
    let script = agent(
        &repo,
        &format!(
            "if [ $n -eq 1 ]; then echo \"{{\\\"type\\\":\\\"rate_limit_event\\\",\\\"rate_limit_info\\\":{{\\\"status\\\":\\\"rejected\\\",\\\"resetsAt\\\":$(( $(date +%s) + 3 ))}}}}\"; echo '{{\"type\":\"result\",\"is_error\":true,\"result\":\"You have hit your limit\"}}'; exit 1; fi\n{WORK}"
        ),
    );
    let out = run(&repo, &script, &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    assert_eq!(calls(&repo), 2);
    let ev = events(&out);
    let waits = named(&ev, "wait");
    assert_eq!(waits.len(), 1, "{ev:?}");
    let delay = waits[0]["delay_s"].as_u64().unwrap();
    assert!((2..=4).contains(&delay), "{delay}");
    assert!(
        named(&ev, "retry").is_empty(),
        "a usage limit spends no retry"
    );
}

#[test]
pub(crate) fn budgets_exit_three() {
    // --max-time: failures wait 30 s, 60 s (scaled to nothing, counted in full); 2 min runs out.
    let repo = project();
    let script = agent(&repo, "echo boom; exit 1");
    let out = run(&repo, &script, &["--max-time", "2m"]);
    assert_eq!(code(&out), 3, "{}", explain(&out));
    assert_eq!(calls(&repo), 3);
    assert_eq!(named(&events(&out), "budget").len(), 1);

    // --max-iterations counts iterations, not tries.
    let repo = project();
    let script = agent(
        &repo,
        "if [ $n -eq 1 ]; then exit 1; fi\necho 'still working'",
    );
    let out = run(&repo, &script, &["--max-iterations", "1"]);
    assert_eq!(code(&out), 3, "{}", explain(&out));
    assert_eq!(calls(&repo), 2);
}

/// `goal run --agent claude` with a stand-in `claude` first on PATH: `body` runs with `$n` the
/// call number (its stdin, the prompt, is read first).
pub(crate) fn run_fake_claude(repo: &Repo, body: &str, flags: &[&str]) -> Output {
    let bin = state(repo).join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = agent(repo, body);
    let claude = bin.join("claude");
    std::fs::write(&claude, format!("#!/bin/sh\nexec sh '{script}' \"$@\"\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let goal_dir = std::path::Path::new(env!("CARGO_BIN_EXE_goal"))
        .parent()
        .unwrap();
    let path = std::env::join_paths([bin, goal_dir.to_path_buf()].into_iter().chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    repo.goal()
        .env("PATH", path)
        .env("GOAL_TIME_SCALE", "0")
        .env("GOAL_SIGNAL_GRACE", "0.1")
        .args(["run", "--json", "--agent", "claude"])
        .args(flags)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

/// Claude Code's final JSON result line with its usage and cost.
pub(crate) fn claude_result(error: bool, cost: &str, input: u64, output: u64) -> String {
    format!(
        r#"echo '{{"type":"result","subtype":"success","is_error":{error},"result":"still working","total_cost_usd":{cost},"usage":{{"input_tokens":{input},"cache_read_input_tokens":5000,"output_tokens":{output}}}}}'"#
    )
}

#[test]
pub(crate) fn max_cost_stops_with_three_after_the_turn_that_reaches_it() {
    let repo = project();
    let out = run_fake_claude(
        &repo,
        &claude_result(false, "0.3", 1000, 200),
        &["--max-cost", "0.5"],
    );
    assert_eq!(code(&out), 3, "{}", explain(&out));
    assert_eq!(calls(&repo), 2, "the second turn reaches $0.60");
    let evs = events(&out);
    let ends = named(&evs, "turn_end");
    assert_eq!(ends.len(), 2);
    for end in &ends {
        assert_eq!(
            end["usage"],
            serde_json::json!({"input_tokens": 1000, "output_tokens": 200, "cost_usd": 0.3}),
            "cached input is left out"
        );
    }
    let budget = named(&evs, "budget");
    assert_eq!(budget.len(), 1, "{}", explain(&out));
    assert_eq!(budget[0]["usage"]["input_tokens"], 2000);
    assert_eq!(budget[0]["usage"]["output_tokens"], 400);
    assert!((budget[0]["usage"]["cost_usd"].as_f64().unwrap() - 0.6).abs() < 1e-9);
    assert!(
        budget[0]["reason"]
            .as_str()
            .unwrap()
            .contains("--max-cost 0.5"),
        "{}",
        budget[0]
    );
    // Both turns were recorded as iterations (the budget is checked after the record).
    assert_eq!(named(&evs, "iterate").len(), 2);
    // A failed turn that reaches it is not retried.
    let repo = project();
    let out = run_fake_claude(
        &repo,
        &format!("{}\nexit 1", claude_result(true, "0.7", 10, 10)),
        &["--max-cost", "0.5"],
    );
    assert_eq!(code(&out), 3, "{}", explain(&out));
    assert_eq!(calls(&repo), 1);
    assert!(named(&events(&out), "retry").is_empty());
}

#[test]
pub(crate) fn max_tokens_stops_with_three_and_done_carries_the_totals() {
    let repo = project();
    // 0 cost reported stays 0; 300 tokens a turn against 700: the third turn reaches it.
    let out = run_fake_claude(
        &repo,
        &claude_result(false, "0", 250, 50),
        &["--max-tokens", "700"],
    );
    assert_eq!(code(&out), 3, "{}", explain(&out));
    assert_eq!(calls(&repo), 3);
    let evs = events(&out);
    assert_eq!(named(&evs, "turn_end")[0]["usage"]["cost_usd"], 0.0);
    let budget = named(&evs, "budget");
    assert_eq!(budget[0]["usage"]["input_tokens"], 750);
    assert_eq!(budget[0]["usage"]["output_tokens"], 150);
    // A run that completes under its budget: `done` carries the totals.
    let repo = project();
    let out = run_fake_claude(
        &repo,
        &format!("{WORK}\n{}", claude_result(false, "0.01", 100, 20)),
        &["--max-tokens", "100000", "--max-cost", "5"],
    );
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let evs = events(&out);
    let done = named(&evs, "done");
    assert_eq!(done[0]["usage"]["input_tokens"], 100, "{}", explain(&out));
    assert_eq!(done[0]["usage"]["cost_usd"], 0.01);
}

#[test]
pub(crate) fn a_budget_the_agent_cannot_report_is_refused_at_the_start() {
    let repo = project();
    let head = repo.head();
    let cases: [(&[&str], &str); 4] = [
        (
            &["--max-cost", "1", "--", "sh", "-c", "true"],
            "custom command `sh`",
        ),
        (
            &["--max-tokens", "10", "--", "sh", "-c", "true"],
            "custom command `sh`",
        ),
        (
            &["--max-cost", "1", "--agent", "codex"],
            "agent `codex`: its CLI does not report cost",
        ),
        (&["--max-cost", "0", "--agent", "claude"], "above 0"),
    ];
    for (flags, says) in cases {
        let out = repo.goal().arg("run").args(flags).output().unwrap();
        assert_eq!(code(&out), 2, "{flags:?}: {}", explain(&out));
        assert!(stderr(&out).contains(says), "{flags:?}: {}", stderr(&out));
        assert_eq!(repo.head(), head, "{flags:?}");
    }
    // With a goal text, nothing is committed either.
    let out = repo
        .goal()
        .args(["run", "Another", "--max-cost", "1", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert!(
        stderr(&out).contains("custom command `true`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.head(), head);
}

#[test]
pub(crate) fn stagnation_changes_the_prompt_then_escalates() {
    let repo = project();
    let script = agent(&repo, "echo 'looked around'");
    let out = run(&repo, &script, &[]);
    assert_eq!(code(&out), 1, "{}", explain(&out));
    // Iterations 1 and 2 are not stagnant; 3 and 4 are (auto-recoveries); 5 escalates.
    assert_eq!(calls(&repo), 5);
    for n in 1..=3 {
        assert!(
            !prompt(&repo, n).contains("Stagnation detected"),
            "prompt {n}"
        );
    }
    for n in 4..=5 {
        assert!(
            prompt(&repo, n).contains("Stagnation detected"),
            "prompt {n}"
        );
    }
    for n in 1..=5 {
        let p = prompt(&repo, n);
        assert!(
            p.contains("Say hello") && p.contains("hello.txt exists"),
            "{p}"
        );
    }
    assert!(repo.goal_md().contains("status: blocked"));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Action").as_deref(),
        Some("escalate")
    );
    assert_eq!(named(&events(&out), "blocked").len(), 1);
}

#[test]
pub(crate) fn an_agent_that_records_its_own_iteration_gets_no_second_one() {
    let repo = project();
    let script = agent(
        &repo,
        "echo hello > hello.txt\ngoal iterate -m 'wrote hello.txt' >/dev/null\necho 'recorded it myself'",
    );
    let out = run(&repo, &script, &["--max-iterations", "1"]);
    assert_eq!(code(&out), 3, "{}", explain(&out));
    assert!(repo.goal_md().contains("iteration: 1"));
    // The agent's own iteration carries the run id and the agent too (GOAL_RUN_ID,
    // GOAL_RUN_AGENT).
    let run_id = named(&events(&out), "budget")[0]["run"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        repo.trailer("HEAD", "Goal-Run"),
        Some(format!("{run_id} agent=sh"))
    );
}

#[test]
pub(crate) fn the_prompt_is_on_stdin_in_goal_prompt_and_in_place_of_the_prompt_argument() {
    let repo = project();
    std::fs::create_dir_all(repo.path().join("sub")).unwrap();
    let s = state(&repo);
    let script = s.join("args.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nS='{}'\ncat > \"$S/stdin\"\nprintf '%s' \"$1\" > \"$S/arg\"\nprintf '%s' \"$GOAL_PROMPT\" > \"$S/env\"\necho \"$GOAL_RUN $GOAL_ITERATION $(pwd)\" > \"$S/where\"\n",
            s.display()
        ),
    )
    .unwrap();
    let out = repo
        .goal_in(&repo.path().join("sub"))
        .env("GOAL_TIME_SCALE", "0")
        .args(["run", "--max-iterations", "1", "--", "sh"])
        .arg(&script)
        .arg("{prompt}")
        .output()
        .unwrap();
    assert_eq!(code(&out), 3, "{}", explain(&out));
    let read = |f: &str| std::fs::read_to_string(s.join(f)).unwrap();
    let stdin = read("stdin");
    assert!(stdin.contains("Say hello"));
    assert_eq!(stdin.trim_end(), read("arg").trim_end());
    assert_eq!(stdin.trim_end(), read("env").trim_end());
    let root = std::fs::canonicalize(repo.path()).unwrap();
    assert_eq!(read("where").trim(), format!("1 1 {}", root.display()));
    // Plain lines without --json.
    assert!(String::from_utf8_lossy(&out.stdout).contains("goal run: turn 1"));
}

#[test]
pub(crate) fn one_ctrl_c_finishes_and_records_the_turn_then_exits_130() {
    let repo = project();
    let script = agent(
        &repo,
        "kill -INT $PPID\nsleep 0.3\necho hello > hello.txt\necho 'finished after Ctrl-C'",
    );
    let out = run(&repo, &script, &[]);
    assert_eq!(code(&out), 130, "{}", explain(&out));
    assert_eq!(calls(&repo), 1);
    assert!(repo.goal_md().contains("iteration: 1"));
    let subject = repo.git(&["log", "-1", "--format=%s"]);
    assert_eq!(
        subject.trim(),
        "goal: iteration 1: turn 1: finished after Ctrl-C"
    );
    assert_eq!(named(&events(&out), "interrupted").len(), 1);
}

#[test]
pub(crate) fn two_ctrl_c_stop_the_agent_at_once() {
    let repo = project();
    let script = agent(
        &repo,
        "sleep 60 & echo $! > \"$S/sleeper\"\nkill -INT $PPID\nsleep 0.2\nkill -INT $PPID\nsleep 60\necho never",
    );
    let started = std::time::Instant::now();
    let out = run(&repo, &script, &[]);
    assert_eq!(code(&out), 130, "{}", explain(&out));
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(repo.goal_md().contains("iteration: 0"), "nothing recorded");
    let sleeper = std::fs::read_to_string(state(&repo).join("sleeper")).unwrap();
    assert!(!alive(&sleeper));
}

#[test]
pub(crate) fn run_starts_the_goal_it_is_given_and_refuses_without_any() {
    let repo = Repo::new();
    let out = repo.goal().args(["run", "--", "true"]).output().unwrap();
    assert_eq!(code(&out), 1, "no active goal: {}", explain(&out));
    assert!(stderr(&out).contains("no active goal"));

    let out = repo.goal().args(["run"]).output().unwrap();
    assert_eq!(code(&out), 2, "no agent: {}", explain(&out));

    let s = repo.home().join("first.sh");
    std::fs::write(
        &s,
        format!(
            "#!/bin/sh\ncat > '{}/prompt'\necho ok\n",
            repo.home().display()
        ),
    )
    .unwrap();
    let out = repo
        .goal()
        .env("GOAL_TIME_SCALE", "0")
        .args([
            "run",
            "Write the greeting",
            "--max-iterations",
            "1",
            "--",
            "sh",
        ])
        .arg(&s)
        .output()
        .unwrap();
    assert_eq!(code(&out), 3, "{}", explain(&out));
    assert!(repo.goal_md().contains("goal: \"Write the greeting\""));
    let p = std::fs::read_to_string(repo.home().join("prompt")).unwrap();
    assert!(
        p.contains("goal criteria add \"<observable outcome>\" --verify \"<test command>\""),
        "{p}"
    );
}

#[test]
pub(crate) fn an_agent_that_never_reads_its_prompt_does_not_end_the_run() {
    // A prompt larger than a pipe's buffer and an agent that exits at once: writing the prompt
    // must meet the closed pipe.
    let repo = project();
    let mut md = repo.goal_md();
    let extra: String = (0..1500)
        .map(|n| format!("- [ ] padding criterion {n} says nothing much but takes room in the prompt (verify: `sh test.sh`)\n"))
        .collect();
    md = md.replace(
        "- [ ] hello.txt exists",
        &format!("{extra}- [ ] hello.txt exists"),
    );
    repo.write(".agents/goal/GOAL.md", &md);
    repo.git(&["commit", "-q", "--no-verify", "-am", "many criteria"]);
    for _ in 0..3 {
        let out = repo
            .goal()
            .env("GOAL_TIME_SCALE", "0")
            .args(["run", "--json", "--max-iterations", "1", "--", "true"])
            .timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap();
        assert_eq!(code(&out), 3, "{}", explain(&out));
        assert_eq!(named(&events(&out), "budget").len(), 1, "{}", explain(&out));
    }
}

#[test]
pub(crate) fn the_agent_output_is_kept_whole_and_the_summary_is_its_last_stdout_line() {
    let repo = project();
    let script = agent(
        &repo,
        "echo hello > hello.txt\nprintf 'noise on stderr that never ends its line' >&2\ngoal verify -c 1\necho 'AGENT-LAST-LINE'",
    );
    let out = run(&repo, &script, &["--max-iterations", "1"]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    let iterate = repo.git(&["log", "--format=%s", "--grep=turn 1"]);
    assert!(iterate.contains("turn 1: AGENT-LAST-LINE"), "{iterate}");
    let runs = repo.path().join(".git/goal/runs");
    let run_dir = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let log = std::fs::read_to_string(run_dir.join("turn-1.log")).unwrap();
    assert!(log.lines().any(|l| l == "AGENT-LAST-LINE"), "{log}");
}

#[test]
pub(crate) fn bad_budgets_and_timeouts_are_refused_before_anything_is_written() {
    let repo = project();
    let head = repo.head();
    for flags in [
        &["--idle-timeout", "0"][..],
        &["--turn-timeout", "0s"],
        &["--max-time", "0"],
        &["--max-iterations", "0"],
    ] {
        let out = repo
            .goal()
            .args(["run"])
            .args(flags)
            .args(["--", "true"])
            .output()
            .unwrap();
        assert_eq!(code(&out), 2, "{flags:?}: {}", explain(&out));
        assert_eq!(repo.head(), head, "{flags:?}");
    }
    // The same goal text with criteria it does not have is refused too.
    let out = repo
        .goal()
        .args([
            "run",
            "Say hello",
            "-c",
            "something else entirely",
            "--",
            "true",
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", explain(&out));
    assert!(
        stderr(&out).contains("does not add criteria"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.head(), head);
}
