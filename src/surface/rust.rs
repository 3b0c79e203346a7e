//! Rust test items inside source files, found with `syn`: which items are tests, a file's red
//! version (base code, working tests), and the test functions with their assertions.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, Expr, Item, Meta};

use super::weaken::{Assertion, TestCase};

/// A Rust file that does not parse: where and why (the red run that needs it is inconclusive).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct RustParseError {
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    pub message: String,
}

/// Attribute names that make a function a test (the last segment of the path: `#[test]`,
/// `#[tokio::test]`, `#[rstest]`, …).
const TEST_ATTRIBUTES: &[&str] = &[
    "test",
    "rstest",
    "test_case",
    "test_log",
    "quickcheck",
    "wasm_bindgen_test",
    "bench",
];

/// A parsed file, its spans turned into plain byte offsets and lines.
struct Parsed {
    /// Bytes at the start that syn does not see (a BOM, a `#!` line).
    skip: usize,
    file: syn::File,
}

fn parse(source: &str) -> Result<Parsed, RustParseError> {
    let mut skip = 0;
    if source.starts_with('\u{feff}') {
        skip = '\u{feff}'.len_utf8();
    }
    let rest = &source[skip..];
    if let Some(after) = rest.strip_prefix("#!")
        && !after.trim_start().starts_with('[')
    {
        skip += rest.find('\n').unwrap_or(rest.len());
    }
    let result = syn::parse_str::<syn::File>(&source[skip..]).map_err(|e| {
        let start = e.span().start();
        RustParseError {
            line: start.line,
            column: start.column + 1,
            message: e.to_string(),
        }
    });
    result.map(|file| Parsed { skip, file })
}

/// Whether a `cfg` predicate holds only when compiling tests (`test`, `all(test, …)`,
/// `any(test, test)`; not `not(test)`, not `any(test, feature = "x")`).
fn needs_test(meta: &Meta) -> bool {
    match meta {
        Meta::Path(p) => p.is_ident("test"),
        Meta::NameValue(_) => false,
        Meta::List(list) => {
            let Ok(nested) =
                list.parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
            else {
                return false;
            };
            if list.path.is_ident("all") {
                nested.iter().any(needs_test)
            } else if list.path.is_ident("any") {
                !nested.is_empty() && nested.iter().all(needs_test)
            } else {
                false
            }
        }
    }
}

fn is_cfg_test(attr: &Attribute) -> bool {
    let Meta::List(list) = &attr.meta else {
        return false;
    };
    if !list.path.is_ident("cfg") {
        return false;
    }
    list.parse_args::<Meta>().is_ok_and(|m| needs_test(&m))
}

