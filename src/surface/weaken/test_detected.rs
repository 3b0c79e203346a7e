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

mod positions;
mod signals;

use positions::*;
use signals::*;

/// [`TRIGGERS`] for Rust, whose signals all come through `std::env`, a thread, a path, the host,
/// a `cfg` or a build script (see [`crate::surface::rust::detections`]).
const RUST_TRIGGERS: &[&str] = &[
    "env",
    "cfg",
    "thread",
    "Path",
    "path",
    "host",
    "exists",
    "test",
    "args",
    "exe",
    "dir",
    "debug_assertions",
    "PROFILE",
    "cargo:",
];

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
    let triggers = match language {
        Language::Rust => RUST_TRIGGERS,
        _ => TRIGGERS,
    };
    if !triggers.iter().any(|t| last.contains(t)) {
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

/// A finding before it is ranked and shortened: (kind, line, rank, shown); rank 0 (the signal
/// itself) is shown before rank 1 (the condition it stands in).
type Found = (FindingKind, usize, u8, String);

/// The detections of a Python, JavaScript/TypeScript or Go file (see the module's
/// documentation).
fn tree_detections(
    language: Language,
    src: &str,
    code: bool,
    test_only: &[String],
) -> Result<Vec<Detection>, String> {
    let Some((lang, what)) = grammar(language) else {
        return Ok(Vec::new());
    };
    let tree = parse(src, lang, what)?;
    let root = tree.root_node();
    let nodes = descendants(root);
    let mut meaning = Meaning::new(root, src, language);
    let loads = mark_conditional_loads(&mut meaning, &nodes, test_only);
    meaning.settle(&|m, n| signal(m, n).map(|s| s.0));
    let mut found: Vec<Found> = Vec::new();
    if code {
        for node in &loads {
            found.push(finding(FindingKind::TestDetected, *node, 0, *node, src));
        }
    }
    for node in nodes {
        found.extend(signal_finding(&meaning, node, code));
        if code {
            found.extend(setting_finding(&meaning, node));
        }
    }
    if !code && language == Language::Go {
        for at in test_only_settings(&meaning, root) {
            found.push(finding(FindingKind::TestDetected, at, 0, at, src));
        }
    }
    found.sort();
    found.dedup_by(|a, b| a.1 == b.1 && a.0 == b.0);
    Ok(found.into_iter().map(|(k, l, _, t)| (k, l, t)).collect())
}

/// The tree-sitter grammar a language is parsed with, and its name for errors (none for Rust,
/// read by its own detector).
pub(super) fn grammar(language: Language) -> Option<(tree_sitter::Language, &'static str)> {
    Some(match language {
        Language::Python => (tree_sitter_python::LANGUAGE.into(), "Python"),
        Language::JavaScript => (tree_sitter_javascript::LANGUAGE.into(), "JavaScript"),
        Language::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            "TypeScript",
        ),
        Language::Tsx => (tree_sitter_typescript::LANGUAGE_TSX.into(), "TSX"),
        Language::Go => (tree_sitter_go::LANGUAGE.into(), "Go"),
        Language::Rust => return None,
    })
}

/// The imports only a test run loads, chosen by an `if` or a `try`: each is marked a signal in
/// `meaning`, and so are the names it binds and the names the `try` around it assigns.
fn mark_conditional_loads<'a>(
    meaning: &mut Meaning<'a>,
    nodes: &[Node<'a>],
    test_only: &[String],
) -> Vec<Node<'a>> {
    let mut loads = Vec::new();
    for node in nodes {
        let Some(scope) = conditional_load(meaning, *node, test_only) else {
            continue;
        };
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
            if matches!(d.kind(), "dotted_name" | "aliased_import") && d.parent() == Some(*node) {
                let bound = d
                    .child_by_field_name("alias")
                    .or_else(|| named(d).first().copied());
                meaning.mark(None, bound, Level::Probe);
            }
        }
        loads.push(*node);
    }
    loads
}

/// A finding of `kind` on the line of `at`, showing the source text of `shown`.
fn finding(kind: FindingKind, at: Node, rank: u8, shown: Node, src: &str) -> Found {
    (kind, line(at), rank, text(shown, src).to_string())
}

/// What a signal at `node` is, by its use: refused where it chooses what runs, the runner's
/// state refused wherever it is asked, shown where only written into a message (in a test,
/// only where the program runs counts).
fn signal_finding(meaning: &Meaning, node: Node, code: bool) -> Option<Found> {
    let src = meaning.src;
    let (level, derived) = signal(meaning, node)?;
    if !code && level != Level::Weak {
        return None;
    }
    let chosen = choosing(meaning, node);
    let message = in_message(meaning, node);
    let signal_itself = |kind| finding(kind, node, 0, shown(meaning, node), src);
    match (chosen, level, derived) {
        (Some(_), Level::Probe, false) => Some(signal_itself(FindingKind::TestDetected)),
        (Some(cond), _, _) if !entry_point(meaning, cond) => {
            Some(finding(FindingKind::TestDetected, node, 1, cond, src))
        }
        (Some(_), _, _) => None,
        (None, Level::Probe, false) => Some(signal_itself(if message {
            FindingKind::TestAware
        } else {
            FindingKind::TestDetected
        })),
        (None, Level::State | Level::Probe, _) if message => {
            Some(signal_itself(FindingKind::TestAware))
        }
        _ => None,
    }
}

/// A switch on a setting named "test" (jest sets `NODE_ENV`; a test configuration sets
/// others): refused where it chooses what runs, else shown.
fn setting_finding(meaning: &Meaning, node: Node) -> Option<Found> {
    let (kind, line, shown) = aware(meaning, node)?;
    Some(match choosing(meaning, node) {
        Some(cond) => (
            FindingKind::TestDetected,
            line,
            1,
            text(cond, meaning.src).to_string(),
        ),
        None => (kind, line, 0, shown),
    })
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
