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

/// A call that may be a suite or a test: `describe(title, fn)`, `it.skip(title, fn)`,
/// `test.each(table)(title, fn)`.
struct Call<'a> {
    node: Node<'a>,
    /// The called expression (`it.skip`, `test.each(table)`).
    callee: Node<'a>,
    /// The runner's name (`it`) and the members after it (`skip`, `each`).
    root: String,
    members: Vec<String>,
    args: Vec<Node<'a>>,
    /// The first argument's text (a literal's value) when it is no function or options object.
    title: Option<String>,
    /// The last argument that is a function written inline.
    body: Option<Node<'a>>,
}

impl Call<'_> {
    /// The line of the call's skip marker, if it has one.
    fn skip_marker(&self, src: &str) -> Option<usize> {
        skip_marker(self.node, &self.root, &self.members, &self.args, src)
    }
}

/// Finds the suites and tests under `node`, `suites` the titles of the suites around it,
/// `skipped` the line of a skip marker on one of them.
fn visit(
    node: Node,
    suites: &mut Vec<String>,
    skipped: Option<usize>,
    src: &str,
    out: &mut Vec<TestCase>,
) {
    if let Some(call) = call_of(node, src)
        && suite_or_test(&call, suites, skipped, src, out)
    {
        return;
    }
    for child in named(node) {
        visit(child, suites, skipped, src, out);
    }
}

/// A call expression read as a [`Call`]; None for another node.
fn call_of<'a>(node: Node<'a>, src: &str) -> Option<Call<'a>> {
    if node.kind() != "call_expression" {
        return None;
    }
    let callee = node.child_by_field_name("function")?;
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
    Some(Call {
        node,
        callee,
        root,
        members,
        args,
        title,
        body,
    })
}

/// Reads a call as a marked test without an inline function, a suite (whose tests it visits)
/// or a test, and pushes what it finds; false when it is none of them.
fn suite_or_test(
    call: &Call,
    suites: &mut Vec<String>,
    skipped: Option<usize>,
    src: &str,
    out: &mut Vec<TestCase>,
) -> bool {
    if let Some(case) = marked_by_reference(call, suites, src) {
        out.push(case);
        return true;
    }
    let (Some(title), Some(body)) = (&call.title, call.body) else {
        return false;
    };
    let skip = call.skip_marker(src).or(skipped);
    if SUITES.contains(&call.root.as_str()) {
        suites.push(title.clone());
        visit(body, suites, skip, src, out);
        suites.pop();
        return true;
    }
    if TESTS.contains(&call.root.as_str()) {
        let mut case = case(full_name(suites, title), call.node, body, skip, src);
        if call.callee.kind() == "call_expression" && call.members.iter().any(|m| m == "each") {
            case.params = each_params(call.callee, body, src);
        }
        out.push(case);
        return true;
    }
    false
}

/// A test's name after the suites around it: `suite > case`.
fn full_name(suites: &[String], title: &str) -> String {
    let mut name = suites.join(" > ");
    if !name.is_empty() {
        name.push_str(" > ");
    }
    name.push_str(title);
    name
}

/// A marked test whose function is not written inline (`it.only(name, check)`): its mark is
/// known, its body is not (so it is not called assertion-free).
fn marked_by_reference(call: &Call, suites: &[String], src: &str) -> Option<TestCase> {
    let (Some(title), None) = (&call.title, call.body) else {
        return None;
    };
    if !TESTS.contains(&call.root.as_str()) {
        return None;
    }
    let skip = call.skip_marker(src)?;
    Some(TestCase {
        name: full_name(suites, title),
        line: line(call.node),
        skip_line: Some(skip),
        body: text(call.node, src).to_string(),
        assertions: Vec::new(),
        checks: 1,
        empty: false,
        params: Vec::new(),
        scope: String::new(),
    })
}

