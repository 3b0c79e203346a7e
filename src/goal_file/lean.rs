//! GOAL.md read for a view (`status`, the agent's context): the Progress Log of a long-lived goal
//! is most of the file, and a view needs only its recent entries. The file is streamed through a
//! small buffer; old entries are left out as they go by, so the cost no longer grows with the
//! log. What is left out is only ever whole entries made of lines that cannot change how the rest
//! of the file parses (the same lines the parser skips in a Progress Log); whenever that cannot be
//! shown, or the result would differ from the whole file's, the caller reads the whole file.

use std::io::Read;
use std::path::Path;

use super::GoalFile;
use super::parse::{self, MAX_LEN};

/// What [`read`] found.
pub enum Lean {
    /// No file.
    Missing,
    /// The file, with entries older than the window left out (`GoalFile::partial`).
    Read(Box<GoalFile>),
    /// Read and parse the whole file instead (it does not parse, or its shape is unusual).
    Whole,
}

enum Part {
    /// Before the `## Progress Log` heading: kept.
    Head,
    /// In the Progress Log: old entries go.
    Log,
    /// From the first line of the log that matters on: kept.
    Tail,
}

/// Read GOAL.md keeping the Progress Log entries of the last `window` iterations (and at least
/// `window` entries). The file must parse to the same criteria, sections and recent entries as
/// the whole file, or the answer is [`Lean::Whole`].
pub fn read(path: &Path, window: u64) -> std::io::Result<Lean> {
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Lean::Missing),
        Err(e) => return Err(e),
    };
    let mut stream = Stream {
        keep: usize::try_from(window)
            .unwrap_or(usize::MAX)
            .saturating_add(2),
        text: Vec::new(),
        part: Part::Head,
        log_at: 0,
        entries: Default::default(),
        newest_dropped: None,
        dropped: false,
    };
    let mut chunk = vec![0u8; 64 * 1024];
    let mut pending: Vec<u8> = Vec::new();
    let mut total = 0usize;
    loop {
        let n = match file.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n;
        if total > MAX_LEN {
            return Ok(Lean::Whole);
        }
        if n == 0 {
            if !pending.is_empty() && stream.line(&pending).is_err() {
                return Ok(Lean::Whole);
            }
            break;
        }
        let mut rest = &chunk[..n];
        // One line at a time; a line cut by the buffer waits in `pending`.
        while let Some(end) = memchr::memchr(b'\n', rest) {
            if let Part::Tail = stream.part {
                break;
            }
            let ok = if pending.is_empty() {
                stream.line(&rest[..=end])
            } else {
                pending.extend_from_slice(&rest[..=end]);
                let ok = stream.line(&pending);
                pending.clear();
                ok
            };
            if ok.is_err() {
                return Ok(Lean::Whole);
            }
            rest = &rest[end + 1..];
        }
        match stream.part {
            Part::Tail => {
                stream.text.append(&mut pending);
                stream.text.extend_from_slice(rest);
            }
            _ => pending.extend_from_slice(rest),
        }
    }
    stream.finish(window)
}

struct Stream {
    /// How many entries of the log to hold at least.
    keep: usize,
    /// What is kept of the file.
    text: Vec<u8>,
    part: Part,
    /// Where the log's heading starts in `text`.
    log_at: usize,
    /// Where the kept entries' headings start in `text`.
    entries: std::collections::VecDeque<usize>,
    /// The newest iteration among the entries left out.
    newest_dropped: Option<u64>,
    dropped: bool,
}

impl Stream {
    /// Take one line (its `\n` included); Err: read the whole file instead.
    fn line(&mut self, line: &[u8]) -> Result<(), ()> {
        match self.part {
            Part::Head => {
                let at = self.text.len();
                self.text.extend_from_slice(line);
                if (line.starts_with(b"#") || line.starts_with(b" "))
                    && std::str::from_utf8(line).is_ok_and(parse::opens_progress_log)
                {
                    self.log_at = at;
                    self.part = Part::Log;
                }
            }
            Part::Log if parse::matters_in_log(line) => {
                self.text.extend_from_slice(line);
                self.part = Part::Tail;
            }
            Part::Log => {
                if line.starts_with(b"### ") {
                    self.entries.push_back(self.text.len());
                }
                self.text.extend_from_slice(line);
                if self.entries.len() > self.keep {
                    self.drop_oldest()?;
                }
            }
            Part::Tail => self.text.extend_from_slice(line),
        }
        Ok(())
    }

    /// Leave out the oldest kept entry (its heading up to the next one's).
    fn drop_oldest(&mut self) -> Result<(), ()> {
        let (from, to) = (self.entries[0], self.entries[1]);
        // What goes must be text the whole file's parse would accept.
        let old = std::str::from_utf8(&self.text[from..to]).map_err(|_| ())?;
        if memchr::memchr(0, old.as_bytes()).is_some() {
            return Err(());
        }
        let heading = old.split_inclusive('\n').next().unwrap_or_default();
        match parse::entry_number(heading) {
            Some(Some(n)) => self.newest_dropped = self.newest_dropped.max(Some(n)),
            Some(None) => return Err(()),
            None => {}
        }
        self.dropped = true;
        self.text.drain(from..to);
        self.entries.pop_front();
        for at in &mut self.entries {
            *at -= to - from;
        }
        Ok(())
    }

    fn finish(self, window: u64) -> std::io::Result<Lean> {
        let Ok(mut goal) = GoalFile::parse_vec(self.text) else {
            return Ok(Lean::Whole);
        };
        if !self.dropped {
            return Ok(Lean::Read(Box::new(goal)));
        }
        // The heading taken for the log's must be the one the parser found (not one in a fence
        // or a comment), and no entry of the window may have gone.
        let same_log = goal
            .progress_span
            .is_some_and(|span| goal.starts[span.start] as usize == self.log_at);
        let oldest_needed = goal.iteration.saturating_sub(window);
        if !same_log || self.newest_dropped.is_some_and(|n| n >= oldest_needed) {
            return Ok(Lean::Whole);
        }
        goal.partial = true;
        Ok(Lean::Read(Box::new(goal)))
    }
}
