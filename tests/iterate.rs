//! `goal iterate`: what it commits (the whole working tree honouring .gitignore, or the goal
//! file alone), what it needs (a message, a goal in progress), a stale tick it unticks, and
//! build output it points at .gitignore for.

use crate::common::{GOAL, Repo, project, stderr, stdout};

#[test]
fn iterate_commits_the_whole_working_tree_honouring_gitignore() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.write(".gitignore", "target/\n");
    repo.write("src/lib.rs", "pub fn f() {}\n");
    repo.write("target/junk", "x\n");
    repo.write("README.md", "# changed\n");
    repo.ok(&["iterate", "-m", "implemented f", "-m", "two\nlines"]);
    assert_eq!(repo.status_porcelain(), "");
    assert!(!repo.git(&["ls-files"]).contains("target/junk"));
    let files = repo.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(
        files,
        ".agents/goal/GOAL.md\n.gitignore\nREADME.md\nsrc/lib.rs\n"
    );
    assert!(
        repo.goal_md()
            .contains("## Progress Log\n### Iteration 1\n- implemented f\n- two\n    lines\n")
    );
    assert!(repo.goal_md().contains("iteration: 1\n"));
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "goal: iteration 1: implemented f"
    );
    assert_eq!(repo.trailer("HEAD", "Goal-Iteration").as_deref(), Some("1"));
    // A deleted tracked file is recorded as deleted (git add -A).
    std::fs::remove_file(repo.path().join("src/lib.rs")).unwrap();
    repo.ok(&["iterate", "-m", "removed f"]);
    assert!(!repo.git(&["ls-files"]).contains("src/lib.rs"));
    repo.assert_fsck();
}

#[test]
fn iterate_goal_only_leaves_other_changes_alone() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.write("src/lib.rs", "pub fn f() {}\n");
    repo.ok(&["iterate", "--goal-only", "-m", "planning"]);
    assert_eq!(
        repo.git(&["show", "--name-only", "--format=", "HEAD"])
            .trim(),
        GOAL
    );
    assert_eq!(repo.status_porcelain(), "?? src/\n");
}

#[test]
fn iterate_needs_a_message_and_an_in_progress_goal() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.refused(&["iterate"], 2, &["--message <LINE>"]);
    repo.refused(&["iterate", "-m", " "], 2, &["every -m is empty"]);
    repo.ok(&["block", "--reason", "waiting"]);
    let out = repo.goal().args(["iterate", "-m", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("goal resume"));
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
