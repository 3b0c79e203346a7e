//! What a Rust test body checks: its assertion macros (subject and expected split) and the other
//! checks (`?`, `unwrap`, `expect`, `panic!`, helpers named like `check_…`).

use quote::ToTokens;
use syn::Expr;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;

use crate::surface::weaken::Assertion;

/// Assertion macros: the subject/expected split applies to these.
const ASSERT_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "assert_matches",
    "prop_assert",
    "prop_assert_eq",
    "prop_assert_ne",
];

/// Things in a test body that check a value other than an assertion macro.
#[derive(Default)]
pub(super) struct Checks {
    pub(super) assertions: Vec<Assertion>,
    /// Non-constant checks that are not assertion macros: `?`, `unwrap`, `expect`, `panic!`,
    /// a helper named like `check_…`/`assert_…`.
    pub(super) checks: usize,
}

fn tokens(e: &Expr) -> String {
    e.to_token_stream().to_string()
}

/// Whether an expression holds no name at all: literals and operators over them.
fn constant(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Unary(u) => constant(&u.expr),
        Expr::Binary(b) => constant(&b.left) && constant(&b.right),
        Expr::Paren(p) => constant(&p.expr),
        Expr::Group(g) => constant(&g.expr),
        Expr::Tuple(t) => t.elems.iter().all(constant),
        Expr::Array(a) => a.elems.iter().all(constant),
        Expr::Reference(r) => constant(&r.expr),
        _ => false,
    }
}

fn comparison(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(op, Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_))
}

fn helper_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    [
        "assert", "check", "expect", "verify", "ensure", "should", "must",
    ]
    .iter()
    .any(|w| name.contains(w))
}

impl Checks {
    fn assertion(&mut self, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        let line = mac.path.span().start().line;
        let args = mac
            .parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            .ok();
        let (subject, expected, constant_only) = match args
            .as_ref()
            .map(|a| a.iter().collect::<Vec<_>>())
        {
            Some(args)
                if name.ends_with("_eq") || name.ends_with("_ne") || name == "assert_matches" =>
            {
                match (args.first(), args.get(1)) {
                    (Some(a), Some(b)) => {
                        let (subject, expected) = if constant(a) && !constant(b) {
                            (b, a)
                        } else {
                            (a, b)
                        };
                        (
                            tokens(subject),
                            format!("{name} {}", tokens(expected)),
                            constant(a) && constant(b),
                        )
                    }
                    _ => (mac.tokens.to_string(), name.clone(), false),
                }
            }
            Some(args) => match args.first() {
                Some(Expr::Binary(b)) if comparison(&b.op) => {
                    let (subject, expected) = if constant(&b.left) && !constant(&b.right) {
                        (&b.right, &b.left)
                    } else {
                        (&b.left, &b.right)
                    };
                    (
                        tokens(subject),
                        format!("{} {}", b.op.to_token_stream(), tokens(expected)),
                        constant(&b.left) && constant(&b.right),
                    )
                }
                Some(cond) => (tokens(cond), String::new(), constant(cond)),
                None => (String::new(), String::new(), true),
            },
            None => (mac.tokens.to_string(), name.clone(), false),
        };
        self.assertions.push(Assertion {
            line,
            subject,
            expected,
            constant: constant_only,
        });
    }
}

impl<'ast> Visit<'ast> for Checks {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if ASSERT_MACROS.contains(&name.as_str()) {
            self.assertion(mac);
        } else if matches!(name.as_str(), "panic" | "unreachable") || helper_name(&name) {
            self.checks += 1;
        }
    }

    fn visit_expr_try(&mut self, e: &'ast syn::ExprTry) {
        self.checks += 1;
        syn::visit::visit_expr_try(self, e);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let name = call.method.to_string();
        if name.starts_with("unwrap") || name.starts_with("expect") || helper_name(&name) {
            self.checks += 1;
        }
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*call.func
            && let Some(last) = p.path.segments.last()
            && helper_name(&last.ident.to_string())
        {
            self.checks += 1;
        }
        syn::visit::visit_expr_call(self, call);
    }
}
