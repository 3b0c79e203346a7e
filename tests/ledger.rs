//! The evidence ledger (evidence.jsonl): a broken one is loud and has a way out, and cutting
//! its last lines cannot bring back an older result.

use crate::common::{EVIDENCE, code, commit_all, json, project, states, status, stderr};

#[test]
fn a_broken_ledger_is_loud_and_has_a_way_out() {
    let repo = project(&["division works"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    let edited = repo
        .read(EVIDENCE)
        .replace("\"exit_code\":0", "\"exit_code\":3");
    repo.write(EVIDENCE, &edited);
    let out = repo.goal().args(["status", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("does not verify"), "{}", stderr(&out));
    let s = json(&out);
    assert_eq!(s["ledger"]["verifies"], false);
    assert!(
        s["ledger"]["problem"]
            .as_str()
            .unwrap()
            .contains("was changed")
    );
    // verify refuses to append to it, naming the record and the way out.
    let id = s["criteria"][0]["why"].as_str().unwrap().to_string();
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "pass.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("nothing more is appended"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("evidence.broken.jsonl"),
        "{}",
        stderr(&out)
    );
    assert!(id.contains("does not verify"), "{id}");
    assert_eq!(repo.read(EVIDENCE), edited, "nothing appended");
    // The way out: set it aside (kept), verify again.
    std::fs::rename(
        repo.path().join(EVIDENCE),
        repo.path().join(".agents/goal/evidence.broken.jsonl"),
    )
    .unwrap();
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    assert_eq!(states(&repo), ["proven"]);
    assert!(repo.exists(".agents/goal/evidence.broken.jsonl"));
}

#[test]
fn removing_the_last_lines_of_the_ledger_cannot_bring_back_an_older_result() {
    let repo = project(&["division works (verify: `sh flaky.sh`)"]);
    repo.write(
        "flaky.sh",
        "#!/bin/sh\nif [ -f flag ]; then echo '0 passed, 1 failed'; exit 1; fi\necho '1 passed, 0 failed'\n",
    );
    repo.write(".gitignore", "flag\n");
    commit_all(&repo, "flaky");
    repo.ok(&["verify", "-c", "1"]);
    repo.write("flag", "");
    assert_eq!(code(&repo, &["verify", "-c", "1"]), Some(1));
    std::fs::remove_file(repo.path().join("flag")).unwrap();
    assert_eq!(states(&repo), ["failing"]);
    // Drop the failing record: the passing one before it must not decide.
    let text = repo.read(EVIDENCE);
    let first = text.lines().next().unwrap();
    repo.write(EVIDENCE, &format!("{first}\n"));
    let s = status(&repo);
    assert_eq!(s["criteria"][0]["state"], "failing");
    assert!(
        s["criteria"][0]["why"]
            .as_str()
            .unwrap()
            .contains("was removed from evidence.jsonl"),
        "{s}"
    );
    assert_eq!(s["criteria"][0]["rerun_line"], "goal verify -c 1");
    assert_eq!(code(&repo, &["check", "1"]), Some(1));
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("was removed"), "{}", stderr(&out));
    // A new run on this code decides again.
    repo.ok(&["verify", "-c", "1"]);
    assert_eq!(states(&repo), ["proven"]);
}
