use super::TestOutcome::*;
use super::*;

fn named(output: &str) -> Vec<(String, TestOutcome)> {
    from_output(output)
        .names
        .into_iter()
        .map(|t| (t.name, t.outcome))
        .collect()
}

fn list(items: &[(&str, TestOutcome)]) -> Vec<(String, TestOutcome)> {
    items.iter().map(|(n, o)| (n.to_string(), *o)).collect()
}

const NODE_SPEC: &str = "\
✔ adds (2.410208ms)
✖ flaky (13.971307ms)
  AssertionError [ERR_ASSERTION]: The expression evaluated to a falsy value:
﹣ later (0.137123ms) # SKIP
▶ suite
  ✔ inner (0.138234ms)
✔ suite (0.371632ms)
ℹ tests 4
ℹ pass 2

✖ failing tests:

test at fx.test.mjs:4:1
✖ flaky (13.971307ms)
";

#[test]
fn names_from_real_runner_output() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, TestOutcome)]);
    let cases: &[Case] = &[
        (
            "cargo test",
            include_str!("../tests/fixtures/runners/cargo-fail.txt"),
            &[
                ("tests::adds", Passed),
                ("tests::adds_zero", Passed),
                ("tests::flaky", Failed),
            ],
        ),
        (
            "cargo test, a binary aborted by a stack overflow",
            include_str!("../tests/fixtures/runners/cargo-abort.txt"),
            &[
                ("tests::adds", Passed),
                ("tests::adds_zero", Passed),
                ("tests::nests_deeply", Failed),
            ],
        ),
        (
            "cargo nextest",
            include_str!("../tests/fixtures/runners/nextest-fail.txt"),
            &[
                ("tests::adds_zero", Passed),
                ("tests::adds", Passed),
                ("tests::flaky", Failed),
            ],
        ),
        (
            "pytest short summary",
            include_str!("../tests/fixtures/runners/pytest-fail.txt"),
            &[("test_fx.py::test_flaky", Failed)],
        ),
        (
            "go test -v",
            include_str!("../tests/fixtures/runners/go-fail.txt"),
            &[("TestAdds", Passed), ("TestFlaky", Failed)],
        ),
        (
            "node --test (TAP)",
            include_str!("../tests/fixtures/runners/node-fail.txt"),
            &[("adds", Passed), ("flaky", Failed)],
        ),
        (
            "node-tap (TAP 14, nested)",
            include_str!("../tests/fixtures/runners/tap-fail.txt"),
            &[
                ("tap/fail/test.mjs > maths > adds", Passed),
                ("tap/fail/test.mjs > maths > multiplies", Passed),
                ("tap/fail/test.mjs > maths > is wrong", Failed),
            ],
        ),
        (
            "node-tap 21, nested twice (default output into a pipe)",
            include_str!("../tests/fixtures/runners/tap-nested-fail.txt"),
            &[
                ("nestedfail.test.mjs > math > adds > one plus one", Passed),
                ("nestedfail.test.mjs > math > adds > two plus two", Failed),
                (
                    "nestedfail.test.mjs > math > subtracts > three minus one",
                    Passed,
                ),
                ("nestedfail.test.mjs > strings > concat", Passed),
            ],
        ),
        (
            "node-tap 16 (TAP 13, no summary line)",
            include_str!("../tests/fixtures/runners/tap13-nested-fail.txt"),
            &[
                ("nestedfail.test.js > math > adds > one plus one", Passed),
                ("nestedfail.test.js > math > adds > two plus two", Failed),
                (
                    "nestedfail.test.js > math > subtracts > three minus one",
                    Passed,
                ),
                ("nestedfail.test.js > strings > concat", Passed),
            ],
        ),
        (
            "node-tap 16's classic reporter: the failures alone are named",
            include_str!("../tests/fixtures/runners/tap-classic-fail.txt"),
            &[("nestedfail.test.js > math > adds > two plus two", Failed)],
        ),
        (
            "node-tap 16's classic reporter, all passing: no name",
            include_str!("../tests/fixtures/runners/tap-classic-pass.txt"),
            &[],
        ),
        (
            "jest",
            include_str!("../tests/fixtures/runners/jest-fail.txt"),
            &[("adds", Passed), ("flaky", Failed)],
        ),
        (
            "node --test (spec reporter), a failure listed twice",
            NODE_SPEC,
            &[
                ("adds", Passed),
                ("flaky", Failed),
                ("later", Ignored),
                ("inner", Passed),
                ("suite", Passed),
            ],
        ),
    ];
    for (what, output, want) in cases {
        assert_eq!(named(output), list(want), "{what}");
    }
}

