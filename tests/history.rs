//! History and loop control: goal log, stagnation with escalation, backoff and the retry guard.

use crate::common::{GOAL, Repo, json, project, stderr, stdout};

const RETRY: &str = ".agents/goal/retry.json";

fn iterate(repo: &Repo, message: &str) -> std::process::Output {
    repo.goal()
        .args(["iterate", "-m", message])
        .output()
        .unwrap()
}

#[test]
fn the_worked_example_prompts_twice_then_escalates() {
    let repo = Repo::new();
    repo.init_goal(&["a passes", "b passes", "c passes"]);
    let marker = repo.path().join(".git/notified");
    repo.git(&[
        "config",
        "goal.notify",
        &format!("printf '%s' >> {}", marker.display()),
    ]);
    let prompt = "Stagnation detected. Current approach not making progress. Try:\n- Different tool or library\n- Refactor before retry\n- Split the failing criterion into sub-steps\n";
    for n in 1..=2 {
        let out = iterate(&repo, "tried again");
        assert!(out.status.success());
        assert!(
            !stdout(&out).contains("Stagnation detected"),
            "iteration {n}"
        );
    }
    for n in 3..=4 {
        let out = iterate(&repo, "tried again");
        assert!(out.status.success(), "iteration {n}");
        assert!(
            stdout(&out).contains(prompt),
            "iteration {n}: {}",
            stdout(&out)
        );
        assert!(
            stdout(&out).contains(&format!("auto-recovery {} of 2", n - 2)),
            "{}",
            stdout(&out)
        );
    }
    let out = iterate(&repo, "tried again");
    assert_eq!(out.status.code(), Some(1), "iteration 5 escalates");
    assert!(stderr(&out).contains("escalated"), "{}", stderr(&out));
    let md = repo.goal_md();
    assert!(md.contains("status: blocked\n"));
    assert!(md.contains("## Blocked\n- Stagnation:"), "{md}");
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("blocked")
    );
    assert_eq!(
        repo.trailer("HEAD", "Goal-Action").as_deref(),
        Some("escalate")
    );
    assert!(
        std::fs::read_to_string(&marker)
            .unwrap()
            .contains("goal blocked: Make the thing work")
    );
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["stagnation"]["stagnant"], true);
    assert_eq!(status["stagnation"]["s1"], true);
    assert_eq!(status["stagnation"]["s2"], true);
    assert_eq!(status["stagnation"]["s3"], true);
    // After a resume, the count starts again.
    repo.ok(&["resume"]);
    let out = iterate(&repo, "tried again");
    assert!(out.status.success());
    assert!(
        stdout(&out).contains("auto-recovery 1 of 2"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn progress_words_with_no_code_change_are_still_stagnant_and_real_work_is_not() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    for _ in 0..3 {
        iterate(&repo, "fixed everything");
    }
    let v = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(v["stagnation"]["stagnant"], true, "S1 and S3");
    assert_eq!(v["stagnation"]["s2"], false);

    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    for n in 0..3 {
        repo.write("src/lib.rs", &format!("// version {n}\n"));
        iterate(&repo, "fixed the parser");
    }
    let v = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(v["stagnation"]["stagnant"], false);
    assert_eq!(v["stagnation"]["s1"], true);

    // Changing code and changing it back across the window: S3 sees no net change.
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    for text in ["one\n", "two\n", "# project\n"] {
        repo.write("README.md", text);
        iterate(&repo, "refactored it");
    }
    let v = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(v["stagnation"]["s3"], true);
    assert_eq!(v["stagnation"]["stagnant"], true);
}

#[test]
fn log_json_diffs_match_git_numstat() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.write("a.txt", "1\n2\n3\n");
    repo.write("b.txt", "x\n");
    iterate(&repo, "added a and b");
    // Commits of the agent's own between two iterations count towards the next iteration.
    repo.write("a.txt", "1\nchanged\n3\n4\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "agent commit"]);
    std::fs::remove_file(repo.path().join("b.txt")).unwrap();
    iterate(&repo, "changed a, removed b");
    let rows = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for pair in rows.windows(2) {
        let (from, to) = (
            pair[0]["commit"].as_str().unwrap(),
            pair[1]["commit"].as_str().unwrap(),
        );
        let numstat = repo.git(&[
            "diff",
            "--numstat",
            "--no-renames",
            from,
            to,
            "--",
            ".",
            ":!.agents/goal",
        ]);
        let (mut files, mut ins, mut del) = (0, 0, 0);
        for line in numstat.lines() {
            let parts: Vec<&str> = line.split('\t').collect();
            files += 1;
            ins += parts[0].parse::<u64>().unwrap_or(0);
            del += parts[1].parse::<u64>().unwrap_or(0);
        }
        assert_eq!(pair[1]["files_changed"], files, "{numstat}");
        assert_eq!(pair[1]["insertions"], ins, "{numstat}");
        assert_eq!(pair[1]["deletions"], del, "{numstat}");
    }
    for key in [
        "iteration",
        "commit",
        "date",
        "passing",
        "total",
        "files_changed",
        "insertions",
        "deletions",
        "summary",
        "evidence",
        "flags",
    ] {
        assert!(rows[1].get(key).is_some(), "{key}");
    }
    assert_eq!(rows[2]["summary"], "changed a, removed b");
    assert_eq!(rows[1]["date"], "2026-11-30T15:04:05Z");
}

#[test]
fn a_no_verify_tick_is_flagged_unverified_check() {
    let repo = Repo::new();
    repo.init_goal(&["a passes", "b passes"]);
    repo.ok(&["hooks", "install"]);
    repo.test_script("pass.sh", 2, 0);
    // Criterion 1: proven honestly.
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    iterate(&repo, "verified a");
    // Criterion 2: ticked by hand, committed past the hook.
    repo.write(
        GOAL,
        &repo.goal_md().replace("- [ ] b passes", "- [x] b passes"),
    );
    repo.git(&["add", "-A"]);
    repo.git_refused(
        &["commit", "-q", "-m", "tick b"],
        &[
            "commit refused by the goal gate",
            "criterion 2 \"b passes\" is ticked without proof",
        ],
    );
    repo.git(&["commit", "-q", "--no-verify", "-m", "tick b"]);
    repo.write("src/more.rs", "more\n");
    iterate(&repo, "more work");
    let flags = repo.log_flags();
    assert!(
        !flags[1].contains(&"unverified-check".to_string()),
        "{flags:?}"
    );
    assert!(
        flags[2].contains(&"unverified-check".to_string()),
        "{flags:?}"
    );
    let text = stdout(&repo.goal().arg("log").output().unwrap());
    assert!(text.contains("unverified-check"), "{text}");
}

#[test]
fn log_flags_material_changes_blocks_and_lists_finished_goals_with_all() {
    let repo = Repo::new();
    repo.init_goal(&["a passes", "b passes"]);
    repo.ok(&["criteria", "remove", "2", "--confirm"]);
    repo.ok(&["block", "--reason", "r"]);
    repo.ok(&["resume"]);
    repo.write("x.txt", "x\n");
    iterate(&repo, "work");
    let rows = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    let flags = |i: usize| rows[i]["flags"].as_array().unwrap().clone();
    assert!(flags(0).contains(&"material-change".into()), "{rows:?}");
    // The block is a row of its own: the iteration before it was not blocked.
    assert!(!flags(0).contains(&"blocked".into()), "{rows:?}");
    assert_eq!(rows[1]["status"], "blocked", "{rows:?}");
    assert!(flags(1).contains(&"blocked".into()), "{rows:?}");
    assert_eq!(
        rows[1]["commit"],
        repo.git(&["rev-parse", "HEAD~2"]).trim(),
        "{rows:?}"
    );
    assert!(!flags(2).contains(&"blocked".into()), "{rows:?}");
    let text = stdout(&repo.goal().arg("log").output().unwrap());
    assert!(text.contains("passing: ▁▁▁"), "{text}");

    repo.ok(&["abandon"]);
    repo.ok(&["init", "Second goal", "-c", "c passes"]);
    let latest = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    assert_eq!(latest.as_array().unwrap().len(), 1);
    let all = json(
        &repo
            .goal()
            .args(["log", "--json", "--all"])
            .output()
            .unwrap(),
    );
    let goals: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["goal"].as_str().unwrap())
        .collect();
    assert_eq!(
        goals,
        [
            "Make the thing work",
            "Make the thing work",
            "Make the thing work",
            "Second goal"
        ]
    );
    let text = stdout(&repo.goal().args(["log", "--all"]).output().unwrap());
    assert!(text.contains("Goal: Make the thing work\n"), "{text}");
    assert!(
        text.contains("status: abandoned  passing: ▁▁▁\n\nGoal: Second goal\n"),
        "{text}"
    );
}

