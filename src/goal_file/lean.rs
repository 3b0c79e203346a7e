//! GOAL.md read for a view (`status`, the agent's context): the Progress Log of a long-lived goal
//! is most of the file, and a view needs only its recent entries. The file is streamed through a
//! small buffer; old entries are left out as they go by, so the cost no longer grows with the
//! log. What is left out is only ever whole entries made of lines that cannot change how the rest
//! of the file parses (the same lines the parser skips in a Progress Log); whenever that cannot be
//! shown, or the result would differ from the whole file's, the caller reads the whole file.

use std::io::Read;

use super::GoalFile;
use super::parse::{self, MAX_LEN};
use super::{lines, progress_log};

/// What [`read`] found.
pub enum Lean {
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

/// How much is read at a time.
const CHUNK: usize = 64 * 1024;

/// Read GOAL.md (opened by the caller) keeping the Progress Log entries of the last `window` iterations (and at least
/// `window` entries). The file must parse to the same criteria, sections and recent entries as
/// the whole file, or the answer is [`Lean::Whole`].
pub fn read(mut file: impl Read, window: u64) -> std::io::Result<Lean> {
    let keep = usize::try_from(window)
        .unwrap_or(usize::MAX)
        .saturating_add(2);
    let mut kept = Kept::new();
    let mut total = 0;
    loop {
        let n = (&mut file).take(CHUNK as u64).read_to_end(&mut kept.text)?;
        total += n;
        if total > MAX_LEN {
            return Ok(Lean::Whole);
        }
        let eof = n == 0;
        kept.look(eof);
        if kept.entries.len() > keep && !kept.cut_oldest(keep) {
            return Ok(Lean::Whole);
        }
        if eof {
            break;
        }
    }
    Ok(kept.parse(window))
}

/// What is kept of the file as it is streamed, and where its parts lie.
struct Kept {
    /// What is kept of the file, read a chunk at a time onto its end; old entries are cut out of
    /// it as it goes, so it stays about a chunk long and its memory is reused.
    text: Vec<u8>,
    part: Part,
    /// In the head: where the next line starts. In the log: where to look for the next `\n`
    /// (every line starting after one before it has been looked at).
    scan: usize,
    /// Where the log's heading starts.
    log_at: usize,
    /// Where the kept entries' headings start.
    entries: std::collections::VecDeque<usize>,
    /// The highest iteration number of the entries cut out.
    newest_dropped: Option<u64>,
    /// Whether any entry was cut out.
    dropped: bool,
}

impl Kept {
    fn new() -> Self {
        Kept {
            text: Vec::with_capacity(2 * CHUNK),
            part: Part::Head,
            scan: 0,
            log_at: 0,
            entries: Default::default(),
            newest_dropped: None,
            dropped: false,
        }
    }

    /// Look at what was read since the last look (all of it at the end of the file): the head
    /// up to the log's heading, then the log's lines up to the first that matters.
    fn look(&mut self, eof: bool) {
        if let Part::Head = self.part {
            self.find_log(eof);
        }
        if let Part::Log = self.part
            && look_at_log(&self.text, eof, &mut self.scan, &mut self.entries).is_some()
        {
            self.part = Part::Tail;
        }
    }

    /// Line by line up to the log's heading (the head is short): where it is, once read.
    fn find_log(&mut self, eof: bool) {
        let text = &self.text;
        while self.scan < text.len() {
            let end = match memchr::memchr(b'\n', &text[self.scan..]) {
                Some(at) => self.scan + at + 1,
                None if eof => text.len(),
                None => break,
            };
            let line = &text[self.scan..end];
            let at = self.scan;
            self.scan = end;
            if (line.starts_with(b"#") || line.starts_with(b" "))
                && std::str::from_utf8(line).is_ok_and(parse::opens_progress_log)
            {
                self.log_at = at;
                self.part = Part::Log;
                // The search for line starts begins at the heading's `\n`.
                self.scan = end - 1;
                break;
            }
        }
    }

    /// Cut out the oldest entries beyond `keep`, all at once: their headings to the first kept
    /// one. False when what would go is not text the whole file's parse would accept, or holds
    /// an entry heading without its number: then the whole file is read.
    fn cut_oldest(&mut self, keep: usize) -> bool {
        let entries = &mut self.entries;
        let cut = entries.len() - keep;
        let (from, to) = (entries[0], entries[cut]);
        let old = &self.text[from..to];
        // What goes must be text the whole file's parse would accept.
        if std::str::from_utf8(old).is_err() || memchr::memchr(0, old).is_some() {
            return false;
        }
        for &at in entries.range(..cut) {
            match progress_log::entry_number(&self.text[at..to]) {
                Some(Some(n)) => self.newest_dropped = self.newest_dropped.max(Some(n)),
                Some(None) => return false,
                None => {}
            }
        }
        self.dropped = true;
        self.text.drain(from..to);
        entries.drain(..cut);
        let gone = to - from;
        for at in entries.iter_mut() {
            *at -= gone;
        }
        // (After a line that matters, `scan` is no longer used.)
        self.scan = self.scan.saturating_sub(gone);
        true
    }

    /// The goal parsed from what was kept, when it is the same as the whole file's for the last
    /// `window` iterations.
    fn parse(self, window: u64) -> Lean {
        let Ok(mut goal) = GoalFile::parse_vec(self.text) else {
            return Lean::Whole;
        };
        if !self.dropped {
            return Lean::Read(Box::new(goal));
        }
        // The heading taken for the log's must be the one the parser found (not one in a fence
        // or a comment), and no entry of the window may have gone.
        let same_log = goal
            .progress_span
            .is_some_and(|span| goal.starts[span.start] as usize == self.log_at);
        let oldest_needed = goal.iteration.saturating_sub(window);
        if !same_log || self.newest_dropped.is_some_and(|n| n >= oldest_needed) {
            return Lean::Whole;
        }
        goal.partial = true;
        Lean::Read(Box::new(goal))
    }
}

/// Look at the lines of the Progress Log starting after a `\n` at `search` or later, as far as
/// enough of them is read to tell (all of them at the end of the file): entry headings go to
/// `entries`; the start of the first line that matters, if any, is returned. `search` moves on
/// past what was looked at. Line starts are found a word of eight bytes at a time: a long log
/// has many short lines, for which a search per line costs more.
fn look_at_log(
    text: &[u8],
    eof: bool,
    search: &mut usize,
    entries: &mut std::collections::VecDeque<usize>,
) -> Option<usize> {
    let len = text.len();
    // A line is told apart by its first four bytes.
    let limit = if eof { len } else { len.saturating_sub(4) };
    if *search >= limit {
        return None;
    }
    let base = *search;
    *search = limit;
    // The line after the `\n` at `at`: Some(its start) when it matters.
    let mut line_after = |at: usize| -> Option<usize> {
        let line = &text[at + 1..];
        if line.is_empty() {
            return None;
        }
        if progress_log::matters_in_log(line) {
            return Some(at + 1);
        }
        if line.starts_with(b"### ") {
            entries.push_back(at + 1);
        }
        None
    };
    let mut words = text[base..limit].chunks_exact(8);
    let mut at = base;
    for word in &mut words {
        let mut found = lines::newline_bytes(word);
        while found != 0 {
            let newline = at + (found.trailing_zeros() / 8) as usize;
            found &= found - 1;
            if let Some(start) = line_after(newline) {
                return Some(start);
            }
        }
        at += 8;
    }
    for (i, &b) in words.remainder().iter().enumerate() {
        if b == b'\n'
            && let Some(start) = line_after(at + i)
        {
            return Some(start);
        }
    }
    None
}