#[test]
fn names_line_by_line() {
    let cases: &[(&str, &[(&str, TestOutcome)])] = &[
        ("test a::b ... ok", &[("a::b", Passed)]),
        // A Rust test binary aborted: the runtime names the test's thread.
        (
            "thread 'a::deep' has overflowed its stack\nfatal runtime error: stack overflow",
            &[("a::deep", Failed)],
        ),
        // The message in pieces on stderr, a result line on stdout printed between them.
        (
            "thread 'test a::b ... ok\na::deep' (7) has overflowed its stack\nfatal runtime error: stack overflow",
            &[("a::b", Passed), ("a::deep", Failed)],
        ),
        (
            "thread 'a::deeptest a::b ... ok\n' (7) has overflowed its stack\nfatal runtime error: stack overflow",
            &[("a::b", Passed), ("a::deep", Failed)],
        ),
        (
            "thread 'a::deep' (7test a::b ... ok\n) has overflowed its stack\nfatal runtime error: stack overflow",
            &[("a::b", Passed), ("a::deep", Failed)],
        ),
        (
            "thread 'a::drops' (test a::b ... FAILED\n7) panicked at src/a.rs:9:5:\nboom\nfatal runtime error: failed to initiate panic, error 5",
            &[("a::b", Failed), ("a::drops", Failed)],
        ),
        // A line that only starts alike is left as it is.
        (
            "thread 'x' is not a message\ntest a::b ... ok",
            &[("a::b", Passed)],
        ),
        (
            "thread 'a::drops' (7) panicked at src/a.rs:9:5:\nboom\nthread 'a::drops' (7) panicked at src/a.rs:3:9:\nagain\nthread caused non-unwinding panic. aborting.",
            &[("a::drops", Failed)],
        ),
        (
            "thread 'a::nounwind' panicked at src/a.rs:9:5:\nboom\nfatal runtime error: failed to initiate panic, error 5",
            &[("a::nounwind", Failed)],
        ),
        // A panic reported with its result line (a failure, or a should_panic test shown with
        // --nocapture) is what that line says; the main thread is no test.
        (
            "thread 'a::b' panicked at src/a.rs:9:5:\nexpected\ntest a::b - should panic ... ok",
            &[("a::b", Passed)],
        ),
        (
            "thread 'a::c' panicked at src/a.rs:9:5:\nboom\ntest a::c ... ok",
            &[("a::c", Passed)],
        ),
        (
            "thread 'main' has overflowed its stack\nfatal runtime error: stack overflow",
            &[],
        ),
        // A panic its test's result line settled is no longer the one an abort names; a
        // result line of another test leaves it pending.
        (
            "thread 'a::c' panicked at src/a.rs:9:5:\nboom\ntest a::c ... ok\nfatal runtime error: stack overflow",
            &[("a::c", Passed)],
        ),
        (
            "thread 'a::d' panicked at src/a.rs:9:5:\nboom\ntest a::other ... ok\nthread caused non-unwinding panic. aborting.",
            &[("a::other", Passed), ("a::d", Failed)],
        ),
        // A panic in one binary, an abort after the next binary began: not that panic's.
        (
            "thread 'a::e' panicked at src/a.rs:9:5:\nboom\nrunning 1 test\nfatal runtime error: stack overflow",
            &[],
        ),
        (
            "test a::b ... ignored, needs a network",
            &[("a::b", Ignored)],
        ),
        (
            "test src/lib.rs - add (line 3) ... FAILED",
            &[("src/lib.rs - add (line 3)", Failed)],
        ),
        (
            "tests/test_calc.py::test_add PASSED                 [ 50%]",
            &[("tests/test_calc.py::test_add", Passed)],
        ),
        (
            "tests/test_calc.py::test_x[1-2] SKIPPED (later)     [100%]",
            &[("tests/test_calc.py::test_x[1-2]", Ignored)],
        ),
        (
            "FAILED tests/test_calc.py::test_add - assert 0 == 4",
            &[("tests/test_calc.py::test_add", Failed)],
        ),
        (
            "PASSED tests/test_calc.py::test_mul",
            &[("tests/test_calc.py::test_mul", Passed)],
        ),
        (
            "ERROR tests/test_calc.py::test_db - RuntimeError",
            &[("tests/test_calc.py::test_db", Failed)],
        ),
        (
            "    --- SKIP: TestAdd/negative (0.00s)",
            &[("TestAdd/negative", Ignored)],
        ),
        ("ok 3 - later # SKIP not today", &[("later", Ignored)]),
        ("not ok 4 - todo one # TODO", &[("todo one", Ignored)]),
        ("\x1b[32m✓\x1b[39m adds (3 ms)", &[("adds", Passed)]),
        // node's spec reporter marks a skipped or todo test with its directive, whatever the mark.
        ("✔ soon (0.1ms) # SKIP", &[("soon", Ignored)]),
        ("✔ later (0.1ms) # TODO", &[("later", Ignored)]),
        ("  ○ skipped later", &[("later", Ignored)]),
        ("running 3 tests", &[]),
        ("test result: ok. 3 passed; 0 failed; 0 ignored", &[]),
        ("1 passed, 0 failed", &[]),
    ];
    for (line, want) in cases {
        assert_eq!(named(line), list(want), "{line}");
    }
}

