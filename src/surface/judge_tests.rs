use super::*;
use crate::evidence::{Extra, NewRecord, Red as RedField, seal_with};
use crate::summary::TestCounts;

const TEXT: &str = "add works (verify: `pytest -q`)";

#[derive(Clone)]
struct Run {
    exit: i32,
    tests: Option<(u64, u64, u64)>,
    tree: &'static str,
    red: Option<&'static str>,
    output: &'static str,
    /// The command line, the folder it ran in and the criterion it names.
    argv: &'static str,
    cwd: &'static str,
    number: usize,
    /// A red run's base and why its environment failed; a guard's `--base` run.
    red_base: &'static str,
    environment: Option<&'static str>,
    base_run: bool,
    names: Option<crate::test_names::TestNames>,
}

fn run(exit: i32, tests: Option<(u64, u64, u64)>, tree: &'static str) -> Run {
    Run {
        exit,
        tests,
        tree,
        red: None,
        output: "",
        argv: "pytest -q",
        cwd: "",
        number: 1,
        red_base: "BASE",
        environment: None,
        base_run: false,
        names: None,
    }
}

fn red(exit: i32, tests: Option<(u64, u64, u64)>, surface: &'static str) -> Run {
    Run {
        tree: "REDTREE-OTHER",
        red: Some(surface),
        ..run(exit, tests, "")
    }
}

fn ledger(runs: &[Run], text: &str) -> Ledger {
    let mut lines = String::new();
    let mut prev = String::new();
    for r in runs {
        let (record, line) = seal_with(
            NewRecord {
                criteria: vec![(r.number, text.to_string())],
                argv: r.argv.split_whitespace().map(String::from).collect(),
                cwd: r.cwd.into(),
                exit_code: r.exit,
                started: "2026-12-01T00:00:00Z".into(),
                duration_ms: 1,
                tree: r.tree.into(),
                tree_after: None,
                created: Vec::new(),
                changed: Vec::new(),
                tests: r.tests.map(|(passed, failed, ignored)| TestCounts {
                    passed,
                    failed,
                    ignored,
                }),
                junit: Vec::new(),
                check: false,
                output: r.output.as_bytes().to_vec(),
            },
            Extra {
                names: r.names.clone(),
                red: r.red.map(|tests| RedField {
                    base: r.red_base.into(),
                    tests: tests.into(),
                    environment: r.environment.map(String::from),
                    load_failed: Vec::new(),
                }),
                base_run: r.base_run,
                locks: None,
                exam: None,
                ran: Vec::new(),
            },
            &prev,
        );
        prev = record.hash;
        lines.push_str(&line);
    }
    Ledger::parse(lines.as_bytes()).unwrap()
}

fn target() -> RedTarget {
    RedTarget {
        base: "BASE".into(),
        tree: "REDTREE".into(),
        tests: "SURFACE".into(),
        trusted: true,
    }
}

