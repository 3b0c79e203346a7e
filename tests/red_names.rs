//! Every runner read by name (what goal adds to a pin's run so its runner names each test:
//! unittest -v, pytest -rfEsxXp, go test -v), and a TypeScript test that does not type-check on
//! the base read as red. Real git, real Python, pytest and go; ts-jest's output as it prints it.

use crate::common::{Repo, stderr};
use crate::red_history::go_goal;

/// One runner's case for [`each_runner_is_judged_by_name_with_what_goal_adds`]: the pin, the
/// command goal runs for it, the base's files, the goal's test and fix, and the failing test's
/// name as the runner prints it.
struct Named {
    pin: &'static str,
    ran: &'static str,
    base: &'static [(&'static str, &'static str)],
    test: (&'static str, &'static str),
    fix: (&'static str, &'static str),
    failing: &'static str,
}

const UNITTEST_BASE: &str = "import unittest\n\nfrom calc import add\n\n\nclass TestCalc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n";
const PYTEST_BASE: &str = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
const PY_MUL: &str = "def add(a, b):\n    return a * b\n";
const PY_ADDS: &str = "def add(a, b):\n    return (a + b)\n";
const GO_BASE: &str = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatal(\"2+2\")\n\t}\n}\n";

/// A fix whose test changes an expected value (the base's `add(2, 2) == 4` passes on the bug,
/// `a * b`; the goal's `add(2, 3) == 5` does not): its red run must show that test failing by
/// name, which unittest (without and with `-v`), pytest run quietly and `go test` without `-v`
/// print only with what goal adds to their runs. Each completes without `--confirm`, and the
/// records show the command as it ran.
#[test]
fn each_runner_is_judged_by_name_with_what_goal_adds() {
    let cases = [
        Named {
            pin: "python3 -m unittest tests.test_calc",
            ran: "python3 -m unittest -v tests.test_calc",
            base: &[
                ("calc.py", PY_MUL),
                ("tests/__init__.py", ""),
                ("tests/test_calc.py", UNITTEST_BASE),
            ],
            test: (
                "tests/test_calc.py",
                "import unittest\n\nfrom calc import add\n\n\nclass TestCalc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
            ),
            fix: ("calc.py", PY_ADDS),
            failing: "tests.test_calc.TestCalc.test_add",
        },
        Named {
            pin: "python3 -m unittest -v tests.test_calc",
            ran: "",
            base: &[
                ("calc.py", PY_MUL),
                ("tests/__init__.py", ""),
                ("tests/test_calc.py", UNITTEST_BASE),
            ],
            test: (
                "tests/test_calc.py",
                "import unittest\n\nfrom calc import add\n\n\nclass TestCalc(unittest.TestCase):\n    def test_add(self):\n        \"\"\"Adds.\"\"\"\n        self.assertEqual(add(2, 3), 5)\n",
            ),
            fix: ("calc.py", PY_ADDS),
            failing: "tests.test_calc.TestCalc.test_add",
        },
        Named {
            pin: "pytest -q -p no:cacheprovider tests/test_calc.py",
            ran: "pytest -q -p no:cacheprovider tests/test_calc.py -rfEsxXp",
            base: &[
                ("calc.py", PY_MUL),
                ("conftest.py", ""),
                ("tests/test_calc.py", PYTEST_BASE),
            ],
            test: (
                "tests/test_calc.py",
                "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
            ),
            fix: ("calc.py", PY_ADDS),
            failing: "tests/test_calc.py::test_add",
        },
        Named {
            pin: "go test .",
            ran: "go test -v .",
            base: &[
                ("go.mod", "module example.com/calc\n\ngo 1.19\n"),
                (
                    "calc.go",
                    "package calc\n\nfunc Add(a, b int) int { return a * b }\n",
                ),
                ("calc_test.go", GO_BASE),
            ],
            test: (
                "calc_test.go",
                "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"2+3\")\n\t}\n}\n",
            ),
            fix: (
                "calc.go",
                "package calc\n\nfunc Add(a, b int) int { return (a + b) }\n",
            ),
            failing: "TestAdd",
        },
    ];
    for case in cases {
        let repo = Repo::new();
        for (path, text) in case.base {
            repo.write(path, text);
        }
        repo.write(".gitignore", "__pycache__/\n");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "calc"]);
        repo.init_goal(&[&format!("add adds (verify: `{}`)", case.pin)]);
        repo.write(case.test.0, case.test.1);
        let red = go_goal(&repo, &["verify", "-c", "1"]);
        assert_eq!(red.status.code(), Some(1), "{}: {}", case.pin, stderr(&red));
        let record = crate::common::last_record(&repo);
        let ran: Vec<String> = serde_json::from_value(record["ran"].clone()).unwrap_or_default();
        assert_eq!(ran.join(" "), case.ran, "{}: {record}", case.pin);
        assert_eq!(
            record["argv"].as_array().map(Vec::len),
            Some(case.pin.split(' ').count())
        );
        let names = record["tests"]["names"].to_string();
        assert!(
            names.contains(&format!(
                "{{\"name\":\"{}\",\"outcome\":\"failed\"}}",
                case.failing
            )),
            "{}: {names}",
            case.pin
        );
        repo.write(case.fix.0, case.fix.1);
        let green = go_goal(&repo, &["verify", "-c", "1"]);
        assert!(green.status.success(), "{}: {}", case.pin, stderr(&green));
        repo.ok(&["iterate", "-m", "add adds"]);
        let done = go_goal(&repo, &["done"]);
        assert_eq!(
            done.status.code(),
            Some(0),
            "{}: {}",
            case.pin,
            stderr(&done)
        );
        let log = repo.git(&["log", "--format=%B"]);
        assert!(!log.contains("Goal-Tests-Weakened"), "{}: {log}", case.pin);
    }
}

