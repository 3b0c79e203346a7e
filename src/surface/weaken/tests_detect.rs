//! Tables of code that tells a test run from another run (detect.rs): each runner probe, each
//! kind of condition, each environment switch, and what a finding shows, row by row.

use std::collections::BTreeSet;

use super::*;

use FindingKind::{TestAware, TestDetected};

/// The detections of a new file (`code`: a file of code, where runner probes and environment
/// switches count): kind, line and what it shows.
pub(super) fn detections(path: &str, src: &str, code: bool) -> Vec<(FindingKind, usize, String)> {
    let mut out = Vec::new();
    test_detected::detected(path, None, Some(src), code, &mut out).unwrap();
    out.into_iter().map(|f| (f.kind, f.line, f.test)).collect()
}

pub(super) type Row<'a> = (&'a str, &'a str, &'a [(FindingKind, usize, &'a str)]);

pub(super) fn check(rows: &[Row], code: bool) {
    for (path, src, want) in rows {
        let want: Vec<(FindingKind, usize, String)> = want
            .iter()
            .map(|(k, l, t)| (*k, *l, t.to_string()))
            .collect();
        assert_eq!(detections(path, src, code), want, "{path}: {src}");
    }
}

#[test]
fn runner_probes_in_code() {
    let rows: &[Row] = &[
        // Python: a runner's module name beside sys.modules in its own statement.
        (
            "app.py",
            "import sys\nX = \"_pytest\" in sys.modules\n",
            &[(TestDetected, 2, "\"_pytest\" in sys.modules")],
        ),
        ("app.py", "import sys\nX = \"numpy\" in sys.modules\n", &[]),
        ("app.py", "X = \"pytest\" in modules\n", &[]),
        (
            "app.py",
            "import os\nX = \"PYTEST_CURRENT_TEST\" in os.environ\n",
            &[(TestDetected, 2, "\"PYTEST_CURRENT_TEST\" in os.environ")],
        ),
        (
            "app.py",
            "import os\nX = os.environ.get(\"PYTEST_VERSION\")\nY = \"PYTEST_XDIST_WORKER\" in os.environ\nZ = \"PYTEST_ADDOPTS\"\n",
            &[
                (TestDetected, 2, "os.environ.get(\"PYTEST_VERSION\")"),
                (TestDetected, 3, "\"PYTEST_XDIST_WORKER\" in os.environ"),
            ],
        ),
        // Its statement, not the `if` around it: sys.modules in the body does not count.
        (
            "app.py",
            "import sys\nif \"pytest\" == name:\n    print(sys.modules)\n",
            &[],
        ),
        (
            "app.py",
            "import sys\nwhile \"pytest\" == name:\n    print(sys.modules)\n",
            &[],
        ),
        (
            "app.py",
            "import sys\ndef f():\n    return \"unittest\" in sys.modules\n",
            &[(TestDetected, 3, "\"unittest\" in sys.modules")],
        ),
        // A definition is a statement: a default naming the runner counts beside sys.modules
        // in its body, not beside sys.modules after it, in its module or in the function around.
        (
            "app.py",
            "import sys\ndef f(name=\"pytest\"):\n    return name in sys.modules\n",
            &[(
                TestDetected,
                2,
                "def f(name=\"pytest\"): return name in sys.modules",
            )],
        ),
        (
            "app.py",
            "import sys\ndef f(x=\"pytest\"):\n    pass\nprint(sys.modules)\n",
            &[],
        ),
        (
            "app.py",
            "import sys\ndef g():\n    def f(x=\"pytest\"):\n        pass\n    return sys.modules\n",
            &[],
        ),
        // The runner's name in the command line.
        (
            "app.py",
            "import sys\nUNDER_TEST = \"pytest\" in sys.argv[0] or \"py.test\" in sys.argv[0]\n",
            &[(TestDetected, 2, "\"py.test\" in sys.argv[0]")],
        ),
        (
            "app.py",
            "import sys\nVERBOSE = \"-v\" in sys.argv\nNAME = \"pytest\"\n",
            &[],
        ),
        // JavaScript: the runners' variables under any spelling, typeof jest or vi.
        (
            "src/a.js",
            "const w = process.env[\"VITEST_WORKER_ID\"];\n",
            &[(TestDetected, 1, "process.env[\"VITEST_WORKER_ID\"]")],
        ),
        (
            "src/a.js",
            "const p = process.env.VITEST_POOL_ID;\n",
            &[(TestDetected, 1, "process.env.VITEST_POOL_ID")],
        ),
        (
            "src/a.js",
            "const name = \"JEST_WORKER_ID\";\n",
            &[(TestDetected, 1, "name = \"JEST_WORKER_ID\"")],
        ),
        (
            "src/a.js",
            "if (typeof jest !== \"undefined\") { x = 1; }\n",
            &[(TestDetected, 1, "typeof jest !== \"undefined\"")],
        ),
        (
            "src/a.ts",
            "export const t = typeof vi;\n",
            &[(TestDetected, 1, "t = typeof vi")],
        ),
        (
            "src/a.js",
            "if (typeof window !== \"undefined\") { x = 1; }\n",
            &[],
        ),
        ("src/a.js", "const jest = require(\"x\");\nf(-jest);\n", &[]),
        ("src/a.js", "const env = process.env.HOME;\n", &[]),
        // A runner's name in the command line, node's --test in its own flags; a program's own
        // --test flag is not the runner's.
        (
            "src/a.js",
            "const t = process.argv.some((a) => a.includes(\"jest\"));\n",
            &[(TestDetected, 1, "a.includes(\"jest\")")],
        ),
        (
            "src/a.js",
            "const t = process.execArgv.includes(\"--test\");\n",
            &[(TestDetected, 1, "process.execArgv.includes(\"--test\")")],
        ),
        (
            "src/a.js",
            "if (process.argv.includes(\"--test\")) { selfTest(); }\nconst runner = \"mocha\";\n",
            &[],
        ),
        // Go: testing.Testing(), the test binary's flags and its name.
        (
            "a.go",
            "package a\n\nimport (\n\t\"os\"\n\t\"strings\"\n)\n\nvar underTest = strings.HasSuffix(os.Args[0], \".test\")\n",
            &[(TestDetected, 8, "strings.HasSuffix(os.Args[0], \".test\")")],
        ),
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nfunc F() bool {\n\texe, _ := os.Executable()\n\treturn filepath.Ext(exe) == `.test`\n}\n",
            &[(TestDetected, 7, "filepath.Ext(exe) == `.test`")],
        ),
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nfunc F() bool {\n\texe, _ := os.Executable()\n\treturn exe == \"\" || strings.HasSuffix(os.Args[0], \".test.exe\")\n}\n",
            &[(
                TestDetected,
                7,
                "strings.HasSuffix(os.Args[0], \".test.exe\")",
            )],
        ),
        (
            "a.go",
            "package a\n\nimport \"flag\"\n\nvar v = flag.Lookup(\"test.v\") != nil\n",
            &[(TestDetected, 5, "flag.Lookup(\"test.v\")")],
        ),
        (
            "a.go",
            "package a\n\nimport \"flag\"\n\nvar v = flag.Lookup(\"verbose\") != nil // not test.v\n",
            &[],
        ),
        (
            "a.go",
            "package a\n\nimport \"strings\"\n\nvar v = strings.TrimPrefix(\"test.v\", \"test.\")\n",
            &[],
        ),
        (
            "a.go",
            "package a\n\nfunc F(t T) bool { return t.Testing() }\n",
            &[],
        ),
        // Two probes of one kind on one line are one finding; on two lines, two.
        (
            "app.py",
            "import sys, os\nX = \"pytest\" in sys.modules or \"PYTEST_CURRENT_TEST\" in os.environ\n",
            &[(TestDetected, 2, "\"PYTEST_CURRENT_TEST\" in os.environ")],
        ),
        (
            "app.py",
            "import sys, os\nX = \"pytest\" in sys.modules\nY = \"PYTEST_CURRENT_TEST\" in os.environ\n",
            &[
                (TestDetected, 2, "\"pytest\" in sys.modules"),
                (TestDetected, 3, "\"PYTEST_CURRENT_TEST\" in os.environ"),
            ],
        ),
    ];
    check(rows, true);
}

#[test]
fn runner_probes_and_switches_count_only_in_code() {
    let rows: &[Row] = &[
        (
            "tests/test_a.py",
            "import sys\nX = \"pytest\" in sys.modules\n",
            &[],
        ),
        ("a.test.js", "const w = process.env.JEST_WORKER_ID;\n", &[]),
        (
            "a_test.go",
            "package a\n\nimport \"testing\"\n\nvar T = testing.Testing()\n",
            &[],
        ),
        (
            "tests/test_a.py",
            "import os\nX = os.environ.get(\"ENV\") == \"test\"\n",
            &[],
        ),
        // A condition on the run's own folder counts in tests as well.
        (
            "tests/test_a.py",
            "def test_a():\n    if \"ci\" in __file__:\n        assert f()\n",
            &[(TestDetected, 2, "\"ci\" in __file__")],
        ),
    ];
    check(rows, false);
}

#[test]
fn conditions_that_read_the_runs_own_folder() {
    let rows: &[Row] = &[
        (
            "app.py",
            "import os\nwhile os.getcwd() != \"/\":\n    pass\n",
            &[(TestDetected, 2, "os.getcwd() != \"/\"")],
        ),
        (
            "app.py",
            "import tempfile\nif x:\n    pass\nelif tempfile.gettempdir():\n    pass\n",
            &[(TestDetected, 4, "tempfile.gettempdir()")],
        ),
        // Python's `a if cond else b`: only its condition.
        (
            "app.py",
            "X = 1 if \"red\" in __file__ else 2\n",
            &[(TestDetected, 1, "\"red\" in __file__")],
        ),
        ("app.py", "X = __file__ if y else 2\n", &[]),
        ("app.py", "X = 1 if y else __file__\n", &[]),
        // Read but not branched on.
        (
            "app.py",
            "import os\nHERE = os.getcwd()\nprint(__file__)\n",
            &[],
        ),
        (
            "app.py",
            "from pathlib import Path\nif Path.cwd().name == \"x\":\n    pass\n",
            &[(TestDetected, 2, "Path.cwd().name == \"x\"")],
        ),
        // JavaScript: if, ternary, for and while conditions; the probe's own line.
        (
            "src/a.js",
            "if (\n  __dirname.endsWith(\"x\")\n) { y(); }\n",
            &[(TestDetected, 2, "( __dirname.endsWith(\"x\") )")],
        ),
        (
            "src/a.js",
            "const a = process.cwd().length > 3 ? 1 : 2;\n",
            &[(TestDetected, 1, "process.cwd().length > 3")],
        ),
        (
            "src/a.js",
            "for (let i = 0; os.tmpdir().length > i; i++) { f(); }\n",
            &[(TestDetected, 1, "os.tmpdir().length > i")],
        ),
        (
            "src/a.mjs",
            "while (import.meta.url.endsWith(\"x\")) { f(); }\n",
            &[(TestDetected, 1, "(import.meta.url.endsWith(\"x\"))")],
        ),
        (
            "src/a.js",
            "const here = __filename;\nf(process.cwd());\n",
            &[],
        ),
        // Go: os.Getwd, os.TempDir, os.Executable, the program's name in an if; its own
        // arguments are not the run's.
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nfunc F() {\n\tif len(os.Args) > 1 {\n\t\tG()\n\t}\n}\n",
            &[],
        ),
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nfunc F() {\n\tif filepath.Base(os.Args[0]) == \"x\" {\n\t\tG()\n\t}\n}\n",
            &[(TestDetected, 6, "filepath.Base(os.Args[0]) == \"x\"")],
        ),
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nfunc F() {\n\tif os.TempDir() == \"/tmp\" {\n\t\tG()\n\t}\n}\n",
            &[(TestDetected, 6, "os.TempDir() == \"/tmp\"")],
        ),
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nfunc F() {\n\tdir := os.TempDir()\n\tG(dir)\n}\n",
            &[],
        ),
    ];
    check(rows, true);
}

