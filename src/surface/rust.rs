//! Rust test items inside source files, found with `syn`: which items are tests, a file's red
//! version (base code, working tests), and the test functions with their assertions.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, Expr, Item, Meta};

use super::weaken::imports::{Binding, Imports};
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

fn with_spans_dropped<T>(f: impl FnOnce() -> T) -> T {
    let value = f();
    // The parser's source map grows with every file parsed on this thread; nothing keeps a span.
    proc_macro2::extra::invalidate_current_thread_spans();
    value
}

/// Whether `source` holds any test item (`#[cfg(test)]` items, `#[test]` functions, at any
/// depth of inline modules).
pub fn has_test_items(source: &str) -> Result<bool, RustParseError> {
    with_spans_dropped(|| Ok(holds_tests(&parse(source)?.file.items)))
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
/// old test items), in the working version's layout: its items in its order, the text between
/// them as it has it, each non-test item with the base's bytes (an item is the base's when kind,
/// name and cfg attributes agree). So where the goal changed only tests, the red version is the
/// working file byte for byte. A non-test item the goal added is left out, one it removed comes
/// back after the item before it on the base; a test in an inline module the base lacks keeps its
/// module. The working version's top-level `mod name;` declarations the base lacks are not kept
/// (see [`red_rust_keeping`]). Either text not parsing is an error, never a panic.
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
        let work_parsed = parse(work)?;
        let base_text = base.unwrap_or("");
        let base_parsed = parse(base_text)?;
        let base_side = Side {
            text: base_text,
            skip: base_parsed.skip,
        };
        let work_side = Side {
            text: work,
            skip: work_parsed.skip,
        };
        Ok(red_file(
            (base_side, &base_parsed.file),
            (work_side, &work_parsed.file),
            keep,
        ))
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
            has_tests: holds_tests(&parsed.file.items),
            test_modules,
            tests_only: red_file(
                (Side { text: "", skip: 0 }, &parse("")?.file),
                (
                    Side {
                        text: source,
                        skip: parsed.skip,
                    },
                    &parsed.file,
                ),
                &|_| false,
            ),
        })
    })
}

/// One side of a splice: a file's text and how many bytes at its start syn did not see.
#[derive(Clone, Copy)]
struct Side<'a> {
    text: &'a str,
    skip: usize,
}

impl Side<'_> {
    fn range(&self, span: proc_macro2::Span) -> Range<usize> {
        let r = span.byte_range();
        r.start + self.skip..r.end + self.skip
    }
}

/// Items and the text they sit in: a whole file, or an inline module between its braces.
struct Scope<'a> {
    side: Side<'a>,
    items: &'a [Item],
    span: Range<usize>,
    /// The scope's inner attributes (and, for a file, its BOM and `#!` line), as text: where
    /// base and working version agree on them, the working version's leading text is kept.
    inner: String,
}

impl<'a> Scope<'a> {
    fn file(side: Side<'a>, file: &'a syn::File) -> Scope<'a> {
        Scope {
            side,
            items: &file.items,
            span: 0..side.text.len(),
            inner: format!("{}{}", &side.text[..side.skip], inner_attrs(&file.attrs)),
        }
    }

    /// The scope between the braces of an inline module (None for `mod name;`).
    fn module(side: Side<'a>, module: &'a syn::ItemMod) -> Option<Scope<'a>> {
        let (brace, items) = module.content.as_ref()?;
        Some(Scope {
            side,
            items,
            span: side.range(brace.span.open()).end..side.range(brace.span.close()).start,
            inner: inner_attrs(&module.attrs),
        })
    }

    fn item(&self, i: usize) -> &'a str {
        &self.side.text[self.side.range(self.items[i].span())]
    }

    /// The text before each item, then the text after the last (one entry when there is none).
    fn gaps(&self) -> Vec<&'a str> {
        let mut at = self.span.start;
        let mut out = Vec::with_capacity(self.items.len() + 1);
        for item in self.items {
            let r = self.side.range(item.span());
            out.push(&self.side.text[at..r.start.max(at)]);
            at = r.end.max(at);
        }
        out.push(&self.side.text[at..self.span.end.max(at)]);
        out
    }
}

