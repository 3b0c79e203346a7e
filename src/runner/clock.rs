//! `goal run`'s clock and durations: `--max-time 5m` and friends parsed, GOAL_TIME_SCALE, and
//! wall time where a scaled wait counts its nominal length.

use std::time::{Duration, Instant};

/// `90`, `90s`, `5m`, `2h` (and `300ms`, `0.5s` for tests).
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, "s"),
    };
    let n: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration: use 90, 90s, 5m or 2h"))?;
    let seconds = match unit {
        "ms" => n / 1000.0,
        "s" | "sec" => n,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("`{text}`: unknown unit `{unit}` (use s, m or h)")),
    };
    if !seconds.is_finite() || seconds <= 0.0 {
        return Err(format!(
            "`{text}` is not a positive duration: use 90, 90s, 5m or 2h"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// GOAL_TIME_SCALE: a factor on every wait (0 makes tests instant).
pub fn time_scale() -> f64 {
    std::env::var("GOAL_TIME_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|s: &f64| s.is_finite() && *s >= 0.0)
        .unwrap_or(1.0)
}

/// The run's clock: wall time, where a scaled wait counts its nominal length (so budgets and
/// usage-limit resets behave the same under GOAL_TIME_SCALE).
pub struct Clock {
    epoch_ms: u64,
    started: Instant,
    pub skew_ms: u64,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::new()
    }
}

impl Clock {
    pub fn new() -> Clock {
        let epoch_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        Clock {
            epoch_ms,
            started: Instant::now(),
            skew_ms: 0,
        }
    }

    pub fn now_ms(&self) -> u64 {
        let elapsed = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.epoch_ms
            .saturating_add(elapsed)
            .saturating_add(self.skew_ms)
    }
}

/// A duration in whole milliseconds.
pub fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let cases = [
            ("90", Some(90_000)),
            ("90s", Some(90_000)),
            ("5m", Some(300_000)),
            ("2h", Some(7_200_000)),
            ("300ms", Some(300)),
            ("0.5s", Some(500)),
            ("5x", None),
            ("", None),
            ("-1", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_duration(text).ok().map(ms), want, "{text}");
        }
    }
}
