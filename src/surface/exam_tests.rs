use super::*;
use crate::test_names::TestName;

/// Names from `name:outcome` pairs (`p` passed, `f` failed, `i` ignored).
fn names(spec: &str) -> TestNames {
    TestNames {
        names: spec
            .split_whitespace()
            .map(|pair| {
                let (name, o) = pair.split_once(':').unwrap_or((pair, "p"));
                let outcome = match o {
                    "f" => TestOutcome::Failed,
                    "i" => TestOutcome::Ignored,
                    _ => TestOutcome::Passed,
                };
                TestName {
                    name: name.to_string(),
                    outcome,
                }
            })
            .collect(),
        truncated: false,
    }
}

fn run(n: &TestNames, load_failed: bool) -> Run<'_> {
    let failed = n
        .names
        .iter()
        .filter(|t| t.outcome == TestOutcome::Failed)
        .count() as u64;
    Run {
        counts: Some(TestCounts {
            passed: n.names.len() as u64 - failed,
            failed,
            ignored: 0,
        }),
        names: Some(n),
        load_failed,
    }
}

fn counts(passed: u64, failed: u64) -> Run<'static> {
    Run {
        counts: Some(TestCounts {
            passed,
            failed,
            ignored: 0,
        }),
        names: None,
        load_failed: false,
    }
}

fn kinds(exam: OldExam) -> Vec<String> {
    match exam {
        OldExam::NotApplicable => vec!["n/a".into()],
        OldExam::Inconclusive => vec!["inconclusive run".into()],
        OldExam::CutOff => vec!["cut off".into()],
        OldExam::Judged(found) => found
            .iter()
            .map(|f| format!("{} {}", f.kind.as_str(), f.test))
            .collect(),
    }
}

#[test]
fn the_old_exam_test_by_test() {
    // (what, base, old (load failed), red (load failed), green, expected)
    #[allow(clippy::type_complexity)]
    let cases: &[(&str, &str, (&str, bool), (&str, bool), &str, &[&str])] = &[
        (
            "fixed",
            "a:f b",
            ("a b", false),
            ("a:f b", false),
            "a b",
            &[],
        ),
        (
            "the bug left in, the test deleted, skipped or redirected",
            "a:f b",
            ("a:f b", false),
            ("b", false),
            "b",
            &["still-failing a"],
        ),
        (
            "a failing test that no longer loads on the final code: the repository's own name",
            "a:f b",
            ("", true),
            ("b", false),
            "b",
            &["still-failing a", "inconclusive b"],
        ),
        (
            "an API changed both ways: neither side builds the other's tests",
            "a:f b",
            ("", true),
            ("", true),
            "a b",
            &["inconclusive a", "inconclusive b"],
        ),
        (
            "the goal's version fails by name on the red run",
            "a:f b",
            ("b", true),
            ("a:f b", false),
            "a b",
            &["inconclusive a"],
        ),
        (
            "behaviour changed, the rewrite tested",
            "a b",
            ("a:f b", false),
            ("a:f b", false),
            "a b",
            &["behavior-changed a"],
        ),
        (
            "behaviour changed, the goal's version passes on the base",
            "a b",
            ("a:f b", false),
            ("a b", false),
            "a b",
            &["weakened-to-pass a"],
        ),
        (
            "behaviour changed, the test gone from the final tree",
            "a b",
            ("a:f b", false),
            ("b", false),
            "b",
            &["removed-after-change a"],
        ),
        (
            "behaviour changed, the red run cannot name the goal's version",
            "a b",
            ("a:f b", false),
            ("", true),
            "a b",
            &["unjudged-change a"],
        ),
        (
            "a passing test skipped on the base stays out of it",
            "a:i b",
            ("a:f b", false),
            ("b", false),
            "b",
            &[],
        ),
    ];
    for (what, base, (old, old_failed), (red, red_failed), green, expected) in cases {
        let (b, o, r, g) = (names(base), names(old), names(red), names(green));
        let o_run = if o.names.is_empty() {
            Run {
                counts: Some(TestCounts {
                    passed: 1,
                    failed: 0,
                    ignored: 0,
                }),
                names: Some(&o),
                load_failed: *old_failed,
            }
        } else {
            run(&o, *old_failed)
        };
        let r_run = run(&r, *red_failed);
        let got = kinds(old_exam(run(&b, false), o_run, r_run, run(&g, false)));
        assert_eq!(got, *expected, "{what}");
    }
}

