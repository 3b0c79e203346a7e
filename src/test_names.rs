//! Test names and outcomes from runner output (cargo test and nextest, pytest `-v`/`-rA`,
//! `go test -v`, TAP, node's test runner and jest reporters, JUnit XML), and the two rules that
//! compare runs by them: green covers red, a guard holds.
//!
//! The counts of a run come from [`crate::summary::recognise`]; this module reads the per-test
//! lines, which the summary recogniser does not.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::summary::TestCounts;

/// How many names a record keeps at most (`truncated` says when there were more).
pub const NAMES_CAP: usize = 2000;

/// What one test came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestOutcome {
    Passed,
    /// Skipped, ignored, deselected, pending, todo, xfail.
    Ignored,
    /// Failed or errored.
    Failed,
}

/// One test as the runner named it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestName {
    pub name: String,
    pub outcome: TestOutcome,
}

/// The tests a run named, in the order first seen (`tests.names` of a record).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestNames {
    pub names: Vec<TestName>,
    /// More than [`NAMES_CAP`] were named: the list is not complete.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

impl TestNames {
    /// The outcome of `name`, if the run named it.
    pub fn outcome(&self, name: &str) -> Option<TestOutcome> {
        self.names
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.outcome)
    }

    /// Whether the names say anything (some named, none left out).
    pub fn usable(&self) -> bool {
        !self.names.is_empty() && !self.truncated
    }
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad pattern {pattern}: {e}"))
}

// Terminal colour codes, which runners print on a terminal.
static ANSI: LazyLock<Regex> = LazyLock::new(|| re(r"\x1b\[[0-9;?]*[A-Za-z]"));
// cargo test: "test a::b ... ok", "test a::b ... FAILED", "test a::b ... ignored, reason"
static CARGO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^test (\S.*?) \.\.\. (ok|FAILED|ignored)(?:,.*)?$"));
// A Rust test binary that aborts (a stack overflow, a panic that cannot unwind) prints no result
// line for the test that brought it down; the runtime names that test's thread instead:
// "thread 'v0::tests::limits' (1194) has overflowed its stack", "thread 'a::b' panicked at …"
// before "fatal runtime error: …" or "… aborting.".
static RUST_OVERFLOW: LazyLock<Regex> =
    LazyLock::new(|| re(r"^thread '([^']+)'(?: \(\d+\))? has overflowed its stack\s*$"));
static RUST_PANICKED: LazyLock<Regex> =
    LazyLock::new(|| re(r"^thread '([^']+)'(?: \(\d+\))? panicked (?:at|while)\b"));
static RUST_ABORT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:fatal runtime error: |thread caused non-unwinding panic\. aborting\.)")
});
// cargo nextest: "        PASS [   0.004s] crate::bin a::b", "        FAIL [...] crate a::b", "SKIP"
static NEXTEST: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*(PASS|FAIL|SKIP|TIMEOUT|SIGSEGV|SIGABRT)\s+\[\s*[\d.]+s\]\s+(?:.*\s)?(\S+)\s*$")
});
// pytest -v: "tests/test_calc.py::test_add PASSED                 [ 50%]"
static PYTEST_V: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(\S+::\S+) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS|DESELECTED)\b.*$"));
// pytest -rA: "FAILED tests/test_calc.py::test_add - assert 0 == 4", "PASSED tests/t.py::test_x"
static PYTEST_RA: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+::\S+)(?: - .*)?$"));
// python -m unittest -v: "test_add (tests.test_calc.TestCalc.test_add) ... ok" (Python 3.11; 3.10
// and before: "(tests.test_calc.TestCalc)"), its docstring's first line, if any, before " ... ";
// a test whose docstring shows puts its name on a line of its own first. After the run, each
// failure again: "FAIL: test_add (tests.test_calc.TestCalc.test_add)".
static UNITTEST_V: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(\w+) \(([\w.]+)\)(?:\s.*?)? \.\.\. (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)\s*$",
    )
});
static UNITTEST_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"^(\w+) \(([\w.]+)\)\s*$"));
static UNITTEST_DOC: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^.*? \.\.\. (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)\s*$")
});
static UNITTEST_FAILED: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)(?: \(.*\))?\s*$"));
// go test -v: "--- PASS: TestAdd (0.00s)", "    --- FAIL: TestAdd/sub (0.00s)"
static GO: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*--- (PASS|FAIL|SKIP): (\S+) \("));
// node-tap's classic reporter: "nestedfail.test.js ........ 3/4", then per failure the subtest
// path ("  math > adds") and "  not ok two plus two"
static CLASSIC_FILE: LazyLock<Regex> = LazyLock::new(|| re(r"^(\S.*?) \.{3,} \d+/\d+\s*$"));
static CLASSIC_PATH: LazyLock<Regex> = LazyLock::new(|| re(r"^  (\S.*?)\s*$"));
static CLASSIC_FAILED: LazyLock<Regex> = LazyLock::new(|| re(r"^  not ok (.+?)\s*$"));
// node --test's spec reporter and jest: "✔ adds (0.5ms)", "✖ subs (1ms)", "﹣ x (0.1ms) # SKIP",
// jest: "✓ adds (3 ms)", "✕ subs", "○ skipped x"
static MARK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(✔|✓|✖|✕|﹣|○)\s+(?:skipped |todo )?(.+?)(?:\s+\(\d+(?:\.\d+)?\s?m?s\))?(?:\s+#\s*(?:SKIP|TODO).*)?\s*$",
    )
});

