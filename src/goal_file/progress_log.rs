//! The Progress Log's entries (`### Iteration N`), found in its lines on demand, and the lines of
//! the log that can change how the rest of the file parses.

use super::lines::{Lines, content};
use super::markdown::{closes_fence, heading, opens_fence};
use super::{GoalFile, LogEntry};

/// `Iteration N…` (after `### `) → Some(Some(N)); Some(None) when N overflows; None when the
/// heading is something else. Bytes only: this runs once per iteration of a long history.
fn iteration_of(bytes: &[u8]) -> Option<Option<u64>> {
    let rest = bytes.strip_prefix(b" ").unwrap_or(bytes);
    let word = rest.get(..9)?;
    if !word.eq_ignore_ascii_case(b"iteration") {
        return None;
    }
    let rest = &rest[9..];
    let spaces = rest
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    if spaces == 0 {
        return None;
    }
    let rest = &rest[spaces..];
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    if rest
        .get(digits)
        .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80)
    {
        return None;
    }
    let mut n: u64 = 0;
    for &d in &rest[..digits] {
        n = match n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(d - b'0')))
        {
            Some(n) => n,
            None => return Some(None),
        };
    }
    Some(Some(n))
}

/// The entries of the Progress Log, read from its lines on demand (fenced code skipped).
pub(super) fn log_entries(goal: &GoalFile) -> Vec<LogEntry> {
    let Some(span) = goal.progress_span else {
        return Vec::new();
    };
    let lines = Lines {
        text: &goal.text,
        starts: &goal.starts,
    };
    let mut entries = Vec::new();
    let mut open: Option<(u64, usize)> = None;
    let mut fence: Option<String> = None;
    let close = |open: &mut Option<(u64, usize)>, end: usize, entries: &mut Vec<LogEntry>| {
        if let Some((number, first)) = open.take() {
            entries.push(LogEntry {
                number,
                start: lines.offset(first) as u32,
                end: lines.offset(end) as u32,
            });
        }
    };
    for i in span.start + 1..span.end {
        let raw = lines.get(i);
        let line = content(raw);
        if let Some(open_fence) = &fence {
            if closes_fence(open_fence, line) {
                fence = None;
            }
            continue;
        }
        if let Some(opened) = opens_fence(line) {
            fence = Some(opened);
            continue;
        }
        if let Some((3, title)) = heading(raw) {
            close(&mut open, i, &mut entries);
            if let Some(Some(number)) = iteration_of(title.as_bytes()) {
                open = Some((number, i + 1));
            }
        }
    }
    close(&mut open, span.end, &mut entries);
    entries
}

/// The entry of iteration `number`, looked for from the end (where recent iterations are).
pub(super) fn log_entry(goal: &GoalFile, number: u64) -> Option<LogEntry> {
    let span = goal.progress_span?;
    let lines = Lines {
        text: &goal.text,
        starts: &goal.starts,
    };
    let mut end = span.end;
    for i in (span.start + 1..span.end).rev() {
        let raw = lines.get(i);
        if let Some((3, title)) = heading(raw) {
            if iteration_of(title.as_bytes()) == Some(Some(number)) {
                return Some(LogEntry {
                    number,
                    start: lines.offset(i + 1) as u32,
                    end: lines.offset(end) as u32,
                });
            }
            end = i;
        }
    }
    None
}

/// The first line from `i` on that could matter in a Progress Log (outside fences and comments):
/// one that may open a heading of level 1 or 2, a fence or a comment. Entry headings (`### `) do
/// not: entries are read when the log is asked for.
pub(super) fn next_log_line(lines: &Lines, mut i: usize) -> usize {
    let bytes = lines.text.as_bytes();
    while i < lines.len() && !matters_in_log(&bytes[lines.offset(i)..]) {
        i += 1;
    }
    i
}

/// Whether a line of the Progress Log (outside fences and comments), given from its start, can
/// change how the rest of the file parses: it may open a heading of level 1 or 2, a fence or a
/// comment. The other lines only make up entries.
pub(super) fn matters_in_log(line: &[u8]) -> bool {
    match line.first() {
        Some(b' ' | b'\t' | b'`' | b'~' | b'<') | None => true,
        Some(b'#') => !line.starts_with(b"### "),
        _ => false,
    }
}

/// The iteration of the entry heading `text` starts with (`### Iteration N…`), as the log reads
/// it: Some(Some(N)); Some(None) when N overflows; None for another line. The common
/// `### Iteration N` line is read without the general heading parse.
pub(super) fn entry_number(text: &[u8]) -> Option<Option<u64>> {
    if let Some(rest) = text.strip_prefix(b"### Iteration ") {
        let (mut n, mut digits) = (0u64, 0);
        while digits < 18 && digits < rest.len() && rest[digits].is_ascii_digit() {
            n = n * 10 + u64::from(rest[digits] - b'0');
            digits += 1;
        }
        let after = &rest[digits..];
        if digits > 0
            && (after.is_empty() || after.starts_with(b"\n") || after.starts_with(b"\r\n"))
        {
            return Some(Some(n));
        }
    }
    let line = memchr::memchr(b'\n', text).map_or(text, |end| &text[..=end]);
    match std::str::from_utf8(line).ok().and_then(heading) {
        Some((3, title)) => iteration_of(title.as_bytes()),
        _ => None,
    }
}
