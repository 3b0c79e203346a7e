//! Where a node stands in the code: the statement around it, the condition it chooses in, a
//! message it is only read into, a script's entry-point check.

use super::*;

/// The statement-sized expression around `node` (up to a statement, for what a finding shows
/// and what a constant stands beside). A Python definition ends at the block or module it
/// stands in (its kind ends in `definition`); every child of a JavaScript `program` or a Go
/// `source_file` is a statement or a declaration.
pub(super) fn around<'a>(m: &Meaning<'a>, node: Node<'a>) -> Node<'a> {
    let mut at = node;
    while let Some(p) = m.up(at) {
        if p.kind().ends_with("statement")
            || p.kind().ends_with("declaration")
            || p.kind() == "block"
            || p.kind() == "module"
        {
            break;
        }
        at = p;
    }
    at
}

/// The expression a signal shows: the nearest comparison, call or member access around it
/// (`"pytest" in sys.modules`, `process.env.JEST_WORKER_ID`), else its statement.
pub(super) fn shown<'a>(m: &Meaning<'a>, at: Node<'a>) -> Node<'a> {
    const SHOWN: &[&str] = &[
        "comparison_operator",
        "call",
        "call_expression",
        "member_expression",
        "subscript_expression",
        "binary_expression",
        "attribute",
        "selector_expression",
    ];
    let mut node = at;
    for _ in 0..3 {
        if SHOWN.contains(&node.kind()) {
            return node;
        }
        match m.up(node) {
            Some(p) => node = p,
            None => break,
        }
    }
    around(m, at)
}

/// Whether a node is the condition of an `if`, `elif`, `while`, `for`, `do`, ternary, match or
/// switch subject, or case guard.
pub(super) fn is_condition(m: &Meaning, node: Node) -> bool {
    let Some(parent) = m.up(node) else {
        return false;
    };
    let field = |name: &str| {
        parent
            .child_by_field_name(name)
            .is_some_and(|c| c.id() == node.id())
    };
    match parent.kind() {
        "if_statement" | "elif_clause" | "while_statement" | "ternary_expression"
        | "do_statement" | "for_clause" => field("condition"),
        // JavaScript's `for (;cond;)`; Go's bare `for cond {}` has no field.
        "for_statement" => {
            field("condition")
                || (!matches!(
                    node.kind(),
                    "block" | "for_clause" | "range_clause" | "comment"
                ) && node.is_named()
                    && parent
                        .child_by_field_name("body")
                        .is_some_and(|b| b.id() != node.id())
                    && parent.child_by_field_name("left").is_none()
                    && parent.child_by_field_name("initializer").is_none())
        }
        "match_statement" => field("subject"),
        "switch_statement" | "expression_switch_statement" => field("value"),
        // Python's `a if cond else b`: the condition is the second named child.
        "conditional_expression" => named(parent).get(1).is_some_and(|c| c.id() == node.id()),
        // A case guard (`case x if cond:`) or a comprehension's filter.
        "if_clause" => true,
        _ => false,
    }
}

/// The condition `node` stands in when it chooses what runs: a condition (see
/// [`is_condition`]), or the left side of a short-circuit whose value is thrown away
/// (`under_test and patch()`: it chooses whether the call runs).
pub(super) fn choosing<'a>(m: &Meaning<'a>, node: Node<'a>) -> Option<Node<'a>> {
    let src = m.src;
    let mut at = node;
    loop {
        if is_condition(m, at) {
            return Some(at);
        }
        let parent = m.up(at)?;
        if matches!(parent.kind(), "boolean_operator" | "binary_expression")
            && parent
                .child_by_field_name("left")
                .is_some_and(|l| l.id() == at.id())
            && parent
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(text(o, src), "and" | "or" | "&&" | "||" | "??"))
            && m.up(parent)
                .is_some_and(|g| g.kind() == "expression_statement")
        {
            return Some(at);
        }
        let k = at.kind();
        if k.ends_with("statement")
            || k.ends_with("definition")
            || k.ends_with("declaration")
            || matches!(
                k,
                "block" | "module" | "program" | "source_file" | "statement_block"
            )
            || k.contains("function")
            || k == "lambda"
        {
            return None;
        }
        at = parent;
    }
}

/// Callees that write a message (a log line, a printed or formatted text).
pub(super) const MESSAGES: &[&str] = &[
    "print",
    "pprint",
    "log",
    "debug",
    "info",
    "warn",
    "warning",
    "error",
    "critical",
    "exception",
    "fatal",
    "trace",
    "Println",
    "Printf",
    "Print",
    "Sprintf",
    "Sprint",
    "Sprintln",
    "Fprintf",
    "Fprintln",
    "Fprint",
    "Errorf",
    "Logf",
    "Log",
    "Fatalf",
    "Fatal",
    "Infof",
    "Warnf",
    "Debugf",
    "Info",
    "Warn",
    "Debug",
    "Error",
    "write",
    "format",
    "table",
    "dir",
];

/// Whether `node` is only read into a message: an argument of a printing or logging call, a
/// piece of an f-string or template, or of `%` formatting.
pub(super) fn in_message(m: &Meaning, node: Node) -> bool {
    let src = m.src;
    let mut at = node;
    while let Some(p) = m.up(at) {
        match p.kind() {
            "interpolation" | "template_substitution" => return true,
            "call" | "call_expression" => {
                let callee = p.child_by_field_name("function").map(|f| text(f, src));
                let last = callee.map(|c| c.rsplit('.').next().unwrap_or(c));
                if last.is_some_and(|l| MESSAGES.contains(&l))
                    && p.child_by_field_name("arguments")
                        .is_some_and(|a| a.start_byte() <= at.start_byte())
                {
                    return true;
                }
            }
            "binary_operator"
                if p.child_by_field_name("operator").map(|o| text(o, src)) == Some("%")
                    && p.child_by_field_name("left")
                        .is_some_and(|l| l.kind() == "string" && l.id() != at.id()) =>
            {
                return true;
            }
            _ => {}
        }
        let k = p.kind();
        if k.ends_with("statement") || k.ends_with("definition") || k == "block" {
            return false;
        }
        at = p;
    }
    false
}

/// A script's entry-point check at a program's top level: `if (require.main === module)` or
/// `if (import.meta.url === pathToFileURL(process.argv[1]).href)` tells the script run from the
/// module imported, not a test run from another.
pub(super) fn entry_point(m: &Meaning, cond: Node) -> bool {
    let src = m.src;
    let top = m.up(cond).is_some_and(|p| {
        p.kind() == "if_statement" && m.up(p).is_some_and(|g| g.kind() == "program")
    });
    let mut at = cond;
    while at.kind() == "parenthesized_expression" {
        match named(at).first() {
            Some(inner) => at = *inner,
            None => return false,
        }
    }
    let (Some(l), Some(r), Some(op)) = (
        at.child_by_field_name("left"),
        at.child_by_field_name("right"),
        at.child_by_field_name("operator"),
    ) else {
        return false;
    };
    let (l, r) = (text(l, src), text(r, src));
    let either =
        |a: &dyn Fn(&str) -> bool, b: &dyn Fn(&str) -> bool| (a(l) && b(r)) || (a(r) && b(l));
    top && matches!(text(op, src), "===" | "==")
        && (either(&|t| t == "require.main", &|t| t == "module")
            || either(&|t| t.starts_with("import.meta."), &|t| {
                t.contains("process.argv[1]")
            }))
}