/// A unittest test's id: the part in parentheses, which from Python 3.11 ends with the method.
fn unittest_id(method: &str, place: &str) -> String {
    if place.ends_with(&format!(".{method}")) {
        place.to_string()
    } else {
        format!("{place}.{method}")
    }
}

/// unittest's lines: a test named on a line of its own waits for its docstring and result on the
/// next.
#[derive(Default)]
struct Unittest {
    pending: Option<String>,
}

impl Unittest {
    /// What `line` says as one of unittest's: None, not one of its lines; Some(None), a test named
    /// whose result comes next; Some(Some(..)), a test and its outcome.
    fn line(&mut self, line: &str) -> Option<Option<(String, TestOutcome)>> {
        if let Some(c) = UNITTEST_V.captures(line) {
            self.pending = None;
            return Some(Some((unittest_id(&c[1], &c[2]), unittest_outcome(&c[3]))));
        }
        if let Some(c) = UNITTEST_NAME.captures(line) {
            self.pending = Some(unittest_id(&c[1], &c[2]));
            return Some(None);
        }
        if let Some(name) = self.pending.take()
            && let Some(c) = UNITTEST_DOC.captures(line)
        {
            return Some(Some((name, unittest_outcome(&c[1]))));
        }
        let c = UNITTEST_FAILED.captures(line)?;
        Some(Some((unittest_id(&c[2], &c[3]), TestOutcome::Failed)))
    }
}

/// What a unittest result word comes to.
fn unittest_outcome(word: &str) -> TestOutcome {
    match word {
        "ok" | "unexpected success" => TestOutcome::Passed,
        "FAIL" | "ERROR" => TestOutcome::Failed,
        _ => TestOutcome::Ignored,
    }
}

fn outcome_of(word: &str) -> Option<TestOutcome> {
    Some(match word {
        "ok" | "PASS" | "PASSED" | "XPASS" | "✔" | "✓" => TestOutcome::Passed,
        "FAILED" | "FAIL" | "ERROR" | "not ok" | "TIMEOUT" | "SIGSEGV" | "SIGABRT" | "✖" | "✕" => {
            TestOutcome::Failed
        }
        "ignored" | "SKIP" | "SKIPPED" | "XFAIL" | "DESELECTED" | "﹣" | "○" => {
            TestOutcome::Ignored
        }
        _ => return None,
    })
}

/// Gathers names: the first sighting fixes the order, the worst outcome wins (a failure reported
/// again in a summary, a flaky rerun, stays a failure).
#[derive(Default)]
struct Gather {
    order: Vec<String>,
    outcomes: BTreeMap<String, TestOutcome>,
    truncated: bool,
}

