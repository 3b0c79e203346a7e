//! A dishonest agent tries to call unfinished work finished. Every attempt must fail, or be
//! flagged by `goal log`. Also: nothing user-controlled reaches a shell or a hook, paths cannot
//! escape the worktree, and oversized files are refused rather than hung on.

use goal::evidence::{NewRecord, seal};
use goal::summary::TestCounts;

use crate::common::{EVIDENCE, GOAL, Repo, json, stderr, stdout};

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

/// Stage everything and commit: the installed hooks refuse it, saying each of `words`.
#[track_caller]
fn commit_refused(repo: &Repo, message: &str, words: &[&str]) -> String {
    repo.git(&["add", "-A"]);
    repo.git_refused(&["commit", "-m", message], words)
}

fn log_flags(repo: &Repo) -> Vec<String> {
    repo.log_flags().into_iter().flatten().collect()
}

#[test]
fn ticking_a_box_by_hand_is_refused() {
    let repo = agent();
    tick(&repo, 1);
    commit_refused(&repo, "parser done", &["criterion 1"]);
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
    let tree = repo.tree_by_goal();
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
    repo.refused(
        &["done"],
        1,
        &[
            "the goal is not proven done",
            "was not recorded by `goal verify`",
        ],
    );
    tick(&repo, 1);
    commit_refused(&repo, "parser done", &[&forged.id]);
    // Past the hook, `goal log` flags it.
    repo.git(&["commit", "-q", "--no-verify", "-m", "parser done"]);
    repo.ok(&["iterate", "-m", "more"]);
    assert!(log_flags(&repo).contains(&"unverified-check".to_string()));
}

