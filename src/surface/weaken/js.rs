//! JavaScript and TypeScript tests (jest, vitest, mocha, node's test runner) read with
//! tree-sitter: `describe`/`it`/`test` blocks, their skip markers and assertions.

use tree_sitter::Node;

use super::tree::{
    constant, descendants, helper_name, line, named, parse, string_value, text, tokens,
};
use super::{Assertion, TestCase};

/// Which grammar reads the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    JavaScript,
    TypeScript,
    Tsx,
}

const SUITES: &[&str] = &["describe", "context", "suite", "xdescribe", "fdescribe"];
const TESTS: &[&str] = &["it", "test", "specify", "xit", "xtest", "fit"];

/// The tests of a JavaScript/TypeScript file: every `it(…)`/`test(…)` call with a literal name,
/// named `suite > case` after the `describe` blocks around it. `.skip`, `.todo`, `.only`, `x…`
/// forms and `{ skip: … }`/`{ todo: … }` options mark a test (and a suite, all under it) skipped.
pub(super) fn test_cases(src: &str, dialect: Dialect) -> Result<Vec<TestCase>, String> {
    let (language, what) = match dialect {
        Dialect::JavaScript => (tree_sitter_javascript::LANGUAGE.into(), "JavaScript"),
        Dialect::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            "TypeScript",
        ),
        Dialect::Tsx => (tree_sitter_typescript::LANGUAGE_TSX.into(), "TSX"),
    };
    let tree = parse(src, language, what)?;
    let mut out = Vec::new();
    visit(tree.root_node(), &mut Vec::new(), None, src, &mut out);
    Ok(out)
}

/// A call's callee split into its root name and the member names after it (`it.skip.each` →
/// `it`, [`skip`, `each`]).
fn callee_parts(callee: Node, src: &str) -> (String, Vec<String>) {
    let mut members = Vec::new();
    let mut node = callee;
    while node.kind() == "member_expression" {
        if let Some(p) = node.child_by_field_name("property") {
            members.push(text(p, src).to_string());
        }
        match node.child_by_field_name("object") {
            Some(o) => node = o,
            None => break,
        }
    }
    members.reverse();
    (text(node, src).to_string(), members)
}

/// The line of a skip marker in a suite or test call, if it has one.
fn skip_marker(
    call: Node,
    root: &str,
    members: &[String],
    args: &[Node],
    src: &str,
) -> Option<usize> {
    // `x…` skips; `fit`/`fdescribe` focus (like `.only`, every other test is then skipped).
    let marked = root.starts_with('x')
        || matches!(root, "fit" | "fdescribe")
        || members
            .iter()
            .any(|m| matches!(m.as_str(), "skip" | "todo" | "only" | "skipIf" | "runIf"));
    let option = args.iter().any(|a| {
        a.kind() == "object"
            && named(*a).iter().any(|p| {
                p.kind() == "pair"
                    && p.child_by_field_name("key")
                        .is_some_and(|k| matches!(text(k, src), "skip" | "todo" | "only"))
                    && p.child_by_field_name("value")
                        .is_none_or(|v| text(v, src) != "false")
            })
    });
    (marked || option).then(|| line(call))
}

