//! Tables of the small rules the findings are built from (a word replaced in a normalized
//! assertion, …), each row a case a mutation of the rule would get wrong.

use super::*;

#[test]
fn a_word_is_replaced_only_where_it_stands_alone() {
    let cases = [
        ("self.limit * 2", "10 * 2"),
        ("(self.limit)", "(10)"),
        ("self.limit + self.limit", "10 + 10"),
        // Part of a longer name, before or after, or a field of something else: kept.
        ("self.limits * 2", "self.limits * 2"),
        ("self.limit_max", "self.limit_max"),
        ("myself.limit + 1", "myself.limit + 1"),
        ("_self.limit", "_self.limit"),
        ("obj.self.limit", "obj.self.limit"),
        ("no such word", "no such word"),
    ];
    for (text, want) in cases {
        assert_eq!(replace_word(text, "self.limit", "10"), want, "{text}");
    }
}

#[test]
fn the_same_code_once_comments_docstrings_and_layout_are_dropped() {
    let cases = [
        (
            "src/lib.rs",
            "//! one\nfn f() {}\n",
            "//! two\nfn f() {}\n",
            true,
        ),
        (
            "src/lib.rs",
            "#![doc = \"one\"]\nfn f() {}\n",
            "#![doc = \"two\"]\nfn f() {}\n",
            true,
        ),
        (
            "src/lib.rs",
            "/// a\nfn f() {}\n",
            "/// b\nfn f() {}\n",
            true,
        ),
        ("src/lib.rs", "fn f() {} // a\n", "fn f() {}\n", true),
        ("src/lib.rs", "fn f() { 1 }\n", "fn f() { 2 }\n", false),
        ("src/lib.rs", "#[inline]\nfn f() {}\n", "fn f() {}\n", false),
        (
            "src/lib.rs",
            "#![allow(dead_code)]\nfn f() {}\n",
            "fn f() {}\n",
            false,
        ),
        (
            "calc.py",
            "def f():\n    \"\"\"doc\"\"\"\n    return 1\n",
            "def f():\n    \"\"\"other\"\"\"\n    return 1\n",
            true,
        ),
        ("calc.py", "x = 1\n\n\ny = 2\n", "x = 1\ny = 2\n", true),
        ("calc.py", "x = 1  # a\n", "x = 1  # b\n", true),
        ("calc.py", "x = 1\n", "x = 2\n", false),
        ("calc.js", "// c\nf(1);\n", "f(1);\n", true),
        ("calc.js", "f(1);\n", "f(2);\n", false),
        // No parser, or a side that does not parse: only whitespace may differ.
        ("notes.txt", "a b\n", "ab", true),
        ("notes.txt", "a b\n", "a c\n", false),
        ("src/lib.rs", "fn f( {\n", "fn f(  {\n", true),
    ];
    for (path, a, b, want) in cases {
        assert_eq!(same_code(path, a, b), want, "{path}: {a:?} / {b:?}");
    }
}

#[test]
fn compare_finds_a_test_the_final_version_lost() {
    let base = "def test_a():\n    assert f() == 1\n\ndef test_b():\n    assert g() == 2\n";
    let last = "def test_a():\n    assert f() == 1\n";
    let cases = |src| python::test_cases(src).unwrap();
    let mut out = Vec::new();
    compare("tests/test_calc.py", &cases(base), &cases(last), &mut out);
    let got: Vec<(FindingKind, usize, &str)> = out
        .iter()
        .map(|f| (f.kind, f.line, f.test.as_str()))
        .collect();
    assert_eq!(got, [(FindingKind::TestRemoved, 4, "test_b")]);
    let mut out = Vec::new();
    compare("tests/test_calc.py", &cases(base), &cases(base), &mut out);
    assert_eq!(out, []);
    // A case of a table skipped on the base as at the end is no skip added; a new one is.
    let table = |cases: &str| {
        format!(
            "import pytest\n\n@pytest.mark.parametrize('a', [{cases}])\ndef test_t(a):\n    assert f(a) == a\n"
        )
    };
    let skipped = "pytest.param(1, marks=pytest.mark.skip)";
    let base = table(&format!("{skipped}, 2"));
    let mut out = Vec::new();
    compare("tests/test_t.py", &cases(&base), &cases(&base), &mut out);
    assert_eq!(out, []);
    let last = table(&format!(
        "{skipped}, pytest.param(2, marks=pytest.mark.skip)"
    ));
    let mut out = Vec::new();
    compare("tests/test_t.py", &cases(&base), &cases(&last), &mut out);
    let kinds: Vec<FindingKind> = out.iter().map(|f| f.kind).collect();
    assert_eq!(kinds, [FindingKind::SkipAdded]);
}
