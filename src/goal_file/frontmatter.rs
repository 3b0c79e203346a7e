//! The YAML frontmatter of GOAL.md: its keys read and checked (goal, created, updated, iteration,
//! status), each error on the line of its key.

use super::Status;
use super::parse::{ParseError, err};

pub(super) struct Frontmatter {
    pub(super) goal: String,
    pub(super) created: Option<String>,
    pub(super) updated: Option<String>,
    pub(super) iteration: u64,
    pub(super) status: Status,
    pub(super) settings: super::settings::Settings,
}

/// The 0-based index (within the frontmatter lines) of a top-level `key:` line.
pub(super) fn key_line<S: AsRef<str>>(lines: &[S], key: &str) -> Option<usize> {
    lines.iter().map(AsRef::as_ref).position(|l| {
        l.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'))
    })
}

impl Frontmatter {
    pub(super) fn parse(lines: &[&str]) -> Result<Frontmatter, ParseError> {
        let map = mapping(lines)?;
        let keys = Keys { lines, map: &map };
        let goal = keys.goal()?;
        let iteration = keys.iteration()?;
        let status = keys.status()?;
        for key in ["goal", "iteration", "status"] {
            if key_line(lines, key).is_none() {
                return err(
                    1,
                    format!("`{key}` must be written as `{key}: <value>` on a line of its own"),
                );
            }
        }
        let settings = super::settings::from_yaml(|key| keys.get(key).cloned())
            .or_else(|(key, message)| err(keys.line_of(key), message))?;
        Ok(Frontmatter {
            settings,
            goal,
            created: keys.timestamp("created")?,
            updated: keys.timestamp("updated")?,
            iteration,
            status,
        })
    }
}

/// The frontmatter read as YAML: it must be a mapping of keys.
fn mapping(lines: &[&str]) -> Result<serde_yaml_ng::Mapping, ParseError> {
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
    Ok(map)
}

/// The frontmatter's keys, with the lines they were read from (for the line of an error).
struct Keys<'a> {
    lines: &'a [&'a str],
    map: &'a serde_yaml_ng::Mapping,
}

impl Keys<'_> {
    /// The value of `key`, if the mapping has it.
    fn get(&self, key: &str) -> Option<&serde_yaml_ng::Value> {
        self.map.get(serde_yaml_ng::Value::String(key.to_string()))
    }

    /// The file line of `key`'s line (1 when it has none): frontmatter line i is file line
    /// i + 2 (1-based, after the opening `---`).
    fn line_of(&self, key: &str) -> usize {
        key_line(self.lines, key).map_or(1, |i| i + 2)
    }

    /// `goal`: a non-empty string.
    fn goal(&self) -> Result<String, ParseError> {
        match self.get("goal") {
            Some(serde_yaml_ng::Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(_) => err(self.line_of("goal"), "`goal` must be a non-empty string"),
            None => err(
                1,
                "the frontmatter has no `goal` key: expected `goal: \"<goal text>\"`",
            ),
        }
    }

    /// `iteration`: a whole number ≥ 0.
    fn iteration(&self) -> Result<u64, ParseError> {
        match self.get("iteration") {
            Some(serde_yaml_ng::Value::Number(n)) if n.as_u64().is_some() => {
                Ok(n.as_u64().unwrap_or_default())
            }
            Some(_) => err(
                self.line_of("iteration"),
                "`iteration` must be a whole number ≥ 0 (the last recorded iteration)",
            ),
            None => err(
                1,
                "the frontmatter has no `iteration` key: expected `iteration: <int>`",
            ),
        }
    }

    /// `status`: one of the statuses a goal can have.
    fn status(&self) -> Result<Status, ParseError> {
        match self.get("status") {
            Some(serde_yaml_ng::Value::String(s)) => match Status::parse(s) {
                Some(status) => Ok(status),
                None => err(
                    self.line_of("status"),
                    format!("unknown status `{s}`: expected in-progress, blocked or complete"),
                ),
            },
            Some(_) => err(
                self.line_of("status"),
                "`status` must be in-progress, blocked or complete",
            ),
            None => err(
                1,
                "the frontmatter has no `status` key: expected `status: in-progress`",
            ),
        }
    }

    /// A timestamp key (`created`, `updated`): a string, or absent.
    fn timestamp(&self, key: &str) -> Result<Option<String>, ParseError> {
        match self.get(key) {
            None | Some(serde_yaml_ng::Value::Null) => Ok(None),
            Some(serde_yaml_ng::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => err(
                self.line_of(key),
                format!("`{key}` must be an ISO 8601 timestamp string"),
            ),
        }
    }
}
