//! Recognised summaries as tables: every runner's lines, sums over lines, real runners' output.

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
        // A cargo test binary that aborts ends with the runtime's message, not a result line.
        (
            "running 1 test\ntest a ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\nrunning 3 tests\ntest b ... ok\ntest c ... ignored\n\nthread 'd' has overflowed its stack\nfatal runtime error: stack overflow, aborting",
            t(2, 1, 1),
        ),
        // Without -v go names the failing tests alone, then the package: the package counts.
        (
            "--- FAIL: TestA (0.00s)\n    a_test.go:9: got 1\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/a\t0.004s\nFAIL",
            t(0, 1, 0),
        ),
        (
            "--- FAIL: TestA (0.00s)\n    --- FAIL: TestA/one (0.00s)\nFAIL\nFAIL\texample.com/a\t0.004s\nok  \texample.com/b\t0.002s",
            t(1, 1, 0),
        ),
        // With -v a run of failing tests alone still counts tests (its `=== RUN` lines say -v).
        (
            "=== RUN   TestA\n--- FAIL: TestA (0.00s)\n=== RUN   TestB\n--- FAIL: TestB (0.00s)\nFAIL\nFAIL\texample.com/a\t0.004s",
            t(0, 2, 0),
        ),
        // A `--- FAIL` with no package line after it (output cut short): the tests count.
        (
            "--- FAIL: TestA (0.00s)\n--- FAIL: TestB (0.00s)",
            t(0, 2, 0),
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
        // The runtime aborting outside a test binary is no summary.
        ("fatal runtime error: stack overflow, aborting", None),
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
                include_str!(concat!("../../tests/fixtures/runners/", $name, ".txt")),
            )
        };
    }
    let cases = [
        (fixture!("cargo-pass"), t(3, 0, 0)),
        (fixture!("cargo-fail"), t(2, 1, 0)),
        // A test binary aborted by a stack overflow: its tests until then, and the one failed.
        (fixture!("cargo-abort"), t(2, 1, 0)),
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
        // node-tap 21 into a pipe: TAP 14, subtests nested twice, the assertions its leaves.
        (fixture!("tap-nested-pass"), t(4, 0, 0)),
        (fixture!("tap-nested-fail"), t(3, 1, 0)),
        // node-tap 16 into a pipe: TAP 13 with no summary line; each leaf counted once.
        (fixture!("tap13-nested-pass"), t(4, 0, 0)),
        (fixture!("tap13-nested-fail"), t(3, 1, 0)),
        // node-tap 16's classic reporter: mocha's "N passing", "N failing".
        (fixture!("tap-classic-pass"), t(4, 0, 0)),
        (fixture!("tap-classic-fail"), t(3, 1, 0)),
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

#[test]
fn many_result_lines_without_a_summary_goal_reads_are_named_as_such() {
    let unnumbered_tap = "ok - adds\nok - subs\nok - muls\nnot ok - divs\nok - mods\n";
    let marks = "  ✓ adds\n  ✓ subs\n  ✓ muls\n  ✗ divs\n  ✓ mods\n  ✓ pows\n";
    let cases: &[(&str, &str, Option<usize>)] = &[
        ("unnumbered TAP", unnumbered_tap, Some(5)),
        ("tick marks and no count", marks, Some(6)),
        ("a few lines", "ok - adds\nok - subs\n", None),
        (
            "plain text",
            "building\ncompiling\ndone\nall good\nbye\n",
            None,
        ),
        // Read: numbered TAP with no summary counts its leaves.
        (
            "numbered TAP",
            "ok 1 - a\nok 2 - b\nok 3 - c\nok 4 - d\nok 5 - e\n",
            None,
        ),
        (
            "a summary goal reads",
            "ok - a\nok - b\nok - c\nok - d\nok - e\n5 passed, 0 failed\n",
            None,
        ),
    ];
    for (what, output, want) in cases {
        assert_eq!(super::unread_results(output), *want, "{what}");
    }
    assert_eq!(
        super::no_summary_words(marks),
        "goal cannot read this runner's summary (6 result lines, no summary goal knows)"
    );
    assert_eq!(super::no_summary_words("hello\n"), "no test summary");
}