impl Gather {
    fn add(&mut self, name: &str, outcome: TestOutcome) {
        let name = name.trim();
        if name.is_empty() {
            return;
        }
        match self.outcomes.get_mut(name) {
            Some(o) => *o = (*o).max(outcome),
            None if self.order.len() >= NAMES_CAP => self.truncated = true,
            None => {
                self.order.push(name.to_string());
                self.outcomes.insert(name.to_string(), outcome);
            }
        }
    }

    fn finish(self) -> TestNames {
        let Gather {
            order,
            outcomes,
            truncated,
        } = self;
        TestNames {
            names: order
                .into_iter()
                .map(|name| {
                    let outcome = outcomes[&name];
                    TestName { name, outcome }
                })
                .collect(),
            truncated,
        }
    }
}

// A test file that could not be loaded: jest's "FAIL <file>" then "● Test suite failed to run";
// vitest's " FAIL  <file> [ <file> ]"; TypeScript's "<file>:3:21 - error TS2554: …" (ts-jest) and
// "<file>(3,21): error TS2554: …" (tsc).
static JEST_FAIL: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*FAIL\s+(\S+)(?:\s+\(.*\))?\s*$"));
static JEST_SUITE: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*●\s+Test suite failed to run\s*$"));
static VITEST_FILE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*FAIL\s+(\S+)\s+\[\s*(\S+)\s*\]\s*$"));
static TS_ERROR: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(\S+?\.[cm]?[jt]sx?)(?::\d+:\d+ - |\(\d+,\d+\): )error TS\d+:"));

/// The files whose test suite failed to load in a run's output (a type error under ts-jest, an
/// import a vitest file cannot resolve, a TypeScript error), each once, in the order seen: a run
/// that fails so, in a test file, is red the way an import error is in Python; in a code file it
/// says nothing of the tests. Paths as the runner printed them.
pub fn suites_failed_to_run(output: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |p: &str| {
        let p = p.trim_start_matches("./").to_string();
        if !out.contains(&p) {
            out.push(p);
        }
    };
    let mut last_fail: Option<String> = None;
    for raw in output.lines() {
        let clean = ANSI.replace_all(raw, "");
        let line = clean.trim_end_matches('\r');
        if let Some(c) = VITEST_FILE.captures(line) {
            push(&c[1]);
        } else if let Some(c) = JEST_FAIL.captures(line) {
            last_fail = Some(c[1].to_string());
        } else if JEST_SUITE.is_match(line) {
            if let Some(f) = last_fail.take() {
                push(&f);
            }
        } else if let Some(c) = TS_ERROR.captures(line) {
            push(&c[1]);
        }
    }
    out
}

// A test module or package that did not load or build: pytest's collection error, unittest's
// failed import, go's build or setup failure, cargo's compile error.
static LOAD_OR_BUILD: LazyLock<Regex> = LazyLock::new(|| {
    re(concat!(
        r"^(?:ERROR collecting |ERROR \S+\.py(?: - |$)|ImportError while importing test module",
        r"|E?\s*ImportError: Failed to import test module|FAIL\s+\S+\s+\[(?:build|setup) failed\]",
        r"|error\[E\d+\]|error: could not compile )"
    ))
});

/// Whether a run's output says a test file or package did not load or build (a collection or
/// import error, a build or type error), whichever runner printed it.
pub fn load_or_build_failed(output: &str) -> bool {
    !suites_failed_to_run(output).is_empty()
        || output.lines().any(|l| {
            let clean = ANSI.replace_all(l, "");
            LOAD_OR_BUILD.is_match(clean.trim_start_matches('_').trim())
        })
}

/// A test's name as libtest's result line gives it: libtest adds ` - should panic` to a
/// `#[should_panic]` test, which is what the test expects, not its name (a goal that drops the
/// attribute keeps the test).
fn libtest_name(shown: &str) -> &str {
    shown.split(" - should panic").next().unwrap_or(shown)
}

