//! Tables of the shapes real history holds: renames that follow the code, parametrised tables,
//! assertion helpers, `.only` with any name, code that detects its tests, and code that only
//! changed its comments.

#![allow(clippy::type_complexity)] // the tables are read row by row

use super::FindingKind::*;
use super::*;

/// A file's change (None: absent on that side).
fn change(path: &str, base: Option<&str>, last: Option<&str>) -> FileChange {
    FileChange {
        path: path.to_string(),
        base: base.map(str::to_string),
        last: last.map(str::to_string),
    }
}

/// The findings (kind, file, line, test) of test changes `tests` beside code changes `code`.
fn found(tests: &[FileChange], code: &[FileChange]) -> Vec<(FindingKind, String, usize, String)> {
    let report = findings_in(&Surface::default_rules(), tests, code, &mut |_, _| {
        BTreeSet::new()
    });
    assert_eq!(report.unreadable, vec![]);
    report
        .findings
        .into_iter()
        .map(|f| (f.kind, f.file, f.line, f.test))
        .collect()
}

fn kinds(tests: &[FileChange], code: &[FileChange]) -> Vec<(FindingKind, String)> {
    found(tests, code)
        .into_iter()
        .map(|(k, _, _, t)| (k, t))
        .collect()
}

fn want(list: &[(FindingKind, &str)]) -> Vec<(FindingKind, String)> {
    list.iter().map(|(k, t)| (*k, t.to_string())).collect()
}

const RS_CODE: &str = "pub fn eq_version(a: &str) -> bool {\n    a == \"1\"\n}\n";
const RS_CODE_RENAMED: &str = "pub fn exactly_version(a: &str) -> bool {\n    a == \"1\"\n}\n";

#[test]
fn a_test_renamed_with_the_api_it_tests() {
    let base_t =
        "#[test]\nfn eq_version_ok() {\n    // old\n    assert!(crate::eq_version(\"1\"));\n}\n";
    let last_t =
        "#[test]\nfn exactly_version_ok() {\n    assert!(crate::exactly_version(\"1\"));\n}\n";
    let code = [change("src/v.rs", Some(RS_CODE), Some(RS_CODE_RENAMED))];
    let tests = [change("tests/v.rs", Some(base_t), Some(last_t))];
    assert_eq!(
        kinds(&tests, &code),
        want(&[(TestRenamed, "eq_version_ok -> exactly_version_ok")])
    );
    // The same test with the code not renamed: the body differs, so it is removed.
    assert_eq!(kinds(&tests, &[]), want(&[(TestRemoved, "eq_version_ok")]));
    // Renamed and its assertion changed: removed (the new test is judged as new).
    let weaker = last_t.replace("assert!(crate", "assert!(!crate");
    assert_eq!(
        kinds(&[change("tests/v.rs", Some(base_t), Some(&weaker))], &code),
        want(&[(TestRemoved, "eq_version_ok")])
    );
    // Renamed and skipped: renamed, and the skip is a skip.
    let skipped = last_t.replace("#[test]\n", "#[test]\n#[ignore]\n");
    assert_eq!(
        kinds(&[change("tests/v.rs", Some(base_t), Some(&skipped))], &code),
        want(&[
            (SkipAdded, "exactly_version_ok"),
            (TestRenamed, "eq_version_ok -> exactly_version_ok"),
        ])
    );
}

