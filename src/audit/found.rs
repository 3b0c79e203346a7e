//! What an audit found, as `goal audit` and `goal report` show it: problems, each goal commit's
//! checks, each criterion's deciding record, and the audit of a goal.

use serde::Serialize;

use super::WeakenedFinding;
use crate::evidence::Record;
use crate::history::MaterialEntry;
use crate::repo::Oid;
use crate::summary::TestCounts;

/// Something the audit found wrong.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// The commit it is about, if any.
    pub commit: Option<String>,
    pub criterion: Option<usize>,
    /// The 1-based line in the committed GOAL.md it points at.
    pub line: Option<usize>,
    pub message: String,
}

/// One goal commit (or hand-made change of the goal files) inside the range.
#[derive(Debug, Clone, Serialize)]
pub struct CommitCheck {
    pub commit: String,
    pub subject: String,
    /// The `Goal-Action` trailer, or null for a commit made without `goal`.
    pub action: Option<String>,
    /// A change of the goal files committed without `goal`.
    pub hand_made: bool,
    /// Committed by `goal` with the user's git hooks skipped (`Goal-Hooks: skipped`).
    pub hooks_skipped: bool,
    pub problems: Vec<String>,
}

/// A run's result: what a record claims, or what a replay saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RunOutcome {
    pub exit_code: i32,
    pub tests: Option<TestCounts>,
}

impl RunOutcome {
    pub fn of(record: &Record) -> RunOutcome {
        RunOutcome {
            exit_code: record.exit_code,
            tests: record.tests,
        }
    }

    /// Passing test evidence: exit 0 and a test summary with at least one test and no failure.
    pub fn passes_tests(&self) -> bool {
        self.exit_code == 0 && self.tests.is_some_and(|t| t.passed >= 1 && t.failed == 0)
    }

    pub fn describe(&self) -> String {
        match self.tests {
            Some(t) => format!(
                "exit {}, {} passed, {} failed, {} ignored",
                self.exit_code, t.passed, t.failed, t.ignored
            ),
            None => format!("exit {}, no test summary", self.exit_code),
        }
    }
}

/// One criterion of the goal's last state and the record that decides it.
#[derive(Debug, Clone, Serialize)]
pub struct CriterionAudit {
    /// The goal it belongs to: an index into the audit's `goals`.
    pub goal: usize,
    pub number: usize,
    pub text: String,
    /// Its 1-based line in the last committed GOAL.md.
    pub line: usize,
    pub ticked: bool,
    /// The deciding record's id (the latest passing record naming it on the tree of the commit
    /// that ticked it), or null.
    pub evidence: Option<String>,
    pub argv: Option<Vec<String>>,
    pub cwd: Option<String>,
    /// The record's command is the criterion's pin.
    pub pinned: bool,
    /// The commit that ticked it.
    pub commit: Option<String>,
    /// What the record claims.
    pub recorded: Option<RunOutcome>,
    /// reproduced | not reproduced | cannot run | skipped; null without `--rerun`.
    pub replay: Option<String>,
    /// Why it was skipped or could not run.
    pub replay_reason: Option<String>,
    /// The commit the replay ran at.
    pub replay_commit: Option<String>,
    pub replayed: Option<RunOutcome>,
    /// The run on the goal's base tree (red before green), when one was made.
    pub base: Option<RunOutcome>,
    /// acceptance, guard or unpinned.
    pub kind: &'static str,
    /// An acceptance criterion's red state on the goal's last state (`witnessed`, `pending`: no
    /// witness, `passes-on-base`, `inconclusive`) and its record; null for guards, unpinned
    /// criteria, and goals started on an unborn branch.
    pub red: Option<crate::surface::judge::Red>,
    /// What the red record (witness or last red run) claims.
    pub red_recorded: Option<RunOutcome>,
    /// What replaying the red run (`--rerun`) came to: red, passes-on-base, inconclusive, or
    /// cannot run.
    pub red_replay: Option<String>,
    pub red_replayed: Option<RunOutcome>,
    /// unpinned, open, unproven, passes-on-base, no-red-witness.
    pub flags: Vec<String>,
    /// Why it has no deciding record.
    pub why: Option<String>,
    #[serde(skip)]
    pub record: Option<Record>,
    #[serde(skip)]
    pub ticked_at: Option<Oid>,
}

