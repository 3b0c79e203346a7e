//! Ticked vs proven on real project shapes, and pinned verification commands.

use crate::support::{EVIDENCE, GOAL, Repo, json, stderr, stdout};

fn status(repo: &Repo) -> serde_json::Value {
    json(&repo.goal().args(["status", "--json"]).output().unwrap())
}

fn states(repo: &Repo) -> Vec<String> {
    status(repo)["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["state"].as_str().unwrap().to_string())
        .collect()
}

/// Commit everything in the working tree (the project's own files, before the goal's work).
fn commit_all(repo: &Repo, message: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", message]);
}

/// The newest line of evidence.jsonl.
fn last_record(repo: &Repo) -> serde_json::Value {
    serde_json::from_str(repo.read(EVIDENCE).lines().last().unwrap()).unwrap()
}

fn code(repo: &Repo, args: &[&str]) -> Option<i32> {
    repo.goal().args(args).output().unwrap().status.code()
}

/// A goal with one criterion and the scripts a test run is made of, committed.
/// `junit.sh`, which writes a JUnit report of two passing tests to `report.xml`; returns the
/// report's text.
fn junit_script(repo: &Repo) -> &'static str {
    let report =
        r#"<testsuite name="t" tests="2"><testcase name="a"/><testcase name="b"/></testsuite>"#;
    repo.write(
        "junit.sh",
        &format!("#!/bin/sh\nprintf '%s' '{report}' > report.xml\n"),
    );
    report
}

fn project(criteria: &[&str]) -> Repo {
    let repo = Repo::new();
    repo.write(
        "pytest-q.sh",
        "#!/bin/sh\necho '.'\necho '1 passed in 0.01s'\n",
    );
    repo.write(
        "fail.sh",
        "#!/bin/sh\necho '1 failed, 1 passed in 0.02s'\nexit 1\n",
    );
    repo.write("none-q.sh", "#!/bin/sh\necho 'no tests ran in 0.01s'\n");
    repo.test_script("pass.sh", 2, 0);
    commit_all(&repo, "scripts");
    repo.init_goal(criteria);
    repo
}

#[test]
fn pytest_q_is_test_evidence_and_verify_exit_codes_tell_the_truth() {
    let repo = project(&["division works"]);
    // (argv, expected exit code, ticked afterwards)
    let cases: &[(&[&str], i32, bool)] = &[
        (&["sh", "pytest-q.sh"], 0, true),
        (&["sh", "none-q.sh"], 1, false),
        (&["sh", "-c", "exit 0"], 1, false),
        (&["sh", "fail.sh"], 1, false),
        (&["sh", "-c", "echo '1 passed'; exit 7"], 7, false),
        (&["sh", "pytest-q.sh"], 0, true),
    ];
    for (argv, want, ticked) in cases {
        let out = repo
            .goal()
            .args(["verify", "-c", "1", "--"])
            .args(*argv)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(*want), "{argv:?}: {}", stderr(&out));
        let mark = if *ticked { "- [x]" } else { "- [ ]" };
        assert!(repo.goal_md().contains(mark), "{argv:?}");
    }
}

