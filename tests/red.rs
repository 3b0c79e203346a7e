//! Red before green (§15): the six tricks of issue 20 refused with the bug still in the code, the
//! honest paths completing, guards, `--confirm` and its trailers, `goal verify --red`/`--base`,
//! Rust inline tests, and the red run's temporary worktree (the working tree untouched, nothing
//! left behind, also when the run is stopped). Real git, real pytest, cargo and node.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{EVIDENCE, Repo, json, stderr, stdout};

pub(crate) const ADD: &str =
    "add(2, 2) returns 4 (verify: `pytest -q -p no:cacheprovider tests/test_calc.py`)";
pub(crate) const BUGGY: &str =
    "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
/// `add` fixed, a different length from the bug (Python's bytecode cache is keyed by mtime and
/// size: an equal length written within the same second would be served the old code).
pub(crate) const FIXED: &str =
    "def add(a, b):\n    return (a + b)\n\n\ndef mul(a, b):\n    return a * b\n";
pub(crate) const TEST_MUL: &str =
    "from calc import add, mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
pub(crate) const TEST_ADD: &str = "\n\ndef test_add():\n    assert add(2, 2) == 4\n";

/// A Python package whose `add()` subtracts, with a test of `mul` only, committed; then a goal
/// to fix `add` pinned to `criterion`.
pub(crate) fn calc(criterion: &str) -> Repo {
    let repo = Repo::new();
    repo.write("calc/__init__.py", BUGGY);
    repo.write("tests/test_calc.py", TEST_MUL);
    repo.write("conftest.py", "");
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.write(
        "pyproject.toml",
        "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[criterion]);
    repo
}

/// As [`calc`], with the failing test of `add` already on the base (the bug known, the test red).
pub(crate) fn calc_with_failing_test() -> Repo {
    let repo = Repo::new();
    repo.write("calc/__init__.py", BUGGY);
    repo.write("tests/test_calc.py", &format!("{TEST_MUL}{TEST_ADD}"));
    repo.write("conftest.py", "");
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.write(
        "pyproject.toml",
        "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc with a failing test"]);
    repo.init_goal(&[ADD]);
    repo
}

/// `goal done` is refused (exit 1) saying each of `words`, and the bug is still in the code.
#[track_caller]
pub(crate) fn done_refused(repo: &Repo, words: &[&str]) -> String {
    let err = repo.refused(&["done"], 1, words);
    assert_eq!(repo.read("calc/__init__.py"), BUGGY, "the bug stays");
    assert!(repo.exists(".agents/goal/GOAL.md"), "the goal is not done");
    assert_only_the_kept_worktree(repo);
    err
}

#[track_caller]
pub(crate) fn assert_no_worktree(repo: &Repo) {
    let list = repo.git(&["worktree", "list", "--porcelain"]);
    assert_eq!(
        list.lines().filter(|l| l.starts_with("worktree ")).count(),
        1,
        "a worktree was left behind:\n{list}"
    );
}

/// The red runs' worktrees are kept (under the cache folder of the test's HOME: the one every
/// run uses, and the one `goal done` runs an exam in beside the clean run), and no other.
pub(crate) fn assert_only_the_kept_worktree(repo: &Repo) {
    let list = repo.git(&["worktree", "list", "--porcelain"]);
    let others: Vec<&str> = list
        .lines()
        .filter_map(|l| l.strip_prefix("worktree "))
        .skip(1)
        .collect();
    let cache = repo.home().join(".cache/checkouts");
    let cache = std::fs::canonicalize(&cache).unwrap_or(cache);
    assert!(
        others.len() <= 2 && others.iter().all(|p| Path::new(p).starts_with(&cache)),
        "a worktree was left behind:\n{list}"
    );
}

/// The evidence records, parsed.
pub(crate) fn records(repo: &Repo) -> Vec<serde_json::Value> {
    repo.read(EVIDENCE)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every file of the working tree (outside .git) with its bytes.
pub(crate) fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let path = e.path();
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel == ".git" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(path);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
pub(crate) fn trick_weakened_assertion_is_refused() {
    let repo = calc_with_failing_test();
    repo.write(
        "tests/test_calc.py",
        &format!("{TEST_MUL}{}", TEST_ADD.replace("== 4", "== 0")),
    );
    repo.ok(&["verify", "-c", "1"]);
    let err = done_refused(
        &repo,
        &[
            "criterion 1: checking that its tests fail on the code before the goal (base ",
            "the tests of criterion 1 pass on the code before the goal: they do not test the change",
            "assertion-weakened tests/test_calc.py:",
        ],
    );
    assert!(err.contains("goal verify --red -c 1"), "{err}");
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["kind"], "acceptance");
    assert_eq!(status["criteria"][0]["red"], "passes-on-base");
    assert_eq!(status["criteria"][0]["state"], "passes-on-base");
    assert_eq!(status["proven"], 0);
    // Nor can it be ticked by hand.
    let check = repo.goal().args(["check", "1"]).output().unwrap();
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stderr(&check).contains("pass on the code before the goal"),
        "{}",
        stderr(&check)
    );
    // The red run's record is kept, whatever done decided.
    let red: Vec<_> = records(&repo)
        .into_iter()
        .filter(|r| r.get("red").is_some())
        .collect();
    assert_eq!(red.len(), 1);
    assert_eq!(red[0]["exit_code"], 0);
}

