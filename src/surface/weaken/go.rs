//! Go tests read with tree-sitter: `func TestX(t *testing.T)`, `t.Skip`, and the checks that fail
//! a test (`t.Error…`, `t.Fatal…`, `t.Fail…`, testify's `assert`/`require`, helpers given `t`).

use tree_sitter::Node;

use super::tree::{constant, descendants, line, named, parse, text};
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
            body: text(body, src).to_string(),
            assertions: Vec::new(),
            checks: 0,
            empty: named(body).is_empty(),
        };
        for node in descendants(body) {
            if node.kind() == "call_expression" {
                call(node, src, &mut case);
            }
        }
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
