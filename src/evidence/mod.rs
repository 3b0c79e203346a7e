//! Evidence records (evidence.jsonl): their hash chain, whether they pass, and whether they prove
//! a criterion on a given tree. Pure: the bytes come in, verdicts go out.

mod chain;
mod ledger;

pub use chain::{
    Extra, NewRecord, line_hash, merge_line, seal, seal_cut, seal_mutation, seal_with, sha256_hex,
};
pub use ledger::{Judgement, Ledger, removed_reason};

use serde::{Deserialize, Serialize};

use crate::pin;
use crate::summary::TestCounts;
use crate::test_names::TestNames;

/// One verification run, one line of evidence.jsonl.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Wire", into = "Wire")]
pub struct Record {
    /// The first 12 hex digits of `hash`.
    pub id: String,
    pub criteria: Vec<usize>,
    /// The criteria's texts when the run was recorded: evidence for a reworded criterion is void.
    pub criteria_text: Vec<String>,
    pub argv: Vec<String>,
    /// The command as it ran, when goal added to the pin what makes its runner name each test
    /// (`-rfEsxXp`, `-v`, `PYTEST_ADDOPTS=…`); empty when it ran as pinned.
    pub ran: Vec<String>,
    /// Where the command ran, relative to the worktree root ("" for the root).
    pub cwd: String,
    pub exit_code: i32,
    pub started: String,
    pub duration_ms: u64,
    /// The working tree's tree id before the run, without the goal folder.
    pub tree: String,
    /// The tree after the run when the run only added files (build outputs, caches, lock files):
    /// the evidence holds for it too.
    pub tree_after: Option<String>,
    /// Paths the run created (untracked before it), and paths it modified or deleted.
    pub created: Vec<String>,
    pub changed: Vec<String>,
    pub tests: Option<TestCounts>,
    /// The tests the run named, with their outcomes (`tests.names` in the file; capped).
    pub names: Option<TestNames>,
    /// The `--junit` report patterns the run was read with (a replay reads them again).
    pub junit: Vec<String>,
    /// Recorded with `goal verify --check`: accepted without a test summary.
    pub check: bool,
    /// A red run (`goal verify --red`, or `goal done`'s own): where it ran.
    pub red: Option<Red>,
    /// A guard's base record (`goal verify --base`): the pin run on the goal's base tree.
    pub base_run: bool,
    /// A base run's dependency lock files (`Cargo.lock`, `package-lock.json`, …) of the working
    /// tree when it ran, as a digest: one made before they changed is made again. None for every
    /// other run, and for base runs recorded before it was kept.
    pub locks: Option<String>,
    /// An exam run of `goal done`: `old` (the base's tests on the final code) or `support` (the
    /// final tests with the base's configuration, helpers and data). None for every other run.
    pub exam: Option<String>,
    /// A `mutants` record (`goal verify --mutants`, or `goal done`'s own): the goal's change
    /// under mutation on this tree. It never proves nor fails a criterion.
    pub mutants: Option<crate::mutants::Mutation>,
    /// The run went past a bound of the pin's runs (`goal.pinTimeout`, `goal.pinMemory`) and
    /// was cut off, every process of it killed: it neither passes nor shows a test failing.
    pub cut_off: Option<CutOff>,
    pub output_sha256: String,
    pub output_tail: Vec<String>,
    /// `hash` of the record before this one ("" for the first).
    pub prev: String,
    /// sha256 of this record's other fields (compact JSON, in file order), `id` and `hash` left out.
    pub hash: String,
}

/// Where a red run ran: the goal's base commit, and the tree of the test surface laid over it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Red {
    pub base: String,
    pub tests: String,
    /// Why the run's environment failed rather than the code (the pin's program or runner not
    /// found): the run is inconclusive, never a witness. Absent when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// The test files whose suite failed to load on the red tree (a type error against the base
    /// code under ts-jest, an import vitest cannot resolve), when every file that failed so is a
    /// test file: the run is red, as an import error is in Python. Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub load_failed: Vec<String>,
}

/// Why a run was cut off: the bound it reached, how much that was, and the setting that sets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CutOff {
    /// `timeout` or `memory`.
    pub reason: String,
    /// The bound as people read it (`900 s`, `64 MiB`).
    pub bound: String,
    /// The git config key of the bound (GOAL.md's key is its snake-case twin).
    pub setting: String,
    /// How memory was measured (`cgroup v2`, `cgroup v1`, `pss`); absent for a timeout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<String>,
}

