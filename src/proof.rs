//! One truth for "proven": each criterion's state (proven, stale, failing, open) on a tree, and
//! the command that would prove it again. Status, inject, the adapters, the Stop hook, iterate
//! and done all read it, so they cannot disagree. Pure.

use serde::Serialize;

use crate::evidence::{Judgement, Ledger};
use crate::goal_file::GoalFile;
use crate::pin;
use crate::surface::judge::{Red, RedState};

/// What the evidence says of one criterion on the current tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProofState {
    /// The latest witnessed record naming it on this tree passes.
    Proven,
    /// Passing evidence exists, but on another tree (the code changed since).
    Stale,
    /// The latest record naming it on this tree fails.
    Failing,
    /// No evidence proves it.
    Open,
    /// Its passing evidence stands, but its last red run passed too: its tests do not test the
    /// change, and `goal done` refuses it.
    #[serde(rename = "passes-on-base")]
    PassesOnBase,
}

impl ProofState {
    pub fn as_str(self) -> &'static str {
        match self {
            ProofState::Proven => "proven",
            ProofState::Stale => "stale",
            ProofState::Failing => "failing",
            ProofState::Open => "open",
            ProofState::PassesOnBase => "passes-on-base",
        }
    }
}

/// One criterion, ticked and proven side by side.
#[derive(Debug, Clone, Serialize)]
pub struct CriterionProof {
    pub number: usize,
    /// Its box is `[x]` in GOAL.md.
    pub ticked: bool,
    pub state: ProofState,
    /// The id of the record that proves it (state proven), else None.
    pub evidence: Option<String>,
    /// The command that would prove it again (its pin, else the recorded command), or None.
    pub rerun: Option<Vec<String>>,
    /// Where `rerun` runs, relative to the worktree root ("" for the root).
    #[serde(skip)]
    pub rerun_cwd: String,
    /// Where the reader stands, relative to the worktree root: the re-run line's -C is from here.
    #[serde(skip)]
    pub here: String,
    /// The pinned command, as written.
    pub pin: Option<String>,
    /// The pin was last proven as a check: it runs as one (`goal verify --check -c N`).
    #[serde(skip)]
    pub check: bool,
    /// acceptance, guard or unpinned.
    pub kind: &'static str,
    /// An acceptance criterion's red state (pending until [`Proof::with_red`] says more); None
    /// for guards and unpinned criteria.
    pub red: Option<RedState>,
    /// Why it is not proven, in words (None when proven).
    pub why: Option<String>,
}

impl CriterionProof {
    /// The ready `goal verify` line that proves it again, when one is known.
    pub fn rerun_line(&self) -> Option<String> {
        if self.pin.is_some() {
            let check = if self.check { "--check " } else { "" };
            return Some(format!("goal verify {check}-c {}", self.number));
        }
        let argv = self.rerun.as_ref()?;
        let dir = match relative(&self.here, &self.rerun_cwd) {
            None => String::new(),
            Some(path) => format!("-C {} ", pin::render(std::slice::from_ref(&path))),
        };
        Some(format!(
            "goal {dir}verify -c {} -- {}",
            self.number,
            pin::render(argv)
        ))
    }

    /// The next step for this criterion, in one line.
    pub fn next_step(&self) -> String {
        match (self.state, self.rerun_line()) {
            (ProofState::Proven, _) => format!("criterion {} is proven", self.number),
            (ProofState::PassesOnBase, _) => format!(
                "the tests of criterion {n} pass on the code before the goal: they do not test the change — write a test that fails there (`goal verify --red -c {n}` shows it), then `goal verify -c {n}`",
                n = self.number
            ),
            (ProofState::Stale, Some(line)) => format!(
                "criterion {} is stale (its evidence is for older code): re-run `{line}`",
                self.number
            ),
            (ProofState::Failing, Some(line)) => format!(
                "criterion {} is failing on this code: fix it, then `{line}`",
                self.number
            ),
            (_, Some(line)) => format!("criterion {} is open: `{line}`", self.number),
            (_, None) => format!(
                "criterion {} is open: `goal verify -c {} -- <test command>`",
                self.number, self.number
            ),
        }
    }
}

/// The path from folder `from` to folder `to` (both relative to the worktree root), or None
/// when they are the same folder.
fn relative(from: &str, to: &str) -> Option<String> {
    let parts = |p: &str| -> Vec<String> {
        std::path::Path::new(p)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect()
    };
    let (from, to) = (parts(from), parts(to));
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    if common == from.len() && common == to.len() {
        return None;
    }
    let mut out: Vec<String> = vec!["..".to_string(); from.len() - common];
    out.extend(to[common..].iter().cloned());
    Some(out.join("/"))
}

