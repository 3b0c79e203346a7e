//! Java and C# skip markers (`@Disabled`, `@Ignore`, `[Ignore]`, `[Fact(Skip = …)]`), found in the
//! lines the goal added (no grammar for these languages here: only `skip-added` is read, from the
//! attribute lines of the diff and the declaration that follows each).

use similar::{ChangeTag, TextDiff};

use super::{Finding, FindingKind};

/// Whether a line (trimmed) is a skip attribute or annotation.
fn marks_skip(line: &str) -> bool {
    if let Some(rest) = line.strip_prefix('@') {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        let last = name.rsplit('.').next().unwrap_or("");
        return last.starts_with("Disabled") || last == "Ignore";
    }
    if line.starts_with('[') {
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        return words.iter().any(|w| *w == "Ignore" || *w == "Skip");
    }
    false
}

/// The name declared by the first line after `from` that is not an attribute: a method (the word
/// before its `(`) or a class.
fn declared_after(lines: &[&str], from: usize) -> String {
    for line in lines.iter().skip(from + 1) {
        let t = line.trim();
        if t.is_empty() || t.starts_with('@') || t.starts_with('[') || t.starts_with("//") {
            continue;
        }
        let words: Vec<&str> = t
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(i) = words.iter().position(|w| *w == "class") {
            return words.get(i + 1).unwrap_or(&"*").to_string();
        }
        if let Some(before) = t.split('(').next()
            && t.contains('(')
        {
            return before.split_whitespace().last().unwrap_or("*").to_string();
        }
        return "*".to_string();
    }
    "*".to_string()
}

/// `skip-added` for each skip attribute line the goal added to a Java or C# test file.
pub(super) fn skips_added(
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let Some(last) = last else { return };
    let base = base.unwrap_or("");
    let lines: Vec<&str> = last.lines().collect();
    let diff = TextDiff::from_lines(base, last);
    for change in diff.iter_all_changes() {
        if change.tag() != ChangeTag::Insert {
            continue;
        }
        let Some(at) = change.new_index() else {
            continue;
        };
        if marks_skip(change.value().trim()) {
            out.push(Finding {
                kind: FindingKind::SkipAdded,
                file: path.to_string(),
                line: at + 1,
                test: declared_after(&lines, at),
            });
        }
    }
}
