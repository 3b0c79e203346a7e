//! Red before green on the surfaces that show a goal: `goal log`'s `tests-weakened` flag, report's
//! red → green column and findings, audit's red witness and findings, lint's all-guards warning,
//! and the test-first texts the agents are given.

use crate::common::{Repo, json, stderr, stdout};

const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";
const TEST: &str = "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
const PIN: &str = "add(2, 2) returns 4 (verify: `python3 -m pytest -q tests/test_calc.py`)";
/// `add` right only under pytest: code that detects its tests, which refuses on its own.
const DETECTS: &str = "import sys\n\n\ndef add(a, b):\n    if \"pytest\" in sys.modules:\n        return a + b\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n";

/// `calc.py` with `add` fixed (a different length from the bug's, so that Python's bytecode
/// cache, keyed by mtime and size, cannot serve the old code within the same second).
fn fixed() -> String {
    CALC.replace("return a - b", "return (a + b)")
}

/// The small Python package with the bug (`add` returns `a - b`) and a goal to fix it.
fn calc_goal() -> Repo {
    calc_goal_with(PIN)
}

/// [`calc_goal`] with the goal's one criterion `criterion`.
fn calc_goal_with(criterion: &str) -> Repo {
    let repo = Repo::new();
    repo.write("calc.py", CALC);
    repo.write("tests/test_calc.py", TEST);
    repo.write("pyproject.toml", "[project]\nname = \"calc\"\n");
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[criterion]);
    repo
}

