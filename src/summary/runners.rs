//! One recogniser per test runner, the tables they are tried in, and the counts that are only
//! known at the end of the output.

use std::sync::LazyLock;

use regex::Regex;

use super::{TestCounts, re};

/// One runner's recogniser: whether `line` is one of its summary lines (then no later row is
/// asked about it). It counts the line into `total`, or into what the runner keeps in `p` until
/// the end of the output.
pub(super) type Recogniser = fn(&str, &mut Group, &mut Pending) -> bool;

/// Lines that go on a summary a runner began on an earlier line, asked before [`RUNNERS`]: a
/// line that does not go on ends that runner's block and is asked of every runner.
pub(super) const GOING_ON: &[(&str, Recogniser)] = &[
    ("unittest", unittest_verdict),
    ("dotnet", dotnet_run_count),
    ("ctest", ctest_not_run),
];

/// Every runner, in the order a line is tried: the first that knows the line has it.
pub(super) const RUNNERS: &[(&str, Recogniser)] = &[
    ("cargo", cargo),
    ("nextest", nextest),
    ("pytest", pytest),
    ("unittest", unittest),
    ("jest", jest),
    ("vitest", vitest),
    ("deno", deno),
    ("node --test", node),
    ("node-tap", node_tap),
    ("mocha", mocha),
    ("bun", bun),
    ("rspec", rspec),
    ("phpunit", phpunit),
    ("surefire", surefire),
    ("dotnet", dotnet),
    ("ctest", ctest),
    ("plain", plain),
    ("go", go),
    ("TAP", tap_point),
];

static COUNT: LazyLock<Regex> = LazyLock::new(|| re(r"(\d+) (\w+)"));
static KEY_COUNT: LazyLock<Regex> = LazyLock::new(|| re(r"(\w+(?: \w+)?)[=:] ?(\d+)"));

/// Counts from "4 passed, 1 failed, 2 skipped"-style lists.
fn counts_in(list: &str) -> TestCounts {
    let mut counts = TestCounts::default();
    for caps in COUNT.captures_iter(list) {
        let n: u64 = caps[1].parse().unwrap_or(0);
        match &caps[2] {
            "passed" | "pass" => counts.passed += n,
            "failed" | "fail" | "error" | "errors" | "timed" => counts.failed += n,
            "skipped" | "ignored" | "todo" | "xfailed" | "deselected" => counts.ignored += n,
            "xpassed" => counts.passed += n,
            _ => {}
        }
    }
    counts
}

fn num(caps: &regex::Captures, i: usize) -> u64 {
    caps.get(i).map_or(0, |m| m.as_str().parse().unwrap_or(0))
}

/// `key=N` / `Key: N` pairs of a list, keys lower-cased: "failures=1, errors=2", "Errors: 1, Skipped: 2".
fn keyed(list: &str) -> impl Iterator<Item = (String, u64)> + '_ {
    KEY_COUNT
        .captures_iter(list)
        .map(|c| (c[1].to_ascii_lowercase(), c[2].parse().unwrap_or(0)))
}

/// Counts of one runner, and whether its summary was seen at all.
#[derive(Default)]
pub(super) struct Group {
    counts: TestCounts,
    seen: bool,
}

impl Group {
    fn add(&mut self, counts: TestCounts) {
        self.counts.add(counts);
        self.seen = true;
    }
}

/// Runners whose summary spans several lines, or that must not be counted twice.
#[derive(Default)]
pub(super) struct Pending {
    node: Group,
    /// TAP "# tests N" and whether a "# pass N" line came: tape and node's TAP print both.
    tap_tests: u64,
    tap_pass_seen: bool,
    /// cargo: the counts of the test binary running, until its "test result:" line.
    cargo_binary: Option<TestCounts>,
    go_cases: Group,
    go_pkgs: Group,
    /// `go test -v`: a `=== RUN` line, or a test that passed or was skipped (without `-v` go
    /// prints only the tests that failed).
    go_verbose: bool,
    pytest_progress: Group,
    /// unittest: the count of a "Ran N tests" line whose OK/FAILED line has not come yet.
    unittest_ran: Option<u64>,
    mocha: Group,
    mocha_passing_seen: bool,
    bun: Group,
    bun_ran_seen: bool,
    /// surefire: per-class lines since the last "Results:" total of a module.
    surefire_classes: Group,
    dotnet_assemblies: Group,
    dotnet_totals: Group,
    dotnet_run_block: bool,
    ctest_not_run_block: bool,
    /// TAP's test points, read as a tree: the leaves, counted when no runner printed a summary
    /// (node-tap 16's TAP ends with none).
    tap: super::tap::Reader,
    tap_leaves: Group,
}

