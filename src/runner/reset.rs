//! When a usage limit resets, read from what an agent CLI printed, in every form the CLIs use:
//! Unix seconds in a JSON field (Claude's `resetsAt`), an absolute time with a zone (RFC 3339,
//! "on 2026-12-02 at 00:00 UTC", "resets 7pm (Europe/London)"), a date and time in the machine's
//! zone ("Try again at Dec 2nd, 2026 9:28 AM."), a bare clock time in the machine's zone ("try
//! again at 10:32 AM": the next such moment), or a duration ("Please retry in 3600s", "reset in 2
//! hours", a `retry-after` header). Pure: the caller passes now and the local zone.

use chrono::{DateTime, FixedOffset, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use regex::Regex;
use std::sync::OnceLock;

/// A moment.
type Timestamp = DateTime<Utc>;

/// A zone a time is read in: the machine's (`TZ` honoured), a fixed offset, or a named one.
#[derive(Debug, Clone)]
pub enum TimeZone {
    System,
    Fixed(FixedOffset),
    Named(chrono_tz::Tz),
}

impl TimeZone {
    pub const UTC: TimeZone = TimeZone::Named(chrono_tz::UTC);

    /// The machine's zone.
    pub fn system() -> TimeZone {
        TimeZone::System
    }

    /// An IANA zone by name (`Europe/London`, `UTC`).
    pub fn get(name: &str) -> Option<TimeZone> {
        name.parse::<chrono_tz::Tz>().ok().map(TimeZone::Named)
    }

    /// The moment the zone's clock reads `at`: in a gap (clocks put forward) the moment an hour
    /// later, when it reads twice (clocks put back) the earlier.
    fn moment(&self, at: NaiveDateTime) -> Option<Timestamp> {
        fn pick<Tz: chrono::TimeZone>(zone: &Tz, at: NaiveDateTime) -> Option<Timestamp> {
            let first = |r: LocalResult<DateTime<Tz>>| r.earliest().map(|t| t.with_timezone(&Utc));
            first(zone.from_local_datetime(&at))
                .or_else(|| first(zone.from_local_datetime(&(at + chrono::Duration::hours(1)))))
        }
        match self {
            TimeZone::System => pick(&chrono::Local, at),
            TimeZone::Fixed(offset) => pick(offset, at),
            TimeZone::Named(tz) => pick(tz, at),
        }
    }

    /// The zone's calendar day at `now`.
    fn date_at(&self, now: Timestamp) -> NaiveDate {
        match self {
            TimeZone::System => now.with_timezone(&chrono::Local).date_naive(),
            TimeZone::Fixed(offset) => now.with_timezone(offset).date_naive(),
            TimeZone::Named(tz) => now.with_timezone(tz).date_naive(),
        }
    }
}

/// A regex compiled once; None only if the source (a constant here) does not compile.
fn regex(cell: &'static OnceLock<Option<Regex>>, source: &str) -> Option<&'static Regex> {
    cell.get_or_init(|| Regex::new(source).ok()).as_ref()
}

/// When a usage limit resets, as Unix ms, in the machine's zone (`TZ` honoured).
pub fn reset_time(output: &str, now_ms: u64) -> Option<u64> {
    reset_time_in(output, now_ms, &TimeZone::system())
}

/// [`reset_time`] with the local zone given: the first form found, most explicit first.
pub fn reset_time_in(output: &str, now_ms: u64, local: &TimeZone) -> Option<u64> {
    let now = DateTime::from_timestamp_millis(i64::try_from(now_ms).ok()?)?;
    let later = |ms: Option<i64>| ms_to_ts(now.timestamp_millis().saturating_add(ms?));
    let forms: [&dyn Fn() -> Option<Timestamp>; 8] = [
        &|| unix_field(output),
        &|| rfc3339(output),
        &|| day_and_time(output, local).map(|t| to_the_minute(t, now)),
        &|| month_day_time(output, local).map(|t| to_the_minute(t, now)),
        &|| clock_in_named_zone(output, now),
        &|| bare_clock(output, now, local),
        &|| later(in_words(output)),
        &|| later(retry_after_header(output)),
    ];
    forms
        .iter()
        .find_map(|f| f())
        .and_then(|t| u64::try_from(t.timestamp_millis()).ok())
}

fn ms_to_ts(ms: i64) -> Option<Timestamp> {
    DateTime::from_timestamp_millis(ms)
}

fn seconds(text: &str) -> Option<Timestamp> {
    DateTime::from_timestamp(text.parse().ok()?, 0)
}

/// Claude's `rate_limit_event` (the last rejected one), any `"resetsAt": <unix s>`, and the older
/// `usage limit reached|<unix s>`.
fn unix_field(output: &str) -> Option<Timestamp> {
    static RESETS_AT: OnceLock<Option<Regex>> = OnceLock::new();
    static PIPE: OnceLock<Option<Regex>> = OnceLock::new();
    let mut found = None;
    for line in output.lines().filter(|l| l.contains("rate_limit_event")) {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(line.trim()) {
            let info = &value["rate_limit_info"];
            if info["status"] == "rejected"
                && let Some(at) = info["resetsAt"].as_i64()
            {
                found = DateTime::from_timestamp(at, 0);
            }
        }
    }
    if found.is_some() {
        return found;
    }
    let resets_at = regex(&RESETS_AT, r#"(?i)"resets_?at"\s*:\s*(\d{9,})"#)?;
    if let Some(c) = resets_at.captures_iter(output).last() {
        return seconds(&c[1]);
    }
    let pipe = regex(&PIPE, r"(?i)usage limit reached\|(\d{9,})")?;
    pipe.captures_iter(output)
        .last()
        .and_then(|c| seconds(&c[1]))
}

/// `resets at 2027-01-15T09:00:00Z`, `try again at 2026-12-02T00:00:00+01:00`.
fn rfc3339(output: &str) -> Option<Timestamp> {
    static ISO: OnceLock<Option<Regex>> = OnceLock::new();
    let iso = regex(
        &ISO,
        r"(?i)(?:resets?|again|retry|access|available)\s+(?:at|on|after)\s+(\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d)?(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))",
    )?;
    let c = iso.captures_iter(output).last()?;
    let text = &c[1];
    // RFC 3339 wants seconds; a time printed to the minute has none.
    let zone_at = text.rfind(['Z', '+', '-']).filter(|&i| i > 10)?;
    let (clock, zone) = text.split_at(zone_at);
    let full = if clock.len() == 16 {
        format!("{clock}:00{zone}")
    } else {
        text.to_string()
    };
    DateTime::parse_from_rfc3339(&full)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// A zone written after a time: `UTC`, `GMT`, `Z`, `+02:00`, `-0500`, or an IANA name.
fn zone(text: Option<&str>, local: &TimeZone) -> Option<TimeZone> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Some(local.clone());
    };
    match text.to_ascii_uppercase().as_str() {
        "UTC" | "GMT" | "Z" => return Some(TimeZone::UTC),
        _ => {}
    }
    if let Some(sign) = text.strip_prefix(['+', '-']) {
        let digits: String = sign.chars().filter(char::is_ascii_digit).collect();
        let (h, m) = match digits.len() {
            2 => (digits.parse::<i32>().ok()?, 0),
            4 => (
                digits[..2].parse::<i32>().ok()?,
                digits[2..].parse::<i32>().ok()?,
            ),
            _ => return None,
        };
        let seconds = (h * 3600 + m * 60) * if text.starts_with('-') { -1 } else { 1 };
        return FixedOffset::east_opt(seconds).map(TimeZone::Fixed);
    }
    TimeZone::get(text)
}

/// `regain access on 2026-12-02 at 00:00 UTC`, `resets on 2026-12-02 14:30 Europe/Paris`,
/// `available on 2026-12-02` (midnight, the machine's zone when none is given).
fn day_and_time(output: &str, local: &TimeZone) -> Option<Timestamp> {
    static DAY: OnceLock<Option<Regex>> = OnceLock::new();
    let day = regex(
        &DAY,
        r"(?i)\bon\s+(\d{4}-\d\d-\d\d)(?:(?:\s+at\s+|\s+)(\d{1,2}):(\d\d)(?::(\d\d))?)?(?:\s*(UTC|GMT|Z\b|[+-]\d\d:?\d\d|[A-Za-z]+/[A-Za-z_]+(?:/[A-Za-z_]+)?))?",
    )?;
    let c = day.captures_iter(output).last()?;
    let date = NaiveDate::parse_from_str(&c[1], "%Y-%m-%d").ok()?;
    let number = |i: usize| c.get(i).map_or(Some(0), |m| m.as_str().parse::<u32>().ok());
    let time = NaiveTime::from_hms_opt(number(2)?, number(3)?, number(4)?)?;
    let tz = zone(c.get(5).map(|m| m.as_str()), local)?;
    tz.moment(date.and_time(time))
}

/// `Try again at Dec 2nd, 2026 9:28 AM.` (codex): a date and a clock time in the machine's zone.
fn month_day_time(output: &str, local: &TimeZone) -> Option<Timestamp> {
    static MDT: OnceLock<Option<Regex>> = OnceLock::new();
    let mdt = regex(
        &MDT,
        r"(?i)\b([A-Z][a-z]{2})[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4}),?\s+(?:at\s+)?(\d{1,2}:\d\d(?::\d\d)?\s*[AP]\.?M\.?)",
    )?;
    let c = mdt.captures_iter(output).last()?;
    let text = format!(
        "{} {} {} {}",
        &c[1],
        &c[2],
        &c[3],
        c[4].replace('.', "").to_ascii_uppercase().replace(' ', "")
    );
    let at = NaiveDateTime::parse_from_str(&text, "%b %d %Y %I:%M%p")
        .or_else(|_| NaiveDateTime::parse_from_str(&text, "%b %d %Y %I:%M:%S%p"))
        .ok()?;
    local.moment(at)
}

/// A clock time `10:32 AM`, `7pm`, `14:30` as (hour, minute) on a 24-hour clock.
fn clock(hour: &str, minute: Option<&str>, half: Option<&str>) -> Option<(u32, u32)> {
    let mut hour: u32 = hour.parse().ok()?;
    let minute: u32 = minute.map_or(Some(0), |m| m.parse().ok())?;
    match half
        .map(|h| h.replace('.', "").to_ascii_lowercase())
        .as_deref()
    {
        Some("pm") if (1..12).contains(&hour) => hour += 12,
        Some("am") if hour == 12 => hour = 0,
        Some(_) if !(1..=12).contains(&hour) => return None,
        _ => {}
    }
    (hour <= 23 && minute <= 59).then_some((hour, minute))
}

/// A time printed to the minute stands for that whole minute: when `now` is inside it, the
/// reset is the minute's end (never a day later, never already past).
fn to_the_minute(at: Timestamp, now: Timestamp) -> Timestamp {
    match at.checked_add_signed(chrono::Duration::seconds(60)) {
        Some(end) if at <= now && now < end => end,
        _ => at,
    }
}

/// The next moment, from `now` on, that the zone's clock reads `hour:minute` (this minute's end
/// when it reads that now).
fn next_clock(now: Timestamp, tz: TimeZone, hour: u32, minute: u32) -> Option<Timestamp> {
    let today = tz.date_at(now);
    let time = NaiveTime::from_hms_opt(hour, minute, 0)?;
    let on = |day: NaiveDate| tz.moment(day.and_time(time));
    let at = to_the_minute(on(today)?, now);
    if at > now {
        return Some(at);
    }
    on(today.succ_opt()?)
}

/// `resets 7pm (UTC)`, `will reset at 3pm (Europe/London)`, `resets 14:30 (Asia/Shanghai)`.
fn clock_in_named_zone(output: &str, now: Timestamp) -> Option<Timestamp> {
    static CLOCK: OnceLock<Option<Regex>> = OnceLock::new();
    let re = regex(
        &CLOCK,
        r"(?i)resets?\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*\(([A-Za-z_+\-/0-9]+)\)",
    )?;
    let c = re.captures_iter(output).last()?;
    let (hour, minute) = clock(
        &c[1],
        c.get(2).map(|m| m.as_str()),
        c.get(3).map(|m| m.as_str()),
    )?;
    let tz = TimeZone::get(&c[4])?;
    next_clock(now, tz, hour, minute)
}

/// `try again at 10:32 AM.` (codex): a clock time with no zone, in the machine's zone.
fn bare_clock(output: &str, now: Timestamp, local: &TimeZone) -> Option<Timestamp> {
    static BARE: OnceLock<Option<Regex>> = OnceLock::new();
    let re = regex(
        &BARE,
        r"(?i)(?:again|resets?|retry|available|access)\s+at\s+(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?(?:[^\w(]|$)",
    )?;
    let c = re
        .captures_iter(output)
        .filter(|c| c.get(2).is_some() || c.get(3).is_some())
        .last()?;
    let (hour, minute) = clock(
        &c[1],
        c.get(2).map(|m| m.as_str()),
        c.get(3).map(|m| m.as_str()),
    )?;
    next_clock(now, local.clone(), hour, minute)
}

/// A duration in words after "reset(s) in/after", "try again in", "retry in/after":
/// `5h`, `2 hours 30 minutes`, `44.5s`, `3600s`. In ms.
fn in_words(output: &str) -> Option<i64> {
    static IN: OnceLock<Option<Regex>> = OnceLock::new();
    let within = regex(
        &IN,
        r"(?i)(?:resets?\s+(?:in|after)|try again in|retry (?:in|after))\s+((?:\d+(?:\.\d+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,and]*)+)",
    )?;
    let c = within.captures_iter(output).last()?;
    duration_ms(&c[1])
}

/// `2 hours 30 minutes`, `5h`, `44.5s`, `1d 2h` → ms.
fn duration_ms(text: &str) -> Option<i64> {
    static PART: OnceLock<Option<Regex>> = OnceLock::new();
    let part = regex(
        &PART,
        r"(?i)(\d+(?:\.\d+)?)\s*(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b",
    )?;
    let mut total = 0.0;
    let mut any = false;
    for c in part.captures_iter(text) {
        let n: f64 = c[1].parse().ok()?;
        let unit = match c[2].to_ascii_lowercase().chars().next() {
            Some('d') => 86_400.0,
            Some('h') => 3_600.0,
            Some('m') => 60.0,
            _ => 1.0,
        };
        total += n * unit;
        any = true;
    }
    any.then(|| (total * 1000.0).ceil() as i64)
}

/// A `retry-after` (seconds) or `retry-after-ms` header, as a CLI prints its response headers
/// (`"retry-after":"120"`, `retry-after: 120`). In ms.
fn retry_after_header(output: &str) -> Option<i64> {
    static HEADER: OnceLock<Option<Regex>> = OnceLock::new();
    let re = regex(
        &HEADER,
        r#"(?i)"?retry-after(-ms)?"?\s*[:=]\s*"?(\d+(?:\.\d+)?)"?"#,
    )?;
    let c = re.captures_iter(output).last()?;
    let n: f64 = c[2].parse().ok()?;
    let ms = if c.get(1).is_some() { n } else { n * 1000.0 };
    Some(ms.ceil() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-12-01T10:00:00Z.
    const NOW: u64 = 1_796_119_200_000;
    const H: u64 = 3_600_000;
    const M: u64 = 60_000;

    fn at(text: &str) -> u64 {
        let t = DateTime::parse_from_rfc3339(text).unwrap();
        u64::try_from(t.timestamp_millis()).unwrap()
    }

    #[test]
    fn every_form_of_a_reset_time() {
        let tokyo = TimeZone::get("Asia/Tokyo").unwrap();
        let new_york = TimeZone::get("America/New_York").unwrap();
        let utc = TimeZone::UTC;
        // (text, local zone, reset)
        let cases: &[(&str, &TimeZone, Option<u64>)] = &[
            // Unix seconds (Claude Code).
            (
                r#"{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1796122800}}"#,
                &utc,
                Some(NOW + H),
            ),
            (
                "Claude AI usage limit reached|1796119242",
                &utc,
                Some(NOW + 42_000),
            ),
            (
                r#"{"error":{"type":"usage_limit_reached","resets_at":1796126400}}"#,
                &utc,
                Some(NOW + 2 * H),
            ),
            // Absolute with a zone.
            (
                "resets at 2026-12-01T12:30:00Z",
                &tokyo,
                Some(NOW + 2 * H + 30 * M),
            ),
            (
                "try again at 2026-12-01T12:30:00+01:00",
                &utc,
                Some(NOW + H + 30 * M),
            ),
            (
                "You have reached your specified API usage limits. You will regain access on 2026-12-02 at 00:00 UTC.",
                &tokyo,
                Some(at("2026-12-02T00:00:00Z")),
            ),
            (
                "regain access on 2026-12-02 at 09:00 Asia/Tokyo",
                &utc,
                Some(at("2026-12-02T00:00:00Z")),
            ),
            (
                "available again on 2026-12-03",
                &utc,
                Some(at("2026-12-03T00:00:00Z")),
            ),
            ("resets 7pm (UTC)", &tokyo, Some(NOW + 9 * H)),
            (
                "Your limit will reset at 3pm (Europe/London).",
                &tokyo,
                Some(NOW + 5 * H),
            ),
            ("resets 9am (UTC)", &utc, Some(NOW + 23 * H)),
            ("resets 12am (UTC)", &utc, Some(NOW + 14 * H)),
            (
                "resets 14:30 (Asia/Shanghai)",
                &utc,
                Some(NOW + 20 * H + 30 * M),
            ),
            // A date and time in the machine's zone (codex, no plan).
            (
                "You’ve hit your usage limit. Try again at Dec 2nd, 2026 9:28 AM.",
                &utc,
                Some(at("2026-12-02T09:28:00Z")),
            ),
            (
                "You’ve hit your usage limit. Try again at Dec 2nd, 2026 9:28 AM.",
                &tokyo,
                Some(at("2026-12-02T00:28:00Z")),
            ),
            (
                "Try again at January 1st, 2027 12:05 PM.",
                &utc,
                Some(at("2027-01-01T12:05:00Z")),
            ),
            // A bare clock time: the next such moment in the machine's zone (codex, paid plan).
            (
                "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 10:32 AM.",
                &utc,
                Some(NOW + 32 * M),
            ),
            ("or try again at 9:59 AM.", &utc, Some(NOW + 24 * H - M)),
            // 10:32 AM in Tokyo is 01:32Z: tomorrow's.
            (
                "or try again at 10:32 AM.",
                &tokyo,
                Some(at("2026-12-02T01:32:00Z")),
            ),
            (
                "try again at 7:15 PM",
                &tokyo,
                Some(at("2026-12-01T10:15:00Z")),
            ),
            ("try again at 23:00", &utc, Some(NOW + 13 * H)),
            // A clock time in a gap (New York puts its clocks forward at 2:00 on 2027-03-14):
            // the moment an hour later; read twice (back at 2:00 on 2026-11-01): the earlier.
            (
                "regain access on 2027-03-14 at 02:30 America/New_York",
                &utc,
                Some(at("2027-03-14T07:30:00Z")),
            ),
            (
                "available on 2026-11-01 at 01:30",
                &new_york,
                Some(at("2026-11-01T05:30:00Z")),
            ),
            // Durations.
            (
                "TerminalQuotaError: You exceeded your current quota. Please retry in 3600s.",
                &utc,
                Some(NOW + H),
            ),
            ("Suggested retry after 3600s.", &utc, Some(NOW + H)),
            ("Please retry in 44.5s.", &utc, Some(NOW + 44_500)),
            (
                "usage limit. Your quota will reset in 2 hours.",
                &utc,
                Some(NOW + 2 * H),
            ),
            ("quota will reset after 5h", &utc, Some(NOW + 5 * H)),
            (
                "try again in 2 hours 5 minutes.",
                &utc,
                Some(NOW + 2 * H + 5 * M),
            ),
            (
                r#""responseHeaders":{"retry-after":"120","content-length":"401"}"#,
                &utc,
                Some(NOW + 120_000),
            ),
            (
                r#""responseHeaders":{"retry-after-ms":"1500"}"#,
                &utc,
                Some(NOW + 1_500),
            ),
            ("retry-after: 30", &utc, Some(NOW + 30_000)),
            // None.
            ("usage limit reached", &utc, None),
            (
                "You have exhausted your daily quota on this model.",
                &utc,
                None,
            ),
            ("resets 7pm (Not/AZone)", &utc, None),
            ("resets 25pm (UTC)", &utc, None),
            ("try again at 13:75", &utc, None),
            ("listening at 10 items", &utc, None),
        ];
        for (text, local, want) in cases {
            assert_eq!(reset_time_in(text, NOW, local), *want, "{text} ({local:?})");
        }
    }

    #[test]
    fn a_time_printed_to_the_minute_is_not_a_day_away_within_that_minute() {
        let utc = TimeZone::UTC;
        // 10:00:30Z: codex printed the reset at 10:00:50 as "10:00 AM".
        let now = NOW + 30_000;
        let cases: &[(&str, Option<u64>)] = &[
            ("or try again at 10:00 AM.", Some(NOW + M)),
            ("Try again at Dec 1st, 2026 10:00 AM.", Some(NOW + M)),
            ("regain access on 2026-12-01 at 10:00 UTC", Some(NOW + M)),
            // A minute before: tomorrow's (a clock) or past (a date).
            ("or try again at 9:59 AM.", Some(NOW + 24 * H - M)),
            ("Try again at Dec 1st, 2026 9:59 AM.", Some(NOW - M)),
        ];
        for (text, want) in cases {
            assert_eq!(reset_time_in(text, now, &utc), *want, "{text}");
        }
    }

    #[test]
    fn the_machines_zone_is_the_default() {
        let text = "try again at 10:32 AM.";
        assert_eq!(
            reset_time(text, NOW),
            reset_time_in(text, NOW, &TimeZone::system())
        );
    }
}
