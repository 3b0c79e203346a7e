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
// node --test: "# pass 3" (TAP) or "ℹ pass 3" (spec reporter)
static NODE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:#|ℹ) (tests|pass|fail|skipped|todo|cancelled) (\d+)\s*$"));
// plain: "3 passed, 1 failed" alone on a line (", 2 skipped" may follow; one word and a colon may lead)
static PLAIN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*(?:\w+:\s*)?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$"));
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

/// Sum the test summaries in `output`; None when no runner's summary was recognised.
pub fn recognise(output: &str) -> Option<TestCounts> {
    let mut total = TestCounts::default();
    let mut seen = false;
    let mut node = TestCounts::default();
    let mut node_seen = false;
    let mut go_cases = TestCounts::default();
    let mut go_cases_seen = false;
    let mut go_pkgs = TestCounts::default();
    let mut go_pkgs_seen = false;
    for raw in output.lines() {
        let clean = ANSI.replace_all(raw, "");
        let line = clean.trim_end_matches('\r');
        if let Some(c) = CARGO.captures(line) {
            total.add(TestCounts {
                passed: c[1].parse().unwrap_or(0),
                failed: c[2].parse().unwrap_or(0),
                ignored: c[3].parse().unwrap_or(0),
            });
            seen = true;
        } else if let Some(c) = NEXTEST.captures(line) {
            let counts = counts_in(&c[2]);
            let run: u64 = c[1].parse().unwrap_or(0);
            // "5 tests run: 5 passed" — trust the run count when the list leaves some out.
            total.add(TestCounts {
                passed: counts.passed.max(run.saturating_sub(counts.failed)),
                ..counts
            });
            seen = true;
        } else if let Some(c) = PYTEST.captures(line) {
            let body = &c[1];
            if body.contains("no tests ran") || COUNT.is_match(body) {
                total.add(counts_in(body));
                seen = true;
            }
        } else if let Some(c) = JEST.captures(line) {
            total.add(counts_in(&c[1]));
            seen = true;
        } else if let Some(c) = VITEST.captures(line) {
            total.add(counts_in(&c[1]));
            seen = true;
        } else if let Some(c) = NODE.captures(line) {
            let n: u64 = c[2].parse().unwrap_or(0);
            match &c[1] {
                "pass" => node.passed += n,
                "fail" | "cancelled" => node.failed += n,
                "skipped" | "todo" => node.ignored += n,
                _ => {}
            }
            node_seen = true;
        } else if let Some(c) = PLAIN.captures(line) {
            total.add(TestCounts {
                passed: c[1].parse().unwrap_or(0),
                failed: c[2].parse().unwrap_or(0),
                ignored: c.get(3).map_or(0, |m| m.as_str().parse().unwrap_or(0)),
            });
            seen = true;
        } else if let Some(c) = GO_CASE.captures(line) {
            match &c[1] {
                "PASS" => go_cases.passed += 1,
                "FAIL" => go_cases.failed += 1,
                _ => go_cases.ignored += 1,
            }
            go_cases_seen = true;
        } else if let Some(c) = GO_PKG.captures(line) {
            match &c[1] {
                "ok" if c[2].contains("[no tests to run]") => {}
                "ok" => go_pkgs.passed += 1,
                "FAIL" => go_pkgs.failed += 1,
                _ => {}
            }
            go_pkgs_seen = true;
        }
    }
    if node_seen {
        total.add(node);
        seen = true;
    }
    // `go test -v` lists each test: count those; without -v only packages are known.
    if go_cases_seen {
        total.add(go_cases);
        seen = true;
    } else if go_pkgs_seen {
        total.add(go_pkgs);
        seen = true;
    }
    seen.then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ("all good", None),
            ("we have 3 passed, 0 failed tests here", None),
            ("", None),
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
            (fixture!("plain-pass"), t(4, 0, 0)),
            (fixture!("plain-fail"), t(3, 1, 2)),
            (fixture!("plain-none"), t(0, 0, 0)),
        ];
        for ((name, output), want) in cases {
            assert_eq!(recognise(output), want, "{name}");
        }
    }
}
