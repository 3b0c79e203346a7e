//! Code the goal added that answers a test's own input with a constant: `special-cased-input`
//! (shown, never refusing). `if year == 1900: return False` passes a test of `is_leap(1900)`
//! whatever the rule for other years, and every mutant of it is killed, because the special case is
//! exactly what the test checks; no run can tell it from a fix, so it is pointed at, not refused.
//!
//! The rule, on the lines the goal added to a code file: a branch (`if`, `elif`, `else if`) whose
//! condition compares a value for equality (`==`, `===`, `is`) with a literal, and whose first
//! statement returns a constant or assigns one (`return False`, `return 10`, `total = 90`), is a
//! special case. It is a finding when that literal is *distinctive*, is new to the file (the base's
//! version of the file does not hold it), and is a literal of a test file of the same language in
//! the final tree (the tests the goal is judged by; Rust: inside `#[test]` functions and
//! `#[cfg(test)]` modules). Distinctive: a number other than -2 to 2 (an edge case such as
//! `n == 0` or `n == 1` is how honest code starts), a string of two or more characters that is
//! not only whitespace (`""`, `" "`, `","` are separators). Booleans and null are never literals
//! here. A branch that goes on computing, or returns something that is not a constant (a keyword
//! table's `Token.ELSE`), is not a special case.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::test_detected::added_lines;
use super::tree::{descendants, line, named, parse, text};
use super::{Finding, FindingKind, Language};

/// A literal as the rule compares it: a number by its value, a string by its content.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Literal {
    /// The number's value, written as Rust writes an `f64` (`1900`, `0.5`).
    Number(String),
    Text(String),
}

impl Literal {
    /// A number literal's value (`1_900`, `0x10`, `15u32`, `-3`); None for what is not one.
    pub fn number(source: &str) -> Option<Literal> {
        let (neg, digits) = match source.trim().strip_prefix('-') {
            Some(rest) => (true, rest.trim()),
            None => (false, source.trim()),
        };
        let clean: String = digits.chars().filter(|c| *c != '_').collect();
        let lower = clean.to_ascii_lowercase();
        let value = if let Some(hex) = lower.strip_prefix("0x") {
            i64::from_str_radix(hex.trim_end_matches(|c: char| !c.is_ascii_hexdigit()), 16).ok()?
                as f64
        } else {
            let end = lower
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e'))
                .unwrap_or(lower.len());
            lower[..end].parse::<f64>().ok()?
        };
        let value = if neg { -value } else { value };
        Some(Literal::Number(format!("{value}")))
    }

    /// Whether the literal singles out an input rather than an edge every rule has (see the
    /// module's documentation).
    pub fn distinctive(&self) -> bool {
        match self {
            Literal::Number(n) => n.parse::<f64>().is_ok_and(|v| v.abs() > 2.0),
            Literal::Text(s) => s.chars().count() >= 2 && !s.trim().is_empty(),
        }
    }

    /// How it is written in a message: `1900`, `"a  b"`.
    pub fn shown(&self) -> String {
        match self {
            Literal::Number(n) => n.clone(),
            Literal::Text(s) => format!("{s:?}"),
        }
    }

    /// Whether `source` (a file's text) already writes this literal.
    fn written_in(&self, source: &str) -> bool {
        match self {
            Literal::Text(s) => ['"', '\'', '`']
                .iter()
                .any(|q| source.contains(&format!("{q}{s}{q}"))),
            Literal::Number(_) => words(source).any(|w| {
                w.starts_with(|c: char| c.is_ascii_digit())
                    && Literal::number(w).as_ref() == Some(self)
            }),
        }
    }
}

/// The runs of word characters and dots of `source`.
fn words(source: &str) -> impl Iterator<Item = &str> {
    source
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .filter(|w| !w.is_empty())
}

/// A special case the goal added: the line of its comparison, the literal compared with, and the
/// condition and what it answers, as shown (`year == 1900 → False`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecialCase {
    pub line: usize,
    pub literal: Literal,
    pub shown: String,
}

