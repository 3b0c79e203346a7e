//! Tables of weakening findings by language: Python, Rust, JavaScript, TypeScript and Go.

use super::FindingKind::*;
use super::*;

/// The findings of one file changed from `base` to `last`, as (kind, line, test).
pub(super) fn found(
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
) -> Vec<(FindingKind, usize, String)> {
    let change = FileChange {
        path: path.to_string(),
        base: base.map(str::to_string),
        last: last.map(str::to_string),
    };
    let report = findings(&Surface::default_rules(), &[change]);
    assert_eq!(report.unreadable, vec![], "{path}");
    report
        .findings
        .into_iter()
        .map(|f| {
            assert_eq!(f.file, path);
            (f.kind, f.line, f.test)
        })
        .collect()
}

pub(super) type Case<'a> = (
    &'a str,
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    &'a [(FindingKind, usize, &'a str)],
);

pub(super) fn check(cases: &[Case]) {
    for (what, path, base, last, want) in cases {
        let want: Vec<(FindingKind, usize, String)> = want
            .iter()
            .map(|(k, l, t)| (*k, *l, t.to_string()))
            .collect();
        assert_eq!(found(path, *base, *last), want, "{what}");
    }
}

pub(super) const PY: &str = "\
from calc import add, mul


def test_add():
    assert add(2, 2) == 4


def test_mul():
    assert mul(2, 3) == 6
";

#[test]
fn python() {
    check(&[
        // The six tricks of a lazy agent, those a diff can show.
        (
            "trick 1: the expected value changed",
            "tests/test_calc.py",
            Some(PY),
            Some(&PY.replace("== 4", "== 0")),
            &[(AssertionWeakened, 5, "test_add")],
        ),
        (
            "trick 2: a skip marker added",
            "tests/test_calc.py",
            Some(PY),
            Some(&PY.replace(
                "\ndef test_add",
                "\n@pytest.mark.skip(reason=\"later\")\ndef test_add",
            )),
            &[(SkipAdded, 4, "test_add")],
        ),
        (
            "trick 3: the failing test deleted, the rest kept",
            "tests/test_calc.py",
            Some(PY),
            Some(&PY.replace("def test_add():\n    assert add(2, 2) == 4\n", "")),
            &[(TestRemoved, 4, "test_add")],
        ),
        (
            "trick 5: a new file with one always-true test",
            "tests/test_add_fixed.py",
            None,
            Some("def test_add_fixed():\n    assert True\n"),
            &[(AssertionFree, 1, "test_add_fixed")],
        ),
        // The other markers and kinds.
        (
            "skipif, xfail, unittest.skip, pytest.skip( in the body",
            "test_x.py",
            Some(
                "def test_a():\n    assert f()\ndef test_b():\n    assert f()\nclass TestC:\n    def test_c(self):\n        assert f()\ndef test_d():\n    assert f()\n",
            ),
            Some(
                "@pytest.mark.skipif(True, reason='x')\ndef test_a():\n    assert f()\n@pytest.mark.xfail\ndef test_b():\n    assert f()\n@unittest.skip('x')\nclass TestC:\n    def test_c(self):\n        assert f()\ndef test_d():\n    pytest.skip('later')\n    assert f()\n",
            ),
            &[
                (SkipAdded, 1, "test_a"),
                (SkipAdded, 4, "test_b"),
                (SkipAdded, 7, "TestC::test_c"),
                (SkipAdded, 12, "test_d"),
            ],
        ),
        (
            "a module-level pytestmark skips every test",
            "tests/test_m.py",
            Some("def test_a():\n    assert f()\n"),
            Some("import pytest\npytestmark = pytest.mark.skip\ndef test_a():\n    assert f()\n"),
            &[(SkipAdded, 2, "test_a")],
        ),
        (
            "an assertion removed, one kept",
            "tests/test_calc.py",
            Some("def test_a():\n    assert f(1) == 1\n    assert f(2) == 2\n"),
            Some("def test_a():\n    assert f(1) == 1\n"),
            &[(AssertionRemoved, 3, "test_a")],
        ),
        (
            "unittest assertEqual weakened to another expected value",
            "tests/test_u.py",
            Some(
                "class T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(f(), 4)\n",
            ),
            Some(
                "class T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(f(), 5)\n",
            ),
            &[(AssertionWeakened, 3, "T::test_a")],
        ),
        (
            "empty bodies and constant-only asserts are assertion-free; helpers and raises are not",
            "tests/test_new.py",
            Some(""),
            Some(
                "def test_pass():\n    pass\n\ndef test_doc():\n    \"\"\"Later.\"\"\"\n\ndef test_const():\n    assert 1 == 1\n\ndef test_call_only():\n    add(2, 2)\n\ndef test_helper():\n    check_sum(2, 2)\n\ndef test_raises():\n    with pytest.raises(ValueError):\n        add('a')\n\ndef test_real():\n    assert add(2, 2) == 4\n",
            ),
            &[
                (AssertionFree, 1, "test_pass"),
                (AssertionFree, 4, "test_doc"),
                (AssertionFree, 7, "test_const"),
                (AssertionFree, 10, "test_call_only"),
            ],
        ),
        (
            "an unchanged always-true test is not the goal's doing",
            "tests/test_old.py",
            Some("def test_a():\n    assert True\n\ndef test_b():\n    assert f()\n"),
            Some("def test_a():\n    assert True\n\ndef test_b():\n    assert f() == 1\n"),
            &[(AssertionWeakened, 5, "test_b")],
        ),
        (
            "a test renamed, its body the same",
            "tests/test_calc.py",
            Some("def test_add():\n    assert add(2, 2) == 4\n"),
            Some("def test_add_renamed():\n    assert add(2, 2) == 4\n"),
            &[(TestRenamed, 1, "test_add -> test_add_renamed")],
        ),
        (
            "a deleted test file loses each of its tests",
            "tests/test_calc.py",
            Some(PY),
            None,
            &[(TestRemoved, 4, "test_add"), (TestRemoved, 8, "test_mul")],
        ),
        (
            "a helper module or data file under tests/ deleted: no test removed",
            "tests/helpers.py",
            Some("def make():\n    return 1\n"),
            None,
            &[],
        ),
        (
            "conftest.py collect_ignore added",
            "tests/conftest.py",
            Some("import pytest\n"),
            Some("import pytest\ncollect_ignore = ['test_calc.py']\n"),
            &[(SelectionChanged, 2, "collect_ignore")],
        ),
        (
            "code outside tests changed: nothing",
            "tests/test_calc.py",
            Some(PY),
            Some(&format!("{PY}\n# a comment\n")),
            &[],
        ),
    ]);
}

