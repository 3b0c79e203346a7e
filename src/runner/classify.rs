//! The classifier of a turn's end: an agent preset's patterns (or all of them, for a custom
//! command) over its exit code and output, to a verdict (ok, failed, usage limit with its reset
//! time, hard failure); and the agent's last message. Pure.

use regex::Regex;
use std::sync::OnceLock;

use super::presets::{NETWORK, PRESETS, Preset};

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
            return Verdict::Hard(format!(
                "the agent exited {exit_code} (bad input or configuration)"
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

/// A regex compiled once; None only if the source (a constant here) does not compile.
fn regex(cell: &'static OnceLock<Option<Regex>>, source: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(source).ok()).as_ref()
}

/// When a usage limit resets, as Unix ms, from what the agent printed: Claude's
/// `rate_limit_event` `resetsAt` (Unix seconds), the older `usage limit reached|<unix seconds>`,
/// an RFC 3339 time after "reset(s) at", or a duration after "reset(s) in/after", "try again in"
/// or "retry in" (`5h`, `2 hours 30 minutes`, `44.5s`).
pub fn reset_time(output: &str, now_ms: u64) -> Option<u64> {
    static RESETS_AT: OnceLock<Option<Regex>> = OnceLock::new();
    static PIPE: OnceLock<Option<Regex>> = OnceLock::new();
    static ISO: OnceLock<Option<Regex>> = OnceLock::new();
    static IN: OnceLock<Option<Regex>> = OnceLock::new();
    let seconds_to_ms = |s: &str| s.parse::<u64>().ok().map(|s| s.saturating_mul(1000));
    // The last rejected rate_limit_event wins.
    let mut found = None;
    for line in output.lines().filter(|l| l.contains("rate_limit_event")) {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(line) {
            let info = &value["rate_limit_info"];
            if info["status"] == "rejected"
                && let Some(at) = info["resetsAt"].as_u64()
            {
                found = Some(at.saturating_mul(1000));
            }
        }
    }
    if found.is_some() {
        return found;
    }
    let resets_at = regex(&RESETS_AT, r#"(?i)"resetsAt"\s*:\s*(\d{9,})"#)?;
    if let Some(c) = resets_at.captures_iter(output).last() {
        return seconds_to_ms(&c[1]);
    }
    let pipe = regex(&PIPE, r"(?i)usage limit reached\|(\d{9,})")?;
    if let Some(c) = pipe.captures_iter(output).last() {
        return seconds_to_ms(&c[1]);
    }
    let iso = regex(
        &ISO,
        r"(?i)resets?\s+at\s+(\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?(Z|[+-]\d\d:\d\d))",
    )?;
    if let Some(c) = iso.captures_iter(output).last()
        && let Ok(t) = chrono::DateTime::parse_from_rfc3339(&c[1])
    {
        return u64::try_from(t.timestamp_millis()).ok();
    }
    if let Some(at) = clock_reset(output, now_ms) {
        return Some(at);
    }
    let within = regex(
        &IN,
        r"(?i)(?:resets?\s+(?:in|after)|try again in|retry in|retry after)\s+((?:\d+(?:\.\d+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,and]*)+)",
    )?;
    if let Some(c) = within.captures_iter(output).last() {
        return duration_ms(&c[1]).map(|d| now_ms.saturating_add(d));
    }
    None
}

/// A reset given as a wall-clock time in a named zone — `resets 7pm (UTC)`, `will reset at 3pm
/// (Europe/London)`, `resets 14:30 (Asia/Shanghai)` — as the next such moment after `now_ms`.
fn clock_reset(output: &str, now_ms: u64) -> Option<u64> {
    static CLOCK: OnceLock<Option<Regex>> = OnceLock::new();
    let clock = regex(
        &CLOCK,
        r"(?i)resets?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*\(([A-Za-z_+\-/0-9]+)\)",
    )?;
    let c = clock.captures_iter(output).last()?;
    let mut hour: i8 = c[1].parse().ok()?;
    let minute: i8 = c.get(2).map_or(Some(0), |m| m.as_str().parse().ok())?;
    match c.get(3).map(|m| m.as_str().to_ascii_lowercase()).as_deref() {
        Some("pm") if hour < 12 => hour += 12,
        Some("am") if hour == 12 => hour = 0,
        _ => {}
    }
    if hour > 23 || minute > 59 {
        return None;
    }
    // The zone's rules come from the system's time zone database.
    let tz = jiff::tz::TimeZone::get(&c[4]).ok()?;
    let now = jiff::Timestamp::from_millisecond(i64::try_from(now_ms).ok()?)
        .ok()?
        .to_zoned_datetime(tz.clone());
    let today = now.date();
    let mut at = today
        .at(hour, minute, 0, 0)
        .to_zoned_datetime(tz.clone())
        .ok()?;
    if at.timestamp() <= now.timestamp() {
        at = today
            .tomorrow()
            .ok()?
            .at(hour, minute, 0, 0)
            .to_zoned_datetime(tz)
            .ok()?;
    }
    u64::try_from(at.timestamp().as_millisecond()).ok()
}

/// `2 hours 30 minutes`, `5h`, `44.5s`, `1d 2h` → ms.
fn duration_ms(text: &str) -> Option<u64> {
    static PART: OnceLock<Option<Regex>> = OnceLock::new();
    let part = regex(
        &PART,
        r"(?i)(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b",
    )?;
    let mut total = 0.0;
    let mut any = false;
    for c in part.captures_iter(text) {
        let n: f64 = c[1].parse().ok()?;
        let unit = c[2].to_ascii_lowercase();
        let seconds = match unit.chars().next() {
            Some('d') => 86_400.0,
            Some('h') => 3_600.0,
            Some('m') => 60.0,
            _ => 1.0,
        };
        total += n * seconds;
        any = true;
    }
    any.then(|| (total * 1000.0).ceil() as u64)
}

/// The agent's last message, from its output in any preset's format: the `result` of a final
/// result event (Claude, Cursor), Codex's last `agent_message`, Gemini's `response`, Pi's last
/// assistant text, opencode's last text part; else the last non-empty line.
pub fn last_message(output: &str) -> Option<String> {
    let mut last = None;
    let mut last_plain = None;
    for line in output.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if line.starts_with('{')
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
        {
            if let Some(text) = message_of(&v) {
                last = Some(text);
            }
            continue;
        }
        last_plain = Some(line.to_string());
    }
    if last.is_none() && output.trim_start().starts_with('{') {
        // One JSON document over several lines (Gemini's --output-format json).
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(output.trim()) {
            last = message_of(&v);
        }
    }
    last.or(last_plain)
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
