//! The pure rules of red before green (`goal done`, `goal status`, `goal audit` and `goal report`
//! read them): what a red run came to, which record witnesses an acceptance criterion red, the red
//! state of each criterion, and the base record of a guard. Records in, verdicts out.

use serde::Serialize;

use crate::evidence::{Ledger, Record};
use crate::pin::{self, Kind};
use crate::surface::weaken::{Finding, FindingKind, pin_runs};

/// What a red run (the pin on the red tree) came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RedOutcome {
    /// The pin failed on the code before the goal: the wanted result.
    Red,
    /// The pin passed on the code before the goal: its tests do not test the change.
    PassesOnBase,
    /// No test ran there (none collected, all skipped, the pinned path missing).
    Inconclusive,
}

/// Markers in a run's output that say no test was collected.
const NO_TESTS: &[&str] = &[
    "no tests ran",
    "collected 0 items",
    "running 0 tests",
    "no test files",
    "No tests found",
    "no tests to run",
    "file or directory not found",
];

/// What a red run came to, from its record (`path_missing`: a path the pin names exists in the
/// working tree but not in the red tree). Inconclusive first: a run that collected nothing
/// proves nothing either way.
pub fn red_outcome(record: &Record, path_missing: bool) -> RedOutcome {
    if environment_of(record).is_some() {
        return RedOutcome::Inconclusive;
    }
    let outcome = red_outcome_of(
        record.exit_code,
        record.tests,
        &record.output_tail.join("\n"),
        path_missing,
    );
    // A test file that does not type-check or import against the base code: red, as a Go or
    // Rust test that does not build against it is.
    let load_failed = record
        .red
        .as_ref()
        .is_some_and(|r| !r.load_failed.is_empty());
    match outcome {
        RedOutcome::Inconclusive if load_failed && record.exit_code != 0 && !path_missing => {
            RedOutcome::Red
        }
        other => other,
    }
}

/// [`red_outcome`] from a run's exit code, test counts and the end of its output (`tail`).
pub fn red_outcome_of(
    exit_code: i32,
    tests: Option<crate::summary::TestCounts>,
    tail: &str,
    path_missing: bool,
) -> RedOutcome {
    if path_missing {
        return RedOutcome::Inconclusive;
    }
    let said_none = NO_TESTS.iter().any(|m| tail.contains(m));
    match tests {
        // Something failed: red, whatever else the output says.
        Some(t) if t.failed > 0 => RedOutcome::Red,
        // Nothing passed, nothing failed: none collected, or all skipped.
        Some(t) if t.passed == 0 => RedOutcome::Inconclusive,
        Some(_) if exit_code != 0 => RedOutcome::Red,
        Some(_) => RedOutcome::PassesOnBase,
        // No summary: the runner said it found nothing (pytest exit 4 or 5), or it failed (a
        // build or an import against the old code), or it passed.
        None if said_none => RedOutcome::Inconclusive,
        None if exit_code != 0 => RedOutcome::Red,
        None => RedOutcome::PassesOnBase,
    }
}

/// Why a failing record's environment failed rather than the code (the pin's program or
/// runner not found): a red run's is decided when it ran (it knows the goal's npm scripts), any
/// other record's from its output.
pub fn environment_of(record: &Record) -> Option<String> {
    match &record.red {
        Some(red) => red.environment.clone(),
        None => crate::surface::environment::environment_failure(
            &record.argv,
            record.exit_code,
            record.tests,
            &record.output_tail.join("\n"),
            &|_| false,
        ),
    }
}

/// The sentence for an outcome that refuses (`criterion N …`); `environment`: why the run's
/// environment failed, when it did.
pub fn outcome_message(
    number: usize,
    outcome: &RedOutcome,
    environment: Option<&str>,
) -> Option<String> {
    match (outcome, environment) {
        (RedOutcome::Inconclusive, Some(why)) => Some(format!(
            "the tests of criterion {number} did not run on the code before the goal: its environment failed, not the code ({why})"
        )),
        (RedOutcome::Red, _) => None,
        (RedOutcome::PassesOnBase, _) => Some(format!(
            "the tests of criterion {number} pass on the code before the goal: they do not test the change"
        )),
        (RedOutcome::Inconclusive, None) => Some(format!(
            "the tests of criterion {number} did not run on the code before the goal"
        )),
    }
}