/// The tests a run's output names, with their outcomes (at most [`NAMES_CAP`]).
pub fn from_output(output: &str) -> TestNames {
    let mut gather = Gather::default();
    let mut tap = crate::summary::tap::Reader::default();
    let mut classic = Classic::default();
    // The test thread that panicked last, until a result line or an abort says what came of it.
    let mut panicked: Option<String> = None;
    let mut unittest = Unittest::default();
    for line in runtime_lines_mended(clean_lines(output)) {
        let line = line.as_str();
        match unittest.line(line) {
            Some(Some((name, outcome))) => {
                gather.add(&name, outcome);
                continue;
            }
            Some(None) => continue,
            None => {}
        }
        let points = tap.points;
        let leaf = tap.line(line);
        let found = if let Some(name) = classic.line(line) {
            Some((name, Some(TestOutcome::Failed)))
        } else if let Some(leaf) = leaf {
            let outcome = match leaf.result {
                crate::summary::tap::Result::Passed => TestOutcome::Passed,
                crate::summary::tap::Result::Failed => TestOutcome::Failed,
                crate::summary::tap::Result::Ignored => TestOutcome::Ignored,
            };
            Some((leaf.name, Some(outcome)))
        } else if tap.points > points {
            // A subtest's closing point: its leaves are its results.
            continue;
        } else if let Some(c) = RUST_OVERFLOW.captures(line) {
            rust_thread(&c[1]).map(|name| (name, Some(TestOutcome::Failed)))
        } else if let Some(c) = RUST_PANICKED.captures(line) {
            panicked = rust_thread(&c[1]);
            continue;
        } else if line.starts_with("running ") {
            // The next test binary: what the last one's threads did is over.
            panicked = None;
            continue;
        } else if RUST_ABORT.is_match(line) {
            panicked
                .take()
                .map(|name| (name, Some(TestOutcome::Failed)))
        } else if let Some(c) = CARGO.captures(line) {
            let name = libtest_name(&c[1]);
            if panicked.as_deref() == Some(name) {
                panicked = None;
            }
            Some((name.to_string(), &c[2]).to_owned_outcome())
        } else if let Some(c) = NEXTEST.captures(line) {
            Some((c[2].to_string(), &c[1]).to_owned_outcome())
        } else if let Some(c) = PYTEST_RA.captures(line) {
            Some((c[2].to_string(), &c[1]).to_owned_outcome())
        } else if let Some(c) = PYTEST_V.captures(line) {
            Some((c[1].to_string(), &c[2]).to_owned_outcome())
        } else if let Some(c) = GO.captures(line) {
            Some((c[2].to_string(), &c[1]).to_owned_outcome())
        } else if let Some(c) = MARK.captures(line) {
            let skip = line.contains("# SKIP") || line.contains("# TODO");
            if c[2].ends_with(':') {
                // A heading such as node's `✖ failing tests:`, not a test.
                continue;
            }
            let outcome = if skip {
                Some(TestOutcome::Ignored)
            } else {
                outcome_of(&c[1])
            };
            Some((c[2].to_string(), outcome))
        } else {
            None
        };
        if let Some((name, Some(outcome))) = found {
            gather.add(&name, outcome);
        }
    }
    gather.finish()
}

/// `output`'s lines without terminal colours and carriage returns.
fn clean_lines(output: &str) -> Vec<String> {
    output
        .lines()
        .map(|raw| ANSI.replace_all(raw, "").trim_end_matches('\r').to_string())
        .collect()
}

/// `lines` with each Rust runtime message made whole again. The runtime writes "thread '…' (…)
/// has overflowed its stack" to stderr in pieces (the name, the thread id, the rest), while the
/// test harness writes its result lines to stdout; in one pipe, a result line printed at that
/// moment lands inside the message: "thread 'test a::b ... ok" then "a::deep' (7) has
/// overflowed its stack". Such a pair is read as the line that came in between, then the message
/// (split where a result line of the harness's begins, if one does).
fn runtime_lines_mended(lines: Vec<String>) -> Vec<String> {
    let whole = |l: &str| RUST_OVERFLOW.is_match(l) || RUST_PANICKED.is_match(l);
    let mut out = Vec::with_capacity(lines.len());
    let mut lines = lines.into_iter().peekable();
    while let Some(line) = lines.next() {
        let mended = match lines.peek() {
            Some(next) if line.starts_with("thread '") && !whole(&line) => {
                // Where the line between begins: where the rest is a result line of the
                // harness's, else the first place that makes the message whole.
                let splits: Vec<usize> = ("thread '".len()..line.len())
                    .filter(|&k| {
                        line.is_char_boundary(k) && whole(&format!("{}{next}", &line[..k]))
                    })
                    .collect();
                splits
                    .iter()
                    .find(|&&k| CARGO.is_match(&line[k..]))
                    .or(splits.first())
                    .map(|&k| (line[k..].to_string(), format!("{}{next}", &line[..k])))
            }
            _ => None,
        };
        match mended {
            Some((between, message)) => {
                lines.next();
                out.push(between);
                out.push(message);
            }
            None => out.push(line),
        }
    }
    out
}