impl CriterionAudit {
    /// A criterion of the goal's last state, before its claim and records are read.
    pub fn new(number: usize, text: &str, line: usize, ticked: bool) -> CriterionAudit {
        CriterionAudit {
            goal: 0,
            number,
            text: text.to_string(),
            line,
            ticked,
            evidence: None,
            argv: None,
            cwd: None,
            pinned: false,
            commit: None,
            recorded: None,
            replay: None,
            replay_reason: None,
            replay_commit: None,
            replayed: None,
            base: None,
            kind: crate::pin::kind_name(text),
            red: None,
            red_recorded: None,
            red_replay: None,
            red_replayed: None,
            flags: Vec::new(),
            why: None,
            record: None,
            ticked_at: None,
        }
    }

    pub fn flag(&mut self, flag: &str) {
        if !self.flags.iter().any(|f| f == flag) {
            self.flags.push(flag.to_string());
        }
    }
}

/// The audit of one goal.
#[derive(Debug, Serialize)]
pub struct GoalAudit {
    pub goal: String,
    /// The goal's last `mutants` record as its last ledger has it.
    pub mutation: Option<crate::mutants::MutationView>,
    /// The status of its last state: in-progress, blocked, complete, or abandoned.
    pub status: String,
    /// The status was written by a commit made without `goal` (unverified).
    pub hand_made_status: bool,
    pub iteration: u64,
    pub init: Option<String>,
    /// The commit the goal started from (null: an unborn branch).
    pub base: Option<String>,
    pub criteria: Vec<CriterionAudit>,
    pub commits: Vec<CommitCheck>,
    pub material_changes: Vec<MaterialEntry>,
    pub problems: Vec<Problem>,
    /// The weakening findings of the goal's diff (base → its last commit) over the test surface.
    pub tests_weakened: Vec<WeakenedFinding>,
    /// Test-surface files the findings could not parse (their findings are unknown).
    pub tests_unreadable: Vec<crate::surface::weaken::Unreadable>,
    /// The evidence chain of the last state verifies (nothing is replayed from a broken one).
    pub chain_ok: bool,
    /// Every confirmation the goal's commits record (`--strict` fails on any).
    pub confirmations: Vec<Confirmation>,
    /// The tree of every commit of the goal without the goal folder, for finding a record's.
    #[serde(skip)]
    pub trees: Vec<(Oid, String)>,
    #[serde(skip)]
    pub base_commit: Option<Oid>,
    /// The commit to make the red worktree at and the red tree of the goal's last state (base
    /// code, tests as at the end), for replaying.
    #[serde(skip)]
    pub red_tree: Option<(Oid, Oid)>,
}

/// A person's confirmation a goal commit records in a trailer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Confirmation {
    /// weakening, guards-only, material-change or surface.
    pub kind: &'static str,
    pub commit: String,
    /// The trailer's value.
    pub what: String,
}

impl Confirmation {
    /// Every confirmation the trailers of commit `commit` record.
    pub fn of(commit: &str, t: &crate::trailers::GoalTrailers) -> Vec<Confirmation> {
        let one = |kind, what: &str| Confirmation {
            kind,
            commit: commit.to_string(),
            what: what.to_string(),
        };
        let mut out: Vec<Confirmation> = t
            .tests_weakened
            .iter()
            .map(|v| one("weakening", v))
            .collect();
        if t.guards_only {
            out.push(one("guards-only", "a goal whose criteria are all guards"));
        }
        out.extend(t.mutants_confirmed.iter().map(|v| one("mutants", v)));
        if let Some(m) = &t.material_change {
            let kind = if m.starts_with("settings ") {
                "surface"
            } else {
                "material-change"
            };
            out.push(one(kind, m));
        }
        out
    }
}
