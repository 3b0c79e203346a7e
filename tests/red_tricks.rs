//! Red before green against tricks that change no test: a conftest the repository ignores that
//! patches the code, an environment that does, and a pin that prints its own test summary. Each is
//! refused with the bug still in the code. Real git, real pytest.

use crate::common::{Repo, stderr};

const ADD: &str =
    "add(2, 2) returns 4 (verify: `pytest -q -p no:cacheprovider tests/test_calc.py`)";
const BUGGY: &str = "def add(a, b):\n    return a - b\n";
const TESTS: &str = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
/// Makes `add` right without changing calc/ or any tracked file.
const PATCH: &str = "import calc\ncalc.add = lambda a, b: a + b\n";

/// A Python package whose `add()` subtracts, with its failing test on the base; a goal to fix it.
fn calc(criterion: &str) -> Repo {
    let repo = Repo::new();
    repo.write("calc/__init__.py", BUGGY);
    repo.write("tests/test_calc.py", TESTS);
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.write(
        "pyproject.toml",
        "[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc with a failing test"]);
    repo.init_goal(&[criterion]);
    repo
}

/// The pin fails on the code as it is (the bug known).
#[track_caller]
fn red(repo: &Repo) {
    let out = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[track_caller]
fn done_refused(repo: &Repo, words: &[&str]) {
    repo.refused(&["done"], 1, words);
    assert_eq!(repo.read("calc/__init__.py"), BUGGY, "the bug stays");
    assert!(repo.exists(".agents/goal/GOAL.md"), "the goal is not done");
}

const SAME_CODE: &str = "criterion 1: the goal changed none of the code its tests run";

#[test]
fn an_ignored_conftest_that_patches_the_code_is_refused() {
    let repo = calc(ADD);
    red(&repo); // a witness on the red tree
    let exclude = repo.path().join(".git/info/exclude");
    let mut text = std::fs::read_to_string(&exclude).unwrap_or_default();
    text.push_str("conftest.py\n");
    std::fs::write(&exclude, text).unwrap();
    repo.write("conftest.py", PATCH);
    repo.ok(&["verify", "-c", "1"]); // green, on the same tree
    repo.ok(&["iterate", "-m", "verified"]);
    done_refused(
        &repo,
        &[SAME_CODE, "change the code the criterion is about"],
    );
}

#[test]
fn an_environment_that_patches_the_code_after_an_honest_red_is_refused() {
    let repo = calc(ADD);
    red(&repo);
    let stub = tempfile::tempdir().unwrap();
    std::fs::write(stub.path().join("fixadd.py"), PATCH).unwrap();
    let out = repo
        .goal()
        .args(["verify", "-c", "1"])
        .env("PYTHONPATH", stub.path())
        .env("PYTEST_ADDOPTS", "-p fixadd")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    repo.ok(&["iterate", "-m", "verified"]);
    done_refused(&repo, &[SAME_CODE]);
}

#[test]
fn a_pin_that_prints_its_own_summary_proves_nothing() {
    let repo = calc("add(2, 2) returns 4");
    repo.write("marker.py", "OK = True\n");
    repo.ok(&[
        "criteria",
        "pin",
        "1",
        "--",
        "python3",
        "-c",
        "import marker; print('1 passed in 0.01s')",
    ]);
    let out = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    let err = stderr(&out);
    assert!(
        err.contains("the output's test summary is written in the command itself"),
        "{err}"
    );
    repo.ok(&["iterate", "-m", "verified"]);
    done_refused(&repo, &["printed no test summary"]);
}

#[test]
fn the_honest_fix_on_the_same_base_completes() {
    // The control: the same package, the code fixed, completes (the rule above is not a blanket no).
    let repo = calc(ADD);
    red(&repo);
    // A different length from the bug: Python's bytecode cache is keyed by mtime and size.
    repo.write("calc/__init__.py", "def add(a, b):\n    return (a + b)\n");
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "fixed add"]);
    repo.ok(&["done"]);
    let log = repo.git(&["log", "--format=%B"]);
    assert!(log.contains("Goal-Status: complete"), "{log}");
}

