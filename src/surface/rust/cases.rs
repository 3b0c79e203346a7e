//! The test functions of a Rust file, each with its name, where it is skipped and what it
//! checks, for the weakening findings.

use std::collections::BTreeSet;

use quote::ToTokens;
use syn::Item;
use syn::spanned::Spanned;
use syn::visit::Visit;

use super::cfg::{ProjectCfgs, disabled_by};
use super::checks::Checks;
use super::items::{is_test_fn_attr, last_segment};
use super::{RustParseError, parse, with_spans_dropped};
use crate::surface::weaken::TestCase;

/// The test functions of a Rust file (any depth: inline modules, `#[cfg(test)]` modules), each
/// with its assertions, for the weakening findings. Names are module paths (`tests::adds`). A
/// test is skipped by `#[ignore]`, by `#[cfg_attr(…, ignore)]`, and by a cfg on it or on a module
/// around it that never holds under `cargo test` (see [`cfg_value`](super::cfg::cfg_value)).
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
                    params: super::params::table_cases(&f.block),
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
