//! Tables of weakening findings outside the test functions: configuration that selects tests,
//! other languages' skip markers, unreadable files, imports redirected to other code, the kinds'
//! trailers, deleted files, and the findings in the tests a pin runs.

use super::FindingKind::*;
use super::tests::{PY, check};
use super::*;

#[test]
fn addopts_that_select_and_addopts_that_report() {
    // (addopts, whether it selects tests)
    let cases: &[(&str, bool)] = &[
        ("-ra -p no:cacheprovider", false),
        ("-q -v -rA --tb short --color=yes --strict-markers", false),
        (
            "-pno:cacheprovider -p no:randomly -W error -W ignore::DeprecationWarning",
            false,
        ),
        (
            "--junitxml out.xml --durations 5 -n 4 --cov src --cov-report term",
            false,
        ),
        (
            "--log-level INFO --basetemp tmp --capture no -s -l --showlocals",
            false,
        ),
        ("-k mul", true),
        ("-kmul", true),
        ("-m 'not slow'", true),
        ("--deselect tests/test_calc.py::test_add", true),
        ("--ignore=tests/test_calc.py", true),
        ("--ignore-glob '*_add.py'", true),
        ("tests/test_mul.py", true),
        ("-p myplugin", true),
        ("-p no:doctest", true),
        ("-p no:unittest", true),
        ("-x", true),
        ("--maxfail=1", true),
        ("--maxfail 1", true),
        ("-o python_files=test_mul.py", true),
        ("--override-ini=python_functions=check_*", true),
        ("--lf", true),
    ];
    for (value, selects) in cases {
        let chosen = super::selection::addopts_selection(value);
        assert_eq!(!chosen.is_empty(), *selects, "{value}: {chosen:?}");
    }
}

#[test]
fn what_addopts_choose_exactly() {
    // (addopts, the arguments that choose tests, sorted)
    let cases: &[(&str, &[&str])] = &[
        (
            "-q --tb short tests/b.py -k mul tests/a.py",
            &["-k mul", "tests/a.py", "tests/b.py"],
        ),
        ("-kmul --maxfail=2 --lf", &["--lf", "--maxfail 2", "-kmul"]),
        (
            "--deselect=tests/a.py::t -m 'not slow'",
            &["--deselect tests/a.py::t", "-m not slow"],
        ),
        (
            "-o python_files=x.py --override-ini=a=b",
            &["--override-ini a=b", "-o python_files=x.py"],
        ),
        (
            "-p no:cacheprovider -pmyplugin -p no:doctest",
            &["-p myplugin", "-p no:doctest"],
        ),
        ("-p", &["-p"]),
        ("-k", &["-k"]),
        (
            "--tb=short -x --color yes --exitfirst",
            &["--exitfirst", "-x"],
        ),
        ("-W error -n 4 -s -v --strict-markers", &[]),
        ("'-k mul", &["'-k", "mul"]),
        // A short flag's value attached, with `=` or without: the word as it is.
        ("-k=mul", &["-k=mul"]),
        ("-mslow -q", &["-mslow"]),
        ("-opython_files=x.py", &["-opython_files=x.py"]),
    ];
    for (value, want) in cases {
        assert_eq!(super::selection::addopts_selection(value), *want, "{value}");
    }
}

