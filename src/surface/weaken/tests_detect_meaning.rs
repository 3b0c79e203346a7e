//! Tables of signals followed through names, per language (aliases, imported names, constant
//! look-ups, joined strings), and the reads that only write a message or serve another purpose.

use super::tests_detect::{Row, check, detections};
use super::*;

use FindingKind::{TestAware, TestDetected};

/// Python, by category: modules a runner loads (through aliases, imported names, constant
/// look-ups and folded strings), variables it sets, process state it changes, the stack, code
/// loaded only under test, and functions and names that carry a signal to where it chooses.
#[test]
fn python_signals_followed_through_names() {
    let rows: &[Row] = &[
        (
            "app.py",
            "import sys as _s\nX = _s.modules.get(\"_pytest\")\n",
            &[(TestDetected, 2, "_s.modules.get(\"_pytest\")")],
        ),
        (
            "app.py",
            "from sys import modules as M\nK = \"\".join([\"_py\", \"test\"])\ndef f():\n    return K in M\n",
            &[(TestDetected, 4, "K in M")],
        ),
        (
            "app.py",
            "import sys\nname = getattr(sys, \"modules\")\nif \"pytest\" in name:\n    x = 1\n",
            &[(TestDetected, 3, "\"pytest\" in name")],
        ),
        (
            "app.py",
            "import importlib.util\nif importlib.util.find_spec(\"pytest\"):\n    x = 1\n",
            &[(TestDetected, 2, "importlib.util.find_spec(\"pytest\")")],
        ),
        // A module-level flag read by a later condition: both lines.
        (
            "app.py",
            "import sys\n_T = \"_pytest.main\" in sys.modules\n\ndef add(a, b):\n    if _T:\n        return a + b\n    return a - b\n",
            &[
                (TestDetected, 2, "\"_pytest.main\" in sys.modules"),
                (TestDetected, 5, "_T"),
            ],
        ),
        // Strings joined, formatted or reversed.
        (
            "app.py",
            "import sys\nmode = \"%s%s\" % (\"py\", \"test\")\nif mode in sys.modules:\n    x = 1\n",
            &[(TestDetected, 3, "mode in sys.modules")],
        ),
        (
            "app.py",
            "import sys\nmode = \"{}{}\".format(\"py\", \"test\")\nif mode in sys.modules:\n    x = 1\n",
            &[(TestDetected, 3, "mode in sys.modules")],
        ),
        (
            "app.py",
            "import sys\nmode = \"tsetyp\"[::-1]\nif mode in sys.modules:\n    x = 1\n",
            &[(TestDetected, 3, "mode in sys.modules")],
        ),
        // Variables a runner sets, through any access to the environment.
        (
            "app.py",
            "import os\nE = os.environ\nk = \"PYTEST_\" + \"CURRENT_TEST\"\nif E.get(k):\n    x = 1\n",
            &[
                (TestDetected, 3, "k = \"PYTEST_\" + \"CURRENT_TEST\""),
                (TestDetected, 4, "E.get(k)"),
            ],
        ),
        (
            "app.py",
            "import os\nif f\"{'PYTEST'}_VERSION\" in os.environ:\n    x = 1\n",
            &[(TestDetected, 2, "f\"{'PYTEST'}_VERSION\" in os.environ")],
        ),
        (
            "app.py",
            "from os import environ as E\nif any(k.startswith(\"PYTEST_\") for k in E):\n    x = 1\n",
            &[(TestDetected, 2, "k.startswith(\"PYTEST_\")")],
        ),
        // What goal itself sets in the runs it makes.
        (
            "app.py",
            "import os\nG = os.environ.get(\"GOAL_RUN\")\n",
            &[(TestDetected, 2, "os.environ.get(\"GOAL_RUN\")")],
        ),
        // Process state a runner changes.
        (
            "app.py",
            "import faulthandler\ndef add(a, b):\n    if faulthandler.is_enabled():\n        return a + b\n    return a - b\n",
            &[(TestDetected, 3, "faulthandler.is_enabled()")],
        ),
        (
            "app.py",
            "import sys\ndef add(a, b):\n    if type(sys.stdout).__name__ != \"TextIOWrapper\":\n        return a + b\n    return a - b\n",
            &[(
                TestDetected,
                3,
                "type(sys.stdout).__name__ != \"TextIOWrapper\"",
            )],
        ),
        (
            "app.py",
            "import sys\nout = sys.stdout.__class__\nwhile out is not None:\n    break\n",
            &[(TestDetected, 3, "out is not None")],
        ),
        (
            "app.py",
            "import sys\nif sys.gettrace() is not None:\n    x = 1\n",
            &[(TestDetected, 2, "sys.gettrace() is not None")],
        ),
        (
            "app.py",
            "import warnings\nX = len(warnings.filters)\nif warnings.filters:\n    y = 1\n",
            &[(TestDetected, 3, "warnings.filters")],
        ),
        // The stack, through a function whose value is the signal.
        (
            "app.py",
            "import inspect\ndef _under_test():\n    return any(\"pytest\" in f.filename for f in inspect.stack())\n\ndef add(a, b):\n    if _under_test():\n        return a + b\n    return a - b\n",
            &[
                (TestDetected, 3, "\"pytest\" in f.filename"),
                (TestDetected, 6, "_under_test()"),
            ],
        ),
        (
            "app.py",
            "import sys\nclass C:\n    def _frames(self):\n        return sys._getframe(1)\n    def add(self, a, b):\n        return a + b if self._frames() else a - b\n",
            &[(TestDetected, 6, "self._frames()")],
        ),
        // Code loaded only under test, chosen by a try or an if; the names the try assigns.
        (
            "app.py",
            "try:\n    from tests.fakes import add\nexcept ImportError:\n    def add(a, b):\n        return a - b\n",
            &[(TestDetected, 2, "from tests.fakes import add")],
        ),
        (
            "app.py",
            "try:\n    import pytest\n    HAVE = True\nexcept ImportError:\n    HAVE = False\nif HAVE:\n    x = 1\n",
            &[
                (TestDetected, 2, "import pytest"),
                (TestDetected, 6, "HAVE"),
            ],
        ),
        (
            "app.py",
            "import os\nif os.path.exists(\"x\"):\n    import conftest as c\n",
            &[(TestDetected, 3, "import conftest as c")],
        ),
        // A short-circuit that chooses whether a call runs.
        (
            "app.py",
            "import os\nos.environ.get(\"CI\") and patch()\n",
            &[(TestDetected, 2, "os.environ.get(\"CI\")")],
        ),
        // The host, the thread, the program's name chosen on.
        (
            "app.py",
            "import socket\nif socket.gethostname().startswith(\"ci-\"):\n    x = 1\n",
            &[(TestDetected, 2, "socket.gethostname().startswith(\"ci-\")")],
        ),
        (
            "app.py",
            "from platform import node\nh = node()\nif h == \"runner\":\n    x = 1\n",
            &[(TestDetected, 3, "h == \"runner\"")],
        ),
        (
            "app.py",
            "import threading\nif threading.current_thread().name != \"MainThread\":\n    x = 1\n",
            &[(
                TestDetected,
                2,
                "threading.current_thread().name != \"MainThread\"",
            )],
        ),
        (
            "app.py",
            "import os, sys\nprog = os.path.basename(sys.argv[0])\nif prog.endswith(\"pytest\"):\n    x = 1\n",
            &[(TestDetected, 3, "prog.endswith(\"pytest\")")],
        ),
        (
            "app.py",
            "import os, sys\nprog = os.path.basename(sys.argv[0])\nif prog == \"x\":\n    x = 1\n",
            &[(TestDetected, 3, "prog == \"x\"")],
        ),
        (
            "app.py",
            "import os\nmatch os.environ.get(\"PWD\"):\n    case \"/tmp\":\n        x = 1\n",
            &[(TestDetected, 2, "os.environ.get(\"PWD\")")],
        ),
        (
            "app.py",
            "import os\nif os.getenv(\"CI\"):\n    x = 1\n",
            &[(TestDetected, 2, "os.getenv(\"CI\")")],
        ),
    ];
    check(rows, true);
}