/// A way to weaken the tests: what it is, the finding kind it must leave and the file it names,
/// how it is made.
type Trick = (&'static str, &'static str, &'static str, Box<dyn Fn(&Repo)>);

/// The tricks that change the tests, each with the finding kind it must leave.
fn tricks() -> Vec<Trick> {
    const T: &str = "tests/test_calc.py";
    vec![
        (
            "assertion weakened",
            "assertion-weakened",
            T,
            Box::new(|r: &Repo| r.write("tests/test_calc.py", &TEST.replace("== 4", "== 0"))),
        ),
        (
            "skip added",
            "skip-added",
            T,
            Box::new(|r: &Repo| {
                let t = TEST
                    .replace("from calc", "import pytest\nfrom calc")
                    .replace("def test_add", "@pytest.mark.skip\ndef test_add");
                r.write("tests/test_calc.py", &t)
            }),
        ),
        (
            "test deleted",
            "test-removed",
            T,
            Box::new(|r: &Repo| {
                let t =
                    "from calc import add, mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
                r.write("tests/test_calc.py", t)
            }),
        ),
        (
            "deselected",
            "selection-changed",
            "pyproject.toml",
            Box::new(|r: &Repo| {
                r.write(
                    "pyproject.toml",
                    "[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\naddopts = \"-k mul\"\n",
                )
            }),
        ),
        (
            "always-true test",
            "assertion-free",
            "tests/test_add_fixed.py",
            Box::new(|r: &Repo| {
                r.write(
                    "tests/test_add_fixed.py",
                    "def test_add_fixed():\n    assert True\n",
                )
            }),
        ),
        (
            "the test's add taken from a stub",
            "import-redirected",
            T,
            Box::new(|r: &Repo| {
                r.write("calc_impl.py", "def add(a, b):\n    return a + b\n");
                let t = TEST.replace(
                    "from calc import add, mul",
                    "from calc import mul\nfrom calc_impl import add",
                );
                r.write("tests/test_calc.py", &t)
            }),
        ),
        (
            "a new test taking add from a stub",
            "import-redirected",
            "tests/test_add_fixed.py",
            Box::new(|r: &Repo| {
                r.write("calc_impl.py", "def add(a, b):\n    return a + b\n");
                r.write(
                    "tests/test_add_fixed.py",
                    "from calc_impl import add\n\n\ndef test_add_fixed():\n    assert add(2, 2) == 4\n",
                )
            }),
        ),
    ]
}

fn kinds(row: &serde_json::Value) -> Vec<String> {
    findings(row)
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect()
}

/// A log row's findings: those that refuse on their own (`tests_weakened`) and those the runs of
/// `done` judge (`tests_changed`).
fn findings(row: &serde_json::Value) -> Vec<serde_json::Value> {
    let list = |key: &str| row[key].as_array().cloned().unwrap_or_default();
    [list("tests_weakened"), list("tests_changed")].concat()
}

/// The flag and the log's words for a finding of `kind`: refusing on its own (code that detects
/// its tests, a test asserting nothing) it weakens the tests; else `done`'s runs judge it.
fn flag_of(kind: &str) -> (&'static str, &'static str) {
    if matches!(kind, "assertion-free" | "test-detected") {
        ("tests-weakened", "tests weakened in")
    } else {
        ("tests-changed", "tests changed in")
    }
}

#[test]
fn log_flags_each_trick_on_the_commit_that_made_it() {
    for (n, (what, kind, file, trick)) in tricks().into_iter().enumerate() {
        let repo = calc_goal();
        trick(&repo);
        // Half through `goal iterate`, half by hand: whoever made it, the commit is flagged.
        let by_hand = n % 2 == 1;
        if by_hand {
            repo.git(&["add", "."]);
            repo.git(&["commit", "-q", "-m", "tests tidied"]);
        } else {
            repo.ok(&["iterate", "-m", "tests tidied"]);
        }
        let made = repo.head();
        let (flag, words) = flag_of(kind);
        let rows = json(&repo.goal().args(["log", "--json"]).output().unwrap());
        let rows = rows.as_array().unwrap();
        let flagged: Vec<&serde_json::Value> = rows
            .iter()
            .filter(|r| r["flags"].as_array().unwrap().iter().any(|f| f == flag))
            .collect();
        assert_eq!(flagged.len(), 1, "{what}: {rows:?}");
        let row = flagged[0];
        assert_eq!(row["commit"], made.as_str(), "{what}");
        assert_eq!(kinds(row), vec![kind.to_string()], "{what}");
        let f = &findings(row)[0];
        assert_eq!(f["commit"], made.as_str(), "{what}");
        assert_eq!(f["file"], file, "{what}");
        assert!(f["line"].as_u64().unwrap() >= 1, "{what}");
        if by_hand {
            assert!(
                row["flags"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|f| f == "hand-made"),
                "{what}: {row}"
            );
        }
        let text = stdout(&repo.goal().arg("log").output().unwrap());
        assert!(
            text.contains(&format!("{words} {}: {kind} {file}:", &made[..10])),
            "{what}: {text}"
        );
    }
}

#[test]
fn log_does_not_flag_an_honest_fix_or_a_new_real_test() {
    let repo = calc_goal();
    repo.write("calc.py", &fixed());
    repo.write(
        "tests/test_calc.py",
        &format!("{TEST}\n\ndef test_add_negative():\n    assert add(-1, -2) == -3\n"),
    );
    repo.ok(&["iterate", "-m", "fixed add"]);
    for flags in repo.log_flags() {
        assert!(!flags.iter().any(|f| f == "tests-weakened"), "{flags:?}");
    }
    let _ = stderr;
}

const TEST_FIRST: &str = "Test first: write or name the test of each criterion before the code, run `goal verify -c N` and see it fail, then make it pass; never edit a test to make it pass.";

#[test]
fn claude_and_goal_run_ask_for_the_test_first_and_inject_stays_exact() {
    let repo = Repo::new();
    let event = serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "session_id": "s1",
        "cwd": repo.path(),
        "prompt": "My goal is to make the CSV importer skip malformed rows",
    });
    let out = repo
        .goal()
        .args(["hook", "claude"])
        .write_stdin(event.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(context.contains(TEST_FIRST), "{context}");
    assert!(context.contains("--guard \"<command>\""), "{context}");
    // `goal inject` (the text every adapter injects each turn) does not carry it.
    let inject = stdout(&repo.goal().arg("inject").output().unwrap());
    assert!(
        inject.starts_with("[goal-driven-loop] ACTIVE GOAL\n"),
        "{inject}"
    );
    assert!(!inject.contains("Test first"), "{inject}");
    assert!(!inject.contains("--guard"), "{inject}");
}

