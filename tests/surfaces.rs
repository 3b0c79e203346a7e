//! Every surface says the same of one goal: `goal report` (text, markdown, page, JSON), `goal
//! log`, `goal audit`. Each test builds one goal and reads it through all of them.

use crate::common::{Repo, json, stderr, stdout};

/// A Python package whose `add` subtracts, its tests run by pytest, and a goal on it.
fn python_goal(criteria: &[&str]) -> Repo {
    let repo = Repo::new();
    repo.write("calc.py", "def add(a, b):\n    return a - b\n");
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_zero():\n    assert add(1, 0) == 1\n",
    );
    repo.write(
        "pyproject.toml",
        "[tool.pytest.ini_options]\npythonpath = [\".\"]\n",
    );
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(criteria);
    repo
}

const PIN: &str = "add(2, 2) is 4 (verify: `python3 -m pytest -q tests`)";
/// Longer than the buggy line: a `.pyc` written in the same second is never taken for it.
const FIXED: &str = "def add(a, b):\n    return a + b  # fixed\n";

/// Every text surface of the goal at HEAD: report as text, markdown and page, log, audit.
fn every_surface(repo: &Repo) -> Vec<(&'static str, String)> {
    let page = repo.home().join("report.html");
    let text = |args: &[&str]| {
        let out = repo.goal().args(args).output().unwrap();
        format!("{}{}", stdout(&out), stderr(&out))
    };
    let mut out = vec![
        ("report", text(&["report"])),
        ("report --markdown", text(&["report", "--markdown"])),
    ];
    text(&["report", "--html", page.to_str().unwrap()]);
    out.push(("report --html", std::fs::read_to_string(&page).unwrap()));
    out.push(("log", text(&["log"])));
    out.push(("audit", text(&["audit"])));
    out
}

