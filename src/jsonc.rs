//! JSON with comments, edited by spans: a host's settings file gets goal's entries added and
//! removed while every other byte (comments, order, spacing, trailing commas) stays as the user
//! wrote it. Install and uninstall are inverses: removing what was added gives the file back byte
//! for byte. Pure.

use serde_json::Value;

/// A parsed value and where it lies in the text.
#[derive(Debug, Clone)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone)]
pub enum Kind {
    /// Members: (key, the span of the whole member from its key, the value).
    Object(Vec<Member>),
    Array(Vec<Node>),
    Scalar(Value),
}

#[derive(Debug, Clone)]
pub struct Member {
    pub key: String,
    /// From the key's opening quote.
    pub start: usize,
    pub value: Node,
}

/// Where a text is not JSON (with comments): a 1-based line and what was wrong.
#[derive(Debug, PartialEq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ParseError {
        let line = self.text[..self.at.min(self.text.len())]
            .matches('\n')
            .count()
            + 1;
        ParseError {
            line,
            message: message.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    /// Skip whitespace and `//` and `/* */` comments.
    fn skip(&mut self) -> Result<(), ParseError> {
        let bytes = self.text.as_bytes();
        loop {
            match bytes.get(self.at) {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                Some(b'/') if bytes.get(self.at + 1) == Some(&b'/') => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.at += 1;
                    }
                }
                Some(b'/') if bytes.get(self.at + 1) == Some(&b'*') => {
                    match self.text[self.at + 2..].find("*/") {
                        Some(end) => self.at += end + 4,
                        None => return Err(self.error("a comment is not closed")),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Node, ParseError> {
        self.skip()?;
        let start = self.at;
        match self.peek() {
            Some(b'{') => self.object(start),
            Some(b'[') => self.array(start),
            Some(b'"') => {
                let s = self.string()?;
                Ok(Node {
                    start,
                    end: self.at,
                    kind: Kind::Scalar(Value::String(s)),
                })
            }
            Some(_) => self.scalar(start),
            None => Err(self.error("unexpected end of the file")),
        }
    }

    fn string(&mut self) -> Result<String, ParseError> {
        let bytes = self.text.as_bytes();
        let start = self.at;
        self.at += 1;
        while let Some(&b) = bytes.get(self.at) {
            match b {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return serde_json::from_str(&self.text[start..self.at])
                        .map_err(|e| self.error(&format!("a bad string: {e}")));
                }
                _ => self.at += 1,
            }
        }
        Err(self.error("a string is not closed"))
    }

    fn scalar(&mut self, start: usize) -> Result<Node, ParseError> {
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
        {
            self.at += 1;
        }
        let word = &self.text[start..self.at];
        let value: Value = serde_json::from_str(word)
            .map_err(|_| self.error(&format!("expected a value, found `{word}`")))?;
        Ok(Node {
            start,
            end: self.at,
            kind: Kind::Scalar(value),
        })
    }

    /// After an item: a comma (true), or the closing `close` (false).
    fn separator(&mut self, close: u8) -> Result<bool, ParseError> {
        self.skip()?;
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                self.skip()?;
                Ok(self.peek() != Some(close))
            }
            Some(b) if b == close => Ok(false),
            _ => Err(self.error(&format!("expected `,` or `{}`", close as char))),
        }
    }

    fn object(&mut self, start: usize) -> Result<Node, ParseError> {
        self.at += 1;
        let mut members = Vec::new();
        self.skip()?;
        if self.peek() != Some(b'}') {
            loop {
                self.skip()?;
                let key_start = self.at;
                if self.peek() != Some(b'"') {
                    return Err(self.error("expected a key in quotes"));
                }
                let key = self.string()?;
                self.skip()?;
                if self.peek() != Some(b':') {
                    return Err(self.error("expected `:`"));
                }
                self.at += 1;
                let value = self.value()?;
                members.push(Member {
                    key,
                    start: key_start,
                    value,
                });
                if !self.separator(b'}')? {
                    break;
                }
            }
        }
        self.skip()?;
        self.at += 1;
        Ok(Node {
            start,
            end: self.at,
            kind: Kind::Object(members),
        })
    }

    fn array(&mut self, start: usize) -> Result<Node, ParseError> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip()?;
        if self.peek() != Some(b']') {
            loop {
                items.push(self.value()?);
                if !self.separator(b']')? {
                    break;
                }
            }
        }
        self.skip()?;
        self.at += 1;
        Ok(Node {
            start,
            end: self.at,
            kind: Kind::Array(items),
        })
    }
}