/// Why `goal done` would not accept a goal on the evidence (its status aside).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unaccepted {
    /// The goal has no criteria: nothing proves it done.
    NoCriteria,
    /// evidence.jsonl's chain does not verify (the reason).
    BrokenChain(String),
    /// These criteria are not proven on the tree.
    Unproven(Vec<usize>),
    /// Every criterion is proven, but only by checks: no passing test ran on the tree.
    NoPassingTest,
    /// Every criterion is proven, but `goal done` (without `--confirm`) refuses the goal: a goal
    /// of guards only, or tests the goal weakened. The sentence says why and what to do.
    Refused(String),
}

impl Unaccepted {
    /// Why, in words.
    pub fn reason(&self) -> String {
        match self {
            Unaccepted::NoCriteria => "the goal has no criteria: nothing proves it done".into(),
            Unaccepted::BrokenChain(why) => format!("evidence.jsonl does not verify: {why}"),
            Unaccepted::Unproven(numbers) => format!(
                "criteria not proven: {}",
                numbers
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Unaccepted::NoPassingTest => {
                "no passing test evidence on this tree: a check alone cannot complete a goal".into()
            }
            Unaccepted::Refused(why) => why.clone(),
        }
    }
}

/// Every criterion of a goal, judged on one tree.
#[derive(Debug, Clone, Serialize)]
pub struct Proof {
    pub criteria: Vec<CriterionProof>,
    pub proven: usize,
    /// What `goal done` would decide on this evidence: the one answer every surface gives.
    #[serde(skip)]
    pub acceptance: Result<(), Unaccepted>,
}

impl Proof {
    /// Re-run lines as seen from folder `here` (relative to the worktree root).
    pub fn seen_from(mut self, here: &str) -> Proof {
        for c in &mut self.criteria {
            c.here = here.to_string();
        }
        self
    }

    /// `goal done` would accept the goal (when its status allows): at least one criterion, every
    /// one proven, the ledger's chain verifies, and a passing test ran on the tree.
    pub fn complete(&self) -> bool {
        self.acceptance.is_ok()
    }

    /// What done would answer a goal whose every criterion is proven but which it refuses all the
    /// same (guards only, weakened tests): the goal is not complete, and every surface says why.
    pub fn refused(mut self, why: String) -> Proof {
        if self.acceptance.is_ok() {
            self.acceptance = Err(Unaccepted::Refused(why));
        }
        self
    }

    /// Why done would refuse a goal whose every criterion is proven (see [`Proof::refused`]).
    pub fn refusal(&self) -> Option<&str> {
        match &self.acceptance {
            Err(Unaccepted::Refused(why)) => Some(why),
            _ => None,
        }
    }

    pub fn get(&self, number: usize) -> Option<&CriterionProof> {
        self.criteria.get(number.wrapping_sub(1))
    }

    /// The criteria's red states (one per criterion, from `ops::red::red_states`):
    /// a proven criterion whose last red run passed is `passes-on-base`, not proven.
    pub fn with_red(mut self, reds: &[Option<Red>]) -> Proof {
        for (c, red) in self.criteria.iter_mut().zip(reds) {
            c.red = red.as_ref().map(|r| r.state);
            if c.state == ProofState::Proven && c.red == Some(RedState::PassesOnBase) {
                c.state = ProofState::PassesOnBase;
                c.why = Some(format!(
                    "the tests of criterion {} pass on the code before the goal: they do not test the change",
                    c.number
                ));
            }
        }
        self.proven = self
            .criteria
            .iter()
            .filter(|c| c.state == ProofState::Proven)
            .count();
        // done refuses a criterion whose tests pass on the code before the goal: no surface may
        // say it is proven, nor tell the agent to run `goal done`.
        let on_base: Vec<usize> = self
            .criteria
            .iter()
            .filter(|c| c.state == ProofState::PassesOnBase)
            .map(|c| c.number)
            .collect();
        if !on_base.is_empty() && self.acceptance.is_ok() {
            self.acceptance = Err(Unaccepted::Unproven(on_base));
        }
        // done takes a last red run that ran nothing (or whose environment failed) as its
        // answer: it refuses without running again, so every surface can say so now.
        let inconclusive = self
            .criteria
            .iter()
            .find(|c| c.red == Some(RedState::Inconclusive));
        if let Some(c) = inconclusive {
            let n = c.number;
            let run = reds
                .get(n - 1)
                .and_then(|r| r.as_ref()?.record.clone())
                .map(|id| format!(" (red run {id})"))
                .unwrap_or_default();
            self = self.refused(format!(
                "the tests of criterion {n} did not run on the code before the goal{run}, so `goal done` refuses it: see why with `goal verify --red -c {n}`, or run its pin before the fix (a failing run with the same tests is a witness)"
            ));
        }
        self
    }

    /// The acceptance criteria `goal done` will make the red run of first (no witness yet).
    pub fn pending_red(&self) -> Vec<usize> {
        self.criteria
            .iter()
            .filter(|c| c.red == Some(RedState::Pending))
            .map(|c| c.number)
            .collect()
    }