#[test]
fn red_states() {
    // (runs, wanted state)
    let cases: Vec<(Vec<Run>, RedState)> = vec![
        (vec![], RedState::Pending),
        // Test-first: failing on the red tree itself.
        (
            vec![run(1, Some((0, 1, 0)), "REDTREE")],
            RedState::Witnessed,
        ),
        // Failing on another tree (code broken once) is no witness.
        (vec![run(1, Some((0, 1, 0)), "BROKEN")], RedState::Pending),
        // Passing on the red tree is not a red run: done runs its own.
        (vec![run(0, Some((1, 0, 0)), "REDTREE")], RedState::Pending),
        (
            vec![red(1, Some((2, 1, 0)), "SURFACE")],
            RedState::Witnessed,
        ),
        // A build or import failure is red.
        (vec![red(101, None, "SURFACE")], RedState::Witnessed),
        (
            vec![red(0, Some((1, 0, 0)), "SURFACE")],
            RedState::PassesOnBase,
        ),
        (
            vec![red(5, Some((0, 0, 0)), "SURFACE")],
            RedState::Inconclusive,
        ),
        (
            vec![red(0, Some((0, 0, 3)), "SURFACE")],
            RedState::Inconclusive,
        ),
        // A red run with other tests (the tests changed since) does not decide.
        (
            vec![red(1, Some((0, 1, 0)), "OLDSURFACE")],
            RedState::Pending,
        ),
        (
            vec![red(0, Some((1, 0, 0)), "OLDSURFACE")],
            RedState::Pending,
        ),
        // The latest decides.
        (
            vec![
                red(0, Some((1, 0, 0)), "SURFACE"),
                run(1, Some((0, 1, 0)), "REDTREE"),
            ],
            RedState::Witnessed,
        ),
        // A passing run on the red tree after the witness is no red run: the witness stands.
        (
            vec![
                red(1, Some((0, 1, 0)), "SURFACE"),
                run(0, Some((1, 0, 0)), "REDTREE"),
            ],
            RedState::Witnessed,
        ),
        // A test-first run that ran nothing is no witness either way.
        (vec![run(5, Some((0, 0, 0)), "REDTREE")], RedState::Pending),
        // A red run made with another base does not decide.
        (
            vec![Run {
                red_base: "OTHERBASE",
                ..red(1, Some((0, 1, 0)), "SURFACE")
            }],
            RedState::Pending,
        ),
        // Only the pin's own runs at the worktree root, naming this criterion, witnessed here.
        (
            vec![Run {
                argv: "pytest -q tests/other.py",
                ..red(1, Some((0, 1, 0)), "SURFACE")
            }],
            RedState::Pending,
        ),
        (
            vec![Run {
                cwd: "sub",
                ..red(1, Some((0, 1, 0)), "SURFACE")
            }],
            RedState::Pending,
        ),
        (
            vec![Run {
                number: 2,
                ..red(1, Some((0, 1, 0)), "SURFACE")
            }],
            RedState::Pending,
        ),
        // A guard's base run failing on the red tree is no witness.
        (
            vec![Run {
                base_run: true,
                ..run(1, Some((0, 1, 0)), "REDTREE")
            }],
            RedState::Pending,
        ),
    ];
    for (i, (runs, want)) in cases.into_iter().enumerate() {
        let got = red_state(&ledger(&runs, TEXT), 1, TEXT, &target()).unwrap();
        assert_eq!(got.state, want, "case {i}");
        assert_eq!(got.record.is_some(), want != RedState::Pending, "case {i}");
    }
}

#[test]
fn a_record_not_witnessed_in_this_clone_decides_nothing() {
    let l = ledger(&[red(1, Some((0, 1, 0)), "SURFACE")], TEXT);
    let l = l.with_witness(std::collections::HashSet::new());
    let got = red_state(&l, 1, TEXT, &target()).unwrap();
    assert_eq!(
        got,
        Red {
            state: RedState::Pending,
            record: None
        }
    );
}

#[test]
fn guards_and_unpinned_criteria_have_no_red_state() {
    let runs = [red(1, Some((0, 1, 0)), "SURFACE")];
    for text in ["lint (guard: `pytest -q`)", "add works"] {
        assert_eq!(red_state(&ledger(&runs, text), 1, text, &target()), None);
    }
}

#[test]
fn red_outcomes() {
    // (exit, tests, output, wanted)
    type Case<'a> = (i32, Option<(u64, u64, u64)>, &'a str, RedOutcome);
    let cases: &[Case] = &[
        (1, Some((3, 1, 0)), "", RedOutcome::Red),
        (2, None, "ImportError", RedOutcome::Red),
        (101, None, "error[E0425]", RedOutcome::Red),
        (0, Some((4, 0, 0)), "", RedOutcome::PassesOnBase),
        // Every test passed but the run failed (a crash at exit, a failed build step after): red.
        (1, Some((3, 0, 0)), "", RedOutcome::Red),
        (0, None, "all good", RedOutcome::PassesOnBase),
        (
            5,
            Some((0, 0, 0)),
            "no tests ran in 0.01s",
            RedOutcome::Inconclusive,
        ),
        (5, None, "no tests ran in 0.01s", RedOutcome::Inconclusive),
        (0, Some((0, 0, 2)), "", RedOutcome::Inconclusive),
        (
            0,
            Some((0, 0, 0)),
            "running 0 tests",
            RedOutcome::Inconclusive,
        ),
        (
            4,
            None,
            "ERROR: file or directory not found: t.py",
            RedOutcome::Inconclusive,
        ),
    ];
    for (i, (exit, tests, output, want)) in cases.iter().enumerate() {
        let mut r = run(*exit, *tests, "R");
        r.output = output;
        let l = ledger(&[r], TEXT);
        assert_eq!(red_outcome(&l.records[0], false), *want, "case {i}");
        assert_eq!(red_outcome(&l.records[0], true), RedOutcome::Inconclusive);
    }
}

