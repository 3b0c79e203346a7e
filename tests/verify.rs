//! `goal verify` on real project shapes: what counts as test evidence and exit codes that tell
//! the truth, the folder a run was started in, files a run creates or rewrites, and JUnit
//! reports older than the run.

use crate::common::{
    GOAL, commit_all, json, junit_script, last_record, project, states, status, stderr,
};

#[test]
fn pytest_q_is_test_evidence_and_verify_exit_codes_tell_the_truth() {
    let repo = project(&["division works"]);
    // (argv, expected exit code, ticked afterwards)
    let cases: &[(&[&str], i32, bool)] = &[
        (&["sh", "pytest-q.sh"], 0, true),
        (&["sh", "none-q.sh"], 1, false),
        (&["sh", "-c", "exit 0"], 1, false),
        (&["sh", "fail.sh"], 1, false),
        (&["sh", "-c", "echo '1 passed'; exit 7"], 7, false),
        (&["sh", "pytest-q.sh"], 0, true),
    ];
    for (argv, want, ticked) in cases {
        let out = repo
            .goal()
            .args(["verify", "-c", "1", "--"])
            .args(*argv)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(*want), "{argv:?}: {}", stderr(&out));
        let mark = if *ticked { "- [x]" } else { "- [ ]" };
        assert!(repo.goal_md().contains(mark), "{argv:?}");
    }
}

#[test]
fn verify_runs_where_it_was_started_and_records_cwd() {
    let repo = project(&["division works"]);
    repo.write(
        "pkg/run.sh",
        "#!/bin/sh\ntest -f div.py && echo '3 passed in 0.01s'\n",
    );
    repo.write("pkg/div.py", "def div(a, b): return a / b\n");
    let out = repo
        .goal_in(&repo.path().join("pkg"))
        .args(["verify", "-c", "1", "--", "sh", "run.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record = last_record(&repo);
    assert_eq!(record["cwd"], "pkg");
    // The re-run line of a stale criterion carries the folder.
    repo.write("pkg/div.py", "def div(a, b): return a // b\n");
    let s = status(&repo);
    assert_eq!(s["criteria"][0]["state"], "stale");
    assert_eq!(
        s["criteria"][0]["rerun_line"],
        "goal -C pkg verify -c 1 -- sh run.sh"
    );
    assert_eq!(
        s["criteria"][0]["rerun"],
        serde_json::json!(["sh", "run.sh"])
    );
    // Seen from the folder itself, or from a sibling, the line works where it is printed.
    std::fs::create_dir_all(repo.path().join("docs")).unwrap();
    for (dir, want) in [
        ("pkg", "goal verify -c 1 -- sh run.sh"),
        ("docs", "goal -C ../pkg verify -c 1 -- sh run.sh"),
    ] {
        let s = json(
            &repo
                .goal_in(&repo.path().join(dir))
                .args(["status", "--json"])
                .output()
                .unwrap(),
        );
        assert_eq!(s["criteria"][0]["rerun_line"], want, "from {dir}");
    }
}

#[test]
fn a_run_that_creates_files_stays_fresh_and_names_them() {
    let repo = project(&["division works"]);
    repo.write(
        "make-caches.sh",
        "#!/bin/sh\nmkdir -p __pycache__ && echo x > __pycache__/div.cpython-311.pyc\necho '[package]' > Cargo.lock\necho '1 passed in 0.01s'\n",
    );
    repo.git(&["add", "make-caches.sh"]);
    repo.git(&["commit", "-q", "-m", "cache script"]);
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "make-caches.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("created or rewrote 2 untracked file(s)"),
        "{err}"
    );
    assert!(err.contains("Cargo.lock"), "{err}");
    assert!(err.contains("__pycache__/div.cpython-311.pyc"), "{err}");
    assert!(err.contains(".gitignore"), "{err}");
    let record = last_record(&repo);
    assert_eq!(record["created"].as_array().unwrap().len(), 2);
    assert!(record["tree_after"].is_string());
    // Fresh on the tree the run left behind: status, iterate and done agree.
    assert_eq!(states(&repo), ["proven"]);
    assert_eq!(status(&repo)["proven"], 1);
    // A later run rewrites the cache it made (untracked): still fresh.
    repo.write(
        "make-caches.sh",
        "#!/bin/sh\necho y > __pycache__/div.cpython-311.pyc\necho '1 passed in 0.01s'\n",
    );
    repo.git(&["add", "make-caches.sh"]);
    repo.ok(&["verify", "-c", "1", "--", "sh", "make-caches.sh"]);
    assert_eq!(states(&repo), ["proven"]);
    repo.ok(&["iterate", "-m", "implemented division"]);
    let committed = repo.git(&["show", &format!("HEAD:{GOAL}")]);
    assert!(committed.contains("- [x] division works"), "{committed}");
    repo.ok(&["done"]);
}

#[test]
fn a_run_that_rewrites_a_tracked_file_is_bound_to_the_tree_before_it() {
    let repo = project(&["division works"]);
    repo.write("src.py", "x = 1\n");
    repo.write(
        "format.sh",
        "#!/bin/sh\necho 'x = 2' > src.py\necho '1 passed in 0.01s'\n",
    );
    commit_all(&repo, "source");
    let out = repo
        .goal()
        .args(["verify", "-c", "1", "--", "sh", "format.sh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("modified or deleted 1 tracked file(s): src.py"),
        "{}",
        stderr(&out)
    );
    let record = last_record(&repo);
    assert_eq!(record["changed"], serde_json::json!(["src.py"]));
    assert!(record["tree_after"].is_null());
    // The code is no longer the code that was tested.
    assert_eq!(states(&repo), ["stale"]);
}

#[test]
fn a_junit_report_older_than_the_run_proves_nothing() {
    let repo = project(&["division works"]);
    let report = junit_script(&repo);
    repo.write(".gitignore", "report.xml\nold.xml\n");
    repo.write("old.xml", report);
    let old = std::fs::File::options()
        .write(true)
        .open(repo.path().join("old.xml"))
        .unwrap();
    old.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    commit_all(&repo, "junit");
    let out = repo
        .goal()
        .args([
            "verify", "-c", "1", "--junit", "old.xml", "--", "sh", "junit.sh",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("was not written by this run"),
        "{}",
        stderr(&out)
    );
    assert_eq!(states(&repo), ["failing"]);
    let out = repo
        .goal()
        .args([
            "verify",
            "-c",
            "1",
            "--junit",
            "*.xml",
            "--junit",
            "report.xml",
            "--",
            "sh",
            "junit.sh",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a glob that takes in old.xml too"
    );
    repo.ok(&[
        "verify",
        "-c",
        "1",
        "--junit",
        "report.xml",
        "--",
        "sh",
        "junit.sh",
    ]);
    let record = last_record(&repo);
    assert_eq!(record["tests"]["passed"], 2);
    assert_eq!(states(&repo), ["proven"]);
}