#[test]
fn configuration_by_kind_of_file() {
    check(&[
        (
            ".mocharc.json spec",
            ".mocharc.json",
            Some("{\n  \"spec\": \"test/**/*.js\"\n}\n"),
            Some("{\n  \"timeout\": 5,\n  \"spec\": \"test/mul.js\"\n}\n"),
            &[(SelectionChanged, 3, "spec")],
        ),
        (
            ".mocharc.json added with a grep",
            ".mocharc.json",
            None,
            Some("{\n  \"grep\": \"mul\"\n}\n"),
            &[(SelectionChanged, 2, "grep")],
        ),
        (
            "vitest.config.mts: include changed, exclude added, in TypeScript",
            "vitest.config.mts",
            Some("export default { test: { include: ['test/**'] } } as const;\n"),
            Some(
                "export default {\n  test: {\n    include: ['test/mul*'],\n    exclude: [],\n  },\n} as const;\n",
            ),
            &[
                (SelectionChanged, 3, "include"),
                (SelectionChanged, 4, "exclude"),
            ],
        ),
        (
            "jest.config.js: only a reporting key changed: nothing",
            "jest.config.js",
            Some("module.exports = { verbose: false };\n"),
            Some("module.exports = { verbose: true };\n"),
            &[],
        ),
        (
            "jest.config.json5, not read: nothing",
            "jest.config.json5",
            Some("{ testMatch: ['a'] }\n"),
            Some("{ testMatch: ['b'] }\n"),
            &[],
        ),
        (
            "setup.cfg [tool:pytest] and a tox environment's commands; flake8 is no selection",
            "setup.cfg",
            Some("[flake8]\nmax-line-length = 80\n\n[tool:pytest]\ntestpaths = tests\n"),
            Some(
                "[flake8]\nmax-line-length = 99\n\n[tool:pytest]\ntestpaths =\n    tests/mul\n\n[testenv:py]\ncommands = pytest -x\n",
            ),
            &[
                (SelectionChanged, 5, "tool:pytest.testpaths"),
                (SelectionChanged, 9, "testenv:py.commands"),
            ],
        ),
        (
            "pytest.ini: addopts with reporting options only, removed: nothing",
            "pytest.ini",
            Some("[pytest]\naddopts = -q --tb short\n"),
            Some("[pytest]\n"),
            &[],
        ),
        (
            ".cargo/config alias removed, another kept",
            ".cargo/config",
            Some("[alias]\nt = \"test -- --skip add\"\nb = \"build\"\n"),
            Some("[alias]\nb = \"build\"\n"),
            &[(SelectionChanged, 2, "alias.t")],
        ),
        (
            "pyproject.toml [tool.pytest] testpaths as an array, one path changed",
            "pyproject.toml",
            Some("[tool.pytest]\ntestpaths = [\"tests\", \"more\"]\n"),
            Some("[tool.pytest]\ntestpaths = [\"tests\", \"other\"]\n"),
            &[(SelectionChanged, 2, "tool.pytest.testpaths")],
        ),
        (
            "Cargo.toml autotests and doctest",
            "Cargo.toml",
            Some("[package]\nname = \"c\"\n"),
            Some("[package]\nname = \"c\"\nautotests = false\n\n[lib]\ndoctest = false\n"),
            &[
                (SelectionChanged, 3, "package.autotests"),
                (SelectionChanged, 6, "lib.doctest"),
            ],
        ),
    ]);
}

#[test]
fn unparsable_configuration_is_listed_with_its_reason() {
    // (path, last, the reason's start)
    let cases: &[(&str, &str, &str)] = &[
        ("pyproject.toml", "[tool.pytest\n", "not valid TOML: "),
        ("Cargo.toml", "[lib\n", "not valid TOML: "),
        (".cargo/config.toml", "[alias\n", "not valid TOML: "),
        ("package.json", "{\n", "not valid JSON: "),
        (".mocharc.json", "{\n", "not valid JSON: "),
        (".mocharc.yml", "spec: [\n", "not valid YAML: "),
    ];
    for (path, last, reason) in cases {
        let change = FileChange {
            path: path.to_string(),
            base: None,
            last: Some(last.to_string()),
        };
        let report = findings(&Surface::default_rules(), &[change]);
        assert_eq!(report.findings, vec![], "{path}");
        assert_eq!(report.unreadable.len(), 1, "{path}");
        assert!(
            report.unreadable[0].reason.starts_with(reason),
            "{path}: {:?}",
            report.unreadable
        );
    }
}

