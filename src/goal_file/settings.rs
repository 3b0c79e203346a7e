//! The settings that judge a goal, kept in GOAL.md's frontmatter so that they travel with it:
//! the test surface (`tests:`, `tests_only:`) and the mutation check (`mutants:`,
//! `mutants_min:`), and the bounds of the pins' runs (`pin_timeout:`, `pin_memory:`; unset, the
//! machine's git config or defaults decide). Each is omitted while it has its default. Pure.

use std::fmt;

/// The mutation check `goal done` makes (`mutants:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mutants {
    #[default]
    Off,
    Report,
    Gate,
}

impl Mutants {
    pub fn as_str(self) -> &'static str {
        match self {
            Mutants::Off => "off",
            Mutants::Report => "report",
            Mutants::Gate => "gate",
        }
    }

    pub fn parse(text: &str) -> Option<Mutants> {
        match text.trim().to_ascii_lowercase().as_str() {
            "off" => Some(Mutants::Off),
            "report" => Some(Mutants::Report),
            "gate" => Some(Mutants::Gate),
            _ => None,
        }
    }
}

/// The default lowest mutation score `gate` accepts.
pub const DEFAULT_MUTANTS_MIN: f64 = 0.8;

/// The settings that judge a goal.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Globs added to the test surface (or the whole of it, with `tests_only`).
    pub tests: Vec<String>,
    pub tests_only: bool,
    pub mutants: Mutants,
    /// In 0..=1 (checked when read).
    pub mutants_min: f64,
    /// The time bound of each run of a pin, in seconds (`pin_timeout:`; None: not set here).
    pub pin_timeout: Option<u64>,
    /// The memory bound of each run of a pin, in MiB (`pin_memory:`; None: not set here).
    pub pin_memory: Option<u64>,
}

// `mutants_min` is a finite number in 0..=1, never NaN.
impl Eq for Settings {}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            tests: Vec::new(),
            tests_only: false,
            mutants: Mutants::Off,
            mutants_min: DEFAULT_MUTANTS_MIN,
            pin_timeout: None,
            pin_memory: None,
        }
    }
}