// cargo test: "test result: ok. 3 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s"
static CARGO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored"));

// A test binary's start and its tests' lines, counted until its "test result:" line. A binary
// that aborts (a stack overflow, a panic that cannot unwind) prints none: the runtime's
// "fatal runtime error: …" ends it, and what its tests showed until then is its summary, with
// the test that brought it down failed.
static CARGO_RUNNING: LazyLock<Regex> = LazyLock::new(|| re(r"^running \d+ tests?\s*$"));
static CARGO_CASE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^test \S.*? \.\.\. (ok|FAILED|ignored)(?:,.*)?$"));
static CARGO_ABORT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:fatal runtime error: |thread caused non-unwinding panic\. aborting\.)")
});

fn cargo(line: &str, total: &mut Group, p: &mut Pending) -> bool {
    if CARGO_RUNNING.is_match(line) {
        p.cargo_binary = Some(TestCounts::default());
        return false;
    }
    if let (Some(binary), Some(c)) = (p.cargo_binary.as_mut(), CARGO_CASE.captures(line)) {
        match &c[1] {
            "ok" => binary.passed += 1,
            "FAILED" => binary.failed += 1,
            _ => binary.ignored += 1,
        }
        return false;
    }
    if CARGO_ABORT.is_match(line)
        && let Some(mut binary) = p.cargo_binary.take()
    {
        binary.failed += 1;
        total.add(binary);
        return true;
    }
    let Some(c) = CARGO.captures(line) else {
        return false;
    };
    p.cargo_binary = None;
    total.add(TestCounts {
        passed: num(&c, 1),
        failed: num(&c, 2),
        ignored: num(&c, 3),
    });
    true
}

// nextest: "     Summary [   0.012s] 5 tests run: 4 passed, 1 failed, 2 skipped"
static NEXTEST: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*Summary \[[^\]]*\]\s+(\d+) tests? run: (.*)$"));

fn nextest(line: &str, total: &mut Group, _: &mut Pending) -> bool {
    let Some(c) = NEXTEST.captures(line) else {
        return false;
    };
    let counts = counts_in(&c[2]);
    let run = num(&c, 1);
    // "5 tests run: 5 passed" — trust the run count when the list leaves some out.
    total.add(TestCounts {
        passed: counts.passed.max(run.saturating_sub(counts.failed)),
        ..counts
    });
    true
}

// pytest: "==== 3 passed, 1 failed, 2 skipped in 0.12s ====", "==== no tests ran in 0.01s ===="
static PYTEST: LazyLock<Regex> = LazyLock::new(|| re(r"^=+ (.*?) in [\d.]+m?s(?: \([^)]*\))? =+$"));
// pytest -q: "2 failed, 1 passed in 0.03s", "no tests ran in 0.01s" (the bare line, no `=` rule)
static PYTEST_SHORT: LazyLock<Regex> = LazyLock::new(|| {
    let word = r"(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)";
    re(&format!(
        r"^(no tests ran|\d+ {word}(?:, \d+ {word})*) in \d+(?:\.\d+)?s(?: \([\d:]+\))?\s*$"
    ))
});
// pytest -qq prints no summary at all, only progress: "..sxXE      [100%]"
static PYTEST_PROGRESS: LazyLock<Regex> = LazyLock::new(|| re(r"^([.FEsxX]+) +\[ *\d{1,3}%\]\s*$"));

fn pytest(line: &str, total: &mut Group, p: &mut Pending) -> bool {
    if let Some(c) = PYTEST.captures(line) {
        let body = &c[1];
        if body.contains("no tests ran") || COUNT.is_match(body) {
            total.add(counts_in(body));
        }
    } else if let Some(c) = PYTEST_SHORT.captures(line) {
        total.add(counts_in(&c[1]));
    } else if let Some(c) = PYTEST_PROGRESS.captures(line) {
        let mut counts = TestCounts::default();
        for mark in c[1].chars() {
            match mark {
                '.' | 'X' => counts.passed += 1,
                'F' | 'E' => counts.failed += 1,
                _ => counts.ignored += 1,
            }
        }
        p.pytest_progress.add(counts);
    } else {
        return false;
    }
    true
}

