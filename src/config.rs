//! Settings: git config keys under `goal.`, with the original design's values as defaults.

use crate::error::{Error, Result};
use crate::repo::Repo;

/// Every key `goal` reads, its default and what it does (`goal config` prints this table).
pub const KEYS: &[(&str, &str, &str)] = &[
    (
        "goal.stagnationWindow",
        "3",
        "iterations in a stagnation window: stagnant when the passing count stays flat over it (S1) and the log has no progress words (S2) or the code no net change (S3)",
    ),
    (
        "goal.escalateAfter",
        "2",
        "consecutive stagnation auto-recoveries before the goal is blocked",
    ),
    (
        "goal.progressKeywords",
        "found fixed implemented added refactored verified 发现 修复 实现 添加 重构 验证",
        "progress words (multi-valued, or space/comma separated); replaces the defaults",
    ),
    ("goal.backoffInitial", "30", "first retry delay, seconds"),
    ("goal.backoffFactor", "2", "retry delay multiplier"),
    ("goal.backoffMax", "300", "longest retry delay, seconds"),
    (
        "goal.maxRetries",
        "10",
        "retries per iteration before the goal is blocked",
    ),
    (
        "goal.notify",
        "(none)",
        "command run with the escalation message as its one argument",
    ),
    (
        "goal.deslop",
        "(none)",
        "clean-up check commands `goal done` runs before completion (multi-valued; as --deslop)",
    ),
    (
        "goal.stopBlocks",
        "3",
        "Stop-hook blocks allowed without a new iteration commit",
    ),
    (
        "goal.language",
        "zh",
        "language of `goal continuation`: zh (the fixed Chinese text) or en (its English twin)",
    ),
    (
        "goal.lockTimeout",
        "10000",
        "milliseconds a goal command waits for another one in the same worktree",
    ),
    (
        "goal.tests",
        "(none)",
        "globs of test files added to the test surface (multi-valued); written into GOAL.md (`tests:`) at `goal init`, where it decides",
    ),
    (
        "goal.testsOnly",
        "false",
        "the goal.tests globs are the whole test surface; written into GOAL.md (`tests_only:`) at `goal init`, where it decides",
    ),
    (
        "goal.mutants",
        "off",
        "the mutation check of `goal done`: off, report or gate; written into GOAL.md (`mutants:`) at `goal init`, where it decides",
    ),
    (
        "goal.mutantsMin",
        "0.8",
        "the lowest mutation score `gate` accepts (0 to 1); written into GOAL.md (`mutants_min:`) at `goal init`, where it decides",
    ),
    (
        "goal.pinTimeout",
        "900",
        "seconds each run of a pin may take (verify, red, base, clean green, recheck, audit --rerun; a mutation check as a whole gets it once per pin and once more, each mutant its tool's own timeout of it) before it is cut off, every process of it killed; GOAL.md's `pin_timeout:` decides over it",
    ),
    (
        "goal.pinMemory",
        "(75 % of this machine's memory)",
        "MiB each run of a pin may use over its whole process tree (a cgroup's count where goal can make one, else the sum of proportional set sizes) before it is cut off; GOAL.md's `pin_memory:` decides over it",
    ),
    (
        "goal.bin",
        "(set by `goal hooks install`)",
        "the goal binary the hook shims of a tracked hooks folder run (else `goal` on PATH)",
    ),
];

pub const DEFAULT_KEYWORDS: &[&str] = &[
    "found",
    "fixed",
    "implemented",
    "added",
    "refactored",
    "verified",
    "发现",
    "修复",
    "实现",
    "添加",
    "重构",
    "验证",
];

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub stagnation_window: usize,
    pub escalate_after: usize,
    pub progress_keywords: Vec<String>,
    pub backoff_initial: u64,
    pub backoff_factor: u64,
    pub backoff_max: u64,
    pub max_retries: u32,
    pub notify: Option<String>,
    pub deslop: Vec<String>,
    pub stop_blocks: u32,
    pub lock_timeout_ms: u64,
    pub language: Language,
    /// Whether `goal.language` is set (else the prompt of `goal run` follows the goal's text).
    pub language_set: bool,
    /// `goal.pinTimeout` (seconds) and `goal.pinMemory` (MiB), when set.
    pub pin_timeout: Option<u64>,
    pub pin_memory: Option<u64>,
}

impl Config {
    /// The language of `goal run`'s prompt: `goal.language` when set, else the goal text's own
    /// (Chinese when it has Han or kana characters, English otherwise).
    pub fn prompt_language(&self, goal_text: &str) -> Language {
        if self.language_set {
            self.language
        } else if goal_text.chars().any(crate::detect::is_cjk) {
            Language::Zh
        } else {
            Language::En
        }
    }
}

