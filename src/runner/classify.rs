//! The classifier of a turn's end: an agent preset's patterns (or all of them, for a custom
//! command) over its exit code and output, to a verdict (ok, failed, usage limit with its reset
//! time, hard failure); and the agent's last message. Pure.

use std::sync::OnceLock;

use regex::Regex;

use super::presets::{NETWORK, NOTE_LEVEL, PRESETS, Preset};
use crate::usage;

/// What a turn's exit code and output say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnVerdict {
    /// The turn ended normally.
    Ok,
    /// A failed turn: retried with backoff. The text says why.
    Failed(String),
    /// A usage limit; `resets_at_ms`: when it resets (Unix ms), if the output says.
    UsageLimit {
        resets_at_ms: Option<u64>,
        why: String,
    },
    /// Auth or configuration failure: stop at once.
    Hard(String),
}

/// The compiled patterns of one preset, or of all of them (a custom command).
#[derive(Clone)]
pub struct Patterns {
    ok_exits: Vec<i32>,
    hard_exits: Vec<i32>,
    auth: Vec<Regex>,
    usage_limit: Vec<Regex>,
    transient: Vec<Regex>,
    failed_on_success: Vec<Regex>,
    recovered: Vec<Regex>,
    wraps: bool,
    in_turn_wait: Vec<Regex>,
}

fn compile(sources: &[&str]) -> Vec<Regex> {
    sources
        .iter()
        .filter_map(|s| Regex::new(&format!("(?i){s}")).ok())
        .collect()
}

impl Patterns {
    pub fn of(preset: &Preset) -> Patterns {
        let mut transient = preset.transient.to_vec();
        transient.extend_from_slice(NETWORK);
        Patterns {
            ok_exits: preset.ok_exits.to_vec(),
            hard_exits: preset.hard_exits.to_vec(),
            auth: compile(preset.auth),
            usage_limit: compile(preset.usage_limit),
            transient: compile(&transient),
            failed_on_success: compile(preset.failed_on_success),
            recovered: compile(preset.recovered),
            wraps: preset.wraps,
            in_turn_wait: compile(preset.in_turn_wait),
        }
    }

    /// Every preset's patterns (for a `-- CMD` agent); exit codes keep their usual meaning.
    /// Compiled once a process (some hundred expressions): each caller gets a copy.
    pub fn all() -> Patterns {
        static ALL: std::sync::LazyLock<Patterns> = std::sync::LazyLock::new(Patterns::compile_all);
        ALL.clone()
    }

