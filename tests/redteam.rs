//! A dishonest agent tries to call unfinished work finished. Every attempt must fail, or be
//! flagged by `goal log`. Also: nothing user-controlled reaches a shell or a hook, paths cannot
//! escape the worktree, and oversized files are refused rather than hung on.

use goal::evidence::{NewRecord, seal};
use goal::summary::TestCounts;

use crate::support::{Repo, json, stderr, stdout};

const GOAL: &str = ".agents/goal/GOAL.md";
const EVIDENCE: &str = ".agents/goal/evidence.jsonl";

fn agent() -> Repo {
    let repo = Repo::new();
    repo.init_goal(&[
        "the parser rejects malformed rows (cargo test parser passes)",
        "p99 latency under 200 ms",
    ]);
    repo.ok(&["hooks", "install"]);
    repo.test_script("pass.sh", 3, 0);
    repo.test_script("none.sh", 0, 0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "scripts"]);
    repo
}

fn tick(repo: &Repo, n: usize) {
    let md = repo.goal_md();
    let text = repo
        .goal()
        .args(["status", "--json"])
        .output()
        .map(|o| {
            json(&o)["criteria"][n - 1]["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .unwrap();
    repo.write(
        GOAL,
        &md.replace(&format!("- [ ] {text}"), &format!("- [x] {text}")),
    );
}

fn commit_refused(repo: &Repo, message: &str) -> String {
    repo.git(&["add", "-A"]);
    let out = repo.git_output(&["commit", "-m", message]);
    assert!(!out.status.success(), "the commit `{message}` went through");
    stderr(&out)
}

fn log_flags(repo: &Repo) -> Vec<String> {
    repo.log_flags().into_iter().flatten().collect()
}

#[test]
fn ticking_a_box_by_hand_is_refused() {
    let repo = agent();
    tick(&repo, 1);
    let err = commit_refused(&repo, "parser done");
    assert!(err.contains("criterion 1"), "{err}");
    // goal's own iteration takes the tick back instead of committing it.
    repo.ok(&["iterate", "-m", "done"]);
    let committed = repo.git(&["show", &format!("HEAD:{GOAL}")]);
    assert!(committed.contains("- [ ] the parser"), "{committed}");
}

#[test]
fn a_no_verify_commit_is_flagged_by_log() {
    let repo = agent();
    tick(&repo, 1);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "sneak"]);
    repo.ok(&["iterate", "-m", "more"]);
    assert!(log_flags(&repo).contains(&"unverified-check".to_string()));
}

#[test]
fn a_forged_record_with_a_valid_chain_is_not_evidence() {
    let repo = agent();
    repo.write("src/parser.rs", "// nothing implemented\n");
    // The agent computes the tree and writes a perfectly chained, passing record for it.
    repo.ok(&["verify", "-c", "2", "--", "sh", "pass.sh"]);
    let tree = json(
        &repo
            .goal()
            .args(["verify", "--json", "--check", "--", "sh", "-c", "exit 0"])
            .output()
            .unwrap(),
    )["record"]["tree"]
        .as_str()
        .unwrap()
        .to_string();
    let text = repo.read(EVIDENCE);
    let prev = text
        .lines()
        .last()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["hash"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .unwrap();
    let (forged, line) = seal(
        NewRecord {
            criteria: vec![(
                1,
                "the parser rejects malformed rows (cargo test parser passes)".into(),
            )],
            argv: vec!["cargo".into(), "test".into(), "parser".into()],
            cwd: String::new(),
            exit_code: 0,
            started: "2026-11-30T15:04:05Z".into(),
            duration_ms: 812,
            tree,
            tree_after: None,
            created: Vec::new(),
            changed: Vec::new(),
            tests: Some(TestCounts {
                passed: 12,
                failed: 0,
                ignored: 0,
            }),
            junit: Vec::new(),
            check: false,
            output: b"test result: ok. 12 passed; 0 failed; 0 ignored\n".to_vec(),
        },
        &prev,
    );
    repo.write(EVIDENCE, &format!("{text}{line}"));
    // check, done and the hook refuse it, naming it.
    let out = repo.goal().args(["check", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&forged.id) && stderr(&out).contains("not recorded by `goal verify`"),
        "{}",
        stderr(&out)
    );
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    tick(&repo, 1);
    let err = commit_refused(&repo, "parser done");
    assert!(err.contains(&forged.id), "{err}");
    // Past the hook, `goal log` flags it.
    repo.git(&["commit", "-q", "--no-verify", "-m", "parser done"]);
    repo.ok(&["iterate", "-m", "more"]);
    assert!(log_flags(&repo).contains(&"unverified-check".to_string()));
}

#[test]
fn a_command_that_runs_no_test_proves_nothing() {
    let repo = agent();
    for argv in [
        &["sh", "none.sh"][..],
        &["true"],
        &["echo", "all tests passed"],
    ] {
        let mut cmd = repo.goal();
        cmd.args(["verify", "-c", "1", "--"]).args(argv);
        cmd.assert().code(1);
        assert!(repo.goal_md().contains("- [ ] the parser"), "{argv:?}");
    }
    assert_eq!(
        repo.goal().arg("done").output().unwrap().status.code(),
        Some(1)
    );
}

#[test]
fn verifying_then_changing_the_code_makes_the_proof_stale() {
    let repo = agent();
    repo.ok(&["verify", "-c", "1", "-c", "2", "--", "sh", "pass.sh"]);
    repo.write("src/parser.rs", "// a change after the test run\n");
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("stale"), "{}", stderr(&out));
    let err = commit_refused(&repo, "done");
    assert!(err.contains("stale"), "{err}");
}

#[test]
fn removing_or_watering_down_a_hard_criterion_is_refused() {
    let repo = agent();
    // By hand: removed, and reworded into something trivially true.
    let md = repo.goal_md();
    repo.write(GOAL, &md.replace("- [ ] p99 latency under 200 ms\n", ""));
    assert!(commit_refused(&repo, "drop it").contains("Goal-Material-Change"));
    repo.write(
        GOAL,
        &md.replace("p99 latency under 200 ms", "the service starts"),
    );
    assert!(commit_refused(&repo, "reword it").contains("Goal-Material-Change"));
    repo.git(&["reset", "-q", "--hard"]);
    // With goal: refused without --confirm; with it, recorded and flagged.
    repo.goal()
        .args(["criteria", "edit", "2", "latency is fine"])
        .assert()
        .code(1);
    repo.goal()
        .args(["criteria", "edit", "2", "true"])
        .assert()
        .code(1);
    repo.goal()
        .args(["criteria", "remove", "2"])
        .assert()
        .code(1);
    repo.ok(&["criteria", "remove", "2", "--confirm"]);
    assert!(log_flags(&repo).contains(&"material-change".to_string()));
}

#[test]
fn status_complete_by_hand_is_refused() {
    let repo = agent();
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.write(
        GOAL,
        &repo
            .goal_md()
            .replace("status: in-progress", "status: complete"),
    );
    let err = commit_refused(&repo, "all done");
    assert!(
        err.contains("criterion 2") && err.contains("status `complete`"),
        "{err}"
    );
    // done itself refuses a goal with an unproven criterion, whatever the frontmatter says.
    assert_eq!(
        repo.goal().arg("done").output().unwrap().status.code(),
        Some(1)
    );
}

#[test]
fn deleting_a_failing_record_breaks_the_chain() {
    let repo = agent();
    repo.test_script("fail.sh", 2, 1);
    repo.goal()
        .args(["verify", "-c", "1", "--", "sh", "fail.sh"])
        .assert()
        .code(1);
    repo.ok(&["verify", "-c", "2", "--", "sh", "pass.sh"]);
    let lines: Vec<String> = repo.read(EVIDENCE).lines().map(str::to_string).collect();
    repo.write(EVIDENCE, &format!("{}\n", lines[1]));
    let out = repo.goal().args(["check", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("does not verify"), "{}", stderr(&out));
    // goal's own commits refuse it too; a hand-made iteration commit past the hook is flagged
    // by `goal log` (SPEC §4).
    tick(&repo, 2);
    repo.goal()
        .args(["iterate", "-m", "latency done"])
        .assert()
        .code(1);
    repo.git(&["add", "-A"]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        "goal: iteration 1: latency done\n\nGoal-Iteration: 1\nGoal-Status: in-progress\nGoal-Passing: 1/2\nGoal-Action: iterate",
    ]);
    assert!(log_flags(&repo).contains(&"broken-evidence-chain".to_string()));
}

#[test]
fn goal_text_never_reaches_a_shell() {
    let repo = Repo::new();
    let marker = repo.path().join("pwned");
    let evil = format!(
        "$(touch {m}) `touch {m}` ; touch {m} && touch {m}",
        m = marker.display()
    );
    repo.git(&["config", "goal.notify", "true"]);
    repo.git(&["config", "goal.escalateAfter", "0"]);
    repo.git(&["config", "goal.stagnationWindow", "1"]);
    repo.ok(&["init", &evil, "-c", &evil]);
    repo.ok(&["criteria", "add", &evil]);
    // Escalation runs the notify command with the goal text as its argument.
    repo.goal().args(["iterate", "-m", &evil]).assert().code(1);
    repo.ok(&["resume"]);
    repo.ok(&["block", "--reason", &evil]);
    repo.ok(&["hooks", "install"]);
    repo.ok(&["log"]);
    assert!(!marker.exists(), "a shell ran user text");
    // The installed hooks hold no user text.
    for hook in ["pre-commit", "commit-msg"] {
        let text = repo.read(&format!(".git/hooks/{hook}"));
        assert!(!text.contains("touch"), "{hook}: {text}");
    }
}

#[test]
fn paths_cannot_escape_the_worktree() {
    let repo = Repo::new();
    let outside = tempfile::TempDir::new().unwrap();
    let target = outside.path().join("GOAL.md");
    for file in [
        "../escape/GOAL.md".to_string(),
        target.display().to_string(),
    ] {
        let out = repo
            .goal()
            .args(["--file", &file, "init", "x", "-c", "a passes"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}: {}", stderr(&out));
        let out = repo
            .goal()
            .env("GOAL_FILE", &file)
            .args(["status"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{file}");
    }
    assert!(!target.exists());
    // A goal file elsewhere inside the worktree is fine.
    repo.ok(&["--file", "docs/goal/GOAL.md", "init", "x", "-c", "a passes"]);
    assert!(repo.exists("docs/goal/GOAL.md"));
    // evidence.jsonl symlinked out of the worktree is refused.
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    std::fs::write(outside.path().join("evidence.jsonl"), "").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("evidence.jsonl"),
        repo.path().join(EVIDENCE),
    )
    .unwrap();
    repo.goal()
        .args(["verify", "-c", "1", "--", "true"])
        .assert()
        .code(2);
    assert_eq!(
        std::fs::read_to_string(outside.path().join("evidence.jsonl")).unwrap(),
        ""
    );
}

#[test]
fn oversized_goal_files_are_refused_or_handled() {
    // 50 MB: refused at once, untouched.
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let mut big = repo.goal_md();
    big.push_str(&"- filler line of a progress log that goes on and on\n".repeat(1_000_000));
    repo.write(GOAL, &big);
    let started = std::time::Instant::now();
    let out = repo.goal().arg("status").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("at most"), "{}", stderr(&out));
    assert_eq!(repo.read(GOAL).len(), big.len());
    eprintln!("50 MB GOAL.md refused in {:?}", started.elapsed());

    // 100,000 criteria: handled.
    let repo = Repo::new();
    let criteria: String = (1..=100_000)
        .map(|i| format!("- [ ] criterion {i} passes\n"))
        .collect();
    let text = format!(
        "---\ngoal: \"many\"\niteration: 0\nstatus: in-progress\n---\n## Acceptance Criteria\n{criteria}## Progress Log\n"
    );
    repo.write(GOAL, &text);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "big goal"]);
    let started = std::time::Instant::now();
    let out = repo.goal().args(["status", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["total"], 100_000);
    repo.ok(&["iterate", "-m", "one step"]);
    let out = repo.goal().arg("inject").output().unwrap();
    assert!(stdout(&out).contains("Progress: 0/100000 criteria passed, iteration 1"));
    eprintln!(
        "100,000 criteria: status, iterate and inject in {:?}",
        started.elapsed()
    );
}