#[test]
fn configuration() {
    check(&[
        (
            "trick 4: addopts = \"-k mul\" in pyproject.toml",
            "pyproject.toml",
            Some("[project]\nname = \"calc\"\n"),
            Some("[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\naddopts = \"-k mul\"\n"),
            &[(SelectionChanged, 5, "tool.pytest.ini_options.addopts")],
        ),
        (
            "addopts that only change output are no selection change",
            "pyproject.toml",
            Some("[tool.pytest.ini_options]\naddopts = \"-q\"\n"),
            Some("[tool.pytest.ini_options]\naddopts = \"-q -rA --tb=short\"\n"),
            &[],
        ),
        (
            "an honest fix's report options, in a new addopts: no selection change",
            "pyproject.toml",
            Some("[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\n"),
            Some(
                "[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\npythonpath = [\".\"]\naddopts = \"-ra -p no:cacheprovider\"\n",
            ),
            &[],
        ),
        (
            "pytest.ini --deselect, testpaths",
            "pytest.ini",
            Some("[pytest]\naddopts = -q\n"),
            Some(
                "[pytest]\naddopts = -q --deselect tests/test_calc.py::test_add\ntestpaths = tests/other\n",
            ),
            &[
                (SelectionChanged, 2, "pytest.addopts"),
                (SelectionChanged, 3, "pytest.testpaths"),
            ],
        ),
        (
            "tox.ini commands",
            "tox.ini",
            Some("[testenv]\ncommands = pytest\n"),
            Some("[testenv]\ncommands = pytest -m 'not slow'\n"),
            &[(SelectionChanged, 2, "testenv.commands")],
        ),
        (
            "Cargo [[test]] harness, [lib] test",
            "Cargo.toml",
            Some("[package]\nname = \"c\"\n\n[[test]]\nname = \"main\"\n"),
            Some(
                "[package]\nname = \"c\"\n\n[lib]\ntest = false\n\n[[test]]\nname = \"main\"\nharness = false\n",
            ),
            &[
                (SelectionChanged, 5, "lib.test"),
                (SelectionChanged, 7, "test"),
            ],
        ),
        (
            "Cargo dependencies changed: no selection change",
            "Cargo.toml",
            Some("[package]\nname = \"c\"\n"),
            Some("[package]\nname = \"c\"\n\n[dependencies]\nserde = \"1\"\n"),
            &[],
        ),
        (
            "a Makefile test target changed, another target not",
            "Makefile",
            Some("build:\n\tcargo build\n\ntest:\n\tpytest\n"),
            Some("build:\n\tcargo build --release\n\ntest:\n\tpytest -k mul\n"),
            &[(SelectionChanged, 4, "test")],
        ),
        (
            ".mocharc.yml grep",
            ".mocharc.yml",
            Some("spec: test/**/*.js\n"),
            Some("spec: test/**/*.js\ngrep: mul\n"),
            &[(SelectionChanged, 2, "grep")],
        ),
        (
            ".cargo/config.toml test alias",
            ".cargo/config.toml",
            Some("[alias]\nt = \"test\"\n"),
            Some("[alias]\nt = \"test -- --skip add\"\n"),
            &[(SelectionChanged, 2, "alias.t")],
        ),
    ]);
}

