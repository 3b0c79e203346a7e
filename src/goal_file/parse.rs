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

#[derive(Clone, Copy, PartialEq, Default)]
enum Section {
    #[default]
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
        let mut scan = Scan {
            items_count: true,
            ..Scan::default()
        };
        let mut next = start;
        while next < lines.len() {
            let mut i = next;
            // The Progress Log is most of a long-lived file: jump over its lines that cannot open
            // a heading of level 1 or 2, a fence or a comment, in one tight loop.
            if scan.section == Section::Progress && scan.fence.is_none() && !scan.in_comment {
                i = next_log_line(lines, i);
                if i == lines.len() {
                    break;
                }
            }
            next = i + 1;
            let raw = lines.get(i);
            let line = content(raw);
            if scan.skipped(line) {
                continue;
            }
            if let Some((level, title)) = heading(raw) {
                scan.heading(i, level, title)?;
                continue;
            }
            scan.section_line(i, raw, line);
        }
        scan.finish(lines.len())
    }
}

/// Where the body scan is: the section and what of it is open.
#[derive(Default)]
struct Scan {
    body: Body,
    spans: [Option<Span>; 3],
    section: Section,
    open: Option<(Section, usize)>,
    fence: Option<String>,
    in_comment: bool,
    /// Under `## Acceptance Criteria`: whether list items here are criteria.
    items_count: bool,
    phase: Option<usize>,
    /// The criterion (an index into criteria) whose item is still open.
    last_item: Option<usize>,
}

impl Scan {
    /// Whether `line` is inside (or opens or closes) a fence or an HTML comment, and so holds
    /// nothing of the goal's.
    fn skipped(&mut self, line: &str) -> bool {
        if let Some(open_fence) = &self.fence {
            if closes_fence(open_fence, line) {
                self.fence = None;
            }
            self.last_item = None;
            return true;
        }
        if self.in_comment {
            if line.contains("-->") {
                self.in_comment = false;
            }
            return true;
        }
        if let Some(opened) = opens_fence(line) {
            self.fence = Some(opened);
            self.last_item = None;
            return true;
        }
        if line.trim_start().starts_with("<!--") && !line.contains("-->") {
            self.in_comment = true;
            return true;
        }
        false
    }

    /// A heading at line `i`: a level 1 or 2 one closes the open section and may open one of
    /// goal's (each at most once); a level 3 one under the criteria may open a phase.
    fn heading(&mut self, i: usize, level: usize, title: &str) -> Result<(), ParseError> {
        self.last_item = None;
        if level > 2 {
            if self.section == Section::Criteria && level == 3 {
                self.phase_heading(i, title);
            }
            return Ok(());
        }
        if let Some((s, begin)) = self.open.take() {
            self.spans[s as usize - 1] = Some(Span {
                start: begin,
                end: i,
            });
        }
        self.section = if level == 2 {
            section_of(title)
        } else {
            Section::Other
        };
        if self.section != Section::Other {
            if let Some(prev) = self.spans[self.section as usize - 1] {
                return err(
                    i + 1,
                    format!(
                        "duplicate `## {title}` section (the first one is at line {})",
                        prev.start + 1
                    ),
                );
            }
            self.open = Some((self.section, i));
            // Reserve the slot so a later duplicate is caught even before this one closes.
            self.spans[self.section as usize - 1] = Some(Span { start: i, end: i });
        }
        self.items_count = true;
        self.phase = None;
        Ok(())
    }

    /// `### Phase N: name` opens a phase whose items are criteria; any other level-3 heading
    /// holds items that are not.
    fn phase_heading(&mut self, i: usize, title: &str) {
        let Some(caps) = PHASE.captures(title) else {
            self.items_count = false;
            return;
        };
        let number = self.body.phases.len() + 1;
        self.body.phases.push(Phase {
            number,
            name: caps
                .name("name")
                .map_or("", |m| m.as_str())
                .trim()
                .to_string(),
            line: i,
        });
        self.phase = Some(number - 1);
        self.items_count = true;
    }

    /// A line of a section's text: a criterion (or its lazy continuation), a blocked reason.
    fn section_line(&mut self, i: usize, raw: &str, line: &str) {
        match self.section {
            Section::Criteria if self.items_count => self.criteria_line(i, raw, line),
            Section::Blocked => {
                let reason = match list_item(raw) {
                    Some(item) => Some(item.text.trim().to_string()),
                    None => Some(line.trim().to_string()).filter(|l| !l.is_empty()),
                };
                if let Some(reason) = reason {
                    self.body.blocked.get_or_insert_with(Vec::new).push(reason);
                }
            }
            _ => {}
        }
    }

    fn criteria_line(&mut self, i: usize, raw: &str, line: &str) {
        if let Some(item) = list_item(raw) {
            if item.text.trim().is_empty() && item.mark.is_none() {
                self.last_item = None;
                return;
            }
            self.body.criteria.push(Criterion {
                number: self.body.criteria.len() + 1,
                text: item.text.trim().to_string(),
                passed: matches!(item.mark, Some('x' | 'X')),
                phase: self.phase,
                line: i,
                end: i + 1,
            });
            self.last_item = Some(self.body.criteria.len() - 1);
        } else if line.trim().is_empty() {
            self.last_item = None;
        } else if let Some(k) = self.last_item {
            // A lazy continuation line belongs to the item above it.
            let criterion = &mut self.body.criteria[k];
            criterion.text.push(' ');
            criterion.text.push_str(line.trim());
            criterion.end = i + 1;
        }
    }

    /// The body, its sections' spans closed at the end of the file (`len` lines).
    fn finish(mut self, len: usize) -> Result<Body, ParseError> {
        if let Some((s, begin)) = self.open.take() {
            self.spans[s as usize - 1] = Some(Span {
                start: begin,
                end: len,
            });
        }
        let Some(criteria_span) = self.spans[0] else {
            return err(
                len + 1,
                "no `## Acceptance Criteria` section: expected a heading `## Acceptance Criteria` followed by `- [ ] <criterion>` items",
            );
        };
        let mut body = self.body;
        body.criteria_span = criteria_span;
        body.progress_span = self.spans[1];
        body.blocked_span = self.spans[2];
        if body.blocked_span.is_some() && body.blocked.is_none() {
            body.blocked = Some(Vec::new());
        }
        Ok(body)
    }
}
