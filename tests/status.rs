//! `goal status`: the JSON contract, no goal (exit 1), and a ticked box that is not proven.

use crate::common::{Repo, json, project, status, stderr};

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