#[test]
fn rust() {
    let base = "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n\n    #[test]\n    fn subs() {\n        assert_eq!(add(2, -2), 0);\n        assert!(add(1, 1) > 0);\n    }\n}\n";
    check(&[
        (
            "#[ignore] added",
            "src/lib.rs",
            Some(base),
            Some(&base.replace(
                "    #[test]\n    fn adds",
                "    #[test]\n    #[ignore]\n    fn adds",
            )),
            &[(SkipAdded, 8, "tests::adds")],
        ),
        (
            "a #[test] removed",
            "src/lib.rs",
            Some(base),
            Some(&base.replace(
                "    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n",
                "",
            )),
            &[(TestRemoved, 8, "tests::adds")],
        ),
        (
            "assert_eq! expected value changed",
            "src/lib.rs",
            Some(base),
            Some(&base.replace("assert_eq!(add(2, 2), 4)", "assert_eq!(add(2, 2), 0)")),
            &[(AssertionWeakened, 9, "tests::adds")],
        ),
        (
            "an assertion removed",
            "src/lib.rs",
            Some(base),
            Some(&base.replace("        assert!(add(1, 1) > 0);\n", "")),
            &[(AssertionRemoved, 15, "tests::subs")],
        ),
        (
            "assert!(true) in a new test; an empty new test",
            "tests/new.rs",
            None,
            Some(
                "#[test]\nfn always() {\n    assert!(true);\n}\n\n#[test]\nfn nothing() {}\n\n#[test]\nfn real() {\n    assert_eq!(goal::f(), 1);\n}\n",
            ),
            &[(AssertionFree, 2, "always"), (AssertionFree, 7, "nothing")],
        ),
        (
            "a source file's non-test code changed: nothing",
            "src/lib.rs",
            Some(base),
            Some(&base.replace("a - b", "a + b")),
            &[],
        ),
    ]);
}

