//! Commit messages: trailers and git's date formats, parsed.

use super::*;

/// The trailers of a commit message, as `git interpret-trailers --parse` reads them.
pub fn parse_trailers(message: &str) -> Vec<(String, String)> {
    match git2::message_trailers_strs(message) {
        Ok(trailers) => trailers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// GIT_AUTHOR_DATE / GIT_COMMITTER_DATE in the forms tests and scripts use: `@<epoch> [+zzzz]`,
/// `<epoch> +zzzz`, RFC 3339 and RFC 2822.
pub(super) fn parse_git_date(text: &str) -> Option<Time> {
    let text = text.trim();
    let raw = text.strip_prefix('@').unwrap_or(text);
    let mut parts = raw.split_whitespace();
    if let Some(Ok(seconds)) = parts.next().map(str::parse::<i64>) {
        let offset = parts.next().and_then(parse_offset).unwrap_or(0);
        return Some(Time::new(seconds, offset));
    }
    let parsed = chrono::DateTime::parse_from_rfc3339(text)
        .or_else(|_| chrono::DateTime::parse_from_rfc2822(text));
    parsed
        .ok()
        .map(|d| Time::new(d.timestamp(), d.offset().local_minus_utc() / 60))
}

pub(super) fn parse_offset(text: &str) -> Option<i32> {
    let (sign, digits) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    if digits.len() != 4 {
        return None;
    }
    let hours: i32 = digits[..2].parse().ok()?;
    let minutes: i32 = digits[2..].parse().ok()?;
    Some(sign * (hours * 60 + minutes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_dates() {
        let cases: &[(&str, Option<(i64, i32)>)] = &[
            ("@1700000000 +0000", Some((1_700_000_000, 0))),
            ("1700000000 -0130", Some((1_700_000_000, -90))),
            ("2026-11-30T15:04:05Z", Some((1_796_051_045, 0))),
            ("Mon, 30 Nov 2026 15:04:05 +0100", Some((1_796_047_445, 60))),
            ("yesterday", None),
        ];
        for (text, want) in cases {
            let got = parse_git_date(text).map(|t| (t.seconds(), t.offset_minutes()));
            assert_eq!(got, *want, "{text}");
        }
    }

    #[test]
    fn trailers() {
        let t = parse_trailers("goal: x\n\nbody\n\nGoal-Iteration: 2\nGoal-Status: blocked\n");
        assert_eq!(
            t,
            [
                ("Goal-Iteration".to_string(), "2".to_string()),
                ("Goal-Status".to_string(), "blocked".to_string())
            ]
        );
    }
}
