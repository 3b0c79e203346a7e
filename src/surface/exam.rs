//! The old exam and the support exam judged: what the base's tests say of the final code, test by
//! test, and what the goal's own tests say once the configuration, helpers and data that choose
//! them are put back as the base had them. Pure rules over the runs' names and counts; running the
//! trees is `ops::red`'s.
//!
//! The runs (for one acceptance pin):
//! - base: the base's code with the base's tests;
//! - old: the final code with the base's test surface;
//! - red: the base's code with the final tests;
//! - green: the final code with the final tests (the clean run);
//! - support: the final code and tests with the base's configuration, helpers and data.

use serde::Serialize;

use crate::summary::TestCounts;
use crate::test_names::{TestNames, TestOutcome};

/// What the old exam found of one test of the base (or of the whole run, by counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExamKind {
    /// Failed on the base and still fails on the final code: the bug the test shows is still in.
    StillFailing,
    /// Failed on the old-exam tree, then passed when run once more there alone.
    Flaky,
    /// Passed on the base, fails on the final code, and the goal's version of the test fails by
    /// name on the red run: the expectation was rewritten and the rewrite is tested.
    BehaviorChanged,
    /// Passed on the base, fails on the final code, and the goal's version passes on the base.
    WeakenedToPass,
    /// Passed on the base, fails on the final code, and the final tree no longer runs it.
    RemovedAfterChange,
    /// Passed on the base, fails on the final code, and no red run can judge the goal's version.
    UnjudgedChange,
    /// The old exam could not run it on the final code, for a reason that says nothing of the
    /// goal (an API the goal changed, a dependency outside the repository).
    Inconclusive,
    /// A goal test that passed green fails once the base's configuration, helpers and data are
    /// put back.
    SupportFails,
    /// A goal test seen failing by name on an earlier red run, changed afterwards, whose final
    /// version the red run does not show failing by name.
    ExamChanged,
}

impl ExamKind {
    /// The kebab-case name shown in every surface.
    pub fn as_str(self) -> &'static str {
        match self {
            ExamKind::StillFailing => "still-failing",
            ExamKind::Flaky => "flaky",
            ExamKind::BehaviorChanged => "behavior-changed",
            ExamKind::WeakenedToPass => "weakened-to-pass",
            ExamKind::RemovedAfterChange => "removed-after-change",
            ExamKind::UnjudgedChange => "unjudged-change",
            ExamKind::Inconclusive => "inconclusive",
            ExamKind::SupportFails => "support-fails",
            ExamKind::ExamChanged => "exam-changed",
        }
    }

    /// Whether the outcome refuses `goal done` unless a person confirms.
    pub fn refuses(self) -> bool {
        matches!(
            self,
            ExamKind::StillFailing
                | ExamKind::WeakenedToPass
                | ExamKind::RemovedAfterChange
                | ExamKind::UnjudgedChange
                | ExamKind::SupportFails
                | ExamKind::ExamChanged
        )
    }
}

/// One outcome of an exam: its kind and the test (a runner's name, or `(by counts)`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExamFinding {
    pub kind: ExamKind,
    pub test: String,
}

impl ExamFinding {
    fn new(kind: ExamKind, test: &str) -> ExamFinding {
        ExamFinding {
            kind,
            test: test.to_string(),
        }
    }
}

/// One exam outcome as `goal done` shows and records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Exam {
    pub criterion: usize,
    pub kind: ExamKind,
    pub test: String,
    /// The exam run's record (the old-exam or support run).
    pub record: String,
    /// Whether it refuses `goal done` without a person's `--confirm`.
    pub refuses: bool,
    /// A person accepted it (`goal done --confirm`; recorded in a `Goal-Tests-Weakened` trailer).
    pub confirmed: bool,
}

impl Exam {
    /// `still-failing tests/test_a.py::test_x (criterion 1, record 0d62080752a6)`.
    pub fn describe(&self) -> String {
        format!(
            "{} {} (criterion {}, record {})",
            self.kind.as_str(),
            self.test,
            self.criterion,
            self.record
        )
    }
}

