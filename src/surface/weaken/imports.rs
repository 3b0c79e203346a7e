//! `import-redirected`: a test that now takes a name from other code. A name the tests imported
//! on the base (`from calc import add`, `use super::add`, `const { add } = require('../calc')`)
//! imported from somewhere else at the end (`from calc_impl import add`, `use super::add_v2 as
//! add;`) makes the same test test other code: the assertion stays, the code it checks does not.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::tree::{descendants, line, named, parse, string_value, text};
use super::{Finding, FindingKind, Language};

/// One name a file's tests bind by an import, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// Where the name is bound: the module path of a Rust test module (`tests`), else empty.
    pub scope: String,
    /// The name the tests use (`add`, the alias of `as`).
    pub name: String,
    /// What it names, normalized: `calc.add` (Python, relative imports made absolute),
    /// `super::add_v2` (Rust), `src/calc#add` (JavaScript, relative paths from the root).
    pub source: String,
    /// 1-based line of the import.
    pub line: usize,
}

/// What a file's tests import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Imports {
    pub bindings: Vec<Binding>,
    /// Rust: the glob imports of test modules (`use super::*;`), as (scope, path before `*`).
    pub globs: Vec<(String, String)>,
    /// Rust: the names the file's code defines (functions, types, constants, …), by inline module
    /// path (`` for the file's top level): what a test module's `use super::*;` brings in.
    pub defined: BTreeMap<String, BTreeSet<String>>,
}

/// Languages whose imports can be compared across files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Python,
    Rust,
    JavaScript,
}

impl Language {
    /// The family whose files' imports compare with this language's.
    pub fn family(self) -> Option<Family> {
        match self {
            Language::Python => Some(Family::Python),
            Language::Rust => Some(Family::Rust),
            Language::JavaScript | Language::TypeScript | Language::Tsx => Some(Family::JavaScript),
            Language::Go => None,
        }
    }

    /// What a file at `path` in this language imports into its tests (empty for Go, whose tests
    /// share their package's names). Err says why it does not parse.
    pub fn imports(self, path: &str, text: &str) -> Result<Imports, String> {
        match self {
            Language::Python => python(path, text),
            Language::Rust => super::super::rust::test_imports(text, rust_test_file(path))
                .map_err(|e| e.to_string()),
            Language::JavaScript => js(path, text, tree_sitter_javascript::LANGUAGE.into()),
            Language::TypeScript => js(
                path,
                text,
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            ),
            Language::Tsx => js(path, text, tree_sitter_typescript::LANGUAGE_TSX.into()),
            Language::Go => Ok(Imports::default()),
        }
    }
}

/// Whether a Rust file is a test whole by its path: an integration test (`tests/…`), or a test
/// module in a file of its own (`src/tests.rs`, `src/a/tests/mod.rs`, `src/a_test.rs`).
fn rust_test_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.starts_with("tests/")
        || path.contains("/tests/")
        || matches!(name, "tests.rs" | "test.rs")
        || name.ends_with("_test.rs")
        || name.ends_with("_tests.rs")
}

/// Whether a source may be compared with another file's: Rust paths relative to the module
/// (`self::`, `super::`, `crate::`) name different things in different files.
pub fn comparable_across_files(source: &str) -> bool {
    !["self", "super", "crate"]
        .iter()
        .any(|p| source == *p || source.starts_with(&format!("{p}::")))
}

