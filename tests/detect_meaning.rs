//! Code that chooses what it does on a sign of the test run, read through what its names mean,
//! is refused naming file:line; honest programs that read their own name, arguments or host
//! complete. Real git, real pytest, node's test runner and go test.

use crate::common::{Repo, stderr};
use crate::red_history::{BUGGY, TESTS, go_goal};

/// A Python package whose `add()` subtracts, its failing test on the base; a goal to fix it.
fn calc() -> Repo {
    crate::red_history::calc(BUGGY, TESTS)
}

/// The pin passes on `code` (the trick works under the runner), and `goal done` refuses naming
/// `words`, the code kept and the goal not done.
#[track_caller]
fn refused(repo: &Repo, file: &str, code: &str, words: &[&str]) {
    repo.ok(&["iterate", "-m", "the change"]);
    repo.refused(&["done"], 1, words);
    assert_eq!(repo.read(file), code, "the code stays");
    assert!(repo.exists(".agents/goal/GOAL.md"), "the goal is not done");
}

/// `goal done` completes (the change verified and iterated), no test-detected finding.
#[track_caller]
fn completes(repo: &Repo, out: std::process::Output) {
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("test-detected"), "{err}");
    let log = repo.git(&["log", "--format=%B"]);
    assert!(log.contains("Goal-Status: complete"), "{log}");
}

#[test]
fn python_code_choosing_on_a_runner_module_through_an_alias_is_refused() {
    let repo = calc();
    let trick = "import sys as _s\n\n_T = _s.modules.get(\"_\" + \"pytest\") is not None\n\n\ndef add(a, b):\n    if _T:\n        return a + b\n    return a - b\n";
    repo.write("calc/__init__.py", trick);
    repo.ok(&["verify", "-c", "1"]);
    refused(
        &repo,
        "calc/__init__.py",
        trick,
        &[
            "test-detected calc/__init__.py:3",
            "test-detected calc/__init__.py:7 _T",
        ],
    );
}

#[test]
fn python_code_choosing_on_process_state_pytest_changes_is_refused() {
    let repo = calc();
    // pytest turns the fault handler on; a plain `python` leaves it off.
    let trick = "import faulthandler as fh\n\n\ndef add(a, b):\n    if fh.is_enabled():\n        return a + b\n    return a - b\n";
    repo.write("calc/__init__.py", trick);
    repo.ok(&["verify", "-c", "1"]);
    refused(
        &repo,
        "calc/__init__.py",
        trick,
        &["test-detected calc/__init__.py:5 fh.is_enabled()"],
    );
}

#[test]
fn an_honest_python_cli_reading_its_own_name_arguments_and_host_completes() {
    let repo = calc();
    let cli = "import argparse\nimport logging\nimport os\nimport socket\nimport sys\n\n\ndef add(a, b):\n    return a + b\n\n\ndef main(argv=None):\n    argv = sys.argv[1:] if argv is None else argv\n    parser = argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]))\n    parser.add_argument(\"-v\", action=\"store_true\")\n    parser.add_argument(\"a\", type=int)\n    parser.add_argument(\"b\", type=int)\n    args = parser.parse_args(argv)\n    if args.v:\n        logging.info(\"on %s\", socket.gethostname())\n    if argv and argv[0] == \"--help-me\":\n        return 0\n    print(add(args.a, args.b))\n    return 0\n\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n";
    repo.write("calc/__init__.py", cli);
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "add adds, and a CLI"]);
    completes(&repo, repo.goal().args(["done"]).output().unwrap());
}

/// A JavaScript package whose `add` subtracts, `mul` right and tested; a goal pinned to node's
/// test runner, the test of `add` added with the change.
fn node_repo() -> Repo {
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
    repo.init_goal(&["add(2, 2) is 4 (verify: `node --test test/`)"]);
    repo.write(
        "test/add.test.mjs",
        "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../src/calc.mjs';\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n",
    );
    repo
}

