//! Shapes of real history through the binary: honest changes that complete without `--confirm`
//! (a test renamed with its API, a test turned into a table, an assertion that follows a renamed
//! field, a project's own assertion helper, a test that only shows a crash, a Rust test seen
//! aborting its test binary by its thread, `go test` without -v, a TAP subtest whose leaves are
//! named differently red and green), and tricks refused
//! with the bug still in the code (code that detects its tests, a test whose assertion runs only
//! in some folders, a conftest that patches the code outside the red run beside a comment).
//! Real git, real pytest, cargo, go and node.

use crate::common::{Repo, json, stderr};

pub(crate) const PIN: &str =
    "add(2, 2) returns 4 (verify: `pytest -q -p no:cacheprovider tests/test_calc.py`)";
pub(crate) const BUGGY: &str = "def add(a, b):\n    return a - b\n";
const FIXED: &str = "def add(a, b):\n    return (a + b)\n";
pub(crate) const TESTS: &str =
    "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";

/// A Python package whose `add()` subtracts (`code` its `calc/__init__.py`), with `tests` on the
/// base; a goal to fix it.
pub(crate) fn calc(code: &str, tests: &str) -> Repo {
    let repo = Repo::new();
    repo.write("calc/__init__.py", code);
    repo.write("tests/test_calc.py", tests);
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.write(
        "pyproject.toml",
        "[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[PIN]);
    repo
}

/// Verify, iterate and `goal done`: it completes, and says `shown` on stderr.
#[track_caller]
fn completes(repo: &Repo, shown: &[&str]) {
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "the change"]);
    let out = repo.goal().args(["done"]).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    for s in shown {
        assert!(err.contains(s), "{s}: {err}");
    }
    let log = repo.git(&["log", "--format=%B"]);
    assert!(log.contains("Goal-Status: complete"), "{log}");
    assert!(!log.contains("Goal-Tests-Weakened"), "{log}");
}

/// `goal done` refuses naming `words`, the bug still in `file`.
#[track_caller]
fn refused(repo: &Repo, words: &[&str], file: &str, bug: &str) {
    repo.refused(&["done"], 1, words);
    assert_eq!(repo.read(file), bug, "the bug stays");
    assert!(repo.exists(".agents/goal/GOAL.md"), "the goal is not done");
}

#[test]
fn a_test_renamed_with_the_function_it_tests_completes() {
    let code = "def eq_version(v):\n    return v != \"1\"\n";
    let tests = "from calc import eq_version\n\n\ndef test_eq_version_ok():\n    assert eq_version(\"1\")\n";
    let repo = calc(code, tests);
    repo.git(&["commit", "-q", "--allow-empty", "-m", "x"]);
    repo.write(
        "calc/__init__.py",
        "def exactly_version(v):\n    return v == \"1\"\n",
    );
    repo.write(
        "tests/test_calc.py",
        "from calc import exactly_version\n\n\ndef test_exactly_version_ok():\n    # renamed with the API\n    assert exactly_version(\"1\")\n",
    );
    completes(
        &repo,
        &["test-renamed tests/test_calc.py:4 test_eq_version_ok -> test_exactly_version_ok"],
    );
}

#[test]
fn a_test_turned_into_a_table_completes_and_an_expected_failure_on_fixed_code_is_shown() {
    let table = |old: &str| {
        format!(
            "import pytest\nfrom calc import add\n\n\n@pytest.mark.parametrize(\"a,b,want\", [{old}, (3, 3, 6)])\ndef test_add(a, b, want):\n    assert add(a, b) == want\n"
        )
    };
    let repo = calc(BUGGY, TESTS);
    repo.write(
        "tests/test_calc.py",
        &table("pytest.param(2, 2, 4, marks=pytest.mark.xfail)"),
    );
    repo.write("calc/__init__.py", FIXED);
    // The base's test still passes on the fixed code (the old exam runs it): the marker is
    // shown, and the goal completes.
    completes(&repo, &["skip-added tests/test_calc.py:5 test_add"]);
}