#[test]
fn the_old_exam_without_names_or_without_a_base() {
    let none = TestNames::default();
    let nothing = Run {
        counts: None,
        names: Some(&none),
        load_failed: false,
    };
    // The goal's tests are new: the base's run ran none of them.
    assert_eq!(
        kinds(old_exam(nothing, counts(3, 0), counts(0, 1), counts(4, 0))),
        ["n/a"]
    );
    // The old exam built nothing: inconclusive, never a refusal.
    assert_eq!(
        kinds(old_exam(counts(3, 1), nothing, counts(0, 1), counts(4, 0))),
        ["inconclusive run"]
    );
    // By counts.
    let cases = [
        ((3, 1), (4, 0), vec![]),
        ((3, 1), (3, 1), vec![format!("still-failing {BY_COUNTS}")]),
        (
            (4, 0),
            (3, 1),
            vec![format!("behavior-changed {BY_COUNTS}")],
        ),
    ];
    for ((bp, bf), (op, of), expected) in cases {
        let got = kinds(old_exam(
            counts(bp, bf),
            counts(op, of),
            counts(0, 1),
            counts(4, 0),
        ));
        assert_eq!(got, expected, "base {bp}/{bf}, old {op}/{of}");
    }
}

#[test]
fn a_run_cut_off_at_its_bound_is_still_failing_only_beside_a_quick_green() {
    // (what, base, old (what it named before it was cut), cut, expected)
    let cut = |base, old, quick_green| Cut {
        base,
        old,
        quick_green,
    };
    let cases: &[(&str, &str, &str, Cut, &[&str])] = &[
        (
            "nothing cut off: judged as ever",
            "a:f b",
            "a b",
            cut(false, false, true),
            &[],
        ),
        (
            "a test that failed on the base, cut off on the final code beside a quick green",
            "a:f b",
            "b",
            cut(false, true, true),
            &["still-failing a"],
        ),
        (
            "the same beside a slow green: the bound may have ended it",
            "a:f b",
            "b",
            cut(false, true, false),
            &["cut off"],
        ),
        (
            "cut off in a test that passed on the base",
            "a b",
            "a",
            cut(false, true, true),
            &["cut off"],
        ),
        (
            "what it named before the cut is judged too",
            "a:f b c",
            "c:f",
            cut(false, true, true),
            &["behavior-changed c", "still-failing a"],
        ),
        (
            "the base run cut off beside a slow green: the bound may have ended it",
            "a:f b",
            "a b",
            cut(true, false, false),
            &["cut off"],
        ),
        (
            "the base run cut off beside a quick green: what it did not get to failed there, \
             and passes on the final code (a hang fixed)",
            "b",
            "a b c",
            cut(true, false, true),
            &[],
        ),
        (
            "the same, a test it did not get to still failing on the final code",
            "b",
            "a:f b c",
            cut(true, false, true),
            &["still-failing a"],
        ),
        (
            "both runs cut off: nothing to compare",
            "a:f b",
            "b",
            cut(true, true, true),
            &["cut off"],
        ),
        (
            "a failing test named failing before the cut",
            "a:f b:f",
            "a:f",
            cut(false, true, true),
            &["still-failing a", "still-failing b"],
        ),
    ];
    let red = names("a:f b c:f");
    let green = names("a b c");
    for (what, base, old, cut, expected) in cases {
        let (b, o) = (names(base), names(old));
        let got = kinds(old_exam_bounded(
            run(&b, false),
            run(&o, false),
            run(&red, false),
            run(&green, false),
            *cut,
        ));
        assert_eq!(got, *expected, "{what}");
    }
    // By counts: a failure on the base is still failing where the run was cut off.
    let quick = cut(false, true, true);
    let got = kinds(old_exam_bounded(
        counts(3, 1),
        counts(2, 0),
        counts(0, 1),
        counts(4, 0),
        quick,
    ));
    assert_eq!(got, [format!("still-failing {BY_COUNTS}")]);
    let got = kinds(old_exam_bounded(
        counts(4, 0),
        counts(2, 0),
        counts(0, 1),
        counts(4, 0),
        quick,
    ));
    assert_eq!(got, ["cut off"]);
    // A base run that ran no test says nothing, cut off or not on the final code.
    let none = TestNames::default();
    let nothing = Run {
        counts: None,
        names: Some(&none),
        load_failed: false,
    };
    let got = kinds(old_exam_bounded(
        nothing,
        counts(2, 0),
        counts(0, 1),
        counts(4, 0),
        cut(false, true, false),
    ));
    assert_eq!(got, ["n/a"]);
    assert!(within_half(1_000, 2_000));
    assert!(!within_half(1_001, 2_000));
}

