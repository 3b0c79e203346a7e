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
pub(super) fn rust_test_file(path: &str) -> bool {
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
pub(super) fn glob_target(scope: &str, prefix: &str) -> Option<String> {
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
            "import_statement" => python_import(node, src, &mut out.bindings),
            "import_from_statement" => python_from(path, node, src, &mut out.bindings),
            _ => {}
        }
    }
    Ok(out)
}

/// A name bound at line `at` to `source`, outside any scope (Python, JavaScript).
fn bind(out: &mut Vec<Binding>, name: &str, source: String, at: usize) {
    out.push(Binding {
        scope: String::new(),
        name: name.to_string(),
        source,
        line: at,
    });
}

/// The names an `import` binds: `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
fn python_import(node: Node, src: &str, out: &mut Vec<Binding>) {
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
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
            bind(out, bound, squash(source), line(node));
        }
    }
}

/// The names a `from m import a, b as c` binds, each to the module's member (`m.a`, `m.b`), the
/// module made absolute.
fn python_from(path: &str, node: Node, src: &str, out: &mut Vec<Binding>) {
    let Some(module) = node.child_by_field_name("module_name") else {
        return;
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
            let source = if module.is_empty() {
                imported
            } else {
                format!("{module}.{imported}")
            };
            bind(out, &squash(bound), source, line(node));
        }
    }
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
    for node in descendants(tree.root_node()) {
        match node.kind() {
            "import_statement" => js_import(path, node, src, &mut out.bindings),
            "variable_declarator" => js_require(path, node, src, &mut out.bindings),
            _ => {}
        }
    }
    Ok(out)
}