    fn compile_all() -> Patterns {
        let gather = |f: fn(&Preset) -> &'static [&'static str]| -> Vec<&'static str> {
            PRESETS.iter().flat_map(f).copied().collect()
        };
        let mut transient = gather(|p| p.transient);
        transient.extend_from_slice(NETWORK);
        Patterns {
            ok_exits: Vec::new(),
            hard_exits: Vec::new(),
            auth: compile(&gather(|p| p.auth)),
            usage_limit: compile(&gather(|p| p.usage_limit)),
            transient: compile(&transient),
            failed_on_success: compile(&gather(|p| p.failed_on_success)),
            recovered: Vec::new(),
            wraps: false,
            in_turn_wait: compile(&gather(|p| p.in_turn_wait)),
        }
    }

    /// Judge a turn by its exit code and output. `now_ms`: Unix ms, for "resets in 5h".
    pub fn classify(&self, exit_code: i32, output: &str, now_ms: u64) -> TurnVerdict {
        let tail = tail_lines(output, 200);
        let joined;
        let tail = if self.wraps {
            joined = crate::usage::unwrap_lines(tail);
            joined.as_str()
        } else {
            tail
        };
        let found = |set: &[Regex], text: &str| {
            set.iter()
                .find_map(|r| r.find(text).map(|m| m.as_str().to_string()))
        };
        if exit_code == 0 || self.ok_exits.contains(&exit_code) {
            // What the CLI printed after it last went on from a failure of its own.
            let after = self
                .recovered
                .iter()
                .filter_map(|r| r.find_iter(tail).last().map(|m| m.end()))
                .max()
                .map_or(tail, |end| &tail[end..]);
            return match found(&self.failed_on_success, after) {
                None => TurnVerdict::Ok,
                Some(_) => self.failure(
                    exit_code,
                    after,
                    now_ms,
                    found(&self.transient, after).as_deref(),
                ),
            };
        }
        if self.hard_exits.contains(&exit_code) {
            let what = found(&self.auth, tail).map_or(String::new(), |m| format!(": {}", clip(&m)));
            return TurnVerdict::Hard(format!(
                "the agent exited {exit_code} (bad input or configuration){what}"
            ));
        }
        self.failure(
            exit_code,
            tail,
            now_ms,
            found(&self.transient, tail).as_deref(),
        )
    }

    /// What an idle timeout means: a CLI that printed it would sleep inside the turn (opencode
    /// waiting out a `retry-after`) is waiting for a limit to lift — a usage limit, with its reset
    /// time when the output names one — not a failed try. None: an idle timeout like any other.
    pub fn idle(&self, output: &str, now_ms: u64) -> Option<TurnVerdict> {
        // The last line that is not a log line of no weight (opencode's INFO lines of its own
        // start-up tasks may come after the error).
        let last = output
            .lines()
            .rev()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .find(|l| !(l.starts_with("timestamp=") && NOTE_LEVEL.iter().any(|n| l.contains(n))))?;
        if !self.in_turn_wait.iter().any(|r| r.is_match(last)) {
            return None;
        }
        let tail = tail_lines(output, 200);
        Some(TurnVerdict::UsageLimit {
            resets_at_ms: reset_time(tail, now_ms).or_else(|| regain_access(tail)),
            why: format!(
                "usage limit: the agent went quiet waiting inside its turn after an API error ({})",
                clip(last)
            ),
        })
    }

    fn failure(
        &self,
        exit_code: i32,
        tail: &str,
        now_ms: u64,
        transient: Option<&str>,
    ) -> TurnVerdict {
        let found = |set: &[Regex]| set.iter().find_map(|r| r.find(tail).map(|m| m.as_str()));
        if let Some(m) = found(&self.auth) {
            return TurnVerdict::Hard(format!("auth or configuration failure: {}", clip(m)));
        }
        if let Some(m) = found(&self.usage_limit) {
            return TurnVerdict::UsageLimit {
                resets_at_ms: reset_time(tail, now_ms).or_else(|| regain_access(tail)),
                why: format!("usage limit: {}", clip(m)),
            };
        }
        TurnVerdict::Failed(match transient {
            Some(m) => format!("transient error (exit {exit_code}): {}", clip(m)),
            None => format!("the agent exited {exit_code}"),
        })
    }
}