#[test]
fn environment_switches_on_a_test_setting() {
    let rows: &[Row] = &[
        (
            "app.py",
            "import os\nX = os.environ.get(\"ENV\") == \"TESTING\"\n",
            &[(TestAware, 2, "os.environ.get(\"ENV\") == \"TESTING\"")],
        ),
        (
            "src/a.js",
            "const t = \"test\" === process.env.NODE_ENV;\n",
            &[(TestAware, 1, "\"test\" === process.env.NODE_ENV")],
        ),
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nvar T = os.Getenv(\"APP_ENV\") != \"test\"\n",
            &[(TestAware, 5, "os.Getenv(\"APP_ENV\") != \"test\"")],
        ),
        // Chosen on, directly or through a name: refused.
        (
            "src/a.js",
            "const { env } = process;\nconst quick = env.MODE === \"te\" + \"st\";\nwhile (quick) { break; }\n",
            &[
                (TestDetected, 3, "(quick)"),
                (TestAware, 2, "env.MODE === \"te\" + \"st\""),
            ],
        ),
        (
            "app.py",
            "import os\nif os.environ.get(\"APP_ENV\") == \"test\":\n    X = 2\n",
            &[(TestDetected, 2, "os.environ.get(\"APP_ENV\") == \"test\"")],
        ),
        // Not a test setting, not an environment value, or nothing but the word (beside an
        // environment read elsewhere, so that the file is parsed).
        (
            "app.py",
            "import os\nX = os.environ.get(\"ENV\") == \"prod\"\n",
            &[],
        ),
        (
            "app.py",
            "import os\nHOME = os.environ[\"HOME\"]\nX = mode == \"test\"\n",
            &[],
        ),
        (
            "app.py",
            "import os\nHOME = os.environ[\"HOME\"]\nX = \"test\" == \"testing\"\n",
            &[],
        ),
        ("app.py", "X = os.environ.get(\"ENV\") + \"test\"\n", &[]),
        // A runner probe and a switch on one line: both.
        (
            "app.py",
            "import os, sys\nX = \"pytest\" in sys.modules or os.getenv(\"ENV\") == \"test\"\n",
            &[
                (TestDetected, 2, "\"pytest\" in sys.modules"),
                (TestAware, 2, "os.getenv(\"ENV\") == \"test\""),
            ],
        ),
    ];
    check(rows, true);
}

