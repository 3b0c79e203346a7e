//! The crate's own source, read by the structure checks (tests/layers.rs).

use std::path::{Path, PathBuf};

pub fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under src/, as (path relative to src/, text): read once for all the tests.
pub fn files() -> Vec<(String, String)> {
    static FILES: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    FILES.get_or_init(read_files).clone()
}

fn read_files() -> Vec<(String, String)> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(&src(), &src(), &mut out);
    out
}

/// A file only compiled for tests: `…_tests.rs`, a `tests.rs` or `tests_*.rs` beside its module
/// (`#[cfg(test)] mod tests_config;`), or anything in a `tests/` folder of a module.
pub fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    rel.ends_with("_tests.rs")
        || name == "tests.rs"
        || name.starts_with("tests_")
        || rel.contains("/tests/")
}

/// The top-level module a file belongs to (`runner/machine.rs` → `runner`).
pub fn top_module(rel: &str) -> String {
    rel.split('/')
        .next()
        .unwrap()
        .trim_end_matches(".rs")
        .to_string()
}

/// An item only compiled for tests: a module, function, impl or `use` under `#[cfg(test)]`.
pub fn is_test_item(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Use(u) => &u.attrs,
        _ => return false,
    };
    is_cfg_test(attrs)
}

pub fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}