#[test]
fn verify_runs_where_it_was_started_and_records_cwd() {
    let repo = project(&["division works"]);
    repo.write(
        "pkg/run.sh",
        "#!/bin/sh\ntest -f div.py && echo '3 passed in 0.01s'\n",
    );
    repo.write("pkg/div.py", "def div(a, b): return a / b\n");
    let out = repo
        .goal_in(&repo.path().join("pkg"))
        .args(["verify", "-c", "1", "--", "sh", "run.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record = last_record(&repo);
    assert_eq!(record["cwd"], "pkg");
    // The re-run line of a stale criterion carries the folder.
    repo.write("pkg/div.py", "def div(a, b): return a // b\n");
    let s = status(&repo);
    assert_eq!(s["criteria"][0]["state"], "stale");
    assert_eq!(
        s["criteria"][0]["rerun_line"],
        "goal -C pkg verify -c 1 -- sh run.sh"
    );
    assert_eq!(
        s["criteria"][0]["rerun"],
        serde_json::json!(["sh", "run.sh"])
    );
    // Seen from the folder itself, or from a sibling, the line works where it is printed.
    std::fs::create_dir_all(repo.path().join("docs")).unwrap();
    for (dir, want) in [
        ("pkg", "goal verify -c 1 -- sh run.sh"),
        ("docs", "goal -C ../pkg verify -c 1 -- sh run.sh"),
    ] {
        let s = json(
            &repo
                .goal_in(&repo.path().join(dir))
                .args(["status", "--json"])
                .output()
                .unwrap(),
        );
        assert_eq!(s["criteria"][0]["rerun_line"], want, "from {dir}");
    }
}

#[test]
fn a_run_that_creates_files_stays_fresh_and_names_them() {
    let repo = project(&["division works"]);
    repo.write(
        "make-caches.sh",
        "#!/bin/sh\nmkdir -p __pycache__ && echo x > __pycache__/div.cpython-311.pyc\necho '[package]' > Cargo.lock\necho '1 passed in 0.01s'\n",
    );
    repo.git(&["add", "make-caches.sh"]);
    repo.git(&["commit", "-q", "-m", "cache script"]);
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "make-caches.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("created or rewrote 2 untracked file(s)"),
        "{err}"
    );
    assert!(err.contains("Cargo.lock"), "{err}");
    assert!(err.contains("__pycache__/div.cpython-311.pyc"), "{err}");
    assert!(err.contains(".gitignore"), "{err}");
    let record = last_record(&repo);
    assert_eq!(record["created"].as_array().unwrap().len(), 2);
    assert!(record["tree_after"].is_string());
    // Fresh on the tree the run left behind: status, iterate and done agree.
    assert_eq!(states(&repo), ["proven"]);
    assert_eq!(status(&repo)["proven"], 1);
    // A later run rewrites the cache it made (untracked): still fresh.
    repo.write(
        "make-caches.sh",
        "#!/bin/sh\necho y > __pycache__/div.cpython-311.pyc\necho '1 passed in 0.01s'\n",
    );
    repo.git(&["add", "make-caches.sh"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "make-caches.sh"]);
    assert_eq!(states(&repo), ["proven"]);
    repo.ok(&["iterate", "-m", "implemented division"]);
    let committed = repo.git(&["show", &format!("HEAD:{GOAL}")]);
    assert!(committed.contains("- [x] division works"), "{committed}");
    repo.ok(&["done"]);
}

#[test]
fn a_run_that_rewrites_a_tracked_file_is_bound_to_the_tree_before_it() {
    let repo = project(&["division works"]);
    repo.write("src.py", "x = 1\n");
    repo.write(
        "format.sh",
        "#!/bin/sh\necho 'x = 2' > src.py\necho '1 passed in 0.01s'\n",
    );
    commit_all(&repo, "source");
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "format.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("modified or deleted 1 tracked file(s): src.py"),
        "{}",
        stderr(&out)
    );
    let record = last_record(&repo);
    assert_eq!(record["changed"], serde_json::json!(["src.py"]));
    assert!(record["tree_after"].is_null());
    // The code is no longer the code that was tested.
    assert_eq!(states(&repo), ["stale"]);
}