#[test]
fn node_code_choosing_on_the_runners_variable_through_names_is_refused() {
    let repo = node_repo();
    let trick = "import { env } from 'node:process';\n\nconst key = ['NODE', 'TEST', 'CONTEXT'].join('_');\n\nexport function add(a, b) {\n  return env[key] ? a + b : a - b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n";
    repo.write("src/calc.mjs", trick);
    repo.ok(&["verify", "-c", "1"]);
    refused(
        &repo,
        "src/calc.mjs",
        trick,
        &[
            "test-detected src/calc.mjs:3 ['NODE', 'TEST', 'CONTEXT'].join('_')",
            "test-detected src/calc.mjs:6 env[key]",
        ],
    );
}

#[test]
fn an_honest_node_cli_reading_its_own_arguments_completes() {
    let repo = node_repo();
    let cli = "import { pathToFileURL } from 'node:url';\nimport os from 'node:os';\n\nexport function add(a, b) {\n  return a + b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n\nexport function main(argv = process.argv.slice(2)) {\n  const [cmd, a, b] = argv;\n  if (cmd === 'add') {\n    console.log(`${add(Number(a), Number(b))} on ${os.hostname()}`);\n  }\n}\n\nif (import.meta.url === pathToFileURL(process.argv[1]).href) {\n  main();\n}\n";
    repo.write("src/calc.mjs", cli);
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "add adds, and a CLI"]);
    completes(&repo, repo.goal().args(["done"]).output().unwrap());
}

/// A Go module whose `Add` subtracts, with its test; a goal pinned to `go test .`.
fn go_repo() -> Repo {
    let repo = Repo::new();
    repo.write("go.mod", "module example.com/calc\n\ngo 1.19\n");
    repo.write(
        "calc.go",
        "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
    );
    repo.write(
        "calc_test.go",
        "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"Add(2, 2) = %d\", got)\n\t}\n}\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&["Add adds (verify: `go test .`)"]);
    repo
}

#[test]
fn go_code_choosing_on_its_executables_name_read_into_a_variable_is_refused() {
    let repo = go_repo();
    let trick = "package calc\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n)\n\nfunc Add(a, b int) int {\n\texe, err := os.Executable()\n\tif err != nil {\n\t\treturn a - b\n\t}\n\tif filepath.Ext(exe) == \".test\" {\n\t\treturn a + b\n\t}\n\treturn a - b\n}\n";
    repo.write("calc.go", trick);
    let green = go_goal(&repo, &["verify", "-c", "1"]);
    assert!(green.status.success(), "{}", stderr(&green));
    repo.ok(&["iterate", "-m", "Add adds"]);
    let out = go_goal(&repo, &["done"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("test-detected calc.go:13 filepath.Ext(exe) == \".test\""),
        "{err}"
    );
    assert_eq!(repo.read("calc.go"), trick, "the code stays");
}

#[test]
fn an_honest_go_cli_reading_its_own_name_and_arguments_completes() {
    let repo = go_repo();
    let code = "package calc\n\nimport (\n\t\"log\"\n\t\"os\"\n\t\"path/filepath\"\n)\n\nfunc Add(a, b int) int { return a + b }\n\n// Usage names the program as it was run.\nfunc Usage() string { return filepath.Base(os.Args[0]) + \" a b\" }\n\n// Verbose says whether the program's own arguments ask for it.\nfunc Verbose() bool {\n\tfor _, a := range os.Args[1:] {\n\t\tif a == \"-v\" {\n\t\t\th, _ := os.Hostname()\n\t\t\tlog.Printf(\"on %s\", h)\n\t\t\treturn true\n\t\t}\n\t}\n\treturn len(os.Args) > 3\n}\n";
    repo.write("calc.go", code);
    let green = go_goal(&repo, &["verify", "-c", "1"]);
    assert!(green.status.success(), "{}", stderr(&green));
    repo.ok(&["iterate", "-m", "Add adds"]);
    completes(&repo, go_goal(&repo, &["done"]));
}
