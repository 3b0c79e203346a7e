use super::*;

#[test]
fn source_code_is_known_by_its_extension() {
    let cases: &[(&str, bool)] = &[
        ("calc.py", true),
        ("src/lib.rs", true),
        ("web/a.test.tsx", true),
        ("data/expected.json", false),
        ("fixtures/golden.txt", false),
        ("Makefile", false),
        ("img/logo.png", false),
    ];
    for (path, want) in cases {
        assert_eq!(is_source(path), *want, "{path}");
    }
}

#[test]
fn a_path_is_named_by_a_string_literal() {
    // (text, path, named)
    let cases: &[(&str, &str, bool)] = &[
        (r#"open("data/expected.json")"#, "data/expected.json", true),
        (r#"open('data/expected.json')"#, "data/expected.json", true),
        (
            r#"read("../data/expected.json")"#,
            "data/expected.json",
            true,
        ),
        (
            r#"HERE / "fixtures/data/expected.json""#,
            "fixtures/data/expected.json",
            true,
        ),
        // A suffix of two components names it; one component does not.
        (
            r#"open("data/expected.json")"#,
            "tests/fixtures/data/expected.json",
            true,
        ),
        (
            r#"open("expected.json")"#,
            "tests/fixtures/data/expected.json",
            false,
        ),
        // A file at the root is named by its whole path.
        (r#"open("expected.json")"#, "expected.json", true),
        (
            r#"include_str!("../golden/out.txt")"#,
            "golden/out.txt",
            true,
        ),
        ("`data/expected.json`", "data/expected.json", true),
        // Not a literal of the path: more after it, or another folder before it.
        (
            r#"open("data/expected.json.bak")"#,
            "data/expected.json",
            false,
        ),
        (
            r#"open("mydata/expected.json")"#,
            "data/expected.json",
            false,
        ),
        ("# see data/expected.json", "data/expected.json", false),
        // Joined from its parts.
        (
            r#"os.ReadFile(filepath.Join("testdata", "cases.json"))"#,
            "testdata/cases.json",
            true,
        ),
        (
            r#"open(os.path.join(HERE, 'data', 'expected.json'))"#,
            "tests/data/expected.json",
            true,
        ),
        (
            r#"open(os.path.join("data", "other.json"))"#,
            "data/expected.json",
            false,
        ),
        (
            r#"x = "a b/data/expected.json""#,
            "data/expected.json",
            false,
        ),
    ];
    for (text, path, want) in cases {
        assert_eq!(names_path(text.as_bytes(), path), *want, "{text} / {path}");
    }
}

#[test]
fn python_modules_say_what_they_import_and_patch() {
    // (path, text, imports, framework, patches)
    let cases: &[(&str, &str, &[&str], bool, bool)] = &[
        (
            "helpers.py",
            "import calc\ncalc.add = lambda a, b: a + b\n",
            &["calc"],
            false,
            true,
        ),
        (
            "helpers.py",
            "import calc as c\nsetattr(c, 'add', None)\n",
            &["calc"],
            false,
            true,
        ),
        (
            "helpers.py",
            "from calc import Calc\nCalc.add = None\n",
            &["calc", "calc.Calc"],
            false,
            true,
        ),
        (
            "helpers.py",
            "from unittest import mock\n",
            &["unittest", "unittest.mock"],
            true,
            false,
        ),
        ("helpers.py", "import pytest\n", &["pytest"], true, false),
        (
            "tests/h.py",
            "from .util import x\n",
            &["tests.util", "tests.util.x"],
            false,
            false,
        ),
        (
            "tests/h.py",
            "from . import util\n",
            &["tests.", "tests.util"],
            false,
            false,
        ),
        // Rebinding a name, or setting an attribute of its own object, patches nothing.
        (
            "helpers.py",
            "import calc\ncalc = None\n",
            &["calc"],
            false,
            false,
        ),
        (
            "helpers.py",
            "import calc\nclass A:\n    def f(self):\n        self.x = 1\n",
            &["calc"],
            false,
            false,
        ),
        ("version.py", "VERSION = 2\n", &[], false, false),
    ];
    for (path, text, imports, framework, patches) in cases {
        let m = python_module(path, text).unwrap();
        assert_eq!(m.imports, *imports, "{text}");
        assert_eq!(m.framework, *framework, "{text}");
        assert_eq!(m.patches, *patches, "{text}");
    }
}

struct Files(Vec<(&'static str, &'static str)>);

/// (files, candidates, helpers found)
type Case = (
    Vec<(&'static str, &'static str)>,
    &'static [&'static str],
    &'static [&'static str],
);

impl PySource for Files {
    fn paths(&self) -> Vec<String> {
        self.0.iter().map(|(p, _)| p.to_string()).collect()
    }
    fn text(&mut self, path: &str) -> Option<String> {
        self.0
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.to_string())
    }
}

#[test]
fn helpers_are_what_only_the_tests_import_and_that_patch_or_test() {
    let patching = "import calc\ncalc.add = lambda a, b: a + b\n";
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    // (files, candidates, helpers found)
    let cases: &[Case] = &[
        // Imported by a test, patching: a helper.
        (
            vec![
                (
                    "tests/test_calc.py",
                    "import helpers\nfrom calc import add\n",
                ),
                ("helpers.py", patching),
                ("calc/__init__.py", "def add(a, b): return a - b\n"),
            ],
            &["helpers.py"],
            &["helpers.py"],
        ),
        // Reached through another module.
        (
            vec![
                ("tests/test_calc.py", "from support import setup\n"),
                ("support/__init__.py", "from support.patch import x\n"),
                ("support/patch.py", "import calc\ncalc.add = None\nx = 1\n"),
            ],
            &["support/__init__.py", "support/patch.py"],
            &["support/patch.py"],
        ),
        // A plain new module the tests import: code.
        (
            vec![
                ("tests/test_v.py", "import version\n"),
                ("version.py", "VERSION = 2\n"),
            ],
            &["version.py"],
            &[],
        ),
        // Imported by the code too: code.
        (
            vec![
                ("tests/test_calc.py", "import helpers\n"),
                ("helpers.py", patching),
                ("app.py", "import helpers\n"),
            ],
            &["helpers.py"],
            &[],
        ),
        // Imported by a module the code imports: code.
        (
            vec![
                ("tests/test_calc.py", "import helpers\nimport glue\n"),
                ("helpers.py", patching),
                ("glue.py", "import helpers\n"),
                ("app.py", "import glue\n"),
            ],
            &["helpers.py", "glue.py"],
            &[],
        ),
        // Not imported by the tests: code.
        (
            vec![
                ("tests/test_calc.py", "import calc\n"),
                ("helpers.py", patching),
            ],
            &["helpers.py"],
            &[],
        ),
        // A module using a mocking API that only the tests import.
        (
            vec![
                ("tests/test_calc.py", "from fakes import fake_clock\n"),
                (
                    "fakes.py",
                    "from unittest import mock\nfake_clock = mock.Mock()\n",
                ),
            ],
            &["fakes.py"],
            &["fakes.py"],
        ),
    ];
    for (files, candidates, want) in cases {
        let tests: BTreeSet<String> = files
            .iter()
            .filter(|(p, _)| p.starts_with("tests/"))
            .map(|(p, _)| p.to_string())
            .collect();
        let mut source = Files(files.clone());
        let found = test_helpers(&mut source, &tests, &set(candidates));
        assert_eq!(found, set(want), "{files:?}");
    }
}