/// The red state of a criterion (`red` in status's JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RedState {
    /// No witness yet: `goal done` will run the red run.
    Pending,
    /// A witnessed failing record on the red tree of the final state.
    Witnessed,
    /// The last red run with these tests passed.
    PassesOnBase,
    /// The last red run with these tests ran no test.
    Inconclusive,
}

impl RedState {
    pub fn as_str(self) -> &'static str {
        match self {
            RedState::Pending => "pending",
            RedState::Witnessed => "witnessed",
            RedState::PassesOnBase => "passes-on-base",
            RedState::Inconclusive => "inconclusive",
        }
    }
}

/// The red tree of the final (here: current) state, as the witness rule compares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedTarget {
    /// The goal's base commit.
    pub base: String,
    /// The red tree (base code, tests as now), without the goal folder.
    pub tree: String,
    /// The tree of the test surface alone.
    pub tests: String,
    /// Whether the red tree can be trusted (every surface file parsed).
    pub trusted: bool,
}

/// One acceptance criterion's red state, and the record that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Red {
    pub state: RedState,
    /// The witness (state witnessed), or the red run that passed or ran nothing.
    pub record: Option<String>,
}

/// Whether a record is of criterion `number`'s pin at the worktree root.
fn of_pin(ledger: &Ledger, record: &Record, number: usize, text: &str, argv: &[String]) -> bool {
    record.argv == argv
        && record.cwd.is_empty()
        && ledger.names_criterion(record, number, text)
        && ledger.counts(record)
}

/// What a red-run record came to (`path_missing` cannot be seen afterwards: a missing path
/// shows as "no tests ran" in its output).
pub fn recorded_outcome(record: &Record) -> RedOutcome {
    red_outcome(record, false)
}

/// The red state of criterion `number` (with `text`) against `target`; None for a guard or an
/// unpinned criterion. A red-run record counts when made with the same base and tests; an
/// ordinary run counts when it failed on the red tree itself (test-first). The latest decides.
pub fn red_state(ledger: &Ledger, number: usize, text: &str, target: &RedTarget) -> Option<Red> {
    let pin = pin::parse(text)?.ok()?;
    if pin.kind != Kind::Acceptance {
        return None;
    }
    let latest = ledger.records.iter().rev().find(|r| {
        of_pin(ledger, r, number, text, &pin.argv)
            && !r.base_run
            && match &r.red {
                Some(red) => red.base == target.base && red.tests == target.tests,
                None => r.tree == target.tree && !r.passes(),
            }
    });
    let Some(record) = latest else {
        return Some(Red {
            state: RedState::Pending,
            record: None,
        });
    };
    let state = match recorded_outcome(record) {
        RedOutcome::Red => RedState::Witnessed,
        // A test-first run that ran nothing is no witness: done runs the red run itself.
        _ if record.red.is_none() => RedState::Pending,
        RedOutcome::PassesOnBase => RedState::PassesOnBase,
        RedOutcome::Inconclusive => RedState::Inconclusive,
    };
    Some(Red {
        state,
        record: (state != RedState::Pending).then(|| record.id.clone()),
    })
}

/// The base record of guard `number`: the latest witnessed run of its pin on `base_tree` (the
/// goal's base tree without the goal folder), a `--base` record or any run made there.
pub fn guard_base<'a>(
    ledger: &'a Ledger,
    number: usize,
    text: &str,
    base_tree: &str,
    locks: &str,
) -> Option<&'a Record> {
    let pin = pin::parse(text)?.ok()?;
    if pin.kind != Kind::Guard {
        return None;
    }
    base_record(ledger, number, text, base_tree, locks)
}

