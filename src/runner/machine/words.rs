//! Waits and texts as the run's messages say them. Pure.

/// The wait after the `n`-th usage limit in a row that named no reset time: 30 min, then 60,
/// doubling, capped at 2 h.
pub fn limit_step(n: u32) -> u64 {
    const STEP: u64 = 30 * 60_000;
    const CAP: u64 = 2 * 60 * 60_000;
    STEP.saturating_mul(1u64 << n.saturating_sub(1).min(8))
        .min(CAP)
}

pub(super) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// A wait as people read it, rounded: `45 s`, `12 min`, `1 h 30 min`.
pub(super) fn about(ms: u64) -> String {
    let s = ms.div_ceil(1000);
    match s {
        s if s < 90 => format!("{s} s"),
        s if s < 90 * 60 => format!("{} min", s.div_ceil(60)),
        s => {
            let m = s.div_ceil(60);
            match m % 60 {
                0 => format!("{} h", m / 60),
                r => format!("{} h {r} min", m / 60),
            }
        }
    }
}

/// `90 s`, `5 min`, `1.5 s`.
pub fn human_ms(ms: u64) -> String {
    if ms.is_multiple_of(60_000) && ms >= 60_000 {
        format!("{} min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}