#[test]
fn rust_tests_compiled_out_by_a_cfg_are_skipped() {
    let base = "pub fn add(a: i32, b: i32) -> i32 { a - b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n\n    #[test]\n    fn subs() {\n        assert_eq!(add(2, -2), 0);\n    }\n}\n";
    let on_adds = |attr: &str| {
        base.replace(
            "    #[test]\n    fn adds",
            &format!("    #[test]\n    {attr}\n    fn adds"),
        )
    };
    let on_module =
        |attr: &str| base.replace("#[cfg(test)]\nmod tests", &format!("{attr}\nmod tests"));
    type Want<'a> = &'a [(FindingKind, usize, &'a str)];
    let both: Want = &[(SkipAdded, 3, "tests::adds"), (SkipAdded, 3, "tests::subs")];
    let adds: Want = &[(SkipAdded, 8, "tests::adds")];
    let cases: Vec<(&str, String, Want)> = vec![
        ("cfg(any())", on_adds("#[cfg(any())]"), adds),
        ("cfg(FALSE)", on_adds("#[cfg(FALSE)]"), adds),
        ("cfg(not(all()))", on_adds("#[cfg(not(all()))]"), adds),
        (
            "cfg_attr(not(miri), cfg(any()))",
            on_adds("#[cfg_attr(not(miri), cfg(any()))]"),
            adds,
        ),
        (
            "cfg_attr(not(miri), ignore)",
            on_adds("#[cfg_attr(not(miri), ignore)]"),
            adds,
        ),
        ("cfg(miri)", on_adds("#[cfg(miri)]"), adds),
        (
            "the module: cfg(all(test, any()))",
            on_module("#[cfg(all(test, any()))]"),
            both,
        ),
        (
            "the module: cfg(not(test))",
            on_module("#[cfg(not(test))]"),
            both,
        ),
        (
            "the module: cfg(all(test, never = \"x\"))",
            on_module("#[cfg(all(test, never = \"x\"))]"),
            both,
        ),
        // Honest gates that may hold: the platform, a feature, a cfg the code itself uses.
        ("cfg(unix)", on_adds("#[cfg(unix)]"), &[]),
        ("cfg(not(windows))", on_adds("#[cfg(not(windows))]"), &[]),
        ("cfg(feature)", on_adds("#[cfg(feature = \"serde\")]"), &[]),
        (
            "cfg_attr(miri, ignore)",
            on_adds("#[cfg_attr(miri, ignore)]"),
            &[],
        ),
        (
            "a cfg of the project's own",
            on_adds("#[cfg(has_simd)]").replace(
                "pub fn add",
                "#[cfg(has_simd)]\npub fn fast() {}\n\npub fn add",
            ),
            &[],
        ),
    ];
    for (what, last, want) in &cases {
        let want: Vec<(FindingKind, usize, String)> = want
            .iter()
            .map(|(k, l, t)| (*k, *l, t.to_string()))
            .collect();
        let got = found("src/lib.rs", Some(base), Some(last));
        let got: Vec<_> = if what.starts_with("a cfg of the project") {
            // Its lines moved down by the new code: only the kinds count here.
            got.into_iter().filter(|f| f.0 == SkipAdded).collect()
        } else {
            got
        };
        assert_eq!(got, want, "{what}");
    }
}

const JS: &str = "\
const { add } = require('./calc');

describe('calc', () => {
  it('adds', () => {
    expect(add(2, 2)).toBe(4);
  });

  test('subs', () => {
    expect(add(2, -2)).toBe(0);
    expect(add(1, 1)).not.toBe(0);
  });
});
";

#[test]
fn javascript() {
    check(&[
        (
            "it.skip",
            "calc.test.js",
            Some(JS),
            Some(&JS.replace("it('adds'", "it.skip('adds'")),
            &[(SkipAdded, 4, "calc > adds")],
        ),
        (
            "xit, describe.skip covers all under it",
            "calc.test.js",
            Some(JS),
            Some(&JS.replace("describe('calc'", "describe.skip('calc'")),
            &[(SkipAdded, 3, "calc > adds"), (SkipAdded, 3, "calc > subs")],
        ),
        (
            ".only on one test",
            "calc.test.js",
            Some(JS),
            Some(&JS.replace("test('subs'", "test.only('subs'")),
            &[(SkipAdded, 8, "calc > subs")],
        ),
        (
            "node's test runner { skip: true } option",
            "test/calc.test.mjs",
            Some("test('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n"),
            Some("test('adds', { skip: true }, () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n"),
            &[(SkipAdded, 1, "adds")],
        ),
        (
            "test.each and describe.each: skipped with .skip",
            "each.test.js",
            Some("describe.each([[1]])('table %i', (n) => {\n  test.each([[1, 2]])('adds %i', (a, b) => {\n    expect(a + 1).toBe(b);\n  });\n});\n"),
            Some("describe.each([[1]])('table %i', (n) => {\n  test.skip.each([[1, 2]])('adds %i', (a, b) => {\n    expect(a + 1).toBe(b);\n  });\n});\n"),
            &[(SkipAdded, 2, "table %i > adds %i")],
        ),
        (
            "fit focuses one test",
            "calc.test.js",
            Some(JS),
            Some(&JS.replace("  it('adds'", "  fit('adds'")),
            &[(SkipAdded, 4, "calc > adds")],
        ),
        (
            "a test removed",
            "calc.test.js",
            Some(JS),
            Some(&JS.replace("  it('adds', () => {\n    expect(add(2, 2)).toBe(4);\n  });\n\n", "")),
            &[(TestRemoved, 4, "calc > adds")],
        ),
        (
            "toBe's expected value changed; an expect removed",
            "calc.test.js",
            Some(JS),
            Some(&JS.replace("toBe(4)", "toBe(0)").replace("    expect(add(1, 1)).not.toBe(0);\n", "")),
            &[(AssertionWeakened, 5, "calc > adds"), (AssertionRemoved, 10, "calc > subs")],
        ),
        (
            "expect(true).toBe(true), an empty test",
            "calc.test.js",
            Some(JS),
            Some(&JS.replace("expect(add(2, 2)).toBe(4)", "expect(true).toBe(true)").replace("  test('subs', () => {\n    expect(add(2, -2)).toBe(0);\n    expect(add(1, 1)).not.toBe(0);\n  });\n", "  test('subs', () => {});\n")),
            &[
                (AssertionFree, 4, "calc > adds"),
                (AssertionWeakened, 5, "calc > adds"),
                (AssertionFree, 8, "calc > subs"),
                (AssertionRemoved, 9, "calc > subs"),
                (AssertionRemoved, 10, "calc > subs"),
            ],
        ),
        (
            "node-tap: a new test whose assertions are tap's own, in subtests named by a value",
            "test/semver.js",
            Some("const { test } = require('tap')\n"),
            Some("const { test } = require('tap')\n\ntest('valid versions', t => {\n  versions.forEach(([v, major]) => t.test(v, t => {\n    t.strictSame(parse(v).major, major)\n    t.hasStrict(parse(v), { raw: v })\n    t.end()\n  }))\n})\n\ntest('vacuous', t => {\n  t.pass('fine')\n  t.end()\n})\n"),
            &[(AssertionFree, 11, "vacuous")],
        ),
        (
            "jest testPathIgnorePatterns in jest.config.js",
            "jest.config.js",
            Some("module.exports = {\n  testEnvironment: 'node',\n};\n"),
            Some("module.exports = {\n  testEnvironment: 'node',\n  testPathIgnorePatterns: ['calc'],\n};\n"),
            &[(SelectionChanged, 3, "testPathIgnorePatterns")],
        ),
        (
            "package.json test script args and jest.testMatch",
            "package.json",
            Some("{\n  \"name\": \"c\",\n  \"scripts\": {\n    \"test\": \"jest\"\n  }\n}\n"),
            Some("{\n  \"name\": \"c\",\n  \"scripts\": {\n    \"test\": \"jest -t mul\"\n  },\n  \"jest\": {\n    \"testMatch\": [\"**/mul.test.js\"]\n  }\n}\n"),
            &[(SelectionChanged, 4, "scripts.test"), (SelectionChanged, 7, "jest.testMatch")],
        ),
        (
            "package.json: a test:unit script deselecting, a build script changed",
            "package.json",
            Some("{\n  \"scripts\": {\n    \"build\": \"tsc\",\n    \"test:unit\": \"tap test/unit\"\n  }\n}\n"),
            Some("{\n  \"scripts\": {\n    \"build\": \"tsc -b\",\n    \"test:unit\": \"tap test/unit/mul.js\"\n  }\n}\n"),
            &[(SelectionChanged, 4, "scripts.test:unit")],
        ),
    ]);
}

#[test]
fn typescript() {
    let base = "import { add } from './calc';\n\ndescribe('calc', () => {\n  it('adds', (): void => {\n    const got: number = add(2, 2);\n    expect(got).toBe(4);\n  });\n});\n";
    check(&[
        (
            "xdescribe",
            "src/calc.spec.ts",
            Some(base),
            Some(&base.replace("describe('calc'", "xdescribe('calc'")),
            &[(SkipAdded, 3, "calc > adds")],
        ),
        (
            "toBe weakened to toBeDefined",
            "src/calc.spec.ts",
            Some(base),
            Some(&base.replace("toBe(4)", "toBeDefined()")),
            &[(AssertionWeakened, 6, "calc > adds")],
        ),
        (
            "test removed from a .tsx file",
            "src/calc.test.tsx",
            Some(base),
            Some("import { add } from './calc';\n\ndescribe('calc', () => {\n});\n"),
            &[(TestRemoved, 4, "calc > adds")],
        ),
        (
            "JSX in a .tsx test, an expect removed",
            "src/App.test.tsx",
            Some(
                "test('renders', () => {\n  const { getByText } = render(<App title=\"x\" />);\n  expect(getByText('x')).toBeTruthy();\n  expect(1 + 1).toBe(2);\n});\n",
            ),
            Some(
                "test('renders', () => {\n  const { getByText } = render(<App title=\"x\" />);\n  expect(1 + 1).toBe(2);\n});\n",
            ),
            &[
                (AssertionFree, 1, "renders"),
                (AssertionRemoved, 3, "renders"),
            ],
        ),
        (
            "node:test t.skip() in the body",
            "test/a.test.ts",
            Some(
                "import { test } from 'node:test';\ntest('a', (t: any) => {\n  assert.ok(f());\n});\n",
            ),
            Some(
                "import { test } from 'node:test';\ntest('a', (t: any) => {\n  t.skip('later');\n  assert.ok(f());\n});\n",
            ),
            &[(SkipAdded, 3, "a")],
        ),
        (
            "a new test asserting nothing",
            "src/new.test.ts",
            None,
            Some("test('new', async (): Promise<void> => {\n  await add(1, 2);\n});\n"),
            &[(AssertionFree, 1, "new")],
        ),
    ]);
}

const GO: &str = "\
package calc

import \"testing\"

func TestAdd(t *testing.T) {
\tif got := Add(2, 2); got != 4 {
\t\tt.Errorf(\"got %d\", got)
\t}
}

func TestSub(t *testing.T) {
\tassert.Equal(t, 0, Add(2, -2))
\tcheckSum(t, 1, 1)
}
";

#[test]
fn go() {
    check(&[
        (
            "t.Skip added",
            "calc_test.go",
            Some(GO),
            Some(&GO.replace("func TestAdd(t *testing.T) {\n", "func TestAdd(t *testing.T) {\n\tt.Skip(\"later\")\n")),
            &[(SkipAdded, 6, "TestAdd")],
        ),
        (
            "the compared value changed",
            "calc_test.go",
            Some(GO),
            Some(&GO.replace("got != 4", "got != 0")),
            &[(AssertionWeakened, 6, "TestAdd")],
        ),
        (
            "testify assertion removed",
            "calc_test.go",
            Some(GO),
            Some(&GO.replace("\tassert.Equal(t, 0, Add(2, -2))\n", "")),
            &[(AssertionRemoved, 12, "TestSub")],
        ),
        (
            "a test removed",
            "calc_test.go",
            Some(GO),
            Some(&GO.replace("func TestSub(t *testing.T) {\n\tassert.Equal(t, 0, Add(2, -2))\n\tcheckSum(t, 1, 1)\n}\n", "")),
            &[(TestRemoved, 11, "TestSub")],
        ),
        (
            "a new Go test with no t.Error/t.Fatal, one with a constant condition",
            "new_test.go",
            None,
            Some("package calc\n\nimport \"testing\"\n\nfunc TestNew(t *testing.T) {\n\tAdd(1, 2)\n}\n\nfunc TestConst(t *testing.T) {\n\tif 1 != 1 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n\nfunc helper(t *testing.T) {}\n"),
            &[(AssertionFree, 5, "TestNew"), (AssertionFree, 9, "TestConst")],
        ),
    ]);
}
