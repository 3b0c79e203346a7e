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

/// A Go test's assertions (subject, expected, constant), checks and table rows, as read.
type Reading = (
    Vec<(String, String, bool)>,
    usize,
    Vec<Vec<(String, String)>>,
);

fn go_reading(body: &str) -> Reading {
    let src =
        format!("package calc\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {{\n{body}\n}}\n");
    let cases = go::test_cases(&src).unwrap();
    let case = &cases[0];
    (
        case.assertions
            .iter()
            .map(|a| (a.subject.clone(), a.expected.clone(), a.constant))
            .collect(),
        case.checks,
        case.params.iter().map(|p| p.values.clone()).collect(),
    )
}

#[test]
fn go_assertions_checks_and_tables() {
    let s = |a: &str, e: &str, c: bool| (a.to_string(), e.to_string(), c);
    let row =
        |a: &str, want: &str| vec![("tc.a".into(), a.into()), ("tc.want".into(), want.into())];
    let cases: Vec<(&str, Reading)> = vec![
        // t.Error… under an `if`: its condition, the value set before put in, constants last.
        (
            "\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"got %d\", got)\n\t}",
            (vec![s("Add(2, 2)", "!= 4", false)], 1, vec![]),
        ),
        (
            "\tgot := Add(2, 2)\n\tif 4 != got {\n\t\tt.Error(\"bad\")\n\t}",
            (vec![s("Add(2, 2)", "!= 4", false)], 1, vec![]),
        ),
        (
            "\tvar got int\n\tgot = Add(2, 2)\n\tif got != 4 {\n\t\tt.Fatal(\"bad\")\n\t}",
            (vec![s("Add(2, 2)", "!= 4", false)], 1, vec![]),
        ),
        (
            "\tgot, err := Parse(\"1\")\n\tif got != 1 {\n\t\tt.Fatal(err)\n\t}",
            (vec![s("Parse(\"1\")", "!= 1", false)], 1, vec![]),
        ),
        // Set twice: which value is meant cannot be told, the name stays.
        (
            "\tgot := Add(1, 1)\n\tgot = Add(2, 2)\n\tif got != 4 {\n\t\tt.Fatal(\"bad\")\n\t}",
            (vec![s("got", "!= 4", false)], 1, vec![]),
        ),
        (
            "\tt.Error(\"always\")",
            (vec![s("t.Error(\"always\")", "", false)], 1, vec![]),
        ),
        (
            "\tif true {\n\t\tt.Error(\"constant\")\n\t}",
            (vec![s("true", "", true)], 0, vec![]),
        ),
        // testify: assert.X(t, expected, actual).
        (
            "\tassert.Equal(t, 4, Add(2, 2))",
            (vec![s("Add(2, 2)", "Equal 4", false)], 1, vec![]),
        ),
        (
            "\tassert.Equal(t, 1, 1)",
            (vec![s("1", "Equal 1", true)], 0, vec![]),
        ),
        (
            "\trequire.NoError(t, err)",
            (vec![s("err", "NoError", false)], 1, vec![]),
        ),
        // A helper handed t checks for it; one handed something else does not.
        ("\tcheckSum(t, 4)\n\thelper(x)", (vec![], 1, vec![])),
        ("\thelper(x)", (vec![], 0, vec![])),
        // Tables: a literal ranged over, a slice or a map of rows, by position or by field.
        (
            "\tfor _, tc := range []struct{ a, want int }{{1, 2}, {a: 3, want: 6}} {\n\t\tif got := Double(tc.a); got != tc.want {\n\t\t\tt.Error(got)\n\t\t}\n\t}",
            (
                vec![s("Double(tc.a)", "!= tc.want", false)],
                1,
                vec![row("1", "2"), row("3", "6")],
            ),
        ),
        (
            "\tcases := map[string]struct{ a, want int }{\"one\": {1, 2}, \"two\": {a: 2, want: 4}}\n\tfor _, tc := range cases {\n\t\tif Double(tc.a) != tc.want {\n\t\t\tt.Error(tc)\n\t\t}\n\t}",
            (
                vec![s("Double(tc.a)", "!= tc.want", false)],
                1,
                vec![row("1", "2"), row("2", "4")],
            ),
        ),
    ];
    for (body, want) in cases {
        assert_eq!(go_reading(body), want, "{body}");
    }
}

