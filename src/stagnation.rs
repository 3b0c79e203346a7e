//! Stagnation (S1, S2, S3), auto-recoveries and escalation, as pure functions over iterations.

use serde::Serialize;

/// What stagnation needs to know of one iteration (index 0 is `init`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    pub iteration: u64,
    /// Criteria passing after this iteration.
    pub passing: usize,
    /// Whether this iteration's Progress Log entry holds a progress keyword.
    pub progress_words: bool,
    /// The iteration commit's tree without the goal folder.
    pub tree: String,
}

/// The three signals and the verdict for one iteration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Signals {
    pub stagnant: bool,
    /// Passing count flat over the window.
    pub s1: bool,
    /// No progress keyword in the window's log entries.
    pub s2: bool,
    /// No net code change over the window.
    pub s3: bool,
}

/// The signals in words a user knows, for a window of `window` iterations: "S1 criteria passing
/// count flat for 3 iterations: yes, S2 no progress words in the log: no, S3 no net code change:
/// yes". S1 with S2 or S3 is stagnation.
pub fn explain(signals: &Signals, window: usize) -> String {
    let yn = |b: bool| if b { "yes" } else { "no" };
    format!(
        "S1 criteria passing count flat for {window} iterations: {}, S2 no progress words in the log: {}, S3 no net code change: {}",
        yn(signals.s1),
        yn(signals.s2),
        yn(signals.s3)
    )
}

/// Signals at `points[n]` with a window of `window` iterations. Before a full window: all false.
pub fn signals_at(points: &[Point], n: usize, window: usize) -> Signals {
    if window == 0 || n < window || n >= points.len() {
        return Signals::default();
    }
    let span = &points[n - window..=n];
    let s1 = span.windows(2).all(|w| w[0].passing == w[1].passing);
    let s2 = span[1..].iter().all(|p| !p.progress_words);
    let s3 = span[0].tree == span[window].tree;
    Signals {
        stagnant: s1 && (s2 || s3),
        s1,
        s2,
        s3,
    }
}

/// The verdict after the last iteration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StagnationVerdict {
    #[serde(flatten)]
    pub signals: Signals,
    /// Consecutive stagnant verdicts ending here (each one an auto-recovery), counted after the
    /// last escalation.
    pub recoveries: usize,
    /// Stagnant again after `escalate_after` auto-recoveries: block the goal.
    pub escalate: bool,
}

/// Judge the last point. `boundary`: the iteration of the last escalation; verdicts at or before
/// it do not count towards the next escalation.
pub fn verdict(
    points: &[Point],
    window: usize,
    escalate_after: usize,
    boundary: Option<u64>,
) -> StagnationVerdict {
    let Some(last) = points.len().checked_sub(1) else {
        return StagnationVerdict::default();
    };
    let signals = signals_at(points, last, window);
    let mut run = 0;
    for n in (0..=last).rev() {
        if boundary.is_some_and(|b| points[n].iteration <= b)
            || !signals_at(points, n, window).stagnant
        {
            break;
        }
        run += 1;
    }
    let escalate = signals.stagnant && run > escalate_after;
    StagnationVerdict {
        signals,
        recoveries: if escalate { escalate_after } else { run },
        escalate,
    }
}

/// Whether `text` holds one of `keywords`: whole words (case-insensitive) for Latin keywords,
/// substrings for CJK ones ("fixed" counts, "prefixed" does not).
pub fn has_keyword(text: &str, keywords: &[String]) -> bool {
    let lower = text.to_lowercase();
    keywords.iter().any(|k| {
        let k = k.to_lowercase();
        if k.is_empty() {
            return false;
        }
        if !k.is_ascii() {
            return lower.contains(&k);
        }
        lower.match_indices(&k).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let after = lower[at + k.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !word(before) && !word(after)
        })
    })
}