#[test]
fn a_command_that_runs_no_test_proves_nothing() {
    let repo = agent();
    for (argv, reason) in [
        (&["sh", "none.sh"][..], "no tests ran"),
        (&["true"], "`true` is not evidence"),
        (
            &["echo", "all tests passed"],
            "`echo 'all tests passed'` is not evidence",
        ),
    ] {
        let args = [&["verify", "-c", "1", "--"][..], argv].concat();
        repo.refused(&args, 1, &[reason]);
        assert!(repo.goal_md().contains("- [ ] the parser"), "{argv:?}");
    }
    repo.refused(
        &["done"],
        1,
        &["the goal is not proven done", "no tests ran"],
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
    commit_refused(&repo, "done", &["stale"]);
}

#[test]
fn removing_or_watering_down_a_hard_criterion_is_refused() {
    let repo = agent();
    // By hand: removed, and reworded into something trivially true.
    let md = repo.goal_md();
    repo.write(GOAL, &md.replace("- [ ] p99 latency under 200 ms\n", ""));
    commit_refused(&repo, "drop it", &["Goal-Material-Change"]);
    repo.write(
        GOAL,
        &md.replace("p99 latency under 200 ms", "the service starts"),
    );
    commit_refused(&repo, "reword it", &["Goal-Material-Change"]);
    repo.git(&["reset", "-q", "--hard"]);
    // With goal: refused without --confirm; with it, recorded and flagged.
    repo.refused(
        &["criteria", "edit", "2", "latency is fine"],
        1,
        &["is a material change", "drops the number 99, 200"],
    );
    repo.refused(
        &["criteria", "edit", "2", "true"],
        1,
        &["is a material change", "drops the number 99, 200"],
    );
    repo.refused(
        &["criteria", "remove", "2"],
        1,
        &["removing criterion 2", "is a material change"],
    );
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
    commit_refused(&repo, "all done", &["criterion 2", "status `complete`"]);
    // done itself refuses a goal with an unproven criterion, whatever the frontmatter says.
    repo.refused(
        &["done"],
        1,
        &[
            "the goal is not proven done",
            "criterion 2 \"p99 latency under 200 ms\": no evidence names it",
        ],
    );
}

#[test]
fn deleting_a_failing_record_breaks_the_chain() {
    let repo = agent();
    repo.test_script("fail.sh", 2, 1);
    repo.refused(
        &["verify", "-c", "1", "--", "sh", "fail.sh"],
        1,
        &["exited 1", "criterion 1 not passed"],
    );
    repo.ok(&["verify", "-c", "2", "--", "sh", "pass.sh"]);
    let lines: Vec<String> = repo.read(EVIDENCE).lines().map(str::to_string).collect();
    repo.write(EVIDENCE, &format!("{}\n", lines[1]));
    let out = repo.goal().args(["check", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("does not verify"), "{}", stderr(&out));
    // goal's own commits refuse it too; a hand-made iteration commit past the hook is flagged
    // by `goal log` (SPEC §4).
    tick(&repo, 2);
    repo.refused(
        &["iterate", "-m", "latency done"],
        1,
        &[
            "commit refused by the goal gate",
            "evidence.jsonl does not verify",
        ],
    );
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
    // The notify command records the argument it was given, to check the text arrived intact.
    let notified = repo.home().join("notified");
    let recorder = repo.home().join("notify.sh");
    std::fs::write(
        &recorder,
        format!("printf '%s\\n' \"$1\" >> '{}'\n", notified.display()),
    )
    .unwrap();
    repo.git(&[
        "config",
        "goal.notify",
        &format!("sh '{}'", recorder.display()),
    ]);
    repo.git(&["config", "goal.escalateAfter", "0"]);
    repo.git(&["config", "goal.stagnationWindow", "1"]);
    repo.ok(&["init", &evil, "-c", &evil]);
    repo.ok(&["criteria", "add", &evil]);
    // Escalation runs the notify command with the goal text as its argument.
    repo.refused(
        &["iterate", "-m", &evil],
        1,
        &["goal: escalated", "is blocked"],
    );
    repo.ok(&["resume"]);
    repo.ok(&["block", "--reason", &evil]);
    repo.ok(&["hooks", "install"]);
    repo.ok(&["log"]);
    assert!(!marker.exists(), "a shell ran user text");
    let arrived = std::fs::read_to_string(&notified).expect("notify ran");
    assert_eq!(
        arrived,
        format!(
            "goal blocked: {evil} — Stagnation: no progress over 1 iterations after 0 \
             auto-recoveries (S1 criteria passing count flat for 1 iterations: yes, S2 no \
             progress words in the log: yes, S3 no net code change: yes); a person should look \
             at the approach\n"
        ),
        "notify got the hostile text as one intact argument"
    );
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
    repo.refused(
        &["verify", "-c", "1", "--", "true"],
        2,
        &["evidence.jsonl resolves outside the worktree"],
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("evidence.jsonl")).unwrap(),
        ""
    );
}

/// How long one command on an oversized goal may take before the test calls it hung.
const BOUND: std::time::Duration = std::time::Duration::from_secs(60);

#[test]
fn oversized_goal_files_are_refused_or_handled() {
    // 50 MB: refused at once, untouched.
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let mut big = repo.goal_md();
    big.push_str(&"- filler line of a progress log that goes on and on\n".repeat(1_000_000));
    repo.write(GOAL, &big);
    // Refused rather than hung on: a bound far above the few milliseconds a refusal takes, and
    // far below what reading 50 MB line by line would take on a loaded machine.
    let started = std::time::Instant::now();
    let out = repo
        .goal()
        .arg("status")
        .timeout(BOUND)
        .output()
        .expect("a 50 MB GOAL.md is refused within the bound, not hung on");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("at most"), "{}", stderr(&out));
    assert_eq!(repo.read(GOAL).len(), big.len());
    assert!(started.elapsed() < BOUND);
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
    let out = repo
        .goal()
        .args(["status", "--json"])
        .timeout(BOUND)
        .output()
        .expect("status on 100,000 criteria within the bound");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(json(&out)["total"], 100_000);
    repo.goal()
        .args(["iterate", "-m", "one step"])
        .timeout(BOUND)
        .assert()
        .success();
    let out = repo
        .goal()
        .arg("inject")
        .timeout(BOUND)
        .output()
        .expect("inject on 100,000 criteria within the bound");
    assert!(stdout(&out).contains("Progress: 0/100000 criteria passed, iteration 1"));
    eprintln!(
        "100,000 criteria: status, iterate and inject in {:?}",
        started.elapsed()
    );
}