#[test]
fn only_the_lines_the_goal_added_and_what_a_finding_shows() {
    let base = "import sys\nX = \"pytest\" in sys.modules\n";
    let last = "import sys\nX = \"pytest\" in sys.modules\nY = \"unittest\" in sys.modules\n";
    let mut out = Vec::new();
    test_detected::detected("app.py", Some(base), Some(last), true, &mut out).unwrap();
    let got: Vec<(usize, &str)> = out.iter().map(|f| (f.line, f.test.as_str())).collect();
    assert_eq!(got, [(3, "\"unittest\" in sys.modules")]);
    // Files no parser reads, deleted files and files without a trigger word find nothing.
    for (path, last) in [
        ("notes.txt", Some("\"pytest\" in sys.modules")),
        ("app.py", None),
        ("app.py", Some("X = 1 if y else 2\n")),
    ] {
        let mut out = Vec::new();
        test_detected::detected(path, None, last, true, &mut out).unwrap();
        assert_eq!(out, [], "{path}");
    }
    // The lines a new file adds are all of them, one for an empty file.
    assert_eq!(
        test_detected::added_lines(None, "a\nb\n"),
        BTreeSet::from([1, 2])
    );
    assert_eq!(test_detected::added_lines(None, ""), BTreeSet::from([1]));
    assert_eq!(
        test_detected::added_lines(Some("a\nb\n"), "a\nx\nb\n"),
        BTreeSet::from([2])
    );
    // Shown on one line, at most 60 characters.
    let cases = [
        ("a  b\n  c".to_string(), "a b c".to_string()),
        ("x".repeat(60), "x".repeat(60)),
        ("x".repeat(61), format!("{}…", "x".repeat(60))),
        ("é".repeat(61), format!("{}…", "é".repeat(60))),
    ];
    for (what, want) in cases {
        assert_eq!(test_detected::shorten(&what), want, "{what}");
    }
}

