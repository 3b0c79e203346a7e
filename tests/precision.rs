//! The gate's precision on real projects: the goal's files committed where an ignore rule covers
//! them, a red run whose environment failed never counted as the red witness, and the next step
//! naming the runs `goal done` will make. Real git, real pytest.

use crate::common::{EVIDENCE, Repo, commit_all, json, stderr};

/// A project whose `.gitignore` is `ignore` (committed with a passing test script under src/),
/// and a goal with one unpinned criterion; the output of `goal init`.
fn ignoring(ignore: &str) -> (Repo, String) {
    let repo = Repo::new();
    repo.write(".gitignore", ignore);
    repo.test_script("src/pass.sh", 2, 0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "project"]);
    let out = repo
        .goal()
        .args(["init", "Make it work", "-c", "the tests pass"])
        .output()
        .unwrap();
    assert!(out.status.success(), "init: {}", stderr(&out));
    (repo, stderr(&out))
}

/// init → verify → iterate → done completes, and git lists the goal files as committed.
#[track_caller]
fn completes(repo: &Repo) {
    repo.write("src/lib.txt", "the change\n");
    repo.ok(&["verify", "-c", "1", "--", "sh", "src/pass.sh"]);
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["state"], "proven", "{status}");
    repo.ok(&["iterate", "-m", "the change"]);
    let committed = repo.git(&["ls-files", ".agents/goal"]);
    assert!(committed.contains(EVIDENCE), "after iterate: {committed}");
    repo.ok(&["done"]);
    // The complete commit holds the goal files; the done commit after it removes them.
    let complete = repo.git(&["ls-tree", "-r", "--name-only", "HEAD~1"]);
    for file in [".agents/goal/GOAL.md", EVIDENCE] {
        assert!(complete.lines().any(|l| l == file), "{file}: {complete}");
    }
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    repo.assert_fsck();
}

#[test]
fn a_gitignore_that_ignores_everything_then_whitelists_keeps_the_goal_files() {
    let (repo, init) = ignoring("/*\n!/src/\n!/.gitignore\n");
    assert!(
        init.contains(".gitignore:1:/*"),
        "init names the rule: {init}"
    );
    completes(&repo);
}

#[test]
fn an_ignored_agents_folder_keeps_the_goal_files() {
    let (repo, init) = ignoring(".agents/\n");
    assert!(init.contains(".gitignore:1:.agents/"), "{init}");
    completes(&repo);
}

#[test]
fn init_says_nothing_of_ignore_rules_when_none_covers_the_goal() {
    let (_repo, init) = ignoring("target/\n");
    assert!(!init.contains("ignored by git"), "{init}");
}

#[test]
fn a_plain_commit_refused_for_ignored_evidence_names_the_rule() {
    let (repo, _) = ignoring("/*\n!/src/\n!/.gitignore\n");
    repo.ok(&["hooks", "install"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "src/pass.sh"]);
    // The user ticks the criterion and commits with git: evidence.jsonl stays out of the commit.
    let goal = repo
        .goal_md()
        .replacen("- [ ] the tests pass", "- [x] the tests pass", 1);
    repo.write(".agents/goal/GOAL.md", &goal);
    repo.git(&["add", "-f", ".agents/goal/GOAL.md"]);
    let err = repo.git_refused(
        &["commit", "-q", "-m", "tick"],
        &[
            "ignore rule .gitignore:1:/* covers it",
            "git add -f .agents/goal/evidence.jsonl",
        ],
    );
    assert!(err.contains("criterion 1"), "{err}");
    // Staged by hand, the same commit passes the hook.
    repo.git(&["add", "-f", EVIDENCE]);
    repo.git(&["commit", "-q", "-m", "tick"]);
}

const BUGGY: &str = "def add(a, b):\n    return a - b\n";
const FIXED: &str = "def add(a, b):\n    return (a + b)\n";
const TEST: &str = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
/// The project's own test runner, a module run with `python3 -m runtests` (pytest underneath).
const RUNNER: &str = "import sys\n\nimport pytest\n\nsys.exit(pytest.main(sys.argv[1:]))\n";
const PIN: &str =
    "add(2, 2) returns 4 (verify: `python3 -m runtests -q -p no:cacheprovider tests/test_calc.py`)";