/// The special cases on the lines the goal added to a code file (`base` → `last`) whose literal is
/// distinctive and new to the file; Err says why the file could not be read.
pub fn special_cases(
    path: &str,
    base: Option<&str>,
    last: &str,
) -> Result<Vec<SpecialCase>, String> {
    let Some(language) = Language::of(path) else {
        return Ok(Vec::new());
    };
    // A special case compares: a change that adds no line comparing anything has none, and the
    // file is not parsed (`goal log` reads every commit's changed code).
    let added = added_lines(base, last);
    let compares = |line: &str| line.contains("==") || line.contains(" is ");
    if !last
        .lines()
        .enumerate()
        .any(|(i, line)| added.contains(&(i + 1)) && compares(line))
    {
        return Ok(Vec::new());
    }
    let found = match language {
        Language::Rust => super::super::rust::special_cases(last).map_err(|e| e.to_string())?,
        _ => tree_cases(language, last)?,
    };
    Ok(found
        .into_iter()
        .filter(|c| added.contains(&c.line) && c.literal.distinctive())
        .filter(|c| !base.is_some_and(|b| c.literal.written_in(b)))
        .collect())
}

/// The literals of a test file, with their lines (Rust: those in its test items).
pub fn test_literals(path: &str, text: &str) -> Result<Vec<(Literal, usize)>, String> {
    match Language::of(path) {
        None => Ok(Vec::new()),
        Some(Language::Rust) => super::super::rust::test_literals(text).map_err(|e| e.to_string()),
        Some(language) => {
            let Some((grammar, what)) = super::test_detected::grammar(language) else {
                return Ok(Vec::new());
            };
            let tree = parse(text, grammar, what)?;
            Ok(descendants(tree.root_node())
                .into_iter()
                .filter_map(|n| literal(n, text).map(|l| (l, line(n))))
                .collect())
        }
    }
}

/// The literal a node is (`1900`, `-3`, `"a  b"`), None for anything else (booleans and null
/// included, and strings with interpolation).
fn literal(node: Node, src: &str) -> Option<Literal> {
    match node.kind() {
        "integer" | "float" | "number" | "int_literal" | "float_literal" => {
            Literal::number(text(node, src))
        }
        "unary_operator" | "unary_expression" => {
            let kids = named(node);
            let op = text(node, src).trim_start();
            match kids.as_slice() {
                [only] if op.starts_with('-') => match literal(*only, src)? {
                    Literal::Number(n) => Literal::number(&format!("-{n}")),
                    Literal::Text(_) => None,
                },
                _ => None,
            }
        }
        "string" | "interpreted_string_literal" | "raw_string_literal" | "template_string" => {
            let interpolated = named(node)
                .iter()
                .any(|k| matches!(k.kind(), "interpolation" | "template_substitution"));
            let t = text(node, src);
            let prefix: String = t.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            if interpolated || prefix.to_ascii_lowercase().contains('f') {
                return None;
            }
            super::tree::string_value(node, src).map(Literal::Text)
        }
        _ => None,
    }
}

/// The special cases of a Python, JavaScript/TypeScript or Go file, on any line.
fn tree_cases(language: Language, src: &str) -> Result<Vec<SpecialCase>, String> {
    let Some((grammar, what)) = super::test_detected::grammar(language) else {
        return Ok(Vec::new());
    };
    let tree = parse(src, grammar, what)?;
    let mut out = Vec::new();
    for branch in descendants(tree.root_node())
        .into_iter()
        .filter(|n| matches!(n.kind(), "if_statement" | "elif_clause"))
    {
        let (Some(condition), Some(consequence)) = (
            branch.child_by_field_name("condition"),
            branch.child_by_field_name("consequence"),
        ) else {
            continue;
        };
        let Some(answer) = constant_answer(consequence, src) else {
            continue;
        };
        for (at, lit) in equalities(condition, src) {
            out.push(SpecialCase {
                line: line(at),
                literal: lit,
                shown: format!("{} → {answer}", shorten(text(condition, src))),
            });
        }
    }
    Ok(out)
}

fn shorten(what: &str) -> String {
    super::test_detected::shorten(what.trim_start_matches('(').trim_end_matches(')'))
}

