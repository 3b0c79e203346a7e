//! Edits of GOAL.md: each changes only the lines `goal` owns, then parses the result again.

use super::frontmatter::key_line;
use super::markdown::list_item;
use super::{GoalFile, Status, one_line, yaml_string};

/// The line terminator the file already uses (so a CRLF file stays CRLF).
fn eol(lines: &[String]) -> &'static str {
    if lines.first().is_some_and(|l| l.ends_with("\r\n")) {
        "\r\n"
    } else {
        "\n"
    }
}

fn ensure_trailing_newline(lines: &mut [String]) {
    let nl = eol(lines);
    if let Some(last) = lines.last_mut()
        && !last.ends_with('\n')
    {
        last.push_str(nl);
    }
}

fn terminator(line: &str) -> &str {
    if line.ends_with("\r\n") {
        "\r\n"
    } else if line.ends_with('\n') {
        "\n"
    } else {
        ""
    }
}

/// A bullet of free text: first line after `- `, further lines indented by four spaces so that no
/// line of user text can become a heading or an item of its own.
fn bullet(text: &str, nl: &str) -> String {
    let mut out = String::new();
    let mut first = true;
    for part in text.split('\n') {
        let part = part.trim_end_matches('\r');
        if first {
            out.push_str(&format!("- {part}{nl}"));
            first = false;
        } else if !part.trim().is_empty() {
            out.push_str(&format!("    {}{nl}", part.trim()));
        }
    }
    out
}

impl GoalFile {
    /// The file's lines, owned, for editing.
    fn owned_lines(&self) -> Vec<String> {
        self.starts
            .windows(2)
            .map(|w| self.text[w[0] as usize..w[1] as usize].to_string())
            .collect()
    }

    fn reparse(&mut self, lines: Vec<String>) {
        let text = lines.concat();
        // Edits only produce well-formed lines; failing to parse our own output is a bug.
        *self = GoalFile::parse(&text)
            .unwrap_or_else(|e| panic!("an edit produced an unparseable GOAL.md: {e}"));
    }

    fn set_key(&mut self, key: &str, value: &str) {
        let mut lines = self.owned_lines();
        let front = &lines[1..self.fm_close];
        let nl = eol(&lines);
        match key_line(front, key) {
            Some(i) => {
                let old = &lines[i + 1];
                let term = terminator(old).to_string();
                let term = if term.is_empty() {
                    nl.to_string()
                } else {
                    term
                };
                lines[i + 1] = format!("{key}: {value}{term}");
            }
            None => lines.insert(self.fm_close, format!("{key}: {value}{nl}")),
        }
        self.reparse(lines);
    }

    /// Write `settings` into the frontmatter: each key set to its value, or removed (with the
    /// lines of a block value under it) where the value is the default.
    pub fn set_settings(&mut self, settings: &super::Settings) {
        for (key, value) in settings.yaml() {
            let mut lines = self.owned_lines();
            let nl = eol(&lines).to_string();
            let at = key_line(&lines[1..self.fm_close], key).map(|i| i + 1);
            match (at, value) {
                (None, None) => continue,
                (None, Some(v)) => lines.insert(self.fm_close, format!("{key}: {v}{nl}")),
                (Some(i), value) => {
                    // The key's block value: the indented or `- ` lines under it.
                    let mut end = i + 1;
                    while end < self.fm_close
                        && (lines[end].starts_with([' ', '\t']) || lines[end].starts_with('-'))
                    {
                        end += 1;
                    }
                    let term = match terminator(&lines[i]) {
                        "" => nl.clone(),
                        t => t.to_string(),
                    };
                    let new: Vec<String> = value
                        .map(|v| format!("{key}: {v}{term}"))
                        .into_iter()
                        .collect();
                    lines.splice(i..end, new);
                }
            }
            self.reparse(lines);
        }
    }

    pub fn set_status(&mut self, status: Status) {
        self.set_key("status", status.as_str());
    }

    pub fn set_iteration(&mut self, iteration: u64) {
        self.set_key("iteration", &iteration.to_string());
    }

    pub fn set_updated(&mut self, now: &str) {
        self.set_key("updated", &yaml_string(now));
    }

    /// Tick or untick criterion `number` (1-based). Returns false when there is no such criterion.
    pub fn set_passed(&mut self, number: usize, passed: bool) -> bool {
        let mut lines = self.owned_lines();
        let Some(criterion) = self.criterion(number) else {
            return false;
        };
        let index = criterion.line;
        let line = lines[index].clone();
        let Some(item) = list_item(&line) else {
            return false;
        };
        let mark = if passed { 'x' } else { ' ' };
        let new_line = match item.mark_at {
            Some(at) => {
                let mut s = line.clone();
                let old = item.mark.unwrap_or(' ');
                s.replace_range(at..at + old.len_utf8(), &mark.to_string());
                s
            }
            None => {
                let mut s = line.clone();
                s.insert_str(item.after_bullet, &format!("[{mark}] "));
                s
            }
        };
        lines[index] = new_line;
        self.reparse(lines);
        true
    }