#[test]
fn python_renames_pair_by_place_and_by_body() {
    let code_b = "def eq(a):\n    return a == 1\n\n\ndef other():\n    return 2\n";
    let code_l = "def exactly(a):\n    return a == 1\n\n\ndef other():\n    return 2\n";
    let renames = Renames::of(&[change("calc.py", Some(code_b), Some(code_l))]);
    assert_eq!(renames.0.get("exactly").map(String::as_str), Some("eq"));
    // By place, the body changed too.
    let code_l2 = "def exactly(a):\n    return a is 1\n\n\ndef other():\n    return 2\n";
    let renames = Renames::of(&[change("calc.py", Some(code_b), Some(code_l2))]);
    assert_eq!(renames.0.get("exactly").map(String::as_str), Some("eq"));
    let test_b = "from calc import eq\n\n\ndef test_eq():\n    assert eq(1)\n";
    let test_l = "from calc import exactly\n\n\ndef test_exactly():\n    assert exactly(1)\n";
    let code = [change("calc.py", Some(code_b), Some(code_l))];
    let out = kinds(
        &[change("tests/test_calc.py", Some(test_b), Some(test_l))],
        &code,
    );
    assert!(
        out.contains(&(TestRenamed, "test_eq -> test_exactly".into())),
        "{out:?}"
    );
    assert!(!out.iter().any(|(k, _)| *k == TestRemoved), "{out:?}");
}

#[test]
fn assertions_that_follow_a_renamed_field_are_changed_not_weakened() {
    let code_b = "pub struct V {\n    pub major: u32,\n}\n";
    let code_l = "pub struct V {\n    pub maj: u32,\n}\n";
    let code = [change("src/v.rs", Some(code_b), Some(code_l))];
    let base_t = "#[test]\nfn reads() {\n    let v = parse();\n    assert_eq!(v.major, 1);\n}\n";
    let last_t = "#[test]\nfn reads() {\n    let v = parse();\n    assert_eq!(v.maj, 1);\n}\n";
    let weak_t = "#[test]\nfn reads() {\n    let v = parse();\n    assert_eq!(v.maj, 2);\n}\n";
    let cases: &[(&str, &str, &[FileChange], &[(FindingKind, &str)])] = &[
        (
            "the field followed",
            last_t,
            &code,
            &[(AssertionChanged, "reads")],
        ),
        (
            "the expected value changed too",
            weak_t,
            &code,
            &[(AssertionWeakened, "reads")],
        ),
        (
            "no rename in the code",
            last_t,
            &[],
            &[(AssertionWeakened, "reads")],
        ),
    ];
    for (what, last, code, expect) in cases {
        let tests = [change("tests/v.rs", Some(base_t), Some(last))];
        assert_eq!(kinds(&tests, code), want(expect), "{what}");
    }
    // Python and Go the same way.
    let py_b = "class V:\n    def major(self):\n        return 1\n";
    let py_l = "class V:\n    def maj(self):\n        return 1\n";
    let t_b = "def test_v():\n    assert V().major() == 1\n";
    let t_l = "def test_v():\n    assert V().maj() == 1\n";
    assert_eq!(
        kinds(
            &[change("tests/test_v.py", Some(t_b), Some(t_l))],
            &[change("v.py", Some(py_b), Some(py_l))]
        ),
        want(&[(AssertionChanged, "test_v")])
    );
    let go_b = "package v\n\ntype V struct {\n\tMajor int\n}\n";
    let go_l = "package v\n\ntype V struct {\n\tMaj int\n}\n";
    let gt_b = "package v\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) {\n\tif parse().Major != 1 {\n\t\tt.Error(\"x\")\n\t}\n}\n";
    let gt_l = gt_b.replace("Major", "Maj");
    assert_eq!(
        kinds(
            &[change("v_test.go", Some(gt_b), Some(&gt_l))],
            &[change("v.go", Some(go_b), Some(go_l))]
        ),
        want(&[(AssertionChanged, "TestV")])
    );
}

