//! `goal status`: the JSON contract, and no goal (exit 1).

use crate::support::{Repo, json, stderr};

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
