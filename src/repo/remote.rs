//! Talking to a remote through the git CLI (git's own transports, credentials and configuration),
//! never prompting: `GIT_TERMINAL_PROMPT=0`, ssh in batch mode, no standard input, a time limit:
//! the fleet's fetch, and the pushes and reads of a race across machines (`goal run --claim`).

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
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so that a timeout stops its ssh or helper too.
        .process_group(0);
    if std::env::var_os("GIT_SSH_COMMAND").is_none() {
        command.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    }
    command
}

/// What a bounded git run gave: whether it succeeded, its stdout, and its stderr's last line (or
/// why it was cut short).
struct Answer {
    ok: bool,
    stdout: String,
    why: String,
}

/// Read a pipe to its end on a thread (a git that prints much would block on a full pipe).
fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_string(&mut text);
        }
        text
    })
}

/// Run `command` for at most `limit` (then it is killed, its process group too).
fn run_for(mut command: Command, limit: Duration) -> Result<Answer> {
    let mut child = command.spawn().map_err(|source| Error::Spawn {
        program: "git".into(),
        source,
    })?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|source| Error::Spawn {
            program: "git".into(),
            source,
        })? {
            break Some(status);
        }
        if start.elapsed() >= limit {
            if let Some(group) = rustix::process::Pid::from_raw(child.id() as i32) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let Some(status) = status else {
        return Ok(Answer {
            ok: false,
            stdout,
            why: format!(
                "no answer within {} s (GOAL_FETCH_TIMEOUT)",
                limit.as_secs_f64()
            ),
        });
    };
    let why = stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("git failed")
        .to_string();
    Ok(Answer {
        ok: status.success(),
        stdout,
        why,
    })
}

/// How a push ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pushed {
    /// Every ref was updated.
    Done,
    /// The remote answered and refused a ref (with `--atomic`, all of them): git's porcelain line.
    Refused(String),
    /// The remote could not be reached, or did not answer in time: why.
    Unreachable(String),
}

/// A push's answer read from `git push --porcelain`: a ref line starting with `!` is a refusal
/// (the remote answered); a failure without one is the network's. Pure.
pub fn push_answer(ok: bool, porcelain: &str, why: &str) -> Pushed {
    let refused: Vec<&str> = porcelain.lines().filter(|l| l.starts_with('!')).collect();
    // With --atomic every ref is refused; the one refused for itself says why.
    if let Some(line) = refused
        .iter()
        .find(|l| !l.contains("atomic push failed"))
        .or(refused.first())
    {
        return Pushed::Refused(line.trim_start_matches('!').trim().to_string());
    }
    if ok {
        Pushed::Done
    } else {
        Pushed::Unreachable(why.to_string())
    }
}

/// The refs `git ls-remote` lists, as (ref name, commit id text). Pure.
pub fn ls_remote_refs(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let (id, name) = l.split_once('\t')?;
            Some((name.trim().to_string(), id.trim().to_string()))
        })
        .collect()
}

/// The refs of `remote` of the repository at `root` (`git ls-remote`), for a thread that holds
/// no [`Repo`]; Ok(Err(why)) when it could not be reached.
pub fn remote_refs_at(
    root: &Path,
    remote: &str,
) -> Result<std::result::Result<Vec<(String, String)>, String>> {
    let answer = run_for(batch_git(root, &["ls-remote", remote]), fetch_timeout())?;
    Ok(if answer.ok {
        Ok(ls_remote_refs(&answer.stdout))
    } else {
        Err(answer.why)
    })
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
        let answer = run_for(command, fetch_timeout())?;
        Ok(if answer.ok { Ok(()) } else { Err(answer.why) })
    }

    /// `git push --porcelain <remote> <refspec>…`, never prompting, bounded in time. With
    /// `atomic`, every ref or none (`--atomic`); `absent` names refs that must not exist on the
    /// remote yet (each `--force-with-lease=<ref>:`, the expected value empty).
    pub fn push(
        &self,
        remote: &str,
        refspecs: &[String],
        atomic: bool,
        absent: &[String],
    ) -> Result<Pushed> {
        let mut args: Vec<String> = vec!["push".into(), "--porcelain".into()];
        if atomic {
            args.push("--atomic".into());
        }
        args.extend(absent.iter().map(|r| format!("--force-with-lease={r}:")));
        args.push(remote.to_string());
        args.extend(refspecs.iter().cloned());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let answer = run_for(batch_git(self.root(), &args), fetch_timeout())?;
        Ok(push_answer(answer.ok, &answer.stdout, &answer.why))
    }

    /// The refs of `remote` as `git ls-remote` lists them (name, commit id text); Ok(Err(why))
    /// when it could not be reached.
    pub fn remote_refs(
        &self,
        remote: &str,
    ) -> Result<std::result::Result<Vec<(String, String)>, String>> {
        remote_refs_at(self.root(), remote)
    }

    /// `git fetch <remote> +<ref>:<ref>`: one ref of the remote into the same name here (a race's
    /// claim); Ok(Err(why)) when it could not be fetched.
    pub fn fetch_ref(&self, remote: &str, name: &str) -> Result<std::result::Result<(), String>> {
        let spec = format!("+{name}:{name}");
        let command = batch_git(
            self.root(),
            &["fetch", "--quiet", "--no-tags", remote, &spec],
        );
        let answer = run_for(command, fetch_timeout())?;
        Ok(if answer.ok { Ok(()) } else { Err(answer.why) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_is_done_refused_or_unreachable_by_its_porcelain() {
        let cases: &[(bool, &str, Pushed)] = &[
            (
                true,
                "To git://h/o.git\n=\trefs/heads/a:refs/heads/a\t[up to date]\nDone\n",
                Pushed::Done,
            ),
            (
                false,
                "To git://h/o.git\n!\trefs/heads/a:refs/heads/a\t[rejected] (atomic push failed)\n!\trefs/heads/a:refs/goal/won/x\t[rejected] (stale info)\nDone\n",
                Pushed::Refused("refs/heads/a:refs/goal/won/x\t[rejected] (stale info)".into()),
            ),
            (
                false,
                "To git://h/o.git\n!\trefs/heads/a:refs/goal/won/x\t[remote rejected] (failed to lock)\n",
                Pushed::Refused(
                    "refs/heads/a:refs/goal/won/x\t[remote rejected] (failed to lock)".into(),
                ),
            ),
            (
                false,
                "",
                Pushed::Unreachable("fatal: unable to connect".into()),
            ),
        ];
        for (ok, porcelain, want) in cases {
            assert_eq!(
                &push_answer(*ok, porcelain, "fatal: unable to connect"),
                want,
                "{porcelain}"
            );
        }
    }

    #[test]
    fn ls_remote_lines_are_refs_and_ids() {
        assert_eq!(
            ls_remote_refs("abc\tHEAD\ndef\trefs/goal/won/r1\n"),
            vec![
                ("HEAD".to_string(), "abc".to_string()),
                ("refs/goal/won/r1".to_string(), "def".to_string())
            ]
        );
    }
}