#[test]
fn names_are_capped() {
    let output: String = (0..NAMES_CAP + 5)
        .map(|i| format!("test t{i} ... ok\n"))
        .collect();
    let names = from_output(&output);
    assert_eq!(names.names.len(), NAMES_CAP);
    assert!(names.truncated);
    assert!(!names.usable());
}

#[test]
fn names_from_junit() {
    let names = from_junit(include_bytes!("../tests/fixtures/junit/pytest.xml")).unwrap();
    let got: Vec<(String, TestOutcome)> = names
        .names
        .into_iter()
        .map(|t| (t.name, t.outcome))
        .collect();
    assert_eq!(
        got,
        list(&[
            ("test_a::test_ok", Passed),
            ("test_a::test_ok_too", Passed),
            ("test_a::test_skipped", Ignored),
            ("test_a::test_xfail", Ignored),
            ("test_a::test_xpass", Passed),
            ("test_a::test_error", Failed),
        ])
    );
    assert!(from_junit(b"<testsuite><testcase name=\"a\"></testsuite>").is_err());
}

fn names(items: &[(&str, TestOutcome)]) -> TestNames {
    TestNames {
        names: items
            .iter()
            .map(|(n, o)| TestName {
                name: n.to_string(),
                outcome: *o,
            })
            .collect(),
        truncated: false,
    }
}

type Rule<'a> = (
    &'a str,
    RunTests<'a>,
    RunTests<'a>,
    Result<(), Vec<Missing>>,
);

fn counts(passed: u64, failed: u64, ignored: u64) -> Option<TestCounts> {
    Some(TestCounts {
        passed,
        failed,
        ignored,
    })
}

#[test]
fn green_covers_red_by_name_else_by_counts() {
    let red = names(&[("add", Failed), ("mul", Passed)]);
    let green_ok = names(&[("add", Passed), ("mul", Passed)]);
    let green_skip = names(&[("add", Ignored), ("mul", Passed)]);
    let green_gone = names(&[("mul", Passed)]);
    let run = |c, n| RunTests {
        counts: c,
        names: n,
    };
    let cases: Vec<Rule> = vec![
        (
            "by name: the red failure passes",
            run(counts(1, 1, 0), Some(&red)),
            run(counts(2, 0, 0), Some(&green_ok)),
            Ok(()),
        ),
        (
            "by name: skipped at the end",
            run(counts(1, 1, 0), Some(&red)),
            run(counts(1, 0, 1), Some(&green_skip)),
            Err(vec![Missing::NotPassed {
                name: "add".into(),
                green: Some(Ignored),
            }]),
        ),
        (
            "by name: gone at the end (deselected), even with enough passes",
            run(counts(1, 1, 0), Some(&red)),
            run(counts(5, 0, 0), Some(&green_gone)),
            Err(vec![Missing::NotPassed {
                name: "add".into(),
                green: None,
            }]),
        ),
        (
            "by counts: enough passed",
            run(counts(0, 2, 1), None),
            run(counts(2, 0, 1), None),
            Ok(()),
        ),
        (
            "by counts: too few passed, more skipped",
            run(counts(0, 2, 0), None),
            run(counts(1, 0, 1), Some(&green_ok)),
            Err(vec![
                Missing::FewerPassed {
                    needed: 2,
                    passed: 1,
                },
                Missing::MoreIgnored {
                    allowed: 0,
                    ignored: 1,
                },
            ]),
        ),
        (
            "red with no summary (a build failure): skipped",
            run(None, None),
            run(None, None),
            Ok(()),
        ),
        (
            "green with no summary",
            run(counts(0, 1, 0), None),
            run(None, None),
            Err(vec![Missing::NoSummary]),
        ),
    ];
    for (what, red, green, want) in cases {
        assert_eq!(green_covers_red(&red, &green), want, "{what}");
    }
}