#[test]
fn log_flags_a_deletion_without_a_completion_trailer() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.git(&["rm", "-q", "-r", ".agents"]);
    repo.git(&["commit", "-q", "-m", "remove the goal quietly"]);
    let text = stdout(&repo.goal().arg("log").output().unwrap());
    assert!(
        text.contains("deleted the goal files without a Goal-Status"),
        "{text}"
    );
}

#[test]
fn retry_backs_off_and_blocks_after_the_last_retry() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let head = repo.head();
    let mut delays = Vec::new();
    for n in 1..=10u64 {
        let out = repo.goal().args(["retry", "--json"]).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let v = json(&out);
        assert_eq!(v["retry"], n);
        assert_eq!(v["remaining"], 10 - n);
        assert_eq!(v["blocked"], false);
        delays.push(v["delay_s"].as_u64().unwrap());
        if n == 10 {
            assert_eq!(v["cumulative_s"], 2250);
        }
    }
    assert_eq!(delays, [30, 60, 120, 240, 300, 300, 300, 300, 300, 300]);
    assert_eq!(repo.head(), head, "retries do not commit");
    let out = repo
        .goal()
        .args(["retry", "--reason", "the API keeps timing out"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("Try an alternative approach"),
        "{}",
        stdout(&out)
    );
    assert!(repo.goal_md().contains("## Blocked\n- Retries exhausted: 10 retries in iteration 0 failed (last failure: the API keeps timing out)"));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("blocked")
    );
    // Resume and iterate: a new iteration, a new count.
    repo.ok(&["resume"]);
    iterate(&repo, "new approach");
    let v = json(&repo.goal().args(["retry", "--json"]).output().unwrap());
    assert_eq!(v["retry"], 1);
}

