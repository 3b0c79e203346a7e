//! Small helpers over tree-sitter syntax trees shared by the Python, JavaScript and Go readers.

use tree_sitter::{Language, Node, Parser, Tree};

/// Parse `text`; a text with a syntax error is refused (its tests would be guessed, not read).
pub(super) fn parse(text: &str, language: Language, what: &str) -> Result<Tree, String> {
    let mut parser = Parser::new();
    parser
        .set_language(&language)
        .map_err(|e| format!("the {what} parser cannot load: {e}"))?;
    let tree = parser
        .parse(text, None)
        .ok_or_else(|| format!("the {what} parser gave up"))?;
    let root = tree.root_node();
    if root.has_error() {
        let line = first_error(root).map_or(1, line);
        return Err(format!("not valid {what}: a syntax error at line {line}"));
    }
    Ok(tree)
}

fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    kids(node).into_iter().find_map(first_error)
}

/// The 1-based line a node starts on.
pub(super) fn line(node: Node) -> usize {
    node.start_position().row + 1
}

pub(super) fn text<'a>(node: Node, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or("")
}

/// All children, named or not.
pub(super) fn kids(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

pub(super) fn named(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|n| !n.kind().contains("comment"))
        .collect()
}

/// The node and everything under it, in source order (a parent before its children, children
/// in order: a walk down the tree gives that order without sorting).
pub(super) fn descendants(node: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    loop {
        out.push(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.depth() == 0 {
                return out;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
        }
    }
}

/// Node kinds that name something (a variable, a call, a member): an expression holding none
/// of them is a constant.
const NAMING: &[&str] = &[
    "identifier",
    "attribute",
    "call",
    "call_expression",
    "member_expression",
    "subscript",
    "subscript_expression",
    "selector_expression",
    "this",
    "self",
    "await",
    "await_expression",
];

/// Whether every node in `nodes` holds only literals (`True`, `4`, `"a"`, `undefined`, `nil`).
pub(super) fn constant(nodes: &[Node], src: &str) -> bool {
    nodes.iter().all(|n| {
        descendants(*n).iter().all(|d| {
            !NAMING.contains(&d.kind())
                || (d.kind() == "identifier"
                    && matches!(text(*d, src), "undefined" | "NaN" | "Infinity" | "iota"))
        })
    })
}

/// The words in a callee's name that make a call a check (`check_sum`, `assertThat`, `verify`).
pub(super) fn helper_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "assert", "check", "expect", "verify", "ensure", "should", "must", "raises", "fail",
    ]
    .iter()
    .any(|w| name.contains(w))
}

/// A string literal's content (quotes dropped), for test names.
pub(super) fn string_value(node: Node, src: &str) -> Option<String> {
    match node.kind() {
        "string" | "template_string" | "interpreted_string_literal" | "raw_string_literal" => {
            let t = text(node, src);
            let t = t.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            Some(
                t.trim_matches(|c| c == '"' || c == '\'' || c == '`')
                    .to_string(),
            )
        }
        _ => None,
    }
}

/// The leaf tokens of `node` without comments, joined by spaces: its text as the tests compare
/// bodies (a comment or a change of layout changes no test).
pub(super) fn tokens(node: Node, src: &str) -> String {
    descendants(node)
        .into_iter()
        .filter(|n| n.child_count() == 0 && !n.kind().contains("comment"))
        .map(|n| text(n, src))
        .collect::<Vec<_>>()
        .join(" ")
}
