//! GOAL.md as a versioned git artifact: init, status, criteria, iterate, block/resume, abandon,
//! the refusals, bad input, concurrency and the demo.

use crate::support::{GOAL, Repo, json, stderr, stdout};

#[test]
fn init_writes_the_seed_format_and_commits_only_the_goal_files() {
    let repo = Repo::new();
    repo.write("work.txt", "uncommitted work\n");
    let out = repo
        .goal()
        .args([
            "init",
            "Rate limit the API",
            "-c",
            "excess requests return 429",
            "-c",
            "`cargo test` passes",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        repo.goal_md(),
        "---\ngoal: \"Rate limit the API\"\ncreated: \"2026-11-30T15:04:05Z\"\nupdated: \"2026-11-30T15:04:05Z\"\niteration: 0\nstatus: in-progress\n---\n\n# Goal: Rate limit the API\n\n## Acceptance Criteria\n- [ ] excess requests return 429\n- [ ] `cargo test` passes\n\n## Progress Log\n"
    );
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "goal: init \"Rate limit the API\""
    );
    assert_eq!(
        repo.git(&["show", "--name-only", "--format=", "HEAD"])
            .trim(),
        GOAL
    );
    assert_eq!(repo.trailer("HEAD", "Goal-Iteration").as_deref(), Some("0"));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("in-progress")
    );
    assert_eq!(repo.trailer("HEAD", "Goal-Passing").as_deref(), Some("0/2"));
    assert_eq!(repo.status_porcelain(), "?? work.txt\n");
    repo.assert_fsck();
}

#[test]
fn init_without_criteria_says_they_are_still_to_be_written() {
    let repo = Repo::new();
    repo.ok(&["init", "Make the parser fast"]);
    assert!(
        repo.goal_md()
            .contains("## Acceptance Criteria\n\n## Progress Log\n")
    );
    let out = repo.goal().arg("status").output().unwrap();
    assert!(
        stdout(&out).contains("Criteria are still to be written"),
        "{}",
        stdout(&out)
    );
    repo.ok(&["criteria", "add", "parsing 1 MB takes under 50 ms"]);
    assert!(repo.goal_md().contains(
        "## Acceptance Criteria\n- [ ] parsing 1 MB takes under 50 ms\n\n## Progress Log\n"
    ));
    assert_eq!(repo.trailer("HEAD", "Goal-Passing").as_deref(), Some("0/1"));
}

#[test]
fn init_reads_a_criteria_file_and_phases() {
    let repo = Repo::new();
    repo.write("criteria.txt", "- [ ] tests pass\n* README.md exists\n");
    repo.ok(&[
        "init",
        "Big refactor",
        "--criteria-file",
        "criteria.txt",
        "--phases",
        "Design",
        "--phases",
        "Build",
    ]);
    let md = repo.goal_md();
    assert!(
        md.contains(
            "### Phase 1: Design\n- [ ] tests pass\n- [ ] README.md exists\n### Phase 2: Build\n"
        ),
        "{md}"
    );
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["phase"], "Phase 1: Design");
}

#[test]
fn stale_goal_without_a_tty_continues_replaces_or_abandons() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let before = repo.commit_count();
    let out = repo.goal().args(["init", "Another goal"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("Active goal: Make the thing work"));
    assert!(stderr(&out).contains("--replace"));
    assert_eq!(repo.commit_count(), before);

    repo.ok(&["init", "Another goal", "-c", "b passes", "--replace"]);
    assert_eq!(repo.commit_count(), before + 2);
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("abandoned")
    );
    assert!(repo.goal_md().contains("goal: \"Another goal\""));

    repo.ok(&["init", "--abandon-current"]);
    assert!(!repo.exists(GOAL));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("abandoned")
    );
    assert_eq!(repo.commit_count(), before + 3);
}

#[test]
fn status_json_has_the_contract_keys() {
    let repo = Repo::new();
    repo.init_goal(&["a passes", "b returns 0"]);
    let v = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(v["goal"], "Make the thing work");
    assert_eq!(v["status"], "in-progress");
    assert_eq!(v["iteration"], 0);
    assert_eq!(v["passing"], 0);
    assert_eq!(v["total"], 2);
    assert_eq!(v["criteria"][1]["number"], 2);
    assert_eq!(v["criteria"][1]["text"], "b returns 0");
    assert_eq!(v["criteria"][1]["passed"], false);
    assert!(v["criteria"][1]["evidence"].is_null());
    assert!(v["phase"].is_null());
    for key in ["stagnant", "s1", "s2", "s3", "recoveries"] {
        assert!(v["stagnation"].get(key).is_some(), "stagnation.{key}");
    }
    assert_eq!(v["retry"]["retries"], 0);
    assert_eq!(v["retry"]["max"], 10);
}