/// A test case from its call and inline function: its assertions (`expect(…)` chains, `assert…`
/// and `t.…` methods), a skip in its body (`t.skip()`, `this.skip()`), and its checks (helpers
/// called, chai's property assertions, assertions of more than constants).
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
        scope: String::new(),
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
            case.assertions
                .push(expect_assertion(node, expect, &args, src));
        } else if root == "assert"
            || (root == "t" && members.len() == 1 && assert_method(&members[0]))
        {
            case.assertions
                .push(assert_assertion(node, &members, &args, src));
        } else if (root == "t" || root == "this")
            && members.first().is_some_and(|m| m == "skip" || m == "todo")
        {
            case.skip_line.get_or_insert(line(node));
        } else if helper_name(&root) || members.iter().any(|m| helper_name(m)) {
            case.checks += 1;
        }
    }
    case.checks += property_assertions(block, src);
    case.checks += case.assertions.iter().filter(|a| !a.constant).count();
    case
}

/// An `expect(subject).chain(args)` assertion: the subject `expect`'s arguments, the expected
/// the chain after it; constant when the subject and the chain's arguments all are.
fn expect_assertion(node: Node, expect: Node, args: &[Node], src: &str) -> Assertion {
    let expect_args: Vec<Node> = expect
        .child_by_field_name("arguments")
        .map(named)
        .unwrap_or_default();
    let chain = &text(node, src)[expect.end_byte() - node.start_byte()..];
    let mut all = expect_args.clone();
    all.extend(args.iter().copied());
    Assertion {
        line: line(node),
        subject: expect_args
            .iter()
            .map(|a| text(*a, src))
            .collect::<Vec<_>>()
            .join(", "),
        expected: chain.to_string(),
        constant: !expect_args.is_empty() && constant(&all, src),
    }
}

/// An `assert.method(subject, rest…)` or `t.method(subject, rest…)` assertion: the subject its
/// first argument, the expected the method and the rest.
fn assert_assertion(node: Node, members: &[String], args: &[Node], src: &str) -> Assertion {
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
    Assertion {
        line: line(node),
        subject,
        expected,
        constant: !args.is_empty() && constant(args, src),
    }
}