#[test]
fn a_junit_report_older_than_the_run_proves_nothing() {
    let repo = project(&["division works"]);
    let report = junit_script(&repo);
    repo.write(".gitignore", "report.xml\nold.xml\n");
    repo.write("old.xml", report);
    let old = std::fs::File::options()
        .write(true)
        .open(repo.path().join("old.xml"))
        .unwrap();
    old.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    commit_all(&repo, "junit");
    let out = repo
        .goal()
        .args([
            "verify", "-c", "1", "--junit", "old.xml", "--", "sh", "junit.sh",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("was not written by this run"),
        "{}",
        stderr(&out)
    );
    assert_eq!(states(&repo), ["failing"]);
    let out = repo
        .goal()
        .args([
            "verify",
            "-c",
            "1",
            "--junit",
            "*.xml",
            "--junit",
            "report.xml",
            "--",
            "sh",
            "junit.sh",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a glob that takes in old.xml too"
    );
    repo.ok(&[
        "verify",
        "-c",
        "1",
        "--junit",
        "report.xml",
        "--",
        "sh",
        "junit.sh",
    ]);
    let record = last_record(&repo);
    assert_eq!(record["tests"]["passed"], 2);
    assert_eq!(states(&repo), ["proven"]);
}

#[test]
fn iterate_after_a_stale_tick_commits_with_the_tick_removed() {
    let repo = project(&["division works", "errors are reported"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.write("lib.py", "changed after the run\n");
    let head = repo.head();
    let out = repo
        .goal()
        .args(["iterate", "-m", "more work"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_ne!(repo.head(), head);
    assert!(
        stdout(&out).contains("unticked criterion 1 (stale)")
            && stdout(&out).contains("`goal verify -c 1 -- sh pass.sh`"),
        "{}",
        stdout(&out)
    );
    let committed = repo.git(&["show", &format!("HEAD:{GOAL}")]);
    assert!(committed.contains("- [ ] division works"), "{committed}");
    assert_eq!(repo.trailer("HEAD", "Goal-Passing").as_deref(), Some("0/2"));
}

/// Every surface says the same as `goal done` would, in every state.
#[test]
fn status_inject_json_and_the_stop_hook_agree_with_done() {
    // (how to reach the state, state, proven count, done's words)
    type Setup = fn(&Repo);
    let cases: &[(Setup, &str, u64, &str)] = &[
        (|_| {}, "open", 0, "no evidence names it"),
        (
            |r| {
                r.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
                r.write("late.py", "edited after the run\n");
            },
            "stale",
            0,
            "stale",
        ),
        (
            |r| {
                r.goal()
                    .args(["verify", "-c", "1", "--", "sh", "fail.sh"])
                    .assert()
                    .code(1);
            },
            "failing",
            0,
            "failed",
        ),
        (
            |r| r.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]),
            "proven",
            1,
            "",
        ),
    ];
    for (setup, state, proven, words) in cases {
        let repo = project(&["division works"]);
        setup(&repo);
        let s = status(&repo);
        assert_eq!(s["criteria"][0]["state"], *state);
        assert_eq!(s["proven"], *proven, "{state}");
        let text = stdout(&repo.goal().arg("status").output().unwrap());
        assert!(
            text.contains(&format!("{proven}/1 criteria proven")),
            "{text}"
        );
        let inject = stdout(&repo.goal().arg("inject").output().unwrap());
        assert!(
            inject.contains(&format!("Progress: {proven}/1 criteria passed")),
            "{inject}"
        );
        let stop = stdout(
            &repo
                .goal()
                .args(["hook", "claude"])
                .write_stdin(r#"{"hook_event_name":"Stop","stop_hook_active":false}"#)
                .output()
                .unwrap(),
        );
        let reason = json_reason(&stop);
        match *state {
            "stale" => {
                assert!(
                    inject.contains("re-run `goal verify -c 1 -- sh pass.sh`"),
                    "{inject}"
                );
                assert!(
                    reason.contains("re-run `goal verify -c 1 -- sh pass.sh`"),
                    "{reason}"
                );
                assert!(!reason.contains("run `goal done`"), "{reason}");
            }
            "proven" => {
                assert!(reason.contains("run `goal done`"), "{reason}");
                assert_eq!(s["next"], "every criterion is proven: run `goal done`");
            }
            _ => assert!(!reason.contains("run `goal done`"), "{reason}"),
        }
        let done = repo.goal().arg("done").output().unwrap();
        if words.is_empty() {
            assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
        } else {
            assert_eq!(done.status.code(), Some(1), "{state}");
            assert!(stderr(&done).contains(words), "{state}: {}", stderr(&done));
        }
    }
}

fn json_reason(stop: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(stop.trim()).unwrap();
    assert_eq!(v["decision"], "block");
    v["reason"].as_str().unwrap().to_string()
}

#[test]
fn an_untracked_file_does_not_make_status_say_ticked_is_proven() {
    let repo = project(&["division works"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.ok(&["integrate", "claude"]);
    let s = status(&repo);
    assert_eq!(s["passing"], 1, "ticked");
    assert_eq!(s["proven"], 0, "not proven: the tree changed");
    assert_eq!(s["criteria"][0]["state"], "stale");
    assert_eq!(
        s["criteria"][0]["rerun"],
        serde_json::json!(["sh", "pass.sh"])
    );
}

#[test]
fn a_broken_ledger_is_loud_and_has_a_way_out() {
    let repo = project(&["division works"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    let edited = repo
        .read(EVIDENCE)
        .replace("\"exit_code\":0", "\"exit_code\":3");
    repo.write(EVIDENCE, &edited);
    let out = repo.goal().args(["status", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("does not verify"), "{}", stderr(&out));
    let s = json(&out);
    assert_eq!(s["ledger"]["verifies"], false);
    assert!(
        s["ledger"]["problem"]
            .as_str()
            .unwrap()
            .contains("was changed")
    );
    // verify refuses to append to it, naming the record and the way out.
    let id = s["criteria"][0]["why"].as_str().unwrap().to_string();
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "pass.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("nothing more is appended"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("evidence.broken.jsonl"),
        "{}",
        stderr(&out)
    );
    assert!(id.contains("does not verify"), "{id}");
    assert_eq!(repo.read(EVIDENCE), edited, "nothing appended");
    // The way out: set it aside (kept), verify again.
    std::fs::rename(
        repo.path().join(EVIDENCE),
        repo.path().join(".agents/goal/evidence.broken.jsonl"),
    )
    .unwrap();
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    assert_eq!(states(&repo), ["proven"]);
    assert!(repo.exists(".agents/goal/evidence.broken.jsonl"));
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

// ---- Pins ----

#[test]
fn the_echo_cheat_is_refused_and_done_stays_refused() {
    let repo = Repo::new();
    repo.ok(&[
        "init",
        "Rate limit login",
        "-c",
        "excess requests to /login return 429 (cargo test rate_limit passes)",
    ]);
    for argv in [
        &["echo", "test result: ok. 5 passed; 0 failed; 0 ignored"][..],
        &[
            "sh",
            "-c",
            "echo 'test result: ok. 5 passed; 0 failed; 0 ignored'",
        ],
        &["bash", "-c", "printf '5 passed, 0 failed\\n'; true"],
    ] {
        let out = repo
            .goal()
            .args(["verify", "-c", "1", "--"])
            .args(argv)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{argv:?}");
        assert!(stderr(&out).contains("is not evidence"), "{}", stderr(&out));
        assert!(!repo.exists(EVIDENCE), "no record for {argv:?}");
    }
    assert_eq!(code(&repo, &["done"]), Some(1));
    // Nor can such a command be pinned.
    let out = repo
        .goal()
        .args(["criteria", "pin", "1", "--", "echo", "5 passed"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cannot be pinned"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn verify_runs_the_pin_and_only_the_pin_proves() {
    let repo = project(&[]);
    repo.write(
        "rate.sh",
        "#!/bin/sh
echo ran >> rate.ran
if [ ! -f limit.txt ]; then echo '0 passed, 3 failed'; exit 1; fi
echo '3 passed, 0 failed'
",
    );
    // rate.sh is a test (of limit.txt, the goal's work): red before the goal, green after it.
    repo.git(&["config", "goal.tests", "rate.sh"]);
    repo.write("limit.txt", "429\n");
    repo.write(".gitignore", "*.ran\n");
    commit_all(&repo, "rate test");
    repo.ok(&[
        "criteria",
        "add",
        "excess requests return 429",
        "--verify",
        "sh rate.sh",
    ]);
    assert!(
        repo.goal_md()
            .contains("- [ ] excess requests return 429 (verify: `sh rate.sh`)")
    );
    // Another passing command is refused, naming the pin.
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "pass.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("pinned to `sh rate.sh`"),
        "{}",
        stderr(&out)
    );
    // From a subfolder, the pin runs at the root.
    std::fs::create_dir_all(repo.path().join("sub")).unwrap();
    let out = repo
        .goal_in(&repo.path().join("sub"))
        .args(["verify", "-c", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(repo.read("rate.ran"), "ran\n");
    assert_eq!(states(&repo), ["proven"]);
    assert_eq!(status(&repo)["criteria"][0]["pin"], "sh rate.sh");
    // A record of another command naming it does not count (written by an older goal, say).
    repo.ok(&["done"]);
}

#[test]
fn verify_alone_runs_each_distinct_pin_once() {
    let repo = project(&[
        "a returns 1 (verify: `sh count.sh a`)",
        "b returns 2 (verify: `sh count.sh a`)",
        "c returns 3 (verify: `sh count.sh c`)",
        "d is documented in README.md",
    ]);
    repo.write(
        "count.sh",
        "#!/bin/sh
echo \"$1\" >> runs.log
echo '1 passed, 0 failed'
",
    );
    repo.write(".gitignore", "runs.log\n");
    commit_all(&repo, "counter");
    repo.ok(&["verify"]);
    assert_eq!(repo.read("runs.log"), "a\nc\n");
    assert_eq!(states(&repo), ["proven", "proven", "proven", "open"]);
    let md = repo.goal_md();
    assert_eq!(md.matches("- [x]").count(), 3, "{md}");
}

#[test]
fn changing_a_pin_needs_confirm_and_is_recorded_adding_one_is_not() {
    let repo = project(&["excess requests return 429"]);
    repo.ok(&["criteria", "pin", "1", "--", "cargo", "test", "rate_limit"]);
    assert!(repo.trailer("HEAD", "Goal-Material-Change").is_none());
    assert!(repo.goal_md().contains("(verify: `cargo test rate_limit`)"));
    let head = repo.head();
    let out = repo
        .goal()
        .args(["criteria", "pin", "1", "--", "cargo", "test"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("changes the pin"), "{}", stderr(&out));
    assert_eq!(repo.head(), head);
    repo.ok(&["criteria", "pin", "1", "--confirm", "--", "cargo", "test"]);
    let change = repo.trailer("HEAD", "Goal-Material-Change").unwrap();
    assert!(change.contains("changes the pin"), "{change}");
    // Removing it by an edit is material too.
    let out = repo
        .goal()
        .args(["criteria", "edit", "1", "excess requests return 429"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("removes the pin"), "{}", stderr(&out));
    let flags = repo.log_flags();
    assert!(
        flags.iter().flatten().any(|f| f == "material-change"),
        "{flags:?}"
    );
}

#[test]
fn pins_survive_a_round_trip_from_any_source() {
    let texts = [
        "excess requests return 429   (verify:`cargo test  rate_limit`)",
        "`parse` handles `a|b` input (verify: `pytest -k 'a and b' tests/`)",
        "超额请求返回 429（verify: `cargo test 限流`）",
    ];
    let repo = Repo::new();
    let mut cmd = repo.goal();
    cmd.args(["init", "Rate limit"]);
    for t in &texts {
        cmd.args(["-c", t]);
    }
    cmd.assert().success();
    let s = status(&repo);
    let want_pins = [
        "cargo test  rate_limit",
        "pytest -k 'a and b' tests/",
        "cargo test 限流",
    ];
    for (i, t) in texts.iter().enumerate() {
        assert_eq!(s["criteria"][i]["text"], *t);
        assert_eq!(s["criteria"][i]["pin"], want_pins[i]);
        assert!(repo.goal_md().contains(t), "{t}");
    }
    assert_eq!(
        s["criteria"][1]["rerun"],
        serde_json::json!(["pytest", "-k", "a and b", "tests/"])
    );
    // A hand edit that adds a pin is read the same way.
    let md = repo.goal_md();
    repo.ok(&["iterate", "-m", "nothing yet"]);
    assert_eq!(
        repo.goal_md()
            .lines()
            .filter(|l| l.starts_with("- [ ]"))
            .count(),
        3
    );
    assert!(md.contains(texts[2]));
}

#[test]
fn lint_flags_the_unpinned_and_the_self_grading() {
    let repo = project(&[
        "excess requests return 429",
        "division works (verify: `sh pass.sh`)",
    ]);
    // A hand edit pins a self-grading command.
    let md = repo.goal_md().replace(
        "- [ ] excess requests return 429",
        "- [ ] excess requests return 429 (verify: `echo 3 passed`)",
    );
    let out = repo
        .goal()
        .args(["criteria", "lint", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let findings = json(&out);
    assert_eq!(findings[0]["flags"], serde_json::json!(["unpinned"]));
    assert_eq!(findings[1]["flags"], serde_json::json!([]));
    assert_eq!(findings[1]["pin"], "sh pass.sh");
    repo.write(GOAL, &md);
    let out = repo
        .goal()
        .args(["criteria", "lint", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)[0]["flags"], serde_json::json!(["self-grading"]));
    // verify refuses to run it.
    assert_eq!(code(&repo, &["verify", "-c", "1"]), Some(1));
}

#[test]
fn init_refuses_a_self_grading_pin_and_changes_nothing() {
    let repo = Repo::new();
    let head = repo.head();
    let out = repo
        .goal()
        .args([
            "init",
            "Rate limit",
            "-c",
            "429 on excess (verify: `echo 5 passed`)",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cannot be pinned"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.head(), head);
    assert!(!repo.exists(GOAL));
}

#[test]
fn the_continuation_counts_proven_criteria() {
    let repo = project(&["division works"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    let text = stdout(&repo.goal().arg("continuation").output().unwrap());
    assert!(text.contains("当前进度：1/1 criteria 通过"), "{text}");
    repo.write("late.py", "changed\n");
    let text = stdout(&repo.goal().arg("continuation").output().unwrap());
    assert!(text.contains("当前进度：0/1 criteria 通过"), "{text}");
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
    repo.git(&["config", "goal.tests", "junit.sh"]);
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

#[test]
fn a_pin_runs_at_the_root_even_from_a_subfolder() {
    let repo = project(&["f returns 2 (verify: `sh t.sh`)"]);
    repo.write("t.sh", "#!/bin/sh\necho '1 failed, 0 passed'\nexit 1\n");
    repo.write("sub/t.sh", "#!/bin/sh\necho '1 passed, 0 failed'\n");
    commit_all(&repo, "tests");
    let out = repo
        .goal_in(&repo.path().join("sub"))
        .args(["verify", "-c", "1", "--", "sh", "t.sh"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the root's t.sh ran: {}",
        stderr(&out)
    );
    let record = last_record(&repo);
    assert_eq!(record["cwd"], "");
    assert_eq!(states(&repo), ["failing"]);
    assert_eq!(code(&repo, &["done"]), Some(1));
}

#[test]
fn removing_the_last_lines_of_the_ledger_cannot_bring_back_an_older_result() {
    let repo = project(&["division works (verify: `sh flaky.sh`)"]);
    repo.write(
        "flaky.sh",
        "#!/bin/sh\nif [ -f flag ]; then echo '0 passed, 1 failed'; exit 1; fi\necho '1 passed, 0 failed'\n",
    );
    repo.write(".gitignore", "flag\n");
    commit_all(&repo, "flaky");
    repo.ok(&["verify", "-c", "1"]);
    repo.write("flag", "");
    assert_eq!(code(&repo, &["verify", "-c", "1"]), Some(1));
    std::fs::remove_file(repo.path().join("flag")).unwrap();
    assert_eq!(states(&repo), ["failing"]);
    // Drop the failing record: the passing one before it must not decide.
    let text = repo.read(EVIDENCE);
    let first = text.lines().next().unwrap();
    repo.write(EVIDENCE, &format!("{first}\n"));
    let s = status(&repo);
    assert_eq!(s["criteria"][0]["state"], "failing");
    assert!(
        s["criteria"][0]["why"]
            .as_str()
            .unwrap()
            .contains("was removed from evidence.jsonl"),
        "{s}"
    );
    assert_eq!(s["criteria"][0]["rerun_line"], "goal verify -c 1");
    assert_eq!(code(&repo, &["check", "1"]), Some(1));
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("was removed"), "{}", stderr(&out));
    // A new run on this code decides again.
    repo.ok(&["verify", "-c", "1"]);
    assert_eq!(states(&repo), ["proven"]);
}

#[test]
fn a_goal_marked_complete_by_hand_can_be_set_back() {
    let repo = project(&["division works"]);
    let md = repo
        .goal_md()
        .replace("status: in-progress", "status: complete");
    repo.write(GOAL, &md);
    repo.git(&["commit", "-q", "--no-verify", "-am", "complete by hand"]);
    let s = status(&repo);
    assert!(
        s["next"].as_str().unwrap().contains("`goal resume`"),
        "{}",
        s["next"]
    );
    assert_eq!(code(&repo, &["done"]), Some(1));
    repo.ok(&["resume"]);
    assert_eq!(status(&repo)["status"], "in-progress");
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.ok(&["done"]);
}

#[test]
fn iterate_points_at_gitignore_when_it_commits_build_output() {
    let repo = project(&["division works"]);
    repo.write("target/debug/deps/div-123", "binary\n");
    let out = repo
        .goal()
        .args(["iterate", "-m", "built"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("target/debug/deps/div-123"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("`target/` looks like build output")
            && stderr(&out).contains("git rm -r --cached target/"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_pin_written_from_a_subfolder_is_warned_about() {
    let repo = project(&["division works"]);
    std::fs::create_dir_all(repo.path().join("pkg")).unwrap();
    let out = repo
        .goal_in(&repo.path().join("pkg"))
        .args(["criteria", "pin", "1", "--", "pytest", "tests/test_div.py"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("pinned commands run at the worktree root, not in pkg/"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn without_goal_on_path_the_hook_holds_back_only_goal_file_commits() {
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