#[test]
fn java_and_csharp_skip_markers() {
    check(&[
        (
            "JUnit 5 @Disabled on a method",
            "src/test/java/CalcTest.java",
            Some(
                "class CalcTest {\n    @Test\n    void adds() {\n        assertEquals(4, add(2, 2));\n    }\n}\n",
            ),
            Some(
                "class CalcTest {\n    @Test\n    @Disabled(\"later\")\n    void adds() {\n        assertEquals(4, add(2, 2));\n    }\n}\n",
            ),
            &[(SkipAdded, 3, "adds")],
        ),
        (
            "JUnit 4 @Ignore on the class",
            "CalcTest.java",
            Some("public class CalcTest {\n}\n"),
            Some("@org.junit.Ignore\npublic class CalcTest {\n}\n"),
            &[(SkipAdded, 1, "CalcTest")],
        ),
        (
            "NUnit [Ignore], xUnit [Fact(Skip = …)]",
            "Calc.Tests/CalcTests.cs",
            Some(
                "public class CalcTests {\n    [Test]\n    public void Adds() {}\n    [Fact]\n    public void Subs() {}\n}\n",
            ),
            Some(
                "public class CalcTests {\n    [Test, Ignore(\"x\")]\n    public void Adds() {}\n    [Fact(Skip = \"x\")]\n    public void Subs() {}\n}\n",
            ),
            &[(SkipAdded, 2, "Adds"), (SkipAdded, 4, "Subs")],
        ),
        (
            "an [Ignore] that was there already",
            "CalcTests.cs",
            Some("[Ignore]\npublic void A() {}\n"),
            Some("[Ignore]\npublic void A() { }\n"),
            &[],
        ),
    ]);
}

#[test]
fn unparsable_files_are_listed_not_guessed() {
    let change = FileChange {
        path: "tests/test_calc.py".to_string(),
        base: Some(PY.to_string()),
        last: Some("def test_add(:\n".to_string()),
    };
    let report = findings(&Surface::default_rules(), &[change]);
    assert_eq!(report.findings, vec![]);
    assert_eq!(report.unreadable.len(), 1);
    assert!(
        report.unreadable[0].reason.contains("line 1"),
        "{:?}",
        report.unreadable
    );
}

#[test]
fn imports_redirected_to_other_code() {
    let rs = "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";
    let rs_named = rs.replace("use super::*;", "use super::add;");
    let js = "const { add } = require('../src/calc');\n\ntest('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
    let mjs = "import { add } from './calc.js';\n\ntest('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
    check(&[
        (
            "Python: the name now from a stub module",
            "tests/test_calc.py",
            Some(PY),
            Some(&PY.replace(
                "from calc import add, mul",
                "from calc import mul\nfrom calc_impl import add",
            )),
            &[(ImportRedirected, 2, "add")],
        ),
        (
            "Python: another name under the old one",
            "tests/test_calc.py",
            Some(PY),
            Some(&PY.replace("import add, mul", "import add_v2 as add, mul")),
            &[(ImportRedirected, 1, "add")],
        ),
        (
            "Python: a module under the old module's name, inside a test",
            "tests/test_calc.py",
            Some("def test_add():\n    import calc\n    assert calc.add(2, 2) == 4\n"),
            Some("def test_add():\n    import calc_impl as calc\n    assert calc.add(2, 2) == 4\n"),
            &[(ImportRedirected, 2, "calc")],
        ),
        (
            "Python: more names, the same sources, a relative import made absolute: nothing",
            "tests/test_calc.py",
            Some(
                "from .helpers import add\nimport calc\n\ndef test_add():\n    assert add(2, 2) == 4\n",
            ),
            Some(
                "import pytest\nimport calc\nfrom tests.helpers import add\nfrom calc import mul\n\ndef test_add():\n    assert add(2, 2) == 4\n",
            ),
            &[],
        ),
        (
            "Rust: `use super::add_v2 as add;` over the glob import of the code's add",
            "src/lib.rs",
            Some(rs),
            Some(&rs.replace(
                "    use super::*;\n",
                "    use super::*;\n    use super::add_v2 as add;\n",
            )),
            &[(ImportRedirected, 6, "tests::add")],
        ),
        (
            "Rust: a named import pointed elsewhere",
            "src/lib.rs",
            Some(&rs_named),
            Some(&rs_named.replace("use super::add;", "use crate::fast::add;")),
            &[(ImportRedirected, 5, "tests::add")],
        ),
        (
            "Rust: new imports of other names, or of the same item: nothing",
            "src/lib.rs",
            Some(rs),
            Some(&rs.replace(
                "    use super::*;\n",
                "    use super::*;\n    use super::add;\n    use std::collections::HashMap;\n",
            )),
            &[],
        ),
        (
            "Rust: an integration test's import pointed elsewhere",
            "tests/it.rs",
            Some("use calc::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n"),
            Some(
                "use calc::add_v2 as add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n",
            ),
            &[(ImportRedirected, 1, "add")],
        ),
        (
            "JavaScript: require of another module",
            "test/calc.test.js",
            Some(js),
            Some(&js.replace("'../src/calc'", "'../src/calc_v2'")),
            &[(ImportRedirected, 1, "add")],
        ),
        (
            "JavaScript: another export under the old name",
            "test/calc.test.mjs",
            Some(mjs),
            Some(&mjs.replace("{ add }", "{ addFast as add }")),
            &[(ImportRedirected, 1, "add")],
        ),
        (
            "JavaScript: the same module spelled otherwise, require to import: nothing",
            "test/calc.test.mjs",
            Some(&mjs.replace("./calc.js", "../test/calc")),
            Some(&mjs.replace("{ add }", "{ add, mul }")),
            &[],
        ),
    ]);
}