// unittest: "Ran 5 tests in 0.001s", then "OK", "OK (skipped=1)", "FAILED (failures=1, errors=1)"
static UNITTEST_RAN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Ran (\d+) tests? in \d+(?:\.\d+)?s\s*$"));
static UNITTEST_STATUS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:OK|FAILED|NO TESTS RAN)(?: \(([^)]*)\))?\s*$"));

fn unittest(line: &str, _: &mut Group, p: &mut Pending) -> bool {
    let Some(c) = UNITTEST_RAN.captures(line) else {
        return false;
    };
    p.unittest_ran = Some(num(&c, 1));
    true
}

/// After "Ran N tests in …": blank lines, then the verdict; anything else drops the run.
fn unittest_verdict(line: &str, total: &mut Group, p: &mut Pending) -> bool {
    let Some(ran) = p.unittest_ran else {
        return false;
    };
    if line.trim().is_empty() {
        return true;
    }
    p.unittest_ran = None;
    let Some(c) = UNITTEST_STATUS.captures(line) else {
        return false;
    };
    let mut counts = TestCounts::default();
    for (key, n) in keyed(c.get(1).map_or("", |m| m.as_str())) {
        match key.as_str() {
            "failures" | "errors" | "unexpected successes" => counts.failed += n,
            "skipped" | "expected failures" => counts.ignored += n,
            _ => {}
        }
    }
    counts.passed = ran.saturating_sub(counts.failed + counts.ignored);
    total.add(counts);
    true
}

// jest: "Tests:       1 failed, 2 skipped, 3 passed, 6 total"
static JEST: LazyLock<Regex> = LazyLock::new(|| re(r"^Tests:\s+(.*\d+ total)\s*$"));

fn jest(line: &str, total: &mut Group, _: &mut Pending) -> bool {
    let Some(c) = JEST.captures(line) else {
        return false;
    };
    total.add(counts_in(&c[1]));
    true
}

// vitest: "      Tests  1 failed | 2 passed | 1 skipped (4)"
static VITEST: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Tests\s+(.*)\((\d+)\)\s*$"));

fn vitest(line: &str, total: &mut Group, _: &mut Pending) -> bool {
    let Some(c) = VITEST.captures(line) else {
        return false;
    };
    total.add(counts_in(&c[1]));
    true
}

// deno test: "ok | 2 passed | 0 failed | 1 ignored (28ms)", "FAILED | 2 passed | 1 failed (28ms)"
static DENO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:ok|FAILED) \| (\d+ passed \| \d+ failed.*?)\s*\([^)]*\)\s*$"));

fn deno(line: &str, total: &mut Group, _: &mut Pending) -> bool {
    let Some(c) = DENO.captures(line) else {
        return false;
    };
    total.add(counts_in(&c[1]));
    true
}

// node --test: "# pass 3" (TAP) or "ℹ pass 3" (spec reporter); tape: "# pass  3"
static NODE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:#|ℹ) (tests|pass|fail|skipped|skip|todo|cancelled) +(\d+)\s*$"));

fn node(line: &str, _: &mut Group, p: &mut Pending) -> bool {
    let Some(c) = NODE.captures(line) else {
        return false;
    };
    let n = num(&c, 2);
    match &c[1] {
        "tests" => p.tap_tests += n,
        "pass" => {
            p.node.counts.passed += n;
            p.tap_pass_seen = true;
        }
        "fail" | "cancelled" => p.node.counts.failed += n,
        "skipped" | "skip" | "todo" => p.node.counts.ignored += n,
        _ => {}
    }
    p.node.seen = true;
    true
}

// node-tap: "# { total: 3, pass: 2, fail: 1 }"
static NODE_TAP: LazyLock<Regex> =
    LazyLock::new(|| re(r"^# \{ (total: \d+(?:, \w+: \d+)*) \}\s*$"));

fn node_tap(line: &str, total: &mut Group, _: &mut Pending) -> bool {
    let Some(c) = NODE_TAP.captures(line) else {
        return false;
    };
    let mut counts = TestCounts::default();
    let mut run = 0;
    let mut pass_seen = false;
    for (key, n) in keyed(&c[1]) {
        match key.as_str() {
            "total" => run += n,
            "pass" => {
                counts.passed += n;
                pass_seen = true;
            }
            "fail" => counts.failed += n,
            "skip" | "todo" => counts.ignored += n,
            _ => {}
        }
    }
    if !pass_seen {
        counts.passed = run.saturating_sub(counts.failed + counts.ignored);
    }
    total.add(counts);
    true
}

