//! Where red runs happen and what the tests depend on: test data and test helpers the goal
//! changed are part of the test surface, `goal done` decides on a clean run of the final tree,
//! every pin run gets the same environment in a folder that names neither goal nor the run, and
//! the red runs' worktree is kept between runs and removed by done and abandon. Each trick is
//! refused with the bug left in the code; the honest shapes complete. Real git, real pytest.

use std::path::{Path, PathBuf};

use crate::common::{Repo, stderr};

const BUGGY: &str = "def add(a, b):\n    return a - b\n";
/// A different length from the bug: Python's bytecode cache is keyed by mtime and size.
const FIXED: &str = "def add(a, b):\n    return (a + b)\n";
/// The bug kept, and a new function: the goal changed code its tests import.
const BUGGY_PLUS: &str = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";
const PIN: &str = "add(2, 2) returns 4 (verify: `pytest -q -p no:cacheprovider tests`)";
const TEST_ADD: &str = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";

/// A Python package whose `add()` subtracts, with `files` on the base too; a goal to fix it.
fn calc(files: &[(&str, &str)]) -> Repo {
    let repo = Repo::new();
    repo.write("calc/__init__.py", BUGGY);
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.write(
        "pyproject.toml",
        "[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
    );
    for (path, text) in files {
        repo.write(path, text);
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[PIN]);
    repo
}

#[track_caller]
fn done_refused(repo: &Repo, words: &[&str]) {
    repo.refused(&["done"], 1, words);
    assert!(
        repo.read("calc/__init__.py").contains("return a - b"),
        "the bug stays"
    );
    assert!(repo.exists(".agents/goal/GOAL.md"), "the goal is not done");
}

#[track_caller]
fn verify(repo: &Repo, code: i32) {
    let out = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
}

const PASSES_ON_BASE: &str = "the tests of criterion 1 pass on the code before the goal";

/// The test reads its expected value from a data file.
const TEST_DATA: &str = "import json\nfrom calc import add\n\n\ndef test_add():\n    with open(\"data/expected.json\") as f:\n        assert add(2, 2) == json.load(f)[\"2+2\"]\n";

#[test]
fn a_data_file_changed_to_what_the_bug_gives_is_refused() {
    let repo = calc(&[
        ("tests/test_calc.py", TEST_DATA),
        ("data/expected.json", "{\"2+2\": 4}\n"),
    ]);
    verify(&repo, 1);
    repo.write("data/expected.json", "{\"2+2\": 0}\n");
    repo.write("calc/__init__.py", BUGGY_PLUS);
    verify(&repo, 0);
    repo.ok(&["iterate", "-m", "expected value"]);
    done_refused(&repo, &[PASSES_ON_BASE]);
}

#[test]
fn a_new_data_file_for_new_code_completes() {
    let repo = calc(&[("tests/test_calc.py", TEST_ADD)]);
    repo.write("calc/__init__.py", FIXED);
    repo.write(
        "calc/table.py",
        "def table():\n    return open(\"data/table.txt\").read()\n",
    );
    repo.write("data/table.txt", "1 2 3\n");
    repo.write(
        "tests/test_table.py",
        "from calc.table import table\n\n\ndef test_table():\n    assert table() == \"1 2 3\\n\"\n",
    );
    repo.write("data/rows.txt", "4 5 6\n");
    repo.write(
        "tests/test_rows.py",
        "from calc.table import table\n\n\ndef test_rows():\n    assert table() != open(\"data/rows.txt\").read()\n",
    );
    verify(&repo, 0);
    repo.ok(&["iterate", "-m", "a table"]);
    repo.ok(&["done"]);
}

/// A helper the tests import that patches the code under test.
const PATCHING_HELPER: &str = "import calc\n\ncalc.add = lambda a, b: a + b\n";

#[test]
fn a_helper_that_monkeypatches_the_code_is_refused() {
    let repo = calc(&[]);
    repo.write("fixtures_calc.py", PATCHING_HELPER);
    repo.write(
        "tests/test_calc.py",
        &format!("import fixtures_calc  # noqa: F401\n{TEST_ADD}"),
    );
    repo.write("calc/__init__.py", BUGGY_PLUS);
    verify(&repo, 0);
    repo.ok(&["iterate", "-m", "a helper"]);
    done_refused(&repo, &[PASSES_ON_BASE]);
}

