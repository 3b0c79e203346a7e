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
            &mut Where::default(),
            None,
            &project.0,
            &mut out,
        );
        Ok(out)
    })
}

/// Where the walk is: the module path, and the cfgs on the modules around that may or may not
/// hold (see [`scope_cfgs`]).
#[derive(Default)]
struct Where {
    path: Vec<String>,
    cfgs: Vec<String>,
}

/// The `cfg` attributes among `attrs` that a test's identity depends on, as their text: those
/// that may or may not hold under `cargo test` (the platform, a feature, the project's own cfgs).
/// One that always holds (`test`) is every test's; one that never does (`any()`) is a skip.
fn scope_cfgs(attrs: &[syn::Attribute], project: &BTreeSet<String>) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter(|a| {
            a.parse_args::<syn::Meta>()
                .is_ok_and(|m| super::cfg::cfg_value(&m, project).is_none())
        })
        .map(|a| a.meta.to_token_stream().to_string())
        .collect()
}

fn collect_tests(
    items: &[Item],
    at: &mut Where,
    disabled: Option<usize>,
    project: &BTreeSet<String>,
    out: &mut Vec<TestCase>,
) {
    for item in items {
        match item {
            Item::Fn(f) if f.attrs.iter().any(is_test_fn_attr) => {
                let mut name = at.path.join("::");
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
                    scope: [at.cfgs.clone(), scope_cfgs(&f.attrs, project)]
                        .concat()
                        .join(" "),
                };
                case.checks += case.assertions.iter().filter(|a| !a.constant).count();
                out.push(case);
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    let disabled = disabled.or_else(|| disabled_by(&m.attrs, project, false));
                    let cfgs = scope_cfgs(&m.attrs, project);
                    at.path.push(m.ident.to_string());
                    at.cfgs.extend(cfgs.iter().cloned());
                    collect_tests(inner, at, disabled, project, out);
                    at.path.pop();
                    at.cfgs.truncate(at.cfgs.len() - cfgs.len());
                }
            }
            _ => {}
        }
    }
}
