//! What a Rust file's test items import, and the names its code defines, for the
//! `import-redirected` findings.

use syn::Item;
use syn::visit::Visit;

use super::items::is_test_item;
use super::{RustParseError, parse, with_spans_dropped};
use crate::surface::weaken::imports::{Binding, Imports};

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
