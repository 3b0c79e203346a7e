//! TAP 13/14 read as a tree: nested (indented) subtests, `# Subtest: name` headings, YAML
//! diagnostics skipped. A test point that closes a subtest is its parent's summary, not a test of
//! its own: only the leaf points are results, each counted once, named by their path
//! (`file > suite > test`) where the headings give one.

use std::sync::LazyLock;

use regex::Regex;

use super::re;

// "ok 1 - adds", "not ok 2 - subs # time=3ms", "ok 3 - later # SKIP not today"
static POINT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^( *)(ok|not ok) \d+(?: -)? ?(.*?)(?:\s+#\s*(?i:(SKIP|TODO))\b.*)?\s*$"));
static SUBTEST: LazyLock<Regex> = LazyLock::new(|| re(r"^( *)# Subtest: (.*?)\s*$"));

/// What one leaf test point came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Result {
    Passed,
    Failed,
    /// SKIP or TODO.
    Ignored,
}

/// A leaf test point: its path of subtest names and its own, joined by ` > `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leaf {
    pub name: String,
    pub result: Result,
}

/// Reads TAP one line at a time (every line of the output, in order).
#[derive(Default)]
pub struct Reader {
    /// `# Subtest:` names by depth (indent / 4).
    headings: Vec<Option<String>>,
    /// Whether a point deeper than each depth was seen since that depth's last point.
    children: Vec<bool>,
    /// Indentation of the YAML block being skipped (after a point), if any.
    yaml: Option<usize>,
    /// Points read, leaves and parents alike.
    pub points: usize,
}

impl Reader {
    /// The leaf point this line is, if it is one.
    pub fn line(&mut self, line: &str) -> Option<Leaf> {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(at) = self.yaml {
            if line.trim() == "..." && indent >= at {
                self.yaml = None;
            }
            return None;
        }
        if line.trim() == "---" && self.points > 0 {
            self.yaml = Some(indent);
            return None;
        }
        let depth = indent / 4;
        if let Some(c) = SUBTEST.captures(line) {
            self.headings.truncate(depth);
            self.headings.resize(depth, None);
            self.headings.push(Some(c[2].to_string()));
            return None;
        }
        let c = POINT.captures(line)?;
        self.points += 1;
        if self.children.len() <= depth {
            self.children.resize(depth + 1, false);
        }
        let leaf = !self.children[depth];
        self.children.truncate(depth + 1);
        self.children[depth] = false;
        for seen in &mut self.children[..depth] {
            *seen = true;
        }
        if !leaf {
            return None;
        }
        let result = match (c.get(4), &c[2]) {
            (Some(_), _) => Result::Ignored,
            (None, "ok") => Result::Passed,
            _ => Result::Failed,
        };
        // A directive other than SKIP/TODO (`# time=41ms`) is no part of the name.
        let own = c[3].split(" # ").next().unwrap_or_default().trim();
        let mut path: Vec<&str> = self
            .headings
            .iter()
            .take(depth)
            .filter_map(|h| h.as_deref())
            .collect();
        path.push(own);
        Some(Leaf {
            name: path.join(" > "),
            result,
        })
    }
}