/// How many of chai's property assertions (`expect(x).to.be.true`) a block holds.
fn property_assertions(block: Node, src: &str) -> usize {
    descendants(block)
        .into_iter()
        .filter(|node| {
            node.kind() == "expression_statement"
                && named(*node).first().copied().is_some_and(|expr| {
                    expr.kind() == "member_expression" && expect_call(expr, src).is_some()
                })
        })
        .count()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each test case of a file as one line: name, line, skip line, checks, emptiness, assertions
    /// (line, subject, expected, constant), the table's cases and the body.
    fn read(src: &str) -> Vec<String> {
        let cases = match test_cases(src, Dialect::TypeScript) {
            Ok(cases) => cases,
            Err(e) => panic!("{src}: {e}"),
        };
        cases
            .into_iter()
            .map(|c| {
                let assertions: Vec<String> = c
                    .assertions
                    .iter()
                    .map(|a| format!("{}:{}|{}|{}", a.line, a.subject, a.expected, a.constant))
                    .collect();
                let params: Vec<String> = c
                    .params
                    .iter()
                    .map(|p| {
                        let values: Vec<String> =
                            p.values.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        values.join(",")
                    })
                    .collect();
                format!(
                    "{}@{} skip={:?} checks={} empty={} {assertions:?} {params:?} <{}>",
                    c.name, c.line, c.skip_line, c.checks, c.empty, c.body
                )
            })
            .collect()
    }

    #[test]
    fn what_each_test_form_reads_as() {
        // (source, its cases as `read` shows them)
        let cases: &[(&str, &[&str])] = &[
            (
                "describe('calc', () => {\n  it('adds', () => {\n    expect(add(2, 2)).not.toBe(4);\n    expect(1).toBe(1);\n  });\n});\n",
                &[
                    "calc > adds@2 skip=None checks=1 empty=false [\"3:add(2, 2)|.not.toBe(4)|false\", \"4:1|.toBe(1)|true\"] [] <{ expect ( add ( 2 , 2 ) ) . not . toBe ( 4 ) ; expect ( 1 ) . toBe ( 1 ) ; }>",
                ],
            ),
            (
                "test('a', (t) => {\n  assert.strictEqual(f(), 4);\n  t.is(g(), 1);\n  t.end();\n  assert(h);\n  assert.ok(true);\n});\n",
                &[
                    "a@1 skip=None checks=3 empty=false [\"2:f()|strictEqual 4|false\", \"3:g()|is 1|false\", \"5:h| |false\", \"6:true|ok |true\"] [] <{ assert . strictEqual ( f ( ) , 4 ) ; t . is ( g ( ) , 1 ) ; t . end ( ) ; assert ( h ) ; assert . ok ( true ) ; }>",
                ],
            ),
            (
                "it('b', function () {\n  this.skip();\n  checkSum(1);\n  expect(x).to.be.true;\n  t.todo();\n});\n",
                &[
                    "b@1 skip=Some(2) checks=3 empty=false [] [] <{ this . skip ( ) ; checkSum ( 1 ) ; expect ( x ) . to . be . true ; t . todo ( ) ; }>",
                ],
            ),
            (
                "it.only('named', check);\ntest('plain', check);\nxit(`tpl ${x}`, check);\nfoo('not a test', () => { expect(1).toBe(2); });\n",
                &[
                    "named@1 skip=Some(1) checks=1 empty=false [] [] <it.only('named', check)>",
                    "tpl ${x}@3 skip=Some(3) checks=1 empty=false [] [] <xit(`tpl ${x}`, check)>",
                ],
            ),
            (
                "test('off', { skip: false }, () => {});\ntest('todo', { todo: true }, () => {});\ntest('opts', { timeout: 5 }, () => {});\n",
                &[
                    "off@1 skip=None checks=0 empty=true [] [] <{ }>",
                    "todo@2 skip=Some(2) checks=0 empty=true [] [] <{ }>",
                    "opts@3 skip=None checks=0 empty=true [] [] <{ }>",
                ],
            ),
            (
                "xdescribe('s', () => {\n  describe('inner', () => {\n    it('deep', () => expect(f()).toBe(1));\n  });\n});\nfit('focus', async () => {\n  await g();\n});\n",
                &[
                    "s > inner > deep@3 skip=Some(1) checks=1 empty=false [\"3:f()|.toBe(1)|false\"] [] <expect ( f ( ) ) . toBe ( 1 )>",
                    "focus@6 skip=Some(6) checks=0 empty=false [] [] <{ await g ( ) ; }>",
                ],
            ),
            (
                "test.each([[1, 2], { a: 3, 'b': 4 }, 5])('t %i', (a, b) => {\n  expect(a).toBe(b);\n});\ntest.each(table)('u', (a) => {});\nit.each([[1]])('v', ({ a }) => {});\ndescribe.each([[1]])('w %i', (n) => {\n  it(name + 'x', () => {});\n});\n",
                &[
                    "t %i@1 skip=None checks=1 empty=false [\"2:a|.toBe(b)|false\"] [\"a=1,b=2\", \"a=3,b=4\", \"a=5\"] <{ expect ( a ) . toBe ( b ) ; }>",
                    "u@4 skip=None checks=0 empty=true [] [] <{ }>",
                    "v@5 skip=None checks=0 empty=true [] [\"{ a }=1\"] <{ }>",
                    "w %i > name + 'x'@7 skip=None checks=0 empty=true [] [] <{ }>",
                ],
            ),
            (
                "test.skip.each([[1]])('s %i', a => {});\nit.skipIf(win)('w', () => {});\nit.concurrent('c', () => {});\n",
                &[
                    "s %i@1 skip=Some(1) checks=0 empty=true [] [\"a=1\"] <{ }>",
                    "w@2 skip=Some(2) checks=0 empty=true [] [] <{ }>",
                    "c@3 skip=None checks=0 empty=true [] [] <{ }>",
                ],
            ),
        ];
        for (src, want) in cases {
            assert_eq!(read(src), *want, "{src}");
        }
    }
}