/// One run as the exams read it: its counts and, where the runner printed them, its names.
#[derive(Debug, Clone, Copy, Default)]
pub struct Run<'a> {
    pub counts: Option<TestCounts>,
    pub names: Option<&'a TestNames>,
    /// Test files whose suite failed to load or build in this run.
    pub load_failed: bool,
}

impl Run<'_> {
    fn named(&self) -> Option<&TestNames> {
        self.names.filter(|n| n.usable())
    }

    fn outcome(&self, test: &str) -> Option<TestOutcome> {
        self.named().and_then(|n| n.outcome(test))
    }

    /// At least one test ran.
    fn ran(&self) -> bool {
        self.counts.is_some_and(|c| c.passed + c.failed > 0)
            || self.named().is_some_and(|n| !n.names.is_empty())
    }
}

/// What the old exam came to for one pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OldExam {
    /// The base run ran no test (the goal's tests are new): nothing to judge.
    NotApplicable,
    /// The old-exam run ran nothing (it did not build or load): shown, never refusing.
    Inconclusive,
    /// Judged test by test (or by counts): the outcomes worth showing, empty when all is well.
    Judged(Vec<ExamFinding>),
    /// A run was cut off at its bound (`goal.pinTimeout`, `goal.pinMemory`) and shows no test
    /// still failing: nothing can be judged, and `goal done` refuses, naming the setting.
    CutOff,
}

/// Which runs of a pin's old exam were cut off at a bound of theirs, and whether the deciding
/// green of the same pin finished within half the time bound.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cut {
    pub base: bool,
    pub old: bool,
    pub quick_green: bool,
}

/// Whether a run of `duration_ms` finished within half the time bound `bound_ms`.
pub fn within_half(duration_ms: u64, bound_ms: u128) -> bool {
    u128::from(duration_ms) * 2 <= bound_ms
}

/// The old exam of one pin whose runs may have been cut off (see [`Cut`]). A run cut off beside
/// a slow green, or both runs cut off, may have been ended by the bound, not the code:
/// [`OldExam::CutOff`]. A base run cut off beside a quick green failed there ([`base_cut_off`]). An old-exam run cut off beside a quick green ran far past what the
/// goal's code needs: each test that failed on the base and that it did not get to is still
/// failing (by counts: any failure on the base); with none, [`OldExam::CutOff`].
pub fn old_exam_bounded(base: Run, old: Run, red: Run, green: Run, cut: Cut) -> OldExam {
    if !cut.base && !base.ran() {
        return OldExam::NotApplicable;
    }
    if (cut.base || cut.old) && !cut.quick_green || cut.base && cut.old {
        return OldExam::CutOff;
    }
    if cut.base {
        return base_cut_off(base, old, red, green);
    }
    if !cut.old {
        return old_exam(base, old, red, green);
    }
    let still: Vec<ExamFinding> = match base.named() {
        Some(b) => b
            .names
            .iter()
            .filter(|t| t.outcome == TestOutcome::Failed && old.outcome(&t.name).is_none())
            .map(|t| ExamFinding::new(ExamKind::StillFailing, &t.name))
            .collect(),
        None if base.counts.is_some_and(|c| c.failed > 0) => {
            vec![ExamFinding::new(ExamKind::StillFailing, BY_COUNTS)]
        }
        None => Vec::new(),
    };
    if still.is_empty() {
        return OldExam::CutOff;
    }
    let mut found = match old_exam(base, old, red, green) {
        OldExam::Judged(found) => found,
        _ => Vec::new(),
    };
    found.retain(|f| !still.iter().any(|s| s.test == f.test));
    found.extend(still);
    OldExam::Judged(found)
}