#[test]
fn retry_sleep_waits_the_scaled_delay_and_config_changes_the_schedule() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.git(&["config", "goal.backoffInitial", "5"]);
    repo.git(&["config", "goal.backoffFactor", "3"]);
    repo.git(&["config", "goal.backoffMax", "40"]);
    repo.git(&["config", "goal.maxRetries", "3"]);
    // A scale of 1/500: the 5, 15 and 40 s delays become 10, 30 and 80 ms.
    let scale = 0.002;
    let delays: Vec<u64> = (0..3)
        .map(|_| {
            let started = std::time::Instant::now();
            let out = repo
                .goal()
                .args(["retry", "--sleep", "--json"])
                .env("GOAL_TIME_SCALE", scale.to_string())
                .output()
                .unwrap();
            let waited = started.elapsed();
            let delay = json(&out)["delay_s"].as_u64().unwrap();
            let scaled = std::time::Duration::from_secs_f64(delay as f64 * scale);
            assert!(
                waited >= scaled,
                "waited {waited:?}, not the scaled {scaled:?}"
            );
            delay
        })
        .collect();
    assert_eq!(delays, [5, 15, 40]);
    repo.refused(&["retry"], 1, &["Retries exhausted: 3 retries"]);
    repo.git(&["config", "goal.maxRetries", "zero"]);
    let out = repo.goal().args(["retry"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("goal.maxRetries"), "{}", stderr(&out));
}

