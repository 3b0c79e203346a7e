//! The classifier of a turn's end: an agent preset's patterns (or all of them, for a custom
//! command) over its exit code and output, to a verdict (ok, failed, usage limit with its reset
//! time, hard failure); and the agent's last message. Pure.

use regex::Regex;

use super::presets::{NETWORK, PRESETS, Preset};
use super::usage;

/// What a turn's exit code and output say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
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
pub struct Patterns {
    ok_exits: Vec<i32>,
    hard_exits: Vec<i32>,
    auth: Vec<Regex>,
    usage_limit: Vec<Regex>,
    transient: Vec<Regex>,
    failed_on_success: Vec<Regex>,
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
        }
    }

    /// Every preset's patterns (for a `-- CMD` agent); exit codes keep their usual meaning.
    pub fn all() -> Patterns {
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
        }
    }

    /// Judge a turn by its exit code and output. `now_ms`: Unix ms, for "resets in 5h".
    pub fn classify(&self, exit_code: i32, output: &str, now_ms: u64) -> Verdict {
        let tail = tail_lines(output, 200);
        let found = |set: &[Regex]| set.iter().find_map(|r| r.find(tail).map(|m| m.as_str()));
        if exit_code == 0 || self.ok_exits.contains(&exit_code) {
            return match found(&self.failed_on_success) {
                None => Verdict::Ok,
                Some(_) => self.failure(exit_code, tail, now_ms, found(&self.transient)),
            };
        }
        if self.hard_exits.contains(&exit_code) {
            let what = found(&self.auth).map_or(String::new(), |m| format!(": {}", clip(m)));
            return Verdict::Hard(format!(
                "the agent exited {exit_code} (bad input or configuration){what}"
            ));
        }
        self.failure(exit_code, tail, now_ms, found(&self.transient))
    }

    fn failure(&self, exit_code: i32, tail: &str, now_ms: u64, transient: Option<&str>) -> Verdict {
        let found = |set: &[Regex]| set.iter().find_map(|r| r.find(tail).map(|m| m.as_str()));
        if let Some(m) = found(&self.auth) {
            return Verdict::Hard(format!("auth or configuration failure: {}", clip(m)));
        }
        if let Some(m) = found(&self.usage_limit) {
            return Verdict::UsageLimit {
                resets_at_ms: reset_time(tail, now_ms),
                why: format!("usage limit: {}", clip(m)),
            };
        }
        Verdict::Failed(match transient {
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

/// The agent's last message, from its output in any preset's format: the `result` of a final
/// result event (Claude, Cursor), Codex's last `agent_message`, Gemini's `response`, Pi's last
/// assistant text, opencode's last text part; else the last non-empty line.
pub fn last_message(output: &str) -> Option<String> {
    // JSON events a line, or one document over several lines after warning lines (Gemini).
    let (values, last_plain) = usage::scan(output);
    values
        .iter()
        .rev()
        .find_map(message_of)
        .or(last_plain.map(str::to_string))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
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