/// Parse `text` (JSON with comments and trailing commas): its one top-level value.
pub fn parse(text: &str) -> Result<Node, ParseError> {
    let mut p = Parser { text, at: 0 };
    let node = p.value()?;
    p.skip()?;
    if p.at < text.len() {
        return Err(p.error("more after the top-level value"));
    }
    Ok(node)
}

impl Node {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }

    /// Its plain value (comments dropped).
    pub fn value(&self) -> Value {
        match &self.kind {
            Kind::Scalar(v) => v.clone(),
            Kind::Array(items) => Value::Array(items.iter().map(Node::value).collect()),
            Kind::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|m| (m.key.clone(), m.value.value()))
                    .collect(),
            ),
        }
    }

    /// The spans of its items: array items, or object members from their keys.
    fn spans(&self) -> Vec<(usize, usize)> {
        match &self.kind {
            Kind::Array(items) => items.iter().map(|n| (n.start, n.end)).collect(),
            Kind::Object(members) => members.iter().map(|m| (m.start, m.value.end)).collect(),
            Kind::Scalar(_) => Vec::new(),
        }
    }
}

/// The leading whitespace of the line `at` is on.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The file's indent unit: the first indented line's leading whitespace (two spaces if none).
fn indent_unit(text: &str) -> String {
    text.lines()
        .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
        .find(|w| !w.is_empty())
        .unwrap_or("  ")
        .to_string()
}

/// `value` pretty-printed in the file's indent unit, its lines after the first under `indent`.
fn render(value: &Value, unit: &str, indent: &str) -> String {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
    let lines: Vec<String> = pretty
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let trimmed = line.trim_start_matches(' ');
            let depth = (line.len() - trimmed.len()) / 2;
            let lead = if i == 0 { "" } else { indent };
            format!("{lead}{}{trimmed}", unit.repeat(depth))
        })
        .collect();
    lines.join("\n")
}

/// `text` with `item` (an already rendered value, or `"key": value` for an object) added last to
/// `container`. Undone exactly by [`remove`] on the item added.
pub fn append(text: &str, container: &Node, item: &Value, key: Option<&str>) -> String {
    let unit = indent_unit(text);
    let spans = container.spans();
    match spans.last() {
        Some(&(last_start, last_end)) => {
            let indent = line_indent(text, last_start);
            let own_line = text[..last_start]
                .trim_end_matches([' ', '\t'])
                .ends_with('\n');
            let sep = if own_line {
                format!(",\n{indent}")
            } else {
                ", ".to_string()
            };
            let body = entry(item, key, &unit, indent);
            format!("{}{sep}{body}{}", &text[..last_end], &text[last_end..])
        }
        None => {
            let close = line_indent(text, container.start).to_string();
            let inner = format!("{close}{unit}");
            let body = entry(item, key, &unit, &inner);
            let open = container.start + 1;
            format!("{}\n{inner}{body}\n{close}{}", &text[..open], &text[open..])
        }
    }
}

fn entry(item: &Value, key: Option<&str>, unit: &str, indent: &str) -> String {
    let value = render(item, unit, indent);
    match key {
        Some(key) => format!("{}: {value}", Value::String(key.to_string())),
        None => value,
    }
}

/// `text` with the `index`th item of `container` removed, with the separator [`append`] put
/// before it.
pub fn remove(text: &str, container: &Node, index: usize) -> String {
    let spans = container.spans();
    let (start, end) = spans[index];
    if index > 0 {
        let prev_end = spans[index - 1].1;
        return format!("{}{}", &text[..prev_end], &text[end..]);
    }
    if let Some(&(next_start, _)) = spans.get(1) {
        return format!("{}{}", &text[..start], &text[next_start..]);
    }
    // The only item: [`append`] put it on its own line after the opening bracket, and the
    // closing bracket's indent after it.
    let open = container.start + 1;
    let tail = format!("\n{}", line_indent(text, container.start));
    let before = &text[open..start];
    if before.trim_matches([' ', '\t']) == "\n" && text[end..].starts_with(&tail) {
        return format!("{}{}", &text[..open], &text[end + tail.len()..]);
    }
    format!("{}{}", &text[..start], &text[end..])
}