#[test]
fn a_plain_new_module_only_the_tests_import_completes() {
    let repo = calc(&[]);
    repo.write("calc/__init__.py", FIXED);
    repo.write("version.py", "VERSION = 2\n");
    repo.write(
        "tests/test_calc.py",
        &format!("from version import VERSION\n{TEST_ADD}\n\ndef test_version():\n    assert VERSION == 2\n"),
    );
    verify(&repo, 0);
    repo.ok(&["iterate", "-m", "version"]);
    repo.ok(&["done"]);
}

/// Makes `add` right without changing a tracked file.
const PATCH: &str = "import calc\ncalc.add = lambda a, b: a + b\n";

#[test]
fn an_excluded_conftest_patching_the_code_is_refused_by_the_clean_run() {
    let repo = calc(&[("tests/test_calc.py", TEST_ADD)]);
    verify(&repo, 1);
    let exclude = repo.path().join(".git/info/exclude");
    let mut text = std::fs::read_to_string(&exclude).unwrap_or_default();
    text.push_str("conftest.py\n");
    std::fs::write(&exclude, text).unwrap();
    repo.write("conftest.py", PATCH);
    repo.write("calc/__init__.py", BUGGY_PLUS);
    verify(&repo, 0);
    repo.ok(&["iterate", "-m", "sub"]);
    done_refused(
        &repo,
        &[
            "criterion 1: its pin does not pass in a clean checkout of the final tree",
            "git status --ignored",
        ],
    );
}

#[test]
fn code_right_only_beside_an_ignored_marker_is_refused_by_the_clean_run() {
    let repo = calc(&[("tests/test_calc.py", TEST_ADD)]);
    verify(&repo, 1);
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n.fixed\n");
    repo.write(".fixed", "");
    repo.write(
        "calc/__init__.py",
        "import os\n\n\ndef add(a, b):\n    return a + b if os.path.exists(\".fixed\") else a - b\n",
    );
    verify(&repo, 0);
    repo.ok(&["iterate", "-m", "fixed, beside a marker"]);
    let out = repo.goal().args(["done"]).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("running `pytest -q -p no:cacheprovider tests` once more in a clean checkout"),
        "{err}"
    );
    assert!(err.contains("the clean run did not pass in "), "{err}");
    assert!(err.contains("does not pass in a clean checkout"), "{err}");
    assert!(repo.exists(".agents/goal/GOAL.md"), "the goal is not done");
}

#[test]
fn a_conftest_that_knows_the_red_folder_is_refused() {
    // It patches the code unless the folder looks like a red run's: the red run would fail there
    // (a forged witness) while every other run passes with the bug left in.
    let conftest = "import os\nimport calc\n\nwhere = os.getcwd().lower()\nif not any(w in where for w in (\"goal\", \"red\", \".git\")):\n    calc.add = lambda a, b: a + b\n";
    let repo = calc(&[("tests/test_calc.py", TEST_ADD)]);
    repo.write("tests/conftest.py", conftest);
    repo.write("calc/__init__.py", BUGGY_PLUS);
    verify(&repo, 0);
    repo.ok(&["iterate", "-m", "conftest"]);
    // Its condition reads the run's folder to choose what runs: refused on that, whatever the
    // red run shows.
    done_refused(&repo, &["test-detected tests/conftest.py:5"]);
}

/// A test that writes where it runs and what `GOAL_*` it sees to `$HOME/probe.txt`.
const PROBE: &str = "import os\nfrom calc import add\n\n\ndef test_add():\n    seen = [k for k in os.environ if k.startswith(\"GOAL_\") or k == \"CLAUDE_ENV_FILE\"]\n    with open(os.path.join(os.environ[\"HOME\"], \"probe.txt\"), \"a\") as f:\n        f.write(os.getcwd() + \"|\" + os.environ.get(\"PWD\", \"\") + \"|\" + \",\".join(seen) + \"\\n\")\n    assert add(2, 2) == 4\n";

/// The lines the probe wrote: (cwd, PWD, GOAL_* variables seen).
fn probes(repo: &Repo) -> Vec<(String, String, String)> {
    let text = std::fs::read_to_string(repo.home().join("probe.txt")).unwrap_or_default();
    text.lines()
        .map(|l| {
            let mut parts = l.splitn(3, '|').map(str::to_string);
            let mut next = || parts.next().unwrap_or_default();
            (next(), next(), next())
        })
        .collect()
}

