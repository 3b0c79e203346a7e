//! What the whole file tells before its code is walked: `use` aliases, constants, and the
//! names only items compiled under test define.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, ImplItem, Item, UseTree};

use super::super::items::{is_cfg_test, is_test_item, item_attrs};

/// What the whole file tells before its code is walked.
pub(super) struct Env<'f> {
    /// Local names `use` gives paths: `e` for `std::env`, `me` for `std::env::current_exe`.
    pub(super) aliases: HashMap<String, Vec<String>>,
    /// `const` and `static` initializers, for constant strings.
    pub(super) consts: HashMap<String, &'f Expr>,
    /// A build script: it prints `cargo:` lines.
    pub(super) build_script: bool,
    /// Names only items compiled under test define, with where and what they are.
    pub(super) test_only: HashMap<String, (usize, String)>,
    /// Methods of an inherent `impl` compiled only under test that share a trait method's name:
    /// under test they are called instead of the trait's.
    pub(super) test_only_methods: HashMap<String, (usize, String)>,
}

impl<'f> Env<'f> {
    pub(super) fn of(file: &'f syn::File, source: &str) -> Env<'f> {
        let mut collect = Collect::default();
        collect.visit_file(file);
        let mut test_only = HashMap::new();
        let mut test_only_methods = HashMap::new();
        for (name, at, method) in collect.test_defined {
            if method {
                if collect.trait_methods.contains(&name) {
                    test_only_methods.entry(name).or_insert(at);
                }
            } else if !collect.defined.contains(&name) {
                test_only.entry(name).or_insert(at);
            }
        }
        Env {
            aliases: collect.aliases,
            consts: collect.consts,
            build_script: source.contains("\"cargo:"),
            test_only,
            test_only_methods,
        }
    }

    /// A path with its first segment's alias spelled out.
    pub(super) fn canon(&self, path: &syn::Path) -> Vec<String> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        match segs.first().and_then(|f| self.aliases.get(f)) {
            Some(full) if path.leading_colon.is_none() => full
                .iter()
                .cloned()
                .chain(segs[1..].iter().cloned())
                .collect(),
            _ => segs,
        }
    }
}

pub(super) fn ends(segs: &[String], tail: &[&str]) -> bool {
    segs.len() >= tail.len()
        && segs[segs.len() - tail.len()..]
            .iter()
            .zip(tail)
            .all(|(a, b)| a == b)
}

/// Aliases, constants and the names test-only items define, from every item of the file.
#[derive(Default)]
struct Collect<'f> {
    aliases: HashMap<String, Vec<String>>,
    consts: HashMap<String, &'f Expr>,
    defined: HashSet<String>,
    /// Names test-only items define: where, what, whether an inherent method.
    test_defined: Vec<(String, (usize, String), bool)>,
    /// The methods of the traits the file's code defines or implements.
    trait_methods: HashSet<String>,
}

impl Collect<'_> {
    fn uses(&mut self, prefix: &mut Vec<String>, tree: &UseTree, out: &mut Vec<String>) {
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.uses(prefix, &p.tree, out);
                prefix.pop();
            }
            UseTree::Name(n) => {
                let name = n.ident.to_string();
                let (local, full) = if name == "self" {
                    let mut full = prefix.clone();
                    (
                        full.last().cloned().unwrap_or_default(),
                        std::mem::take(&mut full),
                    )
                } else {
                    let mut full = prefix.clone();
                    full.push(name.clone());
                    (name, full)
                };
                out.push(local.clone());
                self.aliases.insert(local, full);
            }
            UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                out.push(r.rename.to_string());
                self.aliases.insert(r.rename.to_string(), full);
            }
            UseTree::Group(g) => {
                for t in &g.items {
                    self.uses(prefix, t, out);
                }
            }
            UseTree::Glob(_) => {}
        }
    }

    /// The names an item defines (an inherent `impl`: its methods).
    fn names(&mut self, item: &Item) -> Vec<String> {
        match item {
            Item::Fn(f) => vec![f.sig.ident.to_string()],
            Item::Const(c) => vec![c.ident.to_string()],
            Item::Static(s) => vec![s.ident.to_string()],
            Item::Struct(s) => vec![s.ident.to_string()],
            Item::Enum(e) => vec![e.ident.to_string()],
            Item::Type(t) => vec![t.ident.to_string()],
            Item::Macro(m) => m.ident.iter().map(|i| i.to_string()).collect(),
            Item::Use(u) => {
                let mut out = Vec::new();
                self.uses(&mut Vec::new(), &u.tree, &mut out);
                out
            }
            Item::Impl(i) if i.trait_.is_none() => i
                .items
                .iter()
                .filter_map(|it| match it {
                    ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
                    ImplItem::Const(c) => Some(c.ident.to_string()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl<'f> Visit<'f> for Collect<'f> {
    fn visit_item(&mut self, item: &'f Item) {
        if is_test_item(item) {
            if !matches!(item, Item::Mod(_)) {
                let attr = item_attrs(item).iter().find(|a| is_cfg_test(a));
                if let Some(attr) = attr {
                    let line = attr.span().start().line;
                    let shown = attr.to_token_stream().to_string().replace(' ', "");
                    let method = matches!(item, Item::Impl(_));
                    for name in self.names(item) {
                        let what = format!("{shown} {name} used outside tests");
                        self.test_defined.push((name, (line, what), method));
                    }
                }
            }
            return;
        }
        for name in self.names(item) {
            self.defined.insert(name);
        }
        match item {
            Item::Impl(i) if i.trait_.is_some() => {
                for it in &i.items {
                    if let ImplItem::Fn(f) = it {
                        self.trait_methods.insert(f.sig.ident.to_string());
                    }
                }
            }
            Item::Trait(t) => {
                for it in &t.items {
                    if let syn::TraitItem::Fn(f) = it {
                        self.trait_methods.insert(f.sig.ident.to_string());
                    }
                }
            }
            Item::Const(c) => {
                self.consts.insert(c.ident.to_string(), &c.expr);
            }
            Item::Static(s) => {
                self.consts.insert(s.ident.to_string(), &s.expr);
            }
            _ => {}
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_impl_item(&mut self, item: &'f ImplItem) {
        if let ImplItem::Const(c) = item {
            self.consts.insert(c.ident.to_string(), &c.expr);
        }
        syn::visit::visit_impl_item(self, item);
    }
}
