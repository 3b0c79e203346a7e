//! Talking to a remote through the git CLI (git's own transports, credentials and configuration),
//! never prompting: `GIT_TERMINAL_PROMPT=0`, ssh in batch mode, no standard input, a time limit.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Repo;
use crate::error::{Error, Result};

/// How long a fetch may take (`GOAL_FETCH_TIMEOUT` seconds, default 60).
pub fn fetch_timeout() -> Duration {
    let seconds = std::env::var("GOAL_FETCH_TIMEOUT")
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .unwrap_or(60.0);
    Duration::from_secs_f64(seconds)
}

/// git with nothing that could wait for a person: no terminal prompt, ssh in batch mode (unless
/// the user set their own `GIT_SSH_COMMAND`), no credential-manager dialog, stdin closed.
fn batch_git(root: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(root)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GCM_INTERACTIVE", "never")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // Its own process group, so that a timeout stops its ssh or helper too.
        .process_group(0);
    if std::env::var_os("GIT_SSH_COMMAND").is_none() {
        command.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    }
    command
}

/// Run `command` for at most `limit`: Ok(Ok(())) when it succeeded, Ok(Err(why)) when it failed or
/// ran out of time (then it is killed).
fn run_for(mut command: Command, limit: Duration) -> Result<std::result::Result<(), String>> {
    let mut child = command.spawn().map_err(|source| Error::Spawn {
        program: "git".into(),
        source,
    })?;
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|source| Error::Spawn {
            program: "git".into(),
            source,
        })? {
            break status;
        }
        if start.elapsed() >= limit {
            if let Some(group) = rustix::process::Pid::from_raw(child.id() as i32) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Err(format!(
                "no answer within {} s (GOAL_FETCH_TIMEOUT)",
                limit.as_secs_f64()
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if status.success() {
        return Ok(Ok(()));
    }
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        use std::io::Read;
        let _ = pipe.read_to_string(&mut stderr);
    }
    let last = stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("git fetch failed")
        .to_string();
    Ok(Err(last))
}

impl Repo {
    /// Whether a remote of that name is configured.
    pub fn has_remote(&self, name: &str) -> bool {
        self.inner.find_remote(name).is_ok()
    }

    /// `git fetch <remote>` into its remote-tracking refs, never prompting and bounded in time:
    /// Ok(Err(why)) when the remote could not be reached (the refs stay as last fetched).
    pub fn fetch(&self, remote: &str) -> Result<std::result::Result<(), String>> {
        let command = batch_git(self.root(), &["fetch", "--quiet", "--prune", remote]);
        run_for(command, fetch_timeout())
    }
}