/// A Python package whose `add()` subtracts; the runner module on the base when `runner_on_base`,
/// else added by the goal (so the code before the goal has no such module: its red run's
/// environment fails). The goal fixes `add` and its test passes.
fn calc(runner_on_base: bool) -> Repo {
    let repo = Repo::new();
    repo.write("calc.py", BUGGY);
    repo.write(".gitignore", "__pycache__/\n");
    if runner_on_base {
        repo.write("runtests.py", RUNNER);
    }
    commit_all(&repo, "calc");
    repo.init_goal(&[PIN]);
    repo.write("runtests.py", RUNNER);
    repo.write("tests/test_calc.py", TEST);
    repo.write("calc.py", FIXED);
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "fix add"]);
    repo
}

#[test]
fn a_red_run_whose_runner_module_is_missing_is_inconclusive_and_done_refuses() {
    let repo = calc(false);
    let out = repo
        .goal()
        .args(["verify", "--red", "-c", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("environment failed") && err.contains("No module named runtests"),
        "{err}"
    );
    let record: serde_json::Value =
        serde_json::from_str(repo.read(EVIDENCE).lines().last().unwrap()).unwrap();
    assert!(
        record["red"]["environment"]
            .as_str()
            .is_some_and(|w| w.contains("No module named runtests")),
        "{record}"
    );
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["red"], "inconclusive", "{status}");
    repo.refused(
        &["done"],
        1,
        &[
            "criterion 1",
            "its environment failed, not the code",
            "No module named runtests",
        ],
    );
    assert_ne!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("complete")
    );
}

#[test]
fn a_red_run_that_fails_on_the_code_still_counts() {
    let repo = calc(true);
    repo.ok(&["done"]);
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("complete")
    );
}

#[test]
fn the_next_step_names_the_red_run_done_will_make() {
    let repo = calc(true);
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["red"], "pending", "{status}");
    assert_eq!(
        status["next"],
        "every criterion is proven: run `goal done`: it will first make the red run of criterion 1"
    );
    let inject = repo.goal().arg("inject").output().unwrap();
    let inject = String::from_utf8_lossy(&inject.stdout).into_owned();
    assert!(
        inject.contains("`goal done`: it will first make the red run of criterion 1."),
        "{inject}"
    );
}

#[test]
fn no_surface_says_run_goal_done_when_its_red_run_was_inconclusive() {
    let repo = calc(false);
    repo.goal()
        .args(["verify", "--red", "-c", "1"])
        .assert()
        .code(1);
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    let next = status["next"].as_str().unwrap();
    assert!(!next.contains("run `goal done`"), "{next}");
    assert!(
        next.contains("the tests of criterion 1 did not run on the code before the goal"),
        "{next}"
    );
    let inject = repo.goal().arg("inject").output().unwrap();
    let inject = String::from_utf8_lossy(&inject.stdout).into_owned();
    assert!(!inject.contains("run `goal done` to finish"), "{inject}");
}

/// A script that prints `fixture` (a runner's real output) and exits `code`.
fn replay(repo: &Repo, name: &str, fixture: &str, code: i32) {
    repo.write(
        name,
        &format!("#!/bin/sh\ncat <<'OUT'\n{fixture}OUT\nexit {code}\n"),
    );
}

#[test]
fn node_tap_without_a_summary_line_is_read_by_its_leaves_with_names() {
    let repo = Repo::new();
    replay(
        &repo,
        "tap.sh",
        include_str!("fixtures/runners/tap13-nested-pass.txt"),
        0,
    );
    commit_all(&repo, "tap");
    repo.init_goal(&["the maths work"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "tap.sh"]);
    let record = crate::common::last_record(&repo);
    assert_eq!(record["tests"]["passed"], 4, "{record}");
    assert_eq!(record["tests"]["failed"], 0, "{record}");
    let names: Vec<&str> = record["tests"]["names"]["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "nested.test.js > math > adds > one plus one",
            "nested.test.js > math > adds > two plus two",
            "nested.test.js > math > subtracts > three minus one",
            "nested.test.js > strings > concat",
        ]
    );
}

#[test]
fn result_lines_goal_cannot_read_are_named_as_such() {
    let repo = Repo::new();
    let lines = "  ✓ adds\n  ✓ subs\n  ✓ muls\n  ✓ divs\n  ✓ mods\n  ✓ pows\n";
    replay(&repo, "marks.sh", lines, 0);
    commit_all(&repo, "marks");
    repo.init_goal(&["the maths work"]);
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "marks.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("goal cannot read this runner's summary"),
        "{err}"
    );
    assert!(!err.contains("no test summary"), "{err}");
}