// mocha: "  2 passing (4ms)", "  1 failing", "  1 pending"
static MOCHA_PASSING: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(\d+) passing \(\d+(?:\.\d+)?(?:ms|s|m|h)\)\s*$"));
static MOCHA_OTHER: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(\d+) (failing|pending)\s*$"));

fn mocha(line: &str, _: &mut Group, p: &mut Pending) -> bool {
    if let Some(c) = MOCHA_PASSING.captures(line) {
        p.mocha.add(TestCounts {
            passed: num(&c, 1),
            ..TestCounts::default()
        });
        p.mocha_passing_seen = true;
    } else if let Some(c) = MOCHA_OTHER.captures(line) {
        let n = num(&c, 1);
        match &c[2] {
            "failing" => p.mocha.counts.failed += n,
            _ => p.mocha.counts.ignored += n,
        }
    } else {
        return false;
    }
    true
}

// bun test: " 2 pass", " 1 fail", " 1 skip", " 1 todo", then "Ran 3 tests across 1 file. [26.00ms]"
static BUN_COUNT: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(\d+) (pass|fail|skip|todo)\s*$"));
static BUN_RAN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Ran (\d+) tests? across \d+ files?\. \[[^\]]*\]\s*$"));

fn bun(line: &str, _: &mut Group, p: &mut Pending) -> bool {
    if let Some(c) = BUN_COUNT.captures(line) {
        let n = num(&c, 1);
        match &c[2] {
            "pass" => p.bun.counts.passed += n,
            "fail" => p.bun.counts.failed += n,
            _ => p.bun.counts.ignored += n,
        }
    } else if BUN_RAN.is_match(line) {
        p.bun_ran_seen = true;
    } else {
        return false;
    }
    true
}

// RSpec: "4 examples, 1 failure, 1 pending" (", 1 error occurred outside of examples" may follow)
static RSPEC: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?(?:, (\d+) errors? occurred outside of examples)?\s*$",
    )
});

fn rspec(line: &str, total: &mut Group, _: &mut Pending) -> bool {
    let Some(c) = RSPEC.captures(line) else {
        return false;
    };
    let examples = num(&c, 1);
    let failures = num(&c, 2);
    let pending = num(&c, 3);
    total.add(TestCounts {
        passed: examples.saturating_sub(failures + pending),
        failed: failures + num(&c, 4),
        ignored: pending,
    });
    true
}

// PHPUnit: "OK (2 tests, 2 assertions)"; after "FAILURES!" etc. "Tests: 5, Assertions: 3, Errors: 1, Failures: 1."
static PHPUNIT_OK: LazyLock<Regex> =
    LazyLock::new(|| re(r"^OK \((\d+) tests?, \d+ assertions?\)\s*$"));
static PHPUNIT_TESTS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Tests: (\d+), Assertions: \d+((?:, [A-Za-z ]+: \d+)*)\.?\s*$"));

fn phpunit(line: &str, total: &mut Group, _: &mut Pending) -> bool {
    if let Some(c) = PHPUNIT_OK.captures(line) {
        total.add(TestCounts {
            passed: num(&c, 1),
            ..TestCounts::default()
        });
    } else if let Some(c) = PHPUNIT_TESTS.captures(line) {
        let mut counts = TestCounts::default();
        for (key, n) in keyed(&c[2]) {
            match key.as_str() {
                "failures" | "errors" => counts.failed += n,
                // PHPUnit 9 counts "No tests found in class" as a test with a warning, and a
                // risky test asserted nothing: neither proves anything.
                "skipped" | "incomplete" | "risky" | "warnings" => counts.ignored += n,
                _ => {}
            }
        }
        counts.passed = num(&c, 1).saturating_sub(counts.failed + counts.ignored);
        total.add(counts);
    } else if line.trim_end() == "No tests executed!" {
        total.add(TestCounts::default());
    } else {
        return false;
    }
    true
}

// Maven surefire: "[INFO] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1[, Time elapsed: … - in Class]"
static SUREFIRE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:\[[A-Z]+\]\s+)?Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(.*)$")
});

