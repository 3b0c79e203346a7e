//! Locating the owned parts of GOAL.md: the frontmatter, then the sections of the body (criteria
//! and their phases, the Progress Log, Blocked) with their spans.

use std::sync::LazyLock;

use regex::Regex;

use super::frontmatter::Frontmatter;
use super::lines::{Lines, content, line_starts};
use super::markdown::{closes_fence, heading, list_item, opens_fence};
use super::progress_log::next_log_line;
use super::{Criterion, GoalFile, Phase, Span};

/// What went wrong, and on which 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

pub(super) fn err<T>(line: usize, message: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        line,
        message: message.into(),
    })
}

static PHASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^phase\s+(?P<n>\d+)\s*[:.\-–—]?\s*(?P<name>.*)$").expect("phase pattern")
});

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
        settings: front.settings,
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

/// The largest GOAL.md `goal` reads (8 MiB): a bigger one is refused, not hung on.
pub const MAX_LEN: usize = 8 * 1024 * 1024;

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

fn section_of(title: &str) -> Section {
    match title.to_ascii_lowercase().as_str() {
        "acceptance criteria" => Section::Criteria,
        "progress log" => Section::Progress,
        "blocked" => Section::Blocked,
        _ => Section::Other,
    }
}

/// Whether `line` is a level-2 `## Progress Log` heading.
pub(super) fn opens_progress_log(line: &str) -> bool {
    matches!(heading(line), Some((2, title)) if section_of(title) == Section::Progress)
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
