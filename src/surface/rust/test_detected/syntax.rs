//! Small questions about Rust syntax the detector asks: where a `cfg!` is, what a pattern
//! binds, whether a type is `bool` or an item exported, what an expression holds. Pure.

use quote::ToTokens;
use syn::visit::Visit;
use syn::{Expr, Lit, Macro, Pat, Visibility};

use super::signals::cfg_bits;

/// A dyn-friendly [`ToTokens`].
pub(super) trait ToTokensDyn {
    fn tokens(&self) -> proc_macro2::TokenStream;
}

impl<T: ToTokens> ToTokensDyn for T {
    fn tokens(&self) -> proc_macro2::TokenStream {
        self.to_token_stream()
    }
}

/// The first `cfg!(…)` naming `test` or `debug_assertions` inside `e`.
pub(super) fn cfg_macro(e: &Expr) -> Option<&Macro> {
    struct Find<'e>(Option<&'e Macro>);
    impl<'e> Visit<'e> for Find<'e> {
        fn visit_macro(&mut self, mac: &'e Macro) {
            if self.0.is_none()
                && mac.path.is_ident("cfg")
                && cfg_bits(&mac.tokens.to_string()) != 0
            {
                self.0 = Some(mac);
            }
        }
    }
    let mut find = Find(None);
    find.visit_expr(e);
    find.0
}

/// Whether a pattern compares with a literal (`Some("main")`, `"deps"`), a guard aside.
pub(super) fn pat_has_literal(pat: &Pat) -> bool {
    struct Find(bool);
    impl<'p> Visit<'p> for Find {
        fn visit_pat_guard(&mut self, g: &'p syn::PatGuard) {
            self.visit_pat(&g.pat);
        }
        fn visit_lit(&mut self, _: &'p Lit) {
            self.0 = true;
        }
    }
    let mut find = Find(false);
    find.visit_pat(pat);
    find.0
}

pub(super) fn pat_names(pat: &Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'p> Visit<'p> for Names {
        fn visit_pat_ident(&mut self, p: &'p syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut names = Names(Vec::new());
    names.visit_pat(pat);
    names.0
}

/// A flag's type: `bool`, `LazyLock<bool>`, `AtomicBool`, ….
pub(super) fn is_bool(ty: &syn::Type) -> bool {
    let tokens = ty.to_token_stream().to_string();
    tokens
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| w == "bool" || w == "AtomicBool")
}

pub(super) fn is_exported(vis: &Visibility) -> bool {
    !matches!(vis, Visibility::Inherited)
}

/// The attributes of the expressions whose walk below skips them.
pub(super) fn expr_attrs(e: &Expr) -> &[syn::Attribute] {
    match e {
        Expr::Return(x) => &x.attrs,
        Expr::If(x) => &x.attrs,
        Expr::While(x) => &x.attrs,
        Expr::Match(x) => &x.attrs,
        Expr::Assign(x) => &x.attrs,
        Expr::ForLoop(x) => &x.attrs,
        Expr::Let(x) => &x.attrs,
        _ => &[],
    }
}

/// Expressions looked at whole for a read signal: not the ones that only hold others.
pub(super) fn holds_statements(e: &Expr) -> bool {
    matches!(
        e,
        Expr::If(_)
            | Expr::Match(_)
            | Expr::Block(_)
            | Expr::Unsafe(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
            | Expr::Closure(_)
            | Expr::Async(_)
            | Expr::TryBlock(_)
            | Expr::Const(_)
    )
}
