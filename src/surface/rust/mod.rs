//! Rust test items inside source files, found with `syn`: which items are tests, a file's red
//! version (base code, working tests), and the test functions with their assertions.

mod cases;
mod cfg;
mod checks;
mod defs;
mod imports;
mod items;
mod params;
mod special_case;
mod splice;
mod test_detected;
#[cfg(test)]
mod test_detected_tests;

use syn::Item;

pub use cases::test_cases;
pub use defs::definitions;
pub use imports::test_imports;
pub use items::is_test_item;
use items::{holds_tests, is_cfg_test};
pub use special_case::{special_cases, test_literals};
use splice::{Side, red_file};
pub use splice::{red_rust, red_rust_keeping};
pub use test_detected::detections;

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

#[cfg(test)]
mod tests;