fn last_segment(attr: &Attribute) -> String {
    attr.path()
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

fn is_test_fn_attr(attr: &Attribute) -> bool {
    TEST_ATTRIBUTES.contains(&last_segment(attr).as_str())
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Whether `item` is a test item: `#[cfg(test)]` (or a cfg that needs `test`) on any item, or a
/// function marked `#[test]`, `#[tokio::test]`, `#[rstest]`, ….
pub fn is_test_item(item: &Item) -> bool {
    let attrs = item_attrs(item);
    attrs.iter().any(is_cfg_test)
        || matches!(item, Item::Fn(_)) && attrs.iter().any(is_test_fn_attr)
}

/// Where the items of a parsed file are, as byte offsets.
#[derive(Default)]
struct Layout {
    /// The outermost test items: module path (of inline modules) and byte range.
    tests: Vec<(Vec<String>, Range<usize>)>,
    /// Each non-test inline module: its path and the offset of its closing brace.
    modules: BTreeMap<Vec<String>, usize>,
    /// Top-level non-test `mod name;` declarations: name and byte range.
    mod_decls: Vec<(String, Range<usize>)>,
}

fn layout(parsed: &Parsed) -> Layout {
    fn walk(items: &[Item], path: &mut Vec<String>, skip: usize, out: &mut Layout) {
        for item in items {
            let range = item.span().byte_range();
            let range = range.start + skip..range.end + skip;
            if is_test_item(item) {
                out.tests.push((path.clone(), range));
                continue;
            }
            if let Item::Mod(m) = item {
                match &m.content {
                    Some((brace, inner)) => {
                        path.push(m.ident.to_string());
                        out.modules
                            .insert(path.clone(), brace.span.close().byte_range().start + skip);
                        walk(inner, path, skip, out);
                        path.pop();
                    }
                    None if path.is_empty() => out.mod_decls.push((m.ident.to_string(), range)),
                    None => {}
                }
            }
        }
    }
    let mut out = Layout::default();
    walk(&parsed.file.items, &mut Vec::new(), parsed.skip, &mut out);
    out
}

fn with_spans_dropped<T>(f: impl FnOnce() -> T) -> T {
    let value = f();
    // The parser's source map grows with every file parsed on this thread; nothing keeps a span.
    proc_macro2::extra::invalidate_current_thread_spans();
    value
}

/// Whether `source` holds any test item (`#[cfg(test)]` items, `#[test]` functions, at any
/// depth of inline modules).
pub fn has_test_items(source: &str) -> Result<bool, RustParseError> {
    with_spans_dropped(|| Ok(!layout(&parse(source)?).tests.is_empty()))
}

/// The names of the top-level `#[cfg(test)] mod name;` declarations of `source`: the files they
/// reach are test files whole.
pub fn test_module_files(source: &str) -> Result<Vec<String>, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        Ok(parsed
            .file
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Mod(m) if m.content.is_none() && m.attrs.iter().any(is_cfg_test) => {
                    Some(m.ident.to_string())
                }
                _ => None,
            })
            .collect())
    })
}

/// The red version of a Rust source file: the base version's non-test items (none when `base`
/// is `None`, a file new in the goal) with the working version's test items (none of the base's
/// old test items), each in the inline module it was in. Spliced from the source texts, so the
/// base code keeps its bytes. The working version's top-level `mod name;` declarations are not
/// kept (see [`red_rust_keeping`]). Either text not parsing is an error, never a panic.
pub fn red_rust(base: Option<&str>, work: &str) -> Result<String, RustParseError> {
    red_rust_keeping(base, work, &|_| false)
}

/// [`red_rust`], also keeping each top-level `mod name;` declaration of the working version that
/// the base lacks and for which `keep(name)` is true (the module reaches a file holding test
/// items, so that the red tree compiles those tests).
pub fn red_rust_keeping(
    base: Option<&str>,
    work: &str,
    keep: &dyn Fn(&str) -> bool,
) -> Result<String, RustParseError> {
    with_spans_dropped(|| {
        let work_layout = layout(&parse(work)?);
        let base_text = base.unwrap_or("");
        let base_layout = layout(&parse(base_text)?);
        Ok(red_from(base_text, &base_layout, work, &work_layout, keep))
    })
}

/// What one parse of a Rust file tells: whether it holds test items, the names of its top-level
/// `#[cfg(test)] mod name;` declarations (the files they reach are test files whole), and its test
/// items alone (as [`red_rust`] with no base gives them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    pub has_tests: bool,
    pub test_modules: Vec<String>,
    pub tests_only: String,
}

/// Inspect a Rust file with one parse (see [`Inspection`]).
pub fn inspect(source: &str) -> Result<Inspection, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        let work_layout = layout(&parsed);
        let test_modules = parsed
            .file
            .items
            .iter()
            .filter_map(|item| match item {
                Item::Mod(m) if m.content.is_none() && m.attrs.iter().any(is_cfg_test) => {
                    Some(m.ident.to_string())
                }
                _ => None,
            })
            .collect();
        Ok(Inspection {
            has_tests: !work_layout.tests.is_empty(),
            test_modules,
            tests_only: red_from("", &Layout::default(), source, &work_layout, &|_| false),
        })
    })
}

