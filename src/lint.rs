//! The verifiability red line: a criterion must name something observable.

use serde::Serialize;

use crate::pin;

/// Words and phrases that name an observable outcome (lower case; whole words for Latin text).
const OBSERVABLE: &[&str] = &[
    "test",
    "tests",
    "tested",
    "pass",
    "passes",
    "passing",
    "passed",
    "fail",
    "fails",
    "failing",
    "fails with",
    "return",
    "returns",
    "returned",
    "exit",
    "exits",
    "exit code",
    "status code",
    "output",
    "outputs",
    "print",
    "prints",
    "file",
    "files",
    "exists",
    "count",
    "lint",
    "lints",
    "linter",
    "typecheck",
    "typechecks",
    "type-check",
    "compile",
    "compiles",
    "build",
    "builds",
    "respond",
    "responds",
    "response",
    "error",
    "errors",
    "log",
    "logs",
    "command",
    "cli",
    "run",
    "runs",
    "benchmark",
    "coverage",
    "assert",
    "asserts",
    "http",
    "endpoint",
    "shows",
    "displays",
    "contains",
    "matches",
    "equals",
    "json",
    "schema",
    "clippy",
    "cargo",
    "npm",
    "pytest",
    "warning",
    "warnings",
    "rejects",
    "refuses",
    "accepts",
    "emits",
    "writes",
    "reads",
    "status",
    "stdout",
    "stderr",
    "ci",
    "green",
    "measured",
    "latency",
    "under",
    "within",
    "at least",
    "at most",
    "no more than",
    "测试",
    "通过",
    "返回",
    "退出码",
    "输出",
    "文件",
    "报错",
    "编译",
];

/// Words that sound like a requirement but name nothing to check.
const VAGUE: &[&str] = &[
    "good",
    "clean",
    "better",
    "properly",
    "proper",
    "robust",
    "nice",
    "well",
    "correct",
    "correctly",
    "improve",
    "improved",
    "quality",
    "implement",
    "support",
    "handle",
    "optimize",
    "optimized",
    "fast",
    "faster",
    "readable",
    "maintainable",
    "elegant",
    "work",
    "works",
    "fine",
    "好",
    "优化",
    "实现",
    "完善",
];

/// The lint verdict on one criterion (the JSON of `goal criteria lint --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub number: usize,
    pub text: String,
    pub verifiable: bool,
    pub reason: String,
    /// The pinned command, or null.
    pub pin: Option<String>,
    /// `unpinned` (neither a pin nor a `command` named in the text: any passing test could
    /// prove it), `self-grading` (its pin only prints), `bad-pin` (its pin does not parse).
    pub flags: Vec<String>,
}

fn matches(lower: &str, word: &str) -> bool {
    if !word.is_ascii() {
        return lower.contains(word);
    }
    lower.match_indices(word).any(|(at, _)| {
        let before = lower[..at].chars().next_back();
        let after = lower[at + word.len()..].chars().next();
        let inner = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
        !inner(before) && !inner(after)
    })
}

/// Lint one criterion: is it observable, and is its proof named?
pub fn lint(number: usize, text: &str) -> Option<Finding> {
    let mut finding = lint_observable(number, text)?;
    match pin::parse(text) {
        None if !pin::base(text).contains('`') => {
            finding.flags.push("unpinned".into());
        }
        None => {}
        Some(Ok(p)) => {
            if let Some(why) = pin::self_grading(&p.argv) {
                finding.flags.push("self-grading".into());
                finding.verifiable = false;
                finding.reason = format!("its pin `{}` is not evidence: {why}", p.command);
            } else if !finding.verifiable {
                finding.verifiable = true;
                finding.reason = format!("observable: its pinned command `{}`", p.command);
            }
            finding.pin = Some(p.command);
        }
        Some(Err(why)) => {
            finding.flags.push("bad-pin".into());
            finding.verifiable = false;
            finding.reason = why;
        }
    }
    Some(finding)
}

fn lint_observable(number: usize, text: &str) -> Option<Finding> {
    let text = pin::base(text);
    let lower = text.to_lowercase();
    let mut seen: Vec<String> = OBSERVABLE
        .iter()
        .filter(|w| matches(&lower, w))
        .map(|w| w.to_string())
        .collect();
    if text.contains('`') {
        seen.push("a `command`".into());
    }
    let file_like = text.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        (w.contains('.') || w.contains('/'))
            && w.split(['.', '/']).all(|p| !p.is_empty())
            && w.chars().any(char::is_alphabetic)
    });
    if file_like {
        seen.push("a path".into());
    }
    if text.chars().any(|c| c.is_ascii_digit()) {
        seen.push("a number".into());
    }
    let vague: Vec<&str> = VAGUE
        .iter()
        .copied()
        .filter(|w| matches(&lower, w))
        .collect();
    let finding = if !seen.is_empty() {
        Finding {
            number,
            text: text.to_string(),
            verifiable: true,
            reason: format!(
                "observable: {}",
                seen.into_iter().take(3).collect::<Vec<_>>().join(", ")
            ),
            pin: None,
            flags: Vec::new(),
        }
    } else {
        let mut reason =
            "no observable outcome (a command, test, exit or status code, file, output or count)"
                .to_string();
        if !vague.is_empty() {
            reason.push_str(&format!("; only vague words: {}", vague.join(", ")));
        }
        Finding {
            number,
            text: text.to_string(),
            verifiable: false,
            reason,
            pin: None,
            flags: Vec::new(),
        }
    };
    Some(finding)
}