/// The base's test of `add`, expecting a wrong value (so the goal must change its assertion).
const TESTS_WRONG: &str = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 5\n";

#[test]
fn a_weakened_assertion_whose_red_run_failed_elsewhere_is_refused() {
    let repo = calc(ADD);
    // The assertion weakened to what the bug returns, and an import of a module the goal adds, so
    // that the red run fails at collection, never reaching the weakened test.
    repo.write("version.py", "VERSION = 2\n");
    repo.write(
        "tests/test_calc.py",
        &format!(
            "import version  # noqa: F401\n{}",
            TESTS.replace("== 4", "== 0")
        ),
    );
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "version module"]);
    // The base's test runs on the final code (the old exam): the bug it shows is still in.
    done_refused(
        &repo,
        &[
            "the base's test tests/test_calc.py::test_add still fails on the final code",
            "assertion-weakened tests/test_calc.py:",
        ],
    );
    // Accepted by a human, it completes and says so in the history.
    repo.ok(&["done", "--confirm"]);
    let log = repo.git(&["log", "-1", "--skip=1", "--format=%B"]);
    let all = repo.git(&["log", "--format=%B"]);
    assert!(
        all.contains("Goal-Tests-Weakened: still-failing tests/test_calc.py::test_add"),
        "{log}\n{all}"
    );
}

#[test]
fn a_base_test_that_expected_a_wrong_value_is_the_persons_to_correct() {
    // The base's test expected a wrong value; the goal corrects it and fixes the code. The base's
    // test still fails on the final code (the old exam): whether the base's expectation was wrong
    // is the person's to say, and `--confirm` records it.
    let repo = Repo::new();
    repo.write("calc/__init__.py", BUGGY);
    repo.write("tests/test_calc.py", TESTS_WRONG);
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.write(
        "pyproject.toml",
        "[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc with a wrong test"]);
    repo.init_goal(&[ADD]);
    repo.write("tests/test_calc.py", TESTS);
    red(&repo);
    repo.write("calc/__init__.py", "def add(a, b):\n    return (a + b)\n");
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "fixed add and its test"]);
    let out = repo.goal().args(["done"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("still fails on the final code"),
        "{}",
        stderr(&out)
    );
    let out = repo.goal().args(["done", "--confirm"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let log = repo.git(&["log", "--format=%B"]);
    assert!(
        log.contains("Goal-Tests-Weakened: still-failing tests/test_calc.py::test_add"),
        "{log}"
    );
}

#[test]
fn a_criterion_that_passes_on_the_base_is_unproven_on_every_surface() {
    // Its pin already passes on the code before the goal: done refuses it, so status, inject and
    // the Claude Stop hook must not call it proven or send the agent to `goal done`.
    let repo = Repo::new();
    repo.write("calc/__init__.py", "def add(a, b):\n    return (a + b)\n");
    repo.write("tests/test_calc.py", TESTS);
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.write(
        "pyproject.toml",
        "[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc, already right"]);
    repo.init_goal(&[ADD]);
    repo.ok(&["verify", "-c", "1"]);
    repo.refused(&["done"], 1, &["pass on the code before the goal"]);
    let status = crate::common::json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["state"], "passes-on-base", "{status}");
    assert_eq!(status["proven"], 0, "{status}");
    let next = status["next"].as_str().unwrap();
    assert!(!next.contains("goal done"), "{next}");
    let inject = crate::common::stdout(&repo.goal().args(["inject"]).output().unwrap());
    assert!(!inject.contains("Every criterion is proven"), "{inject}");
    let out = repo
        .goal()
        .args(["hook", "claude"])
        .write_stdin(r#"{"hook_event_name":"Stop","stop_hook_active":false}"#)
        .output()
        .unwrap();
    let hook = crate::common::stdout(&out);
    assert!(hook.contains("\"decision\":\"block\""), "{hook}");
    assert!(hook.contains("passes-on-base"), "{hook}");
}