#[test]
fn go_without_v_covers_red_by_packages() {
    // `go test .` names the failing tests red, and green prints one `ok` line for the package:
    // both runs count packages, so one package failing red and passing green covers it.
    let red = "--- FAIL: TestDecodeA (0.00s)\n    decode_test.go:12: got 1\n--- FAIL: TestDecodeB (0.00s)\nFAIL\nFAIL\texample.com/toml\t0.010s\nFAIL\n";
    let green = "ok  \texample.com/toml\t0.012s\n";
    let failing = "--- FAIL: TestDecodeA (0.00s)\nFAIL\nFAIL\texample.com/toml\t0.010s\n";
    let (red_names, green_names) = (from_output(red), from_output(green));
    let run = |output, names| RunTests {
        counts: crate::summary::recognise(output),
        names: Some(names),
    };
    assert_eq!(
        green_covers_red(&run(red, &red_names), &run(green, &green_names)),
        Ok(())
    );
    // Green failing again is no cover: it names its failures, so by name.
    let failing_names = from_output(failing);
    assert_eq!(
        green_covers_red(&run(red, &red_names), &run(failing, &failing_names)),
        Err(vec![
            Missing::NotPassed {
                name: "TestDecodeA".into(),
                green: Some(Failed),
            },
            Missing::NotPassed {
                name: "TestDecodeB".into(),
                green: None,
            },
        ])
    );
    // A green that ran no package (`[no tests to run]`) passes none.
    let none = "ok  \texample.com/toml\t0.001s [no tests to run]\n";
    let none_names = from_output(none);
    assert_eq!(
        green_covers_red(&run(red, &red_names), &run(none, &none_names)),
        Err(vec![Missing::FewerPassed {
            needed: 1,
            passed: 0
        }])
    );
}