/// The warning for a goal whose pinned criteria are all guards (a guard only shows that nothing
/// broke, never that the goal's change works; `goal done` refuses such a goal without
/// `--confirm`). None when a criterion is an acceptance one, or none is pinned.
pub fn all_guards(texts: &[String]) -> Option<String> {
    let kinds: Vec<crate::pin::Kind> = texts.iter().filter_map(|t| crate::pin::kind(t)).collect();
    if kinds.is_empty() || kinds.iter().any(|k| *k != crate::pin::Kind::Guard) {
        return None;
    }
    Some(format!(
        "warning: every pinned criterion is a guard ({}): guards show that nothing broke, not that the goal's change works, and `goal done` refuses such a goal without --confirm; pin the test that proves the change with `goal criteria pin N -- <test command>` (or add one with `goal criteria add \"<outcome>\" --verify \"<test command>\"`)",
        texts
            .iter()
            .enumerate()
            .filter(|(_, t)| crate::pin::kind(t).is_some())
            .map(|(i, _)| format!("criterion {}", i + 1))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Lint every criterion, numbered from 1.
pub fn lint_all(texts: &[String]) -> Vec<Finding> {
    texts
        .iter()
        .enumerate()
        .filter_map(|(i, t)| lint(i + 1, t))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verifiability_red_line() {
        let cases: &[(&str, bool)] = &[
            ("Implement rate limiting", false),
            ("Code quality is good", false),
            (
                "Rate limiter middleware mounts on auth routes, excess requests return 429",
                true,
            ),
            ("Related files lint clean, typecheck passes", true),
            ("Make it better and more robust", false),
            ("`cargo test --locked` passes", true),
            ("p99 latency under 200 ms", true),
            ("The parser handles errors properly", true),
            ("Refactor the module", false),
            ("单元测试全部通过", true),
            ("代码质量好", false),
            ("README.md documents every flag", true),
        ];
        for (text, verifiable) in cases {
            assert_eq!(lint(1, text).unwrap().verifiable, *verifiable, "{text}");
        }
    }

    #[test]
    fn a_goal_of_guards_only_is_warned_about() {
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let guard = "Lint is clean (guard: `cargo clippy -- -D warnings`)";
        let accept = "add(2, 2) returns 4 (verify: `pytest -q tests/test_calc.py`)";
        // (criteria, warned)
        let cases: &[(&[&str], bool)] = &[
            (&[guard], true),
            (&[guard, "Docs mention it"], true),
            (&[guard, accept], false),
            (&[accept], false),
            (&["Docs mention it"], false),
            (&[], false),
        ];
        for (texts, warned) in cases {
            let w = all_guards(&t(texts));
            assert_eq!(w.is_some(), *warned, "{texts:?}");
            if let Some(w) = w {
                assert!(w.contains("criterion 1") && w.contains("--confirm"), "{w}");
            }
        }
    }

    #[test]
    fn pins_and_self_grading() {
        // (text, verifiable, flags)
        let cases: &[(&str, bool, &[&str])] = &[
            ("Excess requests return 429", true, &["unpinned"]),
            ("`cargo test rate_limit` passes", true, &[]),
            (
                "Excess requests return 429 (verify: `cargo test rate_limit`)",
                true,
                &[],
            ),
            (
                "Excess requests return 429 (verify: `echo 5 passed`)",
                false,
                &["self-grading"],
            ),
            (
                "Excess requests return 429 (verify: `sh -c 'echo ok; true'`)",
                false,
                &["self-grading"],
            ),
            (
                "Excess requests return 429 (verify: `pytest \"x`)",
                false,
                &["bad-pin"],
            ),
            ("Code quality is good", false, &["unpinned"]),
        ];
        for (text, verifiable, flags) in cases {
            let f = lint(1, text).unwrap();
            assert_eq!(f.verifiable, *verifiable, "{text}: {f:?}");
            assert_eq!(f.flags, *flags, "{text}");
        }
    }
}