/// JavaScript and TypeScript, by category.
#[test]
fn javascript_signals_followed_through_names() {
    let rows: &[Row] = &[
        (
            "src/a.js",
            "const { env } = process;\nif (env.JEST_WORKER_ID) { x = 1; }\n",
            &[(TestDetected, 2, "env.JEST_WORKER_ID")],
        ),
        (
            "src/a.js",
            "const { env: E } = require(\"node:process\");\nconst k = `VITEST${\"\"}`;\nif (E[k]) { x = 1; }\n",
            &[
                (TestDetected, 2, "k = `VITEST${\"\"}`"),
                (TestDetected, 3, "(E[k])"),
            ],
        ),
        (
            "src/a.mjs",
            "import * as p from 'node:process';\nconst t = p.env['NODE_' + 'TEST_CONTEXT'];\nexport const add = (a, b) => t ? a + b : a - b;\n",
            &[
                (TestDetected, 2, "'NODE_' + 'TEST_CONTEXT'"),
                (TestDetected, 3, "t"),
            ],
        ),
        (
            "src/a.mjs",
            "import { env } from 'node:process';\nif (env.CI) { x = 1; }\n",
            &[(TestDetected, 2, "(env.CI)")],
        ),
        (
            "src/a.js",
            "let impl = sub;\nif (process.env.JEST_WORKER_ID) { impl = add; }\n",
            &[(TestDetected, 2, "process.env.JEST_WORKER_ID")],
        ),
        // Which module is the program: anything but the entry point's own check.
        (
            "src/a.js",
            "if (require.main !== module) { x = 1; }\n",
            &[(TestDetected, 1, "(require.main !== module)")],
        ),
        (
            "src/a.js",
            "const imported = module.parent != null;\nfunction add(a, b) { return imported ? a + b : a - b; }\n",
            &[(TestDetected, 2, "imported")],
        ),
        // The runners' globals, off the global object or by typeof.
        (
            "src/a.js",
            "function add(a, b) {\n  if (typeof globalThis.it === \"function\") return a + b;\n  return a - b;\n}\n",
            &[(TestDetected, 2, "globalThis.it")],
        ),
        (
            "src/a.js",
            "const g = globalThis;\nif (\"describe\" in g) { x = 1; }\n",
            &[(TestDetected, 2, "\"describe\" in g")],
        ),
        (
            "src/a.ts",
            "const underTest = (globalThis as any).vi !== undefined;\nexport function add(a: number, b: number) { return underTest ? a + b : a - b; }\n",
            &[
                (TestDetected, 1, "(globalThis as any).vi"),
                (TestDetected, 2, "underTest"),
            ],
        ),
        (
            "src/a.js",
            "if (typeof describe === \"function\") { x = 1; }\n",
            &[(TestDetected, 1, "typeof describe === \"function\"")],
        ),
        // The stack and the runtime's own flags.
        (
            "src/a.js",
            "function add(a, b) {\n  if (new Error().stack.includes(\"node:test\")) return a + b;\n  return a - b;\n}\n",
            &[(TestDetected, 2, "new Error().stack.includes(\"node:test\")")],
        ),
        (
            "src/a.js",
            "if (process.execArgv.some(a => a.startsWith(\"--test\"))) { x = 1; }\n",
            &[(TestDetected, 1, "a.startsWith(\"--test\")")],
        ),
        // Code loaded only under test.
        (
            "src/a.js",
            "const helpers = process.env.X ? require(\"../test/helpers\") : require(\"./helpers\");\n",
            &[(TestDetected, 1, "require(\"../test/helpers\")")],
        ),
        // The host chosen on.
        (
            "src/a.js",
            "const os = require(\"os\");\nconsole.log(os.hostname());\nif (os.hostname() === \"ci\") { x = 1; }\n",
            &[(TestDetected, 3, "(os.hostname() === \"ci\")")],
        ),
        (
            "src/a.js",
            "process.env.CI && patch();\n",
            &[(TestDetected, 1, "process.env.CI")],
        ),
    ];
    check(rows, true);
}

