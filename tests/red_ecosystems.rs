//! Red before green beyond pytest: a cargo crate (inline tests, a test-first red witness) and
//! node's test runner, and material changes of guard pins.

use crate::common::{Repo, json, stderr};
#[allow(unused_imports)]
use crate::red::*;

/// A tiny crate (no dependencies) whose `add` subtracts, with one inline test of `mul`.
fn crate_repo(criterion: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    repo.write(".gitignore", "/target\nCargo.lock\n");
    repo.write(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn muls() {\n        assert_eq!(mul(2, 3), 6);\n    }\n\n    #[test]\n    fn muls_zero() {\n        assert_eq!(mul(0, 3), 0);\n    }\n}\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[criterion]);
    repo
}

/// `goal <args>` in `repo` where cargo works: the hermetic HOME hides the toolchain, so it is
/// named as this test's own cargo found it, with a target folder of the test's own.
fn goal_with_cargo(repo: &Repo, args: &[&str]) -> std::process::Output {
    let target = repo.home().join("target");
    let home = std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let rustup = std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| home.join(".rustup").into());
    let cargo_home = std::env::var_os("CARGO_HOME").unwrap_or_else(|| home.join(".cargo").into());
    let toolchain = std::env::var_os("RUSTUP_TOOLCHAIN").unwrap_or_else(|| "stable".into());
    repo.goal()
        .args(args)
        .env("CARGO_TARGET_DIR", &target)
        .env("RUSTUP_HOME", &rustup)
        .env("CARGO_HOME", &cargo_home)
        .env("RUSTUP_TOOLCHAIN", &toolchain)
        .output()
        .unwrap()
}

const CRATE_TEST_FIRST: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn muls() {\n        assert_eq!(mul(2, 3), 6);\n    }\n\n    #[test]\n    fn muls_zero() {\n        assert_eq!(mul(0, 3), 0);\n    }\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";

#[test]
fn rust_test_first_is_the_red_witness_and_done_runs_no_red_run() {
    let repo = crate_repo("add(2, 2) is 4 (verify: `cargo test`)");
    // Test first: the inline test written on the old code, seen failing.
    repo.write("src/lib.rs", CRATE_TEST_FIRST);
    let out = goal_with_cargo(&repo, &["verify", "-c", "1"]);
    assert!(!out.status.success(), "{}", stderr(&out));
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["red"], "witnessed", "{status}");
    let witness = status["criteria"][0]["red_record"]
        .as_str()
        .unwrap()
        .to_string();
    // Then the fix.
    repo.write(
        "src/lib.rs",
        &CRATE_TEST_FIRST.replace("    a - b\n", "    a + b\n"),
    );
    let out = goal_with_cargo(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = goal_with_cargo(&repo, &["done", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("checking that its tests fail"),
        "done ran a red run of its own: {}",
        stderr(&out)
    );
    assert_eq!(json(&out)["criteria"][0]["red"], witness.as_str());
    assert_no_worktree(&repo);
}

#[test]
fn rust_inline_tests_red_green_and_weakening() {
    let repo = crate_repo("add(2, 2) is 4 (verify: `cargo test`)");
    let cargo = |args: &[&str]| goal_with_cargo(&repo, args);
    // The fix with a new inline test, one passing test ignored and one removed on the way.
    repo.write(
        "src/lib.rs",
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    #[ignore]\n    fn muls() {\n        assert_eq!(mul(2, 3), 6);\n    }\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n",
    );
    let out = cargo(&["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The tests ignored and removed still pass on the final code (the old exam runs them): shown,
    // not refusing.
    let out = cargo(&["done", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = json(&out)["tests_weakened"].to_string();
    assert!(shown.contains("\"skip-added\""), "{shown}");
    assert!(shown.contains("tests::muls"), "{shown}");
    assert!(shown.contains("\"test-removed\""), "{shown}");
    assert!(shown.contains("muls_zero"), "{shown}");
    assert!(!shown.contains("\"refuses\":true"), "{shown}");
    let ledger = repo.git(&["show", "HEAD~1:.agents/goal/evidence.jsonl"]);
    let red: serde_json::Value = ledger
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r.get("red").is_some())
        .unwrap();
    assert_eq!(red["tests"]["failed"], 1, "{red}");
    let names = red["tests"]["names"]["names"].as_array().unwrap();
    assert!(
        names
            .iter()
            .any(|n| n["name"] == "tests::adds" && n["outcome"] == "failed"),
        "{names:?}"
    );
    assert_no_worktree(&repo);
}

#[test]
fn node_test_runner_red_then_green() {
    let repo = Repo::new();
    repo.write(
        "src/add.mjs",
        "export function add(a, b) {\n  return a - b;\n}\n",
    );
    repo.write(
        "package.json",
        "{\"name\": \"calc\", \"type\": \"module\"}\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&["add(2, 2) is 4 (verify: `node --test test/add.test.mjs`)"]);
    repo.write(
        "test/add.test.mjs",
        "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/add.mjs';\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n",
    );
    let out = repo
        .goal()
        .args(["verify", "--red", "-c", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    repo.write(
        "src/add.mjs",
        "export function add(a, b) {\n  return a + b;\n}\n",
    );
    repo.ok(&["verify", "-c", "1"]);
    let out = repo.goal().args(["done"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("checking that its tests fail"));
}

#[test]
fn a_guard_pin_on_an_unpinned_criterion_and_a_kind_switch_are_material() {
    let repo = calc("add(2, 2) returns 4");
    repo.refused(
        &["criteria", "pin", "1", "--guard", "--", "pytest", "-q"],
        1,
        &[
            "adds the guard pin `pytest -q`",
            "goal criteria pin 1 --guard --confirm",
        ],
    );
    // A verify pin raises the bar: no confirmation.
    repo.ok(&["criteria", "pin", "1", "--", "pytest", "-q"]);
    assert!(
        repo.goal_md()
            .contains("add(2, 2) returns 4 (verify: `pytest -q`)")
    );
    repo.refused(
        &["criteria", "pin", "1", "--guard", "--", "pytest", "-q"],
        1,
        &["turns the acceptance pin `pytest -q` into a guard pin `pytest -q`"],
    );
    repo.ok(&[
        "criteria",
        "pin",
        "1",
        "--guard",
        "--confirm",
        "--",
        "pytest",
        "-q",
    ]);
    assert!(
        repo.goal_md()
            .contains("add(2, 2) returns 4 (guard: `pytest -q`)")
    );
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Goal-Material-Change: "), "{message}");
    // The other writer: `criteria add --guard` (init -c takes the pin in the text).
    repo.ok(&[
        "criteria",
        "add",
        "lint is clean",
        "--guard",
        "ruff check .",
    ]);
    assert!(
        repo.goal_md()
            .contains("lint is clean (guard: `ruff check .`)")
    );
    repo.refused(
        &["criteria", "add", "x", "--guard", "a", "--verify", "b"],
        2,
        &["--guard"],
    );
}
