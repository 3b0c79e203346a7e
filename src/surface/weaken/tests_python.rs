//! Tables of how a Python test file is read (python.rs): which functions are tests, under which
//! names and skip marks, what their assertions check and which cases a parametrize table runs.

use super::*;

/// Each test of a file: its name, the line of its name and the line of the skip that applies.
fn names(src: &str) -> Vec<(String, usize, Option<usize>)> {
    python::test_cases(src)
        .unwrap()
        .into_iter()
        .map(|c| (c.name, c.line, c.skip_line))
        .collect()
}

/// A file and the tests read from it (name, line, skip line).
type Named<'a> = (&'a str, &'a [(&'a str, usize, Option<usize>)]);

#[test]
fn python_tests_their_names_and_skips() {
    let cases: &[Named] = &[
        // test* functions and test* methods of classes; other functions are not tests.
        (
            "def helper():\n    pass\n\ndef test_a():\n    assert f()\n",
            &[("test_a", 4, None)],
        ),
        (
            "class TestCalc:\n    def setup(self):\n        pass\n\n    def test_add(self):\n        assert f()\n",
            &[("TestCalc::test_add", 5, None)],
        ),
        ("x = 1\nprint(x)\n", &[]),
        // A decorator that skips, with or without a call; one that does not.
        (
            "import pytest\n\n@pytest.mark.skip\ndef test_a():\n    assert f()\n",
            &[("test_a", 4, Some(3))],
        ),
        (
            "import pytest\n\n@pytest.mark.slow\n@pytest.mark.skipif(True, reason='x')\ndef test_a():\n    assert f()\n",
            &[("test_a", 5, Some(4))],
        ),
        (
            "import unittest\n\n@unittest.expectedFailure\ndef test_a():\n    assert f()\n",
            &[("test_a", 4, Some(3))],
        ),
        (
            "import pytest\n\n@pytest.mark.slow\ndef test_a():\n    assert f()\n",
            &[("test_a", 4, None)],
        ),
        (
            "import pytest\n\n@pytest.fixture\ndef calc():\n    return 1\n",
            &[],
        ),
        // A module's pytestmark skips every test; a pytestmark that does not skip, or another
        // name given a skip mark, skips none.
        (
            "import pytest\n\npytestmark = pytest.mark.skip\n\ndef test_a():\n    assert f()\n",
            &[("test_a", 5, Some(3))],
        ),
        (
            "import pytest\n\npytestmark = [pytest.mark.slow, pytest.mark.xfail(reason='x')]\n\ndef test_a():\n    assert f()\n",
            &[("test_a", 5, Some(3))],
        ),
        (
            "import pytest\n\npytestmark = pytest.mark.slow\n\ndef test_a():\n    assert f()\n",
            &[("test_a", 5, None)],
        ),
        (
            "import pytest\n\npytestmark = [\n    pytest.mark.slow,  # not pytest.mark.skip\n]\n\ndef test_a():\n    assert f()\n",
            &[("test_a", 7, None)],
        ),
        (
            "import pytest\n\nmarks = pytest.mark.skip\n\ndef test_a():\n    assert f()\n",
            &[("test_a", 5, None)],
        ),
        (
            "import pytest\n\npytestmark: list = []\nf(pytest.mark.skip)\n\ndef test_a():\n    assert f()\n",
            &[("test_a", 6, None)],
        ),
        // A class's skip covers its methods; a method's own skip comes first.
        (
            "import unittest\n\n@unittest.skip('x')\nclass TestA(unittest.TestCase):\n    def test_a(self):\n        self.assertTrue(f())\n\n    @unittest.skipIf(True, 'y')\n    def test_b(self):\n        self.assertTrue(f())\n",
            &[("TestA::test_a", 5, Some(3)), ("TestA::test_b", 9, Some(8))],
        ),
        // Skipped from the body: the first call that skips.
        (
            "import pytest\n\ndef test_a():\n    pytest.skip('later')\n    pytest.xfail('x')\n\ndef test_b(self):\n    self.skipTest('x')\n",
            &[("test_a", 3, Some(4)), ("test_b", 7, Some(8))],
        ),
        (
            "import pytest\n\n@pytest.mark.xfail\ndef test_a():\n    pytest.skip('later')\n",
            &[("test_a", 4, Some(3))],
        ),
    ];
    for (src, want) in cases {
        let want: Vec<(String, usize, Option<usize>)> = want
            .iter()
            .map(|(n, l, s)| (n.to_string(), *l, *s))
            .collect();
        assert_eq!(names(src), want, "{src}");
    }
}

