//! The markdown a GOAL.md line can be, read by hand: a heading, a list item with its checkbox,
//! a code fence opening or closing.

use std::sync::LazyLock;

use regex::Regex;

use super::lines::content;

static FENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ {0,3}(?P<fence>`{3,}|~{3,})").expect("fence pattern"));

/// A heading: its level and text (trailing `#`s removed).
pub(super) fn heading(line: &str) -> Option<(usize, &str)> {
    let line = content(line);
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let text = &rest[level..];
    if !text.is_empty() && !text.starts_with([' ', '\t']) {
        return None;
    }
    // A closing run of `#`s (preceded by a space) is not part of the text.
    let text = text.trim();
    let stripped = text.trim_end_matches('#');
    let text = if stripped.len() < text.len()
        && (stripped.is_empty() || stripped.ends_with([' ', '\t']))
    {
        stripped.trim_end()
    } else {
        text
    };
    Some((level, text))
}

/// A list item line: (prefix up to the text, checkbox mark, text).
pub(super) struct Item<'a> {
    pub mark: Option<char>,
    pub text: &'a str,
    /// Byte offset just after the bullet and its gap (where a missing checkbox would go).
    pub after_bullet: usize,
    /// Byte range of the mark character inside `[ ]`.
    pub mark_at: Option<usize>,
}

/// A list item: `[ \t]*` indent, a bullet (`-`, `*`, `+`, or 1–9 digits and `.` or `)`), blanks
/// or the end of the line, an optional `[c]` checkbox followed by blanks or the end, the text.
/// Read by hand rather than by a regex: compiling that pattern cost each `goal status` more
/// instructions than the rest of the command (2.5 M of 5.4 M).
pub(super) fn list_item(line: &str) -> Option<Item<'_>> {
    let line = content(line);
    let bytes = line.as_bytes();
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut at = bytes.iter().take_while(|&&b| blank(b)).count();
    match bytes.get(at)? {
        b'-' | b'*' | b'+' => at += 1,
        b'0'..=b'9' => {
            let digits = bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits > 9 || !matches!(bytes.get(at + digits), Some(b'.' | b')')) {
                return None;
            }
            at += digits + 1;
        }
        _ => return None,
    }
    let gap = bytes[at..].iter().take_while(|&&b| blank(b)).count();
    if gap == 0 && at < bytes.len() {
        return None;
    }
    let after_bullet = at + gap;
    // `- - -` and `* * *` are thematic breaks, not items.
    let mut shown = line.chars().filter(|c| !c.is_whitespace());
    if line.chars().filter(|c| !c.is_whitespace()).count() >= 3
        && shown.all(|c| c == '-' || c == '*' || c == '_')
    {
        return None;
    }
    let rest = &line[after_bullet..];
    let checkbox = rest.strip_prefix('[').and_then(|inside| {
        let mark = inside.chars().next().filter(|&c| c != ']' && c != '\n')?;
        let after = inside[mark.len_utf8()..].strip_prefix(']')?;
        let blanks = after.bytes().take_while(|&b| blank(b)).count();
        (blanks > 0 || after.is_empty()).then(|| (mark, &after[blanks..]))
    });
    Some(match checkbox {
        Some((mark, text)) => Item {
            mark: Some(mark),
            text,
            after_bullet,
            mark_at: Some(after_bullet + 1),
        },
        None => Item {
            mark: None,
            text: rest,
            after_bullet,
            mark_at: None,
        },
    })
}

/// The marker of a code fence this line opens (``` or ~~~, three or more).
pub(super) fn opens_fence(line: &str) -> Option<String> {
    let lead = line.trim_start_matches(' ').as_bytes().first();
    if !matches!(lead, Some(b'`' | b'~')) {
        return None;
    }
    FENCE
        .captures(line)
        .map(|caps| caps.name("fence").map_or("```", |m| m.as_str()).to_string())
}

/// Whether this line closes the fence `open` opened.
pub(super) fn closes_fence(open: &str, line: &str) -> bool {
    let mark = open.chars().next().unwrap_or('`');
    line.trim_start().starts_with(open) && line.trim().chars().all(|c| c == mark)
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
