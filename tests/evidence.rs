//! Evidence, the gate, done and the hooks: an agent must not be able to call a goal done without
//! test evidence bound to the code it claims to prove.

use crate::common::{EVIDENCE, GOAL, Repo, json, project, stderr, stdout};

pub(crate) fn records(repo: &Repo) -> Vec<serde_json::Value> {
    repo.read(EVIDENCE)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub(crate) fn setup(criteria: &[&str]) -> Repo {
    let repo = Repo::new();
    repo.init_goal(criteria);
    repo.test_script("pass.sh", 3, 0);
    repo.test_script("fail.sh", 2, 1);
    repo.test_script("none.sh", 0, 0);
    repo
}

#[test]
pub(crate) fn verify_records_evidence_bound_to_the_tree_and_ticks() {
    let repo = setup(&["a passes", "b passes"]);
    repo.write("src/new.rs", "untracked but counted\n");
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "pass.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "3 passed, 0 failed\n",
        "the command's output streams through"
    );
    let r = &records(&repo)[0];
    assert_eq!(r["criteria"], serde_json::json!([1]));
    assert_eq!(r["argv"], serde_json::json!(["sh", "pass.sh"]));
    assert_eq!(r["exit_code"], 0);
    assert_eq!(r["started"], "2026-11-30T15:04:05Z");
    assert!(r["duration_ms"].is_u64());
    assert_eq!(r["tree"], repo.tree_by_git());
    assert_eq!(
        r["tests"],
        serde_json::json!({"passed": 3, "failed": 0, "ignored": 0})
    );
    assert_eq!(r["output_tail"], serde_json::json!(["3 passed, 0 failed"]));
    assert_eq!(r["output_sha256"].as_str().unwrap().len(), 64);
    assert!(r["id"].as_str().unwrap().len() >= 8);
    assert!(repo.goal_md().contains("- [x] a passes\n- [ ] b passes\n"));
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["evidence"], r["id"]);
    // verify does not commit.
    assert!(repo.status_porcelain().contains(".agents/"));
}