/// The names an `import … from 'm'` binds: a default or namespace import names the module (as
/// `require` does), a named import the module's member (`m#name`).
fn js_import(path: &str, node: Node, src: &str, out: &mut Vec<Binding>) {
    let Some(spec) = node
        .child_by_field_name("source")
        .and_then(|s| string_value(s, src))
    else {
        return;
    };
    let module = js_module(path, &spec);
    let Some(clause) = named(node)
        .into_iter()
        .find(|n| n.kind() == "import_clause")
    else {
        return;
    };
    let at = line(node);
    for part in named(clause) {
        match part.kind() {
            "identifier" => bind(out, text(part, src), module.clone(), at),
            "namespace_import" => {
                if let Some(id) = named(part).first() {
                    bind(out, text(*id, src), module.clone(), at);
                }
            }
            "named_imports" => {
                for spec in named(part) {
                    let imported = spec.child_by_field_name("name");
                    let bound = spec.child_by_field_name("alias").or(imported);
                    if let (Some(i), Some(b)) = (imported, bound) {
                        let i = string_value(i, src).unwrap_or_else(|| text(i, src).to_string());
                        bind(out, text(b, src), format!("{module}#{i}"), at);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The names a `const … = require('m')` (or `require('m').member`) binds: a name the whole
/// value, a destructured name the value's member of its key.
fn js_require(path: &str, node: Node, src: &str, out: &mut Vec<Binding>) {
    let (Some(pattern), Some(value)) = (
        node.child_by_field_name("name"),
        node.child_by_field_name("value"),
    ) else {
        return;
    };
    let Some(base) = required(path, value, src) else {
        return;
    };
    let at = line(node);
    match pattern.kind() {
        "identifier" => bind(out, text(pattern, src), base, at),
        "object_pattern" => {
            for p in named(pattern) {
                match p.kind() {
                    "shorthand_property_identifier_pattern" => {
                        let n = text(p, src);
                        bind(out, n, format!("{base}#{n}"), at);
                    }
                    "pair_pattern" => {
                        if let (Some(k), Some(v)) =
                            (p.child_by_field_name("key"), p.child_by_field_name("value"))
                            && v.kind() == "identifier"
                        {
                            bind(out, text(v, src), format!("{base}#{}", text(k, src)), at);
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// What a declarator's value `require('m')` or `require('m').member` names (`m`, `m#member`,
/// the module as [`js_module`] makes it); None when the value is no `require` of a string.
fn required(path: &str, value: Node, src: &str) -> Option<String> {
    let (call, member) = match value.kind() {
        "member_expression" => (
            value.child_by_field_name("object"),
            value
                .child_by_field_name("property")
                .map(|p| text(p, src).to_string()),
        ),
        _ => (Some(value), None),
    };
    let call = call.filter(|c| c.kind() == "call_expression")?;
    if call
        .child_by_field_name("function")
        .is_none_or(|f| text(f, src) != "require")
    {
        return None;
    }
    let spec = call
        .child_by_field_name("arguments")
        .and_then(|a| named(a).first().copied())
        .and_then(|s| string_value(s, src))?;
    let module = js_module(path, &spec);
    Some(match member {
        Some(m) => format!("{module}#{m}"),
        None => module,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name, source, line) of each binding a file's imports make.
    fn bound(language: Language, path: &str, text: &str) -> Vec<(String, String, usize)> {
        match language.imports(path, text) {
            Ok(imports) => imports
                .bindings
                .into_iter()
                .map(|b| {
                    assert_eq!(b.scope, "", "{text}");
                    (b.name, b.source, b.line)
                })
                .collect(),
            Err(e) => panic!("{text}: {e}"),
        }
    }

    #[test]
    fn what_each_import_form_binds() {
        // (language, path, text, bindings as name=source@line)
        let cases: &[(Language, &str, &str, &[&str])] = &[
            (
                Language::Python,
                "tests/test_a.py",
                "import a.b\n",
                &["a=a@1"],
            ),
            (
                Language::Python,
                "tests/test_a.py",
                "import a.b as c, d\n",
                &["c=a.b@1", "d=d@1"],
            ),
            (
                Language::Python,
                "tests/test_a.py",
                "from calc import add, mul as m\n",
                &["add=calc.add@1", "m=calc.mul@1"],
            ),
            (
                Language::Python,
                "tests/unit/test_a.py",
                "from . import x\n",
                &["x=tests.unit.x@1"],
            ),
            (
                Language::Python,
                "tests/unit/test_a.py",
                "\nfrom ..pkg import y as z\n",
                &["z=tests.pkg.y@2"],
            ),
            (
                Language::Python,
                "test_a.py",
                "from . import x\n",
                &["x=x@1"],
            ),
            (
                Language::JavaScript,
                "test/a.test.js",
                "import calc from '../src/calc.js';\n",
                &["calc=src/calc@1"],
            ),
            (
                Language::JavaScript,
                "test/a.test.js",
                "import * as calc from '../src/calc/index.js';\n",
                &["calc=src/calc@1"],
            ),
            (
                Language::JavaScript,
                "test/a.test.js",
                "import d, { add, mul as m } from './calc';\n",
                &["d=test/calc@1", "add=test/calc#add@1", "m=test/calc#mul@1"],
            ),
            (
                Language::JavaScript,
                "test/a.test.js",
                "import { \"a-b\" as ab } from 'pkg';\n",
                &["ab=pkg#a-b@1"],
            ),
            (
                Language::JavaScript,
                "test/a.test.js",
                "import './setup';\n",
                &[],
            ),
            (
                Language::JavaScript,
                "test/a.test.js",
                "\nconst calc = require('../calc');\n",
                &["calc=calc@2"],
            ),
            (
                Language::JavaScript,
                "test/a.test.js",
                "const add = require('../calc').add;\n",
                &["add=calc#add@1"],
            ),
            (
                Language::JavaScript,
                "test/a.test.js",
                "const { add, mul: m, div: { x } } = require('pkg').ops;\n",
                &["add=pkg#ops#add@1", "m=pkg#ops#mul@1"],
            ),
            (
                Language::JavaScript,
                "test/a.test.js",
                "const a = load('pkg');\nconst b = require(name);\nconst c = 4;\nconst [d] = require('pkg');\n",
                &[],
            ),
            (
                Language::TypeScript,
                "test/a.test.ts",
                "import { add } from '../src/calc.ts';\n",
                &["add=src/calc#add@1"],
            ),
            (
                Language::Go,
                "a_test.go",
                "package a\n\nimport \"fmt\"\n",
                &[],
            ),
        ];
        for (language, path, text, want) in cases {
            let got: Vec<String> = bound(*language, path, text)
                .into_iter()
                .map(|(name, source, line)| format!("{name}={source}@{line}"))
                .collect();
            assert_eq!(got, *want, "{text}");
        }
    }
}
