//! Locating the owned parts of GOAL.md: frontmatter keys, sections, criteria, log entries.

use std::sync::LazyLock;

use regex::Regex;

use super::{Criterion, GoalFile, LogEntry, Phase, Span, Status};

/// What went wrong, and on which 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        message: message.into(),
    })
}

static PHASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^phase\s+(?P<n>\d+)\s*[:.\-–—]?\s*(?P<name>.*)$").expect("phase pattern")
});
static FENCE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^ {0,3}(?P<fence>`{3,}|~{3,})").expect("fence pattern"));

pub(super) fn parse_bytes(bytes: &[u8]) -> Result<GoalFile, ParseError> {
    if let Some(pos) = bytes.iter().position(|&b| b == 0) {
        let line = bytes[..pos].iter().filter(|&&b| b == b'\n').count() + 1;
        return err(
            line,
            "binary content (a NUL byte): expected a markdown GOAL.md",
        );
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            err(line, "invalid UTF-8: expected a UTF-8 markdown GOAL.md")
        }
    }
}

fn content(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r'])
}

pub(super) fn parse(text: &str) -> Result<GoalFile, ParseError> {
    parse_string(text.to_string())
}

/// Parse an owned text (no copy of it is made).
pub(super) fn parse_string(text: String) -> Result<GoalFile, ParseError> {
    if text.trim().is_empty() {
        return err(1, "empty file: expected `---` opening the YAML frontmatter");
    }
    if text.len() > MAX_LEN {
        return err(
            1,
            format!(
                "the file is {} bytes; GOAL.md may be at most {MAX_LEN} bytes",
                text.len()
            ),
        );
    }
    let starts = line_starts(text.as_bytes());
    let lines = Lines {
        text: &text,
        starts: &starts,
    };
    let first = content(lines.get(0)).trim_start_matches('\u{feff}');
    if first.trim_end() != "---" {
        return err(
            1,
            "expected `---` opening the YAML frontmatter (goal, created, updated, iteration, status)",
        );
    }
    let Some(fm_close) =
        (1..lines.len()).find(|&i| matches!(content(lines.get(i)).trim_end(), "---" | "..."))
    else {
        return err(
            lines.len() + 1,
            "the YAML frontmatter is not closed: expected a `---` line",
        );
    };
    let front_lines: Vec<&str> = (1..fm_close).map(|i| lines.get(i)).collect();
    let front = Frontmatter::parse(&front_lines)?;
    let body = Body::parse(&lines, fm_close + 1)?;
    Ok(GoalFile {
        goal: front.goal,
        created: front.created,
        updated: front.updated,
        iteration: front.iteration,
        status: front.status,
        criteria: body.criteria,
        phases: body.phases,
        blocked: body.blocked,
        fm_close,
        criteria_span: body.criteria_span,
        progress_span: body.progress_span,
        blocked_span: body.blocked_span,
        starts,
        text,
        partial: false,
    })
}

/// `starts[i]`: the byte offset of line `i`; the last entry is `text.len()`. A line ends after
/// its `\n`; a final `\n` opens no further line.
///
/// Sixty-four bytes at a time, a word of eight at a time: a long Progress Log has many short
/// lines, for which a `memchr` call per line costs more than this scan (`goal status` must not
/// slow down as the log grows).
pub(super) fn line_starts(bytes: &[u8]) -> Vec<u32> {
    let mut starts: Vec<u32> = Vec::with_capacity(bytes.len() / 24 + 2);
    starts.push(0);
    let body = &bytes[..bytes.len().saturating_sub(1)];
    let mut blocks = body.chunks_exact(64);
    let mut base = 0u32;
    for block in &mut blocks {
        let mut mask = newline_mask(block);
        while mask != 0 {
            starts.push(base + mask.trailing_zeros() + 1);
            mask &= mask - 1;
        }
        base += 64;
    }
    for (i, &b) in blocks.remainder().iter().enumerate() {
        if b == b'\n' {
            starts.push(base + i as u32 + 1);
        }
    }
    starts.push(bytes.len() as u32);
    starts
}

/// The `\n`s of a 64-byte block as bits (bit i: byte i), a word of eight bytes at a time.
pub(super) fn newline_mask(block: &[u8]) -> u64 {
    // Multiplying the 0x80 bits of a word by this gathers them, in order, into its top byte.
    const GATHER: u64 = 0x0002_0408_1020_4081;
    let mut mask = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        mask |= (newline_bytes(word).wrapping_mul(GATHER) >> 56) << (8 * k);
    }
    mask
}

/// 0x80 in exactly the bytes of an 8-byte `word` that are `\n`, 0 in the others.
pub(super) fn newline_bytes(word: &[u8]) -> u64 {
    const LOWS: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let x = u64::from_le_bytes(word.try_into().expect("an 8-byte word")) ^ NEWLINES;
    // Where `x` is zero, i.e. where the text has `\n`: adding 0x7f to a byte's low seven bits
    // sets its high bit unless they are all zero, and no byte carries into the next
    // (0x7f + 0x7f < 0x100).
    !(((x & LOWS) + LOWS) | x | LOWS)
}

/// The largest GOAL.md `goal` reads (8 MiB): a bigger one is refused, not hung on.
pub const MAX_LEN: usize = 8 * 1024 * 1024;

/// The lines of a text, without copying it.
pub(super) struct Lines<'a> {
    text: &'a str,
    starts: &'a [u32],
}

impl<'a> Lines<'a> {
    pub(super) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Line `i`, its terminator included.
    pub(super) fn get(&self, i: usize) -> &'a str {
        &self.text[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    fn offset(&self, i: usize) -> usize {
        self.starts[i] as usize
    }
}

struct Frontmatter {
    goal: String,
    created: Option<String>,
    updated: Option<String>,
    iteration: u64,
    status: Status,
}

/// The 0-based index (within the frontmatter lines) of a top-level `key:` line.
pub(super) fn key_line<S: AsRef<str>>(lines: &[S], key: &str) -> Option<usize> {
    lines.iter().map(AsRef::as_ref).position(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'))
    })
}

impl Frontmatter {
    fn parse(lines: &[&str]) -> Result<Frontmatter, ParseError> {
        // File line of frontmatter line i is i + 2 (1-based, after the opening `---`).
        let line_of = |key: &str| key_line(lines, key).map_or(1, |i| i + 2);
        let yaml = lines.concat();
        let value: serde_yaml_ng::Value = match serde_yaml_ng::from_str(&yaml) {
            Ok(v) => v,
            Err(e) => {
                let line = e.location().map_or(1, |l| l.line() + 1);
                let message = e.to_string();
                let message = message.split(" at line ").next().unwrap_or(&message);
                return err(line, format!("bad YAML in the frontmatter: {message}"));
            }
        };
        let serde_yaml_ng::Value::Mapping(map) = value else {
            return err(
                2,
                "the frontmatter must be a YAML mapping of keys (goal, created, updated, iteration, status)",
            );
        };
        let get = |key: &str| map.get(serde_yaml_ng::Value::String(key.to_string()));
        let goal = match get("goal") {
            Some(serde_yaml_ng::Value::String(s)) if !s.trim().is_empty() => s.clone(),
            Some(_) => return err(line_of("goal"), "`goal` must be a non-empty string"),
            None => {
                return err(
                    1,
                    "the frontmatter has no `goal` key: expected `goal: \"<goal text>\"`",
                );
            }
        };
        let iteration = match get("iteration") {
            Some(serde_yaml_ng::Value::Number(n)) if n.as_u64().is_some() => {
                n.as_u64().unwrap_or_default()
            }
            Some(_) => {
                return err(
                    line_of("iteration"),
                    "`iteration` must be a whole number ≥ 0 (the last recorded iteration)",
                );
            }
            None => {
                return err(
                    1,
                    "the frontmatter has no `iteration` key: expected `iteration: <int>`",
                );
            }
        };
        let status = match get("status") {
            Some(serde_yaml_ng::Value::String(s)) => match Status::parse(s) {
                Some(status) => status,
                None => {
                    return err(
                        line_of("status"),
                        format!("unknown status `{s}`: expected in-progress, blocked or complete"),
                    );
                }
            },
            Some(_) => {
                return err(
                    line_of("status"),
                    "`status` must be in-progress, blocked or complete",
                );
            }
            None => {
                return err(
                    1,
                    "the frontmatter has no `status` key: expected `status: in-progress`",
                );
            }
        };
        let timestamp = |key: &str| -> Result<Option<String>, ParseError> {
            match get(key) {
                None | Some(serde_yaml_ng::Value::Null) => Ok(None),
                Some(serde_yaml_ng::Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => err(
                    line_of(key),
                    format!("`{key}` must be an ISO 8601 timestamp string"),
                ),
            }
        };
        for key in ["goal", "iteration", "status"] {
            if key_line(lines, key).is_none() {
                return err(
                    1,
                    format!("`{key}` must be written as `{key}: <value>` on a line of its own"),
                );
            }
        }
        Ok(Frontmatter {
            goal,
            created: timestamp("created")?,
            updated: timestamp("updated")?,
            iteration,
            status,
        })
    }
}

