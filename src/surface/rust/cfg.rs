//! What a cfg predicate is under a plain `cargo test`: holds, never holds, or may (the
//! platform, a feature, the project's own cfgs).

use std::collections::BTreeSet;

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, Item, Meta};

use super::items::{holds_tests, is_test_item};

/// cfg names rustc or cargo set, or may: a predicate on one of them may hold under `cargo test`.
const KNOWN_CFGS: &[&str] = &[
    "debug_assertions",
    "overflow_checks",
    "panic",
    "proc_macro",
    "relocation_model",
    "sanitize",
    "sanitizer_cfi_generalize_pointers",
    "sanitizer_cfi_normalize_integers",
    "target_abi",
    "target_arch",
    "target_endian",
    "target_env",
    "target_family",
    "target_feature",
    "target_has_atomic",
    "target_has_atomic_equal_alignment",
    "target_has_atomic_load_store",
    "target_os",
    "target_pointer_width",
    "target_thread_local",
    "target_vendor",
    "ub_checks",
    "unix",
    "windows",
    "fmt_debug",
    "contract_checks",
    "feature",
];

/// cfg names that never hold under a plain `cargo test` (set by other tools).
const OFF_UNDER_TEST: &[&str] = &["miri", "doc", "doctest", "clippy", "rustfmt"];

/// The cfg names the file's code (its non-test items) uses: the project's own cfgs (a build
/// script's, `--cfg` flags), which may hold.
#[derive(Default)]
pub(super) struct ProjectCfgs(pub(super) BTreeSet<String>);

impl<'ast> Visit<'ast> for ProjectCfgs {
    fn visit_item(&mut self, item: &'ast Item) {
        match item {
            _ if is_test_item(item) => {}
            // A module holding tests: its own attributes are the tests' (a cfg gating them).
            Item::Mod(m) if m.content.as_ref().is_some_and(|(_, i)| holds_tests(i)) => {
                for inner in m.content.iter().flat_map(|(_, i)| i) {
                    self.visit_item(inner);
                }
            }
            _ => syn::visit::visit_item(self, item),
        }
    }

    fn visit_attribute(&mut self, attr: &'ast Attribute) {
        if attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr") {
            for tree in attr.meta.to_token_stream() {
                collect_idents(tree, &mut self.0);
            }
        }
    }
}

fn collect_idents(tree: proc_macro2::TokenTree, out: &mut BTreeSet<String>) {
    match tree {
        proc_macro2::TokenTree::Ident(i) => {
            out.insert(i.to_string());
        }
        proc_macro2::TokenTree::Group(g) => {
            for t in g.stream() {
                collect_idents(t, out);
            }
        }
        _ => {}
    }
}

/// What a cfg predicate is under a plain `cargo test`: Some(true) it holds (`test`), Some(false)
/// it never does (`any()`, `not(test)`, `miri`, a cfg name nothing sets: not a known one, not
/// one the file's code uses), None it may (the platform, a feature, the project's own cfgs).
pub(super) fn cfg_value(meta: &Meta, project: &BTreeSet<String>) -> Option<bool> {
    let name = |p: &syn::Path| p.get_ident().map(|i| i.to_string()).unwrap_or_default();
    let known = |n: &str| KNOWN_CFGS.contains(&n) || project.contains(n);
    match meta {
        Meta::Path(p) => {
            let n = name(p);
            if n == "test" {
                Some(true)
            } else if OFF_UNDER_TEST.contains(&n.as_str()) || !known(&n) {
                Some(false)
            } else {
                None
            }
        }
        Meta::NameValue(nv) => {
            let n = name(&nv.path);
            if known(&n) { None } else { Some(false) }
        }
        Meta::List(list) => {
            let Ok(nested) =
                list.parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
            else {
                return None;
            };
            let values: Vec<Option<bool>> = nested.iter().map(|m| cfg_value(m, project)).collect();
            match name(&list.path).as_str() {
                "all" if values.contains(&Some(false)) => Some(false),
                "all" if values.iter().all(|v| *v == Some(true)) => Some(true),
                "any" if values.contains(&Some(true)) => Some(true),
                "any" if values.iter().all(|v| *v == Some(false)) => Some(false),
                "not" if values.len() == 1 => values[0].map(|v| !v),
                _ => None,
            }
        }
    }
}

/// The line of the first attribute that keeps the item from running under `cargo test`: a cfg
/// that never holds, `cfg_attr(P, cfg(never))` or, when `ignore` counts, `cfg_attr(P, ignore)`,
/// for a P that may hold.
pub(super) fn disabled_by(
    attrs: &[Attribute],
    project: &BTreeSet<String>,
    ignore: bool,
) -> Option<usize> {
    attrs.iter().find_map(|a| {
        let line = a.span().start().line;
        if a.path().is_ident("cfg") {
            let m = a.parse_args::<Meta>().ok()?;
            return (cfg_value(&m, project) == Some(false)).then_some(line);
        }
        if !a.path().is_ident("cfg_attr") {
            return None;
        }
        let args = a
            .parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
            .ok()?;
        let mut args = args.iter();
        if cfg_value(args.next()?, project) == Some(false) {
            return None;
        }
        args.any(|m| match m {
            Meta::List(l) if l.path.is_ident("cfg") => l
                .parse_args::<Meta>()
                .is_ok_and(|inner| cfg_value(&inner, project) == Some(false)),
            other => ignore && other.path().is_ident("ignore"),
        })
        .then_some(line)
    })
}