/// The comparisons for equality with a literal inside a condition: each comparison node and its
/// literal.
fn equalities<'a>(condition: Node<'a>, src: &str) -> Vec<(Node<'a>, Literal)> {
    let mut out = Vec::new();
    for node in descendants(condition) {
        if !matches!(node.kind(), "comparison_operator" | "binary_expression") {
            continue;
        }
        let mut cursor = node.walk();
        let ops: BTreeSet<&str> = node
            .children(&mut cursor)
            .filter(|k| !k.is_named())
            .map(|k| text(k, src))
            .collect();
        if ops.len() != 1 || !ops.iter().any(|o| matches!(*o, "==" | "===" | "is")) {
            continue;
        }
        let sides = named(node);
        if sides.len() != 2 {
            continue;
        }
        let lits: Vec<Literal> = sides.iter().filter_map(|s| literal(*s, src)).collect();
        if let [lit] = lits.as_slice() {
            out.push((node, lit.clone()));
        }
    }
    out
}

/// What a branch answers when its first statement returns a constant or assigns one (`False`,
/// `10`, `"a-b"`), as written; None when it does anything else first.
fn constant_answer(consequence: Node, src: &str) -> Option<String> {
    let mut first = consequence;
    while matches!(first.kind(), "block" | "statement_block" | "statement_list") {
        first = *named(first).first()?;
    }
    let value = match first.kind() {
        "return_statement" => {
            let values = named(first);
            match values.as_slice() {
                [one] if one.kind() == "expression_list" => named(*one),
                _ => values,
            }
        }
        "expression_statement" => {
            let inner = *named(first).first()?;
            if !matches!(inner.kind(), "assignment" | "assignment_expression") {
                return None;
            }
            vec![inner.child_by_field_name("right")?]
        }
        "assignment_statement" => named(first.child_by_field_name("right")?),
        _ => return None,
    };
    let constant = |n: &Node| {
        literal(*n, src).is_some()
            || matches!(
                n.kind(),
                "true" | "false" | "none" | "null" | "nil" | "undefined"
            )
    };
    (!value.is_empty() && value.iter().all(constant)).then(|| {
        value
            .iter()
            .map(|n| text(*n, src))
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// A test literal the special case answers: the test file and line.
pub struct Match {
    pub file: String,
    pub line: usize,
}

/// The finding's text: the condition, what it answers, and where a test writes the literal
/// (`year == 1900 → False; 1900 is written in tests/test_leap.py:21`).
pub fn describe(case: &SpecialCase, at: &Match) -> String {
    format!(
        "{}; {} is written in {}:{}",
        case.shown,
        case.literal.shown(),
        at.file,
        at.line
    )
}

/// A test file's path and its literals with their lines (see [`test_literals`]).
pub type TestFile = (String, Vec<(Literal, usize)>);

/// The language group whose tests can call a file's code (JavaScript and TypeScript are one).
pub fn group(language: Language) -> u8 {
    match language {
        Language::Rust => 0,
        Language::Python => 1,
        Language::JavaScript | Language::TypeScript | Language::Tsx => 2,
        Language::Go => 3,
    }
}

/// The `special-cased-input` findings of a code file's special cases (`cases`, from
/// [`special_cases`]) against the literals of test files (`tests`: each file's path and its
/// [`test_literals`]): one finding per special case whose literal a test writes, naming the first
/// place it is written, once per line.
pub fn findings(
    path: &str,
    cases: &[SpecialCase],
    tests: &[(String, Vec<(Literal, usize)>)],
) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for case in cases {
        // One finding per branch: the first of its literals a test writes.
        if out.iter().any(|f| f.line == case.line) {
            continue;
        }
        let written = tests.iter().find_map(|(file, literals)| {
            literals
                .iter()
                .find(|(l, _)| *l == case.literal)
                .map(|(_, line)| Match {
                    file: file.clone(),
                    line: *line,
                })
        });
        if let Some(at) = written {
            out.push(Finding {
                kind: FindingKind::SpecialCasedInput,
                file: path.to_string(),
                line: case.line,
                test: describe(case, &at),
            });
        }
    }
    out
}

/// The text a test file must hold for a literal to be written in it (a cheap look before parsing).
pub fn needle(literal: &Literal) -> &str {
    match literal {
        Literal::Number(n) | Literal::Text(n) => n.trim_start_matches('-'),
    }
}