#[test]
fn the_support_exam_judges_the_goals_own_tests() {
    let goal = vec!["t_new".to_string()];
    let green = names("t_new a");
    let cases: &[(&str, &str, &[&str])] = &[
        ("passes with the base's configuration", "t_new a", &[]),
        (
            "fails once the configuration is put back",
            "t_new:f a",
            &["support-fails t_new"],
        ),
        (
            "cannot run without a helper the goal added",
            "a",
            &["inconclusive t_new"],
        ),
    ];
    for (what, support, expected) in cases {
        let s = names(support);
        let got: Vec<String> = support_exam(&goal, run(&s, false), run(&green, false))
            .iter()
            .map(|f| format!("{} {}", f.kind.as_str(), f.test))
            .collect();
        assert_eq!(got, *expected, "{what}");
    }
    let by_counts = support_exam(&goal, counts(1, 1), counts(2, 0));
    assert_eq!(by_counts[0].kind, ExamKind::SupportFails);
}

#[test]
fn the_goals_tests_failed_red_and_passed_green() {
    let red = names("a:f b c:f");
    let green = names("a b c:f d");
    assert_eq!(goal_tests(&red, &green), ["a"]);
}

#[test]
fn which_outcomes_refuse() {
    let refusing: Vec<&str> = [
        ExamKind::StillFailing,
        ExamKind::Flaky,
        ExamKind::BehaviorChanged,
        ExamKind::WeakenedToPass,
        ExamKind::RemovedAfterChange,
        ExamKind::UnjudgedChange,
        ExamKind::Inconclusive,
        ExamKind::SupportFails,
        ExamKind::ExamChanged,
    ]
    .into_iter()
    .filter(|k| k.refuses())
    .map(ExamKind::as_str)
    .collect();
    assert_eq!(
        refusing,
        [
            "still-failing",
            "weakened-to-pass",
            "removed-after-change",
            "unjudged-change",
            "support-fails",
            "exam-changed"
        ]
    );
}

#[test]
fn a_test_that_could_not_be_set_up_is_named() {
    let tail: Vec<String> = [
        "FAILED tests/test_a.py::test_b - assert 1 == 2",
        "ERROR tests/test_a.py::test_c",
        "ERROR tests/test_a.py::test_d - ZeroDivisionError",
        "ERROR tests/test_e.py - ModuleNotFoundError: No module named 'x'",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(
        set_up_errors(&tail),
        ["tests/test_a.py::test_c", "tests/test_a.py::test_d"]
    );
}

#[test]
fn two_runs_say_the_same_when_only_times_addresses_and_order_differ() {
    let rows: &[(&str, &str, &str, bool)] = &[
        (
            "pytest: the same failure, other times and addresses",
            "F.\nE   assert -3 == 3\nE    +  where -3 = <function absval at 0x7f3a2b>(-3)\n1 failed, 1 passed in 0.02s\n",
            "F.\nE   assert -3 == 3\nE    +  where -3 = <function absval at 0x7f99c0>(-3)\n1 failed, 1 passed in 0.05s\n",
            true,
        ),
        (
            "pytest: the value the test saw changed",
            "E   assert 15 == 11\n1 failed in 0.02s\n",
            "E   assert 10 == 11\n1 failed in 0.02s\n",
            false,
        ),
        (
            "node: durations, files in another order",
            "not ok 1 - negative\n  duration_ms: 0.71\n  actual: -3\n# duration_ms 70.2\nok 2 - positive\n",
            "ok 2 - positive\nnot ok 1 - negative\n  duration_ms: 1.93\n  actual: -3\n# duration_ms 64.8\n",
            true,
        ),
        (
            "go: package times",
            "--- FAIL: TestNeg (0.00s)\n    neg_test.go:7: got -3\nFAIL\texample.com/calc\t0.004s\n",
            "--- FAIL: TestNeg (0.01s)\n    neg_test.go:7: got -3\nFAIL\texample.com/calc\t0.012s\n",
            true,
        ),
        (
            "another line: a test now passes",
            "not ok 1 - negative\nnot ok 2 - other\n",
            "not ok 1 - negative\nok 2 - other\n",
            false,
        ),
        ("nothing said", "", "\n", false),
    ];
    for (what, a, b, same) in rows {
        assert_eq!(same_output(a, b), *same, "{what}");
    }
}
