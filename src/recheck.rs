//! Goals still hold after a merge: find the goals completed in a range of history and run each
//! pinned command of theirs again on the current tree, in place, recording nothing.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use crate::audit::git_lines;
use crate::child::run_captured;
use crate::error::{Error, Result};
use crate::goal_file::GoalFile;
use crate::pin;
use crate::repo::{Oid, Repo};
use crate::summary;

/// At most this many lines of a broken command's output are kept.
const TAIL_LINES: usize = 20;

/// What a criterion pins: an acceptance test (`verify:`) or a guard (`guard:`).
pub use crate::pin::Kind as PinKind;

/// The pin of a criterion text, either kind: None when it has none; Err when it does not split.
pub fn pinned(text: &str) -> Option<(PinKind, std::result::Result<Vec<String>, String>)> {
    let located = pin::locate(text)?;
    let kind = located.kind;
    let command = located.command.trim();
    let argv = match shell_words::split(command) {
        Ok(argv) if !argv.is_empty() => Ok(argv),
        Ok(_) => Err("the pinned command is empty".to_string()),
        Err(e) => Err(format!(
            "the pinned command `{command}` does not split into words: {e}"
        )),
    };
    Some((kind, argv))
}

/// The verdict on one criterion of a finished goal, on the current tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecheckVerdict {
    /// Its pin passes here.
    Holds,
    /// Its pin fails here (non-zero exit, failed tests, or no test ran).
    Broken,
    /// Its pin could not be run here (missing program, a pin that does not parse).
    CannotRun,
    /// It has no pin: nothing says how to check it, so it is not run.
    Unpinned,
}