/// A guard that fails on the base is shown red there, never "stays green", by every surface
/// that shows its red → green; audit's JSON carries its base run.
#[test]
fn a_guard_red_on_the_base_is_red_there_on_every_surface() {
    let repo = python_goal(&[PIN, "the marker exists (guard: `sh marker.sh`)"]);
    repo.write("marker.sh", "test -f marker.txt && echo ok\n");
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_zero():\n    assert add(1, 0) == 1\n\n\ndef test_two():\n    assert add(2, 2) == 4\n",
    );
    repo.git(&["add", "marker.sh"]);
    repo.git(&["commit", "-q", "-m", "the guard's script"]);
    assert_eq!(
        repo.goal()
            .args(["verify", "-c", "1"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(1)
    );
    repo.write("calc.py", FIXED);
    repo.write("marker.txt", "here\n");
    repo.ok(&["verify"]);
    repo.ok(&["iterate", "-m", "fixed"]);
    repo.ok(&["done"]);
    for (surface, text) in every_surface(&repo) {
        assert!(!text.contains("stays green"), "{surface}: {text}");
        if surface.starts_with("report") {
            assert!(text.contains("guard: red on the base"), "{surface}: {text}");
        }
    }
    let audit = every_surface(&repo).remove(4).1;
    assert!(audit.contains("guard on the goal's base: red"), "{audit}");
    let v = json(&repo.goal().args(["audit", "--json"]).output().unwrap());
    assert_ne!(v["criteria"][1]["base"]["exit_code"], 0, "{v}");
    assert!(v["criteria"][1]["base"]["exit_code"].is_i64(), "{v}");
    assert_eq!(v["criteria"][0]["base"], serde_json::Value::Null, "{v}");
}

/// The page shows the sections the markdown report shows, in its words: the material change,
/// the weakening recorded with --confirm (a person's, or a plain shell's: never called "a
/// person" on the page), the tests that changed.
#[test]
fn the_page_shows_what_the_markdown_report_shows() {
    let repo = python_goal(&[PIN, "the readme says so (verify: `sh readme.sh`)"]);
    repo.write("readme.sh", "grep -q calc README && echo '1 passed'\n");
    repo.ok(&["criteria", "remove", "2", "--confirm"]);
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_zero():\n    assert add(1, 0) == 1\n\n\ndef test_two():\n    assert add(2, 2) == 4\n",
    );
    assert_eq!(
        repo.goal()
            .args(["verify", "-c", "1"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(1)
    );
    repo.write("calc.py", FIXED);
    // The old test renamed, its body as it was: a change judged by the runs.
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_adding_zero():\n    assert add(1, 0) == 1\n\n\ndef test_two():\n    assert add(2, 2) == 4\n",
    );
    repo.ok(&["verify"]);
    repo.ok(&["iterate", "-m", "fixed"]);
    repo.ok(&["done"]);
    let surfaces = every_surface(&repo);
    let get = |name: &str| {
        surfaces
            .iter()
            .find(|(s, _)| *s == name)
            .map(|(_, t)| t.clone())
            .unwrap()
    };
    let (markdown, page) = (get("report --markdown"), get("report --html"));
    for heading in ["Material changes", "Tests weakened", "Clean-up findings"] {
        assert!(markdown.contains(&format!("### {heading}")), "{markdown}");
        assert!(page.contains(&format!("<h2>{heading}</h2>")), "{page}");
    }
    assert!(markdown.contains("→ removed"), "{markdown}");
    assert!(page.contains("→ removed"), "{page}");
    // A rename refuses nothing: it is a change the runs judged, not a weakening.
    let weakened = markdown
        .split("### Tests weakened")
        .nth(1)
        .unwrap_or_default();
    let weakened = weakened.split("###").next().unwrap_or_default();
    assert!(!weakened.contains("test-renamed"), "{markdown}");
    assert!(!page.contains("confirmed by a person"), "{page}");
    assert!(!page.contains("No mutation check recorded"), "{page}");
    let log = get("log");
    if log.contains("tests changed in") {
        let report = get("report");
        assert!(report.contains("tests changed:"), "{log}\n{report}");
        assert!(
            page.contains("<h2>Tests changed (judged by the runs)</h2>"),
            "{page}"
        );
    }
}

/// A test-file condition that reads a path of the run is `test-detected` in `goal log` (text
/// and JSON) as in `goal done`.
#[test]
fn log_shows_a_test_detected_in_a_test_file() {
    let repo = python_goal(&[PIN]);
    repo.write(
        "tests/test_calc.py",
        "import os\n\nfrom calc import add\n\n\ndef test_zero():\n    assert add(1, 0) == 1\n\n\ndef test_two():\n    if \"ci\" in os.getcwd():\n        assert add(2, 2) == 4\n",
    );
    repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    repo.ok(&["iterate", "-m", "a test"]);
    let out = repo.goal().args(["log"]).output().unwrap();
    let log = stdout(&out);
    assert!(
        log.contains("test-detected tests/test_calc.py:11"),
        "{log}{}",
        stderr(&out)
    );
    let v = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    let text = v.to_string();
    assert!(text.contains("\"test-detected\""), "{text}");
}

/// Turning the mutation check on, or raising its score, only makes the gate stricter: an agent
/// may do it without a person's confirmation, nothing records a material change, and `goal
/// audit --strict` does not fail on it; turning it off again is the person's.
#[test]
fn a_stricter_gate_is_no_material_change() {
    let repo = python_goal(&[PIN]);
    let agent = |args: &[&str]| {
        repo.goal()
            .env("GOAL_AGENT", "claude")
            .args(args)
            .output()
            .unwrap()
    };
    let out = agent(&["criteria", "surface", "--mutants", "gate"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(repo.goal_md().contains("mutants: gate"));
    assert_eq!(repo.trailer("HEAD", "Goal-Material-Change"), None);
    let out = agent(&[
        "criteria",
        "surface",
        "--mutants",
        "gate",
        "--mutants-min",
        "0.9",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["material_change"], serde_json::Value::Null);
    let v = json(
        &repo
            .goal()
            .args(["audit", "--strict", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(v["confirmations"], serde_json::json!([]), "{v}");
    assert_eq!(v["material_changes"], serde_json::json!([]), "{v}");
    // Back off: a material change, the person's.
    let out = agent(&["criteria", "surface", "--mutants", "off"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("material change"), "{}", stderr(&out));
}

/// The goal's change under mutation: `goal log` shows, on the row of the completion whose
/// ledger carries the `mutants` record, the score and counts `goal report` shows, and its JSON
/// the same record.
#[test]
fn log_shows_the_mutation_result_the_report_shows() {
    // Shell code: no mutation tool takes it, the change is reverted all the same.
    let repo = Repo::new();
    repo.write("calc.sh", "add() {\n  echo $(( $1 - $2 ))\n}\n");
    repo.write(
        "tests/test_add.sh",
        ". ./calc.sh\nif [ \"$(add 2 2)\" = 4 ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&["add adds (verify: `sh tests/test_add.sh`)"]);
    let red = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(red.status.code(), Some(1), "{}", stderr(&red));
    repo.write("calc.sh", "add() {\n  echo $(( $1 + $2 ))\n}\n");
    repo.ok(&["verify", "-c", "1"]);
    let out = repo
        .goal()
        .args(["verify", "--mutants", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record = json(&out)["record"]["id"].as_str().unwrap().to_string();
    repo.ok(&["iterate", "-m", "fixed"]);
    repo.ok(&["done"]);
    let surfaces = every_surface(&repo);
    let get = |name: &str| {
        surfaces
            .iter()
            .find(|(s, _)| *s == name)
            .map(|(_, t)| t.clone())
            .unwrap()
    };
    let report = get("report");
    let line = report
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("Mutation: score"))
        .unwrap_or_else(|| panic!("no mutation line in the report:\n{report}"))
        .to_string();
    assert!(line.contains(&record), "{line}");
    assert!(line.contains("1 change(s) reverted, 0 unneeded"), "{line}");
    let log = get("log");
    assert!(log.contains(&line), "the log lacks {line:?}:\n{log}");
    let rows = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    let carried: Vec<&serde_json::Value> = rows
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["mutation"].is_null())
        .collect();
    assert_eq!(carried.len(), 1, "{rows}");
    assert_eq!(carried[0]["mutation"]["record"], record.as_str());
    assert_eq!(carried[0]["mutation"]["hunks"], 1);
    assert_eq!(carried[0]["mutation"]["killed"], 0);
}