/// One test's assertions (line, subject, expected, constant), its checks and whether it is empty.
type Checks = (Vec<(usize, String, String, bool)>, usize, bool);

fn checks(body: &str) -> Checks {
    let src = format!("import pytest\n\n\ndef test_x(self):\n{body}\n");
    let case = python::test_cases(&src).unwrap().remove(0);
    (
        case.assertions
            .into_iter()
            .map(|a| (a.line, a.subject, a.expected, a.constant))
            .collect(),
        case.checks,
        case.empty,
    )
}

#[test]
fn python_assertions_checks_and_empty_bodies() {
    let a = |line: usize, s: &str, e: &str, c: bool| (line, s.to_string(), e.to_string(), c);
    let cases: Vec<(&str, Checks)> = vec![
        // A comparison: the constant side is the expected one, whichever side it is on.
        (
            "    assert add(2, 2) == 4",
            (vec![a(5, "add(2, 2)", "== 4", false)], 1, false),
        ),
        (
            "    assert 4 == add(2, 2)",
            (vec![a(5, "add(2, 2)", "== 4", false)], 1, false),
        ),
        (
            "    assert got is not None",
            (vec![a(5, "got", "is not None", false)], 1, false),
        ),
        (
            "    assert x == y",
            (vec![a(5, "x", "== y", false)], 1, false),
        ),
        // Constants only: an assertion that checks nothing.
        (
            "    assert 1 == 1",
            (vec![a(5, "1", "== 1", true)], 0, false),
        ),
        ("    assert True", (vec![a(5, "True", "", true)], 0, false)),
        // Not a comparison of two: the whole condition.
        (
            "    assert 0 < f() < 9",
            (vec![a(5, "0 < f() < 9", "", false)], 1, false),
        ),
        (
            "    assert f(), 'message'",
            (vec![a(5, "f()", "", false)], 1, false),
        ),
        // unittest's own assertions; a project's assert helper computes what it checks.
        (
            "    self.assertEqual(add(2, 2), 4)",
            (vec![a(5, "add(2, 2)", "assertEqual 4", false)], 1, false),
        ),
        (
            "    self.assertEqual(4, 4)",
            (vec![a(5, "4", "assertEqual 4", true)], 0, false),
        ),
        (
            "    self.assertRenders('a', 'b')",
            (vec![a(5, "'a'", "assertRenders 'b'", false)], 1, false),
        ),
        (
            "    self.assertTrue()",
            (vec![a(5, "", "assertTrue", false)], 1, false),
        ),
        // Other checks: raises, a raise, a helper named for checking; other calls are not.
        // (pytest.raises counts twice: as the `with` and as a call named for checking.)
        (
            "    with pytest.raises(ValueError):\n        f()",
            (vec![], 2, false),
        ),
        (
            "    with open('x') as fh:\n        f(fh)",
            (vec![], 0, false),
        ),
        (
            "    if f():\n        raise RuntimeError()",
            (vec![], 1, false),
        ),
        ("    check_sum(f())\n    verify(g())", (vec![], 2, false)),
        ("    run(f())", (vec![], 0, false)),
        // Empty: pass, an ellipsis, a docstring, nothing else.
        ("    pass", (vec![], 0, true)),
        ("    ...", (vec![], 0, true)),
        ("    \"\"\"Later.\"\"\"\n    pass", (vec![], 0, true)),
        ("    x = 1", (vec![], 0, false)),
        ("    \"\"\"Later.\"\"\"\n    f()", (vec![], 0, false)),
    ];
    for (body, want) in cases {
        assert_eq!(checks(body), want, "{body}");
    }
}