fn inner_attrs(attrs: &[Attribute]) -> String {
    attrs
        .iter()
        .filter(|a| matches!(a.style, syn::AttrStyle::Inner(_)))
        .map(|a| a.to_token_stream().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `items` hold a test item, at any depth of inline modules.
fn holds_tests(items: &[Item]) -> bool {
    items.iter().any(|item| {
        is_test_item(item)
            || matches!(item, Item::Mod(m) if m.content.as_ref().is_some_and(|(_, inner)| holds_tests(inner)))
    })
}

/// Which base item a working item stands for: its cfg attributes, kind and name (an item whose
/// body the goal changed is the same item).
fn key(item: &Item) -> String {
    let cfgs: Vec<String> = item_attrs(item)
        .iter()
        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
        .map(|a| a.to_token_stream().to_string())
        .collect();
    let tokens = |t: &dyn ToTokens| t.to_token_stream().to_string();
    let what = match item {
        Item::Const(i) => format!("const {}", i.ident),
        Item::Enum(i) => format!("enum {}", i.ident),
        Item::ExternCrate(i) => format!("extern crate {}", i.ident),
        Item::Fn(i) => format!("fn {}", i.sig.ident),
        Item::ForeignMod(i) => format!("extern {}", tokens(&i.abi)),
        Item::Impl(i) => format!(
            "impl {} {} for {}",
            tokens(&i.generics),
            i.trait_
                .as_ref()
                .map(|(path, _)| tokens(path))
                .unwrap_or_default(),
            tokens(&i.self_ty)
        ),
        Item::Macro(i) => match &i.ident {
            Some(name) => format!("macro {name}"),
            None => format!("macro {}", tokens(&i.mac)),
        },
        Item::Mod(i) => format!("mod {}", i.ident),
        Item::Static(i) => format!("static {}", i.ident),
        Item::Struct(i) => format!("struct {}", i.ident),
        Item::Trait(i) => format!("trait {}", i.ident),
        Item::TraitAlias(i) => format!("trait {}", i.ident),
        Item::Type(i) => format!("type {}", i.ident),
        Item::Union(i) => format!("union {}", i.ident),
        Item::Use(i) => format!("use {}", tokens(&i.tree)),
        other => tokens(other),
    };
    format!("{} {what}", cfgs.join(" "))
}

/// The (base, work) index pairs of a longest common subsequence of two key lists: the common
/// prefix and suffix first, then the middle (left unpaired when it is too large to compare).
fn pairs(base: &[String], work: &[String]) -> Vec<(usize, usize)> {
    let mut pre = 0;
    while pre < base.len() && pre < work.len() && base[pre] == work[pre] {
        pre += 1;
    }
    let mut suf = 0;
    while suf < base.len() - pre
        && suf < work.len() - pre
        && base[base.len() - 1 - suf] == work[work.len() - 1 - suf]
    {
        suf += 1;
    }
    let (b, w) = (&base[pre..base.len() - suf], &work[pre..work.len() - suf]);
    let mut out: Vec<(usize, usize)> = (0..pre).map(|i| (i, i)).collect();
    if b.len().saturating_mul(w.len()) <= 4_000_000 {
        // lcs[i][j]: the length of a longest common subsequence of b[i..] and w[j..].
        let mut lcs = vec![vec![0u32; w.len() + 1]; b.len() + 1];
        for i in (0..b.len()).rev() {
            for j in (0..w.len()).rev() {
                lcs[i][j] = if b[i] == w[j] {
                    lcs[i + 1][j + 1] + 1
                } else {
                    lcs[i + 1][j].max(lcs[i][j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < b.len() && j < w.len() {
            if b[i] == w[j] {
                out.push((pre + i, pre + j));
                i += 1;
                j += 1;
            } else if lcs[i + 1][j] >= lcs[i][j + 1] {
                i += 1;
            } else {
                j += 1;
            }
        }
    }
    out.extend((0..suf).map(|k| (base.len() - suf + k, work.len() - suf + k)));
    out
}

/// The red text of a file: see [`red_rust_keeping`].
fn red_file(
    (base_side, base): (Side, &syn::File),
    (work_side, work): (Side, &syn::File),
    keep: &dyn Fn(&str) -> bool,
) -> String {
    merge(
        &Scope::file(base_side, base),
        &Scope::file(work_side, work),
        Some(keep),
    )
}

/// Text written item by item, each after the gap that goes before it (none before the first:
/// the scope's leading text is written first).
struct Writer {
    out: String,
    first: bool,
}

impl Writer {
    fn item(&mut self, gap: &str, text: &str) {
        if !self.first {
            self.out.push_str(gap);
        }
        self.first = false;
        self.out.push_str(text);
    }
}

/// One scope of the red text: the working version's layout (the text between items and the
/// order of items) holding the base's non-test items and the working test items. A non-test item
/// of both versions is written as the base has it (an inline module of both is merged in turn);
/// one only the base has is written after the base item before it; one only the working version
/// has is left out, unless it is an inline module holding tests (kept, with only its tests) or,
/// at the top (`keep` given), a `mod name;` for which `keep(name)` holds.
fn merge(base: &Scope, work: &Scope, keep: Option<&dyn Fn(&str) -> bool>) -> String {
    let (base_gaps, work_gaps) = (base.gaps(), work.gaps());
    let code = |s: &Scope| -> Vec<usize> {
        (0..s.items.len())
            .filter(|&i| !is_test_item(&s.items[i]))
            .collect()
    };
    let (base_code, work_code) = (code(base), code(work));
    let keys = |s: &Scope, idx: &[usize]| -> Vec<String> {
        idx.iter().map(|&i| key(&s.items[i])).collect()
    };
    let mut paired: BTreeMap<usize, usize> = BTreeMap::new();
    for (b, w) in pairs(&keys(base, &base_code), &keys(work, &work_code)) {
        paired.insert(work_code[w], base_code[b]);
    }
    let base_paired: BTreeSet<usize> = paired.values().copied().collect();
    // Between items written from different places: a blank line at the scope's indentation.
    let separator = |leading: &str| {
        let indent = leading.rsplit('\n').next().unwrap_or("");
        if leading.contains('\n') && indent.trim().is_empty() {
            format!("\n\n{indent}")
        } else {
            "\n\n".to_string()
        }
    };
    let work_sep = separator(work_gaps[0]);
    let base_sep = separator(base_gaps[0]);
    let leading = if base.inner == work.inner {
        work_gaps[0]
    } else {
        base_gaps[0]
    };
    let mut w = Writer {
        out: leading.to_string(),
        first: true,
    };
    // The base's items only it has, from index `from` up to its next paired item.
    let base_only = |w: &mut Writer, from: usize| {
        for (k, item) in base.items.iter().enumerate().skip(from) {
            if base_paired.contains(&k) {
                break;
            }
            if is_test_item(item) {
                continue;
            }
            let gap = if k == 0 {
                base_sep.as_str()
            } else {
                base_gaps[k]
            };
            w.item(gap, base.item(k));
        }
    };
    base_only(&mut w, 0);
    for (i, item) in work.items.iter().enumerate() {
        let gap = if i == 0 {
            work_sep.as_str()
        } else {
            work_gaps[i]
        };
        if is_test_item(item) {
            w.item(gap, work.item(i));
        } else if let Some(&j) = paired.get(&i) {
            let text = match (&base.items[j], item) {
                (Item::Mod(bm), Item::Mod(wm)) => {
                    match (Scope::module(base.side, bm), Scope::module(work.side, wm)) {
                        (Some(b), Some(inner)) => {
                            let whole = base.side.range(bm.span());
                            format!(
                                "{}{}{}",
                                &base.side.text[whole.start..b.span.start],
                                merge(&b, &inner, None),
                                &base.side.text[b.span.end..whole.end]
                            )
                        }
                        _ => base.item(j).to_string(),
                    }
                }
                _ => base.item(j).to_string(),
            };
            w.item(gap, &text);
            base_only(&mut w, j + 1);
        } else if let Item::Mod(m) = item {
            if let Some(inner) = Scope::module(work.side, m)
                && holds_tests(inner.items)
            {
                let none = Scope {
                    side: Side { text: "", skip: 0 },
                    items: &[],
                    span: 0..0,
                    inner: String::new(),
                };
                let whole = work.side.range(m.span());
                let text = format!(
                    "{}{}{}",
                    &work.side.text[whole.start..inner.span.start],
                    merge(&none, &inner, None),
                    &work.side.text[inner.span.end..whole.end]
                );
                w.item(gap, &text);
            } else if m.content.is_none() && keep.is_some_and(|keep| keep(&m.ident.to_string())) {
                w.item(gap, work.item(i));
            }
        }
    }
    if !work.items.is_empty() {
        w.out.push_str(work_gaps[work.items.len()]);
    }
    w.out
}

/// What a Rust file's test items import (`use` items in `#[cfg(test)]` modules and in test
/// functions, by the module path they are in; every `use` of a file that is a test whole, `whole`),
/// their glob imports, and the names the file's code defines, for the `import-redirected` findings.
pub fn test_imports(source: &str, whole: bool) -> Result<Imports, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        let mut out = Imports::default();
        walk_imports(&parsed.file.items, &mut Vec::new(), whole, &mut out);
        Ok(out)
    })
}

fn walk_imports(items: &[Item], path: &mut Vec<String>, in_test: bool, out: &mut Imports) {
    let scope = path.join("::");
    for item in items {
        let test = in_test || is_test_item(item);
        match item {
            Item::Use(u) if test => use_tree(&u.tree, &mut Vec::new(), &scope, out),
            Item::Fn(f) if test => {
                #[derive(Default)]
                struct Uses(Vec<syn::ItemUse>);
                impl<'ast> Visit<'ast> for Uses {
                    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
                        self.0.push(u.clone());
                    }
                }
                let mut uses = Uses::default();
                uses.visit_block(&f.block);
                for u in &uses.0 {
                    use_tree(&u.tree, &mut Vec::new(), &scope, out);
                }
            }
            Item::Mod(m) => {
                if !test {
                    out.defined
                        .entry(scope.clone())
                        .or_default()
                        .insert(m.ident.to_string());
                }
                if let Some((_, inner)) = &m.content {
                    path.push(m.ident.to_string());
                    walk_imports(inner, path, test, out);
                    path.pop();
                }
            }
            _ if !test => {
                let name = match item {
                    Item::Const(i) => Some(&i.ident),
                    Item::Enum(i) => Some(&i.ident),
                    Item::Fn(i) => Some(&i.sig.ident),
                    Item::Macro(i) => i.ident.as_ref(),
                    Item::Static(i) => Some(&i.ident),
                    Item::Struct(i) => Some(&i.ident),
                    Item::Trait(i) => Some(&i.ident),
                    Item::TraitAlias(i) => Some(&i.ident),
                    Item::Type(i) => Some(&i.ident),
                    Item::Union(i) => Some(&i.ident),
                    _ => None,
                };
                if let Some(name) = name {
                    out.defined
                        .entry(scope.clone())
                        .or_default()
                        .insert(name.to_string());
                }
            }
            _ => {}
        }
    }
}

/// The names a `use` tree binds (`use a::{b, c as d, self}`), and its globs.
fn use_tree(tree: &syn::UseTree, prefix: &mut Vec<String>, scope: &str, out: &mut Imports) {
    let mut bind = |name: String, source: String, line: usize| {
        if name != "_" {
            out.bindings.push(Binding {
                scope: scope.to_string(),
                name,
                source,
                line,
            });
        }
    };
    let joined = |prefix: &[String], last: &str| {
        let mut parts = prefix.to_vec();
        if last != "self" {
            parts.push(last.to_string());
        }
        parts.join("::")
    };
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(&p.tree, prefix, scope, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let ident = n.ident.to_string();
            let name = if ident == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                ident.clone()
            };
            bind(name, joined(prefix, &ident), n.ident.span().start().line);
        }
        syn::UseTree::Rename(r) => bind(
            r.rename.to_string(),
            joined(prefix, &r.ident.to_string()),
            r.ident.span().start().line,
        ),
        syn::UseTree::Glob(_) => out.globs.push((scope.to_string(), prefix.join("::"))),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix, scope, out);
            }
        }
    }
}

