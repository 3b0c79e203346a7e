//! `goal demo`: a whole loop, init to done, in a scratch repository.

use crate::common::{GOAL, Repo, stderr, stdout};

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
