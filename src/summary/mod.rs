//! Recognising test-runner summary lines in a command's output, summed over the whole output.

use std::sync::LazyLock;

use regex::Regex;

mod runners;
pub mod tap;

use runners::{GOING_ON, Group, Pending, RUNNERS, finish};

/// Test counts parsed from a run's output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TestCounts {
    pub passed: u64,
    pub failed: u64,
    pub ignored: u64,
}

impl TestCounts {
    fn add(&mut self, other: TestCounts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.ignored += other.ignored;
    }
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad pattern {pattern}: {e}"))
}

static ANSI: LazyLock<Regex> = LazyLock::new(|| re(r"\x1b\[[0-9;?]*[A-Za-z]"));

/// The test summary of a run of `argv`: [`recognise`] over its output without the lines the
/// command line itself carries. A command that prints its own summary
/// (`python3 -c "print('1 passed in 0.01s')"`) grades itself: that line is no test's result. Only
/// lines with a digit in them and at least four characters long are taken out, so that a short
/// verdict line ("OK") is never lost to a word of the command.
pub fn recognise_run(argv: &[String], output: &str) -> Option<TestCounts> {
    recognise_run_noting(argv, output).0
}

/// [`recognise_run`], and whether a summary the command carries was left out (the result
/// differs from reading every line). The output is read once unless a line was taken out.
pub fn recognise_run_noting(argv: &[String], output: &str) -> (Option<TestCounts>, bool) {
    let command = argv.join(" ");
    let mut dropped = false;
    let kept: Vec<&str> = output
        .lines()
        .filter(|line| {
            let text = ANSI.replace_all(line, "");
            let text = text.trim();
            let echoed = text.len() >= 4
                && text.bytes().any(|b| b.is_ascii_digit())
                && command.contains(text);
            dropped |= echoed;
            !echoed
        })
        .collect();
    if !dropped {
        return (recognise(output), false);
    }
    let tests = recognise(&kept.join("\n"));
    (tests, tests != recognise(output))
}

/// Sum the test summaries in `output`; None when no runner's summary was recognised. Each line
/// is asked of the runners whose summary it may go on, then of every runner in turn
/// (the tables of `runners`): the first that knows it has it.
pub fn recognise(output: &str) -> Option<TestCounts> {
    let mut total = Group::default();
    let mut p = Pending::default();
    for raw in output.lines() {
        let clean = ANSI.replace_all(raw, "");
        let line = clean.trim_end_matches('\r');
        for (_runner, recognise) in GOING_ON.iter().chain(RUNNERS) {
            if recognise(line, &mut total, &mut p) {
                break;
            }
        }
    }
    finish(total, p)
}

/// Lines that look like one test's result (`ok`/`not ok`, a tick or a cross, `PASS`/`FAIL`,
/// `… ok`), whichever runner printed them.
static RESULT_LINE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:(?:not )?ok\b|[✓✔✗✖✕×]\s|(?:PASS|FAIL|PASSED|FAILED|SKIP)\b)|\.\.\. (?:ok|FAILED|passed|failed)\s*$",
    )
});

/// How many result lines an output holds when goal reads no summary from it and they are many
/// (five or more): a runner whose summary goal cannot read. None otherwise.
pub fn unread_results(output: &str) -> Option<usize> {
    if recognise(output).is_some() {
        return None;
    }
    let n = output
        .lines()
        .filter(|l| RESULT_LINE.is_match(&ANSI.replace_all(l, "")))
        .count();
    (n >= 5).then_some(n)
}

/// What a run without a test summary is called: "no test summary", or, where its output holds
/// many result lines, that goal cannot read this runner's summary.
pub fn no_summary_words(output: &str) -> String {
    match unread_results(output) {
        Some(n) => format!(
            "goal cannot read this runner's summary ({n} result lines, no summary goal knows)"
        ),
        None => "no test summary".into(),
    }
}

#[cfg(test)]
mod tests;