/// The test functions of a Rust file (any depth: inline modules, `#[cfg(test)]` modules), each
/// with its assertions, for the weakening findings. Names are module paths (`tests::adds`). A
/// test is skipped by `#[ignore]`, by `#[cfg_attr(…, ignore)]`, and by a cfg on it or on a module
/// around it that never holds under `cargo test` (see [`cfg_value`]).
pub fn test_cases(source: &str) -> Result<Vec<TestCase>, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        let mut project = ProjectCfgs::default();
        project.visit_file(&parsed.file);
        let mut out = Vec::new();
        collect_tests(
            &parsed.file.items,
            &mut Vec::new(),
            None,
            &project.0,
            &mut out,
        );
        Ok(out)
    })
}

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
struct ProjectCfgs(BTreeSet<String>);

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
fn cfg_value(meta: &Meta, project: &BTreeSet<String>) -> Option<bool> {
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
fn disabled_by(attrs: &[Attribute], project: &BTreeSet<String>, ignore: bool) -> Option<usize> {
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

fn collect_tests(
    items: &[Item],
    path: &mut Vec<String>,
    disabled: Option<usize>,
    project: &BTreeSet<String>,
    out: &mut Vec<TestCase>,
) {
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
                    .map(|a| a.span().start().line)
                    .or_else(|| disabled_by(&f.attrs, project, true))
                    .or(disabled);
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
                    let disabled = disabled.or_else(|| disabled_by(&m.attrs, project, false));
                    path.push(m.ident.to_string());
                    collect_tests(inner, path, disabled, project, out);
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