#[test]
pub(crate) fn verify_exits_with_the_commands_code_and_unticks_on_failure() {
    let repo = setup(&["a passes"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.write("exit3.sh", "echo '1 passed, 1 failed'\nexit 3\n");
    repo.refused(
        &["verify", "-c", "1", "--", "sh", "exit3.sh"],
        3,
        &["exited 3", "criterion 1 not passed"],
    );
    assert!(repo.goal_md().contains("- [ ] a passes\n"));
    assert_eq!(records(&repo).len(), 2);
    assert_eq!(records(&repo)[1]["prev"], records(&repo)[0]["hash"]);
}

#[test]
pub(crate) fn a_run_with_no_tests_or_no_summary_proves_nothing_unless_asked_as_a_check() {
    let repo = setup(&["a passes"]);
    // Exit 0 that proves nothing is exit 1: the caller must not read it as success.
    repo.goal()
        .args(["verify", "-c", "1", "--", "sh", "none.sh"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("no tests ran"));
    assert!(repo.goal_md().contains("- [ ] a passes\n"), "0 tests ran");
    repo.write("lint.sh", "exit 0\n");
    repo.goal()
        .args(["verify", "-c", "1", "--", "sh", "lint.sh"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("printed no test summary"));
    assert!(
        repo.goal_md().contains("- [ ] a passes\n"),
        "no summary, no --check"
    );
    repo.ok(&["verify", "-c", "1", "--check", "--", "sh", "lint.sh"]);
    assert!(
        repo.goal_md().contains("- [x] a passes\n"),
        "a check, asked for"
    );
    // ... but a check alone cannot complete the goal.
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no passing test evidence"),
        "{}",
        stderr(&out)
    );
}

#[test]
pub(crate) fn a_command_that_cannot_start_is_exit_2_and_records_nothing() {
    let repo = setup(&["a passes"]);
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "no-such-program-xyz"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no-such-program-xyz"));
    assert!(!repo.exists(EVIDENCE));
    repo.refused(
        &["verify", "-c", "7", "--", "sh", "pass.sh"],
        2,
        &["there is no criterion 7"],
    );
    assert!(!repo.exists(EVIDENCE));
}

#[test]
pub(crate) fn check_needs_fresh_passing_evidence_and_uncheck_always_works() {
    let repo = setup(&["a passes", "b passes"]);
    let out = repo.goal().args(["check", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("goal verify -c 1 -- <test command>"),
        "{}",
        stderr(&out)
    );
    repo.ok(&["verify", "-c", "1", "-c", "2", "--", "sh", "pass.sh"]);
    repo.ok(&["uncheck", "2"]);
    assert!(repo.goal_md().contains("- [ ] b passes\n"));
    repo.ok(&["check", "2"]);
    assert!(repo.goal_md().contains("- [x] b passes\n"));
    repo.ok(&["uncheck", "2"]);
    // Editing code makes the evidence stale.
    repo.write("src/lib.rs", "changed\n");
    let out = repo.goal().args(["check", "2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("stale"), "{}", stderr(&out));
    // A record that failed cannot be named either.
    std::fs::remove_file(repo.path().join("src/lib.rs")).unwrap();
    repo.refused(
        &["verify", "-c", "2", "--", "sh", "fail.sh"],
        1,
        &["exited 1", "criterion 2 not passed"],
    );
    let id = records(&repo)[1]["id"].as_str().unwrap().to_string();
    repo.refused(
        &["check", "2", "--evidence", &id],
        1,
        &["cannot check criterion 2", "failed: `sh fail.sh` exited 1"],
    );
}

#[test]
pub(crate) fn iterate_unticks_a_tick_without_proof_and_commits() {
    let repo = setup(&["a passes"]);
    let ticked = repo.goal_md().replace("- [ ] a passes", "- [x] a passes");
    repo.write(GOAL, &ticked);
    let head = repo.head();
    let out = repo
        .goal()
        .args(["iterate", "-m", "done by hand"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("unticked criterion 1 (open): no evidence names it"),
        "{}",
        stdout(&out)
    );
    assert_ne!(repo.head(), head, "the iteration is recorded");
    let committed = repo.git(&["show", &format!("HEAD:{GOAL}")]);
    assert!(committed.contains("- [ ] a passes"), "{committed}");
    assert!(
        repo.goal_md().contains("- [ ] a passes"),
        "the working file too"
    );
    let trailers = repo.trailers("HEAD");
    assert!(
        trailers.contains(&("Goal-Passing".to_string(), "0/1".to_string())),
        "{trailers:?}"
    );
}

#[test]
pub(crate) fn done_is_refused_for_each_missing_proof() {
    // (setup of criterion 1's evidence, expected words)
    let cases: &[(&[&str], &str)] = &[
        (&[], "no evidence"),
        (&["sh", "fail.sh"], "failed"),
        (&["sh", "none.sh"], "no tests ran"),
        (&["sh", "-c", "exit 0"], "no test summary"),
    ];
    for (argv, words) in cases {
        let repo = setup(&["a passes"]);
        if !argv.is_empty() {
            let mut cmd = repo.goal();
            cmd.args(["verify", "-c", "1", "--"]).args(*argv);
            cmd.output().unwrap();
        }
        let head = repo.head();
        let out = repo.goal().arg("done").output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{argv:?}");
        assert!(stderr(&out).contains(words), "{argv:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).matches("red flag").count(),
            1,
            "one red flag, said once: {}",
            stderr(&out)
        );
        assert_eq!(repo.head(), head);
    }
    // Stale.
    let repo = setup(&["a passes"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.write("late.rs", "edit after the test run\n");
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("stale"), "{}", stderr(&out));
    // Blocked, and no criteria.
    repo.ok(&["block", "--reason", "r"]);
    assert!(stderr(&repo.goal().arg("done").output().unwrap()).contains("goal resume"));
    let repo = Repo::new();
    repo.ok(&["init", "nothing to check"]);
    assert!(stderr(&repo.goal().arg("done").output().unwrap()).contains("no criteria"));
}

#[test]
pub(crate) fn done_commits_twice_deletes_the_goal_and_summarises() {
    let repo = setup(&["a passes", "b passes"]);
    repo.write("src/lib.rs", "pub fn f() {}\n// TODO: tidy\n");
    repo.ok(&["verify", "-c", "1", "-c", "2", "--", "sh", "pass.sh"]);
    let id = records(&repo)[0]["id"].as_str().unwrap().to_string();
    let before = repo.commit_count();
    let out = repo
        .goal()
        .args(["done", "--json", "--deslop", "exit 4"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["goal"], "Make the thing work");
    assert_eq!(v["criteria"][0]["evidence"], id.as_str());
    assert_eq!(
        v["criteria"][1]["tests"],
        serde_json::json!({"passed": 3, "failed": 0, "ignored": 0})
    );
    assert_eq!(v["deslop_commands"][0]["exit_code"], 4);
    assert!(
        stderr(&out).contains("deslop command `exit 4` exited 4"),
        "{}",
        stderr(&out)
    );
    let kinds: Vec<&str> = v["deslop"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["todo"]);
    assert_eq!(v["files_changed"], 4);
    assert_eq!(repo.commit_count(), before + 2);
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Evidence").as_deref(),
        Some(id.as_str())
    );
    assert!(
        repo.git(&["show", "HEAD~1:.agents/goal/GOAL.md"])
            .contains("- [x] a passes\n- [x] b passes\n")
    );
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("complete")
    );
    assert!(!repo.exists(".agents/goal"));
    assert_eq!(repo.status_porcelain(), "");
    repo.assert_fsck();
}

#[test]
pub(crate) fn a_hand_edited_evidence_record_is_caught() {
    let repo = setup(&["a passes"]);
    repo.ok(&["hooks", "install"]);
    repo.refused(
        &["verify", "-c", "1", "--", "sh", "fail.sh"],
        1,
        &["exited 1", "criterion 1 not passed"],
    );
    let text = repo
        .read(EVIDENCE)
        .replace("\"exit_code\":1", "\"exit_code\":0");
    let text = text.replace("\"failed\":1", "\"failed\":0");
    repo.write(EVIDENCE, &text);
    let id = records(&repo)[0]["id"].as_str().unwrap().to_string();
    let out = repo.goal().args(["check", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(&id), "{}", stderr(&out));
    repo.write(
        GOAL,
        &repo.goal_md().replace("- [ ] a passes", "- [x] a passes"),
    );
    repo.git(&["add", "-A"]);
    let out = repo.git_output(&["commit", "-m", "forged"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("evidence.jsonl does not verify"),
        "{}",
        stderr(&out)
    );
}

#[test]
pub(crate) fn housekeeping_commits_keep_unproven_ticks_out_of_history_but_not_out_of_the_file() {
    let repo = setup(&["a passes"]);
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    // The tick is proven on the working tree, not on HEAD's code: `block` commits it unticked.
    repo.ok(&["block", "--reason", "waiting for review"]);
    assert!(
        repo.git(&["show", "HEAD:.agents/goal/GOAL.md"])
            .contains("- [ ] a passes")
    );
    assert_eq!(repo.trailer("HEAD", "Goal-Passing").as_deref(), Some("0/1"));
    assert!(repo.goal_md().contains("- [x] a passes"));
    repo.ok(&["resume"]);
    // `iterate` commits the code with the tick and its evidence.
    repo.ok(&["iterate", "-m", "implemented a"]);
    assert!(
        repo.git(&["show", "HEAD:.agents/goal/GOAL.md"])
            .contains("- [x] a passes")
    );
    assert_eq!(repo.trailer("HEAD", "Goal-Passing").as_deref(), Some("1/1"));
    let id = records(&repo)[0]["id"].as_str().unwrap().to_string();
    assert_eq!(repo.trailer("HEAD", "Goal-Evidence"), Some(id));
    assert_eq!(repo.status_porcelain(), "");
}

#[test]
pub(crate) fn pre_commit_framework_manifest_runs_the_same_hooks() {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(".pre-commit-hooks.yaml"),
    )
    .unwrap();
    let hooks: Vec<serde_json::Value> = serde_yaml_ng::from_str(&text).unwrap();
    let entry = |id: &str| {
        hooks
            .iter()
            .find(|h| h["id"] == id)
            .unwrap_or_else(|| panic!("{id}"))
            .clone()
    };
    let gate = entry("goal-gate");
    assert_eq!(gate["entry"], "goal hooks run pre-commit");
    assert_eq!(gate["language"], "system");
    assert_eq!(
        entry("goal-material-change")["entry"],
        "goal hooks run commit-msg"
    );
}

#[test]
pub(crate) fn a_hook_that_is_not_a_shell_script_needs_force() {
    let repo = setup(&["a passes"]);
    let hook = repo.path().join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/usr/bin/env python3\nprint('mine')\n").unwrap();
    let out = repo.goal().args(["hooks", "install"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--force"), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&hook).unwrap().contains("python3"));
    repo.ok(&["hooks", "install", "--force"]);
    assert!(
        std::fs::read_to_string(&hook)
            .unwrap()
            .contains("# >>> goal >>>")
    );
    assert!(
        std::fs::read_to_string(repo.path().join(".git/hooks/pre-commit.goal-backup"))
            .unwrap()
            .contains("python3")
    );
}

/// A misspelt hook line is a usage error at once, not a silent pass on every commit that does
/// not touch the goal (the fast path).
#[test]
pub(crate) fn hooks_run_refuses_an_unknown_hook_name_even_on_the_fast_path() {
    let repo = setup(&["a passes"]);
    repo.write("src/lib.rs", "// not the goal\n");
    repo.git(&["add", "-A"]);
    repo.refused(
        &["hooks", "run", "pre-comit"],
        2,
        &["unknown hook `pre-comit`", "goal hooks run pre-commit"],
    );
    repo.refused(
        &["hooks", "run", "commit-msg"],
        2,
        &["commit-msg needs the message file"],
    );
    // The known names still pass a commit that does not touch the goal.
    repo.ok(&["hooks", "run", "pre-commit"]);
    repo.write(".git/MSG", "code\n");
    repo.ok(&["hooks", "run", "commit-msg", ".git/MSG"]);
}

/// A verify command killed by a signal records 128+n (the shell's convention) and proves nothing,
/// even when it printed a passing summary before it died.
#[test]
pub(crate) fn verify_killed_by_a_signal_records_128_plus_n() {
    let repo = setup(&["a passes"]);
    repo.write("killed.sh", "echo \"1 passed, 0 failed\"\nkill -TERM $$\n");
    repo.refused(
        &["verify", "-c", "1", "--", "sh", "killed.sh"],
        143,
        &["exit 143", "criterion 1 not passed"],
    );
    let r = &records(&repo)[0];
    assert_eq!(r["exit_code"], 143);
    assert_eq!(r["tests"]["passed"], 1);
    assert!(repo.goal_md().contains("- [ ] a passes\n"));
    repo.refused(
        &["check", "1"],
        1,
        &["cannot check criterion 1", "`sh killed.sh` exited 143"],
    );
}

/// A run that changes tracked files proves the code as it was before the run, not after.
#[test]
pub(crate) fn a_tree_changed_during_the_run_leaves_the_evidence_on_the_tree_before_it() {
    let repo = setup(&["a passes", "b passes"]);
    repo.write(
        "rewrite.sh",
        "echo changed >> README.md\necho \"1 passed, 0 failed\"\n",
    );
    repo.write(
        "build.sh",
        "echo out > built.txt\necho \"1 passed, 0 failed\"\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "scripts"]);
    let before = repo.tree_by_git();
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "rewrite.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the run modified or deleted 1 tracked file(s): README.md"),
        "{}",
        stderr(&out)
    );
    let r = &records(&repo)[0];
    assert_eq!(r["tree"], before);
    assert_eq!(r["changed"], serde_json::json!(["README.md"]));
    assert_eq!(r["tree_after"], serde_json::Value::Null);
    // On the changed tree the evidence is stale; with the change reverted it holds again.
    repo.refused(&["check", "1"], 1, &["stale: evidence"]);
    repo.git(&["checkout", "-q", "README.md"]);
    repo.ok(&["check", "1"]);
    // A run that only adds files holds for the tree it left behind too.
    repo.ok(&["verify", "-c", "2", "--", "sh", "build.sh"]);
    let r = &records(&repo)[1];
    assert_eq!(r["created"], serde_json::json!(["built.txt"]));
    assert_eq!(r["tree_after"], repo.tree_by_git());
    repo.ok(&["check", "2"]);
}

/// The witness (.git/goal-witness) is per clone: evidence committed in one clone proves nothing
/// in a fresh clone until `goal verify` runs there.
#[test]
pub(crate) fn evidence_from_another_clone_proves_nothing_until_verified_here() {
    let repo = setup(&["a passes"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.ok(&["iterate", "-m", "a proven"]);
    let id = records(&repo)[0]["id"].as_str().unwrap().to_string();
    let guard = tempfile::TempDir::new().unwrap();
    let clone = guard.path().join("clone");
    let out = repo.git_in(
        guard.path(),
        &["clone", "-q", repo.path().to_str().unwrap(), "clone"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!clone.join(".git/goal-witness").exists());
    for (key, value) in [
        ("user.name", "Test"),
        ("user.email", "test@example.invalid"),
    ] {
        assert!(
            repo.git_in(&clone, &["config", key, value])
                .status
                .success()
        );
    }
    let done = repo.goal_in(&clone).arg("done").output().unwrap();
    crate::common::assert_refused(
        "done in a fresh clone",
        &done,
        Some(1),
        &[&format!(
            "evidence {id} was not recorded by `goal verify` in this repository"
        )],
    );
    repo.goal_in(&clone)
        .args(["verify", "-c", "1", "--", "sh", "pass.sh"])
        .assert()
        .success();
    let witness = std::fs::read_to_string(clone.join(".git/goal-witness")).unwrap();
    assert_eq!(witness.lines().count(), 1, "{witness}");
    repo.goal_in(&clone).arg("done").assert().success();
    // The first clone's witness is untouched by the second.
    assert_eq!(repo.read(".git/goal-witness").lines().count(), 1);
}

/// A deslop command that rewrites the tree (a formatter) voids the evidence: done refuses and
/// commits nothing.
#[test]
pub(crate) fn a_deslop_command_that_rewrites_the_tree_stops_done() {
    let repo = setup(&["a passes"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    let head = repo.head();
    repo.refused(
        &["done", "--deslop", "echo '// formatted' >> pass.sh"],
        1,
        &[
            "the deslop commands changed the working tree",
            "verify the criteria again",
        ],
    );
    assert_eq!(repo.head(), head, "nothing committed");
    assert!(repo.exists(GOAL));
    assert!(repo.read("pass.sh").ends_with("// formatted\n"));
    // Verified again on the formatted code, done goes through.
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.ok(&["done", "--deslop", "true"]);
    assert!(!repo.exists(GOAL));
}

/// A goal whose status is `complete` (restored from history) takes no new iteration, retry or
/// block; `done` still demands proof for every criterion.
#[test]
pub(crate) fn commands_on_a_complete_goal() {
    let repo = setup(&["a passes"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.ok(&["done"]);
    repo.git(&["checkout", "-q", "HEAD~1", "--", ".agents"]);
    repo.git(&["commit", "-q", "-m", "the complete goal, back"]);
    assert!(repo.goal_md().contains("status: complete\n"));
    let head = repo.head();
    repo.refused(
        &["iterate", "-m", "more"],
        1,
        &[
            "the goal is complete: cannot record an iteration",
            "goal done",
        ],
    );
    repo.refused(
        &["retry"],
        1,
        &["the goal is complete: cannot record a retry"],
    );
    repo.refused(
        &["block", "--reason", "r"],
        1,
        &["the goal is complete: nothing to block"],
    );
    // (`goal resume` sets a complete goal back to in-progress: tested in lifecycle.rs.)
    assert_eq!(repo.head(), head, "no refusal committed");
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["status"], "complete");
    // A new criterion reopens the question of proof: done refuses until it is proven.
    repo.ok(&["criteria", "add", "b passes"]);
    repo.refused(
        &["done"],
        1,
        &["criterion 2 \"b passes\": no evidence names it"],
    );
    repo.ok(&["verify", "-c", "1", "-c", "2", "--", "sh", "pass.sh"]);
    repo.ok(&["done"]);
    assert!(!repo.exists(GOAL));
}

/// Hex ids (evidence, commits) vary with run times: `[ID]` in snapshots.
pub(crate) fn without_ids(text: &str) -> String {
    regex::Regex::new(r"\b[0-9a-f]{10,40}\b")
        .unwrap()
        .replace_all(text, "[ID]")
        .into_owned()
}

/// The human summary `goal done` prints is the thing an agent reads back: the whole text.
#[test]
pub(crate) fn the_done_summary_reads_as_a_whole() {
    let repo = setup(&["a passes", "b passes"]);
    repo.write("src/lib.rs", "pub fn f() {}\n// TODO: tidy\n");
    repo.ok(&["criteria", "add", "c passes"]);
    repo.ok(&["criteria", "remove", "3", "--confirm"]);
    repo.ok(&["verify", "-c", "1", "-c", "2", "--", "sh", "pass.sh"]);
    repo.ok(&["iterate", "-m", "both"]);
    let out = repo
        .goal()
        .args(["done", "--deslop", "exit 4"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = without_ids(&crate::common::normalise(&repo, &stdout(&out)));
    insta::assert_snapshot!(text, @r#"
Goal complete: Make the thing work
  iterations: 1
  [x] 1. a passes — evidence [ID] (3 passed, 0 failed, 0 ignored) — proven by an unpinned command `sh pass.sh`
  [x] 2. b passes — evidence [ID] (3 passed, 0 failed, 0 ignored) — proven by an unpinned command `sh pass.sh`
  material changes: 1
    material change in [ID]: criterion 3 "c passes" → removed (removed; recorded with --confirm)
  files changed: 4 (+11 -0)
  elapsed: 0h 00m
  deslop `exit 4`: failed (exit 4), noted
  deslop scan: 1 finding(s)
    src/lib.rs:2: todo — // TODO: tidy
  commits: [ID], [ID] (`goal log` keeps the audit)
GOAL-PROOF: complete Make the thing work [ID]
"#);
}

/// A pin proven as a check (a linter: no test summary) stays a check: plain `goal verify` runs it
/// as one on the same tree instead of failing it, and every hint for it says `--check`.
#[test]
pub(crate) fn a_pin_proven_as_a_check_runs_as_a_check_again() {
    let repo = Repo::new();
    repo.write("lint.sh", "#!/bin/sh\necho 'lint: all clean'\n");
    repo.test_script("pass.sh", 1, 0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "tools"]);
    repo.init_goal(&[
        "the linter is clean (verify: `sh lint.sh`)",
        "the tests pass (verify: `sh pass.sh`)",
    ]);
    // Before any check record, a run without a test summary proves nothing.
    let out = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("--check"), "{}", stderr(&out));
    repo.ok(&["verify", "--check", "-c", "1"]);
    // Plain `goal verify`, as the README says to run: the check stays a check.
    let out = repo.goal().arg("verify").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["state"], "proven", "{status}");
    let last: serde_json::Value = serde_json::from_str(
        repo.read(EVIDENCE)
            .lines()
            .rev()
            .find(|l| l.contains("lint.sh"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(last["check"], true, "{last}");
    // The code changes: every hint for criterion 1 carries --check.
    repo.write("src.txt", "changed\n");
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["criteria"][0]["state"], "stale", "{status}");
    assert_eq!(
        status["criteria"][0]["rerun_line"], "goal verify --check -c 1",
        "{status}"
    );
    assert_eq!(status["criteria"][1]["rerun_line"], "goal verify -c 2");
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("goal verify --check -c 1"),
        "{}",
        stderr(&out)
    );
    let text = stdout(&repo.goal().arg("status").output().unwrap());
    assert!(text.contains("goal verify --check -c 1"), "{text}");
}

#[test]
pub(crate) fn the_output_keeps_the_order_the_command_wrote_it_in() {
    // stdout and stderr written in turn, a piece at a time (as libtest writes `test result: `,
    // `FAILED`, `. 2 passed; …` while cargo writes to stderr): goal reads both from one pipe, so
    // its copy (the tee and the record's summary) has them in the order written.
    let repo = setup(&["interleaved output"]);
    repo.write(
        "t.sh",
        "#!/bin/sh\nfor i in 1 2 3 4 5 6 7 8; do printf \"o$i \"; printf \"e$i \" >&2; done\nprintf '\\n%d passed in 0.01s\\n' 1\n",
    );
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "t.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let want: String = (1..=8).map(|i| format!("o{i} e{i} ")).collect();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&want),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
pub(crate) fn without_goal_on_path_the_hook_holds_back_only_goal_file_commits() {
    let repo = project(&["division works"]);
    repo.ok(&["hooks", "install"]);
    // The shims call the goal that installed them by its path: that one is gone too.
    for hook in [".git/hooks/pre-commit", ".git/hooks/commit-msg"] {
        let text = repo.read(hook);
        let (head, rest) = text.split_once("goal_hook_bin='").unwrap();
        let (_, tail) = rest.split_once('\'').unwrap();
        repo.write(
            hook,
            &format!("{head}goal_hook_bin='/nonexistent/goal'{tail}"),
        );
    }
    let git = |args: &[&str]| {
        repo.git_cmd()
            .args(args)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .output()
            .unwrap()
    };
    repo.write("code.rs", "fn main() {}\n");
    assert!(git(&["add", "code.rs"]).status.success());
    let out = git(&["commit", "-q", "-m", "code only"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = repo
        .goal_md()
        .replace("- [ ] division works", "- [x] division works");
    repo.write(GOAL, &md);
    assert!(git(&["add", GOAL]).status.success());
    let out = git(&["commit", "-q", "-m", "tick"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("needs `goal` on PATH"),
        "{}",
        stderr(&out)
    );
}
