//! The structure of `src/`, read with `syn`: arrows between the top-level modules point one way
//! (no circle), only the command line calls the commands, exit codes are compared nowhere but in
//! the error module, files stay under 800 lines, and every module says what it is for.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The longest a source file may be (test files and the tables named here aside).
const MAX_LINES: usize = 800;

/// Files that may be longer: pure tables with their tests.
const LONG_TABLES: &[&str] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under src/, as (path relative to src/, text).
fn files() -> Vec<(String, String)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&src(), &src(), &mut out);
    out
}

/// A file only compiled for tests (`#[cfg(test)] #[path = "…_tests.rs"] mod tests;`).
fn is_test_file(rel: &str) -> bool {
    rel.ends_with("_tests.rs") || rel.ends_with("/tests.rs")
}

/// The top-level module a file belongs to (`runner/machine.rs` → `runner`).
fn top_module(rel: &str) -> String {
    rel.split('/')
        .next()
        .unwrap()
        .trim_end_matches(".rs")
        .to_string()
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// What one file's non-test code names: the `crate::<module>` it uses, and where it calls
/// `.exit_code()`.
#[derive(Default)]
struct Uses {
    modules: BTreeSet<String>,
    exit_code_calls: usize,
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if !is_cfg_test(attrs) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let mut segments = path.segments.iter();
        if segments.next().is_some_and(|s| s.ident == "crate")
            && let Some(next) = segments.next()
        {
            self.modules.insert(next.ident.to_string());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        fn names(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
            match tree {
                syn::UseTree::Name(n) => {
                    out.insert(n.ident.to_string());
                }
                syn::UseTree::Rename(r) => {
                    out.insert(r.ident.to_string());
                }
                syn::UseTree::Path(p) => {
                    out.insert(p.ident.to_string());
                }
                syn::UseTree::Group(g) => g.items.iter().for_each(|t| names(t, out)),
                syn::UseTree::Glob(_) => {}
            }
        }
        if let syn::UseTree::Path(p) = &item.tree
            && p.ident == "crate"
        {
            names(&p.tree, &mut self.modules);
        }
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if call.method == "exit_code" {
            self.exit_code_calls += 1;
        }
        syn::visit::visit_expr_method_call(self, call);
    }
}

/// Per file: what it uses.
fn uses() -> Vec<(String, Uses)> {
    files()
        .into_iter()
        .filter(|(rel, _)| !is_test_file(rel))
        .map(|(rel, text)| {
            let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
            let mut uses = Uses::default();
            uses.visit_file(&file);
            (rel, uses)
        })
        .collect()
}

/// The arrows between top-level modules, with one file that draws each.
fn graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let modules: BTreeSet<String> = files().iter().map(|(rel, _)| top_module(rel)).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (rel, uses) in uses() {
        let from = top_module(&rel);
        if from == "lib" || from == "main" {
            continue;
        }
        let edges = graph.entry(from.clone()).or_default();
        for to in uses.modules {
            if to != from && modules.contains(&to) {
                edges.entry(to).or_insert_with(|| rel.clone());
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn connect<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        if let Some(edges) = s.graph.get(v) {
            for w in edges.keys() {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    connect(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.stack.contains(&w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            connect(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_circle_among_the_modules() {
    let graph = graph();
    let found = circles(&graph);
    let explain: Vec<String> = found
        .iter()
        .map(|c| {
            let arrows: Vec<String> = c
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|(to, _)| c.contains(to))
                        .map(move |(to, file)| format!("{from} → {to} ({file})"))
                })
                .collect();
            arrows.join(", ")
        })
        .collect();
    assert!(found.is_empty(), "circles: {explain:#?}");
}

#[test]
fn the_circle_finder_finds_a_circle() {
    // The rule above must be able to fail: a → b → c → a is one circle, d hangs off it.
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        graph
            .entry(from.into())
            .or_default()
            .insert(to.into(), String::new());
    }
    assert_eq!(circles(&graph), vec![vec!["a", "b", "c"]]);
}

#[test]
fn only_the_command_line_calls_the_commands() {
    let callers: Vec<String> = uses()
        .into_iter()
        .filter(|(rel, u)| {
            u.modules.contains("commands")
                && !rel.starts_with("commands/")
                && rel != "cli.rs"
                && rel != "lib.rs"
        })
        .map(|(rel, _)| rel)
        .collect();
    assert!(callers.is_empty(), "use crate::commands: {callers:?}");
}

#[test]
fn exit_codes_are_read_only_by_the_error_module_and_lib() {
    let readers: Vec<String> = uses()
        .into_iter()
        .filter(|(rel, u)| u.exit_code_calls > 0 && rel != "error.rs" && rel != "lib.rs")
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        readers.is_empty(),
        ".exit_code() outside error.rs and lib.rs: {readers:?}"
    );
}

#[test]
fn no_source_file_is_over_800_lines() {
    let long: Vec<String> = files()
        .into_iter()
        .filter(|(rel, _)| !is_test_file(rel) && !LONG_TABLES.contains(&rel.as_str()))
        .filter_map(|(rel, text)| {
            let lines = text.lines().count();
            (lines > MAX_LINES).then(|| format!("{rel}: {lines}"))
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:?}");
}

#[test]
fn every_module_says_what_it_is_for() {
    let undocumented: Vec<String> = files()
        .into_iter()
        .filter(|(rel, text)| !is_test_file(rel) && !text.starts_with("//!"))
        .map(|(rel, _)| rel)
        .collect();
    assert!(undocumented.is_empty(), "no `//!` line: {undocumented:?}");
    // lib.rs gives each top-level module its one line too.
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let lines: Vec<&str> = lib.lines().collect();
    let bare: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("pub mod "))
        .filter(|(i, _)| *i == 0 || !lines[i - 1].starts_with("///"))
        .map(|(_, l)| *l)
        .collect();
    assert!(
        bare.is_empty(),
        "lib.rs lists modules without a doc line: {bare:?}"
    );
}