#[test]
fn green_covers_a_tap_leaf_by_its_subtest() {
    // node-tap names a leaf by its message, which may differ red and green: an error thrown
    // in place of the assertion, or values in the message.
    let red = names(&[
        ("f.js > parsing > v1 x > Invalid comparator: v1", Failed),
        ("f.js > parsing > v2 y > v2 => y", Passed),
        ("f.js > parsing > v2 y > same result", Passed),
        ("f.js > other > ok", Passed),
    ]);
    fn run(names: &TestNames) -> RunTests<'_> {
        RunTests {
            counts: None,
            names: Some(names),
        }
    }
    let leaf = |green: Option<TestOutcome>| {
        Err(vec![Missing::NotPassed {
            name: "f.js > parsing > v1 x > Invalid comparator: v1".into(),
            green,
        }])
    };
    type Case<'a> = (&'a str, TestNames, Result<(), Vec<Missing>>);
    let cases: Vec<Case> = vec![
        (
            "the subtest passes whole green",
            names(&[
                ("f.js > parsing > v1 x > v1 => x", Passed),
                ("f.js > parsing > v1 x > same result", Passed),
                ("f.js > parsing > v2 y > v2 => y", Passed),
            ]),
            Ok(()),
        ),
        (
            "another assertion of the subtest fails green",
            names(&[
                ("f.js > parsing > v1 x > v1 => x", Passed),
                ("f.js > parsing > v1 x > same result", Failed),
            ]),
            leaf(None),
        ),
        (
            "an assertion of the subtest skipped green",
            names(&[
                ("f.js > parsing > v1 x > v1 => x", Passed),
                ("f.js > parsing > v1 x > same result", Ignored),
            ]),
            leaf(None),
        ),
        (
            "the subtest not run green",
            names(&[("f.js > parsing > v2 y > v2 => y", Passed)]),
            leaf(None),
        ),
        (
            "the same leaf fails green",
            names(&[("f.js > parsing > v1 x > Invalid comparator: v1", Failed)]),
            leaf(Some(Failed)),
        ),
    ];
    for (what, green, want) in cases {
        assert_eq!(green_covers_red(&run(&red), &run(&green)), want, "{what}");
    }
    // A leaf skipped red and green counts among the subtest's leaves on both sides.
    let red = names(&[("f.js > s > got 3", Failed), ("f.js > s > later", Ignored)]);
    let green = names(&[("f.js > s > got 4", Passed), ("f.js > s > later", Ignored)]);
    assert_eq!(green_covers_red(&run(&red), &run(&green)), Ok(()));
    let red = names(&[
        ("f.js > s > got 3", Failed),
        ("f.js > s > later", Ignored),
        ("f.js > s > second", Passed),
    ]);
    assert_eq!(
        green_covers_red(&run(&red), &run(&green)),
        Err(vec![Missing::NotPassed {
            name: "f.js > s > got 3".into(),
            green: None,
        }])
    );
    // Fewer leaves green than red ran under the subtest: an assertion no longer reached.
    let red = names(&[("f.js > s > got 3", Failed), ("f.js > s > second", Passed)]);
    let green = names(&[("f.js > s > second", Passed)]);
    assert_eq!(
        green_covers_red(&run(&red), &run(&green)),
        Err(vec![Missing::NotPassed {
            name: "f.js > s > got 3".into(),
            green: None,
        }])
    );
}

#[test]
fn guards_hold() {
    let base = names(&[("a", Passed), ("b", Passed), ("c", Ignored)]);
    let same = names(&[("a", Passed), ("b", Passed), ("c", Ignored)]);
    let lost = names(&[("a", Passed), ("c", Ignored), ("d", Passed)]);
    let run = |c, n| RunTests {
        counts: c,
        names: n,
    };
    let cases: Vec<Rule> = vec![
        (
            "same tests",
            run(counts(2, 0, 1), Some(&base)),
            run(counts(2, 0, 1), Some(&same)),
            Ok(()),
        ),
        (
            "a test lost, replaced by another (counts equal)",
            run(counts(2, 0, 1), Some(&base)),
            run(counts(2, 0, 1), Some(&lost)),
            Err(vec![Missing::Lost { name: "b".into() }]),
        ),
        (
            "fewer passed, more skipped",
            run(counts(3, 0, 0), None),
            run(counts(2, 0, 1), None),
            Err(vec![
                Missing::FewerPassed {
                    needed: 3,
                    passed: 2,
                },
                Missing::MoreIgnored {
                    allowed: 0,
                    ignored: 1,
                },
            ]),
        ),
        (
            "more tests at the end",
            run(counts(3, 0, 1), None),
            run(counts(5, 0, 0), None),
            Ok(()),
        ),
        (
            "a linter: no summary on the base",
            run(None, None),
            run(None, None),
            Ok(()),
        ),
    ];
    for (what, base, green, want) in cases {
        assert_eq!(guard_holds(&base, &green), want, "{what}");
    }
}

#[test]
fn missing_reads_as_a_sentence() {
    let cases: &[(Missing, &str)] = &[
        (
            Missing::NotPassed {
                name: "add".into(),
                green: None,
            },
            "add failed on the code before the goal but did not run at the end",
        ),
        (
            Missing::NotPassed {
                name: "add".into(),
                green: Some(Failed),
            },
            "add failed on the code before the goal but fails at the end",
        ),
        (
            Missing::Lost { name: "b".into() },
            "b ran on the base but not at the end",
        ),
        (
            Missing::FewerPassed {
                needed: 3,
                passed: 2,
            },
            "2 tests passed at the end, 3 needed",
        ),
        (
            Missing::MoreIgnored {
                allowed: 0,
                ignored: 1,
            },
            "1 tests were skipped at the end, at most 0 allowed",
        ),
    ];
    for (missing, text) in cases {
        assert_eq!(missing.to_string(), *text);
    }
}