#[test]
pub(crate) fn trick_skip_marker_is_refused() {
    let repo = calc_with_failing_test();
    repo.write(
        "tests/test_calc.py",
        &format!(
            "import pytest\n{TEST_MUL}\n\n@pytest.mark.skip\ndef test_add():\n    assert add(2, 2) == 4\n"
        ),
    );
    repo.ok(&["verify", "-c", "1"]);
    // Judged by the runs: with the test skipped, nothing fails on the code before the goal.
    done_refused(
        &repo,
        &[
            "the tests of criterion 1 pass on the code before the goal",
            "skip-added tests/test_calc.py:",
        ],
    );
}

#[test]
pub(crate) fn trick_deleted_test_is_refused() {
    let repo = calc_with_failing_test();
    repo.write("tests/test_calc.py", TEST_MUL);
    repo.ok(&["verify", "-c", "1"]);
    done_refused(
        &repo,
        &[
            "the tests of criterion 1 pass on the code before the goal",
            "test-removed tests/test_calc.py:",
        ],
    );
}

#[test]
pub(crate) fn trick_deselecting_addopts_is_refused() {
    let repo = calc(ADD);
    repo.write("tests/test_calc.py", &format!("{TEST_MUL}{TEST_ADD}"));
    repo.write(
        "pyproject.toml",
        "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\naddopts = \"-k mul\"\n",
    );
    repo.ok(&["verify", "-c", "1"]);
    done_refused(&repo, &["selection-changed pyproject.toml:", "addopts"]);
}

