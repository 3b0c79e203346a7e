//! A Rust file's red version, spliced item by item: the base's non-test items and the working
//! version's test items, in the working version's layout.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, Item};

use super::items::{holds_tests, is_test_item, item_attrs};
use super::{RustParseError, parse, with_spans_dropped};

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

/// One side of a splice: a file's text and how many bytes at its start syn did not see.
#[derive(Clone, Copy)]
pub(super) struct Side<'a> {
    pub(super) text: &'a str,
    pub(super) skip: usize,
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
pub(super) fn red_file(
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
    let paired = paired_code(base, work);
    let base_paired: BTreeSet<usize> = paired.values().copied().collect();
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
            w.item(gap, &paired_text(base, work, j, item));
            base_only(&mut w, j + 1);
        } else if let Item::Mod(m) = item
            && let Some(text) = added_module(work, i, m, keep)
        {
            w.item(gap, &text);
        }
    }
    if !work.items.is_empty() {
        w.out.push_str(work_gaps[work.items.len()]);
    }
    w.out
}

/// Which base non-test item each working non-test item stands for (working index → base index):
/// a longest common subsequence of their keys.
fn paired_code(base: &Scope, work: &Scope) -> BTreeMap<usize, usize> {
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
    paired
}

/// Between items written from different places: a blank line at the indentation of the scope
/// whose leading text is `leading`.
fn separator(leading: &str) -> String {
    let indent = leading.rsplit('\n').next().unwrap_or("");
    if leading.contains('\n') && indent.trim().is_empty() {
        format!("\n\n{indent}")
    } else {
        "\n\n".to_string()
    }
}

/// The red text of base item `j`, which working item `item` stands for: an inline module of both
/// merged in turn, any other item as the base has it.
fn paired_text(base: &Scope, work: &Scope, j: usize, item: &Item) -> String {
    if let (Item::Mod(bm), Item::Mod(wm)) = (&base.items[j], item)
        && let (Some(b), Some(inner)) = (Scope::module(base.side, bm), Scope::module(work.side, wm))
    {
        let whole = base.side.range(bm.span());
        return format!(
            "{}{}{}",
            &base.side.text[whole.start..b.span.start],
            merge(&b, &inner, None),
            &base.side.text[b.span.end..whole.end]
        );
    }
    base.item(j).to_string()
}

/// The red text of module `m`, working item `i` that the base lacks: an inline module holding
/// tests with only its tests, a `mod name;` for which `keep(name)` holds as it is; None (left
/// out) otherwise.
fn added_module(
    work: &Scope,
    i: usize,
    m: &syn::ItemMod,
    keep: Option<&dyn Fn(&str) -> bool>,
) -> Option<String> {
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
        Some(format!(
            "{}{}{}",
            &work.side.text[whole.start..inner.span.start],
            merge(&none, &inner, None),
            &work.side.text[inner.span.end..whole.end]
        ))
    } else if m.content.is_none() && keep.is_some_and(|keep| keep(&m.ident.to_string())) {
        Some(work.item(i).to_string())
    } else {
        None
    }
}
