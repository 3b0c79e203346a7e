//! Constant strings: what a name, `concat!`, `format!`, `+` or `[…].join(…)` of constants is.

use std::collections::HashMap;

use syn::{BinOp, Expr, Lit, Macro};

use super::signals::macro_exprs;
use super::{Finder, Locals};

impl Finder<'_, '_> {
    /// The constant string `e` is, if it is one.
    pub(super) fn eval(&self, e: &Expr, locals: &Locals, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        let ev = |x: &Expr| self.eval(x, locals, depth + 1);
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Str(s) => Some(s.value()),
                Lit::Int(i) => Some(i.base10_digits().to_string()),
                Lit::Char(c) => Some(c.value().to_string()),
                Lit::Bool(b) => Some(b.value.to_string()),
                _ => None,
            },
            Expr::Path(p) => {
                let id = p.path.segments.last()?.ident.to_string();
                if p.path.segments.len() == 1
                    && let Some(l) = locals.get(&id)
                {
                    return l.text.clone();
                }
                self.env.consts.get(&id).and_then(|c| ev(c))
            }
            Expr::Paren(p) => ev(&p.expr),
            Expr::Group(g) => ev(&g.expr),
            Expr::Reference(r) => ev(&r.expr),
            Expr::Binary(b) if matches!(b.op, BinOp::Add(_)) => Some(ev(&b.left)? + &ev(&b.right)?),
            Expr::MethodCall(m) => match m.method.to_string().as_str() {
                "to_string" | "to_owned" | "into" | "as_str" | "as_ref" | "borrow" => {
                    ev(&m.receiver)
                }
                "to_uppercase" | "to_ascii_uppercase" => ev(&m.receiver).map(|s| s.to_uppercase()),
                "concat" | "join" => {
                    let Expr::Array(a) = &*m.receiver else {
                        return None;
                    };
                    let sep = match m.args.first() {
                        Some(s) => ev(s)?,
                        None => String::new(),
                    };
                    let parts: Option<Vec<String>> = a.elems.iter().map(ev).collect();
                    Some(parts?.join(&sep))
                }
                _ => None,
            },
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return None };
                let last = p.path.segments.last()?.ident.to_string();
                matches!(last.as_str(), "from" | "new" | "to_string" | "to_owned")
                    .then(|| c.args.first().and_then(ev))
                    .flatten()
            }
            Expr::Macro(m) => self.eval_macro(&m.mac, locals, depth + 1),
            _ => None,
        }
    }

    /// `concat!(…)`, `format!(…)`, `stringify!(…)` of constants.
    pub(super) fn eval_macro(&self, mac: &Macro, locals: &Locals, depth: usize) -> Option<String> {
        let name = mac.path.segments.last()?.ident.to_string();
        match name.as_str() {
            "concat" => {
                let parts: Option<Vec<String>> = macro_exprs(mac)
                    .iter()
                    .map(|e| self.eval(e, locals, depth + 1))
                    .collect();
                Some(parts?.concat())
            }
            "stringify" => Some(mac.tokens.to_string()),
            "format" => {
                let exprs = macro_exprs(mac);
                let (fmt, rest) = exprs.split_first()?;
                let fmt = self.eval(fmt, locals, depth + 1)?;
                let mut positional = Vec::new();
                let mut named = HashMap::new();
                for e in rest {
                    match e {
                        Expr::Assign(a) => {
                            let Expr::Path(p) = &*a.left else { return None };
                            named.insert(
                                p.path.get_ident()?.to_string(),
                                self.eval(&a.right, locals, depth + 1)?,
                            );
                        }
                        _ => positional.push(self.eval(e, locals, depth + 1)?),
                    }
                }
                let mut out = String::new();
                let mut next = 0;
                let mut chars = fmt.chars().peekable();
                while let Some(c) = chars.next() {
                    match c {
                        '{' if chars.peek() == Some(&'{') => {
                            chars.next();
                            out.push('{');
                        }
                        '}' if chars.peek() == Some(&'}') => {
                            chars.next();
                            out.push('}');
                        }
                        '{' => {
                            let spec: String = chars.by_ref().take_while(|c| *c != '}').collect();
                            let arg = spec.split(':').next().unwrap_or_default().trim();
                            let value = if arg.is_empty() {
                                next += 1;
                                positional.get(next - 1).cloned()
                            } else if let Ok(i) = arg.parse::<usize>() {
                                positional.get(i).cloned()
                            } else {
                                named.get(arg).cloned().or_else(|| {
                                    let path: Expr = syn::parse_str(arg).ok()?;
                                    self.eval(&path, locals, depth + 1)
                                })
                            };
                            out.push_str(&value?);
                        }
                        c => out.push(c),
                    }
                }
                Some(out)
            }
            _ => None,
        }
    }
}

/// The names a format string captures (`{name}`, `{name:?}`).
pub(super) fn captured_names(fmt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = fmt;
    while let Some(at) = rest.find('{') {
        rest = &rest[at + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest.find('}').unwrap_or(rest.len());
        let arg = rest[..end].split(':').next().unwrap_or_default().trim();
        if arg.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            out.push(arg.to_string());
        }
        rest = &rest[end..];
    }
    out
}