/// The old exam when the base run was cut off beside a quick green (the red side's rule): the
/// base's code ran far past what the goal's code needs, so each base test the base run did not get
/// to failed there, and the old exam (which names every base test, on the goal's code) judges
/// them as it judges any test failing on the base: still failing there is `still-failing`,
/// passing is the fix. A goal that fixes a hang is not refused for the hang.
fn base_cut_off(base: Run, old: Run, red: Run, green: Run) -> OldExam {
    let Some(on_old) = old.named() else {
        return match old.counts {
            Some(c) if c.failed > 0 => {
                OldExam::Judged(vec![ExamFinding::new(ExamKind::StillFailing, BY_COUNTS)])
            }
            Some(c) if c.passed > 0 => OldExam::Judged(Vec::new()),
            _ => OldExam::CutOff,
        };
    };
    let mut on_base = base.named().cloned().unwrap_or_default();
    for t in &on_old.names {
        if on_base.outcome(&t.name).is_none() {
            on_base.names.push(crate::test_names::TestName {
                name: t.name.clone(),
                outcome: TestOutcome::Failed,
            });
        }
    }
    let base = Run {
        names: Some(&on_base),
        ..base
    };
    old_exam(base, old, red, green)
}

/// The old exam of one pin: the base's tests on the base (`base`) and on the final code (`old`),
/// with the goal's tests on the base (`red`) and on the final code (`green`).
pub fn old_exam(base: Run, old: Run, red: Run, green: Run) -> OldExam {
    if !base.ran() {
        return OldExam::NotApplicable;
    }
    match base.named() {
        Some(b) if old.named().is_some() || old.load_failed => {
            OldExam::Judged(by_name(b, old, red, green))
        }
        _ if !old.ran() => OldExam::Inconclusive,
        _ => OldExam::Judged(by_counts(base, old)),
    }
}

/// Test by test, for runners that name their tests.
fn by_name(base: &TestNames, old: Run, red: Run, green: Run) -> Vec<ExamFinding> {
    let mut out = Vec::new();
    for t in &base.names {
        let test = t.name.as_str();
        let found = match (t.outcome, old.outcome(test)) {
            (TestOutcome::Failed, Some(TestOutcome::Failed)) => Some(ExamKind::StillFailing),
            (TestOutcome::Failed, None) => missing_on_old(test, old, red),
            (TestOutcome::Passed, Some(TestOutcome::Failed)) => Some(changed(test, red, green)),
            (TestOutcome::Passed, None) if old.load_failed => Some(ExamKind::Inconclusive),
            _ => None,
        };
        if let Some(kind) = found {
            out.push(ExamFinding::new(kind, test));
        }
    }
    out
}

/// A test that failed on the base and that the old exam did not name: it could not build or
/// load on the final code, or something took it out of the run. The goal's version of it failing
/// by name on the red run, or the goal's own tests failing to build on the base as well (an API
/// changed both ways), makes it inconclusive; otherwise the bug it shows may still be in.
fn missing_on_old(test: &str, old: Run, red: Run) -> Option<ExamKind> {
    if red.outcome(test) == Some(TestOutcome::Failed) || (old.load_failed && red.load_failed) {
        return Some(ExamKind::Inconclusive);
    }
    Some(ExamKind::StillFailing)
}

/// A test that passed on the base fails on the final code: behaviour it pinned has changed. Shown
/// when the goal's version of it fails by name on the red run; refusing otherwise, by what became
/// of the goal's version.
fn changed(test: &str, red: Run, green: Run) -> ExamKind {
    if red.outcome(test) == Some(TestOutcome::Failed) {
        return ExamKind::BehaviorChanged;
    }
    if green.named().is_some() && green.outcome(test) != Some(TestOutcome::Passed) {
        return ExamKind::RemovedAfterChange;
    }
    match red.outcome(test) {
        Some(TestOutcome::Passed) => ExamKind::WeakenedToPass,
        _ => ExamKind::UnjudgedChange,
    }
}

/// The name a finding judged by counts carries.
pub const BY_COUNTS: &str = "(by counts: the runner did not name its tests)";

/// By counts, where the runner names no test: no failure on the final code passes; a failure
/// there when the base also failed is still-failing; a failure there when the base had none is
/// behaviour changed (shown).
fn by_counts(base: Run, old: Run) -> Vec<ExamFinding> {
    let failed = |r: Run| r.counts.map_or(0, |c| c.failed);
    match (failed(base), failed(old)) {
        (_, 0) => Vec::new(),
        (0, _) => vec![ExamFinding::new(ExamKind::BehaviorChanged, BY_COUNTS)],
        _ => vec![ExamFinding::new(ExamKind::StillFailing, BY_COUNTS)],
    }
}

