//! Replaying evidence: check a commit out in a temporary worktree, run a record's command there
//! (argv, no shell, in its folder), and read the result. The worktree is removed whatever
//! happens: the run succeeds, fails, or is stopped by Ctrl-C.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::RunOutcome;
use crate::child;
use crate::error::{Error, Result};
use crate::pin;
use crate::repo::Oid;
use crate::repo::TempWorktree;
use crate::summary;

/// What a replay gave: an outcome, or (Err) why the command could not run, which the audit
/// shows as `cannot run` and goes on.
pub type RunResult = std::result::Result<RunOutcome, String>;

/// Runs records' commands at commits, each distinct (commit, argv, folder) once.
pub struct Replayer {
    repo_root: PathBuf,
    /// Where each run's whole output is kept (only its tail is shown).
    log_dir: PathBuf,
    done: HashMap<(Option<Oid>, Vec<String>, String), RunResult>,
}

impl Replayer {
    pub fn new(repo_root: &Path, log_dir: &Path) -> Replayer {
        Replayer {
            repo_root: repo_root.to_path_buf(),
            log_dir: log_dir.to_path_buf(),
            done: HashMap::new(),
        }
    }

    /// Run `argv` in `cwd` of `commit`'s tree (None: the empty tree of an unborn start, where
    /// nothing can run). `why` says in the printed line what the run is for.
    pub fn run(
        &mut self,
        commit: Option<Oid>,
        argv: &[String],
        cwd: &str,
        junit: &[String],
        why: &str,
    ) -> Result<RunResult> {
        let key = (commit, argv.to_vec(), cwd.to_string());
        if let Some(result) = self.done.get(&key) {
            return Ok(result.clone());
        }
        let result = match commit {
            None => Err("the goal started on an unborn branch: its base tree is empty".into()),
            Some(commit) => self.run_at(commit, argv, cwd, junit, why)?,
        };
        self.done.insert(key, result.clone());
        Ok(result)
    }

    fn run_at(
        &self,
        commit: Oid,
        argv: &[String],
        cwd: &str,
        junit: &[String],
        why: &str,
    ) -> Result<RunResult> {
        let worktree = TempWorktree::of_commit(&self.repo_root, "goal-audit-", commit)?;
        let dir = worktree.path.join(cwd);
        let place = if cwd.is_empty() {
            String::new()
        } else {
            format!(" in {cwd}")
        };
        // Replay is code execution: say what runs before it runs.
        crate::context::warn_line(format!(
            "goal: running `{}`{place} at commit {} ({why})",
            pin::render(argv),
            crate::repo::short_id(&commit.to_string())
        ));
        if !dir.is_dir() {
            return Ok(Err(format!(
                "the folder {cwd} does not exist at that commit"
            )));
        }
        let started = std::time::SystemTime::now();
        let result = match child::run_captured(argv, &dir) {
            // A replay cut off at a bound is no result either way.
            Ok((_, output)) if let Some(cut) = child::take_cut_off() => {
                self.show_tail(commit, &output);
                Err(format!("`{}` was {}", pin::render(argv), cut.describe()))
            }
            // Read as `goal verify` read it: the JUnit reports, when the record names them.
            Ok((exit_code, output)) => {
                self.show_tail(commit, &output);
                Ok(RunOutcome {
                    exit_code,
                    tests: if junit.is_empty() {
                        summary::recognise_run(argv, &String::from_utf8_lossy(&output))
                    } else {
                        Some(
                            crate::surface::junit_reports::read(junit, &dir, started)
                                .map(|(counts, _)| counts)
                                .unwrap_or_default(),
                        )
                    },
                })
            }
            Err(e @ Error::Interrupted { .. }) => return Err(e),
            Err(Error::Spawn { program, source }) => {
                Err(format!("cannot run `{program}`: {source}"))
            }
            Err(e) => return Err(e),
        };
        drop(worktree);
        Ok(result)
    }

    /// The last lines of a run's output on stderr, and where the whole of it is kept: a base
    /// run is meant to fail, and its whole failure output would bury the audit.
    pub fn show_tail(&self, commit: Oid, output: &[u8]) {
        const TAIL: usize = 10;
        let text = String::from_utf8_lossy(output);
        let lines: Vec<&str> = text.lines().collect();
        let log = self.log_dir.join(format!(
            "{}-{}.log",
            crate::repo::short_id(&commit.to_string()),
            crate::evidence::sha256_hex(output)
                .get(..8)
                .unwrap_or_default()
        ));
        let kept = std::fs::create_dir_all(&self.log_dir)
            .and_then(|()| std::fs::write(&log, output))
            .is_ok();
        let skipped = lines.len().saturating_sub(TAIL);
        if skipped > 0 {
            crate::context::warn_line(format!("  … {skipped} line(s) before these"));
        }
        for line in &lines[skipped..] {
            crate::context::warn_line(format!("  {line}"));
        }
        if kept {
            crate::context::warn_line(format!("  (whole output: {})", log.display()));
        }
    }
}