impl RecheckVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            RecheckVerdict::Holds => "holds",
            RecheckVerdict::Broken => "broken",
            RecheckVerdict::CannotRun => "cannot-run",
            RecheckVerdict::Unpinned => "unpinned",
        }
    }

    /// Whether this verdict lets recheck succeed (an unpinned criterion is listed, not judged).
    pub fn ok(self) -> bool {
        matches!(self, RecheckVerdict::Holds | RecheckVerdict::Unpinned)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct CriterionCheck {
    pub number: usize,
    pub text: String,
    pub verdict: RecheckVerdict,
    /// The last lines of the pin's output (and why, for cannot-run); empty when it holds.
    pub output_tail: Vec<String>,
    #[serde(skip)]
    pub kind: Option<PinKind>,
    #[serde(skip)]
    pub command: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GoalCheck {
    pub goal: String,
    /// The goal's `complete` commit.
    pub commit: String,
    pub criteria: Vec<CriterionCheck>,
}

impl GoalCheck {
    pub fn ok(&self) -> bool {
        self.criteria.iter().all(|c| c.verdict.ok())
    }
}

/// A completed goal found in history: its complete commit and the GOAL.md it committed.
pub struct Finished {
    pub commit: Oid,
    pub goal: GoalFile,
}

/// The goals whose `complete` commit lies in `range` (default: everything reachable from
/// HEAD), oldest first. Err (exit 2) for a range git does not understand or an unparseable
/// committed GOAL.md.
pub fn finished_goals(repo: &Repo, goal_rel: &Path, range: Option<&str>) -> Result<Vec<Finished>> {
    let spec = range.unwrap_or("HEAD");
    if spec.starts_with('-') || spec.trim().is_empty() {
        return Err(bad_range(spec));
    }
    if range.is_none() && repo.head_id()?.is_none() {
        return Ok(Vec::new());
    }
    let lines = git_lines(
        repo.root(),
        &[
            "log",
            "--reverse",
            "--topo-order",
            "--format=%H %(trailers:key=Goal-Action,valueonly,separator=%x2C)",
            spec,
            "--",
        ],
    )?
    .ok_or_else(|| bad_range(spec))?;
    let mut out = Vec::new();
    for line in lines {
        let Some((id, actions)) = line.split_once(' ') else {
            continue;
        };
        if !actions.split(',').any(|a| a.trim() == "complete") {
            continue;
        }
        let commit = Oid::from_str(id).map_err(Error::git("read a commit id"))?;
        let info = repo.commit_info(commit)?;
        let Some(bytes) = repo.file_in_tree(info.tree, goal_rel)? else {
            continue;
        };
        let goal = GoalFile::parse_bytes(&bytes).map_err(|e| {
            Error::usage(
                format!(
                    "{} in commit {} does not parse: {e}",
                    goal_rel.display(),
                    &id[..id.len().min(12)]
                ),
                "narrow the range to leave that commit out, e.g. `goal recheck <commit>..HEAD`",
            )
        })?;
        out.push(Finished { commit, goal });
    }
    Ok(out)
}

fn bad_range(range: &str) -> Error {
    Error::usage(
        format!("`{range}` is not a revision range of this repository"),
        "give a range git understands, e.g. `goal recheck origin/main..HEAD`, or `goal recheck --all`",
    )
}

/// The result of running one pinned command.
#[derive(Clone)]
struct Ran {
    verdict: RecheckVerdict,
    tail: Vec<String>,
}

/// Runs pinned commands in one folder, each distinct argv once.
pub struct Checker<'a> {
    root: &'a Path,
    ran: HashMap<Vec<String>, Ran>,
    /// Called before a command runs (to print it).
    pub before: Box<dyn FnMut(&str) + 'a>,
}

impl<'a> Checker<'a> {
    pub fn new(root: &'a Path) -> Checker<'a> {
        Checker {
            root,
            ran: HashMap::new(),
            before: Box::new(|_| {}),
        }
    }

    /// Check every criterion of a finished goal.
    pub fn check(&mut self, finished: &Finished) -> Result<GoalCheck> {
        let mut criteria = Vec::new();
        for c in &finished.goal.criteria {
            let text = pin::base(&c.text).to_string();
            let (verdict, tail, kind, command) = match pinned(&c.text) {
                None => (RecheckVerdict::Unpinned, Vec::new(), None, None),
                Some((kind, Err(why))) => (RecheckVerdict::CannotRun, vec![why], Some(kind), None),
                Some((kind, Ok(argv))) => {
                    let ran = self.run(&argv)?;
                    (ran.verdict, ran.tail, Some(kind), Some(pin::render(&argv)))
                }
            };
            criteria.push(CriterionCheck {
                number: c.number,
                text,
                verdict,
                output_tail: tail,
                kind,
                command,
            });
        }
        Ok(GoalCheck {
            goal: finished.goal.goal.clone(),
            commit: finished.commit.to_string(),
            criteria,
        })
    }

    fn run(&mut self, argv: &[String]) -> Result<Ran> {
        if let Some(ran) = self.ran.get(argv) {
            return Ok(ran.clone());
        }
        let ran = if let Some(why) = pin::self_grading(argv) {
            Ran {
                verdict: RecheckVerdict::CannotRun,
                tail: vec![format!("not evidence: {why}")],
            }
        } else {
            (self.before)(&pin::render(argv));
            match run_captured(argv, self.root) {
                // A run cut off at a bound neither holds nor fails: it says nothing (the end of
                // its output says why).
                Ok((_, output)) if crate::child::take_cut_off().is_some() => Ran {
                    verdict: RecheckVerdict::CannotRun,
                    tail: judge(argv, 1, &String::from_utf8_lossy(&output)).tail,
                },
                Ok((code, output)) => judge(argv, code, &String::from_utf8_lossy(&output)),
                Err(Error::Spawn { program, source }) => Ran {
                    verdict: RecheckVerdict::CannotRun,
                    tail: vec![format!("cannot run `{program}`: {source}")],
                },
                Err(e) => return Err(e),
            }
        };
        self.ran.insert(argv.to_vec(), ran.clone());
        Ok(ran)
    }
}

/// Holds when the command exits 0 and, where a test summary is recognised, no test failed and
/// at least one ran; a shell's "command not found" (126, 127) cannot run. Pure.
fn judge(argv: &[String], code: i32, output: &str) -> Ran {
    let lines: Vec<&str> = output.lines().collect();
    let tail: Vec<String> = lines[lines.len().saturating_sub(TAIL_LINES)..]
        .iter()
        .map(|l| l.to_string())
        .collect();
    let tests = summary::recognise_run(argv, output);
    let verdict = match (code, tests) {
        (126 | 127, _) => RecheckVerdict::CannotRun,
        (0, None) => RecheckVerdict::Holds,
        (0, Some(t)) if t.failed == 0 && t.passed >= 1 => RecheckVerdict::Holds,
        _ => RecheckVerdict::Broken,
    };
    Ran {
        tail: if verdict == RecheckVerdict::Holds {
            Vec::new()
        } else {
            tail
        },
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judging_a_run() {
        let cases: &[(i32, &str, RecheckVerdict)] = &[
            (0, "3 passed, 0 failed\n", RecheckVerdict::Holds),
            (0, "lint clean\n", RecheckVerdict::Holds),
            (1, "2 passed, 1 failed\n", RecheckVerdict::Broken),
            (0, "0 passed, 0 failed\n", RecheckVerdict::Broken),
            (
                0,
                "running 0 tests\ntest result: ok. 0 passed; 0 failed; 0 ignored\n",
                RecheckVerdict::Broken,
            ),
            (2, "boom\n", RecheckVerdict::Broken),
            (127, "sh: foo: not found\n", RecheckVerdict::CannotRun),
        ];
        for (code, output, want) in cases {
            assert_eq!(
                judge(&[], *code, output).verdict,
                *want,
                "{code} {output:?}"
            );
        }
        assert!(judge(&[], 0, "1 passed, 0 failed").tail.is_empty());
        assert_eq!(judge(&[], 1, "a\nb\n").tail, vec!["a", "b"]);
    }

    #[test]
    fn both_pin_kinds() {
        let cases: &[(&str, Option<PinKind>, &str)] = &[
            ("a (verify: `cargo test a`)", Some(PinKind::Acceptance), "a"),
            ("b (guard: `cargo clippy`)", Some(PinKind::Guard), "b"),
            ("c （guard: `make lint`）", Some(PinKind::Guard), "c"),
            ("d, no pin", None, "d, no pin"),
        ];
        for (text, kind, base) in cases {
            assert_eq!(pinned(text).map(|p| p.0), *kind, "{text}");
            assert_eq!(pin::base(text), *base, "{text}");
        }
        assert_eq!(
            pinned("x (guard: `make lint -j2`)").unwrap().1,
            Ok(vec!["make".into(), "lint".into(), "-j2".into()])
        );
        assert!(pinned("x (verify: `sh 'a`)").unwrap().1.is_err());
    }
}
