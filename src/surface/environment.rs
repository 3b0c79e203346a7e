//! Whether a failing run failed because of its environment rather than the code: the pin's
//! program not found, its Python runner module missing, an npm script nobody defines. A red run
//! that failed that way showed nothing about the code before the goal, so it is no red witness.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use crate::summary::TestCounts;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| panic!("bad pattern {pattern}: {e}"))
}

// python: "/usr/bin/python3: No module named pytest", "ModuleNotFoundError: No module named 'pytest'"
static NO_MODULE: LazyLock<Regex> = LazyLock::new(|| re(r"No module named '?([\w.]+)'?"));
// npm 7+: `npm error Missing script: "test:unit"`; npm 6: `npm ERR! missing script: test:unit`
static MISSING_SCRIPT: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?i)missing script: "?([^"\s]+)"?"#));

/// Why a run of `argv` that exited `exit_code`, printing `tail` (the end of its output) and the
/// test counts `tests`, failed because of its environment; None when it did not (it passed, or
/// its tests ran and failed, or the failure is the code's). `defined(script)`: whether the goal's
/// `package.json` defines an npm script (the base's is the red tree's own).
pub fn environment_failure(
    argv: &[String],
    exit_code: i32,
    tests: Option<TestCounts>,
    tail: &str,
    defined: &dyn Fn(&str) -> bool,
) -> Option<String> {
    // A run whose tests failed ran them: whatever else went wrong, that is red.
    if exit_code == 0 || tests.is_some_and(|t| t.failed > 0) {
        return None;
    }
    let program = argv.first().map(|p| basename(p)).unwrap_or_default();
    if let Some(why) = not_found(program, exit_code, tail) {
        return Some(why);
    }
    if let Some(runner) = python_runner(argv) {
        let top = runner.split('.').next().unwrap_or(runner);
        let missing = NO_MODULE.captures_iter(tail).any(|c| {
            let named = &c[1];
            named == runner || named == top
        });
        if missing {
            return Some(format!(
                "No module named {runner}: `{program}` has no {runner} here"
            ));
        }
    }
    if matches!(program, "npm" | "pnpm" | "yarn") {
        for c in MISSING_SCRIPT.captures_iter(tail) {
            let script = &c[1];
            if !defined(script) {
                return Some(format!(
                    "npm's Missing script: \"{script}\": neither the base nor the goal defines it"
                ));
            }
        }
    }
    None
}

/// The pin's program (or one it starts) not found or not runnable.
fn not_found(program: &str, exit_code: i32, tail: &str) -> Option<String> {
    let line = tail.lines().find(|l| {
        l.contains("command not found")
            || l.ends_with(": not found")
            || (l.contains("ENOENT") && (l.contains("spawn") || l.contains(program)))
    });
    match (line, exit_code) {
        (Some(line), _) => Some(format!("program not found: {}", line.trim())),
        (None, 127) => Some(format!("program not found: `{program}` exited 127")),
        (None, 126) => Some(format!("program not runnable: `{program}` exited 126")),
        _ => None,
    }
}

/// The module a `python -m <module>` pin runs (`pytest`, `unittest`), if it is one.
fn python_runner(argv: &[String]) -> Option<&str> {
    let program = basename(argv.first()?);
    let python = program.starts_with("python") || program == "py";
    if !python {
        return None;
    }
    let at = argv.iter().position(|a| a == "-m")?;
    argv.get(at + 1).map(String::as_str)
}

fn basename(path: &str) -> &str {
    Path::new(path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn environment_failures_and_real_failures() {
        let failed = Some(TestCounts {
            passed: 1,
            failed: 1,
            ignored: 0,
        });
        // (pin, exit, tests, tail, goal defines the script, environment failed)
        type Case<'a> = (&'a str, i32, Option<TestCounts>, &'a str, bool, bool);
        let cases: &[Case] = &[
            (
                "python3 -m pytest -q",
                1,
                None,
                "/usr/bin/python3: No module named pytest",
                false,
                true,
            ),
            (
                "python -m pytest",
                1,
                None,
                "ModuleNotFoundError: No module named 'pytest'",
                false,
                true,
            ),
            (
                "python3 -m xdist.run",
                1,
                None,
                "No module named xdist",
                false,
                true,
            ),
            // The code's own import failing is red: the runner ran.
            (
                "python3 -m pytest -q",
                2,
                None,
                "E   ModuleNotFoundError: No module named 'calc'",
                false,
                false,
            ),
            (
                "python3 -m pytest -q",
                1,
                failed,
                "No module named pytest_cov",
                false,
                false,
            ),
            ("pytest -q", 1, None, "No module named pytest", false, false),
            (
                "sh -c ./run-tests",
                127,
                None,
                "sh: 1: ./run-tests: not found",
                false,
                true,
            ),
            (
                "bash test.sh",
                1,
                None,
                "test.sh: line 3: jest: command not found",
                false,
                true,
            ),
            ("npx jest", 127, None, "", false, true),
            ("./test.sh", 126, None, "", false, true),
            (
                "node run.js",
                1,
                None,
                "Error: spawn mocha ENOENT",
                false,
                true,
            ),
            // A test reading a file the code does not have yet is red.
            (
                "node --test",
                1,
                None,
                "Error: ENOENT: no such file or directory, open 'data.json'",
                false,
                false,
            ),
            (
                "npm test",
                1,
                None,
                "npm error Missing script: \"test\"",
                false,
                true,
            ),
            (
                "npm run test:unit",
                1,
                None,
                "npm ERR! missing script: test:unit",
                false,
                true,
            ),
            // A script the goal adds is the goal's change: missing before it is red.
            (
                "npm run build-check",
                1,
                None,
                "npm error Missing script: \"build-check\"",
                true,
                false,
            ),
            (
                "cargo test",
                101,
                failed,
                "test result: FAILED. 1 passed; 1 failed",
                false,
                false,
            ),
            (
                "python3 -m pytest",
                0,
                None,
                "No module named pytest",
                false,
                false,
            ),
        ];
        for (pin, exit, tests, tail, defined, want) in cases {
            let got = environment_failure(&argv(pin), *exit, *tests, tail, &|_| *defined);
            assert_eq!(got.is_some(), *want, "{pin} / {tail}: {got:?}");
        }
    }

    #[test]
    fn the_reason_names_what_was_missing() {
        let why = environment_failure(
            &argv("python3 -m pytest -q"),
            1,
            None,
            "/usr/bin/python3: No module named pytest",
            &|_| false,
        );
        assert_eq!(
            why.as_deref(),
            Some("No module named pytest: `python3` has no pytest here")
        );
    }
}
