//! The git hooks `goal hooks install` sets up: the pre-commit hook refuses hand-ticked and
//! unproven claims, reads the index, keeps the user's own lines and follows `core.hooksPath`.

use crate::common::{GOAL, stderr, stdout};
#[allow(unused_imports)]
use crate::evidence::*;

#[test]
fn the_pre_commit_hook_refuses_a_hand_ticked_box_until_evidence_exists() {
    let repo = setup(&["a passes", "b passes"]);
    repo.ok(&["hooks", "install"]);
    // Tick by hand and commit: refused.
    repo.write(
        GOAL,
        &repo.goal_md().replace("- [ ] a passes", "- [x] a passes"),
    );
    repo.git(&["add", "-A"]);
    let out = repo.git_output(&["commit", "-m", "done, trust me"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("criterion 1 \"a passes\""), "{err}");
    assert!(err.contains("goal verify -c 1 -- <test command>"), "{err}");
    // The same commit after goal verify on this tree: accepted.
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.git(&["add", "-A"]);
    assert!(
        repo.git_output(&["commit", "-q", "-m", "proven"])
            .status
            .success()
    );
    // Change code after verification: the evidence is stale, the tick of b is refused again.
    repo.ok(&["verify", "-c", "2", "--", "sh", "pass.sh"]);
    repo.write("src/lib.rs", "changed after verify\n");
    repo.git(&["add", "-A"]);
    let out = repo.git_output(&["commit", "-m", "sneaky"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("stale"), "{}", stderr(&out));
}

#[test]
fn the_hook_refuses_an_unproven_complete_and_an_unrecorded_removal() {
    let repo = setup(&["a passes", "b passes"]);
    repo.ok(&["hooks", "install"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.ok(&["iterate", "-m", "a done"]);
    repo.write(
        GOAL,
        &repo
            .goal_md()
            .replace("status: in-progress", "status: complete"),
    );
    repo.git(&["add", "-A"]);
    let out = repo.git_output(&["commit", "-m", "all done"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("criterion 2 \"b passes\""),
        "{}",
        stderr(&out)
    );
    repo.git(&["reset", "-q", "--hard"]);

    // Removing a criterion by hand: refused by commit-msg without the record.
    repo.write(GOAL, &repo.goal_md().replace("- [ ] b passes\n", ""));
    repo.git(&["add", "-A"]);
    let out = repo.git_output(&["commit", "-m", "drop b"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("Goal-Material-Change"),
        "{}",
        stderr(&out)
    );
    // With the record: accepted.
    let out = repo.git_output(&[
        "commit",
        "-q",
        "-m",
        "drop b\n\nGoal-Material-Change: b is out of scope",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));

    // A commit that does not touch the goal passes.
    repo.write("src/lib.rs", "fn f() {}\n");
    repo.git(&["add", "-A"]);
    assert!(
        repo.git_output(&["commit", "-q", "-m", "code"])
            .status
            .success()
    );
    // A staged GOAL.md that does not parse is refused.
    repo.write(GOAL, "garbage\n");
    repo.git(&["add", "-A"]);
    let out = repo.git_output(&["commit", "-m", "broken"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("does not parse"), "{}", stderr(&out));
}

#[test]
fn the_hook_reads_the_index_not_the_working_tree() {
    let repo = setup(&["a passes"]);
    repo.ok(&["hooks", "install"]);
    // A tick staged, then undone in the working tree only: the staged tick is what counts.
    let ticked = repo.goal_md().replace("- [ ] a passes", "- [x] a passes");
    let unticked = repo.goal_md();
    repo.write(GOAL, &ticked);
    repo.git(&["add", GOAL]);
    repo.write(GOAL, &unticked);
    repo.git_refused(
        &["commit", "-m", "x"],
        &[
            "commit refused by the goal gate",
            "criterion 1 \"a passes\" is ticked without proof",
        ],
    );
    // `git commit -a` stages through a temporary index (GIT_INDEX_FILE): still seen.
    repo.git(&["reset", "-q"]);
    repo.write(GOAL, &ticked);
    repo.git_refused(
        &["commit", "-a", "-m", "x"],
        &[
            "commit refused by the goal gate",
            "criterion 1 \"a passes\" is ticked without proof",
        ],
    );
}

#[test]
fn hooks_keep_the_users_own_lines_through_install_reinstall_and_uninstall() {
    let repo = setup(&["a passes"]);
    let hook = repo.path().join(".git/hooks/pre-commit");
    let user =
        "#!/bin/sh\necho user-hook-ran >> \"$(git rev-parse --git-dir)/user-marker\"\nexit 0\n";
    std::fs::write(&hook, user).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    repo.ok(&["hooks", "install"]);
    repo.ok(&["hooks", "install"]);
    let text = std::fs::read_to_string(&hook).unwrap();
    assert_eq!(text.matches("# >>> goal >>>").count(), 1, "{text}");
    assert!(text.contains("echo user-hook-ran"));
    // Both run: the user's line, and the gate despite the user's `exit 0`.
    repo.write(
        GOAL,
        &repo.goal_md().replace("- [ ] a passes", "- [x] a passes"),
    );
    repo.git(&["add", "-A"]);
    repo.git_refused(
        &["commit", "-m", "x"],
        &[
            "commit refused by the goal gate",
            "criterion 1 \"a passes\" is ticked without proof",
        ],
    );
    assert!(repo.read(".git/user-marker").contains("user-hook-ran"));
    repo.ok(&["hooks", "status"]);
    repo.ok(&["hooks", "uninstall"]);
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), user);
    assert!(!repo.path().join(".git/hooks/commit-msg").exists());
    let out = repo.goal().args(["hooks", "status"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("pre-commit: not installed (a hook of the user's is there)")
            && stdout(&out).contains("commit-msg: missing"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn hooks_follow_core_hooks_path_and_work_in_a_linked_worktree() {
    let repo = setup(&["a passes"]);
    repo.git(&["config", "core.hooksPath", "my-hooks"]);
    repo.ok(&["hooks", "install"]);
    assert!(repo.path().join("my-hooks/pre-commit").exists());
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());
    repo.git(&["config", "--unset", "core.hooksPath"]);
    repo.ok(&["hooks", "install"]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "scripts"]);
    let (_wt, wt_path) = repo.add_worktree();
    let md = std::fs::read_to_string(wt_path.join(GOAL)).unwrap();
    std::fs::write(
        wt_path.join(GOAL),
        md.replace("- [ ] a passes", "- [x] a passes"),
    )
    .unwrap();
    repo.git_in(&wt_path, &["add", "-A"]);
    let out = repo.git_in(&wt_path, &["commit", "-m", "x"]);
    assert!(
        !out.status.success(),
        "the hook runs in the linked worktree"
    );
    repo.goal_in(&wt_path)
        .args(["verify", "-c", "1", "--", "sh", "pass.sh"])
        .assert()
        .success();
    repo.git_in(&wt_path, &["add", "-A"]);
    let out = repo.git_in(&wt_path, &["commit", "-m", "x"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
