//! Go tests read with tree-sitter: `func TestX(t *testing.T)`, `t.Skip`, and the checks that fail
//! a test (`t.Error…`, `t.Fatal…`, `t.Fail…`, testify's `assert`/`require`, helpers given `t`).

use tree_sitter::Node;

use super::tree::{constant, descendants, line, named, parse, text, tokens};
use super::{Assertion, TestCase};

const FAILS: &[&str] = &["Error", "Errorf", "Fatal", "Fatalf", "Fail", "FailNow"];
const SKIPS: &[&str] = &["Skip", "Skipf", "SkipNow"];

/// The tests of a Go file: top-level `func Test…(t *testing.T)` (and `Fuzz…`), with their skips
/// and checks; a `t.Error…` inside an `if` is an assertion on the `if`'s condition.
pub(super) fn test_cases(src: &str) -> Result<Vec<TestCase>, String> {
    let tree = parse(src, tree_sitter_go::LANGUAGE.into(), "Go")?;
    let mut out = Vec::new();
    for decl in named(tree.root_node()) {
        if decl.kind() != "function_declaration" {
            continue;
        }
        let Some(name_node) = decl.child_by_field_name("name") else {
            continue;
        };
        let name = text(name_node, src);
        let is_test = ["Test", "Fuzz"].iter().any(|p| {
            name.strip_prefix(p)
                .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_lowercase()))
        });
        let params = decl
            .child_by_field_name("parameters")
            .map(|p| text(p, src))
            .unwrap_or_default();
        if !is_test || !(params.contains("testing.T") || params.contains("testing.F")) {
            continue;
        }
        let Some(body) = decl.child_by_field_name("body") else {
            continue;
        };
        let mut case = TestCase {
            name: name.to_string(),
            line: line(name_node),
            skip_line: None,
            body: tokens(body, src),
            assertions: Vec::new(),
            checks: 0,
            empty: named(body).is_empty(),
            params: Vec::new(),
            scope: String::new(),
        };
        for node in descendants(body) {
            if node.kind() == "call_expression" {
                call(node, src, &mut case);
            }
        }
        case.params = tables(body, src);
        inline_subjects(body, src, &mut case.assertions);
        case.checks += case.assertions.iter().filter(|a| !a.constant).count();
        out.push(case);
    }
    Ok(out)
}

fn call(node: Node, src: &str, case: &mut TestCase) {
    let Some(callee) = node.child_by_field_name("function") else {
        return;
    };
    let args: Vec<Node> = node
        .child_by_field_name("arguments")
        .map(named)
        .unwrap_or_default();
    if callee.kind() == "selector_expression"
        && let (Some(operand), Some(field)) = (
            callee.child_by_field_name("operand"),
            callee.child_by_field_name("field"),
        )
    {
        let (operand, field) = (text(operand, src), text(field, src));
        if SKIPS.contains(&field) {
            case.skip_line.get_or_insert(line(node));
            return;
        }
        if FAILS.contains(&field) {
            case.assertions.push(guarded_failure(node, src));
            return;
        }
        if matches!(operand, "assert" | "require") {
            // testify: assert.Equal(t, expected, actual, msgAndArgs...).
            let values: Vec<Node> = args.iter().skip(1).copied().collect();
            let (subject, expected) = match values.as_slice() {
                [] => (String::new(), field.to_string()),
                [only] => (text(*only, src).to_string(), field.to_string()),
                [expected, actual, ..] => (
                    text(*actual, src).to_string(),
                    format!("{field} {}", text(*expected, src)),
                ),
            };
            let operands: Vec<Node> = values.iter().take(2).copied().collect();
            case.assertions.push(Assertion {
                line: line(node),
                subject,
                expected,
                constant: !operands.is_empty() && constant(&operands, src),
            });
            return;
        }
    }
    // A helper handed the test (`checkSum(t, …)`) checks for it.
    if args
        .iter()
        .any(|a| a.kind() == "identifier" && text(*a, src) == "t")
    {
        case.checks += 1;
    }
}

/// A `t.Error…` call as an assertion: on the condition of the nearest `if` around it (`got != 4`:
/// subject `got`, expected `!= 4`), or unconditional.
fn guarded_failure(call: Node, src: &str) -> Assertion {
    let mut node = call;
    while let Some(parent) = node.parent() {
        if parent.kind() == "if_statement"
            && let Some(cond) = parent.child_by_field_name("condition")
        {
            let is_constant = constant(&[cond], src);
            if cond.kind() == "binary_expression"
                && let (Some(a), Some(op), Some(b)) = (
                    cond.child_by_field_name("left"),
                    cond.child_by_field_name("operator"),
                    cond.child_by_field_name("right"),
                )
            {
                let (subject, expected) = if constant(&[a], src) && !constant(&[b], src) {
                    (b, a)
                } else {
                    (a, b)
                };
                return Assertion {
                    line: line(cond),
                    subject: text(subject, src).to_string(),
                    expected: format!("{} {}", text(op, src), text(expected, src)),
                    constant: is_constant,
                };
            }
            return Assertion {
                line: line(cond),
                subject: text(cond, src).to_string(),
                expected: String::new(),
                constant: is_constant,
            };
        }
        if matches!(parent.kind(), "function_declaration" | "func_literal") {
            break;
        }
        node = parent;
    }
    Assertion {
        line: line(call),
        subject: text(call, src).to_string(),
        expected: String::new(),
        constant: false,
    }
}