#[test]
fn no_goal_is_exit_1() {
    let repo = Repo::new();
    let out = repo.goal().arg("status").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no active goal"), "{}", stderr(&out));
    assert!(stderr(&out).contains("goal init"), "{}", stderr(&out));
}

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
fn block_and_resume_round_trip() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let before = repo.goal_md();
    repo.ok(&["block", "--reason", "CI is down"]);
    assert!(repo.goal_md().contains("status: blocked\n"));
    assert!(
        repo.goal_md()
            .ends_with("## Progress Log\n\n## Blocked\n- CI is down\n")
    );
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("blocked")
    );
    let v = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(v["blocked"][0], "CI is down");
    repo.ok(&["resume"]);
    assert_eq!(repo.goal_md(), before);
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("in-progress")
    );
    repo.refused(&["resume"], 1, &["not blocked: nothing to resume"]);
}

#[test]
fn abandon_deletes_the_goal_files_in_a_marked_commit() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let out = repo
        .goal()
        .args(["abandon", "--reason", "no longer needed"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(stdout(&out).contains("Abandoned: Make the thing work"));
    assert!(!repo.exists(".agents/goal"));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("abandoned")
    );
    assert!(
        repo.git(&["log", "-1", "--format=%B"])
            .contains("Reason: no longer needed")
    );
    assert_eq!(repo.status_porcelain(), "");
    repo.refused(&["abandon"], 1, &["no active goal", "goal init"]);
}

/// An added way out ("or …", "unless …") or an exact figure made a bound lowers the bar like a
/// negation: refused without --confirm, recorded in the trailer with it.
#[test]
fn an_alternative_or_a_bound_is_a_material_change() {
    let repo = Repo::new();
    repo.init_goal(&[
        "add(2, 2) returns 4 (verify: `sh t.sh`)",
        "search returns 4 results",
    ]);
    let before = repo.goal_md();
    let head = repo.head();
    for (number, text, reason) in [
        (
            "1",
            "add(2, 2) returns 4, or raises (verify: `sh t.sh`)",
            "adds the alternative \"or\"",
        ),
        (
            "1",
            "add(2, 2) returns 4 unless it overflows (verify: `sh t.sh`)",
            "adds the alternative \"unless\"",
        ),
        (
            "2",
            "search returns at most 4 results",
            "turns an exact figure into a bound (\"at most\")",
        ),
    ] {
        repo.refused(
            &["criteria", "edit", number, text],
            1,
            &[reason, "--confirm"],
        );
        assert_eq!(repo.goal_md(), before, "{text}");
        assert_eq!(repo.head(), head, "{text}");
    }
    repo.ok(&[
        "criteria",
        "edit",
        "1",
        "add(2, 2) returns 4, or raises (verify: `sh t.sh`)",
        "--confirm",
    ]);
    let record = repo.trailer("HEAD", "Goal-Material-Change").unwrap();
    assert!(record.contains("adds the alternative \"or\""), "{record}");
}