fn surefire(line: &str, total: &mut Group, p: &mut Pending) -> bool {
    let Some(c) = SUREFIRE.captures(line) else {
        return false;
    };
    let (run, failures, errors, skipped) = (num(&c, 1), num(&c, 2), num(&c, 3), num(&c, 4));
    let counts = TestCounts {
        passed: run.saturating_sub(failures + errors + skipped),
        failed: failures + errors,
        ignored: skipped,
    };
    if c[5].contains("Time elapsed") {
        p.surefire_classes.add(counts);
    } else {
        // A module's total after "Results:": it already holds that module's classes.
        total.add(counts);
        p.surefire_classes = Group::default();
    }
    true
}

// dotnet test (VSTest): "Passed!  - Failed:     0, Passed:     3, Skipped:     0, Total:     3, …"
static DOTNET_ASSEMBLY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:Passed|Failed)!\s+-\s+Failed:\s+(\d+), Passed:\s+(\d+), Skipped:\s+(\d+), Total:\s+\d+",
    )
});
// dotnet test (terminal logger): "Test summary: total: 3, failed: 0, succeeded: 3, skipped: 0, duration: 1s"
static DOTNET_SUMMARY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s*Test summary: total: \d+, failed: (\d+), succeeded: (\d+), skipped: (\d+)")
});
// dotnet test (Microsoft.Testing.Platform): "Test run summary: Passed!" then "  total: 3", "  failed: 0", …
static DOTNET_RUN_SUMMARY: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Test run summary: "));
static DOTNET_RUN_COUNT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+(total|failed|succeeded|skipped|error): (\d+)\s*$"));

fn dotnet(line: &str, _: &mut Group, p: &mut Pending) -> bool {
    if let Some(c) = DOTNET_SUMMARY.captures(line) {
        p.dotnet_totals.add(TestCounts {
            passed: num(&c, 2),
            failed: num(&c, 1),
            ignored: num(&c, 3),
        });
    } else if DOTNET_RUN_SUMMARY.is_match(line) {
        p.dotnet_run_block = true;
        p.dotnet_totals.seen = true;
    } else if let Some(c) = DOTNET_ASSEMBLY.captures(line) {
        p.dotnet_assemblies.add(TestCounts {
            passed: num(&c, 2),
            failed: num(&c, 1),
            ignored: num(&c, 3),
        });
    } else {
        return false;
    }
    true
}

/// The counts under "Test run summary:", one a line, until a line that is none.
fn dotnet_run_count(line: &str, _: &mut Group, p: &mut Pending) -> bool {
    if !p.dotnet_run_block {
        return false;
    }
    let Some(c) = DOTNET_RUN_COUNT.captures(line) else {
        p.dotnet_run_block = false;
        return false;
    };
    let n = num(&c, 2);
    let counts = &mut p.dotnet_totals.counts;
    match &c[1] {
        "succeeded" => counts.passed += n,
        "failed" | "error" => counts.failed += n,
        "skipped" => counts.ignored += n,
        _ => {}
    }
    true
}

// CTest: "67% tests passed, 1 tests failed out of 3", "No tests were found!!!"
static CTEST: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\d+% tests? passed, (\d+) tests? failed out of (\d+)\s*$"));
static CTEST_NOT_RUN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+\d+ - .+ \((Skipped|Disabled)\)\s*$"));

fn ctest(line: &str, total: &mut Group, p: &mut Pending) -> bool {
    if let Some(c) = CTEST.captures(line) {
        let failed = num(&c, 1);
        total.add(TestCounts {
            passed: num(&c, 2).saturating_sub(failed),
            failed,
            ignored: 0,
        });
    } else if line.trim_end() == "The following tests did not run:" {
        p.ctest_not_run_block = true;
    } else if line.trim_end() == "No tests were found!!!" {
        total.add(TestCounts::default());
    } else {
        return false;
    }
    true
}

/// The tests listed under "The following tests did not run:", until a line that is none.
fn ctest_not_run(line: &str, total: &mut Group, p: &mut Pending) -> bool {
    if !p.ctest_not_run_block {
        return false;
    }
    let Some(c) = CTEST_NOT_RUN.captures(line) else {
        p.ctest_not_run_block = false;
        return false;
    };
    // A skipped test is in CTest's "passed" count; a disabled one is in no count.
    if &c[1] == "Skipped" {
        total.counts.passed = total.counts.passed.saturating_sub(1);
    }
    total.counts.ignored += 1;
    true
}

// plain: "3 passed, 1 failed" alone on a line (", 2 skipped" may follow; one word and a colon may lead)
static PLAIN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:\w+:\s*)?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$"));