    /// The runs `goal done` will make first, when it still has some to make: "it will first
    /// make the red run of criterion 2".
    pub fn done_runs(&self) -> Option<String> {
        match self.pending_red().as_slice() {
            [] => None,
            [n] => Some(format!("it will first make the red run of criterion {n}")),
            many => Some(format!(
                "it will first make the red runs of criteria {}",
                many.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// "run `goal done`", and the runs it will make first when it still has some to make:
    /// "run `goal done`: it will first make the red run of criterion 2".
    pub fn done_step(&self) -> String {
        match self.done_runs() {
            Some(runs) => format!("run `goal done`: {runs}"),
            None => "run `goal done`".into(),
        }
    }

    /// "run `goal done` to finish", with the runs it will make first in brackets.
    pub fn done_to_finish(&self) -> String {
        match self.done_runs() {
            Some(runs) => format!("run `goal done` to finish ({runs})"),
            None => "run `goal done` to finish".into(),
        }
    }
}

/// Judge every criterion of `goal` on `tree` (None: there is no evidence at all, so the tree
/// need not be computed and every criterion is open).
pub fn judge(goal: &GoalFile, ledger: &Ledger, tree: Option<&str>) -> Proof {
    let criteria: Vec<CriterionProof> = goal
        .criteria
        .iter()
        .map(|c| {
            let pinned = pin::parse(&c.text).and_then(Result::ok);
            let judgement = match tree {
                Some(tree) => ledger.judge(c.number, &c.text, tree),
                None => Judgement::Open(format!(
                    "no evidence names it; run `goal verify -c {}{}`",
                    c.number,
                    if pinned.is_some() {
                        ""
                    } else {
                        " -- <test command>"
                    }
                )),
            };
            let judgement_removed = match &judgement {
                Judgement::Removed { argv, cwd, .. } => Some((argv.clone(), cwd.clone())),
                _ => None,
            };
            let (state, evidence, record, why) = match judgement {
                Judgement::Proven(r) => (ProofState::Proven, Some(r.id.clone()), Some(r), None),
                Judgement::Stale(r) => (
                    ProofState::Stale,
                    None,
                    Some(r),
                    Some(format!(
                        "stale: evidence {} was recorded on another tree (the code changed since)",
                        r.id
                    )),
                ),
                Judgement::Failing(r, why) => (ProofState::Failing, None, Some(r), Some(why)),
                Judgement::Removed { ref id, .. } => (
                    ProofState::Failing,
                    None,
                    None,
                    Some(crate::evidence::removed_reason(id)),
                ),
                Judgement::Open(why) => (ProofState::Open, None, None, Some(why)),
            };
            let (rerun, rerun_cwd) = match (&pinned, record, &judgement_removed) {
                (Some(p), _, _) => (Some(p.argv.clone()), String::new()),
                (None, Some(r), _) => (Some(r.argv.clone()), r.cwd.clone()),
                (None, None, Some((argv, cwd))) => (Some(argv.clone()), cwd.clone()),
                (None, None, None) => (None, String::new()),
            };
            CriterionProof {
                number: c.number,
                ticked: c.passed,
                state,
                evidence,
                rerun,
                rerun_cwd,
                here: String::new(),
                check: pinned.is_some() && ledger.pin_runs_as_check(c.number, &c.text),
                kind: pin::kind_name(&c.text),
                red: (pinned.as_ref().map(|p| p.kind) == Some(pin::Kind::Acceptance))
                    .then_some(RedState::Pending),
                pin: pinned.map(|p| p.command),
                why,
            }
        })
        .collect();
    let proven = criteria
        .iter()
        .filter(|c| c.state == ProofState::Proven)
        .count();
    let acceptance = acceptance(ledger, tree, &criteria);
    Proof {
        criteria,
        proven,
        acceptance,
    }
}

/// The one rule for "would `goal done` accept": criteria, each proven, the chain, a test.
fn acceptance(
    ledger: &Ledger,
    tree: Option<&str>,
    criteria: &[CriterionProof],
) -> Result<(), Unaccepted> {
    if criteria.is_empty() {
        return Err(Unaccepted::NoCriteria);
    }
    ledger.verify_chain().map_err(Unaccepted::BrokenChain)?;
    let unproven: Vec<usize> = criteria
        .iter()
        .filter(|c| c.state != ProofState::Proven)
        .map(|c| c.number)
        .collect();
    if !unproven.is_empty() {
        return Err(Unaccepted::Unproven(unproven));
    }
    match tree {
        Some(tree) if ledger.has_passing_test(tree) => Ok(()),
        _ => Err(Unaccepted::NoPassingTest),
    }
}

#[cfg(test)]
mod tests {
    use super::relative;

    #[test]
    fn relative_folders() {
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("", "", None),
            ("pkg", "pkg", None),
            ("", "pkg", Some("pkg")),
            ("pkg", "", Some("..")),
            ("a/b", "", Some("../..")),
            ("a/b", "a/c", Some("../c")),
            ("a", "a/b/c", Some("b/c")),
        ];
        for (from, to, want) in cases {
            assert_eq!(relative(from, to).as_deref(), *want, "{from} -> {to}");
        }
    }
}
