//! Many agents, many branches: `goal recheck` (finished goals rechecked on the merged tree),
//! `goal fleet` (every goal in flight), and the merge driver for the goal files.

use std::process::Output;

use crate::support::{Repo, json, stderr, stdout};

/// A test script printing a plain summary line.
fn script(passed: u32, failed: u32) -> String {
    format!(
        "#!/bin/sh\necho \"{passed} passed, {failed} failed\"\nexit {}\n",
        u32::from(failed > 0)
    )
}

fn recheck(repo: &Repo, args: &[&str]) -> Output {
    repo.goal().arg("recheck").args(args).output().unwrap()
}

/// A goal with a pinned test and an unpinned criterion, proven and done.
fn finished(repo: &Repo, goal: &str, test: &str) {
    repo.goal()
        .args(["init", goal])
        .args(["-c", &format!("{goal} works (verify: `sh {test}`)")])
        .args(["-c", "the docs say so"])
        .assert()
        .success();
    repo.write(test, &script(2, 0));
    repo.ok(&["verify"]);
    repo.ok(&["verify", "-c", "2", "--", "sh", test]);
    repo.ok(&["iterate", "-m", "implemented it"]);
    repo.ok(&["done"]);
}

/// What recheck must leave as it was: the commits, the working tree, the goal files.
fn snapshot(repo: &Repo) -> (String, String, usize) {
    (repo.head(), repo.status_porcelain(), repo.commit_count())
}

#[test]
fn recheck_says_broken_after_a_breaking_commit_and_holds_after_the_fix() {
    let repo = Repo::new();
    finished(&repo, "parse rows", "tests/rows.sh");
    let before = snapshot(&repo);
    let out = recheck(&repo, &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(text.contains("holds"), "{text}");
    assert!(text.contains("unpinned"), "{text}");
    assert!(text.contains("recheck: ok"), "{text}");

    // A later commit breaks what the goal proved.
    repo.write("tests/rows.sh", &script(1, 1));
    repo.git(&["commit", "-q", "-am", "refactor the parser"]);
    let before = (repo.head(), before.1, before.2 + 1);
    for args in [&[][..], &["--all"][..]] {
        let out = recheck(&repo, &[args, &["--json"]].concat());
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}{}",
            stdout(&out),
            stderr(&out)
        );
        let v = json(&out);
        let goals = v["goals"].as_array().unwrap();
        assert_eq!(goals.len(), 1, "{v}");
        assert_eq!(goals[0]["goal"], "parse rows");
        let complete = repo.git(&["log", "--format=%H", "--grep=Goal-Action: complete"]);
        assert_eq!(goals[0]["commit"], complete.trim());
        let c = goals[0]["criteria"].as_array().unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0]["number"], 1);
        assert_eq!(c[0]["text"], "parse rows works");
        assert_eq!(c[0]["verdict"], "broken", "{v}");
        assert_eq!(
            c[0]["output_tail"],
            serde_json::json!(["1 passed, 1 failed"])
        );
        assert_eq!(c[1]["verdict"], "unpinned");
    }
    assert_eq!(snapshot(&repo), before, "recheck changed something");
    assert!(!repo.exists(".agents/goal/evidence.jsonl"));

    let out = recheck(&repo, &["--format", "github"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.lines().any(|l| l.starts_with("::error ")
            && l.contains("criterion 1 broken")
            && l.contains("1 passed, 1 failed")),
        "{text}"
    );

    // The fix.
    repo.write("tests/rows.sh", &script(3, 0));
    repo.git(&["commit", "-q", "-am", "fix the parser"]);
    let out = recheck(&repo, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json(&out);
    assert_eq!(v["goals"][0]["criteria"][0]["verdict"], "holds");
    assert_eq!(
        v["goals"][0]["criteria"][0]["output_tail"],
        serde_json::json!([])
    );
    assert_eq!(repo.status_porcelain(), "");
}

#[test]
fn recheck_finds_goals_merged_from_branches_and_narrows_to_a_range() {
    let repo = Repo::new();
    finished(&repo, "alpha", "tests/alpha.sh");
    let main_tip = repo.head();
    repo.git(&["checkout", "-q", "-b", "side"]);
    finished(&repo, "beta", "tests/beta.sh");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "-m", "merge side", "side"]);
    let v = json(&recheck(&repo, &["--json"]));
    let names: Vec<&str> = v["goals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["goal"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "beta"], "{v}");
    let range = format!("{main_tip}..HEAD");
    let v = json(&recheck(&repo, &[range.as_str(), "--json"]));
    assert_eq!(v["goals"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["goals"][0]["goal"], "beta");
}

#[test]
fn recheck_runs_guards_and_says_cannot_run() {
    let repo = Repo::new();
    repo.write("lint.sh", "#!/bin/sh\necho lint clean\n");
    repo.write("check.sh", "#!/bin/sh\necho 1 passed, 0 failed\n");
    std::fs::set_permissions(
        repo.path().join("check.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "tools"]);
    // A finished goal as history holds it, however it was made.
    repo.write(
        ".agents/goal/GOAL.md",
        "---\ngoal: \"tools\"\niteration: 1\nstatus: complete\n---\n\n# Goal: tools\n\n## Acceptance Criteria\n- [x] it checks (verify: `./check.sh`)\n- [x] lint is clean (guard: `sh lint.sh`)\n\n## Progress Log\n### Iteration 1\n- done\n",
    );
    repo.git(&["add", "."]);
    repo.git(&[
        "commit",
        "-q",
        "--no-verify",
        "-m",
        "goal: complete\n\nGoal-Iteration: 1\nGoal-Status: complete\nGoal-Passing: 2/2\nGoal-Action: complete",
    ]);
    repo.git(&["rm", "-q", "-r", ".agents"]);
    repo.git(&["commit", "-q", "-m", "goal: done"]);
    let v = json(&recheck(&repo, &["--json"]));
    let c = &v["goals"][0]["criteria"];
    assert_eq!(c[0]["verdict"], "holds", "{v}");
    assert_eq!(c[1]["verdict"], "holds", "{v}");
    assert_eq!(c[1]["text"], "lint is clean");
    // The tool is gone: its pin cannot run.
    repo.git(&["rm", "-q", "check.sh"]);
    repo.git(&["commit", "-q", "-m", "drop the tool"]);
    let out = recheck(&repo, &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["goals"][0]["criteria"][0]["verdict"], "cannot-run", "{v}");
    assert_eq!(v["goals"][0]["criteria"][1]["verdict"], "holds", "{v}");
}

#[test]
fn recheck_bad_input_is_exit_2() {
    let repo = Repo::new();
    let out = recheck(&repo, &["no-such-rev..HEAD"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no-such-rev..HEAD"),
        "{}",
        stderr(&out)
    );
    let out = recheck(&repo, &["--json", "--format", "github"]);
    assert_eq!(out.status.code(), Some(2));
    // Nothing finished yet: nothing to recheck, and that holds.
    let out = recheck(&repo, &["--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out), serde_json::json!({"goals": []}));
}