#[test]
fn a_conftest_is_read_as_python_tests_not_as_a_whole_configuration() {
    let base = "import pytest\n\n@pytest.fixture\ndef calc():\n    return 1\n\ndef test_here():\n    assert calc() == 1\n";
    let last = "import pytest\n\n@pytest.fixture\ndef calc():\n    return 2\n";
    // Under tests/ a conftest is a test file; at the root, a whole configuration read the same way.
    for path in ["tests/conftest.py", "conftest.py"] {
        assert_eq!(
            super::tests::found(path, Some(base), Some(last)),
            [(FindingKind::TestRemoved, 7, "test_here".to_string())],
            "{path}"
        );
    }
}

#[test]
fn a_changed_assertion_is_paired_with_the_one_on_the_same_subject() {
    let cases = |src| python::test_cases(src).unwrap();
    let base = "def test_a():\n    assert f() == 1\n";
    let last = "def test_a():\n    assert g() == 7\n    assert f() == 3\n";
    let mut out = Vec::new();
    compare("tests/test_a.py", &cases(base), &cases(last), &mut out);
    let got: Vec<(FindingKind, usize)> = out.iter().map(|f| (f.kind, f.line)).collect();
    assert_eq!(got, [(FindingKind::AssertionWeakened, 3)]);
}

#[test]
fn a_rust_file_that_is_a_test_whole_by_its_path() {
    let cases = [
        ("tests/it.rs", true),
        ("crates/a/tests/it.rs", true),
        ("src/tests.rs", true),
        ("src/a/test.rs", true),
        ("src/a/parse_test.rs", true),
        ("src/a/parse_tests.rs", true),
        ("src/lib.rs", false),
        ("src/testsuite.rs", false),
        ("src/contest.rs", false),
        ("mytests/it.rs", false),
    ];
    for (path, want) in cases {
        assert_eq!(imports::rust_test_file(path), want, "{path}");
    }
}

#[test]
fn sources_relative_to_their_module_are_not_compared_across_files() {
    let cases = [
        ("calc", true),
        ("calc::add", true),
        ("selfish", true),
        ("superb::x", true),
        ("crates", true),
        ("self", false),
        ("self::add", false),
        ("super", false),
        ("super::add", false),
        ("crate", false),
        ("crate::calc::add", false),
    ];
    for (source, want) in cases {
        assert_eq!(imports::comparable_across_files(source), want, "{source}");
    }
}

#[test]
fn the_path_a_pin_word_names() {
    let cases = [
        ("tests/", Some("tests")),
        ("./tests/test_a.py", Some("tests/test_a.py")),
        ("tests/test_a.py::test_x", Some("tests/test_a.py")),
        ("mod::test_x", Some("mod")),
        ("calc_test.go", Some("calc_test.go")),
        ("./pkg/...", Some("pkg")),
        ("./...", Some("")),
        (".", Some("")),
        ("mul", None),
        ("pytest", None),
        ("-k", None),
        ("-ctests/pytest.ini", None),
        ("PYTHONPATH=src/", None),
    ];
    for (word, want) in cases {
        assert_eq!(pins::path_word(word).as_deref(), want, "{word}");
    }
}

#[test]
fn the_module_a_glob_import_reaches() {
    let cases = [
        ("tests", "super", Some("")),
        ("a::tests", "super", Some("a")),
        ("a::tests", "super::super", Some("")),
        ("tests", "self", Some("tests")),
        ("tests", "self::inner", Some("tests::inner")),
        ("", "super", None),
        ("tests", "crate", None),
        ("tests", "other", None),
    ];
    for (scope, prefix, want) in cases {
        assert_eq!(
            imports::glob_target(scope, prefix).as_deref(),
            want,
            "{scope} / {prefix}"
        );
    }
}

fn def(kind: &'static str, name: &str, body: &str) -> renames::Def {
    renames::Def {
        kind,
        name: name.into(),
        body: body.into(),
    }
}