#[test]
fn lint_warns_on_stderr_about_a_goal_of_guards_only() {
    let guard = "Lint is clean (guard: `python3 -m pytest -q tests/test_calc.py`)";
    let accept = PIN;
    for (criteria, warned) in [(vec![guard], true), (vec![guard, accept], false)] {
        let repo = Repo::new();
        repo.init_goal(&criteria);
        let out = repo
            .goal()
            .args(["criteria", "lint", "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{criteria:?}: {}", stderr(&out));
        let findings = json(&out);
        // The JSON array is the lint's, with no entry for the warning.
        assert_eq!(
            findings.as_array().unwrap().len(),
            criteria.len(),
            "{findings}"
        );
        assert!(!stdout(&out).contains("guard ("), "{criteria:?}");
        let err = stderr(&out);
        assert_eq!(
            err.contains("every pinned criterion is a guard (criterion 1)"),
            warned,
            "{criteria:?}: {err}"
        );
        let text = repo.goal().args(["criteria", "lint"]).output().unwrap();
        assert_eq!(text.status.code(), Some(0));
        assert_eq!(stderr(&text).contains("is a guard"), warned, "{criteria:?}");
    }
}

/// Tick every criterion and mark the goal complete by hand (a completion that went around
/// `goal done`), committed with `message`.
fn complete_by_hand(repo: &Repo, message: &str) {
    let md = repo
        .goal_md()
        .replace("- [ ]", "- [x]")
        .replace("status: in-progress", "status: complete");
    repo.write(".agents/goal/GOAL.md", &md);
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", message]);
}

fn audit(repo: &Repo, args: &[&str]) -> (i32, serde_json::Value) {
    let out = repo
        .goal()
        .arg("audit")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    (out.status.code().unwrap(), json(&out))
}

#[test]
fn audit_checks_the_red_witness_of_a_finished_goal() {
    // Test first: the pin run before the fix (tests as at the end, code as on the base).
    let repo = calc_goal();
    let red = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(red.status.code(), Some(1), "{}", stderr(&red));
    repo.write("calc.py", &fixed());
    repo.ok(&["verify", "-c", "1"]);
    complete_by_hand(&repo, "done by hand");
    let (code, v) = audit(&repo, &[]);
    let c = &v["criteria"][0];
    assert_eq!(c["kind"], "acceptance", "{v}");
    assert_eq!(c["red"]["state"], "witnessed", "{v}");
    assert!(c["red"]["record"].as_str().is_some(), "{v}");
    assert_eq!(code, 0, "{v}");
    // --rerun replays the red run too: on the red tree the pin fails, as it should.
    let (code, v) = audit(&repo, &["--rerun"]);
    assert_eq!(v["criteria"][0]["red_replay"], "red", "{v}");
    assert_eq!(v["criteria"][0]["red_replayed"]["exit_code"], 1, "{v}");
    assert_eq!(code, 0, "{v}");

    // Fixed first and never seen failing: a finished goal with no red witness fails the audit.
    let repo = calc_goal();
    repo.write("calc.py", &fixed());
    repo.ok(&["verify", "-c", "1"]);
    complete_by_hand(&repo, "done by hand");
    let (code, v) = audit(&repo, &[]);
    let c = &v["criteria"][0];
    assert_eq!(c["red"]["state"], "pending", "{v}");
    assert!(
        c["flags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "no-red-witness"),
        "{v}"
    );
    assert_eq!(code, 1, "{v}");
    let text = repo.goal().arg("audit").output().unwrap();
    assert!(
        stdout(&text).contains("no red witness (pending)"),
        "{}",
        stdout(&text)
    );
}

#[test]
fn audit_lists_findings_and_fails_on_an_unrecorded_refusing_one() {
    let repo = calc_goal();
    // The pin seen failing, then `add` made right only under pytest (test-detected).
    let red = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(red.status.code(), Some(1), "{}", stderr(&red));
    repo.write("calc.py", DETECTS);
    repo.ok(&["verify", "-c", "1"]);
    complete_by_hand(&repo, "done by hand");
    let (code, v) = audit(&repo, &[]);
    assert_eq!(v["criteria"][0]["red"]["state"], "witnessed", "{v}");
    let findings = v["tests_weakened"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{v}");
    let f = &findings[0];
    assert_eq!(f["kind"], "test-detected", "{v}");
    assert_eq!(f["file"], "calc.py", "{v}");
    assert_eq!(f["confirmed"], false, "{v}");
    assert_eq!(f["refuses"], true, "{v}");
    assert_eq!(code, 1, "{v}");
    let text = stdout(&repo.goal().arg("audit").output().unwrap());
    assert!(
        text.contains("tests weakened: test-detected calc.py:")
            && text.contains("not recorded with --confirm"),
        "{text}"
    );
    // The same completion recording the finding (as `goal done --confirm` does) passes.
    let trailer = format!(
        "Goal-Tests-Weakened: {} {}:{} {}",
        f["kind"].as_str().unwrap(),
        f["file"].as_str().unwrap(),
        f["line"],
        f["test"].as_str().unwrap()
    );
    repo.git(&[
        "commit",
        "-q",
        "--amend",
        "-m",
        &format!("done by hand\n\n{trailer}"),
    ]);
    let (code, v) = audit(&repo, &[]);
    assert_eq!(v["tests_weakened"][0]["confirmed"], true, "{v}");
    assert_eq!(code, 0, "{v}");
}

#[test]
fn audit_rerun_calls_a_red_run_of_no_test_inconclusive_and_shows_it() {
    let repo = calc_goal_with(
        "add(2, 2) returns 4 (verify: `python3 -m pytest -q -p no:cacheprovider tests/test_calc.py -k nomatch_xyz`)",
    );
    repo.ok(&["iterate", "-m", "nothing yet"]);
    let (code, v) = audit(&repo, &["--rerun"]);
    let c = &v["criteria"][0];
    assert_eq!(c["red_replay"], "inconclusive", "{v}");
    assert!(
        c["flags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "inconclusive"),
        "{v}"
    );
    assert_eq!(code, 1, "{v}");
    let out = repo.goal().args(["audit", "--rerun"]).output().unwrap();
    let text = stdout(&out);
    assert!(
        text.contains(
            "red run replayed: inconclusive: its tests did not run on the code before the goal"
        ),
        "the criterion shows its red run: {text}"
    );
    assert!(
        text.contains("1 red run(s) replayed: 0 red, 0 passes-on-base, 1 inconclusive"),
        "{text}"
    );
    assert!(!text.contains("pass on the goal's base"), "{text}");
}

#[test]
fn audit_and_report_agree_on_an_unrecorded_finding_of_an_unfinished_goal() {
    let repo = calc_goal();
    repo.write("calc.py", DETECTS);
    repo.ok(&["iterate", "-m", "detects its tests"]);
    let said = "— not recorded with --confirm: `goal done` refuses this";
    let audit = stdout(&repo.goal().arg("audit").output().unwrap());
    assert!(
        audit.contains("tests weakened: test-detected calc.py:") && audit.contains(said),
        "{audit}"
    );
    assert!(
        audit.contains(
            "1 test weakening finding(s), 1 refusing and not recorded with --confirm (1 in a goal not finished: `goal done` will refuse them)"
        ),
        "{audit}"
    );
    let report = stdout(&repo.goal().arg("report").output().unwrap());
    assert!(
        report.contains("— not recorded with --confirm: `goal done` refuses this"),
        "{report}"
    );
}

#[test]
fn report_and_audit_show_each_trick() {
    for (what, kind, file, trick) in tricks() {
        let repo = calc_goal();
        trick(&repo);
        repo.ok(&["iterate", "-m", "tests tidied"]);
        let v = json(&repo.goal().args(["report", "--json"]).output().unwrap());
        let found: Vec<&str> = v["tests_weakened"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap())
            .collect();
        assert_eq!(found, vec![kind], "{what}: {v}");
        assert_eq!(v["criteria"][0]["kind"], "acceptance", "{what}");
        let md = stdout(&repo.goal().args(["report", "--markdown"]).output().unwrap());
        // The report lists it where `goal log` flags it: a weakening (`tests-weakened`) when
        // it refuses on its text, else with the changes the runs judge (`tests-changed`).
        let (title, other) = if matches!(kind, "assertion-free" | "test-detected") {
            (
                "### Tests weakened",
                "### Tests changed (judged by the runs)",
            )
        } else {
            (
                "### Tests changed (judged by the runs)",
                "### Tests weakened",
            )
        };
        let section = md.split(title).nth(1).unwrap_or("");
        assert!(
            section.lines().nth(2).is_some_and(|l| l.contains(kind)),
            "{what}: {md}"
        );
        let elsewhere = md.split(other).nth(1).unwrap_or("");
        assert!(
            !elsewhere.lines().nth(2).is_some_and(|l| l.contains(kind)),
            "{what}: {md}"
        );
        assert!(md.contains("| Red → green |"), "{what}: {md}");
        // Audit lists it (exit 1 only once a finished goal carries it unrecorded).
        let (_, a) = audit(&repo, &[]);
        assert_eq!(a["tests_weakened"][0]["kind"], kind, "{what}: {a}");
        assert_eq!(a["tests_weakened"][0]["file"], file, "{what}: {a}");
    }
}

#[test]
fn demo_shows_a_guard_and_test_first_criteria_completing() {
    let scratch = tempfile::TempDir::new().unwrap();
    let dir = scratch.path().join("demo");
    let repo = Repo::new();
    let out = repo
        .goal()
        .args(["demo", "--dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    for part in [
        "(guard: `sh lint.sh`)",
        "(verify: `sh tests/test_greet.sh`)",
        "(red: both tests fail on the code before the change",
        "$ goal done",
        "Goal complete: Ship a greeting script",
    ] {
        assert!(text.contains(part), "{part} missing from:\n{text}");
    }
    // Test first: done found both red witnesses and ran no red run of its own.
    let all = format!("{text}{}", stderr(&out));
    assert!(!all.contains("checking that its tests fail"), "{all}");
    assert_eq!(all.matches(" → green)").count(), 2, "{all}");
    // And the finished goal audits clean, red witnesses included.
    let audit = repo
        .goal_in(&dir)
        .args(["audit", "--json"])
        .output()
        .unwrap();
    let v = json(&audit);
    assert_eq!(audit.status.code(), Some(0), "{v}");
    let states: Vec<&str> = v["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["red"]["state"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(states, ["witnessed", "witnessed", "-"], "{v}");
}

#[test]
fn log_flags_weakened_tests_in_rust_js_and_go() {
    // (file, base text, weakened text, kind, test)
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        (
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    #[ignore]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n",
            "skip-added",
            "tests::adds",
        ),
        (
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n\n    #[test]\n    fn keeps() {\n        assert_eq!(super::add(0, 0), 0);\n    }\n}\n",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn keeps() {\n        assert_eq!(super::add(0, 0), 0);\n    }\n}\n",
            "test-removed",
            "tests::adds",
        ),
        (
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    #[cfg_attr(not(miri), cfg(any()))]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n",
            "skip-added",
            "tests::adds",
        ),
        (
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\npub fn add_v2(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\npub fn add_v2(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::add_v2 as add;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n",
            "import-redirected",
            "tests::add",
        ),
        (
            "test/add.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../add');\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n",
            "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../add_v2');\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n",
            "import-redirected",
            "add",
        ),
        (
            "test/add.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../add');\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n",
            "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../add');\n\ntest.skip('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n",
            "skip-added",
            "adds",
        ),
        (
            "add_test.go",
            "package add\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"2+2\")\n\t}\n}\n",
            "package add\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tt.Skip(\"later\")\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"2+2\")\n\t}\n}\n",
            "skip-added",
            "TestAdd",
        ),
    ];
    for (file, base, weakened, kind, test) in cases {
        let repo = Repo::new();
        repo.write(file, base);
        repo.git(&["add", "."]);
        repo.git(&["commit", "-q", "-m", "base"]);
        repo.init_goal(&["it adds (verify: `make check`)"]);
        repo.write(file, weakened);
        repo.git(&["commit", "-q", "-am", "tidy"]);
        let rows = json(&repo.goal().args(["log", "--json"]).output().unwrap());
        let last = rows.as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["commit"], repo.head().as_str(), "{file}: {rows}");
        let f = &findings(&last)[0];
        assert_eq!(f["kind"], *kind, "{file}: {last}");
        assert_eq!(f["file"], *file, "{file}");
        assert_eq!(f["test"], *test, "{file}: {last}");
    }
}

#[test]
fn done_confirm_is_flagged_on_every_surface() {
    let repo = calc_goal();
    // The fix, and on the way `mul` changed and the test that pinned it (test_mul) deleted: the
    // old exam finds the base's test_mul failing on the final code, and done refuses it without
    // --confirm.
    repo.write(
        "calc.py",
        &fixed().replace("return a * b", "return a * b + 1"),
    );
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
    );
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "fixed add, dropped test_mul"]);
    let made = repo.head();
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("removed-after-change tests/test_calc.py::test_mul"),
        "{}",
        stderr(&out)
    );
    repo.ok(&["done", "--confirm"]);
    let trailer = repo
        .trailer("HEAD~1", "Goal-Tests-Weakened")
        .expect("the complete commit records the exam's outcome");
    assert!(
        trailer
            .starts_with("removed-after-change tests/test_calc.py::test_mul (criterion 1, record "),
        "{trailer}"
    );
    // log: the commit that made it (its finding, judged by the runs), and the completion that
    // accepted the outcome.
    let rows = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    let rows = rows.as_array().unwrap();
    let by = |c: &str| rows.iter().find(|r| r["commit"] == c).unwrap();
    assert_eq!(by(&made)["tests_changed"][0]["kind"], "test-removed");
    let complete = rows.last().unwrap();
    assert_eq!(
        complete["tests_weakened_confirmed"][0],
        trailer.as_str(),
        "{complete}"
    );
    assert!(
        complete["flags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "tests-weakened"),
        "{complete}"
    );
    // audit: the confirmation listed; the goal audits clean, and --strict fails on it.
    let (code, v) = audit(&repo, &[]);
    assert_eq!(v["confirmations"][0]["what"], trailer.as_str(), "{v}");
    assert_eq!(v["criteria"][0]["red"]["state"], "witnessed", "{v}");
    assert_eq!(code, 0, "{v}");
    let (code, _) = audit(&repo, &["--strict"]);
    assert_ne!(code, 0);
}