#[test]
fn failed_by_name_as_the_finding_names_the_test() {
    use crate::test_names::{TestName, TestNames, TestOutcome::*};
    let red = TestNames {
        names: [
            ("tests/test_calc.py::test_add", Failed),
            ("v0::tests::limits", Failed),
            ("tests/test_p.py::test_case[1-2]", Failed),
            (
                "test/range.js > range parsing > 1.x null > Invalid comparator: v1",
                Failed,
            ),
            ("test/range.js > comparators > ok", Passed),
            ("test/range.js > top level assertion", Failed),
            ("tests.test_calc.TestCalc.test_sub", Failed),
        ]
        .iter()
        .map(|(name, outcome)| TestName {
            name: name.to_string(),
            outcome: *outcome,
        })
        .collect(),
        truncated: false,
    };
    let cases: &[(&str, bool)] = &[
        ("test_add", true),
        ("tests::limits", true),
        ("test_case", true),
        // A TAP subtest fails when an assertion under it does, at any depth.
        ("range parsing", true),
        ("range parsing > 1.x null", true),
        ("test/range.js > range parsing", true),
        ("top level assertion", true),
        // unittest's dotted id, the finding naming the class's test.
        ("TestCalc::test_sub", true),
        ("test_sub", true),
        ("Calc::test_sub", false),
        // Passed, or only a prefix of a name: not failing.
        ("comparators", false),
        ("range", false),
        ("range pars", false),
        ("parsing", false),
        ("test_ad", false),
    ];
    for (test, want) in cases {
        assert_eq!(failed_by_name(Some(&red), test), *want, "{test}");
    }
    assert!(!failed_by_name(None, "test_add"));
}

#[test]
fn a_cargo_pin_skips_tests_after_its_own_arguments() {
    let argv = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    let skip = vec!["a::deep".to_string(), "b".to_string()];
    let cases: &[(&str, Option<&str>)] = &[
        ("cargo test", Some("cargo test -- --skip a::deep --skip b")),
        (
            "cargo +stable --locked test -p x parse",
            Some("cargo +stable --locked test -p x parse -- --skip a::deep --skip b"),
        ),
        (
            "cargo test -- --test-threads 1",
            Some("cargo test -- --test-threads 1 --skip a::deep --skip b"),
        ),
        (
            "/usr/bin/cargo test",
            Some("/usr/bin/cargo test -- --skip a::deep --skip b"),
        ),
        ("cargo nextest run", None),
        ("cargo build", None),
        ("pytest -q", None),
        ("make test", None),
    ];
    for (pin, want) in cases {
        assert_eq!(cargo_skipping(&argv(pin), &skip), want.map(argv), "{pin}");
    }
}

#[test]
fn a_run_whose_environment_failed_is_inconclusive() {
    // The pin's program not found: not a red witness, though it exited non-zero.
    let mut missing = run(127, None, "R");
    missing.output = "sh: 1: pytest: not found";
    let l = ledger(&[missing], TEXT);
    assert!(environment_of(&l.records[0]).is_some());
    assert_eq!(red_outcome(&l.records[0], false), RedOutcome::Inconclusive);
    assert_eq!(recorded_outcome(&l.records[0]), RedOutcome::Inconclusive);
    // A red run carries the verdict it was given when it ran.
    let l = ledger(
        &[Run {
            environment: Some("no pytest here"),
            ..red(1, None, "SURFACE")
        }],
        TEXT,
    );
    assert_eq!(
        environment_of(&l.records[0]).as_deref(),
        Some("no pytest here")
    );
    assert_eq!(recorded_outcome(&l.records[0]), RedOutcome::Inconclusive);
    // Its tests ran and failed: red.
    let l = ledger(&[run(1, Some((0, 1, 0)), "R")], TEXT);
    assert_eq!(environment_of(&l.records[0]), None);
    assert_eq!(recorded_outcome(&l.records[0]), RedOutcome::Red);
}

#[test]
fn outcome_messages() {
    let cases: &[(RedOutcome, Option<&str>, Option<&str>)] = &[
        (RedOutcome::Red, None, None),
        (RedOutcome::Red, Some("x"), None),
        (
            RedOutcome::PassesOnBase,
            None,
            Some(
                "the tests of criterion 3 pass on the code before the goal: they do not test the change",
            ),
        ),
        (
            RedOutcome::Inconclusive,
            None,
            Some("the tests of criterion 3 did not run on the code before the goal"),
        ),
        (
            RedOutcome::Inconclusive,
            Some("no pytest"),
            Some(
                "the tests of criterion 3 did not run on the code before the goal: its environment failed, not the code (no pytest)",
            ),
        ),
    ];
    for (outcome, environment, want) in cases {
        assert_eq!(
            outcome_message(3, outcome, *environment).as_deref(),
            *want,
            "{outcome:?}"
        );
    }
}