/// The test a Rust runtime message names by its thread, if it is a test's thread: libtest names
/// each test's thread after the test; `main` and unnamed threads are no test.
fn rust_thread(name: &str) -> Option<String> {
    (name != "main" && name != "<unnamed>").then(|| name.to_string())
}

/// node-tap's classic reporter names the failures only: the file (its dotted count line), the
/// subtest path, the assertion. Read as TAP names them: `file > suite > test > assertion`.
#[derive(Default)]
struct Classic {
    file: Option<String>,
    path: Option<String>,
}

impl Classic {
    /// The name of the failure this line ends, if it is one.
    fn line(&mut self, line: &str) -> Option<String> {
        if let Some(c) = CLASSIC_FILE.captures(line) {
            self.file = (&c[1] != "total").then(|| c[1].to_string());
            self.path = None;
            return None;
        }
        let file = self.file.as_deref()?;
        if let Some(c) = CLASSIC_FAILED.captures(line) {
            let mut name = vec![file];
            name.extend(self.path.as_deref());
            name.push(&c[1]);
            return Some(name.join(" > "));
        }
        if let Some(c) = CLASSIC_PATH.captures(line) {
            self.path = Some(c[1].to_string());
        }
        None
    }
}

trait OwnedOutcome {
    fn to_owned_outcome(self) -> (String, Option<TestOutcome>);
}

impl OwnedOutcome for (String, &str) {
    fn to_owned_outcome(self) -> (String, Option<TestOutcome>) {
        (self.0, outcome_of(self.1))
    }
}

/// The test cases of a JUnit XML report, named `classname::name` (or `name` without a class), as
/// [`crate::junit::cases`] reads them. Malformed XML is an error.
pub fn from_junit(xml: &[u8]) -> Result<TestNames, String> {
    let mut gather = Gather::default();
    for case in crate::junit::cases(xml)? {
        let outcome = match case.outcome {
            crate::junit::Outcome::Passed => TestOutcome::Passed,
            crate::junit::Outcome::Ignored => TestOutcome::Ignored,
            crate::junit::Outcome::Failed => TestOutcome::Failed,
        };
        gather.add(&case.name, outcome);
    }
    Ok(gather.finish())
}

/// What a run showed of its tests: its counts (from the summary lines, if any) and the names.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunTests<'a> {
    pub counts: Option<TestCounts>,
    pub names: Option<&'a TestNames>,
}

/// Why green does not cover red, or a guard does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum Missing {
    /// A test that failed red did not pass green (`green` is what it came to there, if named).
    #[error("{name} failed on the code before the goal but {}", match green { Some(TestOutcome::Failed) => "fails at the end", Some(TestOutcome::Ignored) => "is skipped at the end", _ => "did not run at the end" })]
    NotPassed {
        name: String,
        green: Option<TestOutcome>,
    },
    /// A test the base ran is not in the final run.
    #[error("{name} ran on the base but not at the end")]
    Lost { name: String },
    /// Fewer tests passed than needed.
    #[error("{passed} tests passed at the end, {needed} needed")]
    FewerPassed { needed: u64, passed: u64 },
    /// More tests were skipped than allowed.
    #[error("{ignored} tests were skipped at the end, at most {allowed} allowed")]
    MoreIgnored { allowed: u64, ignored: u64 },
    /// The final run printed no test summary to compare with.
    #[error("the final run printed no test summary to compare with")]
    NoSummary,
}

