//! The definitions of a Rust file's code (its non-test items), for the renames of
//! [`crate::surface::weaken::renames`]: functions and methods, types, fields, enum variants,
//! constants and statics, each with the tokens of its body.

use quote::ToTokens;
use syn::{Fields, ImplItem, Item, TraitItem};

use super::items::is_test_item;
use super::{RustParseError, parse, with_spans_dropped};
use crate::surface::weaken::renames::Def;

/// The definitions of the non-test items of a Rust file, in source order (inline modules
/// included, test items left out).
pub fn definitions(source: &str) -> Result<Vec<Def>, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        let mut out = Vec::new();
        items(&parsed.file.items, &mut out);
        Ok(out)
    })
}

fn def(kind: &'static str, name: &syn::Ident, body: impl ToTokens) -> Def {
    Def {
        kind,
        name: name.to_string(),
        body: body.to_token_stream().to_string(),
    }
}

/// A function's parameters and block, as tokens.
fn fn_body(sig: &syn::Signature, block: &impl ToTokens) -> proc_macro2::TokenStream {
    let inputs = &sig.inputs;
    quote::quote!((#inputs) #block)
}

fn fields(f: &Fields, out: &mut Vec<Def>) {
    for field in f.iter() {
        if let Some(name) = &field.ident {
            out.push(def("field", name, &field.ty));
        }
    }
}

fn items(list: &[Item], out: &mut Vec<Def>) {
    for item in list {
        if is_test_item(item) {
            continue;
        }
        match item {
            Item::Fn(f) => out.push(def("fn", &f.sig.ident, fn_body(&f.sig, &f.block))),
            Item::Struct(s) => {
                out.push(def("type", &s.ident, &s.fields));
                fields(&s.fields, out);
            }
            Item::Enum(e) => {
                out.push(def("type", &e.ident, &e.variants));
                for v in &e.variants {
                    out.push(def("variant", &v.ident, &v.fields));
                    fields(&v.fields, out);
                }
            }
            Item::Union(u) => out.push(def("type", &u.ident, &u.fields)),
            Item::Trait(t) => {
                out.push(def("type", &t.ident, quote::quote!()));
                for ti in &t.items {
                    if let TraitItem::Fn(f) = ti {
                        out.push(def("method", &f.sig.ident, fn_body(&f.sig, &f.default)));
                    }
                }
            }
            Item::Type(t) => out.push(def("type", &t.ident, &t.ty)),
            Item::Const(c) => out.push(def("const", &c.ident, &c.expr)),
            Item::Static(s) => out.push(def("const", &s.ident, &s.expr)),
            Item::Impl(i) => {
                for ii in &i.items {
                    match ii {
                        ImplItem::Fn(f) => {
                            out.push(def("method", &f.sig.ident, fn_body(&f.sig, &f.block)))
                        }
                        ImplItem::Const(c) => out.push(def("const", &c.ident, &c.expr)),
                        _ => {}
                    }
                }
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    items(inner, out);
                }
            }
            _ => {}
        }
    }
}
