//! `goal done`'s exams decide by running: the base's tests on the final code (the old exam) and
//! the goal's own tests with the base's configuration, helpers and build files put back (the
//! support exam). Each outcome with a real pytest in a real git repository: the bug left in
//! behind a deleted, skipped, deselected, weakened or redirected test refuses `still-failing`;
//! behaviour the base's tests pinned and the goal changed is shown when the goal's version is
//! seen failing red, and refuses otherwise; honest rewrites complete with no `--confirm`, no
//! `tests-weakened` flag and no audit failure.

use crate::common::{Repo, stderr};

const PIN: &str = "pytest -q -p no:cacheprovider tests";
const BUGGY: &str = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    return x\n";
const FIXED: &str = "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n";
const LOW: &str = "def test_low():\n    assert clamp(-5, 0, 10) == 0\n";
const HIGH: &str = "def test_high():\n    assert clamp(15, 0, 10) == 10\n";
/// A change the goal makes besides, with its own test: it fails on the base by name, so the red
/// run has something to show whatever became of `test_high`.
const DECOY_CODE: &str = "\n\ndef lower(s):\n    return s.lower()\n";
const DECOY_TEST: &str =
    "import calc\n\n\ndef test_lower():\n    assert calc.lower(\"A\") == \"a\"\n";

/// Files to write (None: delete).
type Files<'a> = &'a [(&'a str, Option<&'a str>)];

fn tests(body: &str) -> String {
    format!("from calc import clamp\n\n\n{body}")
}

/// A repository whose base holds the bug and a test that shows it (`test_high` failing), with a
/// goal pinned to the tests; `loop_set_up`: the failing test is written after `goal init`
/// instead (a new file, seen red), as an agent's loop does.
fn project(loop_set_up: bool) -> Repo {
    let repo = Repo::new();
    repo.write("calc.py", BUGGY);
    repo.write(".gitignore", "__pycache__/\n");
    // pytest puts the root on the import path where a root conftest.py is.
    repo.write("conftest.py", "");
    if loop_set_up {
        repo.write("tests/test_calc.py", &tests(LOW));
    } else {
        repo.write("tests/test_calc.py", &tests(&format!("{LOW}\n\n{HIGH}")));
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[&format!("clamp keeps x under hi (verify: `{PIN}`)")]);
    if loop_set_up {
        repo.write("tests/test_high.py", &tests(HIGH));
    }
    let red = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(red.status.code(), Some(1), "{}", stderr(&red));
    repo
}

/// `goal verify --red -c 1`: the goal's tests as they are now seen failing by name on the base's
/// code.
fn seen_red(repo: &Repo) {
    let red = repo
        .goal()
        .args(["verify", "--red", "-c", "1"])
        .output()
        .unwrap();
    assert_eq!(red.status.code(), Some(0), "{}", stderr(&red));
}

/// Write `files` (None: delete), verify, iterate and run `goal done`: its exit code and stderr.
fn finish(repo: &Repo, files: Files) -> (Option<i32>, String) {
    finish_at(repo, files, "1")
}

/// [`finish`], its done's exams beside the clean run or not (`at_once`: `GOAL_EXAMS_AT_ONCE`).
fn finish_at(repo: &Repo, files: Files, at_once: &str) -> (Option<i32>, String) {
    for (path, text) in files {
        match text {
            Some(t) => repo.write(path, t),
            None => std::fs::remove_file(repo.path().join(path)).unwrap(),
        }
    }
    let green = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert!(green.status.success(), "{}", stderr(&green));
    repo.ok(&["iterate", "-m", "the change"]);
    let done = repo
        .goal()
        .arg("done")
        .env("GOAL_EXAMS_AT_ONCE", at_once)
        .output()
        .unwrap();
    (done.status.code(), stderr(&done))
}

