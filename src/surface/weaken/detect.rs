//! Code that tells a test run from another run (`test-detected`), and code that switches on a
//! configuration naming tests (`test-aware`), on the lines the goal added.
//!
//! In code (not tests): Python `"pytest" in sys.modules` (any string naming pytest or unittest in
//! a statement reading `sys.modules` or `sys.argv`), `PYTEST_CURRENT_TEST`, `PYTEST_VERSION`,
//! `PYTEST_XDIST_WORKER`; JavaScript `NODE_TEST_CONTEXT`, `JEST_WORKER_ID`, `VITEST` (any
//! spelling: `process.env.X`, `process.env["X"]`, `import.meta.env.X`), `typeof jest`, `typeof
//! vi`, `"jest"`, `"vitest"` or `"mocha"` in a statement reading `process.argv`, `"--test"`
//! beside `process.execArgv` (not beside `process.argv`: a program's own flag); Go
//! `testing.Testing()`, `flag.Lookup("test.…")`, `".test"` in a statement reading `os.Args` or
//! `os.Executable` (the test binary's name; a name read into a variable by one statement and
//! compared in another is not seen); Rust `cfg!(test)` and `#[cfg(not(test))]` items (see
//! [`crate::surface::rust::detections`]).
//! In code and tests alike: the condition of an `if`, `while`, `elif`, ternary or match guard that
//! reads the program's own path, its working directory or the temporary folder (`__file__`,
//! `os.getcwd()`, `tempfile.gettempdir()`, `Path.cwd()`, `__dirname`, `process.cwd()`,
//! `os.tmpdir()`, `import.meta.url`, `os.Getwd()`, `os.TempDir()`, `os.Executable()`, `os.Args`,
//! `env!("CARGO_MANIFEST_DIR")`, `std::env::current_dir()`, …): a test whose assertion runs only
//! in some folders.
//! `test-aware`: a comparison of an environment value with `"test"`/`"testing"`
//! (`process.env.NODE_ENV === "test"`, `os.environ.get("ENV") == "test"`).

use std::collections::BTreeSet;

use similar::{ChangeTag, TextDiff};
use tree_sitter::Node;

use super::tree::{descendants, named, parse, string_value, text};
use super::{Finding, FindingKind, Language};

/// Words one of which a file must hold for its detections to be looked for (a cheap look first).
const TRIGGERS: &[&str] = &[
    "pytest",
    "unittest",
    "PYTEST_",
    "NODE_TEST_CONTEXT",
    "JEST_WORKER_ID",
    "VITEST",
    "jest",
    // `typeof vi` (vitest's global).
    "typeof",
    "vitest",
    "mocha",
    "execArgv",
    "Testing",
    "test.",
    "cfg",
    "__file__",
    "cwd",
    "Getwd",
    "tempdir",
    "TempDir",
    "tmpdir",
    "__dirname",
    "__filename",
    "Executable",
    "CARGO_MANIFEST_DIR",
    "current_dir",
    "current_exe",
    "import.meta.url",
    "os.Args",
    "temp_dir",
    "file!",
    "ENV",
    "environ",
    "getenv",
    "Getenv",
];

/// The 1-based lines of `last` that the goal added (all of them for a new file).
pub fn added_lines(base: Option<&str>, last: &str) -> BTreeSet<usize> {
    let Some(base) = base else {
        return (1..=last.lines().count().max(1)).collect();
    };
    TextDiff::from_lines(base, last)
        .iter_all_changes()
        .filter(|c| c.tag() == ChangeTag::Insert)
        .filter_map(|c| c.new_index().map(|i| i + 1))
        .collect()
}

/// What one detection found: its kind, line and what it is (the source text, shortened).
pub type Detection = (FindingKind, usize, String);

/// The `test-detected`/`test-aware` findings of a changed file (`code`: a file of code rather than
/// a test file, where the runner probes count too) on the lines the goal added.
pub fn detected(
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
    code: bool,
    out: &mut Vec<Finding>,
) -> Result<(), String> {
    let (Some(last), Some(language)) = (last, Language::of(path)) else {
        return Ok(());
    };
    if !TRIGGERS.iter().any(|t| last.contains(t)) {
        return Ok(());
    }
    let found = match language {
        Language::Rust => super::super::rust::detections(last, code).map_err(|e| e.to_string())?,
        _ => tree_detections(language, last, code)?,
    };
    if found.is_empty() {
        return Ok(());
    }
    let added = added_lines(base, last);
    for (kind, line, what) in found {
        if added.contains(&line) {
            out.push(Finding {
                kind,
                file: path.to_string(),
                line,
                test: shorten(&what),
            });
        }
    }
    Ok(())
}