impl CutOff {
    /// What happened and which setting a person can raise: "cut off at its time bound of 2 s
    /// (…)".
    pub fn describe(&self) -> String {
        let (what, key) = match self.reason.as_str() {
            "memory" => ("memory", "pin_memory"),
            _ => ("time", "pin_timeout"),
        };
        format!(
            "cut off at its {what} bound of {} (`{}`; a person raises it with `goal criteria surface --{} <value> --confirm` (GOAL.md's `{key}:`) or `git config {} <value>`)",
            self.bound,
            self.setting,
            key.replace('_', "-"),
            self.setting
        )
    }
}

/// A record's `tests` object in the file: the counts, and the names when the runner printed them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct WireTests {
    #[serde(flatten)]
    counts: TestCounts,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    names: Option<TestNames>,
}

/// A record as one line of evidence.jsonl (fields in file order). Records older than the red run
/// have no `red`, `base_run` or `tests.names`: they are left out when absent, so old lines keep
/// their hashes.
#[derive(Serialize, Deserialize)]
struct Wire {
    id: String,
    criteria: Vec<usize>,
    #[serde(default)]
    criteria_text: Vec<String>,
    argv: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ran: Vec<String>,
    #[serde(default)]
    cwd: String,
    exit_code: i32,
    started: String,
    duration_ms: u64,
    tree: String,
    #[serde(default)]
    tree_after: Option<String>,
    #[serde(default)]
    created: Vec<String>,
    #[serde(default)]
    changed: Vec<String>,
    tests: Option<WireTests>,
    #[serde(default)]
    junit: Vec<String>,
    #[serde(default)]
    check: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    red: Option<Red>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    base_run: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    locks: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exam: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mutants: Option<crate::mutants::Mutation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cut_off: Option<CutOff>,
    output_sha256: String,
    output_tail: Vec<String>,
    prev: String,
    hash: String,
}

impl From<Wire> for Record {
    fn from(w: Wire) -> Record {
        let (tests, names) = match w.tests {
            Some(t) => (Some(t.counts), t.names),
            None => (None, None),
        };
        Record {
            id: w.id,
            criteria: w.criteria,
            criteria_text: w.criteria_text,
            argv: w.argv,
            ran: w.ran,
            cwd: w.cwd,
            exit_code: w.exit_code,
            started: w.started,
            duration_ms: w.duration_ms,
            tree: w.tree,
            tree_after: w.tree_after,
            created: w.created,
            changed: w.changed,
            tests,
            names,
            junit: w.junit,
            check: w.check,
            red: w.red,
            base_run: w.base_run,
            locks: w.locks,
            exam: w.exam,
            mutants: w.mutants,
            cut_off: w.cut_off,
            output_sha256: w.output_sha256,
            output_tail: w.output_tail,
            prev: w.prev,
            hash: w.hash,
        }
    }
}

impl From<Record> for Wire {
    fn from(r: Record) -> Wire {
        Wire {
            id: r.id,
            criteria: r.criteria,
            criteria_text: r.criteria_text,
            argv: r.argv,
            ran: r.ran,
            cwd: r.cwd,
            exit_code: r.exit_code,
            started: r.started,
            duration_ms: r.duration_ms,
            tree: r.tree,
            tree_after: r.tree_after,
            created: r.created,
            changed: r.changed,
            tests: r.tests.map(|counts| WireTests {
                counts,
                names: r.names,
            }),
            junit: r.junit,
            check: r.check,
            red: r.red,
            base_run: r.base_run,
            locks: r.locks,
            exam: r.exam,
            mutants: r.mutants,
            cut_off: r.cut_off,
            output_sha256: r.output_sha256,
            output_tail: r.output_tail,
            prev: r.prev,
            hash: r.hash,
        }
    }
}

/// Lines of output kept in a record.
pub const TAIL_LINES: usize = 20;

impl Record {
    /// Exit 0 and, where a test summary was recognised, no failure and at least one test run;
    /// never a run that was cut off.
    pub fn passes(&self) -> bool {
        self.exit_code == 0
            && self.cut_off.is_none()
            && self.tests.is_none_or(|t| t.failed == 0 && t.passed >= 1)
    }