fn clip(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Anthropic's spend-limit day, as opencode prints it: `You will regain access on 2026-12-02 at
/// 00:00 UTC.` → that moment (Unix ms). Only this form; every other is [`reset_time`]'s.
pub fn regain_access(text: &str) -> Option<u64> {
    static REGAIN: OnceLock<Option<Regex>> = OnceLock::new();
    let regain = regex(
        &REGAIN,
        r"(?i)regain access on (\d{4}-\d\d-\d\d) at (\d\d:\d\d) (UTC|[A-Za-z_]+/[A-Za-z_]+)",
    )?;
    let c = regain.captures_iter(text).last()?;
    let at =
        chrono::NaiveDateTime::parse_from_str(&format!("{}T{}", &c[1], &c[2]), "%Y-%m-%dT%H:%M")
            .ok()?;
    let zone: chrono_tz::Tz = c[3].parse().ok()?;
    let ms = at.and_local_timezone(zone).earliest()?.timestamp_millis();
    u64::try_from(ms).ok()
}

/// The last `n` lines of `text`.
fn tail_lines(text: &str, n: usize) -> &str {
    let bytes = text.as_bytes();
    let mut seen = 0;
    for (i, b) in bytes.iter().enumerate().rev() {
        if *b == b'\n' && i + 1 < bytes.len() {
            seen += 1;
            if seen == n {
                return &text[i + 1..];
            }
        }
    }
    text
}

pub use super::reset::reset_time;

/// A regex compiled once; None only if the source (a constant here) does not compile.
fn regex(cell: &'static OnceLock<Option<Regex>>, source: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(source).ok()).as_ref()
}

/// A log line of a CLI's own (`timestamp=… level=…`, opencode's `--print-logs`): not what the
/// agent said.
fn is_log_line(line: &str) -> bool {
    line.starts_with("timestamp=") && line.contains(" level=")
}

/// The agent's last message, from its output in any preset's format: the `result` of a final
/// result event (Claude, Cursor), Codex's last `agent_message`, Gemini's `response`, Pi's last
/// assistant text, opencode's last text part; else the last non-empty line.
pub fn last_message(output: &str) -> Option<String> {
    // JSON events a line, or one document over several lines after warning lines (Gemini).
    let (values, last_plain) = usage::scan(output);
    // The last plain line, or, when that is a log line of the CLI's own, the last before it
    // that is neither JSON nor a log line.
    let last_plain = match last_plain {
        Some(line) if !is_log_line(line.trim()) => Some(line.to_string()),
        None => None,
        Some(_) => output
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('{') && !is_log_line(l))
            .map(str::to_string),
    };
    values
        .iter()
        .rev()
        .find_map(message_of)
        .or_else(|| aider_reply(output))
        .or(last_plain)
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// aider's last answer: the lines before its last `Tokens: … sent, … received.` line, back to the
/// line of its own before them (its banner, an applied edit, a test-fix question, a retry).
fn aider_reply(output: &str) -> Option<String> {
    const OWN: &[&str] = &[
        "Tokens: ",
        "Applied edit to ",
        "Repo-map: ",
        "Git repo: ",
        "Model: ",
        "Aider v",
        "Attempt to fix",
        "Added ",
        "Retrying in ",
    ];
    let lines: Vec<&str> = output.lines().collect();
    let tokens = lines.iter().rposition(|l| {
        l.starts_with("Tokens: ") && l.contains(" sent, ") && l.contains(" received.")
    })?;
    let start = lines[..tokens]
        .iter()
        .rposition(|l| OWN.iter().any(|o| l.starts_with(o)))
        .map_or(0, |i| i + 1);
    // A file the prompt names, which aider offers to add to the chat, is printed first.
    let start = start
        + lines[start..tokens]
            .iter()
            .take_while(|l| {
                let l = l.trim();
                l.is_empty() || (l.contains('/') && !l.contains(char::is_whitespace))
            })
            .count();
    let reply = lines[start..tokens].join("\n");
    let reply = reply.trim();
    (!reply.is_empty()).then(|| reply.to_string())
}

fn message_of(v: &serde_json::Value) -> Option<String> {
    let s = |x: &serde_json::Value| {
        x.as_str()
            .map(str::to_string)
            .filter(|t| !t.trim().is_empty())
    };
    let text_blocks = |content: &serde_json::Value| -> Option<String> {
        let text: Vec<&str> = content
            .as_array()?
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        (!text.is_empty()).then(|| text.join("\n"))
    };
    match v["type"].as_str() {
        Some("result") => s(&v["result"]),
        Some("assistant") => text_blocks(&v["message"]["content"]),
        Some("item.completed") if v["item"]["type"] == "agent_message" => s(&v["item"]["text"]),
        Some("message_end") | Some("turn_end") if v["message"]["role"] == "assistant" => {
            text_blocks(&v["message"]["content"])
        }
        Some("agent_end") => v["messages"]
            .as_array()?
            .iter()
            .rev()
            .find(|m| m["role"] == "assistant")
            .and_then(|m| text_blocks(&m["content"])),
        Some("text") => s(&v["part"]["text"]),
        None => s(&v["response"]),
        _ => None,
    }
}

#[cfg(test)]
#[path = "classify_tests.rs"]
mod tests;
