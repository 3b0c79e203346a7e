//! One truth for "complete": over a table of goal states, `goal status`'s "run `goal done`",
//! `goal run`'s decision to call `goal done` (before any turn) and `goal done`'s own answer agree;
//! so do status, inject and the Claude Stop hook, criterion by criterion.

use crate::common::{EVIDENCE, Repo, json, project, status, stderr, stdout};

/// A repository whose one criterion is pinned to `sh test.sh` (passing once hello.txt exists),
/// brought to a state.
fn state(name: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        "test.sh",
        "#!/bin/sh\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    repo.git(&["add", "test.sh"]);
    repo.git(&["commit", "-q", "-m", "test"]);
    let pinned = "hello.txt exists (verify: `sh test.sh`)";
    match name {
        "no criteria" => repo.ok(&["init", "Say hello"]),
        "open" => repo.ok(&["init", "Say hello", "-c", pinned]),
        "failing" => {
            repo.ok(&["init", "Say hello", "-c", pinned]);
            repo.goal().args(["verify", "-c", "1"]).assert().code(1);
        }
        "proven" | "stale" | "broken ledger" | "blocked" => {
            repo.ok(&["init", "Say hello", "-c", pinned]);
            repo.write("hello.txt", "hello\n");
            repo.ok(&["verify", "-c", "1"]);
            match name {
                "stale" => repo.write("hello.txt", "changed\n"),
                "broken ledger" => {
                    let text = repo
                        .read(EVIDENCE)
                        .replace("\"exit_code\":0", "\"exit_code\":0 ");
                    repo.write(EVIDENCE, &text.replace("1 passed", "2 passed"));
                }
                "blocked" => repo.ok(&["block", "--reason", "waiting for a person"]),
                _ => {}
            }
        }
        "check only" => {
            repo.ok(&["init", "Say hello", "-c", "hello.txt exists"]);
            repo.write("hello.txt", "hello\n");
            repo.ok(&[
                "verify",
                "--check",
                "-c",
                "1",
                "--",
                "test",
                "-f",
                "hello.txt",
            ]);
        }
        // Every criterion a guard, proven: done refuses without --confirm (nothing shows the
        // change works), so no surface may say "run `goal done`".
        "guards only" => {
            repo.ok(&[
                "init",
                "Say hello",
                "-c",
                "hello.txt exists (guard: `sh test.sh`)",
            ]);
            repo.write("hello.txt", "hello\n");
            repo.ok(&["verify", "-c", "1"]);
        }
        // GOAL.md set to `status: complete` by hand with nothing proven.
        "marked complete" => {
            repo.ok(&["init", "Say hello", "-c", pinned]);
            let md = repo.goal_md();
            repo.write(
                ".agents/goal/GOAL.md",
                &md.replace("status: in-progress", "status: complete"),
            );
        }
        other => panic!("no state {other}"),
    }
    repo
}

/// status says "run `goal done`".
fn status_says_done(repo: &Repo) -> bool {
    let out = repo.goal().args(["--json", "status"]).output().unwrap();
    json(&out)["next"]
        .as_str()
        .unwrap()
        .contains("run `goal done`")
}