#[test]
fn parametrised_tables_keep_their_case() {
    let py_b = "def test_add():\n    assert add(2, 2) == 4\n";
    let table = |rows: &str| {
        format!(
            "import pytest\n\n\n@pytest.mark.parametrize(\"a,b,expected\", [{rows}])\ndef test_add(a, b, expected):\n    assert add(a, b) == expected\n"
        )
    };
    let rs_b = "#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n";
    let rs_l = "#[test]\nfn adds() {\n    for (a, b, want) in [(2, 2, 4), (3, 3, 6)] {\n        assert_eq!(add(a, b), want);\n    }\n}\n";
    let rs_let = "#[test]\nfn adds() {\n    let cases = vec![(1, 1, 2), (2, 2, 4)];\n    for (a, b, want) in cases {\n        assert_eq!(add(a, b), want);\n    }\n}\n";
    let js_b = "test('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
    let js_l = "test.each([[2, 2, 4], [3, 3, 6]])('adds %i + %i', (a, b, want) => {\n  expect(add(a, b)).toBe(want);\n});\n";
    let js_lost = js_l.replace("[2, 2, 4]", "[2, 2, 5]");
    let go_b = "package c\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}\n}\n";
    let go_l = "package c\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tcases := []struct{ a, b, want int }{{2, 2, 4}, {a: 3, b: 3, want: 6}}\n\tfor _, tc := range cases {\n\t\tgot := Add(tc.a, tc.b)\n\t\tif got != tc.want {\n\t\t\tt.Errorf(\"got %d\", got)\n\t\t}\n\t}\n}\n";
    let go_lost = go_l.replace("{2, 2, 4}", "{2, 2, 5}");
    let cases: &[(&str, &str, &str, String, &[(FindingKind, &str)])] = &[
        ("pytest: the old case kept", "tests/test_c.py", py_b, table("(2, 2, 4), (3, 3, 6)"), &[]),
        ("pytest: one name", "tests/test_c.py", "def test_add():\n    assert add(2) == 4\n",
            "import pytest\n\n\n@pytest.mark.parametrize(\"a\", [1, 2])\ndef test_add(a):\n    assert add(a) == 4\n".into(), &[]),
        ("pytest: the old case lost", "tests/test_c.py", py_b, table("(2, 2, 5), (3, 3, 6)"), &[(AssertionWeakened, "test_add")]),
        ("pytest: the old case marked xfail", "tests/test_c.py", py_b,
            table("pytest.param(2, 2, 4, marks=pytest.mark.xfail), (3, 3, 6)"), &[(SkipAdded, "test_add")]),
        ("pytest: a new case skipped", "tests/test_c.py", py_b,
            table("(2, 2, 4), pytest.param(3, 3, 6, marks=pytest.mark.skip(reason='x'))"), &[(SkipAdded, "test_add")]),
        ("rust: a loop over a table", "tests/c.rs", rs_b, rs_l.into(), &[]),
        ("rust: a loop over a local table", "tests/c.rs", rs_b, rs_let.into(), &[]),
        ("rust: the old case lost", "tests/c.rs", rs_b, rs_l.replace("(2, 2, 4)", "(2, 2, 5)"), &[(AssertionWeakened, "adds")]),
        ("js: test.each renames the test", "c.test.js", js_b, js_l.into(), &[(TestRenamed, "adds -> adds %i + %i")]),
        ("js: test.each without the old case", "c.test.js", js_b, js_lost, &[(TestRemoved, "adds")]),
        ("go: a table-driven test", "c_test.go", go_b, go_l.into(), &[]),
        ("go: the old case lost", "c_test.go", go_b, go_lost, &[(AssertionWeakened, "TestAdd")]),
    ];
    for (what, path, base, last, expect) in cases {
        let tests = [change(path, Some(base), Some(last))];
        assert_eq!(kinds(&tests, &[]), want(expect), "{what}");
    }
}