/// Test files that failed to load, as each runner says it; a test that ran and failed is not one.
#[test]
fn suites_that_failed_to_run_are_named_by_file() {
    let cases: &[(&str, &[&str])] = &[
        // ts-jest: a type error against the base code.
        (
            "FAIL test/calc.test.ts\n  ● Test suite failed to run\n\n    test/calc.test.ts:3:21 - error TS2554: Expected 2 arguments, but got 3.\n\nTest Suites: 1 failed, 1 total\nTests:       0 total\n",
            &["test/calc.test.ts"],
        ),
        // jest: a test that ran and failed is no suite that failed to run.
        (
            "FAIL test/calc.test.ts\n  ● adds\n\n    expect(received).toBe(expected)\n\nTests:       1 failed, 1 total\n",
            &[],
        ),
        // jest with a duration, colours, and the error in a code file.
        (
            "\u{1b}[1mFAIL\u{1b}[22m src/a.test.ts (5.2 s)\n  ● Test suite failed to run\n\n    src/calc.ts:9:3 - error TS2322: Type 'string' is not assignable to type 'number'.\n",
            &["src/a.test.ts", "src/calc.ts"],
        ),
        // vitest: a file whose import cannot be resolved.
        (
            " FAIL  test/calc.test.ts [ test/calc.test.ts ]\nSyntaxError: The requested module '../src/calc' does not provide an export named 'mul'\n Test Files  1 failed (1)\n      Tests  no tests\n",
            &["test/calc.test.ts"],
        ),
        // vitest: a failing test names the test after the file, not a bracketed file.
        (
            " FAIL  test/calc.test.ts > adds\nAssertionError: expected 1 to be 2\n",
            &[],
        ),
        // tsc's own format, with ./ dropped.
        (
            "./test/a.spec.tsx(3,21): error TS2304: Cannot find name 'mul'.\n",
            &["test/a.spec.tsx"],
        ),
        ("PASS test/calc.test.ts\nTests: 2 passed, 2 total\n", &[]),
    ];
    for (output, want) in cases {
        assert_eq!(suites_failed_to_run(output), *want, "{output}");
    }
}

/// `python -m unittest -v` as Python 3.11 and 3.10 print it: each test by its id, a docstring on
/// the name's line or the next, every result word; the failures listed again after the run.
#[test]
fn unittest_verbose_names_each_test_by_its_id() {
    let out = "\
test_add (tests.test_calc.TestCalc.test_add) ... ok
test_sub (tests.test_calc.TestCalc.test_sub) ... FAIL
test_div (tests.test_calc.TestCalc) ... ERROR
test_doc (tests.test_calc.TestCalc.test_doc)
Adds two numbers. ... ok
test_skip (tests.test_calc.TestCalc.test_skip) ... skipped 'not today'
test_xf (tests.test_calc.TestCalc.test_xf) ... expected failure
test_xp (tests.test_calc.TestCalc.test_xp) ... unexpected success
test_first (tests.test_calc.TestCalc.test_first) first line of its docstring ... ok

======================================================================
FAIL: test_sub (tests.test_calc.TestCalc.test_sub)
----------------------------------------------------------------------
Traceback (most recent call last):
AssertionError: 1 != 5

======================================================================
FAIL: test_add (tests.test_calc.TestCalc.test_add) (x=3)
----------------------------------------------------------------------
Ran 9 tests in 0.001s

FAILED (failures=1, errors=1, skipped=1, expected failures=1, unexpected successes=1)
";
    assert_eq!(
        named(out),
        list(&[
            ("tests.test_calc.TestCalc.test_add", Failed),
            ("tests.test_calc.TestCalc.test_sub", Failed),
            ("tests.test_calc.TestCalc.test_div", Failed),
            ("tests.test_calc.TestCalc.test_doc", Passed),
            ("tests.test_calc.TestCalc.test_skip", Ignored),
            ("tests.test_calc.TestCalc.test_xf", Ignored),
            ("tests.test_calc.TestCalc.test_xp", Passed),
            ("tests.test_calc.TestCalc.test_first", Passed),
        ])
    );
}