    /// The line index after which a new criterion of `phase` goes.
    fn criteria_insertion_point(&self, phase: Option<usize>) -> usize {
        let in_scope: Vec<_> = self
            .criteria
            .iter()
            .filter(|c| phase.is_none() || c.phase == phase)
            .collect();
        if let Some(last) = in_scope.last() {
            return last.end;
        }
        match phase.and_then(|p| self.phases.get(p)) {
            Some(p) => p.line + 1,
            None => match self.criteria.last() {
                Some(last) => last.end,
                None => self.criteria_span.start + 1,
            },
        }
    }

    /// Append a criterion (to `phase`, 0-based, when given). Returns its number.
    pub fn add_criterion(&mut self, text: &str, phase: Option<usize>) -> usize {
        let mut lines = self.owned_lines();
        let at = self.criteria_insertion_point(phase);
        let nl = eol(&lines);
        if at > 0 && !lines[at - 1].ends_with('\n') {
            lines[at - 1].push_str(nl);
        }
        lines.insert(at, format!("- [ ] {}{nl}", one_line(text)));
        self.reparse(lines);
        self.criteria
            .iter()
            .find(|c| c.line == at)
            .map_or(self.criteria.len(), |c| c.number)
    }

    /// Replace criterion `number` with one or more texts (more than one splits it). All unticked.
    pub fn edit_criterion(&mut self, number: usize, texts: &[String]) -> bool {
        let mut lines = self.owned_lines();
        let Some(criterion) = self.criterion(number).cloned() else {
            return false;
        };
        let first = lines[criterion.line].clone();
        let Some(item) = list_item(&first) else {
            return false;
        };
        let prefix = &first[..item.after_bullet];
        let term = match terminator(&first) {
            "" => eol(&lines),
            t => t,
        };
        let new_lines: Vec<String> = texts
            .iter()
            .map(|t| format!("{prefix}[ ] {}{term}", one_line(t)))
            .collect();
        lines.splice(criterion.line..criterion.end, new_lines);
        self.reparse(lines);
        true
    }

    pub fn remove_criterion(&mut self, number: usize) -> bool {
        let mut lines = self.owned_lines();
        let Some(criterion) = self.criterion(number).cloned() else {
            return false;
        };
        lines.drain(criterion.line..criterion.end);
        self.reparse(lines);
        true
    }

    /// Append `### Iteration N` with one bullet per line of work to the Progress Log.
    pub fn append_iteration(&mut self, number: u64, bullets: &[String]) {
        self.append_entry_with(number, |nl| bullets.iter().map(|b| bullet(b, nl)).collect());
    }

    /// Append `### Iteration N` with `body` (an entry's text as written, e.g. another branch's)
    /// to the Progress Log.
    pub fn append_entry(&mut self, number: u64, body: &str) {
        self.append_entry_with(number, |nl| {
            body.trim_matches('\n')
                .lines()
                .map(|l| format!("{}{nl}", l.trim_end_matches('\r')))
                .collect()
        });
    }

    fn append_entry_with(&mut self, number: u64, body: impl FnOnce(&str) -> Vec<String>) {
        let mut lines = self.owned_lines();
        ensure_trailing_newline(&mut lines);
        let nl = eol(&lines);
        let at = match self.progress_span {
            Some(span) => {
                let mut at = span.end;
                while at > span.start + 1 && lines[at - 1].trim().is_empty() {
                    at -= 1;
                }
                at
            }
            None => {
                // No Progress Log yet: add one before `## Blocked`, or at the end.
                let at = self.blocked_span.map_or(lines.len(), |s| s.start);
                lines.insert(at, format!("## Progress Log{nl}"));
                if at > 0 && !lines[at - 1].trim().is_empty() {
                    lines.insert(at, nl.to_string());
                    at + 2
                } else {
                    at + 1
                }
            }
        };
        let mut block = vec![format!("### Iteration {number}{nl}")];
        block.extend(body(nl));
        // Keep a blank line between the entry and a section that follows directly.
        if at < lines.len() && heading_level(&lines[at]).is_some_and(|l| l <= 2) {
            block.push(nl.to_string());
        }
        lines.splice(at..at, block);
        self.reparse(lines);
    }

    /// Set the `## Blocked` section to hold `reason` (added at the end of the file when absent).
    pub fn set_blocked(&mut self, reason: &str) {
        let mut lines = self.owned_lines();
        ensure_trailing_newline(&mut lines);
        let nl = eol(&lines);
        match self.blocked_span {
            Some(span) => {
                let mut at = span.end;
                while at > span.start + 1 && lines[at - 1].trim().is_empty() {
                    at -= 1;
                }
                lines.insert(at, bullet(reason, nl));
            }
            None => {
                if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                    lines.push(nl.to_string());
                }
                lines.push(format!("## Blocked{nl}"));
                lines.push(bullet(reason, nl));
            }
        }
        self.reparse(lines);
    }

    /// Remove the `## Blocked` section (and the blank line that set it apart).
    pub fn clear_blocked(&mut self) {
        let mut lines = self.owned_lines();
        let Some(span) = self.blocked_span else {
            return;
        };
        let mut start = span.start;
        if span.end == lines.len() && start > 0 && lines[start - 1].trim().is_empty() {
            start -= 1;
        }
        lines.drain(start..span.end);
        self.reparse(lines);
    }
}

fn heading_level(line: &str) -> Option<usize> {
    super::markdown::heading(line).map(|(level, _)| level)
}