/// In tests, a condition on the host, the thread, the program's name or the run's folder is a
/// test whose assertion runs only somewhere; a runner's own signals are not (a test always runs
/// under its runner).
#[test]
fn tests_choosing_on_where_they_run() {
    let rows: &[Row] = &[
        (
            "tests/test_a.py",
            "import socket\n\ndef test_a():\n    if socket.gethostname() != \"ci\":\n        assert f()\n",
            &[(TestDetected, 4, "socket.gethostname() != \"ci\"")],
        ),
        (
            "tests/test_a.py",
            "import os\nHERE = os.getcwd()\n\ndef test_a():\n    if HERE.endswith(\"red\"):\n        return\n    assert f()\n",
            &[(TestDetected, 5, "HERE.endswith(\"red\")")],
        ),
        (
            "test/a.test.js",
            "const { hostname } = require('node:os');\ntest('a', () => {\n  if (hostname() === 'ci') assert.ok(f());\n});\n",
            &[(TestDetected, 3, "(hostname() === 'ci')")],
        ),
        (
            "tests/test_a.py",
            "import sys\n\ndef test_a():\n    if \"pytest\" in sys.modules:\n        assert f()\n",
            &[],
        ),
        // Go code compiled only under test that sets the package's own variables.
        (
            "calc_test.go",
            "package calc\n\nimport \"testing\"\n\nvar local = 1\n\nfunc init() {\n\taddImpl = func(a, b int) int { return a + b }\n\tlocal = 2\n\tx := 3\n\tx = 4\n\t_ = x\n}\n\nfunc TestAdd(t *testing.T) {}\n",
            &[(
                TestDetected,
                8,
                "addImpl = func(a, b int) int { return a + b }",
            )],
        ),
        (
            "calc_test.go",
            "package calc_test\n\nimport \"example.com/calc\"\n\nfunc init() {\n\tcalc.Strict = false\n}\n",
            &[(TestDetected, 6, "calc.Strict = false")],
        ),
    ];
    check(rows, false);
}