#[test]
fn renames_are_paired_by_body_then_by_place() {
    let pairs = |base: &[renames::Def], last: &[renames::Def]| renames::pair(base, last);
    let p = |new: &str, old: &str| (new.to_string(), old.to_string());
    type Case = (Vec<renames::Def>, Vec<renames::Def>, Vec<(String, String)>);
    let cases: Vec<Case> = vec![
        (
            vec![def("fn", "add", "X")],
            vec![def("fn", "plus", "X")],
            vec![p("plus", "add")],
        ),
        // Same body, another kind: no pair.
        (
            vec![def("fn", "add", "X")],
            vec![def("type", "plus", "X"), def("fn", "other", "Y")],
            vec![],
        ),
        // The old name kept: nothing renamed.
        (
            vec![def("fn", "add", "X")],
            vec![def("fn", "add", "X"), def("fn", "plus", "X")],
            vec![],
        ),
        // Another body, the same place (after the same kept definition).
        (
            vec![def("fn", "a", "X"), def("fn", "add", "Y")],
            vec![def("fn", "a", "X"), def("fn", "plus", "Z")],
            vec![p("plus", "add")],
        ),
        // The same place after a definition itself renamed just before.
        (
            vec![def("fn", "a", "X"), def("fn", "b", "Y")],
            vec![def("fn", "a2", "X"), def("fn", "b2", "Z")],
            vec![p("a2", "a"), p("b2", "b")],
        ),
        // Another place and another body: no pair; the same place but another kind: none.
        (
            vec![def("fn", "a", "X"), def("fn", "add", "Y")],
            vec![def("fn", "plus", "Z"), def("fn", "a", "X")],
            vec![],
        ),
        (
            vec![def("fn", "a", "X"), def("fn", "add", "Y")],
            vec![def("fn", "a", "X"), def("type", "Plus", "Z")],
            vec![],
        ),
    ];
    for (i, (base, last, want)) in cases.iter().enumerate() {
        assert_eq!(pairs(base, last), *want, "case {i}");
    }
}

