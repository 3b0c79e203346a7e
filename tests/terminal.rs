//! A good citizen of the terminal: closed pipes, signals, abandon phrases aimed at the goal,
//! `goal restore`, phases with a goal text, completions and man page, the continuation language,
//! and words a user knows.

use std::io::Read;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::support::Repo;

const EVIDENCE: &str = ".agents/goal/evidence.jsonl";

/// Wait for `child` at most `limit`; panics (after killing it) when it is still running.
fn wait_bounded(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("goal still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Poll until `ready` holds, at most 10 s.
fn poll(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

// ---------------------------------------------------------------------------------------------
// Pipes

/// Run `goal ARGS` with its stdout a pipe whose reading end is closed at once.
fn with_closed_stdout(repo: &Repo, args: &[&str]) -> (ExitStatus, String) {
    let mut child = repo
        .goal_std()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (wait_bounded(&mut child, Duration::from_secs(60)), err)
}

#[test]
fn a_closed_stdout_never_panics() {
    let repo = Repo::new();
    repo.init_goal(&["tests/parser.rs passes"]);
    repo.ok(&["iterate", "-m", "implemented the parser"]);
    let demo = tempfile::TempDir::new().unwrap();
    let demo_dir = demo.path().join("demo");
    let demo_dir = demo_dir.to_str().unwrap();
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["log"],
        &["log", "--json"],
        &["config"],
        &["inject"],
        &["continuation"],
        &["demo", "--dir", demo_dir],
        &["--help"],
        &["help", "init"],
        &["init", "--help"],
    ] {
        let (status, err) = with_closed_stdout(&repo, args);
        assert_ne!(status.code(), Some(101), "goal {args:?}: {err}");
        assert!(!err.contains("panicked"), "goal {args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "goal {args:?}: {err}");
    }
}

#[test]
fn a_commit_made_before_the_pipe_closed_stays_made() {
    let repo = Repo::new();
    repo.init_goal(&["tests/parser.rs passes"]);
    let before = repo.commit_count();
    let (status, err) = with_closed_stdout(&repo, &["iterate", "-m", "implemented the parser"]);
    assert_ne!(status.code(), Some(101), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(
        repo.trailer("HEAD", "Goal-Action").as_deref(),
        Some("iterate")
    );
    assert!(repo.goal_md().contains("implemented the parser"));
}

// ---------------------------------------------------------------------------------------------
// Signals

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