#[test]
fn a_new_test_file_importing_a_name_from_elsewhere_than_the_base_tests() {
    let change = FileChange {
        path: "tests/test_add_fixed.py".to_string(),
        base: None,
        last: Some(
            "from calc_impl import add\n\n\ndef test_add_fixed():\n    assert add(2, 2) == 4\n"
                .to_string(),
        ),
    };
    // (what the base's other test files import `add` from, findings)
    let cases: &[(&[&str], usize)] = &[(&["calc.add"], 1), (&["calc_impl.add"], 0), (&[], 0)];
    for (sources, want) in cases {
        let mut asked = Vec::new();
        let found = findings_with(
            &Surface::default_rules(),
            std::slice::from_ref(&change),
            &mut |family, name| {
                asked.push((family, name.to_string()));
                sources.iter().map(|s| s.to_string()).collect()
            },
        );
        let kinds: Vec<(FindingKind, usize, &str)> = found
            .findings
            .iter()
            .map(|f| (f.kind, f.line, f.test.as_str()))
            .collect();
        let expected: Vec<(FindingKind, usize, &str)> =
            (0..*want).map(|_| (ImportRedirected, 1, "add")).collect();
        assert_eq!(kinds, expected, "{sources:?}");
        assert_eq!(asked, vec![(imports::Family::Python, "add".to_string())]);
    }
}

#[test]
fn kinds_trailers_and_refusals() {
    let cases: &[(FindingKind, &str, bool)] = &[
        // The findings on the tests' text refuse once a run confirms them: on their own, only
        // code that detects its tests does, and an assertion-free test until a red run shows it.
        (TestRemoved, "test-removed", false),
        (SkipAdded, "skip-added", false),
        (AssertionRemoved, "assertion-removed", false),
        (AssertionWeakened, "assertion-weakened", false),
        (SelectionChanged, "selection-changed", false),
        (AssertionFree, "assertion-free", true),
        (ImportRedirected, "import-redirected", false),
        (TestRenamed, "test-renamed", false),
        (AssertionChanged, "assertion-changed", false),
        (TestDetected, "test-detected", true),
        (TestAware, "test-aware", false),
    ];
    for (kind, name, refuses) in cases {
        assert_eq!(kind.as_str(), *name);
        assert_eq!(serde_json::to_value(kind).unwrap(), serde_json::json!(name));
        assert_eq!(kind.refuses(), *refuses, "{name}");
    }
    let f = Finding {
        kind: SkipAdded,
        file: "tests/test_calc.py".to_string(),
        line: 4,
        test: "test_add".to_string(),
    };
    assert_eq!(
        f.trailer_value(),
        "skip-added tests/test_calc.py:4 test_add"
    );
}