#[test]
fn criteria_changes_and_the_material_change_rule() {
    let repo = Repo::new();
    repo.init_goal(&["excess requests return 429", "p99 latency under 200 ms"]);
    // A typo fix is safe.
    repo.ok(&["criteria", "edit", "1", "excess requests retrun 429"]);
    assert_eq!(repo.trailer("HEAD", "Goal-Material-Change"), None);
    // Dropping the number is material: refused, nothing changes.
    let before = repo.goal_md();
    let head = repo.head();
    let out = repo
        .goal()
        .args(["criteria", "edit", "2", "p99 latency is low"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--confirm"), "{}", stderr(&out));
    assert_eq!(repo.goal_md(), before);
    assert_eq!(repo.head(), head);
    // Removing is material too.
    repo.refused(
        &["criteria", "remove", "2"],
        1,
        &["removing criterion 2", "is a material change", "--confirm"],
    );
    assert_eq!(repo.goal_md(), before);
    // A confirmed rewording: applied, and recorded in the commit's trailer, old → new.
    repo.ok(&["criteria", "edit", "2", "p99 latency is low", "--confirm"]);
    assert!(repo.goal_md().contains("- [ ] p99 latency is low\n"));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Material-Change").as_deref(),
        Some(
            "criterion 2 \"p99 latency under 200 ms\" → \"p99 latency is low\" (drops the number 200)"
        )
    );
    repo.git(&["reset", "-q", "--hard", &head]);
    // Confirmed: applied and recorded.
    repo.ok(&["criteria", "remove", "2", "--confirm"]);
    let record = repo.trailer("HEAD", "Goal-Material-Change").unwrap();
    assert!(record.contains("p99 latency under 200 ms"), "{record}");
    // A split that covers the old text is safe.
    repo.ok(&["criteria", "add", "lint clean and typecheck passes"]);
    repo.ok(&["criteria", "edit", "2", "lint clean", "typecheck passes"]);
    assert_eq!(repo.trailer("HEAD", "Goal-Material-Change"), None);
    assert!(
        repo.goal_md()
            .contains("- [ ] lint clean\n- [ ] typecheck passes\n")
    );
    // Out of range and empty text are bad input.
    repo.refused(
        &["criteria", "edit", "9", "x"],
        2,
        &["there is no criterion 9"],
    );
    repo.refused(
        &["criteria", "add", " "],
        2,
        &["the criterion text is empty"],
    );
    repo.assert_fsck();
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

#[test]
fn dash_c_runs_elsewhere() {
    let repo = Repo::new();
    let elsewhere = tempfile::TempDir::new().unwrap();
    repo.goal_in(elsewhere.path())
        .args([
            "-C",
            repo.path().to_str().unwrap(),
            "init",
            "x",
            "-c",
            "a passes",
        ])
        .assert()
        .success();
    assert!(repo.exists(GOAL));
    repo.refused(
        &["-C", "/no/such/dir", "status"],
        2,
        &["-C /no/such/dir: no such directory"],
    );
}

/// On a terminal, where colour would otherwise be on, any non-empty `NO_COLOR` turns it off and
/// an empty one does not (no-color.org).
#[test]
fn no_color_means_no_escape_codes_on_a_terminal() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let status = format!("{} status", env!("CARGO_BIN_EXE_goal"));
    for (no_color, coloured) in [
        (None, true),
        (Some(""), true),
        (Some("1"), false),
        (Some("yes please"), false),
    ] {
        let text = repo.on_a_tty(&status, &[("NO_COLOR", no_color)], None);
        assert!(
            text.contains("Make the thing work"),
            "{no_color:?}: {text:?}"
        );
        assert_eq!(
            text.contains('\x1b'),
            coloured,
            "NO_COLOR={no_color:?}: {text:?}"
        );
    }
}

#[test]
fn bad_flags_are_usage_errors() {
    let repo = Repo::new();
    repo.refused(
        &["init"],
        2,
        &["required arguments were not provided", "<GOAL>"],
    );
    repo.refused(&["nonsense"], 2, &["unrecognized subcommand 'nonsense'"]);
    let out = repo.goal().args(["status", "--bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("goal: error: unexpected argument '--bogus'"),
        "{}",
        stderr(&out)
    );
    repo.ok(&["--help"]);
}

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

/// Two `goal iterate` started at once: both land as N+1 and N+2, or one fails cleanly.
#[test]
fn concurrent_iterates_never_lose_or_duplicate_an_iteration() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    // Nothing changes between these iterations: keep stagnation from escalating here.
    repo.git(&["config", "goal.stagnationWindow", "100"]);
    for round in 0..3 {
        let children: Vec<_> = (0..2)
            .map(|i| {
                repo.goal_std()
                    .args(["iterate", "-m", &format!("round {round} worker {i}")])
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.code() == Some(0) || out.status.code() == Some(1),
                "{}",
                stderr(&out)
            );
        }
    }
    let log = repo.git(&["log", "--format=%(trailers:key=Goal-Iteration,valueonly)"]);
    let mut numbers: Vec<u64> = log.split_whitespace().map(|n| n.parse().unwrap()).collect();
    numbers.reverse();
    let expected: Vec<u64> = (0..numbers.len() as u64).collect();
    assert_eq!(numbers, expected, "every iteration once, in order");
    // The lock serialises, it does not starve: at least one iteration of each round landed.
    let last = numbers.len() - 1;
    assert!(last >= 3, "only {last} iterations landed in 3 rounds");
    assert_eq!(
        repo.trailer("HEAD", "Goal-Iteration"),
        Some(last.to_string())
    );
    assert!(repo.goal_md().contains(&format!("iteration: {last}\n")));
    let md = repo.goal_md();
    for n in 1..numbers.len() {
        assert_eq!(
            md.matches(&format!("### Iteration {n}\n")).count(),
            1,
            "{md}"
        );
    }
    assert_eq!(repo.status_porcelain(), "");
    repo.assert_fsck();
}

#[test]
fn a_second_goal_command_waits_then_fails_clearly_on_a_held_lock() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.git(&["config", "goal.lockTimeout", "100"]);
    let lock = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(repo.path().join(".git/goal.lock"))
        .unwrap();
    lock.lock().unwrap();
    let out = repo.goal().args(["iterate", "-m", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("another goal command is running"),
        "{}",
        stderr(&out)
    );
    drop(lock);
    repo.ok(&["iterate", "-m", "x"]);
}

#[test]
fn a_stale_git_lock_is_reported_with_its_path() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.write(".git/index.lock", "");
    let before = repo.goal_md();
    let out = repo.goal().args(["iterate", "-m", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("index.lock"), "{}", stderr(&out));
    assert!(stderr(&out).contains("rm "), "{}", stderr(&out));
    assert_eq!(repo.goal_md(), before);
}

#[test]
fn demo_walks_a_whole_loop() {
    let scratch = tempfile::TempDir::new().unwrap();
    let dir = scratch.path().join("demo");
    let repo = Repo::new();
    let out = repo
        .goal()
        .args(["demo", "--dir", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    for step in [
        "$ goal init",
        "$ goal verify",
        "$ goal iterate",
        "$ goal block",
        "$ goal resume",
        "$ goal log",
        "$ goal done",
    ] {
        assert!(text.contains(step), "{step} missing from:\n{text}");
    }
    let log = repo.git_in(&dir, &["log", "--format=%s"]);
    let subjects = String::from_utf8_lossy(&log.stdout);
    assert!(subjects.starts_with("goal: done"), "{subjects}");
    assert!(subjects.contains("goal: complete"), "{subjects}");
    assert!(!dir.join(GOAL).exists());
}

/// On a terminal, `init` over an active goal asks continue / replace / abandon; no answer within
/// the timeout (GOAL_PROMPT_TIMEOUT here, 10 s by default) picks continue.
#[test]
fn stale_goal_on_a_tty_asks_with_a_timed_default() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let line = format!(
        "{} init 'Another goal' -c 'b passes'; echo exit=$?",
        env!("CARGO_BIN_EXE_goal")
    );
    let run = |answer: Option<&str>| {
        repo.on_a_tty(&line, &[("GOAL_PROMPT_TIMEOUT", Some("0.3"))], answer)
    };
    let text = run(None);
    assert!(text.contains("a goal is already active"), "{text}");
    assert!(
        text.contains("continue the current goal (default)"),
        "{text}"
    );
    assert!(text.contains("exit=1"), "{text}");
    assert!(repo.goal_md().contains("Make the thing work"));
    // Answering "continue" is a choice, not a refusal: exit 0, no error.
    let head = repo.head();
    let text = run(Some("1\n"));
    assert!(text.contains("exit=0"), "{text}");
    assert!(!text.contains("error"), "{text}");
    assert!(text.contains("Active goal: Make the thing work"), "{text}");
    assert_eq!(repo.head(), head);
    let text = run(Some("2\n"));
    assert!(text.contains("exit=0"), "{text}");
    assert!(repo.goal_md().contains("Another goal"));
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("abandoned")
    );
}

/// With --json, every command that reports prints one JSON document on stdout and nothing else.
#[test]
fn json_output_is_one_document_on_stdout() {
    let repo = Repo::new();
    repo.test_script("pass.sh", 1, 0);
    let runs: &[&[&str]] = &[
        &["init", "A goal", "-c", "a passes"],
        &["status"],
        &["criteria", "add", "b returns 0"],
        &["criteria", "lint"],
        &["verify", "-c", "1", "-c", "2", "--", "sh", "pass.sh"],
        &["check", "1"],
        &["uncheck", "2"],
        &["iterate", "-m", "step"],
        &["retry"],
        &["attempt", "status"],
        &["block", "--reason", "r"],
        &["resume"],
        &["log"],
        &["config"],
        &["hooks", "status"],
        &["detect", "my goal is to make the build reproducible"],
        &["abandon"],
    ];
    for args in runs {
        let out = repo.goal().arg("--json").args(*args).output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            stderr(&out)
        );
        let v: Result<serde_json::Value, _> = serde_json::from_slice(&out.stdout);
        assert!(
            v.is_ok(),
            "{args:?}: stdout is not one JSON document: {}",
            stdout(&out)
        );
    }
}