fn visit(
    node: Node,
    suites: &mut Vec<String>,
    skipped: Option<usize>,
    src: &str,
    out: &mut Vec<TestCase>,
) {
    if node.kind() == "call_expression"
        && let Some(callee) = node.child_by_field_name("function")
    {
        // `test.each(table)('name %i', fn)`: the table call names the runner.
        let head = match callee.kind() {
            "call_expression" => callee.child_by_field_name("function").unwrap_or(callee),
            _ => callee,
        };
        let (root, members) = callee_parts(head, src);
        let args: Vec<Node> = node
            .child_by_field_name("arguments")
            .map(named)
            .unwrap_or_default();
        // A name that is not a literal (`test.only(name, …)` in a loop over a table, a template
        // with `${…}`) is its expression's source text.
        let title = args
            .first()
            .filter(|a| {
                !matches!(
                    a.kind(),
                    "arrow_function" | "function_expression" | "function" | "object"
                )
            })
            .map(|a| string_value(*a, src).unwrap_or_else(|| text(*a, src).to_string()));
        let body = args
            .iter()
            .rev()
            .find(|a| {
                matches!(
                    a.kind(),
                    "arrow_function" | "function_expression" | "function"
                )
            })
            .copied();
        if let (Some(title), None) = (&title, body)
            && TESTS.contains(&root.as_str())
            && let Some(skip) = skip_marker(node, &root, &members, &args, src)
        {
            // A marked test whose function is not written inline (`it.only(name, check)`): its
            // mark is known, its body is not (so it is not called assertion-free).
            let mut name = suites.join(" > ");
            if !name.is_empty() {
                name.push_str(" > ");
            }
            name.push_str(title);
            out.push(TestCase {
                name,
                line: line(node),
                skip_line: Some(skip),
                body: text(node, src).to_string(),
                assertions: Vec::new(),
                checks: 1,
                empty: false,
                params: Vec::new(),
            });
            return;
        }
        if let (Some(title), Some(body)) = (title, body) {
            let skip = skip_marker(node, &root, &members, &args, src).or(skipped);
            if SUITES.contains(&root.as_str()) {
                suites.push(title);
                visit(body, suites, skip, src, out);
                suites.pop();
                return;
            }
            if TESTS.contains(&root.as_str()) {
                let mut name = suites.join(" > ");
                if !name.is_empty() {
                    name.push_str(" > ");
                }
                name.push_str(&title);
                let mut case = case(name, node, body, skip, src);
                if callee.kind() == "call_expression" && members.iter().any(|m| m == "each") {
                    case.params = each_params(callee, body, src);
                }
                out.push(case);
                return;
            }
        }
    }
    for child in named(node) {
        visit(child, suites, skipped, src, out);
    }
}