/// The language of the continuation text (`goal.language`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Language {
    #[default]
    Zh,
    En,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            stagnation_window: 3,
            escalate_after: 2,
            progress_keywords: DEFAULT_KEYWORDS.iter().map(|s| s.to_string()).collect(),
            backoff_initial: 30,
            backoff_factor: 2,
            backoff_max: 300,
            max_retries: 10,
            notify: None,
            deslop: Vec::new(),
            stop_blocks: 3,
            lock_timeout_ms: 10_000,
            language: Language::Zh,
            language_set: false,
            pin_timeout: None,
            pin_memory: None,
        }
    }
}

fn number<T>(repo: &Repo, key: &str, default: T, min: T) -> Result<T>
where
    T: std::str::FromStr + PartialOrd + Copy + std::fmt::Display,
{
    let Some(text) = repo.config_string(key) else {
        return Ok(default);
    };
    match text.trim().parse::<T>() {
        Ok(v) if v >= min => Ok(v),
        _ => Err(Error::usage(
            format!("git config {key} is `{text}`: expected a whole number ≥ {min}"),
            format!(
                "fix it with `git config {key} {default}` (or remove it with `git config --unset {key}`)"
            ),
        )),
    }
}

/// A bound of the pins' runs set in git config: a whole number ≥ 1 of `unit`, or unset.
fn bound(repo: &Repo, key: &str, unit: &str) -> Result<Option<u64>> {
    let Some(text) = repo.config_string(key).filter(|t| !t.trim().is_empty()) else {
        return Ok(None);
    };
    match crate::goal_file::settings::parse_bound(&text) {
        Some(v) => Ok(Some(v)),
        None => Err(Error::usage(
            format!("git config {key} is `{text}`: expected a whole number ≥ 1 ({unit})"),
            format!(
                "fix it with `git config {key} <{unit}>` (or remove it with `git config --unset {key}`)"
            ),
        )),
    }
}

/// A bound of the pins' runs in force: its value and where it comes from (`GOAL.md`, `git
/// config` or `default`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinBound {
    pub value: u64,
    pub source: &'static str,
}

impl Config {
    /// The time bound of a pin's run, in seconds: GOAL.md's `pin_timeout:`, else
    /// `goal.pinTimeout`, else 900.
    pub fn pin_timeout(&self, goal: Option<&crate::goal_file::Settings>) -> PinBound {
        pick(
            goal.and_then(|s| s.pin_timeout),
            self.pin_timeout,
            crate::child::DEFAULT_TIMEOUT_SECS,
        )
    }

    /// The memory bound of a pin's run, in MiB: GOAL.md's `pin_memory:`, else `goal.pinMemory`,
    /// else 75 % of this machine's memory.
    pub fn pin_memory(&self, goal: Option<&crate::goal_file::Settings>) -> PinBound {
        pick(
            goal.and_then(|s| s.pin_memory),
            self.pin_memory,
            crate::child::default_memory() / (1024 * 1024),
        )
    }

    /// Both bounds of a pin's run.
    pub fn pin_bounds(&self, goal: Option<&crate::goal_file::Settings>) -> crate::child::Bounds {
        crate::child::Bounds {
            timeout: std::time::Duration::from_secs(self.pin_timeout(goal).value),
            memory: self.pin_memory(goal).value.saturating_mul(1024 * 1024),
        }
    }
}

fn pick(goal: Option<u64>, git: Option<u64>, default: u64) -> PinBound {
    match (goal, git) {
        (Some(value), _) => PinBound {
            value,
            source: "GOAL.md",
        },
        (None, Some(value)) => PinBound {
            value,
            source: "git config",
        },
        (None, None) => PinBound {
            value: default,
            source: "default",
        },
    }
}

impl Config {
    /// How many recent iterations stagnation looks at (their Progress Log entries included).
    pub fn log_window(&self) -> u64 {
        (self.stagnation_window + self.escalate_after + 1) as u64
    }