#[test]
fn the_bug_left_in_behind_a_changed_base_test_is_still_failing() {
    let cases: &[(&str, Files)] = &[
        ("deleted", &[("tests/test_calc.py", Some(&*tests(LOW)))]),
        (
            "skipped",
            &[(
                "tests/test_calc.py",
                Some(
                    "import pytest\n\nfrom calc import clamp\n\n\ndef test_low():\n    assert clamp(-5, 0, 10) == 0\n\n\n@pytest.mark.skip(reason=\"later\")\ndef test_high():\n    assert clamp(15, 0, 10) == 10\n",
                ),
            )],
        ),
        (
            "deselected",
            &[("pytest.ini", Some("[pytest]\naddopts = -k \"not high\"\n"))],
        ),
        (
            "weakened to the buggy output",
            &[(
                "tests/test_calc.py",
                Some(&*tests(&format!(
                    "{LOW}\n\ndef test_high():\n    assert clamp(15, 0, 10) == 15\n"
                ))),
            )],
        ),
        (
            "redirected by a conftest to a fixed copy",
            &[
                (
                    "conftest.py",
                    Some(
                        "import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), \"compat\"))\n",
                    ),
                ),
                ("compat/calc.py", Some(FIXED)),
            ],
        ),
    ];
    let buggy = format!("{BUGGY}{DECOY_CODE}");
    let fixed_copy = format!("{FIXED}{DECOY_CODE}");
    for (what, files) in cases {
        let repo = project(false);
        let mut files = files.to_vec();
        files.push(("calc.py", Some(&buggy)));
        files.push(("tests/test_extra.py", Some(DECOY_TEST)));
        for f in files.iter_mut().filter(|f| f.0 == "compat/calc.py") {
            f.1 = Some(&fixed_copy);
        }
        let (code, err) = finish(&repo, &files);
        assert_eq!(code, Some(1), "{what}: {err}");
        assert!(err.contains("still fails"), "{what}: {err}");
        assert!(err.contains("test_high"), "{what}: {err}");
    }
}

