//! A goal's status changed on purpose: `goal block` and `goal resume`, `goal abandon`, and a goal
//! marked complete by hand set back by `goal resume`.

use crate::common::{GOAL, Repo, code, json, project, status, stdout};

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
