//! Ops gather, `src/render` renders: no page or document is built under `src/ops`.

use crate::common::source::{files, is_test_file};

/// What in one source renders a page or a document: a function named for a format, an HTML
/// tag or a markdown table in a string, a use of the renderers.
fn renders(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let format_fn = ["markdown", "html", "page", "text"].iter().any(|f| {
            t.starts_with(&format!("pub fn {f}("))
                || t.starts_with(&format!("fn {f}("))
                || t.starts_with(&format!("pub(crate) fn {f}("))
        });
        let in_string = ["\"<html", "\"<table", "\"<div", "\"|---", "\"| ---"]
            .iter()
            .any(|s| line.contains(s));
        if format_fn || in_string || line.contains("crate::render") {
            found.push(format!("{}: {}", i + 1, t));
        }
    }
    found
}

#[test]
fn no_rendering_under_ops() {
    assert_eq!(
        renders("pub fn markdown(r: &R) -> String {\nlet t = \"<table>\";\nuse crate::render::x;\nfn texts() {}\n")
            .len(),
        3
    );
    let rendering: Vec<String> = files()
        .into_iter()
        .filter(|(rel, _)| rel.starts_with("ops/") && !is_test_file(rel))
        .flat_map(|(rel, text)| {
            renders(&text)
                .into_iter()
                .map(move |r| format!("{rel}:{r}"))
        })
        .collect();
    assert!(
        rendering.is_empty(),
        "ops gather; src/render renders: {rendering:?}"
    );
}
