use super::*;
use crate::evidence::{Extra, NewRecord, Red as RedField, seal_with};
use crate::summary::TestCounts;

const TEXT: &str = "add works (verify: `pytest -q`)";

struct Run {
    exit: i32,
    tests: Option<(u64, u64, u64)>,
    tree: &'static str,
    red: Option<&'static str>,
    output: &'static str,
}

fn run(exit: i32, tests: Option<(u64, u64, u64)>, tree: &'static str) -> Run {
    Run {
        exit,
        tests,
        tree,
        red: None,
        output: "",
    }
}

fn red(exit: i32, tests: Option<(u64, u64, u64)>, surface: &'static str) -> Run {
    Run {
        exit,
        tests,
        tree: "REDTREE-OTHER",
        red: Some(surface),
        output: "",
    }
}

fn ledger(runs: &[Run], text: &str) -> Ledger {
    let mut lines = String::new();
    let mut prev = String::new();
    for r in runs {
        let (record, line) = seal_with(
            NewRecord {
                criteria: vec![(1, text.to_string())],
                argv: vec!["pytest".into(), "-q".into()],
                cwd: String::new(),
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
                names: None,
                red: r.red.map(|tests| RedField {
                    base: "BASE".into(),
                    tests: tests.into(),
                    environment: None,
                }),
                base_run: false,
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
    ];
    for (i, (runs, want)) in cases.into_iter().enumerate() {
        let got = red_state(&ledger(&runs, TEXT), 1, TEXT, &target()).unwrap();
        assert_eq!(got.state, want, "case {i}");
        assert_eq!(got.record.is_some(), want != RedState::Pending, "case {i}");
    }
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