#[test]
fn deleted_files_without_a_parser() {
    check(&[
        (
            "a deleted Ruby spec",
            "spec/calc_spec.rb",
            Some("describe 'x' do\nend\n"),
            None,
            &[(TestRemoved, 1, "*")],
        ),
        (
            "a deleted fixture",
            "tests/fixtures/data.json",
            Some("{}\n"),
            None,
            &[],
        ),
        (
            "a changed fixture",
            "tests/fixtures/data.json",
            Some("{}\n"),
            Some("[]\n"),
            &[],
        ),
    ]);
}

#[test]
fn findings_in_the_tests_a_pin_runs() {
    let f = |kind, file: &str, test: &str| Finding {
        kind,
        file: file.to_string(),
        line: 1,
        test: test.to_string(),
    };
    let cases: &[(&str, Finding, bool)] = &[
        (
            "pytest -q tests/test_calc.py",
            f(SkipAdded, "tests/test_calc.py", "test_add"),
            true,
        ),
        (
            "pytest -q tests/test_calc.py",
            f(SkipAdded, "tests/test_other.py", "test_x"),
            false,
        ),
        (
            "pytest -q tests/",
            f(SkipAdded, "tests/sub/test_x.py", "test_x"),
            true,
        ),
        (
            "pytest tests/test_calc.py::test_add",
            f(TestRemoved, "tests/test_calc.py", "test_add"),
            true,
        ),
        (
            "pytest -q",
            f(AssertionFree, "tests/test_new.py", "test_new"),
            true,
        ),
        (
            "pytest -k add",
            f(AssertionFree, "tests/test_new.py", "test_new"),
            true,
        ),
        (
            "python3 -m pytest -q tests/test_calc.py",
            f(SelectionChanged, "pyproject.toml", "addopts"),
            true,
        ),
        (
            "go test ./...",
            f(SkipAdded, "pkg/calc/calc_test.go", "TestAdd"),
            true,
        ),
        (
            "go test ./pkg/calc/...",
            f(SkipAdded, "pkg/other/x_test.go", "TestX"),
            false,
        ),
        (
            "node --test test/calc.test.mjs",
            f(SkipAdded, "test/calc.test.mjs", "adds"),
            true,
        ),
        (
            "npx jest src/a.test.ts",
            f(SkipAdded, "src/b.test.ts", "b"),
            false,
        ),
        (
            "cargo test",
            f(SkipAdded, "src/lib.rs", "tests::adds"),
            true,
        ),
        (
            "cargo test adds",
            f(SkipAdded, "src/lib.rs", "tests::adds"),
            true,
        ),
        (
            "cargo test adds",
            f(SkipAdded, "src/lib.rs", "tests::subs"),
            false,
        ),
        (
            "cargo test -p calc surface::rust",
            f(SkipAdded, "src/surface/rust.rs", "tests::x"),
            true,
        ),
        (
            "cargo test --locked surface::rust -- --nocapture",
            f(SkipAdded, "src/surface/red.rs", "tests::x"),
            false,
        ),
        (
            "make test",
            f(SkipAdded, "tests/test_calc.py", "test_add"),
            true,
        ),
    ];
    for (pin, finding, want) in cases {
        assert_eq!(
            pin_runs(pin, finding),
            *want,
            "{pin} / {}",
            finding.trailer_value()
        );
    }
}

#[test]
fn makefile_test_rules_changed_added_kept_and_removed() {
    let base = "test:\n\tpytest -q\n\ntest-slow:\n\tpytest -m slow\n\nbuild:\n\tcc a.c\n";
    let last = "test:\n\tpytest -q\n\ntest-fast:\n\tpytest -m 'not slow'\n\nbuild:\n\tcc b.c\n";
    check(&[
        (
            "a rule removed, one added, one kept",
            "Makefile",
            Some(base),
            Some(last),
            &[
                (SelectionChanged, 4, "test-fast"),
                (SelectionChanged, 4, "test-slow"),
            ],
        ),
        (
            "a rule added to none",
            "Makefile",
            None,
            Some(last),
            &[
                (SelectionChanged, 1, "test"),
                (SelectionChanged, 4, "test-fast"),
            ],
        ),
    ]);
}