/// Source text on one line, at most 60 characters.
pub fn shorten(what: &str) -> String {
    let one: String = what.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &one[..at]),
        None => one,
    }
}

fn tree_detections(language: Language, src: &str, code: bool) -> Result<Vec<Detection>, String> {
    let (lang, what): (tree_sitter::Language, &str) = match language {
        Language::Python => (tree_sitter_python::LANGUAGE.into(), "Python"),
        Language::JavaScript => (tree_sitter_javascript::LANGUAGE.into(), "JavaScript"),
        Language::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            "TypeScript",
        ),
        Language::Tsx => (tree_sitter_typescript::LANGUAGE_TSX.into(), "TSX"),
        Language::Go => (tree_sitter_go::LANGUAGE.into(), "Go"),
        Language::Rust => return Ok(Vec::new()),
    };
    let tree = parse(src, lang, what)?;
    let mut out = Vec::new();
    for node in descendants(tree.root_node()) {
        if code && let Some(d) = runner_probe(language, node, src) {
            out.push(d);
        }
        if is_condition(node)
            && let Some(probe) = path_probe(node, src)
        {
            out.push((
                FindingKind::TestDetected,
                line(probe),
                text(node, src).to_string(),
            ));
        }
        if code && let Some(d) = aware(node, src) {
            out.push(d);
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.1 == b.1 && a.0 == b.0);
    Ok(out)
}

fn line(node: Node) -> usize {
    node.start_position().row + 1
}

/// The statement-sized expression around `node` (up to a statement, for what a finding shows).
/// A Python definition ends at the block or module it stands in (its kind ends in
/// `definition`); every child of a JavaScript `program` or a Go `source_file` is a statement or
/// a declaration.
fn around<'a>(node: Node<'a>) -> Node<'a> {
    let mut at = node;
    while let Some(p) = at.parent() {
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

/// The expression a runner probe shows: the nearest comparison, call or member access around it
/// (`"pytest" in sys.modules`, `process.env.JEST_WORKER_ID`), else its statement.
fn shown(at: Node) -> Node {
    const SHOWN: &[&str] = &[
        "comparison_operator",
        "call",
        "call_expression",
        "member_expression",
        "subscript_expression",
        "binary_expression",
    ];
    let mut node = at;
    for _ in 0..3 {
        if SHOWN.contains(&node.kind()) {
            return node;
        }
        match node.parent() {
            Some(p) => node = p,
            None => break,
        }
    }
    around(at)
}

/// A probe of the test runner in code (see the module's documentation).
fn runner_probe(language: Language, node: Node, src: &str) -> Option<Detection> {
    let probe = match language {
        Language::Python => python_probe(node, src),
        Language::Go => go_probe(node, src),
        _ => js_probe(node, src),
    };
    probe.then(|| {
        (
            FindingKind::TestDetected,
            line(node),
            text(shown(node), src).to_string(),
        )
    })
}

/// Whether the statement around `node` reads one of `sources` (`sys.modules`, `os.Args`).
fn beside(node: Node, src: &str, sources: &[&str]) -> bool {
    let statement = text(around(node), src);
    sources.iter().any(|s| statement.contains(s))
}

/// Python: the variables pytest sets (`PYTEST_CURRENT_TEST`, `PYTEST_VERSION`, xdist's
/// `PYTEST_XDIST_WORKER`), or a runner's name beside `sys.modules` or `sys.argv`
/// (`"pytest" in sys.modules`, `"pytest" in sys.argv[0]`).
fn python_probe(node: Node, src: &str) -> bool {
    if node.kind() != "string" {
        return false;
    }
    let Some(value) = string_value(node, src) else {
        return false;
    };
    matches!(
        value.as_str(),
        "PYTEST_CURRENT_TEST" | "PYTEST_VERSION" | "PYTEST_XDIST_WORKER"
    ) || (matches!(
        value.as_str(),
        "pytest" | "_pytest" | "unittest" | "py.test"
    ) && beside(node, src, &["sys.modules", "sys.argv"]))
}

/// Go: `testing.Testing()`, `flag.Lookup("test.…")`, or the test binary's `.test` suffix beside
/// `os.Args` or `os.Executable` (`strings.HasSuffix(os.Args[0], ".test")`).
fn go_probe(node: Node, src: &str) -> bool {
    match node.kind() {
        "call_expression" => {
            let callee = node.child_by_field_name("function").map(|f| text(f, src));
            let args = node.child_by_field_name("arguments").map(|a| text(a, src));
            callee == Some("testing.Testing")
                || (callee == Some("flag.Lookup") && args.is_some_and(|a| a.contains("\"test.")))
        }
        "interpreted_string_literal" | "raw_string_literal" => {
            string_value(node, src).is_some_and(|v| v == ".test" || v == ".test.exe")
                && beside(node, src, &["os.Args", "os.Executable"])
        }
        _ => false,
    }
}

/// JavaScript and TypeScript: the runners' variables (`JEST_WORKER_ID`, …), `typeof jest` or
/// `typeof vi`, a runner's name beside `process.argv`, node's `--test` beside `process.execArgv`.
fn js_probe(node: Node, src: &str) -> bool {
    let word = match node.kind() {
        "identifier" | "property_identifier" => text(node, src).to_string(),
        "string" => match string_value(node, src) {
            Some(value) => value,
            None => return false,
        },
        _ => return false,
    };
    if matches!(
        word.as_str(),
        "NODE_TEST_CONTEXT" | "JEST_WORKER_ID" | "VITEST" | "VITEST_WORKER_ID" | "VITEST_POOL_ID"
    ) {
        return true;
    }
    if node.kind() == "string" {
        return (matches!(word.as_str(), "jest" | "vitest" | "mocha")
            && beside(node, src, &["process.argv"]))
            || (word == "--test" && beside(node, src, &["process.execArgv"]));
    }
    node.kind() == "identifier"
        && matches!(word.as_str(), "jest" | "vi")
        && node
            .parent()
            .is_some_and(|p| p.kind() == "unary_expression" && text(p, src).starts_with("typeof"))
}

/// Whether a node is the condition of an `if`, `elif`, `while`, ternary or match guard.
fn is_condition(node: Node) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    let field = |name: &str| {
        parent
            .child_by_field_name(name)
            .is_some_and(|c| c.id() == node.id())
    };
    match parent.kind() {
        "if_statement" | "elif_clause" | "while_statement" | "ternary_expression"
        | "for_statement" => field("condition"),
        // Python's `a if cond else b`: the condition is the second named child.
        "conditional_expression" => named(parent).get(1).is_some_and(|c| c.id() == node.id()),
        _ => false,
    }
}

