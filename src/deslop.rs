//! The deslop scan of `goal done`: slop the goal's diff added. Pure: lines in, findings out.

use serde::Serialize;

/// One line of slop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub file: String,
    pub line: usize,
    pub kind: &'static str,
    pub text: String,
}

/// What kind of slop an added line is, if any.
pub fn classify(text: &str) -> Option<&'static str> {
    let trimmed = text.trim_start();
    if ["<<<<<<< ", ">>>>>>> "].iter().any(|m| text.starts_with(m))
        || text == "======="
        || text == "<<<<<<<"
        || text == ">>>>>>>"
    {
        return Some("conflict marker");
    }
    if text.ends_with([' ', '\t']) {
        return Some("trailing whitespace");
    }
    for word in ["TODO", "FIXME", "XXX"] {
        let found = text.match_indices(word).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            let inner = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !inner(before) && !inner(after)
        });
        if found {
            return Some("todo");
        }
    }
    if trimmed.contains("dbg!(") {
        return Some("debug: dbg!");
    }
    if trimmed.contains("console.log(") {
        return Some("debug: console.log");
    }
    if trimmed.starts_with("print(") {
        return Some("debug: print(");
    }
    if trimmed.starts_with("breakpoint()") || trimmed.contains("pdb.set_trace()") {
        return Some("debug: breakpoint");
    }
    if trimmed.starts_with("debugger;") {
        return Some("debug: debugger");
    }
    None
}

/// Scan added lines `(file, line number, text)`.
pub fn scan(added: &[(String, usize, String)]) -> Vec<Finding> {
    added
        .iter()
        .filter_map(|(file, line, text)| {
            classify(text).map(|kind| Finding {
                file: file.clone(),
                line: *line,
                kind,
                text: text.trim().chars().take(120).collect(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slop_table() {
        let cases: &[(&str, Option<&str>)] = &[
            ("// TODO: later", Some("todo")),
            ("# FIXME", Some("todo")),
            ("let xxx = 1; // XXX hack", Some("todo")),
            ("let todos = 1;", None),
            ("TODOS", None),
            ("    dbg!(x);", Some("debug: dbg!")),
            ("  console.log('x')", Some("debug: console.log")),
            ("    print(value)", Some("debug: print(")),
            ("    println!(\"ok\")", None),
            ("<<<<<<< HEAD", Some("conflict marker")),
            ("=======", Some("conflict marker")),
            (">>>>>>> branch", Some("conflict marker")),
            ("let x = 1;   ", Some("trailing whitespace")),
            ("fn main() {}", None),
            ("    breakpoint()", Some("debug: breakpoint")),
            ("import pdb; pdb.set_trace()", Some("debug: breakpoint")),
            ("  debugger;", Some("debug: debugger")),
            ("def breakpoint_handler():", None),
        ];
        for (text, want) in cases {
            assert_eq!(classify(text), *want, "{text:?}");
        }
    }
}