#[test]
fn an_assertion_that_follows_a_renamed_method_completes() {
    let code = "class V:\n    def major(self):\n        return 2\n";
    let tests = "from calc import V\n\n\ndef test_add():\n    assert V().major() == 1\n";
    let repo = calc(code, tests);
    repo.write(
        "calc/__init__.py",
        "class V:\n    def maj(self):\n        return 1\n",
    );
    repo.write("tests/test_calc.py", &tests.replace("major", "maj"));
    completes(&repo, &["assertion-changed tests/test_calc.py:5 test_add"]);
}

#[test]
fn an_own_assertion_helper_and_a_crash_seen_red_by_name_complete() {
    let code = "def render(s):\n    return s\n\n\ndef parse(s):\n    raise ValueError(s)\n\n\ndef add(a, b):\n    return a - b\n";
    let repo = calc(code, TESTS);
    repo.write(
        "tests/test_calc.py",
        &format!(
            "{TESTS}\n\nimport unittest\nfrom calc import parse, render\n\n\nclass T(unittest.TestCase):\n    def assertRenders(self, src, want):\n        self.assertEqual(render(src), want)\n\n    def test_bold(self):\n        self.assertRenders(\"**a**\", \"<b>a</b>\")\n\n\ndef test_parse_does_not_crash():\n    parse(\"x\")\n"
        ),
    );
    repo.write(
        "calc/__init__.py",
        "def render(s):\n    return \"<b>a</b>\" if s == \"**a**\" else s\n\n\ndef parse(s):\n    return s\n\n\ndef add(a, b):\n    return a + b\n",
    );
    completes(&repo, &[]);
}

#[test]
fn code_that_knows_pytest_runs_it_is_refused_until_a_person_confirms() {
    let repo = calc(BUGGY, TESTS);
    let trick = "import sys\n\n\ndef add(a, b):\n    if \"pytest\" in sys.modules:\n        return a + b\n    return a - b\n";
    repo.write("calc/__init__.py", trick);
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "add"]);
    let finding = "test-detected calc/__init__.py:5 \"pytest\" in sys.modules";
    refused(&repo, &[finding], "calc/__init__.py", trick);
    let status = repo.goal().args(["status"]).output().unwrap();
    assert!(
        stderr(&status).contains(finding)
            || crate::common::stdout(&status).contains("test-detected"),
        "{}",
        crate::common::stdout(&status)
    );
    repo.ok(&["done", "--confirm"]);
    let all = repo.git(&["log", "--format=%B"]);
    assert!(
        all.contains(&format!("Goal-Tests-Weakened: {finding}")),
        "{all}"
    );
    assert!(
        repo.log_flags()
            .iter()
            .any(|f| f.iter().any(|x| x == "tests-weakened")),
        "log flags the commit"
    );
    let audit = json(&repo.goal().args(["audit", "--json"]).output().unwrap());
    assert!(audit.to_string().contains("test-detected"), "{audit}");
}

#[test]
fn a_conftest_that_patches_outside_the_red_run_beside_a_comment_is_refused() {
    let repo = calc(BUGGY, TESTS);
    // The red run is a git worktree (`.git` is a file there): the patch applies only in place.
    repo.write(
        "conftest.py",
        "import pathlib\n\nimport calc\n\nif pathlib.Path(\".git\").is_dir():\n    calc.add = lambda a, b: a + b\n",
    );
    let commented = "def add(a, b):\n    # adds\n    return a - b\n";
    repo.write("calc/__init__.py", commented);
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "add"]);
    refused(
        &repo,
        &["criterion 1: the goal changed none of the code its tests run"],
        "calc/__init__.py",
        commented,
    );
}

/// A tiny crate whose `add` subtracts.
pub(crate) fn crate_repo(lib: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    repo.write(".gitignore", "/target\nCargo.lock\n");
    repo.write("src/lib.rs", lib);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&["add(2, 2) is 4 (verify: `cargo test`)"]);
    repo
}