/// A stand-in for `jest` with ts-jest that prints what ts-jest prints (a type error against the
/// code is "Test suite failed to run", "Tests: 0 total"): passing once `add` takes three
/// arguments; else the type error, located by `$WHERE` (the test file, or a code file).
const TS_JEST: &str = r#"if grep -q 'c: number' src/calc.ts; then
  printf 'PASS test/calc.test.ts\n  \342\234\223 adds three (2 ms)\n\nTest Suites: 1 passed, 1 total\nTests:       1 passed, 1 total\n'
  exit 0
fi
printf 'FAIL test/calc.test.ts\n  \342\227\217 Test suite failed to run\n\n    %s:3:26 - error TS2554: Expected 2 arguments, but got 3.\n\nTest Suites: 1 failed, 1 total\nTests:       0 total\n' "$WHERE"
exit 1
"#;

/// A TypeScript test that does not type-check against the base code (ts-jest runs no test of
/// it) is red, as a Go test that does not build is: the goal completes. The same error located
/// in a code file says nothing of the tests: the red run is inconclusive and `done` refuses.
#[test]
fn a_typescript_test_that_does_not_type_check_on_the_base_is_red() {
    for (place, completes) in [("test/calc.test.ts", true), ("src/calc.ts", false)] {
        let repo = Repo::new();
        repo.write(
            "src/calc.ts",
            "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
        );
        repo.write("jest.sh", TS_JEST);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "calc"]);
        repo.init_goal(&["add takes three numbers (verify: `sh jest.sh`)"]);
        repo.write(
            "test/calc.test.ts",
            "import { add } from '../src/calc';\n\ntest('adds three', () => expect(add(1, 2, 3)).toBe(6));\n",
        );
        repo.write(
            "src/calc.ts",
            "export function add(a: number, b: number, c: number): number {\n  return a + b + c;\n}\n",
        );
        let run = |args: &[&str]| repo.goal().env("WHERE", place).args(args).output().unwrap();
        let green = run(&["verify", "-c", "1"]);
        assert!(green.status.success(), "{}", stderr(&green));
        repo.ok(&["iterate", "-m", "add takes three"]);
        let done = run(&["done"]);
        let err = stderr(&done);
        if completes {
            assert_eq!(done.status.code(), Some(0), "{err}");
            let red = repo
                .git(&["show", &format!("HEAD~1:{}", crate::common::EVIDENCE)])
                .lines()
                .find(|l| l.contains("\"red\""))
                .map(str::to_string)
                .unwrap_or_default();
            assert!(
                red.contains("\"load_failed\":[\"test/calc.test.ts\"]"),
                "{red}"
            );
        } else {
            assert_eq!(done.status.code(), Some(1), "{err}");
            assert!(
                err.contains("did not run on the code before the goal"),
                "{err}"
            );
            assert!(repo.exists(".agents/goal/GOAL.md"));
        }
    }
}
