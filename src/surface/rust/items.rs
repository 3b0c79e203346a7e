//! Which Rust items are tests: `#[cfg(test)]` (or a cfg that needs `test`) on any item, a
//! function marked `#[test]`, `#[tokio::test]`, `#[rstest]`, ….

use syn::punctuated::Punctuated;
use syn::{Attribute, Item, Meta};

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

pub(super) fn is_cfg_test(attr: &Attribute) -> bool {
    let Meta::List(list) = &attr.meta else {
        return false;
    };
    if !list.path.is_ident("cfg") {
        return false;
    }
    list.parse_args::<Meta>().is_ok_and(|m| needs_test(&m))
}

pub(super) fn last_segment(attr: &Attribute) -> String {
    attr.path()
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

pub(super) fn is_test_fn_attr(attr: &Attribute) -> bool {
    TEST_ATTRIBUTES.contains(&last_segment(attr).as_str())
}

pub(super) fn item_attrs(item: &Item) -> &[Attribute] {
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

/// Whether `items` hold a test item, at any depth of inline modules.
pub(super) fn holds_tests(items: &[Item]) -> bool {
    items.iter().any(|item| {
        is_test_item(item)
            || matches!(item, Item::Mod(m) if m.content.as_ref().is_some_and(|(_, inner)| holds_tests(inner)))
    })
}
