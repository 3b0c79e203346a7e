//! Python tests (pytest and unittest) read with tree-sitter: test functions and methods, their
//! skip markers and assertions.

use tree_sitter::Node;

use super::tree::{constant, descendants, helper_name, kids, line, named, parse, text, tokens};
use super::{Assertion, TestCase};

/// Decorator or call names (last dotted segment) that skip a test.
const SKIPS: &[&str] = &[
    "skip",
    "skipif",
    "xfail",
    "skipIf",
    "skipUnless",
    "expectedFailure",
];

/// unittest's own assertion methods: with only literal arguments these check constants. Any
/// other `self.assert…` is a helper the project wrote (its body computes what it checks).
const UNITTEST_ASSERTS: &[&str] = &[
    "assertEqual",
    "assertEquals",
    "assertNotEqual",
    "assertNotEquals",
    "assertTrue",
    "assertFalse",
    "assert_",
    "assertIs",
    "assertIsNot",
    "assertIsNone",
    "assertIsNotNone",
    "assertIn",
    "assertNotIn",
    "assertIsInstance",
    "assertNotIsInstance",
    "assertAlmostEqual",
    "assertNotAlmostEqual",
    "assertGreater",
    "assertGreaterEqual",
    "assertLess",
    "assertLessEqual",
    "assertRegex",
    "assertNotRegex",
    "assertCountEqual",
    "assertMultiLineEqual",
    "assertSequenceEqual",
    "assertListEqual",
    "assertTupleEqual",
    "assertSetEqual",
    "assertDictEqual",
    "assertRaises",
    "assertRaisesRegex",
    "assertWarns",
    "assertWarnsRegex",
    "assertLogs",
    "assertNoLogs",
];

