//! `goal init`: the seed format and its commit, criteria added later or read from a file,
//! phases, and a goal already active (continue, replace or abandon; asked on a terminal).

use crate::common::{GOAL, Repo, json, stderr, stdout};

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