#[test]
fn the_retry_guard_records_raw_attempts_and_judges_on_request() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.ok(&["attempt", "policy", "3", "2"]);
    repo.ok(&["attempt", "add", "failure", "search-v1"]);
    repo.ok(&["attempt", "add", "no_progress", "search-v1"]);
    let out = repo.goal().args(["attempt", "judge"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "{\"attempts\":2,\"consecutiveFailures\":0,\"consecutiveNoProgress\":1,\"strategyRun\":{\"strategyId\":\"search-v1\",\"attempts\":2},\"retryAllowed\":false}\n"
    );
    let raw: serde_json::Value = serde_json::from_str(&repo.read(RETRY)).unwrap();
    assert_eq!(
        raw,
        serde_json::json!({"schemaVersion": 1, "attempts": [{"outcome": "failure", "strategyId": "search-v1"}, {"outcome": "no_progress", "strategyId": "search-v1"}], "policy": {"maxAttempts": 3, "maxStrategyAttempts": 2}})
    );
    let status = json(
        &repo
            .goal()
            .args(["attempt", "status", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(status, raw);
    // iterate: a new episode, the policy kept.
    iterate(&repo, "next");
    let raw: serde_json::Value = serde_json::from_str(&repo.read(RETRY)).unwrap();
    assert_eq!(raw["attempts"], serde_json::json!([]));
    assert_eq!(raw["policy"]["maxAttempts"], 3);
    let out = repo.goal().args(["attempt", "judge"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    // retry adds a failure attempt.
    repo.ok(&["retry", "--strategy", "s2"]);
    let raw: serde_json::Value = serde_json::from_str(&repo.read(RETRY)).unwrap();
    assert_eq!(
        raw["attempts"],
        serde_json::json!([{"outcome": "failure", "strategyId": "s2"}])
    );
    // episode keeps the policy; clear needs --yes.
    repo.ok(&["attempt", "episode"]);
    repo.refused(
        &["attempt", "clear"],
        1,
        &["nothing was changed", "goal attempt clear --yes"],
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&repo.read(RETRY)).unwrap()["policy"]["maxAttempts"],
        3
    );
    repo.ok(&["attempt", "clear", "--yes"]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&repo.read(RETRY)).unwrap(),
        serde_json::json!({"schemaVersion": 1, "attempts": [], "policy": {}})
    );
    // Bad input: exit 2, invalid_input, nothing written.
    let before = repo.read(RETRY);
    for args in [
        &["attempt", "add", "maybe"][..],
        &["attempt", "add", "failure", " "],
        &["attempt", "policy", "0"],
        &["attempt", "policy", "x"],
    ] {
        let out = repo.goal().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("invalid_input"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert_eq!(repo.read(RETRY), before);
}

#[test]
fn a_malformed_retry_state_warns_once_and_starts_fresh() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.write(
        RETRY,
        "{\"schemaVersion\": 1, \"attempts\": [], \"policy\": {}, \"retryAllowed\": true}",
    );
    let out = repo.goal().args(["attempt", "judge"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("goal: warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"attempts\":0,\"consecutiveFailures\":0,\"consecutiveNoProgress\":0,\"retryAllowed\":true}\n"
    );
    repo.ok(&["attempt", "add", "failure"]);
    let raw: serde_json::Value = serde_json::from_str(&repo.read(RETRY)).unwrap();
    assert_eq!(
        raw,
        serde_json::json!({"schemaVersion": 1, "attempts": [{"outcome": "failure"}], "policy": {}})
    );
}

#[test]
fn judge_stdin_works_anywhere_and_rejects_bad_input() {
    let outside = tempfile::TempDir::new().unwrap();
    let repo = Repo::new();
    let judge = |input: &str| {
        repo.goal_in(outside.path())
            .args(["attempt", "judge", "--stdin"])
            .write_stdin(input.to_string())
            .output()
            .unwrap()
    };
    let out = judge(
        r#"{"attempts": [{"outcome": "failure"}, {"outcome": "failure"}], "policy": {"maxAttempts": 2}, "note": "ignored"}"#,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "{\"attempts\":2,\"consecutiveFailures\":2,\"consecutiveNoProgress\":0,\"retryAllowed\":false}\n"
    );
    let out = judge(r#"{"attempts": []}"#);
    assert_eq!(out.status.code(), Some(0));
    for bad in [
        r#"{"policy": {}}"#,
        r#"{"attempts": [{"outcome": "nope"}]}"#,
        "not json",
        r#"{"attempts": [], "policy": {"maxAttempts": null}}"#,
    ] {
        let out = judge(bad);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains("invalid_input"), "{bad}");
        assert_eq!(stdout(&out), "", "{bad}");
    }
}

/// Each row shows its own commit's trailers (git is the referee): the last iteration's row is not
/// given the completion's proofs, which are the complete row's own.
#[test]
fn a_log_row_shows_its_own_commits_trailers() {
    let repo = Repo::new();
    // A test of the goal's work (x.txt): red on the code before the goal, green after it.
    repo.write(
        "pass.sh",
        "#!/bin/sh\nif [ ! -f x.txt ]; then echo '0 passed, 1 failed'; exit 1; fi\necho '1 passed, 0 failed'\n",
    );
    repo.git(&["add", "pass.sh"]);
    repo.git(&["commit", "-q", "-m", "test"]);
    repo.init_goal(&[
        "a passes (verify: `sh pass.sh`)",
        "b passes (verify: `sh pass.sh b`)",
        "c passes",
    ]);
    repo.write("x.txt", "1\n");
    repo.ok(&["verify", "-c", "1"]);
    iterate(&repo, "did a");
    repo.ok(&["verify"]);
    repo.ok(&["verify", "-c", "3", "--", "sh", "pass.sh"]);
    iterate(&repo, "did b");
    repo.ok(&["verify"]);
    repo.ok(&["verify", "-c", "3", "--", "sh", "pass.sh"]);
    repo.ok(&["done"]);
    let rows = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in rows {
        let commit = row["commit"].as_str().unwrap();
        let passing = repo.trailer(commit, "Goal-Passing").unwrap();
        assert_eq!(
            format!("{}/{}", row["passing"], row["total"]),
            passing,
            "{row}"
        );
        let evidence: Vec<String> = repo
            .trailer(commit, "Goal-Evidence")
            .map(|e| e.split(", ").map(str::to_string).collect())
            .unwrap_or_default();
        let shown: Vec<String> = row["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e.as_str().unwrap().to_string())
            .collect();
        assert_eq!(shown, evidence, "{row}");
    }
    assert_eq!(rows[2]["passing"], 3, "{rows:?}");
    assert_eq!(rows[3]["status"], "complete", "{rows:?}");
    assert_eq!(
        repo.trailer(rows[3]["commit"].as_str().unwrap(), "Goal-Status")
            .as_deref(),
        Some("complete")
    );
}

/// A completion made by hand (`status: complete` committed past the hooks, then the files
/// deleted) has one status on every surface: complete, hand-made and unverified.
#[test]
fn a_hand_made_completion_has_one_status_everywhere() {
    let repo = Repo::new();
    repo.init_goal(&["c passes"]);
    repo.write(
        GOAL,
        &repo
            .goal_md()
            .replace("status: in-progress", "status: complete")
            .replace("- [ ] c passes", "- [x] c passes"),
    );
    repo.git(&["commit", "-qam", "done by hand", "--no-verify"]);
    repo.git(&["rm", "-rq", ".agents/goal"]);
    repo.git(&["commit", "-qm", "clean up", "--no-verify"]);
    let want = "complete (hand-made, unverified)";
    let log = stdout(&repo.goal().arg("log").output().unwrap());
    assert!(log.contains(&format!("status: {want}  passing:")), "{log}");
    let report = stdout(&repo.goal().arg("report").output().unwrap());
    assert!(
        report.starts_with(&format!("Goal: Make the thing work ({want})\n")),
        "{report}"
    );
    let markdown = stdout(&repo.goal().args(["report", "--markdown"]).output().unwrap());
    assert!(
        markdown.contains(&format!("**Status:** {want} ·")),
        "{markdown}"
    );
    let audit = stdout(&repo.goal().arg("audit").output().unwrap());
    assert!(audit.contains(&format!("({want}, iteration 0)")), "{audit}");
    let audit = json(&repo.goal().args(["audit", "--json"]).output().unwrap());
    assert_eq!(audit["goals"][0]["status"], "complete");
    assert_eq!(audit["goals"][0]["hand_made_status"], true);
    let report = json(&repo.goal().args(["report", "--json"]).output().unwrap());
    assert_eq!(report["status"], "complete");
    assert_eq!(report["hand_made_status"], true);
}

/// The history commands only read history: they work in a bare repository holding a finished
/// goal (a mirror, a server-side hook); what needs a working tree still refuses there, exit 2.
#[test]
fn history_commands_read_a_bare_repository() {
    let repo = Repo::new();
    repo.write(
        "pass.sh",
        "#!/bin/sh\nif [ ! -f x.txt ]; then echo '0 passed, 1 failed'; exit 1; fi\necho '1 passed, 0 failed'\n",
    );
    repo.git(&["add", "pass.sh"]);
    repo.git(&["commit", "-q", "-m", "test"]);
    repo.init_goal(&["a passes (verify: `sh pass.sh`)"]);
    repo.write("x.txt", "1\n");
    repo.ok(&["verify"]);
    repo.ok(&["done"]);
    let bare = tempfile::TempDir::new().unwrap();
    let bare_path = bare.path().to_str().unwrap();
    repo.git(&["init", "-q", "--bare", "-b", "main", bare_path]);
    repo.git(&["push", "-q", bare_path, "main"]);

    let log = json(
        &repo
            .goal_in(bare.path())
            .args(["log", "--json"])
            .output()
            .unwrap(),
    );
    let here = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    assert_eq!(log, here, "the bare repository's log is the clone's");
    assert_eq!(
        log.as_array().unwrap().last().unwrap()["status"],
        "complete"
    );
    let report = json(
        &repo
            .goal_in(bare.path())
            .args(["report", "--json"])
            .output()
            .unwrap(),
    );
    assert_eq!(report["status"], "complete", "{report}");
    let out = repo
        .goal_in(bare.path())
        .args(["audit", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)["ok"], true);
    let text = stdout(&repo.goal_in(bare.path()).arg("log").output().unwrap());
    assert!(text.contains("status: complete"), "{text}");

    for args in [&["audit", "--rerun"][..], &["status"], &["init", "x"]] {
        let out = repo.goal_in(bare.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("bare repository"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn log_lists_iterations_from_the_trailers() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.write("a.txt", "1\n2\n");
    repo.ok(&["iterate", "-m", "added a"]);
    let v = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["iteration"], 1);
    assert_eq!(rows[1]["summary"], "added a");
    assert_eq!(rows[1]["files_changed"], 1);
    assert_eq!(rows[1]["insertions"], 2);
    assert_eq!(rows[1]["commit"], repo.head());
}

#[test]
fn a_hand_made_material_change_is_flagged_by_log_and_listed_by_done() {
    let repo = project(&[
        "cargo test rate_limit passes with 3 tests",
        "division works",
    ]);
    // A plain commit rewords criterion 1, with a trailer written by hand.
    let md = repo.goal_md().replace(
        "cargo test rate_limit passes with 3 tests",
        "code looks fine",
    );
    repo.write(GOAL, &md);
    repo.git(&["add", "-A"]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        "reword\n\nGoal-Material-Change: made it simpler",
    ]);
    let rows = json(&repo.goal().args(["log", "--json"]).output().unwrap());
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["summary"] == "reword")
        .expect("a row of its own");
    let flags: Vec<&str> = row["flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        flags.contains(&"hand-made") && flags.contains(&"material-change"),
        "{flags:?}"
    );
    assert_eq!(
        row["material"][0]["old"],
        "cargo test rate_limit passes with 3 tests"
    );
    assert_eq!(row["material"][0]["new"], "code looks fine");
    let text = stdout(&repo.goal().arg("log").output().unwrap());
    assert!(
        text.contains("\"cargo test rate_limit passes with 3 tests\" → \"code looks fine\""),
        "{text}"
    );
    // done lists it, in its summary and in the complete commit.
    repo.ok(&["verify", "-c", "1", "-c", "2", "--", "sh", "pass.sh"]);
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("material changes: 1"),
        "{}",
        stdout(&out)
    );
    let complete = repo.git(&["log", "-1", "--format=%B", "HEAD~1"]);
    assert!(complete.contains("→ \"code looks fine\""), "{complete}");
    // After done, the goal's last row shows it complete with every criterion.
    let rows = json(
        &repo
            .goal()
            .args(["log", "--json", "--all"])
            .output()
            .unwrap(),
    );
    let last = rows.as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["status"], "complete");
    assert_eq!(last["passing"], 2);
    assert_eq!(last["total"], 2);
}