/// The tests of a Python file: `test*` functions, and `test*` methods of classes (named
/// `Class::method`, as pytest does); module `pytestmark` skips and class decorators apply to all
/// they cover.
pub(super) fn test_cases(src: &str) -> Result<Vec<TestCase>, String> {
    let tree = parse(src, tree_sitter_python::LANGUAGE.into(), "Python")?;
    let root = tree.root_node();
    let mut file_skip = None;
    for stmt in named(root) {
        if stmt.kind() == "expression_statement"
            && let Some(assign) = named(stmt).first().copied()
            && assign.kind() == "assignment"
            && assign
                .child_by_field_name("left")
                .is_some_and(|l| text(l, src) == "pytestmark")
            && assign
                .child_by_field_name("right")
                .is_some_and(|r| marks_skip(r, src))
        {
            file_skip = Some(line(stmt));
        }
    }
    let mut out = Vec::new();
    for stmt in named(root) {
        let (def, skip) = undecorate(stmt, src);
        let skip = skip.or(file_skip);
        match def.kind() {
            "function_definition" => {
                if let Some(case) = function(def, "", skip, src) {
                    out.push(case);
                }
            }
            "class_definition" => {
                let class = def
                    .child_by_field_name("name")
                    .map(|n| text(n, src))
                    .unwrap_or_default();
                let Some(body) = def.child_by_field_name("body") else {
                    continue;
                };
                for member in named(body) {
                    let (method, method_skip) = undecorate(member, src);
                    if method.kind() == "function_definition"
                        && let Some(case) = function(method, class, method_skip.or(skip), src)
                    {
                        out.push(case);
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Whether an expression names a skip marker (`pytest.mark.skip`, `[pytest.mark.xfail(...)]`).
fn marks_skip(node: Node, src: &str) -> bool {
    descendants(node).iter().any(|d| {
        matches!(d.kind(), "attribute" | "identifier")
            && SKIPS.contains(&text(*d, src).rsplit('.').next().unwrap_or(""))
    })
}

/// A definition without its decorators, and the line of the first skip decorator.
fn undecorate<'a>(node: Node<'a>, src: &str) -> (Node<'a>, Option<usize>) {
    if node.kind() != "decorated_definition" {
        return (node, None);
    }
    let skip = named(node)
        .into_iter()
        .filter(|d| d.kind() == "decorator")
        .find(|d| {
            let expr = named(*d).first().copied();
            let callee = expr.map(|e| e.child_by_field_name("function").unwrap_or(e));
            callee.is_some_and(|c| SKIPS.contains(&text(c, src).rsplit('.').next().unwrap_or("")))
        })
        .map(line);
    let def = node.child_by_field_name("definition").unwrap_or(node);
    (def, skip)
}

fn function(def: Node, class: &str, skip: Option<usize>, src: &str) -> Option<TestCase> {
    let name_node = def.child_by_field_name("name")?;
    let name = text(name_node, src);
    if !name.starts_with("test") {
        return None;
    }
    let body = def.child_by_field_name("body")?;
    let mut case = TestCase {
        name: if class.is_empty() {
            name.to_string()
        } else {
            format!("{class}::{name}")
        },
        line: line(name_node),
        skip_line: skip,
        body: tokens(body, src),
        assertions: Vec::new(),
        checks: 0,
        empty: named(body).iter().all(|s| filler(*s, src)),
        params: Vec::new(),
        scope: String::new(),
    };
    case.params = parametrize(def, src);
    for node in descendants(body) {
        match node.kind() {
            "assert_statement" => {
                if let Some(cond) = named(node).first().copied() {
                    case.assertions.push(assert_statement(node, cond, src));
                }
            }
            "call" => call(node, src, &mut case),
            "with_statement" if text(node, src).contains("raises") => case.checks += 1,
            "raise_statement" => case.checks += 1,
            _ => {}
        }
    }
    case.checks += case.assertions.iter().filter(|a| !a.constant).count();
    Some(case)
}

/// A statement that does nothing: `pass`, `...`, a docstring.
fn filler(stmt: Node, src: &str) -> bool {
    match stmt.kind() {
        "pass_statement" => true,
        "expression_statement" => named(stmt)
            .iter()
            .all(|e| matches!(e.kind(), "string" | "ellipsis") || text(*e, src) == "..."),
        _ => false,
    }
}

fn assert_statement(node: Node, cond: Node, src: &str) -> Assertion {
    let is_constant = constant(&[cond], src);
    if cond.kind() == "comparison_operator" {
        let operands = named(cond);
        if operands.len() == 2 {
            let (a, b) = (operands[0], operands[1]);
            let op: String = kids(cond)
                .iter()
                .filter(|k| !k.is_named())
                .map(|k| text(*k, src))
                .collect::<Vec<_>>()
                .join(" ");
            let (subject, expected) = if constant(&[a], src) && !constant(&[b], src) {
                (b, a)
            } else {
                (a, b)
            };
            return Assertion {
                line: line(node),
                subject: text(subject, src).to_string(),
                expected: format!("{op} {}", text(expected, src)),
                constant: is_constant,
            };
        }
    }
    Assertion {
        line: line(node),
        subject: text(cond, src).to_string(),
        expected: String::new(),
        constant: is_constant,
    }
}

fn call(node: Node, src: &str, case: &mut TestCase) {
    let Some(callee) = node.child_by_field_name("function") else {
        return;
    };
    let callee_text = text(callee, src);
    let last = callee_text.rsplit('.').next().unwrap_or(callee_text);
    let args: Vec<Node> = node
        .child_by_field_name("arguments")
        .map(named)
        .unwrap_or_default();
    if matches!(
        callee_text,
        "pytest.skip" | "pytest.xfail" | "self.skipTest" | "unittest.skip"
    ) {
        case.skip_line.get_or_insert(line(node));
    } else if callee_text.starts_with("self.assert") {
        let (subject, expected) = match args.split_first() {
            Some((first, rest)) => (
                text(*first, src).to_string(),
                format!(
                    "{last} {}",
                    rest.iter()
                        .map(|a| text(*a, src))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            None => (String::new(), last.to_string()),
        };
        // A project's own helper (`self.assertRenders(src, expected)`) computes what it checks:
        // literal arguments are its input, not a constant check.
        let own = !UNITTEST_ASSERTS.contains(&last);
        case.assertions.push(Assertion {
            line: line(node),
            subject,
            expected,
            constant: !own && !args.is_empty() && constant(&args, src),
        });
    } else if helper_name(last) {
        case.checks += 1;
    }
}

/// The cases of a function's `@pytest.mark.parametrize(names, rows)` decorators (their product
/// when there are several, at most 256): each row's values bound to the names, and the line of
/// a `pytest.param(…, marks=pytest.mark.skip/xfail)` mark.
fn parametrize(def: Node, src: &str) -> Vec<super::Param> {
    let Some(decorated) = def.parent().filter(|p| p.kind() == "decorated_definition") else {
        return Vec::new();
    };
    let mut product: Vec<super::Param> = Vec::new();
    for d in named(decorated)
        .into_iter()
        .filter(|d| d.kind() == "decorator")
    {
        let Some(call) = named(d).first().copied().filter(|c| c.kind() == "call") else {
            continue;
        };
        let callee = call.child_by_field_name("function").map(|f| text(f, src));
        if !callee.is_some_and(|c| c.ends_with("parametrize")) {
            continue;
        }
        let args: Vec<Node> = call
            .child_by_field_name("arguments")
            .map(named)
            .unwrap_or_default();
        let (Some(names), Some(rows)) = (args.first(), args.get(1)) else {
            continue;
        };
        let names: Vec<String> = match names.kind() {
            "string" => super::tree::string_value(*names, src)
                .unwrap_or_default()
                .split(',')
                .map(|n| n.trim().to_string())
                .collect(),
            _ => named(*names)
                .iter()
                .filter_map(|n| super::tree::string_value(*n, src))
                .collect(),
        };
        let cases: Vec<super::Param> = named(*rows)
            .into_iter()
            .map(|r| row(r, &names, src))
            .collect();
        product = if product.is_empty() {
            cases
        } else {
            product
                .iter()
                .flat_map(|p| {
                    cases.iter().map(move |c| super::Param {
                        values: p.values.iter().chain(&c.values).cloned().collect(),
                        skip_line: p.skip_line.or(c.skip_line),
                    })
                })
                .take(256)
                .collect()
        };
    }
    product
}

/// One row of a parametrize table: a tuple or list of values, one value, or `pytest.param(…)`.
fn row(r: Node, names: &[String], src: &str) -> super::Param {
    let mut skip_line = None;
    let values: Vec<Node> = match r.kind() {
        "tuple" | "list" if names.len() > 1 => named(r),
        "call"
            if r.child_by_field_name("function")
                .is_some_and(|f| text(f, src).ends_with("param")) =>
        {
            let args: Vec<Node> = r
                .child_by_field_name("arguments")
                .map(named)
                .unwrap_or_default();
            for a in args.iter().filter(|a| a.kind() == "keyword_argument") {
                if a.child_by_field_name("name")
                    .is_some_and(|n| text(n, src) == "marks")
                    && a.child_by_field_name("value")
                        .is_some_and(|v| marks_skip(v, src))
                {
                    skip_line = Some(line(*a));
                }
            }
            args.into_iter()
                .filter(|a| a.kind() != "keyword_argument")
                .collect()
        }
        _ => vec![r],
    };
    super::Param {
        values: names
            .iter()
            .cloned()
            .zip(values.iter().map(|v| text(*v, src).to_string()))
            .collect(),
        skip_line,
    }
}
