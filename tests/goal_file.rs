//! The goal file itself: malformed files are refused and left untouched, a symlink out of the
//! worktree is refused, unknown content survives every rewrite, and a goal file outside the
//! default folder (--file, GOAL_FILE) runs the whole loop.

use crate::common::{GOAL, Repo, json, stderr, stdout};

/// Malformed GOAL.md files: exit 2, a located message, the file byte-identical, no commit.
#[test]
fn bad_goal_files_are_refused_and_left_untouched() {
    let valid = "---\ngoal: \"x\"\niteration: 0\nstatus: in-progress\n---\n## Acceptance Criteria\n- [ ] a\n## Progress Log\n";
    let cases: &[(&str, &[u8], &str)] = &[
        ("missing frontmatter", b"# Goal: x\n## Acceptance Criteria\n- [ ] a\n", "GOAL.md:1:"),
        ("bad yaml", b"---\ngoal: x\n  status: [\niteration: 0\n---\n## Acceptance Criteria\n", "GOAL.md:3:"),
        ("unknown status", b"---\ngoal: x\niteration: 0\nstatus: done\n---\n## Acceptance Criteria\n", "GOAL.md:4:"),
        ("iteration not a number", b"---\ngoal: x\niteration: two\nstatus: in-progress\n---\n## Acceptance Criteria\n", "GOAL.md:3:"),
        (
            "duplicate sections",
            b"---\ngoal: x\niteration: 0\nstatus: in-progress\n---\n## Acceptance Criteria\n## Acceptance Criteria\n",
            "GOAL.md:7:",
        ),
        ("no criteria section", b"---\ngoal: x\niteration: 0\nstatus: in-progress\n---\n# Goal: x\n", "GOAL.md:7:"),
        ("binary garbage", b"\x7fELF\x02\x01\x01\x00\x00\x00garbage", "GOAL.md:1:"),
        ("invalid utf-8", b"---\ngoal: \xff\xfe\n---\n", "GOAL.md:2:"),
        ("empty file", b"", "GOAL.md:1:"),
    ];
    for (name, bytes, location) in cases {
        let repo = Repo::new();
        repo.write(GOAL, valid);
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "goal by hand"]);
        std::fs::write(repo.path().join(GOAL), bytes).unwrap();
        let head = repo.head();
        for args in [
            &["iterate", "-m", "x"][..],
            &["status"],
            &["criteria", "add", "b passes"],
            &["block", "--reason", "r"],
            &["abandon"],
            &["init", "y", "--replace"],
        ] {
            let out = repo.goal().args(args).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(2),
                "{name} {args:?}: {}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains(location),
                "{name} {args:?}: {}",
                stderr(&out)
            );
            assert_eq!(
                std::fs::read(repo.path().join(GOAL)).unwrap(),
                *bytes,
                "{name} {args:?}"
            );
            assert_eq!(repo.head(), head, "{name} {args:?}");
        }
    }
}

#[test]
fn a_symlinked_goal_file_outside_the_worktree_is_refused() {
    let repo = Repo::new();
    let outside = tempfile::TempDir::new().unwrap();
    let target = outside.path().join("GOAL.md");
    let content = "---\ngoal: \"x\"\niteration: 0\nstatus: in-progress\n---\n## Acceptance Criteria\n- [ ] a\n";
    std::fs::write(&target, content).unwrap();
    std::fs::create_dir_all(repo.path().join(".agents/goal")).unwrap();
    std::os::unix::fs::symlink(&target, repo.path().join(GOAL)).unwrap();
    for args in [
        &["iterate", "-m", "x"][..],
        &["status"],
        &["init", "y", "--replace"],
    ] {
        let out = repo.goal().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("outside the worktree"),
            "{}",
            stderr(&out)
        );
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), content);
    // A symlinked goal folder is refused the same way.
    let repo = Repo::new();
    std::fs::create_dir_all(repo.path().join(".agents")).unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.path().join(".agents/goal")).unwrap();
    repo.refused(
        &["init", "y", "-c", "a passes"],
        2,
        &[".agents/goal resolves outside the worktree"],
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), content);
}

#[test]
fn unknown_content_survives_every_rewrite() {
    let repo = Repo::new();
    let text = "---\ngoal: \"x\"\nowner: alice # keep me\ncreated: \"2026-01-01T00:00:00Z\"\nupdated: \"2026-01-01T00:00:00Z\"\niteration: 0\nstatus: in-progress\n---\n\n# Goal: x\n\n<!-- notes for humans -->\n## Context\nWhy we do this.\n\n## Acceptance Criteria\n- [ ] a passes\n\n## Progress Log\n\n## Appendix\nKeep this too.\n";
    repo.write(GOAL, text);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "goal by hand"]);
    repo.ok(&["iterate", "-m", "found the bug"]);
    repo.ok(&["block", "--reason", "r"]);
    repo.ok(&["resume"]);
    let expected = text
        .replace(
            "updated: \"2026-01-01T00:00:00Z\"",
            "updated: \"2026-11-30T15:04:05Z\"",
        )
        .replace("iteration: 0", "iteration: 1")
        .replace(
            "## Progress Log\n\n",
            "## Progress Log\n### Iteration 1\n- found the bug\n\n",
        );
    assert_eq!(repo.goal_md(), expected);
}

/// A goal file outside .agents/goal/ keeps its evidence beside it, and the whole loop works
/// there; the default location stays empty.
#[test]
fn a_goal_file_outside_the_default_folder_runs_the_whole_loop() {
    let repo = Repo::new();
    repo.test_script("pass.sh", 2, 0);
    let file = "docs/goal/GOAL.md";
    repo.ok(&["--file", file, "init", "Elsewhere", "-c", "a passes"]);
    assert!(repo.exists(file));
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "goal: init \"Elsewhere\""
    );
    repo.ok(&["--file", file, "verify", "-c", "1", "--", "sh", "pass.sh"]);
    assert!(repo.exists("docs/goal/evidence.jsonl"));
    assert!(!repo.exists(".agents"));
    repo.refused(&["status"], 1, &["no active goal", ".agents/goal/GOAL.md"]);
    // GOAL_FILE is the same as --file.
    let status = repo
        .goal()
        .env("GOAL_FILE", file)
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&status)["passing"], 1, "{}", stdout(&status));
    repo.ok(&["--file", file, "iterate", "-m", "a proven"]);
    assert_eq!(repo.trailer("HEAD", "Goal-Passing").as_deref(), Some("1/1"));
    // The hooks gate the file named by GOAL_FILE in the committing environment.
    repo.ok(&["hooks", "install"]);
    repo.ok(&["--file", file, "criteria", "add", "b passes"]);
    repo.write(
        file,
        &repo.read(file).replace("- [ ] b passes", "- [x] b passes"),
    );
    repo.git(&["add", "-A"]);
    let out = repo
        .git_cmd()
        .env("GOAL_FILE", file)
        .args(["commit", "-m", "tick b"])
        .output()
        .unwrap();
    crate::common::assert_refused(
        "a hand tick of b",
        &out,
        None,
        &["criterion 2 \"b passes\" is ticked without proof"],
    );
    repo.git(&["checkout", "-q", "--", file]);
    repo.ok(&["--file", file, "verify", "-c", "2", "--", "sh", "pass.sh"]);
    repo.ok(&["--file", file, "done"]);
    assert!(!repo.exists(file) && !repo.exists("docs/goal/evidence.jsonl"));
    assert_eq!(repo.status_porcelain(), "");
}
