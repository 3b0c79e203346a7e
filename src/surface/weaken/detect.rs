//! Code that tells a test run from another run, on the lines the goal added: `test-detected`
//! (refusing) where it chooses what runs, `test-aware` (shown) where it is only written into a
//! message.
//!
//! Python, JavaScript/TypeScript and Go are read through `Meaning` (names followed to what
//! they are bound to, constant strings folded), so a signal counts however it is spelled. A
//! signal is a value of one of these categories (see `Level`):
//!
//! - the runner's state (`Level::Probe`): a runner's module named beside where modules, the
//!   command line, the runtime's flags or the stack are read (`RUNNERS`, `SOURCES`); a
//!   variable only a runner or `goal`'s own runs set, beside any access to the environment
//!   (`RUNNER_ENV`, `ENV_SOURCES`); a runner's globals (`TEST_GLOBALS`, by `typeof` or off
//!   the global object); the runner's own answer (`testing.Testing()`, a `test.` flag);
//! - process state a runner changes that code also reads for itself (`Level::State`): fault
//!   handlers, tracing, the captured streams' type, warning filters, the call stack, the build's
//!   information, a CI service's variables, a setting compared with `"test"`;
//! - where and as what the program runs (`Level::Weak`): its name, files, working directory,
//!   temporary folder, host and thread (`NAMED`);
//! - code only a test run loads: a runner's module, a conftest or a tests folder's module
//!   imported under an `if`, a `try` or a ternary (and the names that `try` assigns); a Go test
//!   file's `init` assigning a variable the file does not declare (`test_only_settings`).
//!
//! The rule is by use. A signal, or a name or function carrying one, that chooses what runs (the
//! condition of a branch or loop, a ternary, a match or switch subject, a case guard, the left of
//! a short-circuit whose value is thrown away: see `choosing`) is `test-detected`. Outside such
//! a position, the runner's state is `test-detected` wherever it is asked and `test-aware` when
//! only written into a message (`in_message`); process state is `test-aware` in a message and
//! nothing otherwise; where the program runs is nothing otherwise (an honest CLI reads its own
//! name, host and arguments). A script's entry-point check is not a choice on a test run
//! (`entry_point`). In tests only the last category counts (a test whose assertion runs only in
//! some folders or on some hosts): a test always runs under its runner.
//!
//! Rust is read by [`crate::surface::rust::detections`].

use std::collections::BTreeSet;

use similar::{ChangeTag, TextDiff};
use tree_sitter::Node;

use super::meaning::{Level, Meaning, Val};
use super::tree::{descendants, line, named, parse, text};
use super::{Finding, FindingKind, Language};

/// Words one of which a file must hold for its detections to be looked for (a cheap look first):
/// every signal is read through one of these modules, globals or names (folding and names only
/// join what these reach), so a file with none of them has none.
const TRIGGERS: &[&str] = &[
    // Modules and globals whose members are signals or sources.
    "sys",
    "os",
    "process",
    "environ",
    "getenv",
    "Getenv",
    "Environ",
    "LookupEnv",
    "Args",
    "argv",
    "flag",
    "debug",
    "runtime",
    "faulthandler",
    "trace",
    "stdout",
    "stderr",
    "warnings",
    "inspect",
    "_getframe",
    "typeof",
    "global",
    "window",
    "self",
    "require",
    "module",
    "Error",
    "stack",
    "socket",
    "platform",
    "thread",
    "Thread",
    "cwd",
    "Getwd",
    "tmp",
    "temp",
    "Temp",
    "__file__",
    "__dirname",
    "__filename",
    "import",
    "Executable",
    "Hostname",
    "hostname",
    "pathlib",
    "Path",
    "env",
    "ENV",
    "CI",
    "GOAL_",
    // Runners' names, their variables and their flags (`test`, `Test`, `TEST`).
    "test",
    "Test",
    "TEST",
    "jest",
    "JEST",
    "vitest",
    "VITEST",
    "mocha",
    "nose",
    "hypothesis",
    "pluggy",
    // The Rust detector's.
    "cfg",
    "CARGO_MANIFEST_DIR",
    "current_dir",
    "current_exe",
    "temp_dir",
    "file!",
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
    detected_beside(path, base, last, code, &[], out)
}

