//! The cases of a Rust table test: a `for` loop over a literal table (`for (a, b, want) in [(2,
//! 2, 4), …]`, `&[…]`, `vec![…]`, or a local `let cases = […];` named by the loop), each row
//! binding the loop's pattern (a tuple of names, or one name: a struct row binds `c.field`).

use quote::ToTokens;
use syn::visit::Visit;
use syn::{Block, Expr, Pat, Stmt};

use crate::surface::weaken::Param;

/// The cases of the table loops of a test body (all of them, in order).
pub fn table_cases(block: &Block) -> Vec<Param> {
    let mut lets = Vec::new();
    for stmt in &block.stmts {
        if let Stmt::Local(local) = stmt
            && let Pat::Ident(id) = strip_type(&local.pat)
            && let Some(init) = &local.init
        {
            lets.push((id.ident.to_string(), (*init.expr).clone()));
        }
    }
    let mut finder = Loops {
        lets,
        out: Vec::new(),
    };
    finder.visit_block(block);
    finder.out
}

fn strip_type(p: &Pat) -> &Pat {
    match p {
        Pat::Type(t) => &t.pat,
        other => other,
    }
}

struct Loops {
    lets: Vec<(String, Expr)>,
    out: Vec<Param>,
}

/// The rows of a table expression: an array, a reference to one, `vec![…]`, `.iter()` on one.
fn rows(e: &Expr, lets: &[(String, Expr)]) -> Option<Vec<Expr>> {
    match e {
        Expr::Array(a) => Some(a.elems.iter().cloned().collect()),
        Expr::Reference(r) => rows(&r.expr, lets),
        Expr::Paren(p) => rows(&p.expr, lets),
        Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "iter" | "into_iter") => {
            rows(&m.receiver, lets)
        }
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let elems = m
                .mac
                .parse_body_with(
                    syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
                )
                .ok()?;
            Some(elems.into_iter().collect())
        }
        Expr::Path(p) => {
            let name = p.path.get_ident()?.to_string();
            let (_, init) = lets.iter().rev().find(|(n, _)| *n == name)?;
            rows(init, &[])
        }
        _ => None,
    }
}

fn text(e: &impl ToTokens) -> String {
    e.to_token_stream().to_string()
}

/// What one row binds the loop's pattern to.
fn bind(pat: &Pat, row: &Expr) -> Vec<(String, String)> {
    let row = match row {
        Expr::Reference(r) => &*r.expr,
        other => other,
    };
    match (strip_type(pat), row) {
        (Pat::Tuple(names), Expr::Tuple(values)) => names
            .elems
            .iter()
            .zip(values.elems.iter())
            .flat_map(|(n, v)| bind(n, v))
            .collect(),
        (Pat::Reference(r), _) => bind(&r.pat, row),
        (Pat::Ident(id), Expr::Struct(s)) => {
            let name = id.ident.to_string();
            let mut out: Vec<(String, String)> = s
                .fields
                .iter()
                .map(|f| (format!("{name}.{}", text(&f.member)), text(&f.expr)))
                .collect();
            out.push((name, text(row)));
            out
        }
        (Pat::Ident(id), _) => vec![(id.ident.to_string(), text(row))],
        _ => Vec::new(),
    }
}

impl<'ast> Visit<'ast> for Loops {
    fn visit_expr_for_loop(&mut self, l: &'ast syn::ExprForLoop) {
        if let Some(rows) = rows(&l.expr, &self.lets) {
            for row in &rows {
                let values = bind(&l.pat, row);
                if !values.is_empty() {
                    self.out.push(Param {
                        values,
                        skip_line: None,
                    });
                }
            }
        }
        syn::visit::visit_expr_for_loop(self, l);
    }
}
