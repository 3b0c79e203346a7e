//! Shared by the real-agent-CLI tests (tests/agent_*.rs): a scripted stand-in for a model API
//! (a Python server on loopback, a random free port), the project every run starts from, and the
//! rule for a CLI that is not installed (skipped, saying why on stderr, unless
//! GOAL_REQUIRE_AGENT_CLIS is set, as .ci/run sets it: then the test fails).

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::Repo;

/// The repository's folder for one CLI's test files (tests/fixtures/agents/<cli>/).
pub fn cli_dir(cli: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(cli)
}

/// `bin` when it exists; else None after saying why, or a panic when CI requires every CLI.
pub fn installed(cli: &str, bin: &Path, install: &str) -> Option<PathBuf> {
    if bin.exists() {
        return Some(bin.to_path_buf());
    }
    assert!(
        std::env::var_os("GOAL_REQUIRE_AGENT_CLIS").is_none(),
        "{cli} is not installed at {} ({install}); GOAL_REQUIRE_AGENT_CLIS is set, so this test may not skip",
        bin.display()
    );
    eprintln!(
        "skipped: {cli} is not installed at {} ({install})",
        bin.display()
    );
    None
}

/// A running stand-in API; killed when dropped.
pub struct StandIn {
    child: std::process::Child,
    pub port: String,
    pub log: PathBuf,
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl StandIn {
    /// Start `script` (a fake_api.py) answering each turn as `plan` says; its requests are
    /// logged beside the repository (outside the worktree).
    pub fn start(repo: &Repo, script: &Path, plan: &str, env: &[(&str, &str)]) -> StandIn {
        let log = repo.home().join("api.jsonl");
        let mut command = std::process::Command::new("python3");
        command
            .arg(script)
            .env("SCRIPT", plan)
            .env("LOG", &log)
            .stdout(std::process::Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().unwrap();
        let mut port = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        StandIn {
            child,
            port: port.trim().to_string(),
            log,
        }
    }

    /// Each request it answered, as logged (one JSON object each).
    pub fn requests(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The turns (agent processes) that reached it, by the turn numbers it logged.
    pub fn turns(&self) -> u64 {
        self.requests()
            .iter()
            .filter_map(|r| r["turn"].as_u64())
            .max()
            .unwrap_or(0)
    }
}

/// A repository whose goal has one criterion pinned to `sh test.sh`, which passes once
/// hello.txt exists.
pub fn project() -> Repo {
    let repo = Repo::new();
    repo.write(
        "test.sh",
        "#!/bin/sh\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    repo.git(&["add", "test.sh"]);
    repo.git(&["commit", "-q", "-m", "test"]);
    repo.ok(&[
        "init",
        "Say hello",
        "-c",
        "hello.txt exists and the test passes (verify: `sh test.sh`)",
    ]);
    repo
}

/// PATH with `dirs` first, then goal's own folder, then the caller's.
pub fn path_with(dirs: &[&Path]) -> String {
    let goal = Path::new(env!("CARGO_BIN_EXE_goal")).parent().unwrap();
    let mut all: Vec<PathBuf> = vec![goal.to_path_buf()];
    all.extend(dirs.iter().map(|d| d.to_path_buf()));
    all.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(all)
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The run completed on evidence with no retry: exit 0, one `done` event, the goal complete at
/// HEAD~1, the iteration at HEAD~2 recorded by goal run as `iteration 1: <summary>`, hello.txt
/// committed.
pub fn assert_completed(repo: &Repo, out: &Output, summary: &str) {
    assert_eq!(code(out), 0, "{}", explain(out));
    let ev = events(out);
    assert!(named(&ev, "retry").is_empty(), "{}", explain(out));
    assert_eq!(named(&ev, "done").len(), 1, "{}", explain(out));
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    let subject = repo.git(&["log", "-1", "--format=%s", "HEAD~2"]);
    assert_eq!(subject.trim(), format!("goal: iteration 1: {summary}"));
    assert_eq!(repo.git(&["show", "HEAD:hello.txt"]).trim(), "hello");
}

pub fn events(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}")))
        .collect()
}

pub fn named<'a>(events: &'a [serde_json::Value], name: &str) -> Vec<&'a serde_json::Value> {
    events.iter().filter(|e| e["event"] == name).collect()
}

pub fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// What a run printed, and the log of each of its turns.
pub fn explain(out: &Output) -> String {
    let mut text = format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
            && v["event"] == "turn_start"
            && let Some(log) = v["log"].as_str()
        {
            let turn = std::fs::read_to_string(log).unwrap_or_default();
            text.push_str(&format!("\n--- {log}\n{turn}"));
        }
    }
    text
}