    /// Read every `goal.*` key; a malformed value is a usage error that names the key.
    pub fn load(repo: &Repo) -> Result<Config> {
        let d = Config::default();
        let keywords: Vec<String> = repo
            .config_multi("goal.progressKeywords")
            .iter()
            .flat_map(|v| {
                v.split([',', ' '])
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        Ok(Config {
            stagnation_window: number(repo, "goal.stagnationWindow", d.stagnation_window, 1)?,
            escalate_after: number(repo, "goal.escalateAfter", d.escalate_after, 0)?,
            progress_keywords: if keywords.is_empty() {
                d.progress_keywords
            } else {
                keywords
            },
            backoff_initial: number(repo, "goal.backoffInitial", d.backoff_initial, 0)?,
            backoff_factor: number(repo, "goal.backoffFactor", d.backoff_factor, 1)?,
            backoff_max: number(repo, "goal.backoffMax", d.backoff_max, 0)?,
            max_retries: number(repo, "goal.maxRetries", d.max_retries, 1)?,
            notify: repo
                .config_string("goal.notify")
                .filter(|s| !s.trim().is_empty()),
            deslop: repo.config_multi("goal.deslop"),
            stop_blocks: number(repo, "goal.stopBlocks", d.stop_blocks, 0)?,
            lock_timeout_ms: number(repo, "goal.lockTimeout", d.lock_timeout_ms, 0)?,
            pin_timeout: bound(repo, "goal.pinTimeout", "seconds")?,
            pin_memory: bound(repo, "goal.pinMemory", "MiB")?,
            language_set: repo
                .config_string("goal.language")
                .is_some_and(|v| !v.trim().is_empty()),
            language: match repo
                .config_string("goal.language")
                .as_deref()
                .map(str::trim)
            {
                None | Some("") => d.language,
                Some(v) if v.eq_ignore_ascii_case("zh") => Language::Zh,
                Some(v) if v.eq_ignore_ascii_case("en") => Language::En,
                Some(v) => {
                    return Err(Error::usage(
                        format!("git config goal.language is `{v}`: expected zh or en"),
                        "fix it with `git config goal.language en` (or remove it with `git config --unset goal.language`)",
                    ));
                }
            },
        })
    }
}

/// The git config keys of the settings that judge a goal, each with its GOAL.md key. They are
/// read once, at `goal init`, into GOAL.md's frontmatter; GOAL.md's values decide from then on.
pub const GOAL_SETTING_KEYS: [(&str, &str); 4] = [
    ("goal.tests", "tests"),
    ("goal.testsOnly", "tests_only"),
    ("goal.mutants", "mutants"),
    ("goal.mutantsMin", "mutants_min"),
];

/// The value git config gives each setting key that is set (any scope), as written
/// (`goal.tests` values joined by ", ").
pub fn goal_setting_values(repo: &Repo) -> Vec<(&'static str, String)> {
    GOAL_SETTING_KEYS
        .iter()
        .filter_map(|(key, _)| {
            let values = repo.config_multi(key);
            (!values.is_empty()).then(|| (*key, values.join(", ")))
        })
        .collect()
}

/// The settings git config sets, for a new goal's GOAL.md; a bad value is a usage error naming
/// its key (nothing is written).
pub fn goal_settings(repo: &Repo) -> Result<crate::goal_file::Settings> {
    use crate::goal_file::settings::{Mutants, parse_bool, parse_min};
    let mut s = crate::goal_file::Settings {
        tests: repo
            .config_multi("goal.tests")
            .into_iter()
            .filter(|g| !g.trim().is_empty())
            .collect(),
        ..Default::default()
    };
    let bad = |key: &str, value: &str, expected: &str| {
        Error::usage(
            format!("git config {key} is `{value}`: expected {expected}"),
            format!(
                "fix it with `git config {key} <value>` (or remove it with `git config --unset {key}`)"
            ),
        )
    };
    if let Some(v) = repo.config_string("goal.testsOnly") {
        s.tests_only = parse_bool(&v).ok_or_else(|| bad("goal.testsOnly", &v, "true or false"))?;
    }
    if let Some(v) = repo
        .config_string("goal.mutants")
        .filter(|v| !v.trim().is_empty())
    {
        s.mutants =
            Mutants::parse(&v).ok_or_else(|| bad("goal.mutants", &v, "off, report or gate"))?;
    }
    if let Some(v) = repo
        .config_string("goal.mutantsMin")
        .filter(|v| !v.trim().is_empty())
    {
        s.mutants_min =
            parse_min(&v).map_err(|_| bad("goal.mutantsMin", &v, "a number from 0 to 1"))?;
    }
    Ok(s)
}

/// The setting keys whose git config value disagrees with the goal's `settings` (GOAL.md's):
/// (git key, GOAL.md key, git's value, GOAL.md's value).
pub fn disagreeing(
    values: &[(&'static str, String)],
    settings: &crate::goal_file::Settings,
) -> Vec<(&'static str, &'static str, String, String)> {
    use crate::goal_file::settings::{Mutants, parse_bool, parse_min};
    values
        .iter()
        .filter_map(|(key, value)| {
            let (agrees, ours, name) = match *key {
                "goal.tests" => {
                    let given: Vec<&str> = value.split(", ").collect();
                    (
                        given
                            == settings
                                .tests
                                .iter()
                                .map(String::as_str)
                                .collect::<Vec<_>>(),
                        settings.tests.join(", "),
                        "tests",
                    )
                }
                "goal.testsOnly" => (
                    parse_bool(value) == Some(settings.tests_only),
                    settings.tests_only.to_string(),
                    "tests_only",
                ),
                "goal.mutants" => (
                    Mutants::parse(value) == Some(settings.mutants),
                    settings.mutants.as_str().to_string(),
                    "mutants",
                ),
                _ => (
                    parse_min(value).ok() == Some(settings.mutants_min),
                    settings.mutants_min.to_string(),
                    "mutants_min",
                ),
            };
            let ours = if ours.is_empty() {
                "(none)".to_string()
            } else {
                ours
            };
            (!agrees).then(|| (*key, name, value.clone(), ours))
        })
        .collect()
}
