//! Recognising test-runner summary lines in a command's output, summed over the whole output.

use std::sync::LazyLock;

use regex::Regex;

/// Test counts parsed from a run's output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TestCounts {
    pub passed: u64,
    pub failed: u64,
    pub ignored: u64,
}

impl TestCounts {
    fn add(&mut self, other: TestCounts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.ignored += other.ignored;
    }
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad pattern {pattern}: {e}"))
}

static ANSI: LazyLock<Regex> = LazyLock::new(|| re(r"\x1b\[[0-9;?]*[A-Za-z]"));
// cargo test: "test result: ok. 3 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s"
static CARGO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored"));
// nextest: "     Summary [   0.012s] 5 tests run: 4 passed, 1 failed, 2 skipped"
static NEXTEST: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*Summary \[[^\]]*\]\s+(\d+) tests? run: (.*)$"));
// pytest: "==== 3 passed, 1 failed, 2 skipped in 0.12s ====", "==== no tests ran in 0.01s ===="
static PYTEST: LazyLock<Regex> = LazyLock::new(|| re(r"^=+ (.*?) in [\d.]+m?s(?: \([^)]*\))? =+$"));
// go test -v: "--- PASS: TestX (0.00s)"; without -v: "ok  	pkg	0.01s" / "FAIL	pkg	0.01s"
static GO_CASE: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*--- (PASS|FAIL|SKIP): "));
static GO_PKG: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(ok|FAIL|---)\s+\S+\s+(?:[\d.]+s|\(cached\))(.*)$"));
// jest: "Tests:       1 failed, 2 skipped, 3 passed, 6 total"
static JEST: LazyLock<Regex> = LazyLock::new(|| re(r"^Tests:\s+(.*\d+ total)\s*$"));
// vitest: "      Tests  1 failed | 2 passed | 1 skipped (4)"
static VITEST: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*Tests\s+(.*)\((\d+)\)\s*$"));
// node --test: "# pass 3" (TAP) or "ℹ pass 3" (spec reporter); tape: "# pass  3"
static NODE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:#|ℹ) (tests|pass|fail|skipped|skip|todo|cancelled) +(\d+)\s*$"));
// plain: "3 passed, 1 failed" alone on a line (", 2 skipped" may follow; one word and a colon may lead)
static PLAIN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:\w+:\s*)?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$"));
// pytest -q: "2 failed, 1 passed in 0.03s", "no tests ran in 0.01s" (the bare line, no `=` rule)
static PYTEST_SHORT: LazyLock<Regex> = LazyLock::new(|| {
    let word = r"(?:passed|failed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)";
    re(&format!(
        r"^(no tests ran|\d+ {word}(?:, \d+ {word})*) in \d+(?:\.\d+)?s(?: \([\d:]+\))?\s*$"
    ))
});
// pytest -qq prints no summary at all, only progress: "..sxXE      [100%]"
static PYTEST_PROGRESS: LazyLock<Regex> = LazyLock::new(|| re(r"^([.FEsxX]+) +\[ *\d{1,3}%\]\s*$"));
// unittest: "Ran 5 tests in 0.001s", then "OK", "OK (skipped=1)", "FAILED (failures=1, errors=1)"
static UNITTEST_RAN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Ran (\d+) tests? in \d+(?:\.\d+)?s\s*$"));
static UNITTEST_STATUS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:OK|FAILED|NO TESTS RAN)(?: \(([^)]*)\))?\s*$"));
static KEY_COUNT: LazyLock<Regex> = LazyLock::new(|| re(r"(\w+(?: \w+)?)[=:] ?(\d+)"));
// mocha: "  2 passing (4ms)", "  1 failing", "  1 pending"
static MOCHA_PASSING: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(\d+) passing \(\d+(?:\.\d+)?(?:ms|s|m|h)\)\s*$"));
static MOCHA_OTHER: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(\d+) (failing|pending)\s*$"));
// bun test: " 2 pass", " 1 fail", " 1 skip", " 1 todo", then "Ran 3 tests across 1 file. [26.00ms]"
static BUN_COUNT: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*(\d+) (pass|fail|skip|todo)\s*$"));
static BUN_RAN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Ran (\d+) tests? across \d+ files?\. \[[^\]]*\]\s*$"));
// deno test: "ok | 2 passed | 0 failed | 1 ignored (28ms)", "FAILED | 2 passed | 1 failed (28ms)"
static DENO: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:ok|FAILED) \| (\d+ passed \| \d+ failed.*?)\s*\([^)]*\)\s*$"));
// node-tap: "# { total: 3, pass: 2, fail: 1 }"
static NODE_TAP: LazyLock<Regex> =
    LazyLock::new(|| re(r"^# \{ (total: \d+(?:, \w+: \d+)*) \}\s*$"));
