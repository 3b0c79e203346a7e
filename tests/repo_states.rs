//! The repository states goal meets: an unborn branch, a detached HEAD and a linked
//! worktree work; outside a repository, in a bare one, mid-merge and without an identity it
//! refuses, saying what to do.

use crate::common::{GOAL, Repo, json, stderr, stdout};

#[test]
fn works_on_an_unborn_branch_a_detached_head_and_a_linked_worktree() {
    let repo = Repo::empty();
    repo.init_goal(&["a passes"]);
    assert_eq!(repo.commit_count(), 1);
    repo.ok(&["iterate", "-m", "first"]);

    repo.git(&["checkout", "-q", "--detach"]);
    repo.ok(&["iterate", "-m", "detached"]);
    assert!(
        repo.git_output(&["symbolic-ref", "-q", "HEAD"])
            .status
            .code()
            != Some(0)
    );
    assert_eq!(repo.trailer("HEAD", "Goal-Iteration").as_deref(), Some("2"));

    let (_wt, wt_path) = repo.add_worktree();
    repo.goal_in(&wt_path)
        .args(["iterate", "-m", "in the worktree"])
        .assert()
        .success();
    assert!(
        std::fs::read_to_string(wt_path.join(GOAL))
            .unwrap()
            .contains("### Iteration 3")
    );
    assert!(!repo.goal_md().contains("### Iteration 3"));
    repo.assert_fsck();
}

#[test]
fn refuses_outside_a_repo_in_a_bare_repo_and_mid_merge() {
    let outside = tempfile::TempDir::new().unwrap();
    let repo = Repo::new();
    let out = repo
        .goal_in(outside.path())
        .args(["init", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not a git repository"),
        "{}",
        stderr(&out)
    );

    let bare = tempfile::TempDir::new().unwrap();
    repo.git(&["init", "-q", "--bare", bare.path().to_str().unwrap()]);
    let out = repo
        .goal_in(bare.path())
        .args(["init", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("bare repository"), "{}", stderr(&out));

    repo.init_goal(&["a passes"]);
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("README.md", "other\n");
    repo.git(&["commit", "-q", "-am", "other"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("README.md", "main\n");
    repo.git(&["commit", "-q", "-am", "main"]);
    let merge = repo.git_output(&["merge", "other"]);
    assert!(
        !merge.status.success() && stdout(&merge).contains("CONFLICT"),
        "{}",
        stdout(&merge)
    );
    let before = repo.goal_md();
    let out = repo.goal().args(["iterate", "-m", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("merge is in progress"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("git merge --abort"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.goal_md(), before);
}

#[test]
fn refuses_without_an_identity_and_says_how_to_set_one() {
    let repo = Repo::new();
    repo.git(&["config", "--unset", "user.name"]);
    repo.git(&["config", "--unset", "user.email"]);
    let out = repo
        .goal()
        .args(["init", "x", "-c", "a passes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("git config user.name"),
        "{}",
        stderr(&out)
    );
    assert!(!repo.exists(GOAL));
}

/// On a detached HEAD, committing commands warn that their commits are on no branch, status
/// says so, and `goal run` refuses to start (exit 2, nothing committed) unless --detached-ok.
#[test]
fn a_detached_head_is_said_and_goal_run_refuses_it() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.git(&["checkout", "-q", "--detach"]);
    repo.write("x.txt", "x\n");
    let out = repo
        .goal()
        .args(["iterate", "-m", "work"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "goal: warning: HEAD is detached: these commits are on no branch — git switch -c <name> keeps them"
        ),
        "{}",
        stderr(&out)
    );
    let text = stdout(&repo.goal().arg("status").output().unwrap());
    assert!(text.contains("HEAD is detached"), "{text}");
    assert_eq!(
        json(&repo.goal().args(["status", "--json"]).output().unwrap())["detached"],
        true
    );
    let head = repo.head();
    repo.refused(
        &["run", "--", "sh", "-c", "exit 0"],
        2,
        &["HEAD is detached", "git switch -c <name>", "--detached-ok"],
    );
    assert_eq!(repo.head(), head);
    let out = repo
        .goal()
        .env("GOAL_TIME_SCALE", "0")
        .args([
            "run",
            "--detached-ok",
            "--max-iterations",
            "1",
            "--",
            "sh",
            "-c",
            "echo hi",
        ])
        .output()
        .unwrap();
    assert!(
        !stderr(&out).contains("HEAD is detached: the run"),
        "{}",
        stderr(&out)
    );
    assert_ne!(repo.head(), head, "the run made its iteration");
    // On a branch again: no warning.
    repo.git(&["switch", "-q", "-c", "kept"]);
    repo.write("y.txt", "y\n");
    let out = repo
        .goal()
        .args(["iterate", "-m", "more"])
        .output()
        .unwrap();
    assert!(!stderr(&out).contains("detached"), "{}", stderr(&out));
    assert_eq!(
        json(&repo.goal().args(["status", "--json"]).output().unwrap())["detached"],
        false
    );
}
