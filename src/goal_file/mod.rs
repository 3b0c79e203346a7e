//! The GOAL.md model: a lossless line-based document with the parts `goal` owns located in it.
//!
//! The file is kept as its lines, byte for byte; parsing only finds where the frontmatter keys,
//! criteria, progress-log entries and the Blocked section are. Every edit changes the few lines it
//! owns and parses the result again, so anything `goal` does not own survives untouched and
//! `render(parse(text)) == text` holds by construction.

mod edit;
mod frontmatter;
pub mod lean;
mod lines;
mod markdown;
pub(crate) mod parse;
mod progress_log;
pub mod settings;

pub use parse::ParseError;
pub use settings::{Mutants, Settings};

use std::fmt;

/// The goal's lifecycle state, as written in the frontmatter `status` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    InProgress,
    Blocked,
    Complete,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "in-progress",
            Status::Blocked => "blocked",
            Status::Complete => "complete",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        match text {
            "in-progress" => Some(Status::InProgress),
            "blocked" => Some(Status::Blocked),
            "complete" => Some(Status::Complete),
            _ => None,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One acceptance criterion: a list item under `## Acceptance Criteria`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Criterion {
    /// 1-based, in file order: how every command names it.
    pub number: usize,
    pub text: String,
    pub passed: bool,
    /// Index into `GoalFile::phases`, when the criterion sits under a `### Phase N:` heading.
    pub phase: Option<usize>,
    /// 0-based index of the item's first line.
    pub(crate) line: usize,
    /// One past its last line (continuation lines included).
    pub(crate) end: usize,
}

impl Criterion {
    /// The 1-based line of the item in GOAL.md (where an annotation points).
    pub fn line_number(&self) -> usize {
        self.line + 1
    }
}

/// A `### Phase N: name` heading inside the criteria section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    pub number: usize,
    pub name: String,
    pub(crate) line: usize,
}

/// One `### Iteration N` entry of the Progress Log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub number: u64,
    /// Byte range of the entry's body in the file (read it with `GoalFile::entry_text`).
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// Where the owned sections are: heading line and one past their last line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub start: usize,
    pub end: usize,
}

/// A parsed GOAL.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalFile {
    /// The file, byte for byte.
    pub(crate) text: String,
    /// Byte offset of each line's start, and the text's length last.
    pub(crate) starts: Vec<u32>,
    pub goal: String,
    pub created: Option<String>,
    pub updated: Option<String>,
    pub iteration: u64,
    pub status: Status,
    /// The settings that judge the goal (test surface, mutation check): the frontmatter's.
    pub settings: Settings,
    pub criteria: Vec<Criterion>,
    pub phases: Vec<Phase>,
    /// The bullets of the `## Blocked` section, when it exists.
    pub blocked: Option<Vec<String>>,
    pub(crate) fm_close: usize,
    pub(crate) criteria_span: Span,
    pub(crate) progress_span: Option<Span>,
    pub(crate) blocked_span: Option<Span>,
    /// Read for a view with old Progress Log entries left out (`lean::read`): never written.
    pub(crate) partial: bool,
}

impl GoalFile {
    /// Parse GOAL.md text. Errors carry the 1-based line and what was expected.
    pub fn parse(text: &str) -> Result<GoalFile, ParseError> {
        parse::parse(text)
    }

    /// Parse a file's bytes, taking ownership (no copy).
    pub fn parse_vec(bytes: Vec<u8>) -> Result<GoalFile, ParseError> {
        match String::from_utf8(bytes) {
            Ok(text) if memchr::memchr(0, text.as_bytes()).is_none() => parse::parse_string(text),
            Ok(text) => parse::parse_bytes(text.as_bytes()),
            Err(e) => parse::parse_bytes(e.as_bytes()),
        }
    }

    /// Parse raw bytes (rejects binary and non-UTF-8 content with a location).
    pub fn parse_bytes(bytes: &[u8]) -> Result<GoalFile, ParseError> {
        parse::parse_bytes(bytes)
    }

