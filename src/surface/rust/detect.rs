//! Rust code that tells a test build from another (`cfg!(test)` in an expression, a
//! `#[cfg(not(test))]` item), and conditions that read the crate's own path, working directory or
//! temporary folder (`env!("CARGO_MANIFEST_DIR")`, `file!()`, `std::env::current_dir()`,
//! `std::env::temp_dir()`, `std::env::current_exe()`), for `test-detected`.

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Item, Meta};

use super::items::{is_test_item, item_attrs};
use super::{RustParseError, parse, with_spans_dropped};
use crate::surface::weaken::FindingKind;
use crate::surface::weaken::detect::Detection;

/// The detections of a Rust file: in its code items (`code`: also outside test items) the
/// `cfg!(test)` expressions and `cfg(…test…)` items that are not test items; in every item, the
/// conditions that read a path of the run.
pub fn detections(source: &str, code: bool) -> Result<Vec<Detection>, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        let mut finder = Finder {
            lines: source.lines().collect(),
            code,
            in_test: false,
            out: Vec::new(),
        };
        finder.visit_file(&parsed.file);
        Ok(finder.out)
    })
}

struct Finder<'s> {
    lines: Vec<&'s str>,
    code: bool,
    in_test: bool,
    out: Vec<Detection>,
}

/// Whether a cfg predicate names `test` anywhere (`test`, `not(test)`, `any(test, …)`).
fn names_test(meta: &Meta) -> bool {
    words_test(&meta.to_token_stream().to_string())
}

fn words_test(tokens: &str) -> bool {
    tokens
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| w == "test")
}

fn path_probe(e: &Expr) -> bool {
    let mut probe = Probe(false);
    probe.visit_expr(e);
    probe.0
}

struct Probe(bool);

impl<'ast> Visit<'ast> for Probe {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        let tokens = mac.tokens.to_string();
        if match name.as_deref() {
            Some("env" | "option_env") => {
                tokens.contains("CARGO_MANIFEST_DIR") || tokens.contains("OUT_DIR")
            }
            Some("file") => true,
            _ => false,
        } {
            self.0 = true;
        }
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.segments.last().is_some_and(|s| {
            matches!(
                s.ident.to_string().as_str(),
                "current_dir" | "current_exe" | "temp_dir"
            )
        }) {
            self.0 = true;
        }
        syn::visit::visit_path(self, p);
    }
}

impl Finder<'_> {
    fn push(&mut self, line: usize, what: String) {
        self.out.push((FindingKind::TestDetected, line, what));
    }

    fn condition(&mut self, e: &Expr) {
        if path_probe(e) {
            let what = format!("if {}", self.source(e.span(), e));
            self.push(e.span().start().line, what);
        }
    }

    /// The source text a span covers (its tokens where the span cannot be read).
    fn source(&self, span: proc_macro2::Span, tokens: &impl ToTokens) -> String {
        let (start, end) = (span.start(), span.end());
        let text: Option<String> = (start.line..=end.line)
            .map(|l| {
                let line = self.lines.get(l.checked_sub(1)?)?;
                let chars: Vec<char> = line.chars().collect();
                let from = if l == start.line { start.column } else { 0 };
                let to = if l == end.line {
                    end.column
                } else {
                    chars.len()
                };
                chars.get(from..to).map(|c| c.iter().collect::<String>())
            })
            .collect::<Option<Vec<String>>>()
            .map(|parts| parts.join(" "));
        text.filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| tokens.to_token_stream().to_string())
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item(&mut self, item: &'ast Item) {
        let test = is_test_item(item);
        if self.code && !self.in_test && !test {
            for attr in item_attrs(item) {
                if let Meta::List(list) = &attr.meta
                    && list.path.is_ident("cfg")
                    && let Ok(meta) = list.parse_args::<Meta>()
                    && names_test(&meta)
                {
                    let what = self.source(attr.span(), attr);
                    self.push(attr.span().start().line, what);
                }
            }
        }
        let was = self.in_test;
        self.in_test |= test;
        syn::visit::visit_item(self, item);
        self.in_test = was;
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if self.code
            && !self.in_test
            && mac.path.is_ident("cfg")
            && words_test(&mac.tokens.to_string())
        {
            let what = self.source(mac.span(), mac);
            self.push(mac.path.span().start().line, what);
        }
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.condition(&e.cond);
        syn::visit::visit_expr_if(self, e);
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.condition(&e.cond);
        syn::visit::visit_expr_while(self, e);
    }

    fn visit_pat_guard(&mut self, g: &'ast syn::PatGuard) {
        self.condition(&g.guard);
        syn::visit::visit_pat_guard(self, g);
    }

    fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
        // `assert!`, `if`-like macros are macros: their bodies are tokens, read as expressions
        // where they parse, so a probe hidden in one is seen.
        if let Ok(args) = m
            .mac
            .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
        {
            for a in &args {
                self.visit_expr(a);
            }
        }
        syn::visit::visit_stmt_macro(self, m);
    }
}
