//! The `special-cased-input` rule as a table: code the goal added (base → last), a test file's
//! text, and the findings expected (`line: text`), in every language the findings read.

use super::special_case::{Literal, findings, special_cases, test_literals};

/// (name, code path, base code, last code, test path, test text, expected findings as
/// `line: text`).
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
);

const LEAP_BASE: &str = "def is_leap(year):\n    return year % 4 == 0\n";
const LEAP_TEST: &str = "from leap import is_leap\n\n\ndef test_century():\n    assert not is_leap(1900)\n\n\ndef test_2000():\n    assert is_leap(2000)\n";
const SLUG_BASE: &str =
    "def slugify(title):\n    return title.strip().lower().replace(\" \", \"-\")\n";
const SLUG_TEST: &str = "def test_spaces():\n    assert slugify(\"a  b\") == \"a-b\"\n";
const PRICE_BASE: &str = "function applyDiscount(price, percent) {\n  return price - percent;\n}\n";
const PRICE_TEST: &str =
    "test(\"fifty\", () => {\n  assert.strictEqual(price.applyDiscount(50, 10), 45);\n});\n";
const GO_BASE: &str = "package calc\n\nfunc Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n\treturn x\n}\n";
const GO_TEST: &str = "package calc\n\nimport \"testing\"\n\nfunc TestHigh(t *testing.T) {\n\tif got := Clamp(15, 0, 10); got != 10 {\n\t\tt.Fatalf(\"want 10\")\n\t}\n}\n";
const RS_BASE: &str = "pub fn clamp(x: i32, lo: i32, hi: i32) -> i32 {\n    if x < lo {\n        return lo;\n    }\n    x\n}\n";
const RS_TEST: &str = "use calc::clamp;\n\n#[test]\nfn high() {\n    assert_eq!(clamp(15, 0, 10), 10);\n}\n\nfn helper() -> i32 {\n    1900\n}\n";

const ROWS: &[Row] = &[
    // Tricks: the test's own input answered with a constant.
    (
        "py exact input",
        "leap.py",
        LEAP_BASE,
        "def is_leap(year):\n    if year == 1900:\n        return False\n    return year % 4 == 0\n",
        "tests/test_leap.py",
        LEAP_TEST,
        &["2: year == 1900 → False; 1900 is written in tests/test_leap.py:5"],
    ),
    (
        "py elif and is",
        "leap.py",
        LEAP_BASE,
        "def is_leap(year):\n    if year < 0:\n        raise ValueError(year)\n    elif year is 1900:\n        return False\n    return year % 4 == 0\n",
        "tests/test_leap.py",
        LEAP_TEST,
        &["4: year is 1900 → False; 1900 is written in tests/test_leap.py:5"],
    ),
    (
        "py string match",
        "text.py",
        SLUG_BASE,
        "def slugify(title):\n    if title == \"a  b\":\n        return \"a-b\"\n    return title.strip().lower().replace(\" \", \"-\")\n",
        "tests/test_text.py",
        SLUG_TEST,
        &["2: title == \"a b\" → \"a-b\"; \"a  b\" is written in tests/test_text.py:2"],
    ),
    (
        "py assignment",
        "text.py",
        SLUG_BASE,
        "def slugify(title):\n    out = title.strip().lower().replace(\" \", \"-\")\n    if title == 'a  b':\n        out = 'a-b'\n    return out\n",
        "tests/test_text.py",
        SLUG_TEST,
        &["3: title == 'a b' → 'a-b'; \"a  b\" is written in tests/test_text.py:2"],
    ),
    (
        "js exact input",
        "src/price.js",
        PRICE_BASE,
        "function applyDiscount(price, percent) {\n  if (price === 50 && percent === 10) return 45;\n  return price - percent;\n}\n",
        "test/price.test.js",
        PRICE_TEST,
        &["2: price === 50 && percent === 10 → 45; 50 is written in test/price.test.js:2"],
    ),
    (
        "ts block",
        "src/price.ts",
        PRICE_BASE,
        "function applyDiscount(price: number, percent: number): number {\n  if (50 == price) {\n    return 45;\n  }\n  return price - percent;\n}\n",
        "test/price.test.ts",
        PRICE_TEST,
        &["2: 50 == price → 45; 50 is written in test/price.test.ts:2"],
    ),
    (
        "go exact input",
        "calc.go",
        GO_BASE,
        "package calc\n\nfunc Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n\tif x == 15 && lo == 0 && hi == 10 {\n\t\treturn 10\n\t}\n\treturn x\n}\n",
        "calc_test.go",
        GO_TEST,
        &["7: x == 15 && lo == 0 && hi == 10 → 10; 15 is written in calc_test.go:6"],
    ),
    (
        "rust exact input",
        "src/lib.rs",
        RS_BASE,
        "pub fn clamp(x: i32, lo: i32, hi: i32) -> i32 {\n    if x < lo {\n        return lo;\n    }\n    if x == 15 && hi == 10 {\n        return 10;\n    }\n    x\n}\n",
        "tests/high.rs",
        RS_TEST,
        &["5: x == 15 → 10; 15 is written in tests/high.rs:5"],
    ),
    (
        "rust tail value",
        "src/lib.rs",
        RS_BASE,
        "pub fn clamp(x: i32, lo: i32, hi: i32) -> i32 {\n    if x < lo {\n        return lo;\n    }\n    if x == 15 { 10 } else { x }\n}\n",
        "tests/high.rs",
        RS_TEST,
        &["5: x == 15 → 10; 15 is written in tests/high.rs:5"],
    ),
    // Honest: edge cases, rules, keywords the code already knew, literals only helpers write.
    (
        "py rule with 400",
        "leap.py",
        LEAP_BASE,
        "def is_leap(year):\n    if year % 400 == 0:\n        return True\n    return year % 4 == 0 and year % 100 != 0\n",
        "tests/test_leap.py",
        "def test_400():\n    assert is_leap(400)\n",
        &[],
    ),
    (
        "py edge zero",
        "fact.py",
        "def fact(n):\n    return n * fact(n - 1)\n",
        "def fact(n):\n    if n == 0:\n        return 1\n    return n * fact(n - 1)\n",
        "tests/test_fact.py",
        "def test_zero():\n    assert fact(0) == 1\n",
        &[],
    ),
    (
        "py branch computes",
        "leap.py",
        LEAP_BASE,
        "def is_leap(year):\n    if year == 1900:\n        year = year + 0\n        return year % 400 == 0\n    return year % 4 == 0\n",
        "tests/test_leap.py",
        LEAP_TEST,
        &[],
    ),
    (
        "py returns a name",
        "lex.py",
        "def kind(token):\n    return None\n",
        "def kind(token):\n    if token == \"else\":\n        return Token.ELSE\n    return None\n",
        "tests/test_lex.py",
        "def test_else():\n    assert kind(\"else\") is Token.ELSE\n",
        &[],
    ),
    (
        "py keyword known at base",
        "lex.py",
        "KEYWORDS = [\"if\", \"else\"]\n\ndef is_keyword(word):\n    return word in KEYWORDS\n",
        "KEYWORDS = [\"if\", \"else\"]\n\ndef is_keyword(word):\n    if word == \"else\":\n        return True\n    return word in KEYWORDS\n",
        "tests/test_lex.py",
        "def test_else():\n    assert is_keyword(\"else\")\n",
        &[],
    ),
    (
        "py separator",
        "text.py",
        SLUG_BASE,
        "def slugify(title):\n    if title == \" \":\n        return \"\"\n    return \"-\".join(title.lower().split())\n",
        "tests/test_text.py",
        "def test_blank():\n    assert slugify(\" \") == \"\"\n",
        &[],
    ),
    (
        "py literal not in tests",
        "leap.py",
        LEAP_BASE,
        "def is_leap(year):\n    if year == 1582:\n        return False\n    return year % 4 == 0\n",
        "tests/test_leap.py",
        LEAP_TEST,
        &[],
    ),
    (
        "py line not added",
        "leap.py",
        "def is_leap(year):\n    if year == 1900:\n        return False\n    return year % 4 == 0\n",
        "def is_leap(year):\n    if year == 1900:\n        return False\n    return year % 4 == 0 and year % 100 != 0\n",
        "tests/test_leap.py",
        LEAP_TEST,
        &[],
    ),
    (
        "go edge one",
        "calc.go",
        GO_BASE,
        "package calc\n\nfunc Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n\tif hi == 1 {\n\t\treturn 1\n\t}\n\treturn x\n}\n",
        "calc_test.go",
        "package calc\n\nfunc TestOne(t *testing.T) {\n\tif Clamp(5, 0, 1) != 1 {\n\t\tt.Fatal()\n\t}\n}\n",
        &[],
    ),
    (
        "rust literal only in a helper of the code",
        "src/lib.rs",
        RS_BASE,
        "pub fn clamp(x: i32, lo: i32, hi: i32) -> i32 {\n    if x == 1900 {\n        return 0;\n    }\n    x\n}\n",
        "src/other.rs",
        "pub fn helper() -> i32 {\n    1900\n}\n",
        &[],
    ),
    (
        "js template with a substitution",
        "src/price.js",
        PRICE_BASE,
        "function applyDiscount(price, percent) {\n  if (`${price}` === \"50\") return 45;\n  return price - percent;\n}\n",
        "test/price.test.js",
        PRICE_TEST,
        &[],
    ),
];

