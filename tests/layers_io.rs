//! Two habits of the whole tree, read with `syn`: the pure rules do no I/O (no file system,
//! environment, process or network: what they need is handed to them), and verbosity lives in
//! `context.rs` alone (no function takes a quiet flag, no options struct carries one). Each rule
//! has a test that it can fail.

use syn::visit::Visit;

use crate::common::source::{files, is_test_file, is_test_item, top_module};
use crate::layers::RANKS;

/// The standard library's doors to the outside.
const IO: &[&str] = &["fs", "env", "process", "net"];

#[derive(Default)]
struct Found {
    /// Lines that reach the file system, the environment, a process or the network.
    io: Vec<usize>,
    /// Lines of a parameter or field named for quietness.
    quiet: Vec<usize>,
}

fn line_of(span: proc_macro2::Span) -> usize {
    span.start().line
}

fn is_io_path(names: &[String]) -> bool {
    matches!(names, [std, door, ..] if std == "std" && IO.contains(&door.as_str()))
}

fn use_reaches_io(tree: &syn::UseTree, after_std: bool) -> bool {
    match tree {
        syn::UseTree::Path(p) => {
            (after_std && IO.contains(&p.ident.to_string().as_str()))
                || use_reaches_io(&p.tree, p.ident == "std")
        }
        syn::UseTree::Name(n) => after_std && IO.contains(&n.ident.to_string().as_str()),
        syn::UseTree::Rename(r) => after_std && IO.contains(&r.ident.to_string().as_str()),
        syn::UseTree::Group(g) => g.items.iter().any(|t| use_reaches_io(t, after_std)),
        syn::UseTree::Glob(_) => false,
    }
}

fn named_quiet(ident: &syn::Ident) -> bool {
    ident.to_string().contains("quiet")
}

impl<'ast> Visit<'ast> for Found {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_item(item) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if is_io_path(&names) {
            self.io.push(line_of(path.segments[0].ident.span()));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if use_reaches_io(&item.tree, false) {
            self.io.push(line_of(item.use_token.span));
        }
    }

    fn visit_fn_arg(&mut self, arg: &'ast syn::FnArg) {
        if let syn::FnArg::Typed(typed) = arg
            && let syn::Pat::Ident(p) = &*typed.pat
            && named_quiet(&p.ident)
        {
            self.quiet.push(line_of(p.ident.span()));
        }
        syn::visit::visit_fn_arg(self, arg);
    }

    fn visit_field(&mut self, field: &'ast syn::Field) {
        if let Some(name) = &field.ident
            && named_quiet(name)
        {
            self.quiet.push(line_of(name.span()));
        }
        syn::visit::visit_field(self, field);
    }
}

fn found_in(rel: &str, text: &str) -> Found {
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let mut found = Found::default();
    found.visit_file(&file);
    found
}

/// Where the pure rules reach the outside (`module/file.rs:line`).
fn pure_io() -> Vec<String> {
    let pure = RANKS[0].1;
    files()
        .into_iter()
        .filter(|(rel, _)| pure.contains(&top_module(rel).as_str()) && !is_test_file(rel))
        .flat_map(|(rel, text)| {
            found_in(&rel, &text)
                .io
                .into_iter()
                .map(move |line| format!("{rel}:{line}"))
        })
        .collect()
}

/// The one quiet flag is the command line's (`cli.rs`), set once into `context.rs`.
fn quiet_flags(rel: &str, found: &Found) -> Vec<usize> {
    if rel == "cli.rs" || rel == "context.rs" {
        return Vec::new();
    }
    found.quiet.clone()
}

#[test]
fn the_pure_rules_do_no_io() {
    assert_eq!(RANKS[0].0, "pure rules");
    let found = pure_io();
    assert!(
        found.is_empty(),
        "the pure rules reach the file system, the environment, a process or the network \
         (hand them what they need, or give the module a rank of the system): {found:#?}"
    );
}

#[test]
fn no_function_takes_a_quiet_flag() {
    let found: Vec<String> = files()
        .into_iter()
        .filter(|(rel, _)| !is_test_file(rel))
        .flat_map(|(rel, text)| {
            let lines = quiet_flags(&rel, &found_in(&rel, &text));
            lines.into_iter().map(move |line| format!("{rel}:{line}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "a quiet flag passed down (ask crate::context::quiet(), or open a context::hush()): {found:#?}"
    );
}

#[test]
fn the_io_and_quiet_checks_each_find_one() {
    let text = r#"
use std::{fs, io::Read};
use std::env::var;
fn f(quiet: bool) -> bool {
    let _ = std::process::Command::new("ls");
    let _ = std::fs::read("x");
    let _ = std::path::Path::new("pure");
    quiet
}
struct Options {
    be_quiet: bool,
}
#[cfg(test)]
mod tests {
    fn g(quiet: bool) { let _ = std::fs::read("only in tests"); }
}
"#;
    let found = found_in("pin.rs", text);
    assert_eq!(found.io, [2, 3, 5, 6]);
    assert_eq!(quiet_flags("ops/fake.rs", &found), [4, 11]);
    assert!(quiet_flags("cli.rs", &found).is_empty());
}