#[test]
fn red_state_names() {
    let cases = [
        (RedState::Pending, "pending"),
        (RedState::Witnessed, "witnessed"),
        (RedState::PassesOnBase, "passes-on-base"),
        (RedState::Inconclusive, "inconclusive"),
    ];
    for (state, name) in cases {
        assert_eq!(state.as_str(), name);
        assert_eq!(serde_json::to_value(state).unwrap(), name);
    }
}

#[test]
fn a_guard_base_is_the_latest_run_of_its_pin_on_the_base_tree() {
    const GUARD: &str = "lint (guard: `pytest -q`)";
    let on_base = |exit: i32| run(exit, Some((1, exit as u64, 0)), "BASETREE");
    // (runs, index of the wanted record)
    let cases: Vec<(Vec<Run>, Option<usize>)> = vec![
        (vec![], None),
        (vec![on_base(0)], Some(0)),
        (vec![on_base(1)], Some(0)),
        (
            vec![Run {
                base_run: true,
                ..on_base(0)
            }],
            Some(0),
        ),
        (vec![on_base(0), on_base(1)], Some(1)),
        (vec![on_base(0), run(0, Some((1, 0, 0)), "OTHER")], Some(0)),
        // Not a base record: another tree, a red run, another command, another criterion.
        (vec![run(0, Some((1, 0, 0)), "OTHER")], None),
        (
            vec![Run {
                tree: "BASETREE",
                ..red(1, Some((0, 1, 0)), "SURFACE")
            }],
            None,
        ),
        (
            vec![Run {
                argv: "pytest -q tests/other.py",
                ..on_base(0)
            }],
            None,
        ),
        (
            vec![Run {
                number: 2,
                ..on_base(0)
            }],
            None,
        ),
    ];
    for (i, (runs, want)) in cases.iter().enumerate() {
        let l = ledger(runs, GUARD);
        let got = guard_base(&l, 1, GUARD, "BASETREE", "").map(|r| r.id.clone());
        assert_eq!(got, want.map(|at| l.records[at].id.clone()), "case {i}");
    }
    // An acceptance criterion or an unpinned one has no guard base.
    let l = ledger(&[on_base(0)], TEXT);
    assert!(guard_base(&l, 1, TEXT, "BASETREE", "").is_none());
    assert!(guard_base(&l, 1, "lint", "BASETREE", "").is_none());
}

fn finding(kind: FindingKind, file: &str, test: &str) -> Finding {
    Finding {
        kind,
        file: file.into(),
        line: 7,
        test: test.into(),
    }
}

#[test]
fn which_findings_refuse_done() {
    use FindingKind::*;
    let calc = "tests/test_calc.py";
    // (finding, pin, refuses): on its text alone, a finding refuses only when no run can see
    // what it points at (code that detects its tests) or until a red run shows it
    // (assertion-free); the rest are judged by the exams and shown.
    let cases: &[(Finding, &str, bool)] = &[
        (
            finding(TestRemoved, calc, "test_add"),
            "pytest tests/test_calc.py",
            false,
        ),
        (finding(SkipAdded, calc, "test_add"), "pytest -q", false),
        (finding(AssertionFree, calc, "test_add"), "pytest -q", true),
        (
            finding(AssertionFree, calc, "test_add"),
            "pytest tests/test_other.py",
            false,
        ),
        (
            finding(ImportRedirected, calc, "test_add"),
            "pytest -q",
            false,
        ),
        (
            finding(AssertionWeakened, calc, "test_add"),
            "pytest -q",
            false,
        ),
        (
            finding(AssertionRemoved, calc, "test_add"),
            "pytest -q",
            false,
        ),
        (finding(TestAware, "src/app.js", ""), "pytest -q", false),
        // About the goal as a whole: refuses whatever the pin names.
        (
            finding(TestDetected, "src/calc.py", ""),
            "pytest tests/test_other.py",
            true,
        ),
        (
            finding(SelectionChanged, "pytest.ini", ""),
            "pytest tests/test_other.py",
            false,
        ),
        // A rename out of the pin is the old exam's to judge.
        (
            finding(
                TestRenamed,
                "src/lib.rs",
                "eq_version_ok -> exactly_version_ok",
            ),
            "cargo test eq_version",
            false,
        ),
    ];
    for (f, pin, want) in cases {
        assert_eq!(
            refuses_done(f, &[pin.to_string()]),
            *want,
            "{f:?} under {pin}"
        );
    }
    assert!(!refuses_done(&finding(TestRemoved, calc, "test_add"), &[]));
}