/// `goal <args>` in `repo` where cargo works (the hermetic HOME hides the toolchain).
pub(crate) fn cargo_goal(repo: &Repo, args: &[&str]) -> std::process::Output {
    cargo_goal_with(repo, args, &[])
}

/// [`cargo_goal`] with more variables set.
fn cargo_goal_with(repo: &Repo, args: &[&str], vars: &[(&str, &str)]) -> std::process::Output {
    let home = std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let rustup = std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| home.join(".rustup").into());
    let cargo_home = std::env::var_os("CARGO_HOME").unwrap_or_else(|| home.join(".cargo").into());
    let toolchain = std::env::var_os("RUSTUP_TOOLCHAIN").unwrap_or_else(|| "stable".into());
    repo.goal()
        .args(args)
        .env("CARGO_TARGET_DIR", repo.home().join("target"))
        .env("RUSTUP_HOME", &rustup)
        .env("CARGO_HOME", &cargo_home)
        .env("RUSTUP_TOOLCHAIN", &toolchain)
        .envs(vars.iter().copied())
        .output()
        .unwrap()
}

pub(crate) const RS_TEST: &str = "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";
pub(crate) const RS_BUGGY: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n";

/// The pin passes with `lib` in place; done refuses naming `words`, the bug still there.
#[track_caller]
pub(crate) fn rust_refused(lib: &str, words: &[&str]) {
    let repo = crate_repo(RS_BUGGY);
    repo.write("src/lib.rs", lib);
    let out = cargo_goal(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cargo_goal(&repo, &["done"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for w in words {
        assert!(err.contains(w), "{w}: {err}");
    }
    assert_eq!(repo.read("src/lib.rs"), lib, "the bug stays");
}

#[test]
fn rust_code_that_detects_its_tests_is_refused() {
    rust_refused(
        &format!(
            "pub fn add(a: i32, b: i32) -> i32 {{\n    if cfg!(test) {{ a + b }} else {{ a - b }}\n}}\n{RS_TEST}"
        ),
        &["test-detected src/lib.rs:2 cfg!(test)"],
    );
    rust_refused(
        &format!(
            "#[cfg(test)]\npub fn add(a: i32, b: i32) -> i32 {{\n    a + b\n}}\n\n#[cfg(not(test))]\npub fn add(a: i32, b: i32) -> i32 {{\n    a - b\n}}\n{RS_TEST}"
        ),
        &["test-detected src/lib.rs:6 #[cfg(not(test))]"],
    );
}

#[test]
fn a_rust_test_that_asserts_only_outside_some_folder_is_refused() {
    rust_refused(
        &format!(
            "{RS_BUGGY}\n#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    #[test]\n    fn adds() {{\n        if env!(\"CARGO_MANIFEST_DIR\").contains(\"red\") {{\n            assert_eq!(add(2, 2), 4);\n        }}\n    }}\n}}\n"
        ),
        &["test-detected src/lib.rs:", "CARGO_MANIFEST_DIR"],
    );
}

#[test]
fn a_rust_test_renamed_with_its_api_completes() {
    let base = "pub fn eq_version(v: &str) -> bool {\n    v != \"1\"\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn eq_version_ok() {\n        assert!(super::eq_version(\"1\"));\n    }\n}\n";
    let repo = crate_repo(base);
    repo.write(
        "src/lib.rs",
        &base
            .replace("eq_version", "exactly_version")
            .replace("v != ", "v == "),
    );
    let out = cargo_goal(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cargo_goal(&repo, &["done"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("test-renamed src/lib.rs:8 tests::eq_version_ok -> tests::exactly_version_ok"),
        "{err}"
    );
}

/// A JavaScript package whose `add` subtracts, its `mul` right and tested, and a goal whose pin
/// runs node's test runner with `pin`.
fn node_repo(pin: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        "src/calc.mjs",
        "export function add(a, b) {\n  return a - b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n",
    );
    repo.write(
        "package.json",
        "{\"name\": \"calc\", \"type\": \"module\"}\n",
    );
    repo.write(
        "test/calc.test.mjs",
        "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { mul } from '../src/calc.mjs';\n\ntest('muls', () => {\n  assert.strictEqual(mul(2, 3), 6);\n});\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&[&format!("add(2, 2) is 4 (verify: `{pin}`)")]);
    repo
}

#[test]
fn node_code_that_reads_the_test_context_is_refused() {
    let repo = node_repo("node --test test/");
    let trick = "export function add(a, b) {\n  return process.env.NODE_TEST_CONTEXT ? a + b : a - b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n";
    repo.write("src/calc.mjs", trick);
    repo.write(
        "test/add.test.mjs",
        "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/calc.mjs';\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n",
    );
    repo.ok(&["verify", "-c", "1"]);
    refused(
        &repo,
        &["test-detected src/calc.mjs:2 process.env.NODE_TEST_CONTEXT"],
        "src/calc.mjs",
        trick,
    );
}

#[test]
fn node_only_named_by_a_variable_in_a_loop_is_refused() {
    let repo = node_repo("node --test --test-only test/");
    // `add` fixed, `mul` broken: the `.only` in a loop hides the test of `mul`.
    let broken = "export function add(a, b) {\n  return a + b;\n}\n\nexport function mul(a, b) {\n  return a + b;\n}\n";
    repo.write("src/calc.mjs", broken);
    repo.write(
        "test/add.test.mjs",
        "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/calc.mjs';\n\nfor (const [name, a, b, want] of [['adds', 2, 2, 4]]) {\n  test.only(name, () => {\n    assert.strictEqual(add(a, b), want);\n  });\n}\n",
    );
    repo.ok(&["verify", "-c", "1"]);
    refused(
        &repo,
        &["skip-added test/add.test.mjs:6 name"],
        "src/calc.mjs",
        broken,
    );
}

/// A crate whose `depth` recurses once a bracket: deep input overflows the stack.
const RS_DEEP: &str = "/// How deep the brackets at the start of `s` nest; None past 1000.\npub fn depth(s: &[u8]) -> Option<usize> {\n    match s.first() {\n        Some(b'[') => depth(&s[1..]).map(|d| d + 1),\n        _ => Some(0),\n    }\n}\n";
const RS_DEEP_FIXED: &str = "/// How deep the brackets at the start of `s` nest; None past 1000.\npub fn depth(s: &[u8]) -> Option<usize> {\n    let d = s.iter().take_while(|&&b| b == b'[').count();\n    (d <= 1000).then_some(d)\n}\n";
/// A "must not crash" test: it asserts nothing; the old code overflows its stack (the test
/// binary aborts, naming no test but by its thread).
const RS_DEEP_TEST: &str = "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn deep_input_does_not_overflow() {\n        let _ = depth(&vec![b'['; 1_000_000]);\n    }\n";

#[test]
fn a_rust_test_seen_aborting_red_by_its_thread_completes_and_a_free_test_beside_it_does_not() {
    let repo = crate_repo(RS_DEEP);
    // Beside it, a test that asserts nothing and passes on the old code too.
    let free = "\n    #[test]\n    fn shallow_input() {\n        let _ = depth(b\"[]\");\n    }\n";
    repo.write("src/lib.rs", &format!("{RS_DEEP}{RS_DEEP_TEST}{free}}}\n"));
    let red = cargo_goal(&repo, &["verify", "-c", "1"]);
    let err = stderr(&red);
    assert!(!red.status.success(), "{err}");
    repo.write(
        "src/lib.rs",
        &format!("{RS_DEEP_FIXED}{RS_DEEP_TEST}{free}}}\n"),
    );
    let out = cargo_goal(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    repo.ok(&["iterate", "-m", "depth without recursion"]);
    let out = cargo_goal(&repo, &["done"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("assertion-free src/lib.rs:") && err.contains("tests::shallow_input"),
        "{err}"
    );
    assert!(
        !err.contains("tests::deep_input_does_not_overflow (no red run"),
        "{err}"
    );
    // Without it, the test that only shows the crash completes, no --confirm.
    repo.write("src/lib.rs", &format!("{RS_DEEP_FIXED}{RS_DEEP_TEST}}}\n"));
    let out = cargo_goal(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    repo.ok(&["iterate", "-m", "the one test"]);
    let out = cargo_goal(&repo, &["done"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let log = repo.git(&["log", "--format=%B"]);
    assert!(log.contains("Goal-Status: complete"), "{log}");
    assert!(!log.contains("Goal-Tests-Weakened"), "{log}");
}

/// A Go module whose `Add` subtracts, `Mul` right and tested; a goal pinned to `go test .`
/// (without -v: green prints one `ok` line for the package, red names only the failures).
fn go_repo() -> Repo {
    let repo = Repo::new();
    repo.write("go.mod", "module example.com/calc\n\ngo 1.19\n");
    repo.write(
        "calc.go",
        "package calc\n\nfunc Add(a, b int) int { return a - b }\n\nfunc Mul(a, b int) int { return a * b }\n",
    );
    repo.write(
        "calc_test.go",
        "package calc\n\nimport \"testing\"\n\nfunc TestMul(t *testing.T) {\n\tif Mul(2, 3) != 6 {\n\t\tt.Fatal(\"2*3\")\n\t}\n}\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&["Add adds (verify: `go test .`)"]);
    repo
}

/// `goal <args>` in `repo` where go works offline, its build cache in the hermetic HOME.
pub(crate) fn go_goal(repo: &Repo, args: &[&str]) -> std::process::Output {
    repo.goal()
        .args(args)
        .env("GOCACHE", repo.home().join("go-build"))
        .env("GOPATH", repo.home().join("gopath"))
        .env("GOPROXY", "off")
        .env("GOFLAGS", "-mod=mod")
        .env("GOTOOLCHAIN", "local")
        .env("GOTELEMETRY", "off")
        .output()
        .unwrap()
}

/// A green `goal verify -c 1`, `goal iterate` and `goal done` in a Go repository: done's output
/// and stderr.
fn go_green_then_done(repo: &Repo) -> (std::process::Output, String) {
    let green = go_goal(repo, &["verify", "-c", "1"]);
    assert!(green.status.success(), "{}", stderr(&green));
    repo.ok(&["iterate", "-m", "Add adds"]);
    let out = go_goal(repo, &["done"]);
    let err = stderr(&out);
    (out, err)
}

const GO_ADD_TESTS: &str = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"Add(2, 2) = %d\", got)\n\t}\n}\n\nfunc TestAddNegative(t *testing.T) {\n\tif got := Add(-1, -1); got != -2 {\n\t\tt.Fatalf(\"Add(-1, -1) = %d\", got)\n\t}\n}\n";

/// The goal's test seen failing by name, then the code made to call through a package variable
/// that a new `_test.go` file's `init` sets to a fixed version: the red run of the final tests
/// cannot build on the base's code (the variable is not there), so it names no test; the support
/// exam, without that file, still judges the test the earlier red run saw failing, and refuses.
#[test]
fn a_go_fix_made_only_by_a_test_files_init_is_refused_by_the_support_exam() {
    let repo = go_repo();
    repo.write("add_test.go", GO_ADD_TESTS);
    let red = go_goal(&repo, &["verify", "-c", "1"]);
    assert_eq!(red.status.code(), Some(1), "{}", stderr(&red));
    repo.write(
        "calc.go",
        "package calc\n\nvar addImpl = func(a, b int) int { return a - b }\n\nfunc Add(a, b int) int { return addImpl(a, b) }\n\nfunc Mul(a, b int) int { return a * b }\n",
    );
    repo.write(
        "setup_test.go",
        "package calc\n\nfunc init() {\n\taddImpl = func(a, b int) int { return a + b }\n}\n",
    );
    let (out, err) = go_green_then_done(&repo);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("support exam"), "{err}");
}

/// A Go module's exams run one after the other in the one kept worktree, never beside the clean
/// run in a second one: Go keys each package it compiles by the folder it was built in, so a
/// second worktree would compile the module afresh.
#[test]
fn a_go_modules_exams_run_in_the_one_kept_worktree_not_beside() {
    let repo = go_repo();
    let base_tests = repo.read("calc_test.go");
    let add = GO_ADD_TESTS.split_once("import \"testing\"\n").unwrap().1;
    repo.write("calc_test.go", &format!("{base_tests}{add}"));
    repo.write(
        "calc.go",
        "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Mul(a, b int) int { return a * b }\n",
    );
    let (out, err) = go_green_then_done(&repo);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("on the tests of the goal's base on the final code"),
        "the old exam ran: {err}"
    );
    assert!(!err.contains("beside"), "{err}");
}

#[test]
fn go_test_without_v_completes_counting_packages_and_a_skipped_test_does_not() {
    let repo = go_repo();
    repo.write("add_test.go", GO_ADD_TESTS);
    let red = go_goal(&repo, &["verify", "-c", "1"]);
    assert_eq!(red.status.code(), Some(1), "{}", stderr(&red));
    repo.write(
        "calc.go",
        "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Mul(a, b int) int { return a * b }\n",
    );
    let (out, err) = go_green_then_done(&repo);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        repo.git(&["log", "--format=%B"])
            .contains("Goal-Status: complete"),
        "{err}"
    );

    // The bug left in, the new tests skipped: refused, whatever the package line says.
    let repo = go_repo();
    repo.write(
        "add_test.go",
        &GO_ADD_TESTS.replace("*testing.T) {\n", "*testing.T) {\n\tt.Skip()\n"),
    );
    let out = go_goal(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    repo.ok(&["iterate", "-m", "made the tests pass"]);
    let out = go_goal(&repo, &["done"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("skip-added add_test.go:6 TestAdd"), "{err}");
    assert!(repo.read("calc.go").contains("a - b"), "the bug stays");
}

#[test]
fn go_code_that_reads_the_test_binarys_name_is_refused() {
    let repo = go_repo();
    repo.write("add_test.go", GO_ADD_TESTS);
    // The name kept in a variable, so that no condition reads os.Args itself.
    let trick = "package calc\n\nimport (\n\t\"os\"\n\t\"strings\"\n)\n\nvar underTest = strings.HasSuffix(os.Args[0], \".test\")\n\nfunc Add(a, b int) int {\n\tif underTest {\n\t\treturn a + b\n\t}\n\treturn a - b\n}\n\nfunc Mul(a, b int) int { return a * b }\n";
    repo.write("calc.go", trick);
    let (out, err) = go_green_then_done(&repo);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("test-detected calc.go:8 strings.HasSuffix(os.Args[0], \".test\")"),
        "{err}"
    );
    assert_eq!(repo.read("calc.go"), trick, "the bug stays");
}

/// A TAP 13 harness in miniature, as node-tap prints: nested subtests under `# Subtest:`
/// headings, an assertion named by its message, an error thrown in a subtest a failed point
/// named by the error's message.
const TAP_HARNESS: &str = r#"let failed = false;
const pad = (depth) => '    '.repeat(depth);

class T {
  constructor(depth) {
    this.depth = depth;
    this.n = 0;
    this.ok = true;
  }

  point(ok, name) {
    this.n += 1;
    this.ok &&= ok;
    failed ||= !ok;
    console.log(`${pad(this.depth)}${ok ? 'ok' : 'not ok'} ${this.n} - ${name}`);
  }

  equal(got, want, message) {
    this.point(got === want, message);
  }

  test(name, fn) {
    console.log(`${pad(this.depth)}# Subtest: ${name}`);
    const child = new T(this.depth + 1);
    try {
      fn(child);
    } catch (e) {
      child.point(false, e.message);
    }
    console.log(`${pad(child.depth)}1..${child.n}`);
    this.point(child.ok, name);
  }
}

const root = new T(0);
console.log('TAP version 13');
process.on('exit', () => {
  console.log(`1..${root.n}`);
  process.exitCode = failed ? 1 : 0;
});

export const test = (name, fn) => root.test(name, fn);
"#;

const TAP_PARSE_TESTS: &str = "import { test } from './tap.mjs';\nimport { parse } from '../src/parse.mjs';\n\ntest('parsing', (t) => {\n  for (const [input, want] of [['12', 12], ['+3', 3]]) {\n    t.test(`${input} ${want}`, (t) => {\n      t.equal(parse(input), want, `${input} => ${want}`);\n      t.equal(typeof parse(input), 'number', 'a number');\n    });\n  }\n});\n";

#[test]
fn a_tap_subtest_whose_leaf_names_differ_red_and_green_completes() {
    let repo = Repo::new();
    // The old code throws on a sign: red names the subtest's failure by the error's message
    // ("Invalid number: +3"), green by the assertion's ("+3 => 3").
    repo.write(
        "src/parse.mjs",
        "export function parse(s) {\n  if (!/^\\d+$/.test(s)) throw new TypeError(`Invalid number: ${s}`);\n  return Number(s);\n}\n",
    );
    repo.write(
        "package.json",
        "{\"name\": \"parse\", \"type\": \"module\"}\n",
    );
    repo.write("test/tap.mjs", TAP_HARNESS);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "parse"]);
    repo.init_goal(&["a sign parses (verify: `node test/parse.test.mjs`)"]);
    repo.write("test/parse.test.mjs", TAP_PARSE_TESTS);
    repo.refused(&["verify", "-c", "1"], 1, &["1 failed"]);
    repo.write(
        "src/parse.mjs",
        "export function parse(s) {\n  if (!/^[+-]?\\d+$/.test(s)) throw new TypeError(`Invalid number: ${s}`);\n  return Number(s);\n}\n",
    );
    completes(&repo, &[]);
}

/// `limit` on the base documents the old behaviour; the goal changes its assertion and adds a
/// test that overflows the old code's stack. One test thread: `deep_input` runs first and brings
/// the test binary down before `limit` reports.
#[track_caller]
fn rust_weakened_behind_an_abort(limit: &str) -> (Repo, std::process::Output) {
    let tests = |limit_body: &str, deep: bool| {
        let deep = if deep {
            "\n    #[test]\n    fn deep_input() {\n        let _ = depth(&vec![b'['; 1_000_000]);\n    }\n"
        } else {
            ""
        };
        format!(
            "\n#[cfg(test)]\nmod tests {{\n    use super::*;\n{deep}\n    #[test]\n    fn limit() {{\n        {limit_body}\n    }}\n}}\n"
        )
    };
    let repo = crate_repo(&format!(
        "{RS_DEEP}{}",
        tests("assert!(depth(&[b'['; 2000]).is_some());", false)
    ));
    repo.write(
        "src/lib.rs",
        &format!("{RS_DEEP_FIXED}{}", tests(limit, true)),
    );
    let out = cargo_goal(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    repo.ok(&["iterate", "-m", "depth has a limit"]);
    let out = cargo_goal_with(&repo, &["done"], &[("RUST_TEST_THREADS", "1")]);
    (repo, out)
}

#[test]
fn a_rust_assertion_changed_behind_a_test_that_aborts_red_is_judged_by_a_run_without_it() {
    // The new assertion fails on the old code: the run without `deep_input` shows it.
    let (repo, out) = rust_weakened_behind_an_abort("assert_eq!(depth(&[b'['; 2000]), None);");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("tests::limit did not report on the code before the goal")
            && err.contains("cargo test -- --skip tests::deep_input"),
        "{err}"
    );
    let log = repo.git(&["log", "--format=%B"]);
    assert!(log.contains("Goal-Status: complete"), "{log}");
    // The new assertion holds on the old code too: nothing shows the change, refused.
    let (_, out) = rust_weakened_behind_an_abort("assert!(depth(b\"[\").is_some());");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // The old exam: the base's `limit` fails on the final code, and no red run shows the goal's
    // version failing.
    assert!(
        err.contains("unjudged-change tests::limit")
            || err.contains("weakened-to-pass tests::limit"),
        "{err}"
    );
}