/// A conditional import of a module only a tests folder holds (pytest puts that folder on
/// `sys.path`): the goal's files under tests/ name the modules.
#[test]
fn a_conditional_import_of_a_module_the_tests_folder_holds() {
    let modules =
        test_detected::test_modules(["tests/_overrides.py", "src/app.py", "tests/test_a.py"]);
    assert_eq!(
        modules,
        ["_overrides", "tests._overrides", "test_a", "tests.test_a"]
    );
    let src = "def slug(t):\n    return t\n\ntry:\n    from _overrides import slug\nexcept ImportError:\n    pass\n";
    let mut out = Vec::new();
    test_detected::detected_beside("app.py", None, Some(src), true, &modules, &mut out).unwrap();
    let got: Vec<(usize, &str)> = out.iter().map(|f| (f.line, f.test.as_str())).collect();
    assert_eq!(got, [(5, "from _overrides import slug")]);
    // Without the tests folder's module, an optional dependency is no finding.
    let mut out = Vec::new();
    test_detected::detected_beside("app.py", None, Some(src), true, &[], &mut out).unwrap();
    assert_eq!(out, []);
}

/// A Rust file is read whatever words the other languages' look-first list holds: its own list
/// reaches every signal (a variable of libtest's, read with no `cfg` anywhere in the file).
#[test]
fn rust_files_are_read_by_their_own_first_look() {
    let src = "pub fn threads() -> usize {\n    if std::env::var_os(\"RUST_TEST_THREADS\").is_some() {\n        return 1;\n    }\n    4\n}\n";
    let found = detections("src/lib.rs", src, true);
    assert!(
        found.iter().any(|(k, l, _)| *k == TestDetected && *l == 2),
        "{found:?}"
    );
    assert!(detections("src/lib.rs", "pub fn four() -> u8 {\n    4\n}\n", true).is_empty());
}