/// The `import-redirected` findings of a file whose tests imported `base` and import `last`:
/// a name the file imported on the base from elsewhere; a Rust name a test module's glob import
/// brought from the file's own code, now imported from elsewhere; a name the file newly imports
/// from elsewhere than every other test file of the base imported it from (`elsewhere(name)`:
/// those sources, empty when none imported it).
pub fn redirects(
    path: &str,
    base: &Imports,
    last: &Imports,
    elsewhere: &mut dyn FnMut(&str) -> BTreeSet<String>,
    out: &mut Vec<Finding>,
) {
    let mut push = |b: &Binding| {
        let test = if b.scope.is_empty() {
            b.name.clone()
        } else {
            format!("{}::{}", b.scope, b.name)
        };
        out.push(Finding {
            kind: FindingKind::ImportRedirected,
            file: path.to_string(),
            line: b.line,
            test,
        });
    };
    for b in &last.bindings {
        let before: Vec<&Binding> = base
            .bindings
            .iter()
            .filter(|x| x.scope == b.scope && x.name == b.name)
            .collect();
        if before.iter().any(|x| x.source == b.source) {
            continue;
        }
        if !before.is_empty() {
            push(b);
            continue;
        }
        // Rust: `use super::*;` brought the name from the code; now it comes from elsewhere.
        let globbed = base.globs.iter().any(|(scope, prefix)| {
            *scope == b.scope
                && glob_target(scope, prefix)
                    .and_then(|module| base.defined.get(&module))
                    .is_some_and(|names| names.contains(&b.name))
                && b.source != format!("{prefix}::{}", b.name)
        });
        if globbed {
            push(b);
            continue;
        }
        if comparable_across_files(&b.source) {
            let others: BTreeSet<String> = elsewhere(&b.name)
                .into_iter()
                .filter(|s| comparable_across_files(s))
                .collect();
            if !others.is_empty() && !others.contains(&b.source) {
                push(b);
            }
        }
    }
}

/// The inline module path a glob import `prefix::*` in module `scope` reaches (`super` from
/// `tests` is the top, ``), when it is one of the file's own modules.
fn glob_target(scope: &str, prefix: &str) -> Option<String> {
    let mut path: Vec<&str> = if scope.is_empty() {
        Vec::new()
    } else {
        scope.split("::").collect()
    };
    let mut parts = prefix.split("::").peekable();
    let mut moved = false;
    while let Some(p) = parts.peek() {
        match *p {
            "super" => {
                path.pop()?;
            }
            "self" => {}
            _ => break,
        }
        moved = true;
        parts.next();
    }
    if !moved {
        return None;
    }
    path.extend(parts);
    Some(path.join("::"))
}

/// The folder of a path (`tests/test_a.py` → [`tests`]).
fn folder(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop();
    parts
}