/// Names that read the program's own path, working directory or temporary folder.
const PATH_PROBES: &[&str] = &[
    "__file__",
    "getcwd",
    "getcwdb",
    "gettempdir",
    "gettempdirb",
    "cwd",
    "tempdir",
    "__dirname",
    "__filename",
    "tmpdir",
    "Getwd",
    "TempDir",
    "Executable",
];

/// The first node in a condition that reads a path of the run (see [`PATH_PROBES`];
/// `import.meta.url`, `os.Args`).
fn path_probe<'a>(cond: Node<'a>, src: &str) -> Option<Node<'a>> {
    descendants(cond).into_iter().find(|d| {
        let t = text(*d, src);
        (matches!(
            d.kind(),
            "identifier" | "property_identifier" | "field_identifier"
        ) && PATH_PROBES.contains(&t))
            || (matches!(d.kind(), "member_expression" | "selector_expression")
                && matches!(t, "import.meta.url" | "os.Args"))
    })
}

/// A comparison of an environment value with `"test"` in code (`test-aware`).
fn aware(node: Node, src: &str) -> Option<Detection> {
    if !matches!(node.kind(), "binary_expression" | "comparison_operator") {
        return None;
    }
    let parts = named(node);
    let is_test = |n: &Node| {
        string_value(*n, src)
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "test" | "testing"))
    };
    let env = |n: &Node| {
        let t = text(*n, src);
        ["env", "ENV", "environ", "getenv", "Getenv"]
            .iter()
            .any(|w| t.contains(w))
    };
    let hit = parts.iter().any(is_test) && parts.iter().any(|p| !is_test(p) && env(p));
    hit.then(|| {
        (
            FindingKind::TestAware,
            line(node),
            text(node, src).to_string(),
        )
    })
}