/// Whether `goal run` calls `goal done` before any turn (accepted or refused), and its exit code.
fn run_calls_done(repo: &Repo) -> (bool, Option<i32>) {
    let out = repo
        .goal()
        .env("GOAL_TIME_SCALE", "0")
        .args(["run", "--json", "--max-iterations", "1", "--", "true"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let first_turn = text.find("\"turn_start\"").unwrap_or(text.len());
    let called = text[..first_turn].contains("\"event\":\"done\"")
        || text[..first_turn].contains("\"done_refused\"");
    (called, out.status.code())
}

fn done_accepts(repo: &Repo) -> bool {
    repo.goal()
        .args(["done"])
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn status_the_runner_and_done_agree_on_complete() {
    let table = [
        ("no criteria", false),
        ("open", false),
        ("failing", false),
        ("proven", true),
        ("stale", false),
        ("broken ledger", false),
        ("check only", false),
        ("blocked", false),
        ("guards only", false),
        ("marked complete", false),
    ];
    for (name, complete) in table {
        assert_eq!(status_says_done(&state(name)), complete, "{name}: status");
        let (called, code) = run_calls_done(&state(name));
        // A goal of guards only is asked of `goal done` too: its refusal, which only a person
        // can lift, blocks the run at once (exit 1).
        let asked = complete || name == "guards only";
        assert_eq!(called, asked, "{name}: goal run calls done ({code:?})");
        if name == "guards only" {
            assert_eq!(code, Some(1), "{name}: goal run blocks at once");
        }
        if complete {
            assert_eq!(code, Some(0), "{name}: goal run completes");
        }
        assert_eq!(done_accepts(&state(name)), complete, "{name}: goal done");
    }
}

/// Every surface says the same as `goal done` would, in every state.
#[test]
fn status_inject_json_and_the_stop_hook_agree_with_done() {
    // (how to reach the state, state, proven count, done's words)
    type Setup = fn(&Repo);
    let cases: &[(Setup, &str, u64, &str)] = &[
        (|_| {}, "open", 0, "no evidence names it"),
        (
            |r| {
                r.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
                r.write("late.py", "edited after the run\n");
            },
            "stale",
            0,
            "stale",
        ),
        (
            |r| {
                r.goal()
                    .args(["verify", "-c", "1", "--", "sh", "fail.sh"])
                    .assert()
                    .code(1);
            },
            "failing",
            0,
            "failed",
        ),
        (
            |r| r.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]),
            "proven",
            1,
            "",
        ),
    ];
    for (setup, state, proven, words) in cases {
        let repo = project(&["division works"]);
        setup(&repo);
        let s = status(&repo);
        assert_eq!(s["criteria"][0]["state"], *state);
        assert_eq!(s["proven"], *proven, "{state}");
        let text = stdout(&repo.goal().arg("status").output().unwrap());
        assert!(
            text.contains(&format!("{proven}/1 criteria proven")),
            "{text}"
        );
        let inject = stdout(&repo.goal().arg("inject").output().unwrap());
        assert!(
            inject.contains(&format!("Progress: {proven}/1 criteria passed")),
            "{inject}"
        );
        let stop = stdout(
            &repo
                .goal()
                .args(["hook", "claude"])
                .write_stdin(r#"{"hook_event_name":"Stop","stop_hook_active":false}"#)
                .output()
                .unwrap(),
        );
        let reason = json_reason(&stop);
        match *state {
            "stale" => {
                assert!(
                    inject.contains("re-run `goal verify -c 1 -- sh pass.sh`"),
                    "{inject}"
                );
                assert!(
                    reason.contains("re-run `goal verify -c 1 -- sh pass.sh`"),
                    "{reason}"
                );
                assert!(!reason.contains("run `goal done`"), "{reason}");
            }
            "proven" => {
                assert!(reason.contains("run `goal done`"), "{reason}");
                assert_eq!(s["next"], "every criterion is proven: run `goal done`");
            }
            _ => assert!(!reason.contains("run `goal done`"), "{reason}"),
        }
        let done = repo.goal().arg("done").output().unwrap();
        if words.is_empty() {
            assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
        } else {
            assert_eq!(done.status.code(), Some(1), "{state}");
            assert!(stderr(&done).contains(words), "{state}: {}", stderr(&done));
        }
    }
}

/// A goal of guards only, every one proven: status, inject and the Stop hook say what done would
/// refuse (and how to go on), never "run `goal done`"; done refuses, and `--confirm` completes it.
#[test]
fn a_goal_of_guards_only_is_not_complete_on_any_surface() {
    let repo = state("guards only");
    let s = status(&repo);
    let next = s["next"].as_str().unwrap();
    assert!(next.contains("every criterion is a guard"), "{next}");
    let inject = stdout(&repo.goal().arg("inject").output().unwrap());
    assert!(
        inject.contains("`goal done` would refuse: every criterion is a guard"),
        "{inject}"
    );
    assert!(!inject.contains("run `goal done`"), "{inject}");
    let stop = stdout(
        &repo
            .goal()
            .args(["hook", "claude"])
            .write_stdin(r#"{"hook_event_name":"Stop","stop_hook_active":false}"#)
            .output()
            .unwrap(),
    );
    let reason = json_reason(&stop);
    assert!(reason.contains("`goal done` would refuse"), "{reason}");
    assert!(!reason.contains("run `goal done`"), "{reason}");
    let done = repo.goal().arg("done").output().unwrap();
    assert_eq!(done.status.code(), Some(1), "{}", stderr(&done));
    repo.ok(&["done", "--confirm"]);
}

fn json_reason(stop: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(stop.trim()).unwrap();
    assert_eq!(v["decision"], "block");
    v["reason"].as_str().unwrap().to_string()
}
