//! Support for the tests that drive a real agent CLI through `goal run --agent <cli>`: the CLI is
//! installed at a pinned version in `tests/fixtures/agents/<cli>/` (by `.ci/run`, cached), and answers come from
//! `tests/fixtures/agents/<cli>/fake_api.py`, a scripted stand-in for its model API on a random loopback port.
//! A test is skipped (saying why on stderr) only when the CLI is not installed and
//! GOAL_REQUIRE_AGENT_CLIS is unset; `.ci/run` sets it, so CI never skips.

use std::path::{Path, PathBuf};

/// `tests/fixtures/agents/<cli>` when `tests/fixtures/agents/<cli>/node_modules/.bin/<bin>` is installed; None (a skip) otherwise.
pub(crate) fn installed(cli: &str, bin: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(cli);
    if dir.join("node_modules/.bin").join(bin).exists() {
        return Some(dir);
    }
    let how = format!("cd tests/fixtures/agents/{cli} && npm ci");
    assert!(
        std::env::var_os("GOAL_REQUIRE_AGENT_CLIS").is_none(),
        "{bin} is not installed ({how}) and GOAL_REQUIRE_AGENT_CLIS is set"
    );
    eprintln!(
        "skipped: {bin} is not installed ({how}; GOAL_REQUIRE_AGENT_CLIS=1 makes this a failure)"
    );
    None
}

/// PATH for `goal run`: the goal binary under test first, then the CLI's `node_modules/.bin`.
pub(crate) fn path_with(dir: &Path) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_goal"))
        .parent()
        .unwrap()
        .display()
        .to_string();
    format!(
        "{bin}:{}:{}",
        dir.join("node_modules/.bin").display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The full output of turn `n` of the repository's only `goal run`.
pub(crate) fn turn_log(repo: &crate::common::Repo, n: u32) -> String {
    let runs = repo.path().join(".git/goal/runs");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::read_to_string(run.join(format!("turn-{n}.log"))).unwrap()
}

/// What the preset's usage reader makes of turn `n`'s output.
pub(crate) fn turn_usage(repo: &crate::common::Repo, preset: &str, n: u32) -> goal::usage::Usage {
    (goal::runner::presets::preset(preset).unwrap().usage)(&turn_log(repo, n))
}

/// A running stand-in API, killed when dropped.
pub(crate) struct StandIn {
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
    /// `python3 <dir>/fake_api.py` with SCRIPT, LOG (in `state`) and `env`; waits for its port.
    pub(crate) fn start(dir: &Path, state: &Path, script: &str, env: &[(&str, &str)]) -> StandIn {
        use std::io::BufRead;
        let log = state.join("api.jsonl");
        let mut child = std::process::Command::new("python3")
            .arg(dir.join("fake_api.py"))
            .env("SCRIPT", script)
            .env("LOG", &log)
            .env("WORK_COMMAND", "echo hello > hello.txt && goal verify -c 1")
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
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

    /// Every request the stand-in logged, in order.
    pub(crate) fn requests(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

#[test]
fn the_start_event_and_help_say_which_presets_are_verified() {
    let repo = crate::run::project();
    let bin = Path::new(env!("CARGO_BIN_EXE_goal")).parent().unwrap();
    // (preset, verified, its version): no agent binary on this PATH, so each run stops at its
    // first turn (exit 2), after the start event.
    let cases = [
        ("cursor", false, serde_json::Value::Null),
        ("codex", true, serde_json::json!("0.169.0")),
        ("gemini", true, serde_json::json!("0.61.0")),
        ("qwen", true, serde_json::json!("0.24.4")),
    ];
    for (preset, verified, version) in cases {
        let out = repo
            .goal()
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("GOAL_TIME_SCALE", "0")
            .args(["run", "--json", "--agent", preset])
            .output()
            .unwrap();
        assert_eq!(crate::run::code(&out), 2, "{}", crate::run::explain(&out));
        let ev = crate::run::events(&out);
        let start = crate::run::named(&ev, "start");
        assert_eq!(start.len(), 1, "{ev:?}");
        assert_eq!(start[0]["agent"], preset);
        assert_eq!(start[0]["verified"], verified, "{preset}");
        assert_eq!(start[0]["verified_version"], version, "{preset}");
    }
    let out = repo.goal().args(["run", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(help.contains("cursor is unverified"), "{help}");
    let out = repo
        .goal()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .args(["run", "--agent", "cursor"])
        .output()
        .unwrap();
    let said = crate::common::stdout(&out);
    assert!(said.contains("with cursor (unverified)"), "{said}");
}