fn case(name: String, call: Node, body: Node, skip: Option<usize>, src: &str) -> TestCase {
    let block = body.child_by_field_name("body").unwrap_or(body);
    let mut case = TestCase {
        name,
        line: line(call),
        skip_line: skip,
        body: tokens(block, src),
        assertions: Vec::new(),
        checks: 0,
        empty: block.kind() == "statement_block" && named(block).is_empty(),
        params: Vec::new(),
    };
    // Inner calls of an `expect(x).not.toBe(y)` chain belong to the outer one.
    let mut inside: Vec<std::ops::Range<usize>> = Vec::new();
    for node in descendants(block) {
        if node.kind() != "call_expression"
            || inside
                .iter()
                .any(|r| r.contains(&node.start_byte()) && node.end_byte() <= r.end)
        {
            continue;
        }
        let Some(callee) = node.child_by_field_name("function") else {
            continue;
        };
        let (root, members) = callee_parts(callee, src);
        let args: Vec<Node> = node
            .child_by_field_name("arguments")
            .map(named)
            .unwrap_or_default();
        if let Some(expect) = expect_call(callee, src) {
            inside.push(node.byte_range());
            let expect_args: Vec<Node> = expect
                .child_by_field_name("arguments")
                .map(named)
                .unwrap_or_default();
            let chain = &text(node, src)[expect.end_byte() - node.start_byte()..];
            let mut all = expect_args.clone();
            all.extend(args.iter().copied());
            case.assertions.push(Assertion {
                line: line(node),
                subject: expect_args
                    .iter()
                    .map(|a| text(*a, src))
                    .collect::<Vec<_>>()
                    .join(", "),
                expected: chain.to_string(),
                constant: !expect_args.is_empty() && constant(&all, src),
            });
        } else if root == "assert"
            || (root == "t" && members.len() == 1 && assert_method(&members[0]))
        {
            let (subject, expected) = match args.split_first() {
                Some((first, rest)) => (
                    text(*first, src).to_string(),
                    format!(
                        "{} {}",
                        members.join("."),
                        rest.iter()
                            .map(|a| text(*a, src))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
                None => (String::new(), members.join(".")),
            };
            case.assertions.push(Assertion {
                line: line(node),
                subject,
                expected,
                constant: !args.is_empty() && constant(&args, src),
            });
        } else if (root == "t" || root == "this")
            && members.first().is_some_and(|m| m == "skip" || m == "todo")
        {
            case.skip_line.get_or_insert(line(node));
        } else if helper_name(&root) || members.iter().any(|m| helper_name(m)) {
            case.checks += 1;
        }
    }
    // chai's property assertions: `expect(x).to.be.true`.
    for node in descendants(block) {
        if node.kind() == "expression_statement"
            && let Some(expr) = named(node).first().copied()
            && expr.kind() == "member_expression"
            && expect_call(expr, src).is_some()
        {
            case.checks += 1;
        }
    }
    case.checks += case.assertions.iter().filter(|a| !a.constant).count();
    case
}

/// node:assert, ava and tap assertion method names on `t`.
fn assert_method(name: &str) -> bool {
    matches!(
        name,
        "is" | "not"
            | "ok"
            | "notOk"
            | "equal"
            | "notEqual"
            | "deepEqual"
            | "notDeepEqual"
            | "strictEqual"
            | "same"
            | "truthy"
            | "falsy"
            | "true"
            | "false"
            | "throws"
            | "throwsAsync"
            | "rejects"
            | "match"
            | "assert"
            | "fail"
            | "pass"
            // node-tap's own (`t.strictSame`, `t.has`, …) and node:assert's strict forms
            | "strictSame"
            | "notSame"
            | "strictNotSame"
            | "has"
            | "hasStrict"
            | "notHas"
            | "hasProp"
            | "hasProps"
            | "hasOwnProp"
            | "hasOwnProps"
            | "notMatch"
            | "doesNotThrow"
            | "resolves"
            | "resolveMatch"
            | "matchSnapshot"
            | "throwsSnapshot"
            | "resolveMatchSnapshot"
            | "type"
            | "error"
            | "emits"
            | "deepStrictEqual"
            | "notStrictEqual"
            | "notDeepStrictEqual"
            | "doesNotReject"
            | "ifError"
    )
}

/// The `expect(…)` call at the root of a member chain (`expect(x).not.toBe`), if there is one.
fn expect_call<'a>(callee: Node<'a>, src: &str) -> Option<Node<'a>> {
    let mut node = callee;
    loop {
        match node.kind() {
            "member_expression" => node = node.child_by_field_name("object")?,
            "call_expression" => {
                let f = node.child_by_field_name("function")?;
                if f.kind() == "identifier" {
                    return (text(f, src) == "expect").then_some(node);
                }
                node = f;
            }
            _ => return None,
        }
    }
}

/// The cases of `test.each(table)(title, fn)`: each row of the table (an array of values, one
/// value, or an object) bound to `fn`'s parameters (names, or one object pattern `{ a, want }`).
fn each_params(table_call: Node, body: Node, src: &str) -> Vec<super::Param> {
    let Some(table) = table_call
        .child_by_field_name("arguments")
        .and_then(|a| named(a).first().copied())
        .filter(|t| t.kind() == "array")
    else {
        return Vec::new();
    };
    let params: Vec<Node> = body
        .child_by_field_name("parameters")
        .map(named)
        .or_else(|| body.child_by_field_name("parameter").map(|p| vec![p]))
        .unwrap_or_default();
    let names: Vec<String> = params.iter().map(|p| text(*p, src).to_string()).collect();
    named(table)
        .into_iter()
        .map(|row| {
            let values = match row.kind() {
                "array" => names
                    .iter()
                    .cloned()
                    .zip(named(row).iter().map(|v| text(*v, src).to_string()))
                    .collect(),
                "object" => named(row)
                    .into_iter()
                    .filter(|p| p.kind() == "pair")
                    .filter_map(|p| {
                        let key = p.child_by_field_name("key")?;
                        let value = p.child_by_field_name("value")?;
                        let key = string_value(key, src).unwrap_or_else(|| text(key, src).into());
                        Some((key, text(value, src).to_string()))
                    })
                    .collect(),
                _ => names
                    .first()
                    .map(|n| vec![(n.clone(), text(row, src).to_string())])
                    .unwrap_or_default(),
            };
            super::Param {
                values,
                skip_line: None,
            }
        })
        .collect()
}
