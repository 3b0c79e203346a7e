//! Signals: SIGINT and SIGTERM during `goal verify` and `goal done` stop every process the
//! command started, their whole process groups and trees, and record nothing half-made.

use std::io::Read;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::common::{EVIDENCE, GOAL, Repo};
use crate::terminal::{poll, wait_bounded};

/// Whether process `pid` still runs (a zombie waiting for its reaper does not).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the command name in parentheses: "pid (comm) S …".
            let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            !state.is_some_and(|s| s.starts_with('Z') || s.starts_with('X'))
        }
        Err(_) => false,
    }
}

fn pids(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn send(pid: u32, signal: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(pid as i32).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

/// Start `goal verify -c 1 -- sh -c SCRIPT` (SCRIPT writes its pids to `pids`), wait until
/// `expect` pids are written, send `signal` to goal, and return goal's exit status, the time it
/// took to exit and the pids.
fn interrupt_verify(
    repo: &Repo,
    script: &str,
    expect: usize,
    signal: rustix::process::Signal,
    grace: &str,
) -> (ExitStatus, Duration, Vec<u32>, String) {
    let pid_file = repo.path().join("pids");
    let mut child = repo
        .goal_std()
        .args(["verify", "-c", "1", "--", "sh", "-c", script])
        .env("GOAL_SIGNAL_GRACE", grace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    poll("the test command's pids", || {
        pids(&pid_file).len() >= expect
    });
    let sent = Instant::now();
    send(child.id(), signal);
    let status = wait_bounded(&mut child, Duration::from_secs(10));
    let took = sent.elapsed();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let pids = pids(&pid_file);
    // Killed processes are gone at once; give their reaper a moment to collect them.
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    (status, took, pids, err)
}

fn signal_repo() -> Repo {
    let repo = Repo::new();
    repo.write(".gitignore", "pids\n");
    repo.init_goal(&["tests/parser.rs passes"]);
    repo
}

#[test]
fn sigint_during_verify_stops_the_whole_process_group_and_records_nothing() {
    let repo = signal_repo();
    // A background process of a non-interactive shell ignores SIGINT: only the kill after the
    // grace period stops it.
    let (status, took, pids, err) = interrupt_verify(
        &repo,
        "echo $$ > pids; sleep 300 & echo $! >> pids; sleep 300; wait",
        2,
        rustix::process::Signal::INT,
        "0.3",
    );
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    assert!(took < Duration::from_millis(2500), "took {took:?}");
    assert_eq!(pids.len(), 2);
    for pid in pids {
        assert!(!alive(pid), "process {pid} of the test command survived");
    }
    assert!(!repo.exists(EVIDENCE), "no evidence is written");
    assert!(!repo.goal_md().contains("[x]"));
}

/// The pin of the done test below: passes where code.txt says fixed, fails where not; in a kept
/// worktree of goal's (its path holds `/checkouts/`), the clean run, the base run and the old
/// exam (fixed code, or the base's version of this script) write their pids and hang; the red
/// run (the base's code, this final version) does not.
const HANGING_PIN: &str = r#"#!/bin/sh
case "$PWD" in
*/checkouts/*)
    if grep -q fixed code.txt || ! grep -q "the goal's" tests/check.sh; then
        echo $$ >> "$SIGNAL_PIDS"
        sleep 300 &
        echo $! >> "$SIGNAL_PIDS"
        wait
    fi
    ;;
esac
if grep -q fixed code.txt; then
    echo "1 passed, 0 failed"
    exit 0
fi
echo "0 passed, 1 failed"
exit 1
"#;

#[test]
fn sigint_during_done_stops_the_clean_run_and_the_exam_beside_it() {
    let repo = Repo::new();
    repo.write(".gitignore", "pids\n");
    repo.write("code.txt", "buggy\n");
    repo.write("tests/check.sh", HANGING_PIN);
    crate::common::commit_all(&repo, "base");
    repo.init_goal(&["the thing works (verify: `sh tests/check.sh`)"]);
    repo.write("code.txt", "fixed\n");
    repo.write("tests/check.sh", &format!("{HANGING_PIN}# the goal's\n"));
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "the fix"]);
    let pid_file = repo.path().join("pids");
    let mut child = repo
        .goal_std()
        .arg("done")
        .env("SIGNAL_PIDS", &pid_file)
        .env("GOAL_SIGNAL_GRACE", "0.3")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Two cores or more: the clean run and the base run hang at once (two pids each).
    let at_once = std::thread::available_parallelism().map_or(1, |c| c.get()) >= 2;
    let expect = if at_once { 4 } else { 2 };
    poll("the runs' pids", || pids(&pid_file).len() >= expect);
    send(child.id(), rustix::process::Signal::INT);
    let status = wait_bounded(&mut child, Duration::from_secs(10));
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    if at_once {
        assert!(err.contains("beside the clean run"), "{err}");
    }
    let pids = pids(&pid_file);
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    for pid in pids {
        assert!(!alive(pid), "process {pid} of a run survived");
    }
    assert!(repo.exists(GOAL), "the goal is still open");
}

#[test]
fn sigterm_during_verify_exits_143() {
    let repo = signal_repo();
    let (status, _, pids, err) = interrupt_verify(
        &repo,
        "echo $$ > pids; sleep 300",
        1,
        rustix::process::Signal::TERM,
        "0.3",
    );
    assert_eq!(status.code(), Some(143), "{err}");
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
    assert!(pids.iter().all(|&p| !alive(p)));
    assert!(!repo.exists(EVIDENCE));
}

#[test]
fn a_child_that_ignores_sigint_is_killed_after_the_grace_period() {
    let repo = signal_repo();
    let (status, took, pids, err) = interrupt_verify(
        &repo,
        "trap '' INT; echo $$ > pids; while :; do sleep 0.05; done",
        1,
        rustix::process::Signal::INT,
        "0.2",
    );
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(took >= Duration::from_millis(200), "took {took:?}");
    assert!(took < Duration::from_millis(2500), "took {took:?}");
    assert!(pids.iter().all(|&p| !alive(p)));
    assert!(!repo.exists(EVIDENCE));
}

#[test]
fn a_command_that_ends_by_itself_is_not_waited_for_longer() {
    let repo = signal_repo();
    repo.test_script("t.sh", 2, 0);
    let start = Instant::now();
    repo.ok(&["verify", "-c", "1", "--", "sh", "t.sh"]);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(repo.read(EVIDENCE).contains("\"exit_code\":0"));
}

/// A test command that ends by itself but leaves a background job behind: `goal verify` returns
/// with the command's own result, and nothing of its process group survives — whether the job
/// holds the output pipe open (it used to hang `goal` until the job ended), has let go of it (it
/// used to live on), or ignores SIGTERM (killed once the grace period runs out).
#[test]
fn a_command_that_ends_leaves_nothing_of_its_process_group_behind() {
    for (job, grace) in [
        ("sleep 300 &", "3"),
        ("sleep 300 >/dev/null 2>&1 &", "3"),
        ("(trap '' TERM; exec sleep 300) >/dev/null 2>&1 &", "0.2"),
    ] {
        let repo = signal_repo();
        let pid_file = repo.path().join("pids");
        // The summary is made by the script, not written in it (a line the command carries
        // word for word is no test's result).
        let script = format!("{job} echo $! > pids; printf '==== %d passed in 0.01s ====\\n' 1");
        let start = Instant::now();
        let out = repo
            .goal()
            .args(["verify", "-c", "1", "--", "sh", "-c", &script])
            .env("GOAL_SIGNAL_GRACE", grace)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let took = start.elapsed();
        assert_eq!(out.status.code(), Some(0), "{job}: {out:?}");
        assert!(took < Duration::from_secs(10), "{job}: took {took:?}");
        let pids = pids(&pid_file);
        assert_eq!(pids.len(), 1, "{job}");
        assert!(
            !alive(pids[0]),
            "{job}: the background job {} survived",
            pids[0]
        );
        assert!(repo.read(EVIDENCE).contains("\"exit_code\":0"), "{job}");
    }
}
