//! Pinned verification commands (`(verify: `CMD`)` in a criterion): only the pin proves, each
//! distinct pin runs once and at the worktree root, changing or removing one is material, pins
//! round-trip from any source, and self-grading ones are refused.

use crate::common::{
    EVIDENCE, GOAL, Repo, code, commit_all, json, last_record, project, states, status, stderr,
};

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
    repo.ok(&["criteria", "surface", "--tests", "rate.sh", "--confirm"]);
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