// RSpec: "4 examples, 1 failure, 1 pending" (", 1 error occurred outside of examples" may follow)
static RSPEC: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?(?:, (\d+) errors? occurred outside of examples)?\s*$",
    )
});
// PHPUnit: "OK (2 tests, 2 assertions)"; after "FAILURES!" etc. "Tests: 5, Assertions: 3, Errors: 1, Failures: 1."
static PHPUNIT_OK: LazyLock<Regex> =
    LazyLock::new(|| re(r"^OK \((\d+) tests?, \d+ assertions?\)\s*$"));
static PHPUNIT_TESTS: LazyLock<Regex> =
    LazyLock::new(|| re(r"^Tests: (\d+), Assertions: \d+((?:, [A-Za-z ]+: \d+)*)\.?\s*$"));
// Maven surefire: "[INFO] Tests run: 3, Failures: 1, Errors: 0, Skipped: 1[, Time elapsed: … - in Class]"
static SUREFIRE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^(?:\[[A-Z]+\]\s+)?Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(.*)$")
});
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
// CTest: "67% tests passed, 1 tests failed out of 3", "No tests were found!!!"
static CTEST: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\d+% tests? passed, (\d+) tests? failed out of (\d+)\s*$"));
static CTEST_NOT_RUN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s+\d+ - .+ \((Skipped|Disabled)\)\s*$"));
static COUNT: LazyLock<Regex> = LazyLock::new(|| re(r"(\d+) (\w+)"));

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
struct Group {
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
struct Pending {
    node: Group,
    /// TAP "# tests N" and whether a "# pass N" line came: tape and node's TAP print both.
    tap_tests: u64,
    tap_pass_seen: bool,
    go_cases: Group,
    go_pkgs: Group,
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
}

/// The test summary of a run of `argv`: [`recognise`] over its output without the lines the
/// command line itself carries. A command that prints its own summary
/// (`python3 -c "print('1 passed in 0.01s')"`) grades itself: that line is no test's result. Only
/// lines with a digit in them and at least four characters long are taken out, so that a short
/// verdict line ("OK") is never lost to a word of the command.
pub fn recognise_run(argv: &[String], output: &str) -> Option<TestCounts> {
    recognise_run_noting(argv, output).0
}

/// [`recognise_run`], and whether a summary the command carries was left out (the result
/// differs from reading every line). The output is read once unless a line was taken out.
pub fn recognise_run_noting(argv: &[String], output: &str) -> (Option<TestCounts>, bool) {
    let command = argv.join(" ");
    let mut dropped = false;
    let kept: Vec<&str> = output
        .lines()
        .filter(|line| {
            let text = ANSI.replace_all(line, "");
            let text = text.trim();
            let echoed = text.len() >= 4
                && text.bytes().any(|b| b.is_ascii_digit())
                && command.contains(text);
            dropped |= echoed;
            !echoed
        })
        .collect();
    if !dropped {
        return (recognise(output), false);
    }
    let tests = recognise(&kept.join("\n"));
    (tests, tests != recognise(output))
}

/// Sum the test summaries in `output`; None when no runner's summary was recognised.
pub fn recognise(output: &str) -> Option<TestCounts> {
    let mut total = Group::default();
    let mut p = Pending::default();
    for raw in output.lines() {
        let clean = ANSI.replace_all(raw, "");
        let line = clean.trim_end_matches('\r');
        if let Some(ran) = p.unittest_ran {
            // "Ran N tests in …", a blank line, then the verdict; anything else drops the run.
            if line.trim().is_empty() {
                continue;
            }
            p.unittest_ran = None;
            if let Some(c) = UNITTEST_STATUS.captures(line) {
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
                continue;
            }
        }
        if p.dotnet_run_block {
            if let Some(c) = DOTNET_RUN_COUNT.captures(line) {
                let n = num(&c, 2);
                let counts = &mut p.dotnet_totals.counts;
                match &c[1] {
                    "succeeded" => counts.passed += n,
                    "failed" | "error" => counts.failed += n,
                    "skipped" => counts.ignored += n,
                    _ => {}
                }
                continue;
            }
            p.dotnet_run_block = false;
        }
        if p.ctest_not_run_block {
            if let Some(c) = CTEST_NOT_RUN.captures(line) {
                // A skipped test is in CTest's "passed" count; a disabled one is in no count.
                if &c[1] == "Skipped" {
                    total.counts.passed = total.counts.passed.saturating_sub(1);
                }
                total.counts.ignored += 1;
                continue;
            }
            p.ctest_not_run_block = false;
        }
        if let Some(c) = CARGO.captures(line) {
            total.add(TestCounts {
                passed: num(&c, 1),
                failed: num(&c, 2),
                ignored: num(&c, 3),
            });
        } else if let Some(c) = NEXTEST.captures(line) {
            let counts = counts_in(&c[2]);
            let run = num(&c, 1);
            // "5 tests run: 5 passed" — trust the run count when the list leaves some out.
            total.add(TestCounts {
                passed: counts.passed.max(run.saturating_sub(counts.failed)),
                ..counts
            });
        } else if let Some(c) = PYTEST.captures(line) {
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
        } else if let Some(c) = UNITTEST_RAN.captures(line) {
            p.unittest_ran = Some(num(&c, 1));
        } else if let Some(c) = JEST.captures(line) {
            total.add(counts_in(&c[1]));
        } else if let Some(c) = VITEST.captures(line) {
            total.add(counts_in(&c[1]));
        } else if let Some(c) = DENO.captures(line) {
            total.add(counts_in(&c[1]));
        } else if let Some(c) = NODE.captures(line) {
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
        } else if let Some(c) = NODE_TAP.captures(line) {
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
        } else if let Some(c) = MOCHA_PASSING.captures(line) {
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
        } else if let Some(c) = BUN_COUNT.captures(line) {
            let n = num(&c, 1);
            match &c[2] {
                "pass" => p.bun.counts.passed += n,
                "fail" => p.bun.counts.failed += n,
                _ => p.bun.counts.ignored += n,
            }
        } else if BUN_RAN.is_match(line) {
            p.bun_ran_seen = true;
        } else if let Some(c) = RSPEC.captures(line) {
            let examples = num(&c, 1);
            let failures = num(&c, 2);
            let pending = num(&c, 3);
            total.add(TestCounts {
                passed: examples.saturating_sub(failures + pending),
                failed: failures + num(&c, 4),
                ignored: pending,
            });
        } else if let Some(c) = PHPUNIT_OK.captures(line) {
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
        } else if line.trim_end() == "No tests executed!"
            || line.trim_end() == "No tests were found!!!"
        {
            total.add(TestCounts::default());
        } else if let Some(c) = SUREFIRE.captures(line) {
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
        } else if let Some(c) = DOTNET_SUMMARY.captures(line) {
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
        } else if let Some(c) = CTEST.captures(line) {
            let failed = num(&c, 1);
            total.add(TestCounts {
                passed: num(&c, 2).saturating_sub(failed),
                failed,
                ignored: 0,
            });
        } else if line.trim_end() == "The following tests did not run:" {
            p.ctest_not_run_block = true;
        } else if let Some(c) = PLAIN.captures(line) {
            total.add(TestCounts {
                passed: num(&c, 1),
                failed: num(&c, 2),
                ignored: num(&c, 3),
            });
        } else if let Some(c) = GO_CASE.captures(line) {
            match &c[1] {
                "PASS" => p.go_cases.counts.passed += 1,
                "FAIL" => p.go_cases.counts.failed += 1,
                _ => p.go_cases.counts.ignored += 1,
            }
            p.go_cases.seen = true;
        } else if let Some(c) = GO_PKG.captures(line) {
            match &c[1] {
                "ok" if c[2].contains("[no tests to run]") => {}
                "ok" => p.go_pkgs.counts.passed += 1,
                "FAIL" => p.go_pkgs.counts.failed += 1,
                _ => {}
            }
            p.go_pkgs.seen = true;
        }
    }
    finish(total, p)
}

/// Add the runners that are only known at the end of the output.
fn finish(mut total: Group, mut p: Pending) -> Option<TestCounts> {
    if p.node.seen {
        if !p.tap_pass_seen {
            // TAP that gives "# tests N" and its failures but no "# pass" line.
            let c = &mut p.node.counts;
            c.passed = p.tap_tests.saturating_sub(c.failed + c.ignored);
        }
        total.add(p.node.counts);
    }
    // `go test -v` lists each test: count those; without -v only packages are known.
    if p.go_cases.seen {
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
    total.seen.then_some(total.counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        shell_words::split(line).unwrap()
    }

    #[test]
    fn a_summary_the_command_carries_is_not_read() {
        // (command, output, counts or None)
        let passed = |n| {
            Some(TestCounts {
                passed: n,
                ..TestCounts::default()
            })
        };
        let cases: &[(&str, &str, Option<TestCounts>)] = &[
            (
                r#"python3 -c "print('1 passed in 0.01s')""#,
                "1 passed in 0.01s\n",
                None,
            ),
            (
                r#"python3 -c "import marker; print('1 passed in 0.01s')""#,
                "1 passed in 0.01s\n",
                None,
            ),
            (
                r#"sh -c 'echo "test result: ok. 3 passed; 0 failed; 0 ignored"'"#,
                "test result: ok. 3 passed; 0 failed; 0 ignored\n",
                None,
            ),
            (
                r#"python3 -c "print('Ran 2 tests in 0.001s'); print(); print('OK')""#,
                "Ran 2 tests in 0.001s\n\nOK\n",
                None,
            ),
            // A real runner's summary is read, whatever words the command has.
            (
                "pytest -q tests/test_calc.py",
                "..\n2 passed in 0.01s\n",
                passed(2),
            ),
            ("make OK", "Ran 2 tests in 0.001s\n\nOK\n", passed(2)),
            (
                "cargo test 1",
                "test result: ok. 1 passed; 0 failed; 0 ignored\n",
                passed(1),
            ),
            // The printed summary is dropped; a real one beside it is still read.
            (
                r#"sh -c "pytest -q; echo '5 passed in 0.01s'""#,
                "1 passed in 0.02s\n5 passed in 0.01s\n",
                passed(1),
            ),
        ];
        for (command, output, want) in cases {
            assert_eq!(recognise_run(&words(command), output), *want, "{command}");
        }
    }

    fn t(passed: u64, failed: u64, ignored: u64) -> Option<TestCounts> {
        Some(TestCounts {
            passed,
            failed,
            ignored,
        })
    }

    #[test]
    fn summary_lines() {
        let cases: &[(&str, Option<TestCounts>)] = &[
            (
                "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s",
                t(3, 0, 1),
            ),
            (
                "test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out",
                t(1, 2, 0),
            ),
            (
                "test result: ok. 2 passed; 0 failed; 0 ignored\n\ntest result: ok. 0 passed; 0 failed; 0 ignored",
                t(2, 0, 0),
            ),
            (
                "     Summary [   0.012s] 5 tests run: 5 passed, 0 skipped",
                t(5, 0, 0),
            ),
            (
                "     Summary [   0.012s] 5 tests run: 4 passed, 1 failed, 2 skipped",
                t(4, 1, 2),
            ),
            (
                "     Summary [   0.000s] 0 tests run: 0 passed, 0 skipped",
                t(0, 0, 0),
            ),
            // A list that leaves a test out: the run count, less the failures, passed.
            (
                "     Summary [   0.012s] 5 tests run: 3 passed, 1 failed",
                t(4, 1, 0),
            ),
            (
                "============ 3 passed, 1 failed, 2 skipped in 0.12s ============",
                t(3, 1, 2),
            ),
            ("======= 2 passed, 1 warning in 0.01s =======", t(2, 0, 0)),
            ("======= 1 error in 0.01s =======", t(0, 1, 0)),
            (
                "============ no tests ran in 0.01s ============",
                t(0, 0, 0),
            ),
            (
                "--- PASS: TestA (0.00s)\n--- FAIL: TestB (0.00s)\nFAIL\tx\t0.01s",
                t(1, 1, 0),
            ),
            (
                "ok  \texample.com/a\t0.003s\nok  \texample.com/b\t(cached)",
                t(2, 0, 0),
            ),
            ("ok  \texample.com/a\t0.003s [no tests to run]", t(0, 0, 0)),
            (
                "Tests:       1 failed, 2 skipped, 3 passed, 6 total",
                t(3, 1, 2),
            ),
            (
                "      Tests  1 failed | 2 passed | 1 skipped (4)",
                t(2, 1, 1),
            ),
            ("      Tests  2 passed (2)", t(2, 0, 0)),
            (
                "# tests 3\n# suites 0\n# pass 2\n# fail 1\n# cancelled 0\n# skipped 0\n# todo 0",
                t(2, 1, 0),
            ),
            ("ℹ tests 2\nℹ pass 2\nℹ fail 0", t(2, 0, 0)),
            // TAP with "# tests N" but no "# pass" line: the rest of N passed.
            ("# tests 5\n# fail 1\n# skipped 2", t(2, 1, 2)),
            ("3 passed, 0 failed", t(3, 0, 0)),
            ("Result: 3 passed, 1 failed, 2 skipped", t(3, 1, 2)),
            (
                "\x1b[32mtest result: ok.\x1b[0m 4 passed; 0 failed; 0 ignored",
                t(4, 0, 0),
            ),
            (
                "\x1b[1m     Summary\x1b[0m [   0.012s] 2 tests run: 2 passed, 0 skipped",
                t(2, 0, 0),
            ),
            // go test without -v: only packages are known.
            (
                "ok  \texample.com/a\t0.003s\nFAIL\texample.com/b\t0.004s",
                t(1, 1, 0),
            ),
            ("======= 1 passed, 1 xpassed in 0.01s =======", t(2, 0, 0)),
            ("1 passed in 0.01s", t(1, 0, 0)),
            ("2 failed, 1 passed in 0.03s", t(1, 2, 0)),
            ("1 passed, 1 skipped, 1 xfailed in 0.04s", t(1, 0, 2)),
            ("1 error in 0.02s", t(0, 1, 0)),
            ("3 passed, 2 errors in 62.15s (0:01:02)", t(3, 2, 0)),
            ("no tests ran in 0.01s", t(0, 0, 0)),
            ("..F.s   [100%]", t(3, 1, 1)),
            ("Ran 4 tests in 0.002s\n\nOK", t(4, 0, 0)),
            ("Ran 4 tests in 0.002s\n\nOK (skipped=1)", t(3, 0, 1)),
            (
                "Ran 6 tests in 0.002s\n\nFAILED (failures=1, errors=2, skipped=1)",
                t(2, 3, 1),
            ),
            (
                "Ran 3 tests in 0.002s\n\nOK (expected failures=1)",
                t(2, 0, 1),
            ),
            ("Ran 0 tests in 0.000s\n\nOK", t(0, 0, 0)),
            ("Ran 0 tests in 0.000s\n\nNO TESTS RAN", t(0, 0, 0)),
            // A "Ran" line whose verdict never came proves nothing.
            (
                "Ran 3 tests in 0.002s\nTraceback (most recent call last):",
                None,
            ),
            ("  3 passing (12ms)\n  1 failing\n  2 pending", t(3, 1, 2)),
            ("  0 passing (1ms)", t(0, 0, 0)),
            (
                " 2 pass\n 1 fail\n 4 expect() calls\nRan 3 tests across 1 files. [12.00ms]",
                t(2, 1, 0),
            ),
            ("ok | 2 passed | 0 failed (5ms)", t(2, 0, 0)),
            ("FAILED | 1 passed | 1 failed (5ms)", t(1, 1, 0)),
            (
                "ok | 3 passed | 0 failed | 1 ignored | 2 filtered out (1s)",
                t(3, 0, 1),
            ),
            ("1..3\n# tests 3\n# pass  2\n# fail  1", t(2, 1, 0)),
            ("1..3\n# tests 3\n# fail 1", t(2, 1, 0)),
            ("# { total: 4, pass: 2, fail: 1, skip: 1 }", t(2, 1, 1)),
            ("# { total: 3, fail: 1 }", t(2, 1, 0)),
            // "pass" given: it counts, not what the total leaves over (a cancelled test here).
            (
                "# { total: 5, pass: 2, fail: 1, skip: 1, cancelled: 1 }",
                t(2, 1, 1),
            ),
            // No "pass": the total less the failed and the skipped.
            ("# { total: 5, fail: 1, skip: 2 }", t(2, 1, 2)),
            ("3 examples, 0 failures", t(3, 0, 0)),
            ("4 examples, 1 failure, 1 pending", t(2, 1, 1)),
            (
                "0 examples, 0 failures, 1 error occurred outside of examples",
                t(0, 1, 0),
            ),
            ("OK (3 tests, 5 assertions)", t(3, 0, 0)),
            ("OK (1 test, 1 assertion)", t(1, 0, 0)),
            (
                "FAILURES!\nTests: 5, Assertions: 7, Failures: 1, Errors: 1, Skipped: 1.",
                t(2, 2, 1),
            ),
            (
                "OK, but there were issues!\nTests: 3, Assertions: 3, PHPUnit Deprecations: 2.",
                t(3, 0, 0),
            ),
            ("No tests executed!", t(0, 0, 0)),
            (
                "[INFO] Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.05 s - in a.ATest\n\
                 [ERROR] Tests run: 3, Failures: 1, Errors: 1, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! - in a.BTest\n\
                 [INFO] Results:\n\
                 [ERROR] Tests run: 5, Failures: 1, Errors: 1, Skipped: 0",
                t(3, 2, 0),
            ),
            // Per-class lines and no total (Gradle, or output cut short): summed.
            (
                "Tests run: 2, Failures: 0, Errors: 0, Skipped: 1, Time elapsed: 0.05 sec\n\
                 Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 sec",
                t(3, 1, 1),
            ),
            (
                "Tests run: 2, Failures: 0, Errors: 0, Skipped: 0, Flakes: 1",
                t(2, 0, 0),
            ),
            (
                "Passed!  - Failed:     0, Passed:     3, Skipped:     0, Total:     3, Duration: 3 ms - A.dll (net8.0)",
                t(3, 0, 0),
            ),
            (
                "Test summary: total: 3, failed: 0, succeeded: 3, skipped: 0, duration: 1.2s",
                t(3, 0, 0),
            ),
            (
                "Test summary: total: 5, failed: 1, succeeded: 3, skipped: 1, duration: 1.2s",
                t(3, 1, 1),
            ),
            // The run's summary repeats the assemblies' lines: not counted twice.
            (
                "Passed!  - Failed:     0, Passed:     3, Skipped:     0, Total:     3\n\
                 Test summary: total: 3, failed: 0, succeeded: 3, skipped: 0, duration: 1.2s",
                t(3, 0, 0),
            ),
            (
                "Test run summary: Failed!\n  total: 5\n  failed: 1\n  succeeded: 2\n  skipped: 2\n  duration: 705ms",
                t(2, 1, 2),
            ),
            (
                "Test run summary: Zero tests ran\n  total: 0\n  failed: 0\n  succeeded: 0\n  skipped: 0",
                t(0, 0, 0),
            ),
            ("100% tests passed, 0 tests failed out of 3", t(3, 0, 0)),
            ("67% tests passed, 1 tests failed out of 3", t(2, 1, 0)),
            ("No tests were found!!!", t(0, 0, 0)),
            ("all good", None),
            ("we have 3 passed, 0 failed tests here", None),
            ("Ran the migration", None),
            ("Ran 3 migrations in 0.2s", None),
            ("3 examples of usage", None),
            ("pass the salt", None),
            ("OK", None),
            ("FAILED (failures=1)", None),
            ("2 failing", None),
            ("1 fail\n2 pass", None),
            ("Tests run: many", None),
            ("3 tests completed", None),
            ("passing (12ms)", None),
            ("Results: fine", None),
            ("The following tests did not run:", None),
            ("loaded 3 plugins in 0.5s", None),
            ("ok | all good", None),
            ("Total: 3", None),
            ("50% done [ 50%]", None),
            ("", None),
        ];
        for (output, want) in cases {
            assert_eq!(recognise(output), *want, "{output:?}");
        }
    }

    /// Counts from several summary lines add up, whatever the runner (2 + 3, never 2 * 3 or 0).
    #[test]
    fn summed_over_lines() {
        let cases: &[(&str, Option<TestCounts>)] = &[
            (
                "test result: ok. 2 passed; 2 failed; 2 ignored\ntest result: ok. 3 passed; 3 failed; 3 ignored",
                t(5, 5, 5),
            ),
            (
                "   Summary [ 0.1s] 4 tests run: 2 passed, 2 failed, 2 skipped\n   Summary [ 0.1s] 6 tests run: 3 passed, 3 failed, 3 skipped",
                t(5, 5, 5),
            ),
            (
                "=== 2 passed, 3 xpassed, 2 failed, 3 errors, 2 skipped, 3 xfailed in 0.1s ===",
                t(5, 5, 5),
            ),
            (
                "2 passed, 2 failed, 2 skipped in 0.1s\n3 passed, 3 failed, 3 skipped in 0.1s",
                t(5, 5, 5),
            ),
            ("..FFss   [ 50%]\n...FFFsss   [100%]", t(5, 5, 5)),
            (
                "--- PASS: A (0.00s)\n--- PASS: B (0.00s)\n--- FAIL: C (0.00s)\n--- FAIL: D (0.00s)\n--- SKIP: E (0.00s)\n--- SKIP: F (0.00s)",
                t(2, 2, 2),
            ),
            (
                "ok  \ta\t0.1s\nok  \tb\t0.1s\nFAIL\tc\t0.1s\nFAIL\td\t0.1s",
                t(2, 2, 0),
            ),
            (
                "Tests:       2 failed, 2 skipped, 2 passed, 6 total\nTests:       3 failed, 3 skipped, 3 passed, 9 total",
                t(5, 5, 5),
            ),
            (
                "# pass 2\n# fail 2\n# skipped 2\n# todo 2\n# pass 3\n# fail 3\n# cancelled 3\n# skipped 3",
                t(5, 8, 7),
            ),
            ("# tests 2\n# tests 3\n# fail 2\n# fail 1", t(2, 3, 0)),
            (
                "# { total: 6, pass: 2, fail: 2, skip: 2 }\n# { total: 9, pass: 3, fail: 3, todo: 3 }",
                t(5, 5, 5),
            ),
            (
                "# { total: 6, fail: 2 }\n# { total: 9, fail: 3 }",
                t(10, 5, 0),
            ),
            (
                "Ran 6 tests in 0.1s\n\nFAILED (failures=2, errors=2, skipped=2)\nRan 9 tests in 0.1s\n\nFAILED (failures=3, unexpected successes=2, expected failures=3)",
                t(1, 9, 5),
            ),
            (
                "  2 passing (1ms)\n  2 failing\n  2 pending\n  3 passing (1ms)\n  3 failing\n  3 pending",
                t(5, 5, 5),
            ),
            (
                " 2 pass\n 2 fail\n 2 skip\n 3 pass\n 3 fail\n 3 todo\nRan 15 tests across 2 files. [1ms]",
                t(5, 5, 5),
            ),
            (
                "ok | 2 passed | 2 failed | 2 ignored (1ms)\nok | 3 passed | 3 failed | 3 ignored (1ms)",
                t(5, 5, 5),
            ),
            (
                "6 examples, 2 failures, 2 pending, 2 errors occurred outside of examples\n9 examples, 3 failures, 3 pending",
                t(5, 7, 5),
            ),
            (
                "OK (2 tests, 2 assertions)\nOK (3 tests, 3 assertions)",
                t(5, 0, 0),
            ),
            (
                "Tests: 10, Assertions: 9, Failures: 2, Errors: 2, Skipped: 2, Incomplete: 2.\nTests: 12, Assertions: 9, Failures: 3, Errors: 3, Risky: 2, Warnings: 2.",
                t(4, 10, 8),
            ),
            (
                "Tests run: 8, Failures: 2, Errors: 2, Skipped: 2, Time elapsed: 1 s\nTests run: 12, Failures: 3, Errors: 3, Skipped: 3, Time elapsed: 1 s",
                t(5, 10, 5),
            ),
            (
                "[INFO] Results:\nTests run: 8, Failures: 2, Errors: 2, Skipped: 2\n[INFO] Results:\nTests run: 12, Failures: 3, Errors: 3, Skipped: 3",
                t(5, 10, 5),
            ),
            (
                "Failed!  - Failed:     2, Passed:     2, Skipped:     2, Total:     6\nFailed!  - Failed:     3, Passed:     3, Skipped:     3, Total:     9",
                t(5, 5, 5),
            ),
            (
                "Test summary: total: 6, failed: 2, succeeded: 2, skipped: 2\nTest summary: total: 9, failed: 3, succeeded: 3, skipped: 3",
                t(5, 5, 5),
            ),
            (
                "Test run summary: Failed!\n  total: 8\n  error: 2\n  failed: 2\n  succeeded: 2\n  skipped: 2\nTest run summary: Failed!\n  failed: 3\n  succeeded: 3\n  skipped: 3",
                t(5, 7, 5),
            ),
            (
                "50% tests passed, 2 tests failed out of 4\n50% tests passed, 3 tests failed out of 6",
                t(5, 5, 0),
            ),
            (
                "100% tests passed, 0 tests failed out of 5\nThe following tests did not run:\n\t  1 - a (Skipped)\n\t  2 - b (Skipped)\n\t  3 - c (Disabled)",
                t(3, 0, 3),
            ),
            (
                "2 passed, 2 failed, 2 skipped\n3 passed, 3 failed, 3 skipped",
                t(5, 5, 5),
            ),
        ];
        for (output, want) in cases {
            assert_eq!(recognise(output), *want, "{output:?}");
        }
    }

    /// Real output of each runner: passing, failing, and running no test.
    #[test]
    fn real_runner_output() {
        macro_rules! fixture {
            ($name:literal) => {
                (
                    $name,
                    include_str!(concat!("../tests/fixtures/runners/", $name, ".txt")),
                )
            };
        }
        let cases = [
            (fixture!("cargo-pass"), t(3, 0, 0)),
            (fixture!("cargo-fail"), t(2, 1, 0)),
            (fixture!("cargo-none"), t(0, 0, 0)),
            (fixture!("nextest-pass"), t(3, 0, 0)),
            (fixture!("nextest-fail"), t(2, 1, 0)),
            (fixture!("nextest-none"), t(0, 0, 3)),
            (fixture!("pytest-pass"), t(2, 0, 0)),
            (fixture!("pytest-fail"), t(1, 1, 0)),
            (fixture!("pytest-none"), t(0, 0, 2)),
            (fixture!("pytest-q-pass"), t(1, 0, 0)),
            (fixture!("pytest-q-fail"), t(1, 2, 0)),
            (fixture!("pytest-q-mixed"), t(3, 1, 2)),
            (fixture!("pytest-q-none"), t(0, 0, 0)),
            (fixture!("pytest-qq-pass"), t(1, 0, 0)),
            (fixture!("pytest-qq-fail"), t(1, 2, 0)),
            (fixture!("pytest-qq-mixed"), t(3, 1, 2)),
            // pytest 9 -qq prints nothing at all when no test ran.
            (fixture!("pytest-qq-none"), None),
            (fixture!("unittest-pass"), t(2, 0, 1)),
            (fixture!("unittest-fail"), t(2, 2, 1)),
            (fixture!("unittest-none"), t(0, 0, 0)),
            (fixture!("unittest-none-py313"), t(0, 0, 0)),
            (fixture!("go-pass"), t(2, 0, 0)),
            (fixture!("go-pass-quiet"), t(1, 0, 0)),
            (fixture!("go-fail"), t(1, 1, 0)),
            (fixture!("go-none"), t(0, 0, 0)),
            (fixture!("jest-pass"), t(2, 0, 0)),
            (fixture!("jest-fail"), t(1, 1, 0)),
            (fixture!("jest-none"), t(0, 0, 2)),
            (fixture!("vitest-pass"), t(2, 0, 0)),
            (fixture!("vitest-fail"), t(1, 1, 0)),
            (fixture!("vitest-none"), t(0, 0, 2)),
            (fixture!("node-pass"), t(2, 0, 0)),
            (fixture!("node-fail"), t(1, 1, 0)),
            (fixture!("node-none"), t(0, 0, 2)),
            (fixture!("mocha-pass"), t(2, 0, 1)),
            (fixture!("mocha-fail"), t(2, 1, 1)),
            (fixture!("mocha-none"), t(0, 0, 0)),
            (fixture!("bun-pass"), t(2, 0, 1)),
            (fixture!("bun-fail"), t(2, 1, 1)),
            (fixture!("bun-none"), t(0, 0, 0)),
            (fixture!("deno-pass"), t(2, 0, 1)),
            (fixture!("deno-fail"), t(2, 1, 0)),
            (fixture!("deno-none"), t(0, 0, 0)),
            (fixture!("tape-pass"), t(2, 0, 0)),
            (fixture!("tape-fail"), t(2, 1, 0)),
            (fixture!("tape-none"), t(0, 0, 0)),
            (fixture!("tap-pass"), t(2, 0, 1)),
            (fixture!("tap-fail"), t(2, 1, 0)),
            (fixture!("tap-none"), t(0, 0, 1)),
            (fixture!("rspec-pass"), t(2, 0, 1)),
            (fixture!("rspec-fail"), t(2, 1, 1)),
            (fixture!("rspec-none"), t(0, 0, 0)),
            (fixture!("phpunit-pass"), t(2, 0, 0)),
            (fixture!("phpunit-pass-skipped"), t(2, 0, 1)),
            (fixture!("phpunit-fail"), t(2, 1, 0)),
            (fixture!("phpunit-fail-errors"), t(2, 2, 1)),
            (fixture!("phpunit-none"), t(0, 0, 0)),
            (fixture!("phpunit-none-class"), t(0, 0, 1)),
            (fixture!("surefire-pass"), t(3, 0, 1)),
            (fixture!("surefire-pass-modules"), t(4, 0, 1)),
            (fixture!("surefire-fail"), t(3, 2, 1)),
            // Surefire prints nothing when it finds no test class.
            (fixture!("surefire-none"), None),
            (fixture!("dotnet-pass"), t(3, 0, 0)),
            (fixture!("dotnet-fail"), t(2, 1, 0)),
            (fixture!("ctest-pass"), t(2, 0, 1)),
            (fixture!("ctest-fail"), t(2, 1, 0)),
            (fixture!("ctest-none"), t(0, 0, 0)),
            (fixture!("plain-pass"), t(4, 0, 0)),
            (fixture!("plain-fail"), t(3, 1, 2)),
            (fixture!("plain-none"), t(0, 0, 0)),
        ];
        for ((name, output), want) in cases {
            assert_eq!(recognise(output), want, "{name}");
        }
    }
}