#[test]
fn ini_values_and_json_documents() {
    let ini =
        super::selection::ini("[pytest]\n# addopts = -k x\n; old = y\n\naddopts = -q\n  -k mul\n");
    let got: Vec<(&str, &str)> = ini.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    // Comments and blank lines skipped, a continuation line joined.
    assert_eq!(got, [("pytest.addopts", "-q -k mul")]);
    use super::selection::json_doc;
    assert_eq!(json_doc(None), Ok(serde_json::Value::Null));
    assert_eq!(json_doc(Some("  \n")), Ok(serde_json::Value::Null));
    assert_eq!(json_doc(Some("{}")), Ok(serde_json::json!({})));
    assert!(
        json_doc(Some("{"))
            .unwrap_err()
            .starts_with("not valid JSON")
    );
}

#[test]
fn a_conftest_that_changes_what_is_collected() {
    let hook = "import pytest\n\n@pytest.hookimpl\ndef pytest_collection_modifyitems(items):\n    items.clear()\n";
    let cases: &[(&str, &str, &str)] = &[
        (
            "an ignore list grown",
            "collect_ignore = [\"a.py\"]\n",
            "collect_ignore = [\"a.py\", \"b.py\"]\n",
        ),
        ("a hook added", "", hook),
        ("a hook removed", hook, ""),
        (
            "an ignore list added to",
            "collect_ignore = []\n",
            "collect_ignore = []\ncollect_ignore += [\"x.py\"]\n",
        ),
        (
            "a hook kept, other code changed",
            "def pytest_runtest_setup(item):\n    pass\n\nX = 1\n",
            "def pytest_runtest_setup(item):\n    pass\n\nX = 2\n",
        ),
        (
            "a helper changed",
            "def helper():\n    return 1\n",
            "def helper():\n    return 2\n",
        ),
    ];
    let changed = |line: usize, name: &str| vec![(SelectionChanged, line, name.to_string())];
    let want = [
        changed(1, "collect_ignore"),
        changed(3, "pytest_collection_modifyitems"),
        changed(3, "pytest_collection_modifyitems"),
        changed(1, "collect_ignore"),
        vec![],
        vec![],
    ];
    for ((what, base, last), want) in cases.iter().zip(want) {
        assert_eq!(
            super::tests::found("tests/conftest.py", Some(base), Some(last)),
            want,
            "{what}"
        );
    }
}

#[test]
fn ini_keys_that_choose_tests() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "pytest.ini",
            "[pytest]\naddopts = -q\njunit_family = xunit1\n",
            "[pytest]\naddopts = -q -k mul\njunit_family = xunit2\n",
        ),
        (
            "tox.ini",
            "[testenv]\ndeps = pytest\ncommands = pytest\n",
            "[testenv]\ndeps = pytest==8\ncommands = pytest -k fast\n",
        ),
        (
            "setup.cfg",
            "[tool:pytest]\naddopts = -q\ntestpaths = tests\n",
            "[tool:pytest]\naddopts = -q -x\ntestpaths = tests/unit\n",
        ),
    ];
    let s = |line: usize, key: &str| (SelectionChanged, line, key.to_string());
    // junit_family and deps choose nothing; two keys changed are each named.
    let want = [
        vec![s(2, "pytest.addopts")],
        vec![s(3, "testenv.commands")],
        vec![s(2, "tool:pytest.addopts"), s(3, "tool:pytest.testpaths")],
    ];
    for ((path, base, last), want) in cases.iter().zip(want) {
        assert_eq!(
            super::tests::found(path, Some(base), Some(last)),
            want,
            "{path}"
        );
    }
}