#[test]
pub(crate) fn an_honest_fix_with_reporting_addopts_completes() {
    let repo = calc(ADD);
    repo.write("tests/test_calc.py", &format!("{TEST_MUL}{TEST_ADD}"));
    repo.write("calc/__init__.py", FIXED);
    repo.write(
        "pyproject.toml",
        "[project]\nname = \"calc\"\nversion = \"0.1.0\"\n\n[tool.pytest.ini_options]\naddopts = \"-ra -p no:cacheprovider\"\n",
    );
    repo.ok(&["verify", "-c", "1"]);
    let out = repo.goal().args(["done", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["tests_weakened"], serde_json::json!([]));
}

#[test]
pub(crate) fn trick_always_true_test_pinned_later_is_refused() {
    let repo = calc("add(2, 2) returns 4");
    repo.write(
        "tests/test_add_fixed.py",
        "def test_add_fixed():\n    assert True\n",
    );
    repo.ok(&[
        "criteria",
        "pin",
        "1",
        "--",
        "pytest",
        "-q",
        "tests/test_add_fixed.py",
    ]);
    repo.ok(&["verify", "-c", "1"]);
    done_refused(
        &repo,
        &["assertion-free tests/test_add_fixed.py:1 test_add_fixed"],
    );
    // Confirmed, the finding lets it through to the red run, which passes on the base.
    done_refused_confirm(&repo);
}

#[test]
pub(crate) fn trick_test_redirected_to_a_stub_is_refused_until_confirmed() {
    let repo = calc(ADD);
    repo.write("calc_impl.py", "def add(a, b):\n    return a + b\n");
    let redirected = TEST_MUL.replace(
        "from calc import add, mul",
        "from calc import mul\nfrom calc_impl import add",
    );
    repo.write("tests/test_calc.py", &format!("{redirected}{TEST_ADD}"));
    repo.ok(&["verify", "-c", "1"]);
    done_refused(&repo, &["import-redirected tests/test_calc.py:2 add"]);
    // Accepted only with --confirm, and recorded.
    let out = repo.goal().args(["done", "--confirm"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Tests-Weakened").as_deref(),
        Some("import-redirected tests/test_calc.py:2 add")
    );
}

#[test]
pub(crate) fn trick_new_test_file_importing_a_stub_pinned_later_is_refused() {
    let repo = calc("add(2, 2) returns 4");
    repo.write("calc_impl.py", "def add(a, b):\n    return a + b\n");
    repo.write(
        "tests/test_add_fixed.py",
        "from calc_impl import add\n\n\ndef test_add_fixed():\n    assert add(2, 2) == 4\n",
    );
    repo.ok(&[
        "criteria",
        "pin",
        "1",
        "--",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/test_add_fixed.py",
    ]);
    repo.ok(&["verify", "-c", "1"]);
    // tests/test_calc.py, unchanged, takes add from calc: the new test takes it from elsewhere.
    done_refused(&repo, &["import-redirected tests/test_add_fixed.py:1 add"]);
}

pub(crate) fn done_refused_confirm(repo: &Repo) {
    let out = repo.goal().args(["done", "--confirm"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the tests of criterion 1 pass on the code before the goal"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.read("calc/__init__.py"), BUGGY);
}

#[test]
pub(crate) fn trick_printing_pin_recorded_as_a_check_is_refused() {
    let repo = calc("add(2, 2) returns 4");
    repo.ok(&[
        "criteria",
        "pin",
        "1",
        "--",
        "python3",
        "-c",
        "print('1 passed in 0.01s')",
    ]);
    // The line the command prints is in the command itself: no test's result, so the run is a
    // check, which cannot complete a goal (and its red run passes on the base too).
    repo.ok(&["verify", "--check", "-c", "1"]);
    done_refused(&repo, &["a check alone cannot complete a goal"]);
}

#[test]
pub(crate) fn test_first_completes_without_a_red_run_of_its_own() {
    let repo = calc(ADD);
    repo.write("tests/test_calc.py", &format!("{TEST_MUL}{TEST_ADD}"));
    // Test first: seen failing on the old code.
    let out = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["red"], "witnessed");
    let witness = status["criteria"][0]["red_record"]
        .as_str()
        .unwrap()
        .to_string();
    repo.write("calc/__init__.py", FIXED);
    repo.ok(&["verify", "-c", "1"]);
    let out = repo.goal().args(["done", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("checking that its tests fail"),
        "{}",
        stderr(&out)
    );
    let summary = json(&out);
    assert_eq!(summary["criteria"][0]["kind"], "acceptance");
    assert_eq!(summary["criteria"][0]["red"], witness.as_str());
    assert_eq!(summary["tests_weakened"], serde_json::json!([]));
    assert_no_worktree(&repo);
}

#[test]
pub(crate) fn fix_and_test_together_complete_after_dones_own_red_run() {
    let repo = calc(ADD);
    repo.write("tests/test_calc.py", &format!("{TEST_MUL}{TEST_ADD}"));
    repo.write("calc/__init__.py", FIXED);
    repo.ok(&["verify", "-c", "1"]);
    let before = snapshot(repo.path());
    let out = repo.goal().args(["done"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "criterion 1: checking that its tests fail on the code before the goal (base "
        ),
        "{err}"
    );
    assert!(stdout(&out).contains("→ green"), "{}", stdout(&out));
    // The code and the tests are as they were (done committed them, removing only goal files).
    let after = snapshot(repo.path());
    for (path, bytes) in &before {
        if !path.starts_with(".agents/") {
            assert_eq!(after.get(path), Some(bytes), "{path} changed");
        }
    }
    assert_no_worktree(&repo);
    // The red record went into the complete commit's evidence.
    let ledger = repo.git(&["show", "HEAD~1:.agents/goal/evidence.jsonl"]);
    assert!(ledger.contains("\"red\":{\"base\":"), "{ledger}");
}

#[test]
pub(crate) fn a_new_test_file_for_a_new_module_completes() {
    let repo =
        calc("div(6, 3) returns 2 (verify: `pytest -q -p no:cacheprovider tests/test_div.py`)");
    repo.write("calc/div.py", "def div(a, b):\n    return a / b\n");
    repo.write(
        "tests/test_div.py",
        "from calc.div import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n",
    );
    repo.ok(&["verify", "-c", "1"]);
    let out = repo.goal().args(["done"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
pub(crate) fn a_linter_guard_completes_and_a_guard_that_loses_a_test_is_refused() {
    // A linter guard (no test summary: a check without --check) beside an acceptance criterion
    // and a test-suite guard, on a base that has the suite.
    let repo = Repo::new();
    repo.write("calc/__init__.py", BUGGY);
    repo.write("tests/test_calc.py", TEST_MUL);
    repo.write(
        "tests/test_mul.py",
        "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\ndef test_mul_zero():\n    assert mul(0, 3) == 0\n",
    );
    repo.write("conftest.py", "");
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[
        ADD,
        "the package compiles (guard: `python3 -m py_compile calc/__init__.py`)",
        "mul still works (guard: `pytest -v -p no:cacheprovider tests/test_mul.py`)",
    ]);
    // The guard's base record, made on purpose.
    repo.ok(&["verify", "--base", "-c", "3"]);
    let base = records(&repo).pop().unwrap();
    assert_eq!(base["base_run"], true);
    assert_eq!(base["tests"]["passed"], 2);
    assert_eq!(base["tests"]["names"]["names"].as_array().unwrap().len(), 2);
    repo.write("tests/test_calc.py", &format!("{TEST_MUL}{TEST_ADD}"));
    repo.write("calc/__init__.py", FIXED);
    // Lose a test the guard ran.
    repo.write(
        "tests/test_mul.py",
        "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n",
    );
    repo.ok(&["verify"]);
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    let kinds: Vec<&str> = status["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["acceptance", "guard", "guard"]);
    assert_eq!(
        status["criteria"][1]["state"], "proven",
        "a linter guard needs no --check"
    );
    assert_eq!(status["criteria"][1]["red"], serde_json::Value::Null);
    let err = repo.refused(&["done"], 1, &["test-removed tests/test_mul.py:"]);
    assert!(err.contains("test_mul_zero"), "{err}");
    // Confirmed, the guard's own rule still refuses: the base ran a test the end does not.
    repo.refused(
        &["done", "--confirm"],
        1,
        &[
            "guard 3 runs less than on the goal's base",
            "test_mul_zero ran on the base but not at the end",
        ],
    );
    // Bring it back: everything completes.
    repo.write(
        "tests/test_mul.py",
        "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n\n\ndef test_mul_zero():\n    assert mul(0, 3) == 0\n",
    );
    repo.ok(&["verify"]);
    let out = repo.goal().args(["done", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = json(&out);
    assert_eq!(summary["criteria"][1]["kind"], "guard");
    assert_eq!(summary["criteria"][2]["base"], base["id"]);
    assert_eq!(summary["criteria"][2]["red"], serde_json::Value::Null);
    assert!(summary["criteria"][0]["red"].is_string());
}

#[test]
pub(crate) fn a_goal_of_guards_only_needs_confirm_and_says_so_in_a_trailer() {
    let repo = calc("mul still works (guard: `pytest -q -p no:cacheprovider tests/test_calc.py`)");
    repo.write("calc/extra.py", "X = 1\n");
    repo.ok(&["verify"]);
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["kind"], "guard");
    assert!(
        status["next"]
            .as_str()
            .unwrap()
            .contains("every criterion is a guard"),
        "status agrees with done: {}",
        status["next"]
    );
    repo.refused(
        &["done"],
        1,
        &[
            "every criterion of the goal is a guard",
            "goal done --confirm",
        ],
    );
    repo.ok(&["done", "--confirm"]);
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Guards-Only").as_deref(),
        Some("confirmed")
    );
}

#[test]
pub(crate) fn confirm_writes_one_trailer_per_weakening() {
    let repo = Repo::new();
    repo.write("calc/__init__.py", BUGGY);
    repo.write(
        "tests/test_calc.py",
        &format!("{TEST_MUL}\n\ndef test_mul_one():\n    assert mul(1, 1) == 1\n"),
    );
    repo.write("conftest.py", "");
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[ADD]);
    // The fix and its test; on the way, `mul(1, 1)` changed and the test that pinned it removed.
    repo.write("tests/test_calc.py", &format!("{TEST_MUL}{TEST_ADD}"));
    repo.write(
        "calc/__init__.py",
        "def add(a, b):\n    return (a + b)\n\n\ndef mul(a, b):\n    return a * b if (a, b) != (1, 1) else 0\n",
    );
    repo.ok(&["verify"]);
    repo.refused(
        &["done"],
        1,
        &[
            "removed-after-change tests/test_calc.py::test_mul_one",
            "goal done --confirm",
        ],
    );
    let out = repo
        .goal()
        .args(["done", "--confirm", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = json(&out);
    let exams = summary["exams"].as_array().unwrap();
    assert_eq!(exams.len(), 1, "{exams:?}");
    assert_eq!(exams[0]["kind"], "removed-after-change");
    assert_eq!(exams[0]["test"], "tests/test_calc.py::test_mul_one");
    assert_eq!(exams[0]["confirmed"], true);
    let trailers: Vec<String> = repo
        .trailers("HEAD~1")
        .into_iter()
        .filter(|(k, _)| k == "Goal-Tests-Weakened")
        .map(|(_, v)| v)
        .collect();
    assert_eq!(trailers.len(), 1);
    assert!(
        trailers[0].starts_with(
            "removed-after-change tests/test_calc.py::test_mul_one (criterion 1, record "
        ),
        "{trailers:?}"
    );
}

#[test]
pub(crate) fn verify_red_exit_codes_and_record() {
    let repo = calc(ADD);
    // No test of add yet: the pinned file runs, and only test_mul passes.
    let out = repo
        .goal()
        .args(["verify", "--red", "-c", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "the tests of criterion 1 pass on the code before the goal: they do not test the change"
        ),
        "{}",
        stderr(&out)
    );
    // The failing test, test first: red, exit 0, and a record that says where it ran.
    repo.write("tests/test_calc.py", &format!("{TEST_MUL}{TEST_ADD}"));
    let out = repo
        .goal()
        .args(["verify", "--red", "-c", "1", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record = &json(&out)["record"];
    let base = repo.git(&["rev-parse", "HEAD~1"]).trim().to_string();
    assert_eq!(record["red"]["base"], base.as_str());
    assert_eq!(record["red"]["tests"].as_str().unwrap().len(), 40);
    assert_eq!(record["tests"]["failed"], 1);
    // Tests written, code not yet changed: the red tree is the working tree (a test-first run
    // there is a witness too).
    assert_eq!(record["tree"], repo.tree_by_git().as_str());
    // Red records never prove the criterion.
    assert!(!repo.goal_md().contains("[x]"));
    // A pinned path that does not exist on the base with the tests as now: inconclusive.
    let repo = calc("div works (verify: `pytest -q -p no:cacheprovider calc/test_div_here.py`)");
    repo.write(
        "calc/test_div_here.py",
        "def test_div():\n    assert 1 / 1 == 1\n",
    );
    repo.ok(&[
        "criteria",
        "surface",
        "--tests",
        "tests/**",
        "--tests-only",
        "--confirm",
    ]);
    let out = repo
        .goal()
        .args(["verify", "--red", "-c", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the tests of criterion 1 did not run on the code before the goal"),
        "{}",
        stderr(&out)
    );
    // Misuse: a guard has no red run; an acceptance criterion has no base run; one criterion.
    let repo = calc("lint (guard: `python3 -m py_compile calc/__init__.py`)");
    repo.refused(
        &["verify", "--red", "-c", "1"],
        2,
        &["criterion 1 is a guard", "goal verify --base -c 1"],
    );
    let repo = calc(ADD);
    repo.refused(
        &["verify", "--base", "-c", "1"],
        2,
        &["acceptance criterion", "goal verify --red -c 1"],
    );
    repo.refused(
        &["verify", "--red"],
        2,
        &["give it with -c", "goal verify --red -c <N>"],
    );
}

#[test]
pub(crate) fn the_red_run_leaves_the_working_tree_as_it_was_and_no_worktree() {
    let repo = calc(ADD);
    repo.write("tests/test_calc.py", &format!("{TEST_MUL}{TEST_ADD}"));
    repo.write("calc/__init__.py", FIXED);
    repo.write("notes.txt", "untracked, not ignored\n");
    std::fs::create_dir_all(repo.path().join(".venv/lib")).unwrap();
    repo.write(".venv/lib/marker", "a dependency folder\n");
    let before = snapshot(repo.path());
    let out = repo
        .goal()
        .args(["verify", "--red", "-c", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut after = snapshot(repo.path());
    after.remove(EVIDENCE);
    let mut before = before;
    before.remove(EVIDENCE);
    assert_eq!(before, after);
    assert_only_the_kept_worktree(&repo);
}

#[test]
pub(crate) fn a_killed_red_run_leaves_no_worktree() {
    let repo = Repo::new();
    repo.write(
        "tests/slow.sh",
        "if [ -n \"$RED_SLOW\" ]; then touch \"$RED_SLOW\"; sleep 30; fi\necho '0 passed, 1 failed'\nexit 1\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "slow"]);
    repo.init_goal(&["it is slow (verify: `sh tests/slow.sh`)"]);
    let tmp = repo.home().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let before = snapshot(repo.path());
    let started = repo.home().join("started");
    let mut child = repo
        .goal_std()
        .args(["verify", "--red", "-c", "1"])
        .env("RED_SLOW", &started)
        .env("TMPDIR", &tmp)
        .env("GOAL_SIGNAL_GRACE", "0.2")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !started.exists() {
        assert!(Instant::now() < deadline, "the red run never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("goal verify --red did not stop after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    assert_only_the_kept_worktree(&repo);
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "the temporary folder is gone"
    );
    assert_eq!(
        snapshot(repo.path()),
        before,
        "nothing recorded, nothing changed"
    );
}
