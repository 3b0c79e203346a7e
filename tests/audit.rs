//! `goal audit` and `goal report`: what a reviewer can check of a goal from git alone, replay in
//! a temporary worktree, red before green, and the pull-request summary.

use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, Instant};

use goal::evidence::{NewRecord, seal};
use goal::summary::TestCounts;

use crate::common::{Repo, commit_all, json, junit_script, last_record, project, stderr, stdout};

const GOAL: &str = ".agents/goal/GOAL.md";
const EVIDENCE: &str = ".agents/goal/evidence.jsonl";

/// A test script printing a plain summary line.
fn script(passed: u32, failed: u32) -> String {
    format!(
        "#!/bin/sh\necho \"{passed} passed, {failed} failed\"\nexit {}\n",
        u32::from(failed > 0)
    )
}

/// A test of the goal's work (`src/feature.txt`): it fails on the code before the goal, as a
/// pinned acceptance test must (red before green), and passes with `passed` tests after it.
fn feature_script(passed: u32) -> String {
    format!(
        "#!/bin/sh\nif [ ! -f src/feature.txt ]; then echo \"0 passed, {passed} failed\"; exit 1; fi\necho \"{passed} passed, 0 failed\"\n"
    )
}

/// The temporary folder `goal` gets (TMPDIR), so a test sees what it leaves behind.
fn tmp(repo: &Repo) -> PathBuf {
    let dir = repo.home().join("tmp");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn audit(repo: &Repo, args: &[&str]) -> Output {
    repo.goal()
        .arg("audit")
        .args(args)
        .env("TMPDIR", tmp(repo))
        .output()
        .unwrap()
}

/// Only the main worktree is left (and the kept ones of `goal verify`'s runs on other trees, in
/// goal's cache folder), and no temporary folder.
fn assert_clean(repo: &Repo) {
    let list = repo.git(&["worktree", "list", "--porcelain"]);
    let cache = repo.home().join(".cache").display().to_string();
    assert_eq!(
        list.lines()
            .filter(|l| l.starts_with("worktree ") && !l.contains(&cache))
            .count(),
        1,
        "{list}"
    );
    let left: Vec<_> = std::fs::read_dir(tmp(repo)).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// A goal whose two pinned tests exist only after the goal's work, proven and done.
fn finished_goal() -> Repo {
    let repo = Repo::new();
    repo.init_goal(&[
        "the parser rejects bad rows (verify: `sh tests/parser.sh`)",
        "the cli prints usage (verify: `sh tests/cli.sh`)",
    ]);
    repo.write("tests/parser.sh", &feature_script(3));
    repo.write("tests/cli.sh", &feature_script(2));
    repo.write("src/feature.txt", "the parser and the cli\n");
    repo.ok(&["verify"]);
    repo.ok(&["iterate", "-m", "implemented the parser and the cli"]);
    repo.ok(&["done"]);
    repo
}

#[test]
fn a_finished_goal_audits_clean_and_reproduces() {
    let repo = finished_goal();
    let out = audit(&repo, &["--rerun"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(text.contains("audit: ok"), "{text}");
    assert_eq!(
        text.matches("reproduced").count() - text.matches("not reproduced").count(),
        3,
        "{text}"
    );
    // Each command is printed before it runs.
    assert!(
        stderr(&out).contains("running `sh tests/parser.sh`"),
        "{}",
        stderr(&out)
    );
    let out = audit(&repo, &["--rerun", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    assert_eq!(v["ok"], true);
    let criteria = v["criteria"].as_array().unwrap();
    assert_eq!(criteria.len(), 2);
    for c in criteria {
        assert_eq!(c["replay"], "reproduced", "{c}");
        assert_eq!(c["flags"], serde_json::json!([]), "{c}");
    }
    assert_eq!(criteria[0]["number"], 1);
    assert!(
        criteria[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("the parser")
    );
    // Without --rerun, replay is null.
    let v = json(&audit(&repo, &["--json"]));
    assert_eq!(v["criteria"][0]["replay"], serde_json::Value::Null);
    assert_clean(&repo);
}

#[test]
fn bad_input_is_exit_2() {
    let repo = finished_goal();
    for args in [
        &["no-such-rev..HEAD"][..],
        &["--format", "gitlab"],
        &["--json", "--format", "github"],
        &["--", "-x"],
    ] {
        let out = audit(&repo, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    // A range with no goal commit has nothing to audit.
    let out = audit(&repo, &["HEAD..HEAD"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("nothing to audit"));
}

#[test]
fn a_result_that_depends_on_something_changed_since_is_not_reproduced() {
    let repo = Repo::new();
    let data = repo.home().join("data");
    std::fs::write(&data, "ok\n").unwrap();
    let goal = |args: &[&str]| {
        repo.goal()
            .args(args)
            .env("AUDIT_DATA", &data)
            .env("TMPDIR", tmp(&repo))
            .output()
            .unwrap()
    };
    repo.init_goal(&["rows load (verify: `sh tests/load.sh`)"]);
    repo.write(
        "tests/load.sh",
        "if [ -f src/feature.txt ] && [ \"$(cat \"$AUDIT_DATA\")\" = ok ]; then echo '2 passed, 0 failed'; else echo '1 passed, 1 failed'; exit 1; fi\n",
    );
    repo.write("src/feature.txt", "loading\n");
    for args in [
        &["verify"][..],
        &["iterate", "-m", "implemented loading"],
        &["done"],
    ] {
        let out = goal(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(goal(&["audit", "--rerun"]).status.code(), Some(0));
    std::fs::write(&data, "changed\n").unwrap();
    let out = goal(&["audit", "--rerun"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains(
            "not reproduced: recorded exit 0, 2 passed, 0 failed, 0 ignored; replayed exit 1, 1 passed, 1 failed, 0 ignored"
        ),
        "{}",
        stdout(&out)
    );
    let v = json(&goal(&["audit", "--rerun", "--json"]));
    assert_eq!(v["ok"], false);
    assert_eq!(v["criteria"][0]["replay"], "not reproduced");
    assert_eq!(v["criteria"][0]["recorded"]["exit_code"], 0);
    assert_eq!(v["criteria"][0]["replayed"]["exit_code"], 1);
    assert_eq!(v["criteria"][0]["replayed"]["tests"]["failed"], 1);
    assert_clean(&repo);
}

#[test]
fn a_tick_committed_with_no_verify_fails_with_an_annotation() {
    let repo = Repo::new();
    repo.init_goal(&[
        "the parser rejects bad rows (verify: `sh tests/parser.sh`)",
        "the cli prints usage (verify: `sh tests/cli.sh`)",
    ]);
    repo.ok(&["hooks", "install"]);
    repo.write("tests/cli.sh", &script(0, 1));
    let md = repo.goal_md();
    repo.write(GOAL, &md.replace("- [ ] the cli", "- [x] the cli"));
    repo.git(&["add", "-A"]);
    let refused = repo.git_output(&["commit", "-q", "-m", "cli done"]);
    assert!(!refused.status.success(), "the hook let the tick through");
    repo.git(&["commit", "-q", "--no-verify", "-m", "cli done"]);
    let committed = repo.git(&["show", &format!("HEAD:{GOAL}")]);
    let line = committed
        .lines()
        .position(|l| l.starts_with("- [x] the cli"))
        .unwrap()
        + 1;
    let out = audit(&repo, &["--format", "github"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    let annotation = format!("::error file={GOAL},line={line}::");
    assert!(
        text.lines()
            .any(|l| l.starts_with(&annotation) && l.contains("criterion 2 is ticked")),
        "{text}"
    );
    let v = json(&audit(&repo, &["--json"]));
    let hand_made: Vec<_> = v["commits"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["hand_made"] == true)
        .collect();
    assert_eq!(hand_made.len(), 1, "{v}");
    assert_eq!(hand_made[0]["subject"], "cli done");
}

#[test]
fn a_forged_record_in_a_fresh_clone_is_caught_by_rerun() {
    let repo = Repo::new();
    let text = "rows are parsed (verify: `sh tests/parse.sh`)";
    repo.init_goal(&[text]);
    // The real test fails: nothing is implemented (a true red run, recorded: the red witness).
    repo.write("tests/parse.sh", &script(0, 2));
    assert_eq!(
        repo.goal().arg("verify").output().unwrap().status.code(),
        Some(1)
    );
    let tree = repo.tree_by_goal();
    let ledger = repo.read(EVIDENCE);
    let prev =
        serde_json::from_str::<serde_json::Value>(ledger.lines().last().unwrap()).unwrap()["hash"]
            .as_str()
            .unwrap()
            .to_string();
    let (_, line) = seal(
        NewRecord {
            criteria: vec![(1, text.into())],
            argv: vec!["sh".into(), "tests/parse.sh".into()],
            cwd: String::new(),
            exit_code: 0,
            started: "2026-11-30T15:04:05Z".into(),
            duration_ms: 40,
            tree,
            tree_after: None,
            created: Vec::new(),
            changed: Vec::new(),
            tests: Some(TestCounts {
                passed: 2,
                failed: 0,
                ignored: 0,
            }),
            junit: Vec::new(),
            check: false,
            output: b"2 passed, 0 failed\n".to_vec(),
        },
        &prev,
    );
    repo.write(EVIDENCE, &format!("{ledger}{line}"));
    let md = repo
        .goal_md()
        .replace("- [ ] rows", "- [x] rows")
        .replace("status: in-progress", "status: complete");
    repo.write(GOAL, &md);
    repo.git(&["add", "-A"]);
    repo.git(&[
        "commit",
        "-q",
        "-m",
        "goal: complete \"Make the thing work\"\n\nGoal-Iteration: 0\nGoal-Status: complete\nGoal-Passing: 1/1\nGoal-Action: complete",
    ]);
    // Here the witness knows the record was not written by `goal verify`.
    assert_eq!(audit(&repo, &[]).status.code(), Some(1));

    let clone = tempfile::TempDir::new().unwrap();
    let dir = clone.path().join("clone");
    repo.git(&[
        "clone",
        "-q",
        repo.path().to_str().unwrap(),
        dir.to_str().unwrap(),
    ]);
    let in_clone = |args: &[&str]| {
        repo.goal_in(&dir)
            .arg("audit")
            .args(args)
            .env("TMPDIR", tmp(&repo))
            .output()
            .unwrap()
    };
    // A fresh clone has no witness: the chain and the trees check out…
    let out = in_clone(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // …and only replay shows the claim is false.
    let out = in_clone(&["--rerun", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["criteria"][0]["replay"], "not reproduced", "{v}");
    assert_eq!(v["criteria"][0]["replayed"]["tests"]["failed"], 2);
    assert_clean(&repo);
}

#[test]
fn a_test_that_passes_on_the_base_is_flagged() {
    let repo = Repo::new();
    repo.write("always.sh", &script(1, 0));
    repo.git(&["add", "always.sh"]);
    repo.git(&["commit", "-q", "-m", "an old check"]);
    // An unpinned criterion proven by an old check that passed before the goal (the agent's
    // choice of command), and an acceptance criterion (done checks it red before green).
    repo.init_goal(&[
        "the old check still passes",
        "the feature works (verify: `sh tests/feature.sh`)",
    ]);
    repo.write("tests/feature.sh", &feature_script(4));
    repo.write("src/feature.txt", "the feature\n");
    repo.ok(&["verify", "-c", "1", "--", "sh", "always.sh"]);
    repo.ok(&["verify", "-c", "2"]);
    repo.ok(&["iterate", "-m", "implemented the feature"]);
    repo.ok(&["done"]);
    let out = audit(&repo, &["--rerun", "--allow-unpinned", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(
        v["criteria"][0]["flags"],
        serde_json::json!(["unpinned", "passes-on-base"])
    );
    assert_eq!(v["criteria"][0]["base"]["exit_code"], 0);
    assert_eq!(v["criteria"][1]["flags"], serde_json::json!([]));
    // The acceptance criterion's red run is replayed on the red tree: it fails there.
    assert_eq!(v["criteria"][1]["red"]["state"], "witnessed", "{v}");
    assert_eq!(v["criteria"][1]["red_replay"], "red", "{v}");
    assert_ne!(v["criteria"][1]["red_replayed"]["exit_code"], 0);
    let out = audit(&repo, &["--rerun", "--allow-unpinned"]);
    assert!(
        stdout(&out).contains("warning: passes-on-base"),
        "{}",
        stdout(&out)
    );
    let out = audit(
        &repo,
        &["--rerun", "--allow-unpinned", "--format", "github"],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains(&format!("::warning file={GOAL},line=")),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        audit(&repo, &["--rerun", "--allow-unpinned", "--strict"])
            .status
            .code(),
        Some(1)
    );
    assert_clean(&repo);
}

#[test]
fn the_worktree_is_removed_when_interrupted() {
    let repo = Repo::new();
    repo.init_goal(&["it is slow (verify: `sh tests/slow.sh`)"]);
    repo.write(
        "tests/slow.sh",
        "if [ -n \"$AUDIT_SLOW\" ]; then touch \"$AUDIT_SLOW\"; sleep 30; fi\nif [ ! -f src/feature.txt ]; then echo '0 passed, 1 failed'; exit 1; fi\necho '1 passed, 0 failed'\n",
    );
    repo.write("src/feature.txt", "slow\n");
    repo.ok(&["verify"]);
    repo.ok(&["iterate", "-m", "implemented"]);
    repo.ok(&["done"]);
    let started = repo.home().join("started");
    let mut child = repo
        .goal_std()
        .args(["audit", "--rerun"])
        .env("AUDIT_SLOW", &started)
        .env("TMPDIR", tmp(&repo))
        .env("GOAL_SIGNAL_GRACE", "0.2")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !started.exists() {
        assert!(Instant::now() < deadline, "the replay never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("goal audit did not stop after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    assert_clean(&repo);
}

#[test]
fn an_unpinned_record_runs_only_when_allowed() {
    let repo = Repo::new();
    let marker = repo.home().join("marker");
    let goal = |args: &[&str]| {
        repo.goal()
            .args(args)
            .env("AUDIT_MARKER", &marker)
            .env("TMPDIR", tmp(&repo))
            .output()
            .unwrap()
    };
    repo.init_goal(&["the tool writes its marker file"]);
    repo.write(
        "tests/mark.sh",
        "touch \"$AUDIT_MARKER\"\necho '1 passed, 0 failed'\n",
    );
    for args in [
        &["verify", "-c", "1", "--", "sh", "tests/mark.sh"][..],
        &["iterate", "-m", "implemented the marker"],
        &["done"],
    ] {
        let out = goal(args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    }
    std::fs::remove_file(&marker).unwrap();
    let out = goal(&["audit", "--rerun", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["criteria"][0]["replay"], "skipped");
    assert!(
        v["criteria"][0]["replay_reason"]
            .as_str()
            .unwrap()
            .starts_with("unpinned"),
        "{v}"
    );
    assert_eq!(v["criteria"][0]["flags"], serde_json::json!(["unpinned"]));
    assert!(!marker.exists(), "an unpinned command ran");
    let out = goal(&["audit", "--rerun", "--allow-unpinned", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["criteria"][0]["replay"], "reproduced");
    assert!(marker.exists());
    assert_clean(&repo);
}

/// The rows of every table in a Markdown text (the header row first), cells as plain text.
fn tables(markdown: &str) -> Vec<Vec<Vec<String>>> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut tables: Vec<Vec<Vec<String>>> = Vec::new();
    let mut in_table = false;
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Table(_)) => {
                in_table = true;
                tables.push(Vec::new())
            }
            Event::End(TagEnd::Table) => in_table = false,
            Event::Start(Tag::TableHead | Tag::TableRow) => {
                tables.last_mut().unwrap().push(Vec::new())
            }
            Event::Start(Tag::TableCell) => tables
                .last_mut()
                .unwrap()
                .last_mut()
                .unwrap()
                .push(String::new()),
            Event::Text(t) | Event::Code(t) if in_table => {
                if let Some(cell) = tables
                    .last_mut()
                    .and_then(|t| t.last_mut())
                    .and_then(|r| r.last_mut())
                {
                    cell.push_str(&t);
                }
            }
            _ => {}
        }
    }
    tables
}

#[test]
fn report_markdown_is_a_github_table_of_the_evidence() {
    let repo = Repo::new();
    repo.init_goal(&[
        "the parser rejects bad rows (verify: `sh tests/parser.sh`)",
        "the cli prints usage",
    ]);
    repo.write("tests/parser.sh", &feature_script(3));
    repo.write("src/feature.txt", "the parser\n");
    repo.write("tests/cli.sh", &script(2, 0));
    repo.ok(&["verify"]);
    repo.ok(&["verify", "-c", "2", "--", "sh", "tests/cli.sh"]);
    repo.ok(&["iterate", "-m", "implemented the parser and the cli"]);
    let out = repo.goal().args(["done", "--report"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let done = stdout(&out);
    assert!(done.contains("Goal complete:"), "{done}");
    assert_eq!(tables(&done).len(), 1, "{done}");

    let out = repo.goal().args(["report", "--markdown"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let markdown = stdout(&out);
    assert!(
        markdown.starts_with("## Goal: Make the thing work"),
        "{markdown}"
    );
    let v = json(&repo.goal().args(["report", "--json"]).output().unwrap());
    let evidence = |i: usize| v["criteria"][i]["evidence"].as_str().unwrap().to_string();
    let commit = v["criteria"][0]["commit"].as_str().unwrap()[..10].to_string();
    let tables = tables(&markdown);
    assert_eq!(tables.len(), 1, "{markdown}");
    let rows = &tables[0];
    assert_eq!(
        rows[0],
        [
            "#",
            "Criterion",
            "Command",
            "Tests",
            "Red → green",
            "Evidence",
            "Commit"
        ],
        "{markdown}"
    );
    assert_eq!(rows.len(), 3, "{markdown}");
    assert_eq!(
        rows[1],
        [
            "1",
            "the parser rejects bad rows (verify: sh tests/parser.sh)",
            "sh tests/parser.sh",
            "3 passed, 0 failed",
            &format!(
                "red {} (0 passed, 3 failed) → green (3 passed, 0 failed)",
                v["criteria"][0]["red_evidence"].as_str().unwrap()
            ),
            &evidence(0),
            &commit,
        ]
    );
    assert_eq!(
        rows[2],
        [
            "2",
            "the cli prints usage",
            "sh tests/cli.sh ⚠ unpinned",
            "2 passed, 0 failed",
            "unpinned: no red run (2 passed, 0 failed)",
            &evidence(1),
            &commit,
        ]
    );
    assert_eq!(v["iterations"], 1);
    assert_eq!(v["status"], "complete");
    assert_eq!(v["criteria"][1]["pinned"], false);
}

/// A recorded material change is said once: audit and report name the change and that it was
/// recorded, not the whole trailer again after "recorded:".
#[test]
fn a_material_change_is_said_once() {
    let repo = Repo::new();
    repo.init_goal(&["a passes", "p99 latency under 200 ms"]);
    repo.ok(&["criteria", "edit", "2", "p99 latency is low", "--confirm"]);
    let want = "criterion 2 \"p99 latency under 200 ms\" → \"p99 latency is low\" (drops the number 200; recorded with --confirm)";
    let audit = stdout(&repo.goal().arg("audit").output().unwrap());
    let line = audit
        .lines()
        .find(|l| l.contains("material change in"))
        .unwrap_or_else(|| panic!("{audit}"));
    assert!(line.ends_with(want), "{line}");
    assert_eq!(
        line.matches("p99 latency under 200 ms").count(),
        1,
        "{line}"
    );
    let report = stdout(&repo.goal().arg("report").output().unwrap());
    assert!(
        report.contains(&format!("material change: {want} in ")),
        "{report}"
    );
}

/// A replayed run's output is not poured out whole (a base run is meant to fail, and its
/// failure output would bury the audit): its last lines, and the file that keeps all of it.
#[test]
fn a_replay_shows_the_tail_of_its_output_and_keeps_the_whole() {
    let repo = Repo::new();
    repo.write(
        "check.sh",
        "#!/bin/sh\nfor i in $(seq 1 40); do echo \"noise line $i\"; done\nif [ -f feature.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    repo.git(&["add", "check.sh"]);
    repo.git(&["commit", "-q", "-m", "the check"]);
    repo.init_goal(&["the feature exists (verify: `sh check.sh`)"]);
    repo.write("feature.txt", "x\n");
    repo.ok(&["verify"]);
    repo.ok(&["iterate", "-m", "the feature"]);
    repo.ok(&["done"]);
    let out = audit(&repo, &["--rerun"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("noise line 5\n"), "{err}");
    assert!(err.contains("noise line 40\n"), "{err}");
    assert!(err.contains("0 passed, 1 failed"), "{err}");
    assert!(err.contains("line(s) before these"), "{err}");
    let logs: Vec<&str> = err
        .lines()
        .filter_map(|l| l.trim().strip_prefix("(whole output: "))
        .map(|l| l.trim_end_matches(')'))
        .collect();
    assert_eq!(logs.len(), 2, "the green run and the red run: {err}");
    let whole: Vec<String> = logs
        .iter()
        .map(|l| std::fs::read_to_string(l).unwrap())
        .collect();
    assert!(
        whole
            .iter()
            .any(|w| w.contains("noise line 1\n") && w.contains("0 passed, 1 failed"))
    );
    assert_clean(&repo);
}

#[test]
fn a_junit_record_replays_with_its_reports() {
    let repo = project(&["division works (verify: `sh junit.sh`)"]);
    junit_script(&repo);
    // junit.sh is a test of div.txt (the goal's work): a failing report before it, red.
    let script = repo.read("junit.sh").replace(
        "printf",
        "[ -f div.txt ] || { printf '%s' '<testsuite name=\"t\" tests=\"1\"><testcase name=\"a\"><failure/></testcase></testsuite>' > report.xml; exit 1; }\nprintf",
    );
    repo.write("junit.sh", &script);
    repo.write("div.txt", "6 / 3\n");
    // The test surface is the goal's (GOAL.md), changed by a person.
    repo.ok(&["criteria", "surface", "--tests", "junit.sh", "--confirm"]);
    repo.write(".gitignore", "report.xml\n");
    commit_all(&repo, "junit");
    repo.ok(&["verify", "-c", "1", "--junit", "report.xml"]);
    let record = last_record(&repo);
    assert_eq!(record["junit"], serde_json::json!(["report.xml"]));
    repo.ok(&["iterate", "-m", "implemented division"]);
    repo.ok(&["done"]);
    let out = repo
        .goal()
        .args(["audit", "--rerun", "--json"])
        .output()
        .unwrap();
    let audit = json(&out);
    assert_eq!(audit["criteria"][0]["replay"], "reproduced", "{audit}");
}

/// The history under the init commit rewritten by the agent: a new base holding a weakened test
/// and no code, the init commit made again on it (its `Goal-Base` trailer kept, or rewritten to
/// agree). The red run would see the test fail there (no code at all) and the tests unweakened
/// against that base: without the pinned base the goal completes with the bug in.
const REWRITE: &str = r#"set -e
init=$(git rev-parse HEAD)
weak=$(printf '%s\n' 'out=$(sh calc.sh 2 3) || { echo "0 passed, 1 failed"; exit 1; }' 'echo "1 passed, 0 failed"' | git hash-object -w --stdin)
export GIT_INDEX_FILE="$PWD/.git/rewrite-index"
git read-tree --empty
git update-index --add --cacheinfo "100644,$weak,test.sh"
base=$(git commit-tree "$(git write-tree)" -m project)
git read-tree "$init"
git update-index --cacheinfo "100644,$weak,test.sh"
tree=$(git write-tree)
rm -f "$GIT_INDEX_FILE"
unset GIT_INDEX_FILE
git log -1 --format=%B "$init" > .git/rewrite-msg
if [ -n "$AGREE" ]; then sed -i "s/^Goal-Base: .*/Goal-Base: $base/" .git/rewrite-msg; fi
new=$(git commit-tree "$tree" -p "$base" -F .git/rewrite-msg)
git reset -q --hard "$new"
"#;

#[test]
fn a_base_rewritten_under_the_init_commit_refuses_done_and_fails_audit() {
    for agree in ["", "1"] {
        let repo = Repo::new();
        repo.write("calc.sh", "echo $(($1 - $2))\n");
        repo.write(
            "test.sh",
            "[ \"$(sh calc.sh 2 3)\" = 5 ] || { echo \"0 passed, 1 failed\"; exit 1; }\necho \"1 passed, 0 failed\"\n",
        );
        commit_all(&repo, "project");
        let base = repo.head();
        repo.init_goal(&["calc adds (verify: `sh test.sh`)"]);
        assert_eq!(
            repo.trailer("HEAD", "Goal-Base").as_deref(),
            Some(base.as_str())
        );
        let out = repo
            .command("sh")
            .args(["-c", REWRITE])
            .env("AGREE", agree)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        if !agree.is_empty() {
            assert_ne!(
                repo.trailer("HEAD", "Goal-Base").as_deref(),
                Some(base.as_str())
            );
        }
        repo.ok(&["verify", "-c", "1"]);
        repo.ok(&["iterate", "-m", "the test passes"]);
        let err = repo.refused(&["done"], 1, &["base-rewritten: the goal's init commit"]);
        let place = if agree.is_empty() {
            "Goal-Base trailer"
        } else {
            "its ref"
        };
        assert!(err.contains(place), "{agree:?}: {err}");
        assert!(repo.exists(GOAL), "nothing completed");
        let audit = repo.goal().args(["audit", "--json"]).output().unwrap();
        assert_ne!(audit.status.code(), Some(0), "{}", stdout(&audit));
        assert!(
            stdout(&audit).contains("base-rewritten: the goal's init commit"),
            "{}",
            stdout(&audit)
        );
        let log = json(&repo.goal().args(["log", "--json"]).output().unwrap());
        assert!(
            log.as_array().unwrap().iter().any(|r| r["flags"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f == "base-rewritten")),
            "{log}"
        );
    }
}

/// A goal whose history is as `goal init` left it: its base pinned, nothing flagged; a person's
/// rebase is accepted with `--confirm` and recorded.
#[test]
fn a_pinned_base_is_quiet_and_a_persons_rebase_is_confirmed() {
    let repo = Repo::new();
    repo.write("feature.sh", &feature_script(1));
    commit_all(&repo, "project");
    repo.init_goal(&["the feature exists (verify: `sh feature.sh`)"]);
    // Red first: the feature is not there yet.
    let red = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(red.status.code(), Some(1), "{}", stderr(&red));
    repo.write("src/feature.txt", "x\n");
    repo.ok(&["verify", "-c", "1"]);
    commit_all(&repo, "feature");
    repo.ok(&["iterate", "-m", "feature"]);
    let audit = repo.goal().args(["audit"]).output().unwrap();
    assert!(
        !stdout(&audit).contains("base-rewritten"),
        "{}",
        stdout(&audit)
    );
    // The person amends the base (a rebase of sorts): done refuses, then --confirm records it.
    let out = repo
        .command("sh")
        .args(["-c", "set -e; b=$(git rev-list --max-parents=0 HEAD); git rebase -q --onto $(git commit-tree $b^{tree} -m rebased) $b"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    repo.refused(&["done"], 1, &["base-rewritten", "goal done --confirm"]);
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["done", "--confirm"]);
    let trailers = repo.git(&["log", "-2", "--format=%B"]);
    assert!(
        trailers.contains("Goal-Tests-Weakened: base-rewritten"),
        "{trailers}"
    );
}