    /// Passing evidence that may prove a criterion: a test run, or a check asked for as one.
    pub fn proves(&self) -> bool {
        self.passes() && (self.tests.is_some() || self.check)
    }

    pub fn is_test(&self) -> bool {
        self.tests.is_some()
    }

    /// A run on the working code (not a red run, not a guard's base run, not a mutants record).
    pub fn on_working_code(&self) -> bool {
        self.red.is_none() && !self.base_run && self.exam.is_none() && self.mutants.is_none()
    }

    /// Whether the record names criterion `number` with the same requirement (its text without
    /// the pin: adding a pin keeps the evidence; the pin itself is checked against `argv`).
    pub(super) fn names(&self, number: usize, text: &str) -> bool {
        names(&self.criteria, &self.criteria_text, number, text)
    }

    /// Whether the evidence holds for `tree`: the tree it ran on, or the tree its run left
    /// behind when the run only added files.
    pub fn on_tree(&self, tree: &str) -> bool {
        on_tree(&self.tree, self.tree_after.as_deref(), tree)
    }

    /// Why this record does not prove anything, in the original design's words.
    pub fn failure_reason(&self) -> String {
        if let Some(cut) = &self.cut_off {
            return format!(
                "evidence {} is inconclusive: `{}` was {}",
                self.id,
                self.argv.join(" "),
                cut.describe()
            );
        }
        if self.exit_code != 0 {
            return format!(
                "evidence {} failed: `{}` exited {}",
                self.id,
                self.argv.join(" "),
                self.exit_code
            );
        }
        match self.tests {
            Some(t) if t.failed > 0 => {
                format!("evidence {} failed: {} test(s) failed", self.id, t.failed)
            }
            Some(t) if t.passed == 0 => format!(
                "evidence {}: no tests ran (red flag: \"tests don't run but code looks fine\")",
                self.id
            ),
            None if !self.check => {
                match crate::summary::unread_results(&self.output_tail.join("\n")) {
                    Some(n) => format!(
                        "evidence {}: `{}` printed {n} test results, but goal cannot read this runner's summary; run the runner with a reporter goal reads (TAP, JUnit with `--junit`), or `goal verify --check` for a linter or script",
                        self.id,
                        self.argv.join(" ")
                    ),
                    None => format!(
                        "evidence {}: `{}` printed no test summary; run a test command, or `goal verify --check` for a linter or script",
                        self.id,
                        self.argv.join(" ")
                    ),
                }
            }
            _ => format!("evidence {} does not pass", self.id),
        }
    }
}

/// What the witness keeps of a record: enough to judge it after its line is gone from
/// evidence.jsonl (a removed last line must not let an older result decide).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WitnessEntry {
    pub hash: String,
    pub prev: String,
    pub criteria: Vec<usize>,
    pub criteria_text: Vec<String>,
    pub argv: Vec<String>,
    pub cwd: String,
    pub tree: String,
    pub tree_after: Option<String>,
    pub proves: bool,
}

impl WitnessEntry {
    pub fn of(record: &Record) -> WitnessEntry {
        WitnessEntry {
            hash: record.hash.clone(),
            prev: record.prev.clone(),
            criteria: record.criteria.clone(),
            criteria_text: record.criteria_text.clone(),
            argv: record.argv.clone(),
            cwd: record.cwd.clone(),
            tree: record.tree.clone(),
            tree_after: record.tree_after.clone(),
            proves: record.proves(),
        }
    }

    pub(super) fn names(&self, number: usize, text: &str) -> bool {
        names(&self.criteria, &self.criteria_text, number, text)
    }

    pub(super) fn on_tree(&self, tree: &str) -> bool {
        on_tree(&self.tree, self.tree_after.as_deref(), tree)
    }
}

/// Whether a run's `criteria` (with their texts then) name criterion `number` with the same
/// requirement (its text without the pin: adding a pin keeps the evidence; the pin itself is
/// checked against the run's argv).
fn names(criteria: &[usize], criteria_text: &[String], number: usize, text: &str) -> bool {
    match criteria.iter().position(|&n| n == number) {
        None => false,
        Some(i) => criteria_text
            .get(i)
            .is_none_or(|t| pin::base(t) == pin::base(text)),
    }
}

/// A run on `before` that left `after` (when it only added files) holds for either tree.
fn on_tree(before: &str, after: Option<&str>, tree: &str) -> bool {
    before == tree || after == Some(tree)
}

#[cfg(test)]
mod tests;