/// SPEC §3: colours only on a TTY and never with `NO_COLOR`; `--quiet` silences human output but
/// not errors.
#[test]
fn colour_only_on_a_tty_without_no_color_and_quiet_keeps_errors() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let status = format!("{} status", env!("CARGO_BIN_EXE_goal"));
    let coloured = repo.on_a_tty(&status, &[("NO_COLOR", None)], None);
    assert!(coloured.contains("\x1b[1mGoal:\x1b[0m"), "{coloured:?}");
    let plain = repo.on_a_tty(&status, &[("NO_COLOR", Some("1"))], None);
    assert!(
        plain.contains("Goal: Make the thing work") && !plain.contains('\x1b'),
        "{plain:?}"
    );
    let piped = repo
        .goal()
        .env_remove("NO_COLOR")
        .arg("status")
        .output()
        .unwrap();
    assert!(!stdout(&piped).contains('\x1b'), "{}", stdout(&piped));

    repo.write("src/lib.rs", "// work\n");
    let quiet = repo
        .goal()
        .args(["--quiet", "iterate", "-m", "quiet step"])
        .output()
        .unwrap();
    assert!(quiet.status.success());
    assert_eq!(stdout(&quiet), "");
    assert_eq!(repo.trailer("HEAD", "Goal-Iteration").as_deref(), Some("1"));
    let refused = repo
        .goal()
        .args(["--quiet", "check", "1"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("goal: error: cannot check criterion 1"),
        "{}",
        stderr(&refused)
    );
}

