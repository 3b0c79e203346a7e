//! Rust code that answers a test's own input with a constant, for `special-cased-input` (the rule
//! is in `crate::surface::weaken::special_case`): an `if` (or `else if`) outside the test items
//! whose condition compares with a literal by `==` and whose first statement returns, yields or
//! assigns a literal; and the literals of a file's test items.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{BinOp, Expr, ExprIf, Item, Lit, Stmt, UnOp};

use super::items::is_test_item;
use super::{RustParseError, parse, with_spans_dropped};
use crate::surface::weaken::special_case::{Literal, SpecialCase};

/// The special cases of a Rust file's code (its test items left out), on any line.
pub fn special_cases(source: &str) -> Result<Vec<SpecialCase>, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        let mut finder = Finder {
            shift: source[..parsed.skip].matches('\n').count(),
            out: Vec::new(),
        };
        finder.visit_file(&parsed.file);
        Ok(finder.out)
    })
}

/// The literals written in a Rust file's test items (`#[test]` functions, `#[cfg(test)]`
/// modules and items), macro arguments included, with their lines.
pub fn test_literals(source: &str) -> Result<Vec<(Literal, usize)>, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        let shift = source[..parsed.skip].matches('\n').count();
        let mut out = Vec::new();
        let mut items: Vec<&Item> = parsed.file.items.iter().collect();
        while let Some(item) = items.pop() {
            if is_test_item(item) {
                token_literals(item.to_token_stream(), shift, &mut out);
            } else if let Item::Mod(m) = item
                && let Some((_, inner)) = &m.content
            {
                items.extend(inner.iter());
            }
        }
        Ok(out)
    })
}

fn token_literals(tokens: TokenStream, shift: usize, out: &mut Vec<(Literal, usize)>) {
    // A `-` just before a literal is its sign (`clamp(-3, 0, 10)`).
    let mut minus = false;
    for tree in tokens {
        match &tree {
            TokenTree::Group(g) => token_literals(g.stream(), shift, out),
            TokenTree::Literal(l) => {
                let line = l.span().start().line + shift;
                if let Some(lit) = literal(&syn::parse_str::<Lit>(&l.to_string()).ok(), minus) {
                    out.push((lit, line));
                }
            }
            _ => {}
        }
        minus = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '-');
    }
}

/// A literal of the rule, from a Rust literal (`1_900`, `15u32`, `"a  b"`); None for others.
fn literal(lit: &Option<Lit>, negative: bool) -> Option<Literal> {
    let sign = if negative { "-" } else { "" };
    match lit.as_ref()? {
        Lit::Int(i) => Literal::number(&format!("{sign}{}", i.base10_digits())),
        Lit::Float(f) => Literal::number(&format!("{sign}{}", f.base10_digits())),
        Lit::Str(s) => Some(Literal::Text(s.value())),
        _ => None,
    }
}

/// The literal an expression is (`15`, `-3`, `"a  b"`).
fn expr_literal(e: &Expr) -> Option<Literal> {
    match e {
        Expr::Lit(l) => literal(&Some(l.lit.clone()), false),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(l) => literal(&Some(l.lit.clone()), true),
            _ => None,
        },
        Expr::Paren(p) => expr_literal(&p.expr),
        Expr::Group(g) => expr_literal(&g.expr),
        _ => None,
    }
}

/// A constant a branch answers with: a literal, a boolean, `None`.
fn constant(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Unary(u) => matches!(u.op, UnOp::Neg(_)) && constant(&u.expr),
        Expr::Path(p) => p.path.is_ident("None"),
        _ => false,
    }
}

struct Finder {
    shift: usize,
    out: Vec<SpecialCase>,
}

impl Finder {
    /// What the branch's first statement answers with, when it is a constant.
    fn answer(i: &ExprIf) -> Option<String> {
        let value = match i.then_branch.stmts.first()? {
            Stmt::Expr(Expr::Return(r), _) => r.expr.as_deref()?,
            Stmt::Expr(Expr::Assign(a), _) => &a.right,
            Stmt::Expr(e, None) => e,
            _ => return None,
        };
        constant(value).then(|| value.to_token_stream().to_string())
    }

    fn equalities(&mut self, cond: &Expr, answer: &str) {
        match cond {
            Expr::Binary(b) if matches!(b.op, BinOp::Eq(_)) => {
                let lit = expr_literal(&b.left).or_else(|| expr_literal(&b.right));
                if let Some(literal) = lit {
                    let shown = crate::surface::weaken::test_detected::shorten(
                        &cond.to_token_stream().to_string(),
                    );
                    self.out.push(SpecialCase {
                        line: cond.span().start().line + self.shift,
                        literal,
                        shown: format!("{shown} → {answer}"),
                    });
                }
            }
            Expr::Binary(b) => {
                self.equalities(&b.left, answer);
                self.equalities(&b.right, answer);
            }
            Expr::Paren(p) => self.equalities(&p.expr, answer),
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_item(&mut self, item: &'ast Item) {
        if !is_test_item(item) {
            visit::visit_item(self, item);
        }
    }

    fn visit_expr_if(&mut self, i: &'ast ExprIf) {
        if let Some(answer) = Finder::answer(i) {
            self.equalities(&i.cond, &answer);
        }
        visit::visit_expr_if(self, i);
    }
}