/// Each assertion whose subject is a variable the test set once (`got := Add(tc.a, tc.b)`, in
/// the `if`'s initializer or before it) gets the value it was set to as its subject.
fn inline_subjects(body: Node, src: &str, assertions: &mut [Assertion]) {
    let mut sets: Vec<(String, String)> = Vec::new();
    for node in descendants(body) {
        if node.kind() != "short_var_declaration" && node.kind() != "assignment_statement" {
            continue;
        }
        let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            continue;
        };
        let (l, r) = (named(left), named(right));
        if l.len() == r.len() {
            for (a, b) in l.iter().zip(&r) {
                sets.push((text(*a, src).to_string(), text(*b, src).to_string()));
            }
        } else if let (Some(first), [only]) = (l.first(), r.as_slice()) {
            // `got, err := f(x)`: the first name is the call's value.
            sets.push((text(*first, src).to_string(), text(*only, src).to_string()));
        }
    }
    for a in assertions {
        let mut found = sets.iter().filter(|(n, _)| *n == a.subject);
        if let (Some((_, value)), None) = (found.next(), found.next()) {
            a.subject = value.clone();
        }
    }
}

/// The cases of a Go table test: `for _, tc := range cases` (or over a literal) where the table is
/// a composite literal of structs (`[]struct{ a, b, want int }{{2, 2, 4}, {a: 3, …}}`, a map of
/// them), each row binding `tc.field`.
fn tables(body: Node, src: &str) -> Vec<super::Param> {
    let mut literals: Vec<(String, Node)> = Vec::new();
    for node in descendants(body) {
        if node.kind() == "short_var_declaration"
            && let (Some(l), Some(r)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            )
            && let (Some(name), Some(value)) =
                (named(l).first().copied(), named(r).first().copied())
            && value.kind() == "composite_literal"
        {
            literals.push((text(name, src).to_string(), value));
        }
    }
    let mut out = Vec::new();
    for node in descendants(body) {
        if node.kind() != "range_clause" {
            continue;
        }
        let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            continue;
        };
        let Some(var) = named(left).last().map(|v| text(*v, src).to_string()) else {
            continue;
        };
        let table = match right.kind() {
            "composite_literal" => Some(right),
            "identifier" => literals
                .iter()
                .find(|(n, _)| n == text(right, src))
                .map(|(_, v)| *v),
            _ => None,
        };
        if let Some(table) = table {
            out.extend(rows(table, &var, src));
        }
    }
    out
}

/// The rows of a composite literal table bound to `var.field`.
fn rows(table: Node, var: &str, src: &str) -> Vec<super::Param> {
    // The struct's field names, in order, from its type (`[]struct{ a, b int; want int }`).
    let fields: Vec<String> = descendants(table.child_by_field_name("type").unwrap_or(table))
        .into_iter()
        .filter(|n| n.kind() == "field_identifier")
        .map(|n| text(n, src).to_string())
        .collect();
    let Some(body) = table.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for element in named(body) {
        // A map's `"name": {…}` rows: the value is the row.
        let mut row = named(element).last().copied().unwrap_or(element);
        if element.kind() == "keyed_element"
            && let Some(v) = named(element).last().copied()
        {
            row = named(v)
                .first()
                .copied()
                .filter(|_| v.kind() == "literal_element")
                .unwrap_or(v);
        } else if element.kind() == "literal_element" {
            row = named(element).first().copied().unwrap_or(element);
        }
        if row.kind() != "literal_value" {
            continue;
        }
        let mut values = Vec::new();
        for (i, e) in named(row).into_iter().enumerate() {
            let parts = named(e);
            match (e.kind(), parts.as_slice()) {
                ("keyed_element", [k, v]) => values.push((
                    format!("{var}.{}", text(*k, src)),
                    text(*v, src).to_string(),
                )),
                ("literal_element", _) => {
                    if let Some(f) = fields.get(i) {
                        values.push((format!("{var}.{f}"), text(e, src).to_string()));
                    }
                }
                _ => {}
            }
        }
        out.push(super::Param {
            values,
            skip_line: None,
        });
    }
    out
}