fn python(path: &str, src: &str) -> Result<Imports, String> {
    let tree = parse(src, tree_sitter_python::LANGUAGE.into(), "Python")?;
    let mut out = Imports::default();
    for node in descendants(tree.root_node()) {
        match node.kind() {
            "import_statement" => {
                let mut cursor = node.walk();
                for name in node.children_by_field_name("name", &mut cursor) {
                    // `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
                    let (source, bound) = match name.kind() {
                        "aliased_import" => (
                            name.child_by_field_name("name").map(|n| text(n, src)),
                            name.child_by_field_name("alias").map(|n| text(n, src)),
                        ),
                        _ => {
                            let t = text(name, src);
                            let first = t.split('.').next().unwrap_or(t);
                            (Some(first), Some(first))
                        }
                    };
                    if let (Some(source), Some(bound)) = (source, bound) {
                        out.bindings.push(Binding {
                            scope: String::new(),
                            name: bound.to_string(),
                            source: squash(source),
                            line: line(node),
                        });
                    }
                }
            }
            "import_from_statement" => {
                let Some(module) = node.child_by_field_name("module_name") else {
                    continue;
                };
                let module = python_module(path, module, src);
                let mut cursor = node.walk();
                for name in node.children_by_field_name("name", &mut cursor) {
                    let (imported, bound) = match name.kind() {
                        "aliased_import" => (
                            name.child_by_field_name("name").map(|n| text(n, src)),
                            name.child_by_field_name("alias").map(|n| text(n, src)),
                        ),
                        _ => (Some(text(name, src)), Some(text(name, src))),
                    };
                    if let (Some(imported), Some(bound)) = (imported, bound) {
                        let imported = squash(imported);
                        out.bindings.push(Binding {
                            scope: String::new(),
                            name: squash(bound),
                            source: if module.is_empty() {
                                imported
                            } else {
                                format!("{module}.{imported}")
                            },
                            line: line(node),
                        });
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The absolute dotted name of a `from` module: relative imports resolved against the file's
/// folder (`from .calc` in `tests/test_a.py` → `tests.calc`).
fn python_module(path: &str, module: Node, src: &str) -> String {
    let t = squash(text(module, src));
    if module.kind() != "relative_import" {
        return t;
    }
    let dots = t.chars().take_while(|c| *c == '.').count();
    let rest = &t[dots..];
    let mut package = folder(path);
    for _ in 1..dots {
        package.pop();
    }
    let mut parts: Vec<&str> = package;
    if !rest.is_empty() {
        parts.push(rest);
    }
    parts.join(".")
}

/// A module specifier as a path from the root where it is relative (`../calc.js` in
/// `test/a.test.js` → `calc`), without its extension or `/index`; a package name as it is.
fn js_module(path: &str, spec: &str) -> String {
    if !spec.starts_with('.') {
        return spec.to_string();
    }
    let mut parts = folder(path);
    for p in spec.split('/') {
        match p {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let mut joined = parts.join("/");
    for ext in [".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"] {
        if let Some(s) = joined.strip_suffix(ext) {
            joined = s.to_string();
            break;
        }
    }
    joined
        .strip_suffix("/index")
        .map(str::to_string)
        .unwrap_or(joined)
}

fn js(path: &str, src: &str, language: tree_sitter::Language) -> Result<Imports, String> {
    let tree = parse(src, language, "JavaScript")?;
    let mut out = Imports::default();
    let mut bind = |name: &str, source: String, at: usize| {
        out.bindings.push(Binding {
            scope: String::new(),
            name: name.to_string(),
            source,
            line: at,
        });
    };
    for node in descendants(tree.root_node()) {
        match node.kind() {
            "import_statement" => {
                let Some(spec) = node
                    .child_by_field_name("source")
                    .and_then(|s| string_value(s, src))
                else {
                    continue;
                };
                let module = js_module(path, &spec);
                let Some(clause) = named(node)
                    .into_iter()
                    .find(|n| n.kind() == "import_clause")
                else {
                    continue;
                };
                for part in named(clause) {
                    match part.kind() {
                        // A default or namespace import names the module, as `require` does.
                        "identifier" => bind(text(part, src), module.clone(), line(node)),
                        "namespace_import" => {
                            if let Some(id) = named(part).first() {
                                bind(text(*id, src), module.clone(), line(node));
                            }
                        }
                        "named_imports" => {
                            for spec in named(part) {
                                let imported = spec.child_by_field_name("name");
                                let bound = spec.child_by_field_name("alias").or(imported);
                                if let (Some(i), Some(b)) = (imported, bound) {
                                    let i = string_value(i, src)
                                        .unwrap_or_else(|| text(i, src).to_string());
                                    bind(text(b, src), format!("{module}#{i}"), line(node));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            "variable_declarator" => {
                let (Some(pattern), Some(value)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("value"),
                ) else {
                    continue;
                };
                // `require('m')`, or `require('m').member`.
                let (call, member) = match value.kind() {
                    "member_expression" => (
                        value.child_by_field_name("object"),
                        value
                            .child_by_field_name("property")
                            .map(|p| text(p, src).to_string()),
                    ),
                    _ => (Some(value), None),
                };
                let Some(call) = call.filter(|c| c.kind() == "call_expression") else {
                    continue;
                };
                if call
                    .child_by_field_name("function")
                    .is_none_or(|f| text(f, src) != "require")
                {
                    continue;
                }
                let Some(spec) = call
                    .child_by_field_name("arguments")
                    .and_then(|a| named(a).first().copied())
                    .and_then(|s| string_value(s, src))
                else {
                    continue;
                };
                let module = js_module(path, &spec);
                let base = match &member {
                    Some(m) => format!("{module}#{m}"),
                    None => module,
                };
                match pattern.kind() {
                    "identifier" => bind(text(pattern, src), base, line(node)),
                    "object_pattern" => {
                        for p in named(pattern) {
                            match p.kind() {
                                "shorthand_property_identifier_pattern" => {
                                    let n = text(p, src);
                                    bind(n, format!("{base}#{n}"), line(node));
                                }
                                "pair_pattern" => {
                                    if let (Some(k), Some(v)) = (
                                        p.child_by_field_name("key"),
                                        p.child_by_field_name("value"),
                                    ) && v.kind() == "identifier"
                                    {
                                        bind(
                                            text(v, src),
                                            format!("{base}#{}", text(k, src)),
                                            line(node),
                                        );
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    Ok(out)
}