fn plain(line: &str, total: &mut Group, _: &mut Pending) -> bool {
    let Some(c) = PLAIN.captures(line) else {
        return false;
    };
    total.add(TestCounts {
        passed: num(&c, 1),
        failed: num(&c, 2),
        ignored: num(&c, 3),
    });
    true
}

// go test -v: "=== RUN   TestX", "--- PASS: TestX (0.00s)"; without -v: "ok  	pkg	0.01s" /
// "FAIL	pkg	0.01s", and "--- FAIL: TestX (0.00s)" for the tests that failed, no others
static GO_CASE: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*--- (PASS|FAIL|SKIP): "));
static GO_RUN: LazyLock<Regex> = LazyLock::new(|| re(r"^=== (RUN|PAUSE|CONT|NAME)\s"));
static GO_PKG: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(ok|FAIL|---)\s+\S+\s+(?:[\d.]+s|\(cached\))(.*)$"));

fn go(line: &str, _: &mut Group, p: &mut Pending) -> bool {
    if GO_RUN.is_match(line) {
        p.go_verbose = true;
    } else if let Some(c) = GO_CASE.captures(line) {
        match &c[1] {
            "PASS" => p.go_cases.counts.passed += 1,
            "FAIL" => p.go_cases.counts.failed += 1,
            _ => p.go_cases.counts.ignored += 1,
        }
        p.go_verbose |= &c[1] != "FAIL";
        p.go_cases.seen = true;
    } else if let Some(c) = GO_PKG.captures(line) {
        match &c[1] {
            "ok" if c[2].contains("[no tests to run]") => {}
            "ok" => p.go_pkgs.counts.passed += 1,
            "FAIL" => p.go_pkgs.counts.failed += 1,
            _ => {}
        }
        p.go_pkgs.seen = true;
    } else {
        return false;
    }
    true
}

/// A TAP line: a leaf test point is counted (for when no summary comes); headings, parents'
/// points and YAML diagnostics are read so that a leaf is known.
fn tap_point(line: &str, _: &mut Group, p: &mut Pending) -> bool {
    let before = p.tap.points;
    match p.tap.line(line) {
        Some(leaf) => {
            let c = &mut p.tap_leaves.counts;
            match leaf.result {
                super::tap::Result::Passed => c.passed += 1,
                super::tap::Result::Failed => c.failed += 1,
                super::tap::Result::Ignored => c.ignored += 1,
            }
            p.tap_leaves.seen = true;
            true
        }
        None => p.tap.points > before,
    }
}

/// Add the runners that are only known at the end of the output.
pub(super) fn finish(mut total: Group, mut p: Pending) -> Option<TestCounts> {
    if p.node.seen {
        if !p.tap_pass_seen {
            // TAP that gives "# tests N" and its failures but no "# pass" line.
            let c = &mut p.node.counts;
            c.passed = p.tap_tests.saturating_sub(c.failed + c.ignored);
        }
        total.add(p.node.counts);
    }
    // `go test -v` lists each test: count those. Without -v only packages are known: the
    // `--- FAIL` lines it prints then are the failures alone, and counting them beside a green
    // run's `ok` lines (one a package) would weigh tests against packages.
    if p.go_cases.seen && (p.go_verbose || !p.go_pkgs.seen) {
        total.add(p.go_cases.counts);
    } else if p.go_pkgs.seen {
        total.add(p.go_pkgs.counts);
    }
    // mocha's "N failing" alone proves nothing: mocha always prints "N passing (time)".
    if p.mocha_passing_seen {
        total.add(p.mocha.counts);
    }
    // bun's " N pass" alone proves nothing: bun always ends with "Ran N tests across …".
    if p.bun_ran_seen {
        total.add(p.bun.counts);
    }
    // Per-class lines with no "Results:" total after them (output cut short, or Gradle).
    if p.surefire_classes.seen {
        total.add(p.surefire_classes.counts);
    }
    // The run totals repeat the assemblies' lines when both are printed.
    if p.dotnet_totals.seen {
        total.add(p.dotnet_totals.counts);
    } else if p.dotnet_assemblies.seen {
        total.add(p.dotnet_assemblies.counts);
    }
    // `pytest -qq` prints only its progress lines: count them when nothing better was printed.
    if p.pytest_progress.seen && !total.seen {
        total.add(p.pytest_progress.counts);
    }
    // TAP's leaf points, when no runner summed them up.
    if p.tap_leaves.seen && !total.seen {
        total.add(p.tap_leaves.counts);
    }
    total.seen.then_some(total.counts)
}