/// A command's --help is its manual on an agent's screen: the whole text.
#[test]
fn hooks_help_reads_as_a_whole() {
    let repo = Repo::new();
    let out = repo
        .goal()
        .args(["hooks", "--help"])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out), @r"
Manage the git hooks (pre-commit: evidence gate; commit-msg: material-change gate)

Usage: goal hooks [OPTIONS] <COMMAND>

Commands:
  install    Install the shims into the effective hooks folder (core.hooksPath, else the common git
             dir's hooks/). An existing hook keeps its lines: the shim goes in a marked block
  uninstall  Remove the marked blocks, leaving the user's own hook lines
  status     Show where the hooks are and whether the shims are installed (exit 1 when not)
  run        Run a hook's logic (what the shims call)
  help       Print this message or the help of the given subcommand(s)

Options:
  -C <DIR>           Run as if goal was started in DIR
      --json         Machine output: one JSON document on stdout
  -q, --quiet        Print nothing but errors
      --file <PATH>  The goal file, inside the worktree (default .agents/goal/GOAL.md) [env:
                     GOAL_FILE=]
  -h, --help         Print help
");
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
    crate::support::assert_refused(
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

/// With --json every command prints one JSON document on stdout, failures included: no goal is
/// `{"active": false, …}`, any other failure `{"error": {message, hint, exit_code}}`, and the
/// exit codes stay what they are.
#[test]
fn json_failures_are_one_document_too() {
    let outside = tempfile::TempDir::new().unwrap();
    let repo = Repo::new();
    let one_document = |out: &std::process::Output| -> serde_json::Value {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut docs = serde_json::Deserializer::from_str(&text).into_iter::<serde_json::Value>();
        let first = docs
            .next()
            .unwrap_or_else(|| panic!("no JSON on stdout: {text:?}"))
            .unwrap();
        assert!(docs.next().is_none(), "more than one document: {text}");
        first
    };
    let out = repo.goal().args(["status", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = one_document(&out);
    assert_eq!(v["active"], false, "{v}");
    assert_eq!(v["goal"], serde_json::Value::Null);
    let out = repo
        .goal_in(outside.path())
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v = one_document(&out);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a git repository"),
        "{v}"
    );
    assert_eq!(v["error"]["exit_code"], 2);
    assert!(
        v["error"]["hint"].as_str().unwrap().contains("git init"),
        "{v}"
    );

    repo.init_goal(&["a passes"]);
    assert_eq!(
        json(&repo.goal().args(["status", "--json"]).output().unwrap())["active"],
        true
    );
    for (args, code, words) in [
        (&["done", "--json"][..], 1, "not proven done"),
        (&["verify", "-c", "9", "--json"], 2, "no criterion 9"),
        (&["criteria", "remove", "1", "--json"], 1, "material change"),
        (
            &["log", "--json", "-C", "/nonexistent"],
            2,
            "no such directory",
        ),
    ] {
        let out = repo.goal().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        let v = one_document(&out);
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains(words),
            "{args:?}: {v}"
        );
        assert_eq!(v["error"]["exit_code"], code, "{args:?}");
        assert!(
            stderr(&out).contains("goal: error:"),
            "{args:?}: the text stays on stderr"
        );
    }
    // A command that answered in JSON and then refused prints no second document.
    let out = repo
        .goal()
        .args(["init", "Another", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(one_document(&out)["created"], false);
}
