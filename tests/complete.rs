//! One truth for "complete": over a table of goal states, `goal status`'s "run `goal done`",
//! `goal run`'s decision to call `goal done` (before any turn) and `goal done`'s own answer agree.

use crate::support::{EVIDENCE, Repo, json};

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

/// `goal run` calls `goal done` before any turn, and it completes the goal.
fn run_calls_done(repo: &Repo) -> bool {
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
    called && out.status.code() == Some(0)
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
    ];
    for (name, complete) in table {
        assert_eq!(status_says_done(&state(name)), complete, "{name}: status");
        assert_eq!(run_calls_done(&state(name)), complete, "{name}: goal run");
        assert_eq!(done_accepts(&state(name)), complete, "{name}: goal done");
    }
}