/// Criterion `number`'s latest run of its pin on the goal's base tree (the base run an acceptance
/// criterion's old exam compares with, or a guard's base record), whatever its kind. A base run
/// made with other dependency lock files than `locks` (the working tree's now, see
/// [`Record::locks`]) does not count: the dependencies it ran with are gone.
pub fn base_record<'a>(
    ledger: &'a Ledger,
    number: usize,
    text: &str,
    base_tree: &str,
    locks: &str,
) -> Option<&'a Record> {
    base_record_with(ledger, number, text, base_tree, Some(locks))
}

/// A guard's latest run on the goal's base as the ledger recorded it, whatever lock files it
/// ran with (what `goal audit` and `goal report` show of a finished goal).
pub fn guard_base_recorded<'a>(
    ledger: &'a Ledger,
    number: usize,
    text: &str,
    base_tree: &str,
) -> Option<&'a Record> {
    let pin = pin::parse(text)?.ok()?;
    if pin.kind != Kind::Guard {
        return None;
    }
    base_record_with(ledger, number, text, base_tree, None)
}

/// [`base_record`], with the lock files it must have run with (None: any).
fn base_record_with<'a>(
    ledger: &'a Ledger,
    number: usize,
    text: &str,
    base_tree: &str,
    locks: Option<&str>,
) -> Option<&'a Record> {
    let pin = pin::parse(text)?.ok()?;
    ledger.records.iter().rev().find(|r| {
        of_pin(ledger, r, number, text, &pin.argv)
            && r.red.is_none()
            && r.exam.is_none()
            && (r.base_run || r.on_tree(base_tree))
            && r.tree == base_tree
            && match (r.locks.as_deref(), locks) {
                (Some(had), Some(now)) => had == now,
                _ => true,
            }
    })
}

/// One weakening finding as `goal done` shows it (`tests_weakened` of its JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Weakened {
    pub kind: FindingKind,
    pub file: String,
    pub line: usize,
    pub test: String,
    /// Whether it refuses `goal done` without `--confirm`.
    #[serde(skip)]
    pub refuses: bool,
    /// Confirmed with `goal done --confirm` (a `Goal-Tests-Weakened` trailer records it).
    pub confirmed: bool,
}

impl Weakened {
    /// `skip-added tests/test_calc.py:7 test_add` (the trailer's value).
    pub fn describe(&self) -> String {
        format!("{} {}:{} {}", self.kind, self.file, self.line, self.test)
    }
}

/// Whether a finding refuses `goal done` (without `--confirm`) on its own: any `test-detected`,
/// and an `assertion-free` test one of `pins` runs (until a red run shows it failing by name).
/// Every other finding is judged by the runs of the exams and shown.
pub fn refuses_done(finding: &Finding, pins: &[String]) -> bool {
    if finding.kind == FindingKind::TestRenamed {
        // Shown as the removal it is when it takes the test out of a pin: the old exam runs the
        // old test and judges it.
        return false;
    }
    finding.kind.refuses()
        && (finding.kind.whole_goal() || pins.iter().any(|p| pin_runs(p, finding)))
}

/// The `test-removed` a `test-renamed` finding stands for when a pin runs the old name and not
/// the new one.
fn renamed_out_of(finding: &Finding, pins: &[String]) -> Option<Finding> {
    let (old, new) = finding.test.split_once(" -> ")?;
    let named = |test: &str| Finding {
        kind: FindingKind::TestRemoved,
        test: test.to_string(),
        ..finding.clone()
    };
    let (old, new) = (named(old), named(new));
    pins.iter()
        .any(|p| pin_runs(p, &old) && !pin_runs(p, &new))
        .then_some(old)
}