/// The Python modules a file under a tests folder makes importable (`tests/_overrides.py`:
/// `_overrides`, as pytest puts its folder on `sys.path`, and `tests._overrides`).
pub fn test_modules<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut out = Vec::new();
    for path in paths {
        let Some(stem) = path.strip_suffix(".py") else {
            continue;
        };
        let mut parts: Vec<&str> = stem.split('/').collect();
        if parts.last() == Some(&"__init__") {
            parts.pop();
        }
        let Some((name, folders)) = parts.split_last() else {
            continue;
        };
        if folders
            .iter()
            .any(|p| matches!(*p, "tests" | "test" | "testing"))
        {
            out.push(name.to_string());
            out.push(parts.join("."));
        }
    }
    out
}

/// [`detected`], knowing the modules only a test run can import (see [`test_modules`]): the
/// goal's files under a tests folder.
pub fn detected_beside(
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
    code: bool,
    test_only: &[String],
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
        _ => tree_detections(language, last, code, test_only)?,
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

fn tree_detections(
    language: Language,
    src: &str,
    code: bool,
    test_only: &[String],
) -> Result<Vec<Detection>, String> {
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
    let root = tree.root_node();
    let nodes = descendants(root);
    let mut meaning = Meaning::new(root, src, language);
    // Imports only a test run loads, chosen by an `if` or a `try`: the import is a signal, and
    // so are the names the `try` around it assigns.
    let mut loads = Vec::new();
    for node in &nodes {
        if let Some(scope) = conditional_load(&meaning, *node, test_only) {
            let name = match node.kind() {
                "import_statement" | "import_from_statement" => None,
                _ => node
                    .parent()
                    .filter(|p| p.kind() == "variable_declarator")
                    .and_then(|p| p.child_by_field_name("name")),
            };
            let try_scope = (scope.kind() == "try_statement").then_some(scope);
            meaning.mark(try_scope, name, Level::Probe);
            for d in descendants(*node) {
                if matches!(d.kind(), "dotted_name" | "aliased_import") && d.parent() == Some(*node)
                {
                    let bound = d
                        .child_by_field_name("alias")
                        .or_else(|| named(d).first().copied());
                    meaning.mark(None, bound, Level::Probe);
                }
            }
            loads.push(*node);
        }
    }
    meaning.settle(&|m, n| signal(m, n).map(|s| s.0));
    // Found: (kind, line, rank, shown); rank 0 (the signal itself) is shown before rank 1
    // (the condition it stands in).
    let mut found: Vec<(FindingKind, usize, u8, String)> = Vec::new();
    for node in &loads {
        if code {
            found.push((
                FindingKind::TestDetected,
                line(*node),
                0,
                text(*node, src).to_string(),
            ));
        }
    }
    for node in nodes {
        if let Some((level, derived)) = signal(&meaning, node) {
            if !code && level != Level::Weak {
                continue;
            }
            let chosen = choosing(&meaning, node);
            let message = in_message(&meaning, node);
            match (chosen, level, derived) {
                (Some(_), Level::Probe, false) => found.push((
                    FindingKind::TestDetected,
                    line(node),
                    0,
                    text(shown(&meaning, node), src).to_string(),
                )),
                (Some(cond), _, _) if !entry_point(&meaning, cond) => found.push((
                    FindingKind::TestDetected,
                    line(node),
                    1,
                    text(cond, src).to_string(),
                )),
                (Some(_), _, _) => {}
                (None, Level::Probe, false) => {
                    let kind = if message {
                        FindingKind::TestAware
                    } else {
                        FindingKind::TestDetected
                    };
                    found.push((
                        kind,
                        line(node),
                        0,
                        text(shown(&meaning, node), src).to_string(),
                    ))
                }
                (None, Level::State | Level::Probe, _) if message => found.push((
                    FindingKind::TestAware,
                    line(node),
                    0,
                    text(shown(&meaning, node), src).to_string(),
                )),
                _ => {}
            }
        }
        // A switch on a setting named "test" (jest sets `NODE_ENV`; a test configuration sets
        // others): refused where it chooses what runs, else shown.
        if code && let Some((kind, line, shown)) = aware(&meaning, node) {
            match choosing(&meaning, node) {
                Some(cond) => found.push((
                    FindingKind::TestDetected,
                    line,
                    1,
                    text(cond, src).to_string(),
                )),
                None => found.push((kind, line, 0, shown)),
            }
        }
    }
    if !code && language == Language::Go {
        for at in test_only_settings(&meaning, root) {
            found.push((
                FindingKind::TestDetected,
                line(at),
                0,
                text(at, src).to_string(),
            ));
        }
    }
    found.sort();
    found.dedup_by(|a, b| a.1 == b.1 && a.0 == b.0);
    Ok(found.into_iter().map(|(k, l, _, t)| (k, l, t)).collect())
}
/// Go code compiled only under test that changes what the code does: an assignment in a test
/// file's `init` to a variable the file does not declare (the package's own, or an imported
/// package's `pkg.Hook`), which holds in every test of the package and never outside them.
fn test_only_settings<'a>(m: &Meaning<'a>, root: Node<'a>) -> Vec<Node<'a>> {
    let src = m.src;
    let all = descendants(root);
    let declared: std::collections::HashSet<&str> = all
        .iter()
        .filter(|d| {
            d.kind() == "identifier"
                && m.up(**d).is_some_and(|p| {
                    matches!(
                        p.kind(),
                        "var_spec"
                            | "const_spec"
                            | "parameter_declaration"
                            | "function_declaration"
                    ) || (p.kind() == "expression_list"
                        && m.up(p).is_some_and(|g| {
                            matches!(g.kind(), "short_var_declaration" | "range_clause")
                                && g.child_by_field_name("left")
                                    .is_some_and(|l| l.id() == p.id())
                        }))
                })
        })
        .map(|d| text(*d, src))
        .collect();
    let mut out = Vec::new();
    for init in all.iter().filter(|d| {
        d.kind() == "function_declaration"
            && d.child_by_field_name("name").map(|n| text(n, src)) == Some("init")
    }) {
        for a in descendants(*init) {
            if a.kind() != "assignment_statement" {
                continue;
            }
            let Some(left) = a.child_by_field_name("left") else {
                continue;
            };
            let outside = named(left).iter().any(|l| match l.kind() {
                "identifier" => text(*l, src) != "_" && !declared.contains(text(*l, src)),
                "selector_expression" => l
                    .child_by_field_name("operand")
                    .is_some_and(|o| matches!(m.eval(o), Some(Val::Name(p)) if p != text(o, src) || !declared.contains(text(o, src)))),
                _ => false,
            });
            if outside {
                out.push(a);
            }
        }
    }
    out
}

/// The statement-sized expression around `node` (up to a statement, for what a finding shows
/// and what a constant stands beside). A Python definition ends at the block or module it
/// stands in (its kind ends in `definition`); every child of a JavaScript `program` or a Go
/// `source_file` is a statement or a declaration.
fn around<'a>(m: &Meaning<'a>, node: Node<'a>) -> Node<'a> {
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
fn shown<'a>(m: &Meaning<'a>, at: Node<'a>) -> Node<'a> {
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
fn is_condition(m: &Meaning, node: Node) -> bool {
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
fn choosing<'a>(m: &Meaning<'a>, node: Node<'a>) -> Option<Node<'a>> {
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
const MESSAGES: &[&str] = &[
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
fn in_message(m: &Meaning, node: Node) -> bool {
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
fn entry_point(m: &Meaning, cond: Node) -> bool {
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

/// Modules of test runners and their plugin machinery (a module name's top package, or a path
/// segment: `_pytest.main`, `site-packages/_pytest/`, `@jest/core`).
const RUNNERS: &[&str] = &[
    "pytest",
    "_pytest",
    "py.test",
    "pluggy",
    "unittest",
    "nose",
    "nose2",
    "doctest",
    "hypothesis",
    "xdist",
    "pytest_xdist",
    "_jb_pytest_runner",
    "jest",
    "jest-worker",
    "jest-circus",
    "jest-runner",
    "vitest",
    "mocha",
    "jasmine",
    "ava",
    "tap",
    "node:test",
    "ts-jest",
];

/// Environment variables only a test runner, or `goal` running a turn, sets (a name starting
/// with one of these; `PYTEST_XDIST_` and `VITEST_` name a family).
const RUNNER_ENV: &[&str] = &[
    "PYTEST_CURRENT_TEST",
    "PYTEST_VERSION",
    "PYTEST_XDIST_",
    "NODE_TEST_CONTEXT",
    "JEST_WORKER_ID",
    "VITEST",
    "TEST_WORKER_INDEX",
    "TEST_PARALLEL_INDEX",
    "MOCHA_WORKER_ID",
    "GOAL_RUN",
    "GOAL_ITERATION",
    "GOAL_AGENT",
    "GOAL_RUN_AGENT",
];

/// Environment variables a CI service sets.
const CI_ENV: &[&str] = &[
    "CI",
    "CONTINUOUS_INTEGRATION",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "BUILDKITE",
    "CIRCLECI",
    "TRAVIS",
    "JENKINS_URL",
    "TF_BUILD",
    "TEAMCITY_VERSION",
    "BITBUCKET_BUILD_NUMBER",
    "DRONE",
];

/// Environment variables naming the host, the working directory or the program.
const WEAK_ENV: &[&str] = &["PWD", "OLDPWD", "HOSTNAME", "COMPUTERNAME", "_"];

/// Globals a JavaScript test runner defines.
const TEST_GLOBALS: &[&str] = &[
    "it",
    "describe",
    "test",
    "expect",
    "jest",
    "vi",
    "beforeEach",
    "afterEach",
    "beforeAll",
    "afterAll",
    "suite",
    "before",
    "after",
    "fit",
    "xit",
    "xdescribe",
    "mocha",
    "jasmine",
];

/// Canonical names (see [`Meaning`]) whose value is a signal, by category.
const NAMED: &[(&str, Level)] = &[
    // The runner's own answer.
    ("testing.Testing()", Level::Probe),
    // Process state a runner changes: fault handlers, tracing, captured output, warning
    // filters, the call stack, the build's information.
    ("faulthandler.is_enabled()", Level::State),
    ("sys.gettrace()", Level::State),
    ("sys.getprofile()", Level::State),
    ("threading.gettrace()", Level::State),
    ("sys.stdout.__class__", Level::State),
    ("sys.stderr.__class__", Level::State),
    ("sys.stdin.__class__", Level::State),
    ("warnings.filters", Level::State),
    ("inspect.stack()", Level::State),
    ("inspect.currentframe()", Level::State),
    ("inspect.getouterframes()", Level::State),
    ("inspect.trace()", Level::State),
    ("traceback.extract_stack()", Level::State),
    ("traceback.format_stack()", Level::State),
    ("traceback.walk_stack()", Level::State),
    ("sys._getframe()", Level::State),
    ("Error().stack", Level::State),
    ("Error.captureStackTrace()", Level::State),
    ("Error.prepareStackTrace", Level::State),
    ("console.trace()", Level::State),
    ("runtime/debug.ReadBuildInfo()", Level::State),
    ("runtime/debug.Stack()", Level::State),
    ("runtime.Caller()", Level::State),
    ("runtime.Callers()", Level::State),
    ("runtime.Stack()", Level::State),
    // The program's own name and which module is the program.
    ("sys.argv[0]", Level::Weak),
    ("sys.orig_argv", Level::Weak),
    ("sys.executable", Level::Weak),
    ("__main__.__file__", Level::Weak),
    ("process.argv[0]", Level::Weak),
    ("process.argv[1]", Level::Weak),
    ("process.argv0", Level::Weak),
    ("process.title", Level::Weak),
    ("process.mainModule", Level::Weak),
    ("require.main", Level::Weak),
    ("module.parent", Level::Weak),
    ("module.id", Level::Weak),
    ("os.Args[0]", Level::Weak),
    ("os.Executable()", Level::Weak),
    // The program's files, working directory and temporary folder.
    ("__file__", Level::Weak),
    ("__dirname", Level::Weak),
    ("__filename", Level::Weak),
    ("import.meta.url", Level::Weak),
    ("import.meta.filename", Level::Weak),
    ("import.meta.dirname", Level::Weak),
    ("os.getcwd()", Level::Weak),
    ("os.getcwdb()", Level::Weak),
    ("Path.cwd()", Level::Weak),
    ("pathlib.Path.cwd()", Level::Weak),
    ("tempfile.gettempdir()", Level::Weak),
    ("tempfile.gettempdirb()", Level::Weak),
    ("tempfile.tempdir", Level::Weak),
    ("process.cwd()", Level::Weak),
    ("os.tmpdir()", Level::Weak),
    ("os.Getwd()", Level::Weak),
    ("os.TempDir()", Level::Weak),
    // The host and the thread.
    ("socket.gethostname()", Level::Weak),
    ("socket.getfqdn()", Level::Weak),
    ("platform.node()", Level::Weak),
    ("platform.uname()", Level::Weak),
    ("os.uname()", Level::Weak),
    ("os.hostname()", Level::Weak),
    ("os.Hostname()", Level::Weak),
    ("threading.current_thread()", Level::Weak),
    ("threading.currentThread()", Level::Weak),
    ("threading.main_thread()", Level::Weak),
    ("threading.get_ident()", Level::Weak),
    ("worker_threads.threadId", Level::Weak),
    ("worker_threads.isMainThread", Level::Weak),
];

/// Where a constant naming a runner tells a test run: the modules loaded, the command line, the
/// runtime's own flags, the call stack, the environment, the globals.
const SOURCES: &[&str] = &[
    "sys.modules",
    "sys.argv",
    "sys.orig_argv",
    "sys.executable",
    "sys.flags",
    "sys.meta_path",
    "importlib",
    "pkgutil",
    "inspect",
    "traceback",
    "process.argv",
    "process.argv0",
    "process.execArgv",
    "process.title",
    "process.mainModule",
    "require.cache",
    "require.main",
    "require.resolve",
    "module.children",
    "module.parent",
    "os.Args",
    "os.Executable",
    "flag",
    "runtime",
    "runtime/debug",
];

/// Where the runtime's own flags are (a `--test` flag there is the runner's; in `sys.argv` or
/// `process.argv` it is the program's).
const FLAG_SOURCES: &[&str] = &[
    "process.execArgv",
    "os.Args",
    "flag",
    "sys.orig_argv",
    "sys.flags",
];

/// The environment, under any spelling of its access.
const ENV_SOURCES: &[&str] = &[
    "os.environ",
    "os.environb",
    "os.getenv",
    "os.getenvb",
    "os.putenv",
    "os.Getenv",
    "os.LookupEnv",
    "os.Environ",
    "syscall.Getenv",
    "process.env",
    "import.meta.env",
    "Deno.env",
];

/// The global object, under any of its names.
const GLOBALS: &[&str] = &["globalThis", "global", "window", "self"];

/// Whether a canonical name is `source` or something read through it (`sys.modules.get()`,
/// `os.Args[0]`, `runtime/debug.Stack()`).
fn through(name: &str, sources: &[&str]) -> bool {
    sources.iter().any(|s| {
        name.strip_prefix(s)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[', '(', '/']))
    })
}

/// What a constant names, if it names something of a test run.
#[derive(Clone, Copy, PartialEq)]
enum Named {
    /// A variable only a runner sets (counts alone).
    RunnerEnv,
    /// A prefix of one (`PYTEST_`), or a `GOAL_` variable: beside the environment.
    EnvPrefix,
    /// A CI service's variable: beside the environment.
    CiEnv,
    /// The host's or the working directory's variable: beside the environment.
    WeakEnv,
    /// A runner's module or its files (`_pytest`, `node:test`, `conftest`), the test binary's
    /// name (`.test`): beside any source or signal.
    Runner,
    /// A runner's flag (`--test`, `-test.v`, `test.run`): beside the runtime's own flags.
    Flag,
    /// A runner's global (`it`, `describe`): beside the global object.
    Global,
}

fn named_constant(v: &str) -> Option<Named> {
    if v.is_empty() {
        return None;
    }
    if RUNNER_ENV.iter().any(|e| v.starts_with(e)) {
        return Some(Named::RunnerEnv);
    }
    let upper = v
        .chars()
        .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit());
    if upper && CI_ENV.contains(&v) {
        return Some(Named::CiEnv);
    }
    if upper && WEAK_ENV.contains(&v) {
        return Some(Named::WeakEnv);
    }
    if upper
        && v.len() >= 4
        && (RUNNER_ENV.iter().any(|e| e.starts_with(v)) || v.starts_with("GOAL_"))
    {
        return Some(Named::EnvPrefix);
    }
    if v.starts_with("--test") || v.starts_with("-test.") || v.starts_with("test.") {
        return Some(Named::Flag);
    }
    let lower = v.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        ".test" | ".test.exe" | "_test.go" | "conftest" | "conftest.py"
    ) || lower.contains("node:test")
        || lower.contains("/conftest")
    {
        return Some(Named::Runner);
    }
    let runner = lower.split(['/', '\\']).any(|seg| {
        let seg = seg.trim_start_matches('@');
        RUNNERS.contains(&seg)
            || seg
                .split(['.', ':'])
                .next()
                .is_some_and(|top| top != "testing" && RUNNERS.contains(&top))
    });
    if runner {
        return Some(Named::Runner);
    }
    TEST_GLOBALS.contains(&v).then_some(Named::Global)
}

/// Whether some node of `stmt` other than `except` reads one of `sources` (after following
/// names), or is a signal (`any_signal`).
fn beside(m: &Meaning, stmt: Node, except: Node, sources: &[&str], any_signal: bool) -> bool {
    descendants(stmt).into_iter().any(|d| {
        // Not the name being bound (it carries what this statement finds).
        let target = m.up(d).is_some_and(|p| {
            ["left", "name"]
                .iter()
                .any(|f| p.child_by_field_name(f).is_some_and(|t| t.id() == d.id()))
                && matches!(
                    p.kind(),
                    "assignment" | "variable_declarator" | "named_expression"
                )
        });
        if d.id() == except.id() || target {
            return false;
        }
        match m.eval(d) {
            Some(Val::Name(n)) => {
                through(&n, sources) || (any_signal && named_level(m, d, &n).is_some())
            }
            Some(Val::Sig(_)) => any_signal,
            _ => false,
        }
    })
}

/// The level of a canonical name, or of the call or member it ends in.
fn named_level(m: &Meaning, node: Node, name: &str) -> Option<Level> {
    if let Some((_, l)) = NAMED.iter().find(|(n, _)| *n == name) {
        return Some(*l);
    }
    // The globals of a runner, read off the global object.
    if let Some((g, x)) = name.split_once('.')
        && GLOBALS.contains(&g)
        && TEST_GLOBALS.contains(&x)
    {
        return Some(Level::Probe);
    }
    // The type or class of the standard streams (a runner captures them).
    if matches!(name, "type()" | "isinstance()")
        && let Some(arg) = node
            .child_by_field_name("arguments")
            .and_then(|a| named(a).first().copied())
        && let Some(Val::Name(a)) = m.eval(arg)
        && matches!(
            a.as_str(),
            "sys.stdout" | "sys.stderr" | "sys.stdin" | "sys.__stdout__" | "sys.__stderr__"
        )
    {
        return Some(Level::State);
    }
    None
}

/// Whether `node` is a signal, and whether it is one only through a name bound to one
/// (`derived`): its level and that.
fn signal(m: &Meaning, node: Node) -> Option<(Level, bool)> {
    let src = m.src;
    // A setting named "test" compared: what a name bound to it carries.
    if aware(m, node).is_some() {
        return Some((Level::State, false));
    }
    match node.kind() {
        // `typeof it`: a runner's global, unless the file binds the name.
        "unary_expression" => {
            let op = node.child_by_field_name("operator").map(|o| text(o, src));
            let arg = node.child_by_field_name("argument")?;
            let name = text(arg, src);
            return (op == Some("typeof")
                && arg.kind() == "identifier"
                && TEST_GLOBALS.contains(&name)
                && !m.binds(name))
            .then_some((Level::Probe, false));
        }
        "string"
        | "template_string"
        | "interpreted_string_literal"
        | "raw_string_literal"
        | "binary_operator"
        | "binary_expression"
        | "concatenated_string"
        | "call"
        | "call_expression"
        | "subscript"
        | "property_identifier"
        | "identifier"
        | "parenthesized_expression" => {}
        "attribute"
        | "member_expression"
        | "selector_expression"
        | "subscript_expression"
        | "index_expression"
        | "new_expression" => {}
        _ => return None,
    }
    // A constant naming something of a test run, beside where it tells one.
    if let Some(level) = constant_level(m, node) {
        return Some((level, false));
    }
    match m.eval(node)? {
        Val::Name(n) => named_level(m, node, &n).map(|l| (l, false)),
        Val::Sig(l) if matches!(node.kind(), "identifier" | "call" | "call_expression") => {
            Some((l, true))
        }
        _ => None,
    }
}

/// A constant string (or a member of the environment, `process.env.CI`) that names something of
/// a test run where it tells one (see [`Named`]).
fn constant_level(m: &Meaning, node: Node) -> Option<Level> {
    let (value, env_member) = match node.kind() {
        "property_identifier" => {
            let parent = m.up(node)?;
            let obj = parent.child_by_field_name("object")?;
            match m.eval(obj)? {
                Val::Name(o) if through(&o, ENV_SOURCES) => (text(node, m.src).to_string(), true),
                _ => return None,
            }
        }
        _ => (m.fold(node)?, false),
    };
    let what = named_constant(&value)?;
    let stmt = around(m, node);
    let env = || env_member || beside(m, stmt, node, ENV_SOURCES, false);
    match what {
        Named::RunnerEnv => Some(Level::Probe),
        Named::EnvPrefix => env().then_some(Level::Probe),
        Named::CiEnv => env().then_some(Level::State),
        Named::WeakEnv => env().then_some(Level::Weak),
        Named::Runner => beside(m, stmt, node, SOURCES, true).then_some(Level::Probe),
        Named::Flag => beside(m, stmt, node, FLAG_SOURCES, false).then_some(Level::Probe),
        Named::Global => beside(m, stmt, node, GLOBALS, false).then_some(Level::Probe),
    }
}

/// Whether a module is only a test run's: a runner's, or one under a tests folder, a conftest,
/// a `test_`/`_test` module.
fn test_module(name: &str) -> bool {
    let name = name.trim_start_matches('.');
    named_constant(name) == Some(Named::Runner)
        || name.split(['.', '/', '\\']).any(|seg| {
            matches!(
                seg,
                "tests" | "test" | "__tests__" | "conftest" | "spec" | "__mocks__"
            ) || seg.starts_with("test_")
                || seg.ends_with("_test")
        })
}

/// An import or `require` of a module only a test run has (see [`test_module`]), chosen by an
/// `if`, a `try`, a ternary or a short-circuit: the scope that chooses it.
fn conditional_load<'a>(m: &Meaning<'a>, node: Node<'a>, test_only: &[String]) -> Option<Node<'a>> {
    let module = match node.kind() {
        "import_statement" if m.language == Language::Python => named(node)
            .first()
            .map(|n| text(n.child_by_field_name("name").unwrap_or(*n), m.src).to_string()),
        "import_from_statement" => node
            .child_by_field_name("module_name")
            .map(|n| text(n, m.src).to_string()),
        "call" | "call_expression" => {
            let callee = node.child_by_field_name("function")?;
            let name = text(callee, m.src);
            if !matches!(
                name,
                "require" | "import" | "__import__" | "importlib.import_module"
            ) {
                return None;
            }
            let arg = node
                .child_by_field_name("arguments")
                .and_then(|a| named(a).first().copied())?;
            m.fold(arg)
        }
        _ => None,
    }?;
    if !test_module(&module) && !test_only.contains(&module) {
        return None;
    }
    let mut at = node;
    while let Some(p) = m.up(at) {
        match p.kind() {
            "if_statement"
            | "elif_clause"
            | "else_clause"
            | "try_statement"
            | "except_clause"
            | "ternary_expression"
            | "conditional_expression"
            | "catch_clause" => {
                return Some(p);
            }
            k if k.contains("function") || k.ends_with("definition") || k == "lambda" => {
                return None;
            }
            _ => at = p,
        }
    }
    None
}

/// A comparison of an environment value with `"test"` or `"testing"` in code: `test-aware`
/// where it is only read, `test-detected` where it (or a name bound to it) chooses what runs.
fn aware(m: &Meaning, node: Node) -> Option<Detection> {
    let src = m.src;
    match node.kind() {
        "comparison_operator" => {}
        "binary_expression"
            if node
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(text(o, src), "==" | "===" | "!=" | "!==")) => {}
        _ => return None,
    }
    let parts = named(node);
    let is_test = |n: &Node| {
        m.fold(*n)
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "test" | "testing"))
    };
    let env = |n: &Node| {
        descendants(*n)
            .into_iter()
            .any(|d| matches!(m.eval(d), Some(Val::Name(x)) if through(&x, ENV_SOURCES)))
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
