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
        let settings = super::settings::from_yaml(|key| get(key).cloned())
            .or_else(|(key, message)| err(line_of(key), message))?;
        Ok(Frontmatter {
            settings,
            goal,
            created: timestamp("created")?,
            updated: timestamp("updated")?,
            iteration,
            status,
        })
    }
}