/// A mutation score threshold as written: a number in 0..=1.
pub fn parse_min(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{text}` is not a mutation score: expected a number from 0 to 1 (e.g. 0.8)"
        )),
    }
}

/// A git boolean as `git config` reads it (true/yes/on/1; false/no/off/0/empty).
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" | "" => Some(false),
        _ => None,
    }
}

impl Settings {
    /// The settings that judge a goal: these without the bounds of the pins' runs (which bound
    /// resources, not judgement).
    pub fn judging(&self) -> Settings {
        Settings {
            pin_timeout: None,
            pin_memory: None,
            ..self.clone()
        }
    }

    /// Whether `new` only makes the gate stricter than these: the mutation check from off to
    /// report to gate, or a higher lowest score; everything else as it was, and something
    /// changed. Such a change needs no person's confirmation and is no material change. (Globs
    /// added to the test surface are not: they move files between code and tests, which changes
    /// what each run is made of, not only how much is asked.)
    pub fn only_stricter(&self, new: &Settings) -> bool {
        let rank = |m: Mutants| match m {
            Mutants::Off => 0,
            Mutants::Report => 1,
            Mutants::Gate => 2,
        };
        self != new
            && self.tests == new.tests
            && self.tests_only == new.tests_only
            && rank(new.mutants) >= rank(self.mutants)
            && new.mutants_min >= self.mutants_min
            && self.pin_timeout == new.pin_timeout
            && self.pin_memory == new.pin_memory
    }

    pub fn is_default(&self) -> bool {
        *self == Settings::default()
    }

    /// The frontmatter lines' values, each key with its YAML value; None where it is the default
    /// (the key is then left out of the file).
    pub fn yaml(&self) -> [(&'static str, Option<String>); 6] {
        let d = Settings::default();
        let tests = self.tests.iter().map(|t| super::yaml_string(t));
        [
            (
                "tests",
                (!self.tests.is_empty())
                    .then(|| format!("[{}]", tests.collect::<Vec<_>>().join(", "))),
            ),
            ("tests_only", self.tests_only.then(|| "true".to_string())),
            (
                "mutants",
                (self.mutants != d.mutants).then(|| self.mutants.as_str().to_string()),
            ),
            (
                "mutants_min",
                (self.mutants_min != d.mutants_min).then(|| self.mutants_min.to_string()),
            ),
            ("pin_timeout", self.pin_timeout.map(|v| v.to_string())),
            ("pin_memory", self.pin_memory.map(|v| v.to_string())),
        ]
    }

    /// The values that are not the default, as `key: value` for people (empty: all default).
    pub fn non_default(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.tests.is_empty() {
            out.push(format!("tests: {}", self.tests.join(", ")));
        }
        if self.tests_only {
            out.push("tests_only: true".into());
        }
        if self.mutants != Mutants::Off {
            out.push(format!("mutants: {}", self.mutants.as_str()));
        }
        if self.mutants_min != DEFAULT_MUTANTS_MIN {
            out.push(format!("mutants_min: {}", self.mutants_min));
        }
        if let Some(v) = self.pin_timeout {
            out.push(format!("pin_timeout: {v}"));
        }
        if let Some(v) = self.pin_memory {
            out.push(format!("pin_memory: {v}"));
        }
        out
    }

    /// The values that are not the default, for JSON (an empty object when all are).
    pub fn json(&self) -> serde_json::Value {
        let mut map = serde_json::Map::new();
        if !self.tests.is_empty() {
            map.insert("tests".into(), self.tests.clone().into());
        }
        if self.tests_only {
            map.insert("tests_only".into(), true.into());
        }
        if self.mutants != Mutants::Off {
            map.insert("mutants".into(), self.mutants.as_str().into());
        }
        if self.mutants_min != DEFAULT_MUTANTS_MIN {
            map.insert("mutants_min".into(), self.mutants_min.into());
        }
        if let Some(v) = self.pin_timeout {
            map.insert("pin_timeout".into(), v.into());
        }
        if let Some(v) = self.pin_memory {
            map.insert("pin_memory".into(), v.into());
        }
        serde_json::Value::Object(map)
    }
}

impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = self.non_default();
        if parts.is_empty() {
            f.write_str("the defaults")
        } else {
            f.write_str(&parts.join("; "))
        }
    }
}

/// The settings of a parsed frontmatter mapping; `line_of(key)` is where an error points.
pub(super) fn from_yaml(
    get: impl Fn(&str) -> Option<serde_yaml_ng::Value>,
) -> Result<Settings, (&'static str, String)> {
    use serde_yaml_ng::Value;
    let mut s = Settings::default();
    match get("tests") {
        None | Some(Value::Null) => {}
        Some(Value::String(g)) => s.tests = vec![g],
        Some(Value::Sequence(items)) => {
            for item in items {
                match item {
                    Value::String(g) if !g.trim().is_empty() => s.tests.push(g),
                    _ => return Err(("tests", "`tests` must be a list of glob strings".into())),
                }
            }
        }
        Some(_) => return Err(("tests", "`tests` must be a list of glob strings".into())),
    }
    match get("tests_only") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => s.tests_only = b,
        Some(_) => return Err(("tests_only", "`tests_only` must be true or false".into())),
    }
    match get("mutants") {
        None | Some(Value::Null) => {}
        Some(Value::String(m)) => {
            s.mutants = Mutants::parse(&m).ok_or((
                "mutants",
                format!("unknown `mutants: {m}`: expected off, report or gate"),
            ))?;
        }
        Some(_) => return Err(("mutants", "`mutants` must be off, report or gate".into())),
    }
    match get("mutants_min") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) => {
            s.mutants_min = n.as_f64().filter(|v| (0.0..=1.0).contains(v)).ok_or((
                "mutants_min",
                "`mutants_min` must be a number from 0 to 1".into(),
            ))?;
        }
        Some(_) => {
            return Err((
                "mutants_min",
                "`mutants_min` must be a number from 0 to 1".into(),
            ));
        }
    }
    s.pin_timeout = whole_number(get("pin_timeout"), "pin_timeout", "seconds")?;
    s.pin_memory = whole_number(get("pin_memory"), "pin_memory", "MiB")?;
    Ok(s)
}

/// A bound of the pins' runs: a whole number ≥ 1 of `unit`, or absent.
fn whole_number(
    value: Option<serde_yaml_ng::Value>,
    key: &'static str,
    unit: &str,
) -> Result<Option<u64>, (&'static str, String)> {
    match value {
        None | Some(serde_yaml_ng::Value::Null) => Ok(None),
        Some(serde_yaml_ng::Value::Number(n)) if n.as_u64().is_some_and(|v| v >= 1) => {
            Ok(n.as_u64())
        }
        Some(_) => Err((key, format!("`{key}` must be a whole number ≥ 1 ({unit})"))),
    }
}

/// A bound of the pins' runs as written on a command line or in git config: a whole number ≥ 1.
pub fn parse_bound(text: &str) -> Option<u64> {
    text.trim().parse::<u64>().ok().filter(|v| *v >= 1)
}

#[cfg(test)]
mod tests {
    /// A change that only makes the gate stricter is told apart from one that loosens it.
    #[test]
    fn only_stricter_changes() {
        let base = Settings::default();
        let with = |f: &dyn Fn(&mut Settings)| {
            let mut s = Settings::default();
            f(&mut s);
            s
        };
        let gate = with(&|s| s.mutants = Mutants::Gate);
        let report = with(&|s| s.mutants = Mutants::Report);
        let globs = with(&|s| s.tests = vec!["spec/**".into()]);
        let cases: &[(&Settings, &Settings, bool)] = &[
            (&base, &gate, true),
            (&base, &report, true),
            (&report, &gate, true),
            (&gate, &report, false),
            (&gate, &base, false),
            (&base, &base, false),
            (
                &gate,
                &with(&|s| {
                    s.mutants = Mutants::Gate;
                    s.mutants_min = 0.9
                }),
                true,
            ),
            (
                &gate,
                &with(&|s| {
                    s.mutants = Mutants::Gate;
                    s.mutants_min = 0.5
                }),
                false,
            ),
            (&base, &globs, false),
            (&globs, &base, false),
            (&base, &with(&|s| s.tests_only = true), false),
            (&base, &with(&|s| s.pin_timeout = Some(60)), false),
            (
                &base,
                &with(&|s| {
                    s.mutants = Mutants::Gate;
                    s.pin_memory = Some(64)
                }),
                false,
            ),
        ];
        for (old, new, want) in cases {
            assert_eq!(old.only_stricter(new), *want, "{old} → {new}");
        }
    }

    use super::*;
    use crate::goal_file::GoalFile;

    const HEAD: &str = "---\ngoal: \"g\"\niteration: 0\nstatus: in-progress\n";
    const BODY: &str = "---\n\n# Goal: g\n\n## Acceptance Criteria\n- [ ] a\n";

    fn parse(front: &str) -> Result<GoalFile, crate::goal_file::ParseError> {
        GoalFile::parse(&format!("{HEAD}{front}{BODY}"))
    }

    #[test]
    fn the_frontmatter_keys_read_as_settings() {
        let cases: &[(&str, Settings)] = &[
            ("", Settings::default()),
            (
                "tests: [\"checks/**\", \"*.bats\"]\n",
                Settings {
                    tests: vec!["checks/**".into(), "*.bats".into()],
                    ..Settings::default()
                },
            ),
            (
                "tests:\n  - checks/**\ntests_only: true\n",
                Settings {
                    tests: vec!["checks/**".into()],
                    tests_only: true,
                    ..Settings::default()
                },
            ),
            (
                "mutants: gate\nmutants_min: 0.9\n",
                Settings {
                    mutants: Mutants::Gate,
                    mutants_min: 0.9,
                    ..Settings::default()
                },
            ),
            (
                "pin_timeout: 60\npin_memory: 2048\n",
                Settings {
                    pin_timeout: Some(60),
                    pin_memory: Some(2048),
                    ..Settings::default()
                },
            ),
        ];
        for (front, want) in cases {
            assert_eq!(&parse(front).unwrap().settings, want, "{front}");
        }
    }

    #[test]
    fn a_bad_value_is_an_error_on_its_line() {
        let cases = [
            ("tests_only: maybe\n", 5, "tests_only"),
            ("mutants: always\n", 5, "off, report or gate"),
            ("mutants_min: 2\n", 5, "from 0 to 1"),
            ("tests: 3\n", 5, "glob strings"),
            ("pin_timeout: 0\n", 5, "whole number ≥ 1 (seconds)"),
            ("pin_memory: lots\n", 5, "whole number ≥ 1 (MiB)"),
        ];
        for (front, line, says) in cases {
            let e = parse(front).unwrap_err();
            assert_eq!(e.line, line, "{front}: {e}");
            assert!(e.message.contains(says), "{front}: {e}");
        }
    }

    #[test]
    fn settings_are_written_losslessly_and_defaults_left_out() {
        let text = format!("{HEAD}# mine\ntests:\n  - old/**\n{BODY}");
        let mut goal = GoalFile::parse(&text).unwrap();
        let new = Settings {
            tests: vec!["checks/**".into()],
            tests_only: true,
            mutants: Mutants::Report,
            mutants_min: 0.5,
            pin_timeout: Some(30),
            pin_memory: None,
        };
        goal.set_settings(&new);
        assert_eq!(goal.settings, new);
        let written = goal.render();
        assert!(
            written.contains("# mine\ntests: [\"checks/**\"]\n"),
            "{written}"
        );
        assert!(!written.contains("old/**"), "{written}");
        goal.set_settings(&Settings::default());
        assert_eq!(goal.render(), format!("{HEAD}# mine\n{BODY}"));
    }
}