fn both_named<'a>(a: &RunTests<'a>, b: &RunTests<'a>) -> Option<(&'a TestNames, &'a TestNames)> {
    match (a.names, b.names) {
        (Some(x), Some(y)) if x.usable() && y.usable() => Some((x, y)),
        _ => None,
    }
}

/// Green covers red: by name when both runs named their tests (every test that failed red passes
/// green); otherwise by counts (green passed ≥ red failed, green ignored ≤ red ignored), a rule
/// skipped when the red run has no test summary (a build or import failure).
pub fn green_covers_red(red: &RunTests, green: &RunTests) -> Result<(), Vec<Missing>> {
    let mut missing = Vec::new();
    if let Some((r, g)) = both_named(red, green) {
        for t in r.names.iter().filter(|t| t.outcome == TestOutcome::Failed) {
            let outcome = g.outcome(&t.name);
            if outcome.is_none() && subtest_passes(r, g, &t.name) {
                continue;
            }
            if outcome != Some(TestOutcome::Passed) {
                missing.push(Missing::NotPassed {
                    name: t.name.clone(),
                    green: outcome,
                });
            }
        }
    } else if let Some(r) = red.counts {
        match green.counts {
            None => missing.push(Missing::NoSummary),
            Some(g) => {
                if g.passed < r.failed {
                    missing.push(Missing::FewerPassed {
                        needed: r.failed,
                        passed: g.passed,
                    });
                }
                if g.ignored > r.ignored {
                    missing.push(Missing::MoreIgnored {
                        allowed: r.ignored,
                        ignored: g.ignored,
                    });
                }
            }
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

/// A failed leaf of a subtest (TAP names it `file > subtest > assertion`) that green does not name
/// is covered when green runs that subtest whole: the leaf's name is often its message, which
/// carries values (`got 4.17.3`) or is an error thrown instead of the assertion (`Invalid
/// comparator: v1.06`), so it differs between the runs though the test is the same. The subtest
/// covers it when green names at least as many leaves under it as red did, none failing and
/// no more skipped: an assertion green no longer reaches leaves fewer.
fn subtest_passes(red: &TestNames, green: &TestNames, leaf: &str) -> bool {
    let Some((subtest, _)) = leaf.rsplit_once(" > ") else {
        return false;
    };
    let prefix = format!("{subtest} > ");
    let under = |names: &TestNames, outcome: TestOutcome| {
        names
            .names
            .iter()
            .filter(|t| t.name.starts_with(&prefix) && t.outcome == outcome)
            .count()
    };
    let count = |names: &TestNames| {
        (
            under(names, TestOutcome::Passed),
            under(names, TestOutcome::Failed),
            under(names, TestOutcome::Ignored),
        )
    };
    let (red_passed, red_failed, red_ignored) = count(red);
    let (green_passed, green_failed, green_ignored) = count(green);
    // `leaf` failed red, so red_failed >= 1 and the last test asks for a green pass too.
    green_failed == 0
        && green_ignored <= red_ignored
        && green_passed + green_ignored >= red_passed + red_failed + red_ignored
}

/// A guard holds: green passed ≥ base passed and green ignored ≤ base ignored, and where both
/// runs named their tests, no test the base ran is missing from green. A base run with no test
/// summary (a linter, a type checker) leaves nothing to compare: it holds.
pub fn guard_holds(base: &RunTests, green: &RunTests) -> Result<(), Vec<Missing>> {
    let mut missing = Vec::new();
    if let Some((b, g)) = both_named(base, green) {
        for t in &b.names {
            if g.outcome(&t.name).is_none() {
                missing.push(Missing::Lost {
                    name: t.name.clone(),
                });
            }
        }
    }
    if let Some(b) = base.counts {
        match green.counts {
            None => missing.push(Missing::NoSummary),
            Some(g) => {
                if g.passed < b.passed {
                    missing.push(Missing::FewerPassed {
                        needed: b.passed,
                        passed: g.passed,
                    });
                }
                if g.ignored > b.ignored {
                    missing.push(Missing::MoreIgnored {
                        allowed: b.ignored,
                        ignored: g.ignored,
                    });
                }
            }
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(missing)
    }
}

#[cfg(test)]
#[path = "test_names_tests.rs"]
mod tests;