/// Go, by category.
#[test]
fn go_signals_followed_through_names() {
    let rows: &[Row] = &[
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nfunc Add(a, b int) int {\n\texe, _ := os.Executable()\n\tunder := strings.HasSuffix(exe, \".test\")\n\tif under {\n\t\treturn a + b\n\t}\n\treturn a - b\n}\n",
            &[
                (TestDetected, 7, "strings.HasSuffix(exe, \".test\")"),
                (TestDetected, 8, "under"),
            ],
        ),
        (
            "a.go",
            "package a\n\nimport \"runtime/debug\"\n\nfunc Add(a, b int) int {\n\tif bi, ok := debug.ReadBuildInfo(); ok && bi.Path != \"x\" {\n\t\treturn a + b\n\t}\n\treturn a - b\n}\n",
            &[(TestDetected, 6, "ok && bi.Path != \"x\"")],
        ),
        (
            "a.go",
            "package a\n\nimport (\n\t\"flag\"\n\tt \"testing\"\n)\n\nvar v = flag.Lookup(\"test.\" + \"v\")\nvar u = t.Testing()\n",
            &[
                (TestDetected, 8, "\"test.\" + \"v\""),
                (TestDetected, 9, "t.Testing()"),
            ],
        ),
        (
            "a.go",
            "package a\n\nimport (\n\t\"os\"\n\t\"strings\"\n)\n\nfunc F() bool {\n\tfor _, e := range os.Environ() {\n\t\tif strings.HasPrefix(e, \"PYTEST\" + \"_\") {\n\t\t\treturn true\n\t\t}\n\t}\n\treturn false\n}\n",
            &[(TestDetected, 10, "\"PYTEST\" + \"_\"")],
        ),
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nvar k = strings.Join([]string{\"GOAL\", \"RUN\"}, \"_\")\nvar _, set = os.LookupEnv(k)\n",
            &[(
                TestDetected,
                5,
                "strings.Join([]string{\"GOAL\", \"RUN\"}, \"_\")",
            )],
        ),
        (
            "a.go",
            "package a\n\nimport \"os\"\n\nfunc F() {\n\tfor _, a := range os.Args {\n\t\tif a == \"-test.v=true\" {\n\t\t\tG()\n\t\t}\n\t}\n}\n",
            &[(TestDetected, 7, "a == \"-test.v=true\"")],
        ),
        (
            "a.go",
            "package a\n\nimport (\n\t\"log\"\n\t\"os\"\n)\n\nfunc F() {\n\th, _ := os.Hostname()\n\tlog.Printf(\"on %s\", h)\n\tif h == \"ci\" {\n\t\tG()\n\t}\n}\n",
            &[(TestDetected, 11, "h == \"ci\"")],
        ),
        (
            "a.go",
            "package a\n\nimport \"runtime\"\n\nfunc F() {\n\t_, file, _, _ := runtime.Caller(1)\n\tswitch file {\n\tcase \"x\":\n\t\tG()\n\t}\n}\n",
            &[(TestDetected, 7, "file")],
        ),
    ];
    check(rows, true);
}

/// Signals only read into a message are shown (`test-aware`); the host, the thread or the
/// program's name and arguments read for another purpose are nothing.
#[test]
fn reads_for_a_message_or_another_purpose() {
    let rows: &[Row] = &[
        (
            "app.py",
            "import sys\nprint(\"pytest\" in sys.modules)\n",
            &[(TestAware, 2, "\"pytest\" in sys.modules")],
        ),
        (
            "app.py",
            "import inspect, logging\nlogging.info(\"caller %s\", inspect.stack()[1].function)\n",
            &[(TestAware, 2, "inspect.stack()")],
        ),
        (
            "app.py",
            "import os\nprint(f\"ci: {os.getenv('CI')}\")\n",
            &[(TestAware, 2, "os.getenv('CI')")],
        ),
        (
            "src/a.js",
            "console.log(`worker ${process.env.JEST_WORKER_ID}`);\n",
            &[(TestAware, 1, "process.env.JEST_WORKER_ID")],
        ),
        (
            "a.go",
            "package a\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc F() { fmt.Println(testing.Testing()) }\n",
            &[(TestAware, 8, "testing.Testing()")],
        ),
        // An honest CLI: its name for usage, its own arguments chosen on, the host logged.
        (
            "app.py",
            "import argparse, os, sys\np = argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]))\nargs = sys.argv[1:]\nif args and args[0] == \"add\":\n    run()\nif len(sys.argv) > 1:\n    run()\n",
            &[],
        ),
        (
            "app.py",
            "import logging, socket, threading\nlogging.info(\"on %s\", socket.gethostname())\nhost = socket.gethostname()\nname = threading.current_thread().name\n",
            &[],
        ),
        (
            "app.py",
            "import os\nHERE = os.path.dirname(os.path.abspath(__file__))\nDATA = os.path.join(HERE, \"data\")\nif __name__ == \"__main__\":\n    main()\n",
            &[],
        ),
        (
            "src/a.js",
            "const args = process.argv.slice(2);\nif (args[0] === \"add\") { run(); }\nconsole.log(process.argv[1]);\nswitch (args[1]) { case \"x\": run(); }\n",
            &[],
        ),
        (
            "src/a.js",
            "if (require.main === module) {\n  main(process.argv.slice(2));\n}\n",
            &[],
        ),
        (
            "src/a.mjs",
            "import { pathToFileURL } from 'node:url';\nif (import.meta.url === pathToFileURL(process.argv[1]).href) {\n  main();\n}\n",
            &[],
        ),
        (
            "app.py",
            "import argparse, os, sys\nparser = argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]))\nargs = parser.parse_args()\nif args.verbose:\n    run()\n",
            &[],
        ),
        (
            "src/a.js",
            "const os = require(\"os\");\nconsole.log(`on ${os.hostname()}`);\nconst jest = load();\nif (jest) { run(); }\n",
            &[],
        ),
        (
            "a.go",
            "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\targs := os.Args[1:]\n\tif len(args) > 0 && args[0] == \"add\" {\n\t\trun()\n\t}\n\tif len(os.Args) < 2 {\n\t\tfmt.Println(\"usage:\", os.Args[0])\n\t}\n}\n",
            &[],
        ),
        // Settings and platforms that are not the test run's.
        (
            "app.py",
            "import os, sys\nif os.environ.get(\"DEBUG\") or sys.platform == \"win32\":\n    x = 1\n",
            &[],
        ),
        (
            "src/a.js",
            "if (process.env.NODE_ENV === \"production\" || typeof window === \"undefined\") { x = 1; }\ntry { f(); } catch (err) { if (err.stack.includes(\"x\")) { y(); } }\n",
            &[],
        ),
        (
            "a.go",
            "package a\n\nimport (\n\t\"os\"\n\t\"runtime\"\n)\n\nfunc F() {\n\tif runtime.GOOS == \"windows\" || os.Getenv(\"DEBUG\") != \"\" {\n\t\tG()\n\t}\n}\n",
            &[],
        ),
        (
            "a.go",
            "package main\n\nimport (\n\t\"log\"\n\t\"os\"\n)\n\nfunc main() {\n\th, err := os.Hostname()\n\tif err != nil {\n\t\tlog.Fatal(err)\n\t}\n\tlog.Printf(\"on %s\", h)\n}\n",
            &[],
        ),
    ];
    check(rows, true);
}

/// Code that folds to nothing is read without a fault: a `fmt.Sprintf()` with no argument, an
/// assignment with no name on its left (a file being written, as an agent leaves it).
#[test]
fn malformed_go_is_read_without_a_fault() {
    for src in [
        "package app\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc F() {\n\tif os.Getenv(fmt.Sprintf()) != \"\" {\n\t\tpanic(1)\n\t}\n}\n",
        "package app\n\nimport \"os\"\n\nfunc F() {\n\t := os.Executable()\n\tif os.Getenv(\"X\") != \"\" {\n\t}\n}\n",
    ] {
        let mut out = Vec::new();
        let _ = test_detected::detected("app.go", None, Some(src), true, &mut out);
    }
}

/// A copy of the environment is the environment: its keys matched against a runner's prefix
/// choose what runs. A copy read for another purpose stays clean.
#[test]
fn a_copy_of_a_source_reads_what_the_source_reads() {
    let src = "import os\n\nENV = dict(os.environ)\n\n\ndef add(a, b):\n    if any(k.startswith(\"PYTEST\") for k in ENV):\n        return a + b\n    return a - b\n";
    let found = detections("calc.py", src, true);
    assert!(
        found.iter().any(|(k, l, _)| *k == TestDetected && *l == 7),
        "{found:?}"
    );
    let clean = "import os\n\nENV = dict(os.environ)\n\n\ndef home():\n    return ENV.get(\"HOME\", \"/\")\n";
    assert!(detections("calc.py", clean, true).is_empty());
}

/// A path the program resolves against its working directory, beside an input of its own, is
/// data it reads, not where it runs: values computed from it (a parser's whole state, in one
/// real project) choose what runs without telling a test run from another. The working
/// directory itself, read into a condition, still does.
#[test]
fn a_path_resolved_against_the_working_directory_is_data() {
    let src = "const path = require('path')\n\nfunction load(configPath) {\n  const resolved = path.resolve(process.cwd(), configPath)\n  const config = require(resolved)\n  if (config.strict) {\n    return 1\n  }\n  return 0\n}\n";
    assert!(detections("index.js", src, true).is_empty());
    let cwd = "function load() {\n  const here = process.cwd()\n  if (here.endsWith('test')) {\n    return 1\n  }\n  return 0\n}\n";
    assert!(
        detections("index.js", cwd, true)
            .iter()
            .any(|(k, l, _)| *k == TestDetected && *l == 3),
        "{:?}",
        detections("index.js", cwd, true)
    );
}
