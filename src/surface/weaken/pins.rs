//! Which findings touch a test a pin runs, as far as the pin's words say: the refusal rule of
//! `goal done` applies to findings in the tests the pins run.

use super::{Finding, FindingKind};

/// The extensions of files a runner may be handed as tests.
const TEST_EXTENSIONS: &[&str] = &[
    ".py", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".go", ".rs", ".rb",
    ".java", ".cs",
];

/// A word of the pin that names a path (a file, a folder, a pytest node id, a Go package pattern),
/// reduced to the path (`./tests/` → `tests`, `t.py::test_a` → `t.py`, `./pkg/...` → `pkg`, `.` or
/// `./...` → the empty path: everything).
pub(super) fn path_word(word: &str) -> Option<String> {
    if word.starts_with('-') || word.contains('=') {
        return None;
    }
    let file = word.split("::").next().unwrap_or(word);
    let looks = word.contains('/')
        || word.contains("::")
        || word == "."
        || TEST_EXTENSIONS.iter().any(|e| file.ends_with(e));
    if !looks {
        return None;
    }
    let mut p = file.trim_start_matches("./").to_string();
    if let Some(stripped) = p.strip_suffix("...") {
        p = stripped.to_string();
    }
    let p = p.trim_end_matches('/').to_string();
    Some(if p == "." { String::new() } else { p })
}

/// The module path cargo names a Rust file's tests under (`src/a/b.rs` → `a::b::`, `src/lib.rs`
/// → ``, `tests/it.rs` → ``).
fn cargo_prefix(file: &str) -> String {
    let Some(rest) = file.split_once("src/").map(|(_, r)| r) else {
        return String::new();
    };
    let rest = rest.trim_end_matches(".rs");
    let parts: Vec<&str> = rest
        .split('/')
        .filter(|p| !matches!(*p, "lib" | "main" | "mod"))
        .collect();
    parts.iter().map(|p| format!("{p}::")).collect()
}

/// Whether `finding` is in a test that `pin` (the pinned command line) runs. A `selection-changed`
/// always counts. A pin naming paths runs the files at or under them; a pin naming none runs the
/// runner's default set (all); `cargo test FILTER…` runs the tests whose full name holds a filter
/// (and every `import-redirected` of the files it builds).
/// Where the words cannot tell (`-k`, `-run`, a script), it counts: a doubt refuses.
pub fn pin_runs(pin: &str, finding: &Finding) -> bool {
    if finding.kind == FindingKind::SelectionChanged {
        return true;
    }
    let words = shell_words::split(pin)
        .unwrap_or_else(|_| pin.split_whitespace().map(str::to_string).collect());
    // cargo test [OPTIONS] [FILTER] [-- ARGS]: the filter is the first free word after `test`.
    if let Some(at) = words
        .windows(2)
        .position(|w| w[0] == "cargo" && w[1] == "test")
    {
        let mut filters = Vec::new();
        let mut rest = words[at + 2..].iter();
        while let Some(w) = rest.next() {
            if w == "--" {
                break;
            }
            if matches!(
                w.as_str(),
                "-p" | "--package"
                    | "--test"
                    | "--bin"
                    | "--example"
                    | "--bench"
                    | "--features"
                    | "-F"
                    | "--target"
                    | "--profile"
                    | "-j"
                    | "--jobs"
                    | "--manifest-path"
            ) {
                rest.next();
                continue;
            }
            if !w.starts_with('-') {
                filters.push(w.clone());
            }
        }
        // A redirected import serves every test of its module, whatever the filter names.
        if filters.is_empty() || finding.kind == FindingKind::ImportRedirected {
            return true;
        }
        let full = format!("{}{}", cargo_prefix(&finding.file), finding.test);
        return filters.iter().any(|f| full.contains(f.as_str()));
    }
    let paths: Vec<String> = words.iter().skip(1).filter_map(|w| path_word(w)).collect();
    if paths.is_empty() {
        return true;
    }
    paths
        .iter()
        .any(|p| p.is_empty() || finding.file == *p || finding.file.starts_with(&format!("{p}/")))
}