#[test]
fn the_definitions_of_a_code_file() {
    type Want<'a> = &'a [(&'a str, &'a str, &'a str)];
    let cases: [(Language, &str, Want); 4] = [
        (
            Language::Python,
            "def add(a, b):\n    return a + b  # sum\n\nclass Calc:\n    def mul(self, a):\n        return a\n",
            &[
                ("fn", "add", "def ( a , b ) : return a + b"),
                ("type", "Calc", "class : def mul ( self , a ) : return a"),
                ("fn", "mul", "def ( self , a ) : return a"),
            ],
        ),
        (
            Language::JavaScript,
            "function add(a, b) { return a + b; }\nclass Calc { mul(a) { return a; } }\n",
            &[
                ("fn", "add", "function ( a , b ) { return a + b ; }"),
                ("type", "Calc", "class { mul ( a ) { return a ; } }"),
                ("method", "mul", "( a ) { return a ; }"),
            ],
        ),
        (
            Language::TypeScript,
            "interface Shape { area: number }\ntype Id = string;\nenum Color { Red }\nclass P { x = 1; }\n",
            &[
                ("type", "Shape", "interface { area : number }"),
                ("field", "area", ": number"),
                ("type", "Id", "type = string ;"),
                ("type", "Color", "enum { Red }"),
                ("type", "P", "class { x = 1 ; }"),
                ("field", "x", "= 1"),
            ],
        ),
        (
            Language::Go,
            "package p\n\ntype T struct{ n int }\n\nfunc (t T) M() int { return t.n }\n\nfunc F() {}\n",
            &[
                ("type", "T", "struct { n int }"),
                ("field", "n", "int"),
                ("method", "M", "func ( t T ) ( ) int { return t . n }"),
                ("fn", "F", "func ( ) { }"),
            ],
        ),
    ];
    for (language, src, want) in cases {
        let defs = renames::defs(language, src).unwrap();
        let got: Vec<(&str, &str, &str)> = defs
            .iter()
            .map(|d| (d.kind, d.name.as_str(), d.body.as_str()))
            .collect();
        assert_eq!(got, want, "{language:?}");
    }
}

#[test]
fn a_runner_name_counts_only_beside_sys_modules_in_its_own_statement() {
    let found = |src: &str| {
        let mut out = Vec::new();
        test_detected::detected("src/app.py", Some(""), Some(src), true, &mut out).unwrap();
        out.into_iter()
            .map(|f| (f.kind, f.line))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        found("import sys\n\nif \"pytest\" in sys.modules:\n    X = 1\n"),
        [(FindingKind::TestDetected, 3)]
    );
    // The same module names sys.modules elsewhere: this statement does not look at it.
    assert_eq!(
        found("import sys\n\nNAME = \"pytest\"\nprint(sys.modules)\n"),
        []
    );
}

/// Two Rust tests of one name under different cfgs are two tests: each is compared with the one
/// under the same conditions, never with its namesake (an honest change to one left the other
/// `assertion-weakened`); a cfg on the module around counts as on the test.
#[test]
fn same_named_tests_under_different_cfgs_are_never_paired() {
    let file = |win: &str, other: &str| {
        format!(
            "#[cfg(test)]\nmod tests {{\n    #[cfg(windows)]\n    #[test]\n    fn path() {{\n        assert_eq!(sep(), {win});\n    }}\n\n    #[cfg(not(windows))]\n    #[test]\n    fn path() {{\n        assert_eq!(sep(), {other});\n    }}\n}}\n"
        )
    };
    let cases = |src: &str| crate::surface::rust::test_cases(src).unwrap();
    let base = cases(&file("'\\\\'", "'/'"));
    assert_eq!(base.len(), 2);
    assert_ne!(base[0].scope, base[1].scope);
    // Unchanged: nothing; the order of the two swapped: nothing.
    let mut out = Vec::new();
    compare("src/lib.rs", &base, &base, &mut out);
    assert_eq!(out, []);
    let mut swapped = base.clone();
    swapped.reverse();
    compare("src/lib.rs", &base, &swapped, &mut out);
    assert_eq!(out, []);
    // One of them changed: a finding on that one only, at its own line.
    let last = cases(&file("'\\\\'", "std::path::MAIN_SEPARATOR"));
    compare("src/lib.rs", &base, &last, &mut out);
    let got: Vec<(FindingKind, usize)> = out.iter().map(|f| (f.kind, f.line)).collect();
    assert_eq!(got, [(FindingKind::AssertionWeakened, 12)], "{out:?}");
    // The cfg on a module around the tests is part of their identity too.
    let module = |cfg: &str| {
        format!(
            "#[cfg({cfg})]\nmod unix {{\n    #[test]\n    fn path() {{\n        assert!(ok());\n    }}\n}}\n"
        )
    };
    let (a, b) = (cases(&module("unix")), cases(&module("windows")));
    assert_eq!(
        (a[0].name.as_str(), b[0].name.as_str()),
        ("unix::path", "unix::path")
    );
    assert!(!a[0].same_test(&b[0]));
    assert!(a[0].same_test(&a[0]));
}

#[test]
fn a_call_restructured_around_the_same_constants_is_changed_not_weakened() {
    let go = |call: &str| {
        format!(
            "package calc\n\nimport \"testing\"\n\nfunc TestClampHigh(t *testing.T) {{\n\tif got := {call}; got != 10 {{\n\t\tt.Fatalf(\"got %d\", got)\n\t}}\n}}\n"
        )
    };
    let rs = |call: &str| {
        format!("use calc::*;\n\n#[test]\nfn high() {{\n    assert_eq!({call}, 10);\n}}\n")
    };
    let py =
        |call: &str| format!("from calc import *\n\n\ndef test_high():\n    assert {call} == 10\n");
    use FindingKind::{AssertionChanged, AssertionWeakened};
    let rows: &[(&str, &str, String, String, FindingKind)] = &[
        (
            "go: a function become a method",
            "calc_test.go",
            go("Clamp(15, 0, 10)"),
            go("(Range{0, 10}).Clamp(15)"),
            AssertionChanged,
        ),
        (
            "go: a negative constant moved",
            "calc_test.go",
            go("Clamp(-5, 0, 10)"),
            go("(Range{0, 10}).Clamp(-5)"),
            AssertionChanged,
        ),
        (
            "go: the same call, its constants swapped",
            "calc_test.go",
            go("Clamp(15, 0, 10)"),
            go("Clamp(10, 0, 15)"),
            AssertionWeakened,
        ),
        (
            "go: a constant changed",
            "calc_test.go",
            go("Clamp(15, 0, 10)"),
            go("(Range{0, 10}).Clamp(10)"),
            AssertionWeakened,
        ),
        (
            "rust: two bounds become a range",
            "tests/integration.rs",
            rs("clamp(15, 0, 10)"),
            rs("clamp(15, 0..=10)"),
            AssertionChanged,
        ),
        (
            "rust: a constant added around the call",
            "tests/integration.rs",
            rs("clamp(15, 0, 10)"),
            rs("clamp(15, 0, 10).min(10)"),
            AssertionWeakened,
        ),
        (
            "python: keyword arguments",
            "tests/test_calc.py",
            py("clamp(15, 0, 10)"),
            py("clamp(15, lo=0, hi=10)"),
            AssertionChanged,
        ),
        (
            "python: a string constant changed",
            "tests/test_calc.py",
            py("parse(\"15\")"),
            py("parse_int(\"10\")"),
            AssertionWeakened,
        ),
        (
            "python: no constant to follow",
            "tests/test_calc.py",
            py("clamp(x)"),
            py("limit(x)"),
            AssertionWeakened,
        ),
    ];
    for (what, path, base, last, want) in rows {
        let got: Vec<FindingKind> = super::tests::found(path, Some(base), Some(last))
            .into_iter()
            .map(|(k, _, _)| k)
            .collect();
        assert_eq!(got, [*want], "{what}");
    }
}