pub const STRATEGY_PROMPT: &str = "Stagnation detected. Current approach not making progress. Try:\n- Different tool or library\n- Refactor before retry\n- Split the failing criterion into sub-steps";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DEFAULT_KEYWORDS;

    /// Points from (passing, keyword?, tree) per iteration; index 0 is init.
    fn pts(spec: &[(usize, bool, &str)]) -> Vec<Point> {
        spec.iter()
            .enumerate()
            .map(|(i, &(passing, words, tree))| Point {
                iteration: i as u64,
                passing,
                progress_words: words,
                tree: tree.into(),
            })
            .collect()
    }

    #[test]
    fn signals_table() {
        // (history, expected signals at the last point: stagnant, s1, s2, s3)
        type History<'a> = &'a [(usize, bool, &'a str)];
        type Expected = (bool, bool, bool, bool);
        let cases: &[(History, Expected)] = &[
            // fewer than 3 iterations: never stagnant
            (
                &[(0, false, "a"), (0, false, "a"), (0, false, "a")],
                (false, false, false, false),
            ),
            // flat, no words, no code change: all three
            (
                &[
                    (0, false, "a"),
                    (0, false, "a"),
                    (0, false, "a"),
                    (0, false, "a"),
                ],
                (true, true, true, true),
            ),
            // flat, words in every entry, but no code change: stagnant by S3
            (
                &[
                    (0, false, "a"),
                    (0, true, "a"),
                    (0, true, "a"),
                    (0, true, "a"),
                ],
                (true, true, false, true),
            ),
            // flat, code changed then reverted across the window: stagnant by S3
            (
                &[
                    (0, false, "a"),
                    (0, true, "b"),
                    (0, true, "c"),
                    (0, true, "a"),
                ],
                (true, true, false, true),
            ),
            // flat, code moving, words: not stagnant
            (
                &[
                    (0, false, "a"),
                    (0, true, "b"),
                    (0, true, "c"),
                    (0, true, "d"),
                ],
                (false, true, false, false),
            ),
            // flat, code moving, no words: stagnant by S2 (the seed rule)
            (
                &[
                    (0, false, "a"),
                    (0, false, "b"),
                    (0, false, "c"),
                    (0, false, "d"),
                ],
                (true, true, true, false),
            ),
            // a criterion passed inside the window: not stagnant
            (
                &[
                    (0, false, "a"),
                    (1, false, "a"),
                    (1, false, "a"),
                    (1, false, "a"),
                ],
                (false, false, true, true),
            ),
            // ... but flat again over the next full window
            (
                &[
                    (0, false, "a"),
                    (1, false, "a"),
                    (1, false, "a"),
                    (1, false, "a"),
                    (1, false, "a"),
                ],
                (true, true, true, true),
            ),
            // a criterion lost also counts as a change of the count
            (
                &[
                    (2, false, "a"),
                    (2, false, "a"),
                    (2, false, "a"),
                    (1, false, "a"),
                ],
                (false, false, true, true),
            ),
        ];
        for (i, (spec, (stagnant, s1, s2, s3))) in cases.iter().enumerate() {
            let points = pts(spec);
            let got = signals_at(&points, points.len() - 1, 3);
            assert_eq!(
                got,
                Signals {
                    stagnant: *stagnant,
                    s1: *s1,
                    s2: *s2,
                    s3: *s3
                },
                "case {i}"
            );
        }
    }

    #[test]
    fn worked_example_of_the_spec() {
        // 3 criteria, none ever passes, no keyword, no code change.
        let all = pts(&[(0, false, "a"); 9]);
        // iteration → (stagnant, recoveries, escalate)
        let expected = [
            (1, (false, 0, false)),
            (2, (false, 0, false)),
            (3, (true, 1, false)),
            (4, (true, 2, false)),
            (5, (true, 2, true)),
        ];
        for (n, (stagnant, recoveries, escalate)) in expected {
            let v = verdict(&all[..=n], 3, 2, None);
            assert_eq!(
                (v.signals.stagnant, v.recoveries, v.escalate),
                (stagnant, recoveries, escalate),
                "iteration {n}"
            );
        }
        // After the escalation at 5 (and a resume), the count starts again.
        assert_eq!(verdict(&all[..=6], 3, 2, Some(5)).recoveries, 1);
        assert!(!verdict(&all[..=6], 3, 2, Some(5)).escalate);
        assert!(verdict(&all[..=8], 3, 2, Some(5)).escalate);
        // If iteration 4 had passed a criterion, the count restarts.
        let mut passed = pts(&[(0, false, "a"); 8]);
        for p in passed.iter_mut().skip(4) {
            p.passing = 1;
        }
        let got: Vec<(bool, usize)> = (3..=7)
            .map(|n| {
                let v = verdict(&passed[..=n], 3, 2, None);
                (v.signals.stagnant, v.recoveries)
            })
            .collect();
        assert_eq!(
            got,
            [(true, 1), (false, 0), (false, 0), (false, 0), (true, 1)]
        );
    }

    #[test]
    fn keywords() {
        let k: Vec<String> = DEFAULT_KEYWORDS.iter().map(|s| s.to_string()).collect();
        let cases: &[(&str, bool)] = &[
            ("- Fixed the parser", true),
            ("- prefixed the ids", false),
            ("- FOUND: off by one", true),
            ("- re-verified", true),
            ("- verifiedly", false),
            ("- tried again", false),
            ("- 修复了解析器", true),
            ("- 我们发现问题", true),
            ("- 尝试", false),
            ("- added_tests", false),
        ];
        for (text, want) in cases {
            assert_eq!(has_keyword(text, &k), *want, "{text}");
        }
    }

    #[test]
    fn explain_says_each_signal_in_words() {
        let signals = Signals {
            stagnant: true,
            s1: true,
            s2: false,
            s3: true,
        };
        assert_eq!(
            explain(&signals, 3),
            "S1 criteria passing count flat for 3 iterations: yes, S2 no progress words in the log: no, S3 no net code change: yes"
        );
        let signals = Signals {
            s1: false,
            s2: true,
            ..signals
        };
        assert_eq!(
            explain(&signals, 5),
            "S1 criteria passing count flat for 5 iterations: no, S2 no progress words in the log: yes, S3 no net code change: yes"
        );
    }
}