    /// The bytes of the Acceptance Criteria section (its heading to the next heading), found
    /// without parsing: two files whose sections are equal have the same criteria.
    pub fn criteria_section(bytes: &[u8]) -> Option<&[u8]> {
        let mut offset = 0;
        let mut start = None;
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            let indent = line.iter().take(3).take_while(|&&b| b == b' ').count();
            let rest = &line[indent..];
            if rest.starts_with(b"## ") || rest.starts_with(b"# ") {
                if let Some(start) = start {
                    return Some(&bytes[start..offset]);
                }
                let title = String::from_utf8_lossy(rest);
                if title
                    .trim_end()
                    .eq_ignore_ascii_case("## acceptance criteria")
                {
                    start = Some(offset);
                }
            }
            offset += line.len();
        }
        start.map(|start| &bytes[start..])
    }

    /// Parse only as far as the end of the Acceptance Criteria section: frontmatter and criteria
    /// are complete, the Progress Log is not read. For walking history fast.
    pub fn parse_head(bytes: &[u8]) -> Result<GoalFile, ParseError> {
        let mut offset = 0;
        let mut in_criteria = false;
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            let start = line.iter().take(3).take_while(|&&b| b == b' ').count();
            let rest = &line[start..];
            if rest.starts_with(b"## ") || rest.starts_with(b"# ") {
                let title = String::from_utf8_lossy(rest);
                let is_criteria = title
                    .trim_end()
                    .eq_ignore_ascii_case("## acceptance criteria");
                if in_criteria && !is_criteria {
                    return parse::parse_bytes(&bytes[..offset]);
                }
                in_criteria = is_criteria;
            }
            offset += line.len();
        }
        parse::parse_bytes(bytes)
    }

    /// The settings of a GOAL.md's frontmatter alone (None when it does not parse): for walking
    /// history.
    pub fn settings_in(bytes: &[u8]) -> Option<Settings> {
        let text = std::str::from_utf8(bytes).ok()?;
        let mut lines = text.split_inclusive('\n');
        if lines.next()?.trim_end().trim_start_matches('\u{feff}') != "---" {
            return None;
        }
        let front: Vec<&str> = lines
            .take_while(|l| !matches!(l.trim_end(), "---" | "..."))
            .collect();
        frontmatter::Frontmatter::parse(&front)
            .ok()
            .map(|f| f.settings)
    }

    /// The frontmatter of a GOAL.md without the lines every goal commit changes (`iteration:`,
    /// `updated:`, `status:`): two files with the same have the same settings, so a walk over
    /// history parses the frontmatter again only when it differs. None without a frontmatter.
    pub fn settings_key(bytes: &[u8]) -> Option<Vec<u8>> {
        let mut lines = bytes.split_inclusive(|b| *b == b'\n');
        let first = lines.next()?;
        let first = first.strip_prefix("\u{feff}".as_bytes()).unwrap_or(first);
        if first.trim_ascii_end() != b"---" {
            return None;
        }
        let mut key = Vec::new();
        for line in lines.take_while(|l| !matches!(l.trim_ascii_end(), b"---" | b"...")) {
            let volatile = [&b"iteration:"[..], b"updated:", b"status:"]
                .iter()
                .any(|k| line.starts_with(k));
            if !volatile {
                key.extend_from_slice(line);
            }
        }
        Some(key)
    }

    /// The file's text, byte for byte.
    pub fn render(&self) -> String {
        self.text.clone()
    }

    /// The Progress Log's `### Iteration N` entries, in file order.
    pub fn log(&self) -> Vec<LogEntry> {
        progress_log::log_entries(self)
    }

    /// The Progress Log entry of iteration `number` (the last one, if it appears twice).
    pub fn log_entry(&self, number: u64) -> Option<LogEntry> {
        progress_log::log_entry(self, number)
    }

    /// The body of a Progress Log entry, as written.
    pub fn entry_text(&self, entry: &LogEntry) -> &str {
        &self.text[entry.start as usize..entry.end as usize]
    }

    /// A new goal file in the seed's format.
    pub fn new(goal: &str, now: &str, criteria: &[String], phases: &[String]) -> GoalFile {
        let mut text = String::new();
        text.push_str("---\n");
        text.push_str(&format!("goal: {}\n", yaml_string(goal)));
        text.push_str(&format!("created: {}\n", yaml_string(now)));
        text.push_str(&format!("updated: {}\n", yaml_string(now)));
        text.push_str("iteration: 0\n");
        text.push_str("status: in-progress\n");
        text.push_str("---\n\n");
        text.push_str(&format!("# Goal: {}\n\n", one_line(goal)));
        text.push_str("## Acceptance Criteria\n");
        if phases.is_empty() {
            for criterion in criteria {
                text.push_str(&format!("- [ ] {}\n", one_line(criterion)));
            }
        } else {
            for (i, phase) in phases.iter().enumerate() {
                text.push_str(&format!("### Phase {}: {}\n", i + 1, one_line(phase)));
                if i == 0 {
                    for criterion in criteria {
                        text.push_str(&format!("- [ ] {}\n", one_line(criterion)));
                    }
                }
            }
        }
        text.push_str("\n## Progress Log\n");
        // A document we just rendered always parses; a failure here is a bug in this module.
        GoalFile::parse(&text)
            .unwrap_or_else(|e| panic!("GoalFile::new produced an unparseable file: {e}"))
    }

    pub fn passing_count(&self) -> usize {
        self.criteria.iter().filter(|c| c.passed).count()
    }

    pub fn criterion(&self, number: usize) -> Option<&Criterion> {
        number.checked_sub(1).and_then(|i| self.criteria.get(i))
    }

    /// The current phase: the first phase with an unpassed criterion.
    pub fn current_phase(&self) -> Option<&Phase> {
        if self.phases.is_empty() {
            return None;
        }
        self.phases.iter().enumerate().find_map(|(i, phase)| {
            let criteria: Vec<_> = self
                .criteria
                .iter()
                .filter(|c| c.phase == Some(i))
                .collect();
            (criteria.is_empty() || criteria.iter().any(|c| !c.passed)).then_some(phase)
        })
    }

    pub fn criteria_texts(&self) -> Vec<String> {
        self.criteria.iter().map(|c| c.text.clone()).collect()
    }
}

/// A YAML double-quoted scalar. JSON's string syntax is a subset of YAML's double-quoted style.
pub fn yaml_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// Text on one line, for headings and list items (newlines become spaces).
pub fn one_line(text: &str) -> String {
    text.split(['\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