#[test]
fn a_projects_own_assertion_helpers_are_assertions() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "unittest helper with literals",
            "tests/test_r.py",
            "class T:\n    def test_bold(self):\n        self.assertRenders(\"**a**\", \"<b>a</b>\")\n",
        ),
        (
            "go helper given t",
            "r_test.go",
            "package r\n\nimport \"testing\"\n\nfunc TestBold(t *testing.T) {\n\tcheck(t, \"**a**\", \"<b>a</b>\")\n}\n",
        ),
        (
            "js helper",
            "r.test.js",
            "test('bold', () => {\n  expectEqual(\"**a**\", \"<b>a</b>\");\n});\n",
        ),
        (
            "rust helper",
            "tests/r.rs",
            "#[test]\nfn bold() {\n    check(&\"**a**\", \"<b>a</b>\");\n}\n",
        ),
    ];
    for (what, path, last) in cases {
        assert_eq!(
            kinds(&[change(path, None, Some(last))], &[]),
            want(&[]),
            "{what}"
        );
    }
    // unittest's own assertions with literals stay constant checks.
    let constant = "class T:\n    def test_x(self):\n        self.assertEqual(1, 1)\n";
    assert_eq!(
        kinds(&[change("tests/test_r.py", None, Some(constant))], &[]),
        want(&[(AssertionFree, "T::test_x")])
    );
}

#[test]
fn only_and_skip_whatever_the_name_expression() {
    let cases: &[(&str, &str, &[(FindingKind, &str)])] = &[
        (
            "a template name",
            "for (const name of names) {\n  it.only(`case ${name}`, () => {\n    expect(f(name)).toBe(1);\n  });\n}\n",
            &[(SkipAdded, "case ${name}")],
        ),
        (
            "a variable name in a loop",
            "for (const c of table) {\n  test.only(c.name, () => {\n    expect(f(c)).toBe(1);\n  });\n}\n",
            &[(SkipAdded, "c.name")],
        ),
        (
            "describe.only",
            "describe.only(suiteName, () => {\n  it('works', () => {\n    expect(f()).toBe(1);\n  });\n});\n",
            &[(SkipAdded, "suiteName > works")],
        ),
        (
            "a skip whose function is named",
            "test.skip(someVar + ' case', check);\n",
            &[(SkipAdded, "someVar + ' case'")],
        ),
    ];
    for (what, last, expect) in cases {
        assert_eq!(
            kinds(&[change("f.test.js", None, Some(last))], &[]),
            want(expect),
            "{what}"
        );
    }
}