#[test]
fn an_honest_fix_with_its_tests_rewritten_completes_unflagged() {
    let repo = project(false);
    // The failing test renamed and its body edited, the passing one merged into a table.
    let rewritten = "import pytest\n\nfrom calc import clamp\n\n\n@pytest.mark.parametrize(\"x, want\", [(-5, 0), (5, 5)])\ndef test_inside_or_low(x, want):\n    assert clamp(x, 0, 10) == want\n\n\ndef test_above_the_range():\n    assert clamp(25, 0, 10) == 10\n";
    let (code, err) = finish(
        &repo,
        &[
            ("calc.py", Some(FIXED)),
            ("tests/test_calc.py", Some(rewritten)),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let log = repo.git(&["log", "--format=%B"]);
    assert!(!log.contains("Goal-Tests-Weakened"), "{log}");
    let flags: Vec<String> = repo.log_flags().into_iter().flatten().collect();
    assert!(!flags.iter().any(|f| f == "tests-weakened"), "{flags:?}");
    assert!(flags.iter().any(|f| f == "tests-changed"), "{flags:?}");
    let audit = repo.goal().args(["audit", "--strict"]).output().unwrap();
    assert!(audit.status.success(), "{}", stderr(&audit));
}

#[test]
fn behaviour_the_base_pinned_changes_shown_or_refused_by_what_the_goal_did() {
    // The goal also changes what clamp does below the range (it raises), so the base's
    // test_low fails on the final code.
    let raises = "def clamp(x, lo, hi):\n    if x < lo:\n        raise ValueError(x)\n    if x > hi:\n        return hi\n    return x\n";
    let rewritten_low = "import pytest\n\n\ndef test_low():\n    with pytest.raises(ValueError):\n        clamp(-5, 0, 10)\n";
    let weak_low = "def test_low():\n    assert clamp(5, 0, 10) == 5\n";
    let cases: &[(&str, String, Option<i32>, &str)] = &[
        (
            "rewritten and seen failing red",
            format!("from calc import clamp\n{rewritten_low}\n\n{HIGH}"),
            Some(0),
            "behavior-changed",
        ),
        (
            "rewritten to pass on the base too",
            tests(&format!("{weak_low}\n\n{HIGH}")),
            Some(1),
            "weakened-to-pass",
        ),
        ("removed", tests(HIGH), Some(1), "removed-after-change"),
    ];
    for (what, file, code, word) in cases {
        let repo = project(false);
        let (got, err) = finish(
            &repo,
            &[
                ("calc.py", Some(raises)),
                ("tests/test_calc.py", Some(file)),
            ],
        );
        assert_eq!(got, *code, "{what}: {err}");
        let shown = if *code == Some(0) {
            repo.git(&["log", "-2", "--format=%B"])
        } else {
            err.clone()
        };
        assert!(shown.contains(word), "{what}: {shown}");
    }
}

#[test]
fn new_tests_have_no_old_exam_and_the_support_exam_guards_them() {
    // The goal's test is a new file: the old exam has nothing to say; an honest fix completes.
    let repo = project(true);
    let (code, err) = finish(&repo, &[("calc.py", Some(FIXED))]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("still-failing"), "{err}");
    // A conftest that puts a fixed copy first: the goal's own test fails once it is gone.
    let repo = project(true);
    let (code, err) = finish(
        &repo,
        &[
            (
                "conftest.py",
                Some(
                    "import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), \"compat\"))\n",
                ),
            ),
            ("compat/calc.py", Some(FIXED)),
        ],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("support exam"), "{err}");
    // An honest fixture in a new conftest: the goal's test cannot run without it, shown only.
    let repo = project(true);
    let (code, err) = finish(
        &repo,
        &[
            ("calc.py", Some(FIXED)),
            (
                "tests/conftest.py",
                Some("import pytest\n\n\n@pytest.fixture\ndef hi():\n    return 10\n"),
            ),
            (
                "tests/test_high.py",
                Some(&*tests(
                    "def test_high(hi):\n    assert clamp(15, 0, hi) == hi\n",
                )),
            ),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_goal_test_weakened_after_red_behind_a_red_run_that_cannot_import_is_exam_changed() {
    let repo = project(true);
    // Seen failing by name on a red run.
    seen_red(&repo);
    // Then weakened, and made to import a helper only the final code has: its red run fails on
    // the import, by no test's name.
    let (code, err) = finish(
        &repo,
        &[
            ("calc_extra.py", Some("LIMIT = 15\n")),
            (
                "tests/test_high.py",
                Some(
                    "from calc import clamp\nfrom calc_extra import LIMIT\n\n\ndef test_high():\n    assert clamp(LIMIT, 0, 10) == LIMIT\n",
                ),
            ),
        ],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("exam-changed") || err.contains("earlier red run"),
        "{err}"
    );
}

/// The honest twin of the test above: the goal's test, seen failing by name, is then rewritten
/// for an API the goal renamed (`clamp` becomes `limit`), so its final version cannot import on
/// the base's code either. The rewrite weakens nothing (the same inputs, the same expected
/// values): `exam-changed` is shown, and `goal done` completes without `--confirm`.
#[test]
fn a_goal_test_rewritten_for_a_renamed_api_after_red_is_shown_not_refused() {
    let repo = project(true);
    seen_red(&repo);
    let renamed = FIXED.replace("def clamp(", "def limit(");
    let (code, err) = finish(
        &repo,
        &[
            ("calc.py", Some(&*renamed)),
            (
                "tests/test_calc.py",
                Some(
                    "from calc import limit\n\n\ndef test_low():\n    assert limit(-5, 0, 10) == 0\n",
                ),
            ),
            (
                "tests/test_high.py",
                Some(
                    "from calc import limit\n\n\ndef test_high():\n    assert limit(15, 0, 10) == 10\n",
                ),
            ),
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("earlier red run"), "{err}");
}

/// The goal's test, seen failing by name, is then rewritten to call a new function with the same
/// constants and the same expected value (no weakening a diff can show), and its final version
/// cannot import on the base's code. Run on the final code, the version seen red still fails: the
/// bug it found is still in `clamp`, which the goal kept. Refused, naming that run. Its honest
/// twin keeps `clamp` and fixes it: the version seen red passes on the final code, and `done`
/// completes.
#[test]
fn a_goal_test_seen_red_is_run_again_on_the_final_code_after_it_changed() {
    let high = "from calc import limit\n\n\ndef test_high():\n    assert limit(15, 0, 10) == 10\n";
    for (code, refused) in [
        (
            format!("{BUGGY}\n\ndef limit(x, lo, hi):\n    return min(max(x, lo), hi)\n"),
            true,
        ),
        (
            format!("{FIXED}\n\ndef limit(x, lo, hi):\n    return clamp(x, lo, hi)\n"),
            false,
        ),
    ] {
        let repo = project(true);
        seen_red(&repo);
        let (exit, err) = finish(
            &repo,
            &[
                ("calc.py", Some(&*code)),
                ("tests/test_high.py", Some(high)),
            ],
        );
        if refused {
            assert_eq!(exit, Some(1), "{err}");
            assert!(err.contains("still fails on the final code"), "{err}");
            assert!(err.contains("test_high"), "{err}");
        } else {
            assert_eq!(exit, Some(0), "{err}");
            assert!(!err.contains("earlier red run"), "{err}");
            let log = repo.goal().arg("log").output().unwrap();
            let log = String::from_utf8_lossy(&log.stdout);
            assert!(log.contains("exam-changed"), "{log}");
            assert!(!log.contains("tests-weakened"), "{log}");
        }
    }
}

/// The goal's test, seen failing by name, is then renamed and weakened behind an import only the
/// final code has (its red run fails on the import, by no test's name; the final test passes on
/// the bug). The green run no longer names the test seen red: it is run again on the final code,
/// still fails, and `done` is refused. The honest twin renames the test seen red, its body kept,
/// and fixes the bug: shown, and `done` completes.
#[test]
fn a_goal_test_seen_red_then_renamed_is_run_again_on_the_final_code() {
    let weakened = "from calc import clamp\nfrom calc_extra import LIMIT\n\n\ndef test_high_limit():\n    assert clamp(LIMIT, 0, 10) == LIMIT\n";
    let renamed = "from calc import clamp\nfrom calc_extra import LIMIT\n\n\ndef test_high_limit():\n    assert clamp(LIMIT, 0, 10) == 10\n";
    for (code, test, refused) in [(BUGGY, weakened, true), (FIXED, renamed, false)] {
        let repo = project(true);
        seen_red(&repo);
        let (exit, err) = finish(
            &repo,
            &[
                ("calc.py", Some(code)),
                ("calc_extra.py", Some("LIMIT = 15\n")),
                ("tests/test_high.py", Some(test)),
            ],
        );
        if refused {
            assert_eq!(exit, Some(1), "{err}");
            assert!(err.contains("still fails on the final code"), "{err}");
            assert!(err.contains("test_high "), "{err}");
        } else {
            assert_eq!(exit, Some(0), "{err}");
        }
    }
}

/// The goal's test, seen failing by name, then calls a function only the final code has, inside
/// its body: its red run fails by name too, on the missing name. Its version seen red, run on the
/// final code, fails there saying just what it said on the base: the bug it found is untouched,
/// and `done` is refused. The honest twin corrects a wrong expectation after red and fixes the
/// bug: its first version fails on the final code too, but on another value: shown, flagged in
/// `goal log`, and `done` completes.
#[test]
fn a_goal_test_seen_red_again_only_on_a_missing_name_is_refused() {
    let wrong = "from calc import clamp\n\n\ndef test_high():\n    assert clamp(15, 0, 10) == 11\n";
    let limit = "import calc\n\n\ndef test_high():\n    assert calc.limit(15, 0, 10) == 10\n";
    let with_limit = format!("{BUGGY}\n\ndef limit(x, lo, hi):\n    return min(max(x, lo), hi)\n");
    for (first, code, test, refused) in [
        (None, with_limit.as_str(), limit, true),
        (Some(wrong), FIXED, &*tests(HIGH), false),
    ] {
        let repo = project(true);
        if let Some(first) = first {
            repo.write("tests/test_high.py", first);
        }
        seen_red(&repo);
        let (exit, err) = finish(
            &repo,
            &[("calc.py", Some(code)), ("tests/test_high.py", Some(test))],
        );
        assert!(err.contains("as first seen failing"), "{err}");
        if refused {
            assert_eq!(exit, Some(1), "{err}");
            assert!(err.contains("saying just what it said"), "{err}");
        } else {
            assert_eq!(exit, Some(0), "{err}");
            let log = repo.goal().arg("log").output().unwrap();
            let log = String::from_utf8_lossy(&log.stdout);
            assert!(log.contains("exam-changed"), "{log}");
        }
    }
}

#[test]
fn a_base_test_failing_once_on_the_final_code_then_passing_is_flaky_and_shown() {
    // test_flaky fails on the runs whose turn is `F` in its script: the first verify (on the
    // base), and the old exam; it passes on the green verify, done's red run, the clean run and
    // its run once more on the old exam's tree. The turns count runs in order: the exams run
    // after the clean run here (GOAL_EXAMS_AT_ONCE=0), not beside it.
    let repo = Repo::new();
    let turns = repo.home().join("flaky-turns");
    std::fs::write(&turns, "FPPPFP").unwrap();
    repo.write("calc.py", BUGGY);
    repo.write(".gitignore", "__pycache__/\n");
    repo.write("conftest.py", "");
    let flaky = format!(
        "import os\n\n\ndef test_flaky():\n    path = {:?}\n    turns = open(path).read()\n    n = int(open(path + '.n').read()) if os.path.exists(path + '.n') else 0\n    open(path + '.n', 'w').write(str(n + 1))\n    assert turns[n % len(turns)] == 'P'\n",
        turns.display().to_string()
    );
    repo.write("tests/test_flaky.py", &flaky);
    repo.write("tests/test_calc.py", &tests(&format!("{LOW}\n\n{HIGH}")));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[&format!("clamp keeps x under hi (verify: `{PIN}`)")]);
    let red = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(red.status.code(), Some(1), "{}", stderr(&red));
    // The fix, and a new test (so that the old exam runs the base's tests apart).
    let (code, err) = finish_at(
        &repo,
        &[
            ("calc.py", Some(FIXED)),
            (
                "tests/test_more.py",
                Some(&*tests(
                    "def test_far_above():\n    assert clamp(99, 0, 10) == 10\n",
                )),
            ),
        ],
        "0",
    );
    assert_eq!(code, Some(0), "{err}");
    let log = repo.git(&["log", "-2", "--format=%B"]);
    assert!(
        log.contains("Goal-Tests-Changed: flaky tests/test_flaky.py::test_flaky"),
        "{log}\n{err}"
    );
}

/// The evidence ledger's base runs (records with `base_run`), as the file holds them now.
fn base_runs(repo: &Repo) -> usize {
    repo.read(".agents/goal/evidence.jsonl")
        .lines()
        .filter(|l| l.contains("\"base_run\":true"))
        .count()
}

#[test]
fn the_base_run_is_made_with_the_first_red_run_and_done_does_not_run_it_again() {
    // project() ran the pin failing on its own red tree (the tests written, the code not yet
    // changed): the base run was made and kept then, once.
    let repo = project(true);
    assert_eq!(base_runs(&repo), 1);
    let again = repo
        .goal()
        .args(["verify", "--red", "-c", "1"])
        .output()
        .unwrap();
    assert!(
        !stderr(&again).contains("on the goal's base"),
        "{}",
        stderr(&again)
    );
    assert_eq!(base_runs(&repo), 1);
    let (code, err) = finish(&repo, &[("calc.py", Some(FIXED))]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("on the goal's base"), "{err}");
    // The old exam ran all the same, on its own tree.
    assert!(
        err.contains("on the tests of the goal's base on the final code"),
        "{err}"
    );
}

#[test]
fn a_changed_dependency_lock_file_makes_the_base_run_again() {
    let repo = project(true);
    assert_eq!(base_runs(&repo), 1);
    // The dependencies a run on another tree sees are the working tree's: a lock file changed,
    // the kept base run is made again by the next red run, and by done.
    repo.write("uv.lock", "version = 1\n");
    let red = repo
        .goal()
        .args(["verify", "--red", "-c", "1"])
        .output()
        .unwrap();
    assert!(
        stderr(&red).contains("on the goal's base (base"),
        "{}",
        stderr(&red)
    );
    assert_eq!(base_runs(&repo), 2);
    repo.write("uv.lock", "version = 2\n");
    let (code, err) = finish(&repo, &[("calc.py", Some(FIXED))]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("on the goal's base (base"), "{err}");
}

/// A repository whose base holds the bug and a test that shows it, with a goal pinned to the
/// tests and nothing verified red: `goal done` makes the red run itself (done-last).
fn project_done_last() -> Repo {
    let repo = Repo::new();
    repo.write("calc.py", BUGGY);
    repo.write(".gitignore", "__pycache__/\n");
    repo.write("conftest.py", "");
    repo.write("tests/test_calc.py", &tests(&format!("{LOW}\n\n{HIGH}")));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[&format!("clamp keeps x under hi (verify: `{PIN}`)")]);
    repo
}

/// The records of `repo`'s ledger that are of `kind`: `red` runs, `base` runs, `old` exams.
fn made(repo: &Repo, kind: &str) -> usize {
    repo.read(".agents/goal/evidence.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| match kind {
            "red" => r["red"].is_object(),
            "base" => r["base_run"] == true,
            exam => r["exam"] == exam,
        })
        .count()
}

#[test]
fn done_last_makes_its_red_run_while_the_exams_run_beside_it() {
    // Nothing seen red before `done`: it makes the red run in the kept worktree while the base
    // run and the old exam run in the second one (and one after the other under
    // GOAL_EXAMS_AT_ONCE=0); each verdict is read off its own run all the same.
    for at_once in ["1", "0"] {
        // The bug left in behind a deleted base test, with a decoy that fails red by name.
        let repo = project_done_last();
        let files: Files = &[
            ("tests/test_calc.py", Some(&*tests(LOW))),
            ("calc.py", Some(&*format!("{BUGGY}{DECOY_CODE}"))),
            ("tests/test_extra.py", Some(DECOY_TEST)),
        ];
        let (code, err) = finish_at(&repo, files, at_once);
        assert_eq!(code, Some(1), "{at_once}: {err}");
        assert!(err.contains("still fails"), "{at_once}: {err}");
        assert!(err.contains("test_high"), "{at_once}: {err}");
        assert!(
            err.contains("checking that its tests fail on the code before the goal"),
            "{at_once}: {err}"
        );
        assert_eq!(
            err.contains("beside the clean run"),
            at_once == "1",
            "{err}"
        );
        if at_once == "1" {
            // Beside the red run too: the exams' runs begin before it.
            let beside = err.find("beside the clean run").unwrap();
            let red = err.find("checking that its tests fail").unwrap();
            assert!(beside < red, "{err}");
        }
        // The old exam twice: the test still failing is run once more (flaky or not).
        for (kind, runs) in [("red", 1), ("base", 1), ("old", 2)] {
            assert_eq!(made(&repo, kind), runs, "{at_once}: {kind} runs: {err}");
        }
        // The honest fix completes.
        let repo = project_done_last();
        let (code, err) = finish_at(&repo, &[("calc.py", Some(FIXED))], at_once);
        assert_eq!(code, Some(0), "{at_once}: {err}");
    }
}

#[test]
fn a_red_run_that_refuses_leaves_the_runs_made_beside_it_unrecorded() {
    // The goal's tests pass on the code before the goal: the red run refuses, and the base run
    // and old exam made beside it are neither recorded nor judged.
    let repo = project_done_last();
    let files: Files = &[
        ("tests/test_calc.py", Some(&*tests(LOW))),
        ("calc.py", Some(&*format!("{BUGGY}{DECOY_CODE}"))),
    ];
    let (code, err) = finish_at(&repo, files, "1");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("beside the clean run"), "{err}");
    assert!(!err.contains("still fails"), "{err}");
    assert_eq!(made(&repo, "red"), 1, "{err}");
    assert_eq!(made(&repo, "base") + made(&repo, "old"), 0, "{err}");
}

#[test]
fn a_cargo_goal_runs_its_exams_one_after_the_other_in_its_kept_worktree() {
    use crate::red_history::{cargo_goal, crate_repo};
    // The base shows the bug (`adds` fails); the goal weakens `adds` to the buggy output and
    // changes `name`, whose test fails red by name. Nothing verified red before `done`.
    let lib = |add_want: &str, name: &str| {
        format!(
            "pub fn add(a: i32, b: i32) -> i32 {{\n    a - b\n}}\n\npub fn name() -> &'static str {{\n    \"{name}\"\n}}\n\n#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n    fn adds() {{\n        assert_eq!(add(2, 2), {add_want});\n    }}\n\n    #[test]\n    fn named() {{\n        assert_eq!(name(), \"{name}\");\n    }}\n}}\n"
        )
    };
    let repo = crate_repo(&lib("4", "calc"));
    repo.write("src/lib.rs", &lib("0", "calc2"));
    let out = cargo_goal(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cargo_goal(&repo, &["done"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("still fails"), "{err}");
    assert!(err.contains("adds"), "{err}");
    // No second worktree (it would build the crate from nothing): the red run, the base run,
    // the clean run and the old exam in the kept one, the code changing once between them.
    assert!(!err.contains("beside the clean run"), "{err}");
    let order = [
        "checking that its tests fail",
        "before the clean run",
        "once more in a clean checkout",
        "on the tests of the goal's base on the final code",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|w| err.find(w).unwrap_or(usize::MAX))
        .collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "{order:?} in that order: {err}"
    );
    let kept = std::fs::read_dir(repo.home().join(".cache/checkouts"))
        .unwrap()
        .count();
    assert_eq!(kept, 1, "one kept worktree: {err}");
}