/// The findings of a goal as done judges them (`confirm`: `goal done --confirm`); a rename that
/// takes a test out of a pin is judged as the `test-removed` it is.
pub fn weakened(findings: &[Finding], pins: &[String], confirm: bool) -> Vec<Weakened> {
    findings
        .iter()
        .map(|f| {
            let refuses = refuses_done(f, pins);
            // A rename that refuses is the removal renamed_out_of finds (None when it does not).
            let f = match f.kind {
                FindingKind::TestRenamed => renamed_out_of(f, pins).unwrap_or_else(|| f.clone()),
                _ => f.clone(),
            };
            Weakened {
                kind: f.kind,
                file: f.file,
                line: f.line,
                test: f.test,
                refuses,
                confirmed: refuses && confirm,
            }
        })
        .collect()
}

/// Whether a run named test `test` (as a finding names it: `test_add`, `tests::adds`,
/// `suite > case`) failed. A TAP subtest fails when one of its assertions does: TAP names those
/// `file > suite > case > assertion`.
pub fn failed_by_name(names: Option<&crate::test_names::TestNames>, test: &str) -> bool {
    let Some(names) = names else { return false };
    let subtest = format!("{test} > ");
    let inner = format!(" > {subtest}");
    names.names.iter().any(|t| {
        t.outcome == crate::test_names::TestOutcome::Failed
            && (ends_as(&t.name, test)
                || t.name.contains(&format!("::{test}["))
                || t.name.starts_with(&subtest)
                || t.name.contains(&inner))
    })
}

/// Whether the runner's `name` ends with the finding's `test`, as a whole part: `test_add` of
/// `tests/test_calc.py::test_add`, `tests::limits` of `v0::tests::limits`, and a class's test
/// (`TestCalc::test_add`) of unittest's dotted id `tests.test_calc.TestCalc.test_add`.
fn ends_as(name: &str, test: &str) -> bool {
    let dotted = test.replace("::", ".");
    name == test
        || name == dotted
        || [":", ".", " ", "/"]
            .iter()
            .any(|sep| name.ends_with(&format!("{sep}{test}")))
        || name.ends_with(&format!(".{dotted}"))
}

/// Whether a runner's test name and a finding's test name (`old -> new` for a rename: either
/// side) are the same test.
pub fn same_test(runner: &str, finding: &str) -> bool {
    match finding.split_once(" -> ") {
        Some((old, new)) => ends_as(runner, old) || ends_as(runner, new),
        None => ends_as(runner, finding),
    }
}

/// Whether a run named test `test` at all, whatever it came to (as [`failed_by_name`] matches).
pub fn named(names: &crate::test_names::TestNames, test: &str) -> bool {
    names.names.iter().any(|t| ends_as(&t.name, test))
}

/// A `cargo test` pin told to skip `tests` as well (libtest's `--skip`, after the `--` that ends
/// cargo's own arguments, or after the test arguments the pin has). None for a pin that is not
/// `cargo test`.
pub fn cargo_skipping(argv: &[String], tests: &[String]) -> Option<Vec<String>> {
    let program = std::path::Path::new(argv.first()?).file_name()?;
    if program != "cargo" {
        return None;
    }
    let sub = argv[1..]
        .iter()
        .find(|a| !a.starts_with('-') && !a.starts_with('+'))?;
    if sub != "test" {
        return None;
    }
    let mut skipping = argv.to_vec();
    if !argv.iter().any(|a| a == "--") {
        skipping.push("--".into());
    }
    for t in tests {
        skipping.extend(["--skip".to_string(), t.clone()]);
    }
    Some(skipping)
}

/// Whether a red run of `ledger` (a red-run record) shows test `test` failing by name: the
/// evidence that an `assertion-free` test tests the change, whatever its body looks like.
pub fn seen_failing_red(ledger: &Ledger, test: &str) -> bool {
    ledger
        .records
        .iter()
        .any(|r| r.red.is_some() && failed_by_name(r.names.as_ref(), test))
}

/// Whether every criterion is a guard (a goal that proves nothing about its change).
pub fn guards_only(texts: &[&str]) -> bool {
    !texts.is_empty() && texts.iter().all(|t| pin::kind(t) == Some(Kind::Guard))
}

#[cfg(test)]
#[path = "judge_tests.rs"]
mod tests;
