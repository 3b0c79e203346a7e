//! Code that answers exactly the tests' own input with a constant is flagged
//! `special-cased-input`, naming the code's file:line and where a test writes the literal, on
//! done's summary, `goal log` and `goal audit`, and never refuses; honest fixes (a rule, an edge
//! case) are not flagged. The mutation gate on code of a language no mutation tool here reads
//! (Go) says `mutation-unchecked` instead of passing in silence. Real git, pytest and go test.

use crate::common::{Repo, json, stderr};
use crate::red_history::{calc, go_goal};

const LEAP_BUGGY: &str = "def is_leap(year):\n    return year % 4 == 0\n";
const LEAP_TESTS: &str = "from calc import is_leap\n\n\ndef test_four():\n    assert is_leap(2024)\n\n\ndef test_century():\n    assert not is_leap(1900)\n";

/// The flags `goal log --json` gives the goal's rows, all together.
fn log_flags(repo: &Repo) -> Vec<String> {
    let out = repo.goal().args(["log", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = json(&out);
    let mut flags = Vec::new();
    for row in rows.as_array().into_iter().flatten() {
        for f in row["flags"].as_array().into_iter().flatten() {
            flags.extend(f.as_str().map(String::from));
        }
    }
    flags
}

/// `goal done --json` completes; its stderr and summary.
#[track_caller]
fn done(out: std::process::Output) -> (String, serde_json::Value) {
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    (err, json(&out))
}

#[test]
fn python_code_answering_the_tests_input_is_flagged_on_every_surface() {
    let repo = calc(LEAP_BUGGY, LEAP_TESTS);
    let trick = "def is_leap(year):\n    if year == 1900:\n        return False\n    return year % 4 == 0\n";
    repo.write("calc/__init__.py", trick);
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "centuries"]);
    let (err, summary) = done(repo.goal().args(["done", "--json"]).output().unwrap());
    let finding = "special-cased-input calc/__init__.py:2 year == 1900 → False; 1900 is written in tests/test_calc.py:9";
    assert!(err.contains(finding), "{err}");
    assert!(
        summary.to_string().contains("special-cased-input"),
        "{summary}"
    );
    assert!(log_flags(&repo).contains(&"special-cased-input".to_string()));
    let audit = repo.goal().args(["audit"]).output().unwrap();
    let text = String::from_utf8_lossy(&audit.stdout).into_owned() + &stderr(&audit);
    assert!(audit.status.success(), "{text}");
    assert!(
        text.contains("special-cased-input calc/__init__.py:2"),
        "{text}"
    );
    let report = repo.goal().args(["report"]).output().unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(text.contains("special-cased-input"), "{text}");
}

#[test]
fn honest_python_fixes_with_edge_cases_are_not_flagged() {
    let repo = calc(LEAP_BUGGY, LEAP_TESTS);
    let fix = "def is_leap(year):\n    if year < 1:\n        raise ValueError(year)\n    if year % 400 == 0:\n        return True\n    if year == 0:\n        return False\n    return year % 4 == 0 and year % 100 != 0\n";
    repo.write("calc/__init__.py", fix);
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "centuries"]);
    let (err, _) = done(repo.goal().args(["done", "--json"]).output().unwrap());
    assert!(!err.contains("special-cased-input"), "{err}");
    assert!(!log_flags(&repo).contains(&"special-cased-input".to_string()));
}

const GO_BUGGY: &str = "package calc\n\n// Clamp keeps x within [lo, hi].\nfunc Clamp(x, lo, hi int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n\treturn x\n}\n";
const GO_TESTS: &str = "package calc\n\nimport \"testing\"\n\nfunc TestClampHigh(t *testing.T) {\n\tif got := Clamp(15, 0, 10); got != 10 {\n\t\tt.Fatalf(\"Clamp(15, 0, 10) = %d, want 10\", got)\n\t}\n}\n";

/// A Go module whose Clamp ignores the upper bound, its failing test on the base; a goal to fix
/// it, with the goal's `mutants` setting `mode` (`off`: none).
fn go_repo(mode: &str) -> Repo {
    let repo = Repo::new();
    repo.write("go.mod", "module example.com/calc\n\ngo 1.19\n");
    repo.write("calc.go", GO_BUGGY);
    repo.write("calc_test.go", GO_TESTS);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    if mode != "off" {
        repo.git(&["config", "goal.mutants", mode]);
    }
    repo.init_goal(&["Clamp keeps the upper bound (verify: `go test .`)"]);
    repo
}

fn go_done(repo: &Repo, code: &str) -> (String, serde_json::Value) {
    repo.write("calc.go", code);
    let green = go_goal(repo, &["verify", "-c", "1"]);
    assert!(green.status.success(), "{}", stderr(&green));
    repo.ok(&["iterate", "-m", "the upper bound"]);
    done(go_goal(repo, &["done", "--json"]))
}

#[test]
fn go_special_case_under_the_mutation_gate_is_flagged_twice_and_completes() {
    let repo = go_repo("gate");
    let trick = GO_BUGGY.replace(
        "\treturn x\n}",
        "\tif x == 15 && lo == 0 && hi == 10 {\n\t\treturn 10\n\t}\n\treturn x\n}",
    );
    let (err, summary) = go_done(&repo, &trick);
    assert!(
        err.contains("special-cased-input calc.go:8 x == 15 && lo == 0 && hi == 10 → 10; 15 is written in calc_test.go:6"),
        "{err}"
    );
    assert!(
        err.contains("mutation-unchecked: calc.go (no mutation tool"),
        "{err}"
    );
    assert_eq!(
        summary["mutation"]["unchecked"],
        serde_json::json!(["calc.go"]),
        "{summary}"
    );
    let flags = log_flags(&repo);
    assert!(
        flags.contains(&"special-cased-input".to_string()),
        "{flags:?}"
    );
    assert!(
        flags.contains(&"mutation-unchecked".to_string()),
        "{flags:?}"
    );
    assert!(flags.contains(&"mutants".to_string()), "{flags:?}");
    let report = repo.goal().args(["report"]).output().unwrap();
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(text.contains("mutation-unchecked: calc.go"), "{text}");
}

#[test]
fn an_honest_go_fix_is_unchecked_under_the_gate_and_unflagged_without_it() {
    let fix = GO_BUGGY.replace(
        "\treturn x\n}",
        "\tif x > hi {\n\t\treturn hi\n\t}\n\treturn x\n}",
    );
    let gated = go_repo("gate");
    let (err, summary) = go_done(&gated, &fix);
    assert!(!err.contains("special-cased-input"), "{err}");
    assert!(err.contains("mutation-unchecked: calc.go"), "{err}");
    assert_eq!(
        summary["mutation"]["unchecked"],
        serde_json::json!(["calc.go"]),
        "{summary}"
    );
    let plain = go_repo("off");
    let (err, summary) = go_done(&plain, &fix);
    assert!(
        !err.contains("mutation-unchecked") && !err.contains("special-cased-input"),
        "{err}"
    );
    assert!(summary["mutation"].is_null(), "{summary}");
    let flags = log_flags(&plain);
    assert!(
        !flags
            .iter()
            .any(|f| f == "mutation-unchecked" || f == "special-cased-input"),
        "{flags:?}"
    );
}