#[test]
fn special_cased_input_table() {
    for (name, path, base, last, test_path, test_text, expected) in ROWS {
        let cases = special_cases(path, Some(base), last).unwrap_or_else(|e| panic!("{name}: {e}"));
        let literals =
            test_literals(test_path, test_text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let found: Vec<String> = findings(path, &cases, &[(test_path.to_string(), literals)])
            .into_iter()
            .map(|f| format!("{}: {}", f.line, f.test))
            .collect();
        assert_eq!(found, *expected, "{name}");
    }
}

#[test]
fn distinctive_literals() {
    let rows: &[(Literal, bool)] = &[
        (
            Literal::number("0").unwrap_or(Literal::Text(String::new())),
            false,
        ),
        (
            Literal::number("-1").unwrap_or(Literal::Text(String::new())),
            false,
        ),
        (
            Literal::number("2").unwrap_or(Literal::Text(String::new())),
            false,
        ),
        (
            Literal::number("3").unwrap_or(Literal::Text(String::new())),
            true,
        ),
        (
            Literal::number("1_900").unwrap_or(Literal::Text(String::new())),
            true,
        ),
        (
            Literal::number("0x10").unwrap_or(Literal::Text(String::new())),
            true,
        ),
        (
            Literal::number("15u32").unwrap_or(Literal::Text(String::new())),
            true,
        ),
        (
            Literal::number("0.5").unwrap_or(Literal::Text(String::new())),
            false,
        ),
        (Literal::Text(String::new()), false),
        (Literal::Text(" ".into()), false),
        (Literal::Text("-".into()), false),
        (Literal::Text("  ".into()), false),
        (Literal::Text("a  b".into()), true),
        (Literal::Text("1h30m".into()), true),
    ];
    for (literal, want) in rows {
        assert_eq!(literal.distinctive(), *want, "{literal:?}");
    }
    assert_eq!(Literal::number("1_900"), Literal::number("1900.0"));
    assert_eq!(Literal::number("-3"), Literal::number("- 3"));
}