/// The support exam of one pin: each goal test that failed by name on the red run and passed
/// green (`goal_tests`), on the support tree (`support`). A goal test that runs and fails there is
/// `support-fails`; one the support run does not name (it imports a helper the goal added) is
/// shown as inconclusive. By counts, where no name can be had.
pub fn support_exam(goal_tests: &[String], support: Run, green: Run) -> Vec<ExamFinding> {
    if support.named().is_none() {
        let failed = support.counts.is_some_and(|c| c.failed > 0);
        let green_clean = green.counts.is_some_and(|c| c.failed == 0);
        return if failed && green_clean {
            vec![ExamFinding::new(ExamKind::SupportFails, BY_COUNTS)]
        } else {
            Vec::new()
        };
    }
    goal_tests
        .iter()
        .filter_map(|t| match support.outcome(t) {
            Some(TestOutcome::Failed) => Some(ExamFinding::new(ExamKind::SupportFails, t)),
            None => Some(ExamFinding::new(ExamKind::Inconclusive, t)),
            _ => None,
        })
        .collect()
}

/// The tests a run could not set up (pytest's `ERROR <file>::<test>` in its summary, where a
/// failing test is `FAILED`: a fixture not found, a fixture that raised): on the support tree, a
/// goal test that needs a fixture the goal added in a `conftest.py` cannot run, which says nothing
/// of what it tests.
pub fn set_up_errors(tail: &[String]) -> Vec<String> {
    tail.iter()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("ERROR ")?;
            let test = rest.split_once(" - ").map_or(rest, |(t, _)| t).trim();
            test.contains("::").then(|| test.to_string())
        })
        .collect()
}

/// The tests the red run named failing that the green run named passing: the goal's exam.
pub fn goal_tests(red: &TestNames, green: &TestNames) -> Vec<String> {
    red.names
        .iter()
        .filter(|t| t.outcome == TestOutcome::Failed)
        .filter(|t| green.outcome(&t.name) == Some(TestOutcome::Passed))
        .map(|t| t.name.clone())
        .collect()
}

/// Whether two runs of the same tests said the same (`a`, `b`: their whole outputs, in the same
/// folder): the same lines, in any order (a runner that runs files at once prints them as they
/// finish), once times and memory addresses are set aside. A value a test saw that differs by
/// one digit makes them differ.
pub fn same_output(a: &str, b: &str) -> bool {
    let lines = |text: &str| {
        let mut v: Vec<String> = text
            .lines()
            .map(steady)
            .filter(|l| !l.trim().is_empty())
            .collect();
        v.sort();
        v
    };
    let (a, b) = (lines(a), lines(b));
    !a.is_empty() && a == b
}

/// A line of a runner's output with what changes from run to run set aside: a number followed
/// by a unit of time (`0.02s`, `(0.00s)`, `12 ms`), the number after a `duration`/`time` key
/// (`# duration_ms 70.2`, `Time: 1.5`), and a hexadecimal address (`0x7f3a…`).
fn steady(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts_word = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '0' && chars.get(i + 1) == Some(&'x') && starts_word {
            let mut j = i + 2;
            while j < chars.len() && chars[j].is_ascii_hexdigit() {
                j += 1;
            }
            if j > i + 2 {
                out.push_str("0x_");
                i = j;
                continue;
            }
        }
        if c.is_ascii_digit() && starts_word {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            let mut k = j;
            while k < chars.len() && chars[k] == ' ' {
                k += 1;
            }
            let unit: String = chars[k..]
                .iter()
                .take_while(|c| c.is_alphabetic())
                .collect();
            let timed = matches!(
                unit.as_str(),
                "s" | "ms" | "µs" | "us" | "ns" | "sec" | "secs"
            );
            let keyed = {
                let before: String = out.to_lowercase();
                let key = before.trim_end_matches([' ', ':', '=']);
                key.ends_with("duration_ms") || key.ends_with("duration") || key.ends_with("time")
            };
            if timed || keyed {
                out.push('#');
                i = j;
                continue;
            }
            out.extend(&chars[i..j]);
            i = j;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

#[cfg(test)]
#[path = "exam_tests.rs"]
mod tests;