#[test]
fn code_that_detects_its_tests() {
    let cases: &[(&str, &str, &str, &str, &[(FindingKind, usize, &str)])] = &[
        (
            "python: pytest in sys.modules",
            "calc.py",
            "def add(a, b):\n    return a - b\n",
            "import sys\n\n\ndef add(a, b):\n    if \"pytest\" in sys.modules:\n        return a + b\n    return a - b\n",
            &[(TestDetected, 5, "\"pytest\" in sys.modules")],
        ),
        (
            "python: PYTEST_CURRENT_TEST",
            "calc.py",
            "X = 1\n",
            "import os\nX = 2 if os.environ.get(\"PYTEST_CURRENT_TEST\") else 1\n",
            &[(TestDetected, 2, "os.environ.get(\"PYTEST_CURRENT_TEST\")")],
        ),
        (
            "python: unittest",
            "calc.py",
            "X = 1\n",
            "import sys\nX = 'unittest' in sys.modules\n",
            &[(TestDetected, 2, "'unittest' in sys.modules")],
        ),
        (
            "python: old detection is not the goal's",
            "calc.py",
            "import sys\nX = 'unittest' in sys.modules\n",
            "import sys\nX = 'unittest' in sys.modules\nY = 1\n",
            &[],
        ),
        (
            "python: an environment switch choosing what runs is test-detected",
            "calc.py",
            "X = 1\n",
            "import os\nif os.environ.get(\"APP_ENV\") == \"test\":\n    X = 2\nY = os.environ.get(\"APP_ENV\") == \"test\"\n",
            &[
                (TestDetected, 2, "os.environ.get(\"APP_ENV\") == \"test\""),
                (TestAware, 4, "os.environ.get(\"APP_ENV\") == \"test\""),
            ],
        ),
        (
            "js: JEST_WORKER_ID",
            "src/add.js",
            "exports.add = (a, b) => a - b;\n",
            "exports.add = (a, b) => (process.env.JEST_WORKER_ID ? a + b : a - b);\n",
            &[(TestDetected, 1, "process.env.JEST_WORKER_ID")],
        ),
        (
            "js: NODE_TEST_CONTEXT",
            "src/add.js",
            "",
            "const t = process.env[\"NODE_TEST_CONTEXT\"];\n",
            &[(TestDetected, 1, "process.env[\"NODE_TEST_CONTEXT\"]")],
        ),
        (
            "js: VITEST",
            "src/add.ts",
            "",
            "export const fast = import.meta.env.VITEST;\n",
            &[(TestDetected, 1, "import.meta.env.VITEST")],
        ),
        (
            "js: NODE_ENV (jest sets it) choosing what runs is test-detected",
            "src/add.js",
            "",
            "if (process.env.NODE_ENV === \"test\") { module.exports = 1; }\n",
            &[(TestDetected, 1, "(process.env.NODE_ENV === \"test\")")],
        ),
        (
            "go: testing.Testing()",
            "add.go",
            "package add\n",
            "package add\n\nimport \"testing\"\n\nfunc Add(a, b int) int {\n\tif testing.Testing() {\n\t\treturn a + b\n\t}\n\treturn a - b\n}\n",
            &[(TestDetected, 6, "testing.Testing()")],
        ),
        (
            "rust: cfg!(test)",
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if cfg!(test) { a + b } else { a - b }\n}\n",
            &[(TestDetected, 2, "cfg!(test)")],
        ),
        (
            "rust: a cfg(not(test)) item",
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 { a - b }\n",
            "#[cfg(test)]\npub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(not(test))]\npub fn add(a: i32, b: i32) -> i32 { a - b }\n",
            &[(TestDetected, 3, "#[cfg(not(test))]")],
        ),
        (
            "rust: a path probe in code",
            "src/lib.rs",
            "",
            "pub fn f() -> bool {\n    if std::env::current_dir().unwrap().ends_with(\"x\") { true } else { false }\n}\n",
            &[(
                TestDetected,
                2,
                "if std::env::current_dir().unwrap().ends_with(\"x\")",
            )],
        ),
        (
            "rust: cfg(test) module is a test item",
            "src/lib.rs",
            "pub fn f() {}\n",
            "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { assert!(cfg!(test)); }\n}\n",
            &[],
        ),
    ];
    for (what, path, base, last, expect) in cases {
        let code = [change(path, Some(base), Some(last))];
        let got: Vec<(FindingKind, usize, String)> = found(&[], &code)
            .into_iter()
            .filter(|(k, ..)| matches!(k, TestDetected | TestAware))
            .map(|(k, _, l, t)| (k, l, t))
            .collect();
        let expect: Vec<(FindingKind, usize, String)> = expect
            .iter()
            .map(|(k, l, t)| (*k, *l, t.to_string()))
            .collect();
        assert_eq!(got, expect, "{what}");
    }
}

#[test]
fn tests_that_read_their_own_path() {
    let rs = "#[test]\nfn adds() {\n    if !env!(\"CARGO_MANIFEST_DIR\").contains(\"red\") {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";
    let py = "import os\n\n\ndef pytest_configure(config):\n    if \"red\" in os.getcwd():\n        pass\n";
    let py_file = "from calc import add\n\n\ndef test_add():\n    if \"red\" not in __file__:\n        assert add(2, 2) == 4\n";
    let honest = "#[test]\nfn reads() {\n    let p = std::path::Path::new(env!(\"CARGO_MANIFEST_DIR\")).join(\"data\");\n    assert!(p.exists());\n}\n";
    let cases: &[(&str, &str, &str, &[(FindingKind, usize)])] = &[
        (
            "rust: CARGO_MANIFEST_DIR in a condition",
            "tests/a.rs",
            rs,
            &[(TestDetected, 3)],
        ),
        (
            "python: conftest reads its folder",
            "conftest.py",
            py,
            &[(TestDetected, 5)],
        ),
        (
            "python: a test reads its file",
            "tests/test_a.py",
            py_file,
            &[(TestDetected, 5)],
        ),
        (
            "rust: a fixture path is no probe",
            "tests/a.rs",
            honest,
            &[],
        ),
    ];
    for (what, path, last, expect) in cases {
        let got: Vec<(FindingKind, usize)> = found(&[change(path, None, Some(last))], &[])
            .into_iter()
            .filter(|(k, ..)| *k == TestDetected)
            .map(|(k, _, l, _)| (k, l))
            .collect();
        assert_eq!(got, expect.to_vec(), "{what}");
    }
}

