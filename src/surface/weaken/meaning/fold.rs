//! Constant folding: the constant string an expression of a Python, JavaScript/TypeScript or Go
//! file comes to (concatenation, adjacent literals, joins, f-strings and template literals of
//! constants, `%`, `.format` and `fmt.Sprintf` with constants, case changes, `[::-1]`).

use tree_sitter::Node;

use super::super::Language;
use super::super::tree::{kids, named, string_value, text};
use super::{Meaning, Val};

impl<'a> Meaning<'a> {
    /// The constant string an expression folds to (see the module's documentation).
    pub fn fold(&self, node: Node<'a>) -> Option<String> {
        match node.kind() {
            "string" | "template_string" | "interpreted_string_literal" | "raw_string_literal" => {
                self.fold_string(node)
            }
            "concatenated_string" => named(node).iter().map(|n| self.fold(*n)).collect(),
            "parenthesized_expression" => self.fold(*named(node).first()?),
            "identifier" => match self.bound.get(text(node, self.src)) {
                Some(Val::Str(s)) => Some(s.clone()),
                _ => None,
            },
            "binary_operator" | "binary_expression" => self.fold_binary(node),
            "subscript" => self.fold_reversed(node),
            "call" | "call_expression" => self.fold_call(node),
            _ => None,
        }
    }

    /// What a string literal folds to: its value, or its interpolated parts all folded (an
    /// f-string or template literal of constants).
    fn fold_string(&self, node: Node<'a>) -> Option<String> {
        let parts = kids(node);
        if !parts
            .iter()
            .any(|p| matches!(p.kind(), "interpolation" | "template_substitution"))
        {
            return string_value(node, self.src);
        }
        let mut out = String::new();
        for p in parts {
            match p.kind() {
                "interpolation" | "template_substitution" => {
                    out.push_str(&self.fold(*named(p).first()?)?)
                }
                "string_content" | "string_fragment" | "escape_sequence" => {
                    out.push_str(text(p, self.src))
                }
                _ => {}
            }
        }
        Some(out)
    }

    /// What a binary operation folds to: `+` of two constants, or Python's `%` with constants.
    fn fold_binary(&self, node: Node<'a>) -> Option<String> {
        let l = node.child_by_field_name("left")?;
        let r = node.child_by_field_name("right")?;
        let op = node
            .child_by_field_name("operator")
            .map(|o| text(o, self.src));
        match op {
            Some("+") => Some(self.fold(l)? + &self.fold(r)?),
            Some("%") if self.language == Language::Python => {
                let args = match r.kind() {
                    "tuple" => self.fold_list(r)?,
                    _ => vec![self.fold(r)?],
                };
                Some(percent(&self.fold(l)?, &args))
            }
            _ => None,
        }
    }

    /// What a Python subscript folds to: a constant reversed by `[::-1]`.
    fn fold_reversed(&self, node: Node<'a>) -> Option<String> {
        let s = node.child_by_field_name("subscript")?;
        (text(s, self.src).replace(' ', "") == "::-1")
            .then(|| self.fold(node.child_by_field_name("value")?))
            .flatten()
            .map(|v| v.chars().rev().collect())
    }

    /// What a call folds to: a Go string function, or a string method of a constant.
    fn fold_call(&self, node: Node<'a>) -> Option<String> {
        let callee = node.child_by_field_name("function")?;
        let args: Vec<Node> = node
            .child_by_field_name("arguments")
            .map(named)
            .unwrap_or_default();
        if self.language == Language::Go {
            return self.fold_go_call(callee, &args);
        }
        if !matches!(callee.kind(), "attribute" | "member_expression") {
            return None;
        }
        self.fold_method_call(callee, &args)
    }

    /// What a Go call folds to: `strings.Join`, `fmt.Sprintf` or a case change of constants.
    fn fold_go_call(&self, callee: Node<'a>, args: &[Node<'a>]) -> Option<String> {
        let name = match self.eval(callee)? {
            Val::Name(n) => n,
            _ => return None,
        };
        match name.as_str() {
            "strings.Join" => Some(
                self.fold_list(*args.first()?)?
                    .join(&self.fold(*args.get(1)?)?),
            ),
            "fmt.Sprintf" => {
                let rest: Option<Vec<String>> = args
                    .get(1..)
                    .unwrap_or_default()
                    .iter()
                    .map(|a| self.fold(*a))
                    .collect();
                Some(percent(&self.fold(*args.first()?)?, &rest?))
            }
            "strings.ToUpper" => Some(self.fold(*args.first()?)?.to_uppercase()),
            "strings.ToLower" => Some(self.fold(*args.first()?)?.to_lowercase()),
            _ => None,
        }
    }

    /// What a Python or JavaScript method call on a constant folds to (`callee`: the member
    /// called).
    fn fold_method_call(&self, callee: Node<'a>, args: &[Node<'a>]) -> Option<String> {
        let obj = *named(callee).first()?;
        let method = callee
            .child_by_field_name("attribute")
            .or_else(|| callee.child_by_field_name("property"))
            .map(|m| text(m, self.src))?;
        match method {
            "join" => self.fold_join(obj, args),
            "format" => {
                let mut out = self.fold(obj)?;
                for a in args {
                    let v = self.fold(*a)?;
                    let at = out.find('{')?;
                    let end = at + out[at..].find('}')?;
                    out.replace_range(at..=end, &v);
                }
                Some(out)
            }
            "upper" | "toUpperCase" => Some(self.fold(obj)?.to_uppercase()),
            "lower" | "toLowerCase" => Some(self.fold(obj)?.to_lowercase()),
            "strip" | "trim" => Some(self.fold(obj)?.trim().to_string()),
            "concat" => {
                let mut out = self.fold(obj)?;
                for a in args {
                    out.push_str(&self.fold(*a)?);
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// What a join folds to: JavaScript's `[...].join(sep)` (`,` by default) or Python's
    /// `sep.join([...])`.
    fn fold_join(&self, obj: Node<'a>, args: &[Node<'a>]) -> Option<String> {
        if let Some(items) = self.fold_list(obj) {
            let sep = match args.first() {
                Some(a) => self.fold(*a)?,
                None => ",".to_string(),
            };
            return Some(items.join(&sep));
        }
        Some(self.fold_list(*args.first()?)?.join(&self.fold(obj)?))
    }

    /// The constant strings of a list, tuple, array or Go slice literal.
    fn fold_list(&self, node: Node<'a>) -> Option<Vec<String>> {
        let items = match node.kind() {
            "list" | "tuple" | "array" => named(node),
            "composite_literal" => {
                let body = node.child_by_field_name("body")?;
                named(body)
                    .into_iter()
                    .map(|e| named(e).first().copied().unwrap_or(e))
                    .collect()
            }
            "parenthesized_expression" => return self.fold_list(*named(node).first()?),
            _ => return None,
        };
        items.into_iter().map(|i| self.fold(i)).collect()
    }
}

/// `%s`/`%d`/`%v`-style formatting with constant arguments, in order.
fn percent(format: &str, args: &[String]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' && chars.peek().is_some_and(|n| n.is_ascii_alphabetic()) {
            chars.next();
            out.push_str(args.next().map_or("", |a| a.as_str()));
        } else {
            out.push(c);
        }
    }
    out
}
