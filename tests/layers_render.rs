//! Ops gather, `src/render` renders: no page or document is built under `src/ops`; where goal's
//! error could be returned, a `String` error says what it holds; one file name, one idea.

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

/// The `Result<…, String>` signatures of one source that no doc comment explains: each is fine in
/// a file that cannot return goal's error (it does not use `crate::error`: the pure rules), and
/// elsewhere must say in the doc comment just above what its `Err` holds (an answer that is data,
/// such as why a fetch did not reach its remote, or a clap value parser's message).
fn unexplained_string_errors(text: &str) -> Vec<usize> {
    if !text.contains("crate::error") {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.contains(", String>") || !line.contains("Result<") {
            continue;
        }
        // The doc comment of the item this line belongs to: the `///` lines above the nearest
        // `fn`, `type` or field line at or before it.
        let start = (0..=i)
            .rev()
            .find(|&j| {
                let t = lines[j].trim_start();
                t.starts_with("pub") || t.starts_with("fn ") || t.starts_with("type ")
            })
            .unwrap_or(i);
        let doc: Vec<&str> = lines[..start]
            .iter()
            .rev()
            .take_while(|l| l.trim_start().starts_with("///") || l.trim_start().starts_with("#["))
            .copied()
            .collect();
        if !doc.iter().any(|l| l.contains("Err")) {
            found.push(i + 1);
        }
    }
    found
}

#[test]
fn every_string_error_outside_the_pure_rules_is_explained() {
    let sample = "use crate::error::Result;\n/// Ok(Err(why)) when it failed.\npub fn a() -> Result<std::result::Result<(), String>> {}\n/// Reads.\nfn b() -> std::result::Result<u8, String> {}\n";
    assert_eq!(unexplained_string_errors(sample), [5]);
    assert!(unexplained_string_errors("fn p() -> Result<u8, String> {}").is_empty());
    let unexplained: Vec<String> = files()
        .into_iter()
        .filter(|(rel, _)| !is_test_file(rel))
        .flat_map(|(rel, text)| {
            unexplained_string_errors(&text)
                .into_iter()
                .map(move |l| format!("{rel}:{l}"))
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "Result<_, String> where goal's Error could be returned, its Err not explained: {unexplained:?}"
    );
}

/// Names two files share because they hold one idea at two ranks (a command and its operation or
/// rules aside, which any `commands/` file may share): why each is one idea.
const ONE_IDEA: &[(&str, &str)] = &[
    (
        "claim.rs",
        "goal run --claim: the racer's rules and the command's edge",
    ),
    (
        "display.rs",
        "what goal run shows: the runner's and the command's words",
    ),
    (
        "imports.rs",
        "import-redirected, for tree-sitter languages and for Rust",
    ),
    ("red.rs", "the red tree and the runs on it"),
    (
        "retry.rs",
        "the retry guard: its rules, its operation, its command",
    ),
    (
        "settings.rs",
        "the settings that judge a goal: GOAL.md's and how ops read them",
    ),
    (
        "signals.rs",
        "runner signals, for tree-sitter languages and for Rust",
    ),
    (
        "special_case.rs",
        "special-cased-input, for tree-sitter languages and for Rust",
    ),
    (
        "stagnation.rs",
        "stagnation: its rules and its reading of history",
    ),
    (
        "test_detected.rs",
        "code that tells a test run, for tree-sitter languages and for Rust",
    ),
    ("tools.rs", "the mutation tools: their rules and their runs"),
];

/// The file names `files` share across ideas: more than one file of that name, not all of them
/// one idea (a `commands/` file beside its operation or rules, or a name of [`ONE_IDEA`]).
fn names_shared(files: &[String]) -> Vec<String> {
    let mut by_name: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for rel in files {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if name != "mod.rs" {
            by_name.entry(name).or_default().push(rel);
        }
    }
    by_name
        .into_iter()
        .filter(|(name, paths)| {
            let outside_commands = paths.iter().filter(|p| !p.starts_with("commands/")).count();
            paths.len() > 1 && outside_commands > 1 && !ONE_IDEA.iter().any(|(n, _)| n == name)
        })
        .map(|(name, paths)| format!("{name}: {}", paths.join(", ")))
        .collect()
}

#[test]
fn no_two_files_are_named_alike_for_two_ideas() {
    let sample: Vec<String> = [
        "detect.rs",
        "commands/detect.rs",
        "surface/detect.rs",
        "ops/done.rs",
        "commands/done.rs",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        names_shared(&sample),
        ["detect.rs: detect.rs, commands/detect.rs, surface/detect.rs"]
    );
    let rels: Vec<String> = files()
        .into_iter()
        .map(|(rel, _)| rel)
        .filter(|rel| !is_test_file(rel))
        .collect();
    let shared = names_shared(&rels);
    assert!(shared.is_empty(), "one name, two ideas: {shared:#?}");
}
