//! Settings: git config keys under `goal.`, with the seeds' values as defaults.

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
        "(the built-in test paths)",
        "more paths of the test surface, as globs (multi-valued); added to the built-in ones",
    ),
    (
        "goal.testsOnly",
        "false",
        "true: the test surface is goal.tests alone, without the built-in paths",
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