#[derive(Default)]
struct Body {
    criteria: Vec<Criterion>,
    phases: Vec<Phase>,
    blocked: Option<Vec<String>>,
    criteria_span: Span,
    progress_span: Option<Span>,
    blocked_span: Option<Span>,
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    Other,
    Criteria,
    Progress,
    Blocked,
}

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

fn section_of(title: &str) -> Section {
    match title.to_ascii_lowercase().as_str() {
        "acceptance criteria" => Section::Criteria,
        "progress log" => Section::Progress,
        "blocked" => Section::Blocked,
        _ => Section::Other,
    }
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
fn opens_fence(line: &str) -> Option<String> {
    let lead = line.trim_start_matches(' ').as_bytes().first();
    if !matches!(lead, Some(b'`' | b'~')) {
        return None;
    }
    FENCE
        .captures(line)
        .map(|caps| caps.name("fence").map_or("```", |m| m.as_str()).to_string())
}

/// Whether this line closes the fence `open` opened.
fn closes_fence(open: &str, line: &str) -> bool {
    let mark = open.chars().next().unwrap_or('`');
    line.trim_start().starts_with(open) && line.trim().chars().all(|c| c == mark)
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
fn next_log_line(lines: &Lines, mut i: usize) -> usize {
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

/// Whether `line` is a level-2 `## Progress Log` heading.
pub(super) fn opens_progress_log(line: &str) -> bool {
    matches!(heading(line), Some((2, title)) if section_of(title) == Section::Progress)
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

impl Body {
    fn parse(lines: &Lines, start: usize) -> Result<Body, ParseError> {
        let mut body = Body::default();
        let mut spans: [Option<Span>; 3] = [None, None, None];
        let mut section = Section::Other;
        let mut open: Option<(Section, usize)> = None;
        let mut fence: Option<String> = None;
        let mut in_comment = false;
        // Under `## Acceptance Criteria`: are we in a place where list items are criteria?
        let mut items_count = true;
        let mut phase: Option<usize> = None;
        let mut last_item: Option<usize> = None; // index into criteria of an item still open
        let mut next = start;
        while next < lines.len() {
            let mut i = next;
            // The Progress Log is most of a long-lived file: jump over its lines that cannot open
            // a heading of level 1 or 2, a fence or a comment, in one tight loop.
            if section == Section::Progress && fence.is_none() && !in_comment {
                i = next_log_line(lines, i);
                if i == lines.len() {
                    break;
                }
            }
            next = i + 1;
            let raw = lines.get(i);
            let line = content(raw);
            if let Some(open_fence) = &fence {
                if closes_fence(open_fence, line) {
                    fence = None;
                }
                last_item = None;
                continue;
            }
            if in_comment {
                if line.contains("-->") {
                    in_comment = false;
                }
                continue;
            }
            if let Some(opened) = opens_fence(line) {
                fence = Some(opened);
                last_item = None;
                continue;
            }
            if line.trim_start().starts_with("<!--") && !line.contains("-->") {
                in_comment = true;
                continue;
            }
            if let Some((level, title)) = heading(raw) {
                last_item = None;
                if level <= 2 {
                    if let Some((s, begin)) = open.take() {
                        spans[s as usize - 1] = Some(Span {
                            start: begin,
                            end: i,
                        });
                    }
                    section = if level == 2 {
                        section_of(title)
                    } else {
                        Section::Other
                    };
                    if section != Section::Other {
                        if let Some(prev) = spans[section as usize - 1] {
                            return err(
                                i + 1,
                                format!(
                                    "duplicate `## {title}` section (the first one is at line {})",
                                    prev.start + 1
                                ),
                            );
                        }
                        open = Some((section, i));
                        // Reserve the slot so a later duplicate is caught even before this one closes.
                        spans[section as usize - 1] = Some(Span { start: i, end: i });
                    }
                    items_count = true;
                    phase = None;
                    continue;
                }
                match section {
                    Section::Criteria if level == 3 => {
                        if let Some(caps) = PHASE.captures(title) {
                            let number = body.phases.len() + 1;
                            body.phases.push(Phase {
                                number,
                                name: caps
                                    .name("name")
                                    .map_or("", |m| m.as_str())
                                    .trim()
                                    .to_string(),
                                line: i,
                            });
                            phase = Some(number - 1);
                            items_count = true;
                        } else {
                            items_count = false;
                        }
                    }
                    _ => {}
                }
                continue;
            }
            match section {
                Section::Criteria if items_count => {
                    if let Some(item) = list_item(raw) {
                        if item.text.trim().is_empty() && item.mark.is_none() {
                            last_item = None;
                            continue;
                        }
                        body.criteria.push(Criterion {
                            number: body.criteria.len() + 1,
                            text: item.text.trim().to_string(),
                            passed: matches!(item.mark, Some('x' | 'X')),
                            phase,
                            line: i,
                            end: i + 1,
                        });
                        last_item = Some(body.criteria.len() - 1);
                    } else if line.trim().is_empty() {
                        last_item = None;
                    } else if let Some(k) = last_item {
                        // A lazy continuation line belongs to the item above it.
                        let criterion = &mut body.criteria[k];
                        criterion.text.push(' ');
                        criterion.text.push_str(line.trim());
                        criterion.end = i + 1;
                    }
                }
                Section::Blocked => {
                    if let Some(item) = list_item(raw) {
                        body.blocked
                            .get_or_insert_with(Vec::new)
                            .push(item.text.trim().to_string());
                    } else if !line.trim().is_empty() {
                        body.blocked
                            .get_or_insert_with(Vec::new)
                            .push(line.trim().to_string());
                    }
                }
                _ => {}
            }
        }
        if let Some((s, begin)) = open.take() {
            spans[s as usize - 1] = Some(Span {
                start: begin,
                end: lines.len(),
            });
        }
        let Some(criteria_span) = spans[0] else {
            return err(
                lines.len() + 1,
                "no `## Acceptance Criteria` section: expected a heading `## Acceptance Criteria` followed by `- [ ] <criterion>` items",
            );
        };
        body.criteria_span = criteria_span;
        body.progress_span = spans[1];
        body.blocked_span = spans[2];
        if body.blocked_span.is_some() && body.blocked.is_none() {
            body.blocked = Some(Vec::new());
        }
        Ok(body)
    }
}

#[cfg(test)]
mod list_item_tests {
    use super::list_item;

    /// The hand-written reader says what the pattern it replaced said, line for line.
    #[test]
    fn list_items_read_as_the_old_pattern_read_them() {
        let pattern = regex::Regex::new(r"^(?P<indent>[ \t]*)(?P<bullet>[-*+]|\d{1,9}[.)])(?P<gap>[ \t]+|$)(?:\[(?P<mark>[^\]\n])\](?:[ \t]+|$))?(?P<text>.*)$").unwrap();
        let old = |line: &str| {
            let line = line.trim_end_matches(['\n', '\r']);
            let caps = pattern.captures(line)?;
            let trimmed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
            if trimmed.len() >= 3 && trimmed.chars().all(|c| c == '-' || c == '*' || c == '_') {
                return None;
            }
            let mark = caps.name("mark");
            Some((
                mark.and_then(|m| m.as_str().chars().next()),
                caps.name("text").map(|m| m.as_str().to_string()),
                caps.name("gap").map_or(0, |m| m.end()),
                mark.map(|m| m.start()),
            ))
        };
        let mut lines: Vec<String> = [
            "- [ ] a",
            "- [x] done",
            "* [X] b",
            "+ c",
            "1. one",
            "12) twelve",
            "1234567890. ten digits",
            "123456789. nine",
            "-",
            "- ",
            "-\t[ ]",
            "- [ ]",
            "- [x]",
            "- [x]text",
            "- [xy] two",
            "- []",
            "- [✓] unicode mark",
            "  - [ ] indented",
            "\t- [ ] tab",
            "-foo",
            "1.5 kg",
            "1.",
            "1.x",
            "- - -",
            "* * *",
            "---",
            "***",
            "- _ _",
            "-- two",
            "- [ ] ",
            "- [ ]  two spaces",
            "- [\t] tab mark",
            "- [ ] a\r\n",
            "- [ ] a\n",
            "text",
            "",
            " ",
            "#",
            "- [ ]\ttab",
            "\u{a0}- nbsp",
            "- \u{a0}[ ] x",
            "99) x",
            "a. letter",
            "- [ ]x",
            "-\u{2003}x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // Every short line over a small alphabet, too.
        let alphabet = ['-', ' ', '[', ']', 'x', '1', '.', ')', '\t', '*', '✓'];
        let mut frontier = vec![String::new()];
        for _ in 0..5 {
            let mut next = Vec::new();
            for prefix in &frontier {
                for c in alphabet {
                    let mut line = prefix.clone();
                    line.push(c);
                    next.push(line);
                }
            }
            lines.extend(next.iter().cloned());
            frontier = next;
        }
        for line in &lines {
            let new = list_item(line)
                .map(|i| (i.mark, Some(i.text.to_string()), i.after_bullet, i.mark_at));
            assert_eq!(new, old(line), "{line:?}");
        }
    }
}