/// The cases a test's parametrize decorators run: each one's values and the line of its skip.
type Cases = Vec<(Vec<(String, String)>, Option<usize>)>;

fn params(decorators: &str) -> Cases {
    let src = format!("import pytest\n\n{decorators}\ndef test_x(a, b):\n    assert f(a) == b\n");
    let case = python::test_cases(&src).unwrap().remove(0);
    case.params
        .into_iter()
        .map(|p| (p.values, p.skip_line))
        .collect()
}

#[test]
fn python_parametrize_tables() {
    let v = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    };
    let cases: Vec<(&str, Cases)> = vec![
        // Names in one string or as a list; rows as tuples or lists.
        (
            "@pytest.mark.parametrize('a, b', [(1, 2), [3, 6]])",
            vec![
                (v(&[("a", "1"), ("b", "2")]), None),
                (v(&[("a", "3"), ("b", "6")]), None),
            ],
        ),
        (
            "@pytest.mark.parametrize(['a', 'b'], [(1, 2)])",
            vec![(v(&[("a", "1"), ("b", "2")]), None)],
        ),
        // One name: each row is its value, a tuple too.
        (
            "@pytest.mark.parametrize('a', [1, (2, 3)])",
            vec![(v(&[("a", "1")]), None), (v(&[("a", "(2, 3)")]), None)],
        ),
        // A call that is not pytest.param is one value.
        (
            "@pytest.mark.parametrize('a', [f(1), 2])",
            vec![(v(&[("a", "f(1)")]), None), (v(&[("a", "2")]), None)],
        ),
        // pytest.param: its values, and the line of a skip or xfail mark (not of another mark).
        (
            "@pytest.mark.parametrize('a, b', [\n    pytest.param(1, 2, marks=pytest.mark.skip),\n    pytest.param(3, 6, marks=pytest.mark.slow),\n    pytest.param(4, 8, id='four'),\n])",
            vec![
                (v(&[("a", "1"), ("b", "2")]), Some(4)),
                (v(&[("a", "3"), ("b", "6")]), None),
                (v(&[("a", "4"), ("b", "8")]), None),
            ],
        ),
        (
            "@pytest.mark.parametrize('a', [param(1, marks=[pytest.mark.xfail(reason='x')])])",
            vec![(v(&[("a", "1")]), Some(3))],
        ),
        // Two tables: their product, the first one's values first.
        (
            "@pytest.mark.parametrize('a', [1, pytest.param(2, marks=pytest.mark.skip)])\n@pytest.mark.parametrize('b', [5, 6])",
            vec![
                (v(&[("a", "1"), ("b", "5")]), None),
                (v(&[("a", "1"), ("b", "6")]), None),
                (v(&[("a", "2"), ("b", "5")]), Some(3)),
                (v(&[("a", "2"), ("b", "6")]), Some(3)),
            ],
        ),
        // Other decorators, and a parametrize without rows, run no table.
        ("@pytest.mark.slow", vec![]),
        ("@pytest.mark.usefixtures('db')", vec![]),
        ("@pytest.mark.parametrize('a')", vec![]),
    ];
    for (decorators, want) in cases {
        assert_eq!(params(decorators), want, "{decorators}");
    }
    // No decorator: a plain test.
    let plain = python::test_cases("def test_x():\n    assert f()\n").unwrap();
    assert_eq!(plain[0].params, []);
    // A product stops at 256 cases.
    let rows = (0..20)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let big = params(&format!(
        "@pytest.mark.parametrize('a', [{rows}])\n@pytest.mark.parametrize('b', [{rows}])"
    ));
    assert_eq!(big.len(), 256);
    assert_eq!(big[255].0, v(&[("a", "12"), ("b", "15")]));
}