#[test]
fn done_judges_a_rename_out_of_a_pin_as_the_removal_it_is() {
    use FindingKind::*;
    let findings = [
        finding(
            TestRenamed,
            "src/lib.rs",
            "eq_version_ok -> exactly_version_ok",
        ),
        finding(TestRemoved, "src/lib.rs", "old_case"),
        finding(AssertionWeakened, "src/lib.rs", "eq_version_ok"),
    ];
    let pins = [
        "cargo test".to_string(),
        "cargo test eq_version".to_string(),
    ];
    let seen = |confirm: bool| -> Vec<(FindingKind, String, bool, bool)> {
        weakened(&findings, &pins, confirm)
            .into_iter()
            .map(|w| (w.kind, w.test, w.refuses, w.confirmed))
            .collect()
    };
    assert_eq!(
        seen(false),
        [
            (TestRemoved, "eq_version_ok".to_string(), false, false),
            (TestRemoved, "old_case".to_string(), false, false),
            (AssertionWeakened, "eq_version_ok".to_string(), false, false),
        ]
    );
    assert_eq!(
        seen(true),
        [
            (TestRemoved, "eq_version_ok".to_string(), false, false),
            (TestRemoved, "old_case".to_string(), false, false),
            (AssertionWeakened, "eq_version_ok".to_string(), false, false),
        ]
    );
    let w = &weakened(&findings[..1], &pins, false)[0];
    assert_eq!((w.file.as_str(), w.line), ("src/lib.rs", 7));
    assert_eq!(w.describe(), "test-removed src/lib.rs:7 eq_version_ok");
    // A rename every pin still runs stays a rename, shown only.
    let kept = weakened(&findings[..1], &["cargo test version".to_string()], true);
    assert_eq!(
        (kept[0].kind, kept[0].refuses, kept[0].confirmed),
        (TestRenamed, false, false)
    );
}

fn names(list: &[(&str, crate::test_names::TestOutcome)]) -> crate::test_names::TestNames {
    crate::test_names::TestNames {
        names: list
            .iter()
            .map(|(name, outcome)| crate::test_names::TestName {
                name: name.to_string(),
                outcome: *outcome,
            })
            .collect(),
        truncated: false,
    }
}

#[test]
fn named_whatever_the_test_came_to() {
    use crate::test_names::TestOutcome::*;
    let run = names(&[
        ("tests/test_calc.py::test_add", Passed),
        ("v0::tests::limits", Failed),
        ("suite > case", Ignored),
        ("pkg/TestParse", Passed),
        ("exact", Passed),
    ]);
    let cases: &[(&str, bool)] = &[
        ("test_add", true),
        ("tests::limits", true),
        ("case", true),
        ("TestParse", true),
        ("exact", true),
        ("test_ad", false),
        ("limit", false),
        ("suite", false),
        ("xact", false),
    ];
    for (test, want) in cases {
        assert_eq!(named(&run, test), *want, "{test}");
    }
}

#[test]
fn an_assertion_free_test_seen_failing_in_a_red_run_tests_the_change() {
    use crate::test_names::TestOutcome::*;
    let with = |red_run: bool, outcome| Run {
        names: Some(names(&[("tests/test_calc.py::test_add", outcome)])),
        ..if red_run {
            red(1, Some((0, 1, 0)), "SURFACE")
        } else {
            run(1, Some((0, 1, 0)), "REDTREE")
        }
    };
    let cases = [
        (vec![with(true, Failed)], true),
        (vec![with(true, Passed)], false),
        // A failing run that is not a red run is no such evidence.
        (vec![with(false, Failed)], false),
        (vec![with(false, Failed), with(true, Failed)], true),
        (vec![], false),
    ];
    for (i, (runs, want)) in cases.into_iter().enumerate() {
        assert_eq!(
            seen_failing_red(&ledger(&runs, TEXT), "test_add"),
            want,
            "case {i}"
        );
    }
}

#[test]
fn a_goal_of_guards_only() {
    let guard = "lint (guard: `sh lint.sh`)";
    let cases: &[(&[&str], bool)] = &[
        (&[], false),
        (&[guard], true),
        (&[guard, guard], true),
        (&[guard, TEXT], false),
        (&[TEXT, guard], false),
        (&["add works"], false),
    ];
    for (texts, want) in cases {
        assert_eq!(guards_only(texts), *want, "{texts:?}");
    }
}