fn red_from(
    base_text: &str,
    base_layout: &Layout,
    work: &str,
    work_layout: &Layout,
    keep: &dyn Fn(&str) -> bool,
) -> String {
    // (offset, bytes to remove, text to insert), applied from the end.
    let mut edits: Vec<(usize, usize, String)> = base_layout
        .tests
        .iter()
        .map(|(_, r)| (r.start, r.end - r.start, String::new()))
        .collect();
    let declared: BTreeSet<&str> = base_layout
        .mod_decls
        .iter()
        .map(|(n, _)| n.as_str())
        .chain(
            base_layout
                .modules
                .keys()
                .filter(|p| p.len() == 1)
                .map(|p| p[0].as_str()),
        )
        .collect();
    let mut at_end = String::new();
    for (name, range) in &work_layout.mod_decls {
        if !declared.contains(name.as_str()) && keep(name) {
            at_end.push('\n');
            at_end.push_str(&work[range.clone()]);
            at_end.push('\n');
        }
    }
    // Group the working test items by module; a module missing from the base gets a wrapper.
    let mut by_module: BTreeMap<&[String], Vec<&str>> = BTreeMap::new();
    for (path, range) in &work_layout.tests {
        by_module
            .entry(path.as_slice())
            .or_default()
            .push(&work[range.clone()]);
    }
    for (path, texts) in by_module {
        let body: String = texts.iter().map(|t| format!("\n{t}\n")).collect();
        if path.is_empty() {
            at_end.push_str(&body);
        } else if let Some(&close) = base_layout.modules.get(path) {
            edits.push((close, 0, body));
        } else {
            let mut wrapped = body;
            for name in path.iter().rev() {
                wrapped = format!("\nmod {name} {{{wrapped}}}\n");
            }
            at_end.push_str(&wrapped);
        }
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = base_text.to_string();
    for (at, remove, insert) in edits {
        out.replace_range(at..at + remove, &insert);
    }
    if !at_end.is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&at_end);
    }
    out
}

/// The test functions of a Rust file (any depth: inline modules, `#[cfg(test)]` modules), each
/// with its assertions, for the weakening findings. Names are module paths (`tests::adds`).
pub fn test_cases(source: &str) -> Result<Vec<TestCase>, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        let mut out = Vec::new();
        collect_tests(&parsed.file.items, &mut Vec::new(), &mut out);
        Ok(out)
    })
}

fn collect_tests(items: &[Item], path: &mut Vec<String>, out: &mut Vec<TestCase>) {
    for item in items {
        match item {
            Item::Fn(f) if f.attrs.iter().any(is_test_fn_attr) => {
                let mut name = path.join("::");
                if !name.is_empty() {
                    name.push_str("::");
                }
                name.push_str(&f.sig.ident.to_string());
                let skip_line = f
                    .attrs
                    .iter()
                    .find(|a| last_segment(a) == "ignore")
                    .map(|a| a.span().start().line);
                let should_panic = f.attrs.iter().any(|a| last_segment(a) == "should_panic");
                let mut finder = Checks::default();
                finder.visit_block(&f.block);
                let mut case = TestCase {
                    name,
                    line: f.sig.ident.span().start().line,
                    skip_line,
                    body: f.block.to_token_stream().to_string(),
                    assertions: finder.assertions,
                    checks: finder.checks + usize::from(should_panic),
                    empty: f.block.stmts.is_empty(),
                };
                case.checks += case.assertions.iter().filter(|a| !a.constant).count();
                out.push(case);
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    path.push(m.ident.to_string());
                    collect_tests(inner, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

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
struct Checks {
    assertions: Vec<Assertion>,
    /// Non-constant checks that are not assertion macros: `?`, `unwrap`, `expect`, `panic!`,
    /// a helper named like `check_…`/`assert_…`.
    checks: usize,
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

#[cfg(test)]
#[path = "rust_tests.rs"]
mod tests;