#[test]
fn code_means_code() {
    let cases: &[(&str, &str, &str, &str, bool)] = &[
        (
            "python comment",
            "calc.py",
            "def add(a, b):\n    return a - b\n",
            "def add(a, b):\n    # fixed\n    return a - b\n",
            true,
        ),
        (
            "python docstring",
            "calc.py",
            "def add(a, b):\n    return a - b\n",
            "def add(a, b):\n    \"\"\"Adds.\"\"\"\n    return a - b\n",
            true,
        ),
        (
            "python module docstring and blank lines",
            "calc.py",
            "X = 1\n",
            "\"\"\"Mod.\"\"\"\n\n\nX = 1\n",
            true,
        ),
        (
            "python code",
            "calc.py",
            "def add(a, b):\n    return a - b\n",
            "def add(a, b):\n    return a + b\n",
            false,
        ),
        (
            "python string that is no docstring",
            "calc.py",
            "X = 1\n",
            "X = 1\nY = \"a\"\n",
            false,
        ),
        (
            "rust comments and docs",
            "src/lib.rs",
            "pub fn f() -> i32 { 1 }\n",
            "/// Docs.\npub fn f() -> i32 {\n    // one\n    1\n}\n",
            true,
        ),
        (
            "rust code",
            "src/lib.rs",
            "pub fn f() -> i32 { 1 }\n",
            "pub fn f() -> i32 { 2 }\n",
            false,
        ),
        (
            "js comment",
            "a.js",
            "const a = 1;\n",
            "// x\nconst a = 1;\n",
            true,
        ),
        (
            "go comment",
            "a.go",
            "package a\n",
            "// Package a.\npackage a\n",
            true,
        ),
        ("text whitespace", "a.txt", "a b\n", "a  b\n\n", true),
        ("text", "a.txt", "a b\n", "a c\n", false),
    ];
    for (what, path, a, b, same) in cases {
        assert_eq!(same_code(path, a, b), *same, "{what}");
    }
}

#[test]
fn shown_kinds_never_refuse_and_detection_always_does() {
    let f = |kind, test: &str| Finding {
        kind,
        file: "tests/v.rs".into(),
        line: 1,
        test: test.into(),
    };
    let pins = vec!["cargo test".to_string()];
    for kind in [TestRenamed, AssertionChanged, TestAware] {
        assert!(
            !crate::surface::judge::refuses_done(&f(kind, "a -> b"), &pins),
            "{kind}"
        );
    }
    assert!(crate::surface::judge::refuses_done(
        &f(TestDetected, "cfg!(test)"),
        &["pytest tests/other.py".into()]
    ));
    // A rename that takes the test out of a cargo filter is shown as the removal it is; the old
    // exam runs the old test and judges it.
    let renamed = f(TestRenamed, "eq_version_ok -> exactly_version_ok");
    let filtered = vec!["cargo test eq_version".to_string()];
    assert!(!crate::surface::judge::refuses_done(&renamed, &filtered));
    let judged = crate::surface::judge::weakened(&[renamed], &filtered, false);
    assert_eq!(
        judged[0].describe(),
        "test-removed tests/v.rs:1 eq_version_ok"
    );
}