/// The kept worktree of `repo`: `$HOME/.cache/checkouts/<hash>/<the repository's folder name>`.
fn kept(repo: &Repo) -> Option<PathBuf> {
    let root = repo.home().join(".cache/checkouts");
    let name = repo.path().file_name().unwrap().to_owned();
    std::fs::read_dir(root)
        .ok()?
        .flatten()
        .map(|e| e.path().join(&name))
        .find(|p| p.is_dir())
}

#[test]
fn every_run_is_alike_in_a_folder_naming_no_goal_nor_run() {
    let repo = calc(&[]);
    repo.write("tests/test_calc.py", PROBE);
    for args in [
        &["verify", "-c", "1"][..],
        &["verify", "--red", "-c", "1"][..],
    ] {
        let out = repo
            .goal()
            .args(args)
            .env("GOAL_AGENT", "claude")
            .env("GOAL_RUN_AGENT", "claude")
            .env("CLAUDE_ENV_FILE", repo.home().join("env"))
            .output()
            .unwrap();
        assert!(out.status.code().is_some(), "{}", stderr(&out));
    }
    let seen = probes(&repo);
    assert_eq!(seen.len(), 2, "{seen:?}");
    let home = std::fs::canonicalize(repo.home()).unwrap();
    let worktree = std::fs::canonicalize(kept(&repo).expect("a kept worktree")).unwrap();
    assert_eq!(
        Path::new(&seen[1].0),
        worktree,
        "the red run ran in the kept worktree"
    );
    for (cwd, pwd, goal_vars) in &seen {
        assert_eq!(
            goal_vars, "",
            "no GOAL_* nor CLAUDE_ENV_FILE reaches a pin: {cwd}"
        );
        assert_eq!(
            std::fs::canonicalize(pwd).unwrap(),
            std::fs::canonicalize(cwd).unwrap(),
            "PWD is where it runs"
        );
        // Below the test's own HOME (a random temporary name), no word names goal or the run.
        let below = Path::new(cwd).strip_prefix(&home).unwrap_or(Path::new(cwd));
        let below = below.to_string_lossy().to_lowercase();
        for word in ["goal", "red", ".git"] {
            assert!(!below.contains(word), "{cwd}");
        }
    }
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(worktree.parent().unwrap())
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o700, "the kept worktree's folder is private");
}

#[test]
fn the_kept_worktree_is_reused_then_removed_by_done() {
    let repo = calc(&[("tests/test_calc.py", TEST_ADD)]);
    repo.ok(&["verify", "--red", "-c", "1"]);
    let worktree = kept(&repo).expect("a kept worktree");
    std::fs::create_dir_all(worktree.join("target")).unwrap();
    std::fs::write(worktree.join("target/built"), "").unwrap();
    std::fs::write(worktree.join("stray.txt"), "").unwrap();
    repo.ok(&["verify", "--red", "-c", "1"]);
    assert_eq!(kept(&repo), Some(worktree.clone()), "the same worktree");
    assert!(
        worktree.join("target/built").exists(),
        "its target/ is kept"
    );
    assert!(!worktree.join("stray.txt").exists(), "the rest is reset");
    let fleet = crate::common::stdout(&repo.goal().args(["fleet"]).output().unwrap());
    assert!(!fleet.contains(".cache/checkouts"), "{fleet}");
    repo.write("calc/__init__.py", FIXED);
    verify(&repo, 0);
    repo.ok(&["iterate", "-m", "fixed"]);
    repo.ok(&["done"]);
    assert!(!worktree.exists(), "done removes the kept worktree");
    let list = repo.git(&["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 1, "{list}");
}

#[test]
fn abandon_removes_the_kept_worktree() {
    let repo = calc(&[("tests/test_calc.py", TEST_ADD)]);
    repo.ok(&["verify", "--red", "-c", "1"]);
    let worktree = kept(&repo).expect("a kept worktree");
    repo.ok(&["abandon", "--reason", "not now"]);
    assert!(!worktree.exists(), "abandon removes the kept worktree");
    let list = repo.git(&["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 1, "{list}");
}
