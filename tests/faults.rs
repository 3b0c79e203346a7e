//! Proof under faults: `goal` killed with SIGKILL at every fault point of its committing commands
//! leaves GOAL.md as before or as after, git consistent, and the next command working; many
//! processes iterating at once lose nothing; a lock held by another goal command is waited for,
//! and a stale git lock is named.

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use crate::common::{GOAL, Repo, stderr};

/// A committing command and the state it starts from.
struct Scenario {
    name: &'static str,
    setup: fn() -> Repo,
    args: &'static [&'static str],
    /// Whether the goal still exists after the command.
    keeps_goal: bool,
    /// A mutating command that is valid whether the killed one happened or not.
    next: &'static [&'static str],
}

const ITERATE: &[&str] = &["iterate", "-m", "next step after the crash"];
const REPLACE: &[&str] = &["init", "The next goal", "-c", "z passes", "--replace"];

fn with_goal() -> Repo {
    let repo = Repo::new();
    repo.init_goal(&["a passes", "b passes"]);
    repo.test_script("pass.sh", 2, 0);
    repo.git(&["add", "pass.sh"]);
    repo.git(&["commit", "-q", "-m", "test script"]);
    repo
}

fn with_goal_and_work() -> Repo {
    let repo = with_goal();
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo
}

fn with_retries() -> Repo {
    let repo = with_goal();
    for _ in 0..2 {
        repo.ok(&["retry"]);
    }
    repo
}

fn blocked() -> Repo {
    let repo = with_goal();
    repo.ok(&["block", "--reason", "waiting"]);
    repo
}

fn fresh() -> Repo {
    let repo = Repo::new();
    repo.test_script("pass.sh", 2, 0);
    repo
}

/// One retry left before the goal is blocked.
fn last_retry() -> Repo {
    let repo = with_goal();
    repo.git(&["config", "goal.maxRetries", "1"]);
    repo.ok(&["retry"]);
    repo
}

/// The next iteration escalates (a window of 1, no auto-recovery).
fn about_to_escalate() -> Repo {
    let repo = with_goal();
    repo.git(&["config", "goal.stagnationWindow", "1"]);
    repo.git(&["config", "goal.escalateAfter", "0"]);
    repo
}

fn with_evidence() -> Repo {
    let repo = with_goal_and_work();
    repo.ok(&["verify", "-c", "1", "-c", "2", "--", "sh", "pass.sh"]);
    repo
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "iterate",
        setup: with_goal_and_work,
        args: &["iterate", "-m", "step"],
        keeps_goal: true,
        next: ITERATE,
    },
    Scenario {
        name: "iterate --goal-only",
        setup: with_retries,
        args: &["iterate", "--goal-only", "-m", "step"],
        keeps_goal: true,
        next: ITERATE,
    },
    Scenario {
        name: "verify",
        setup: with_goal_and_work,
        args: &["verify", "-c", "1", "--", "sh", "pass.sh"],
        keeps_goal: true,
        next: ITERATE,
    },
    Scenario {
        name: "done",
        setup: with_evidence,
        args: &["done"],
        keeps_goal: false,
        next: REPLACE,
    },
    Scenario {
        name: "block",
        setup: with_goal,
        args: &["block", "--reason", "waiting"],
        keeps_goal: true,
        next: &["block", "--reason", "still waiting"],
    },
    Scenario {
        name: "criteria remove",
        setup: with_goal,
        args: &["criteria", "remove", "2", "--confirm"],
        keeps_goal: true,
        next: ITERATE,
    },
    Scenario {
        name: "abandon",
        setup: with_goal,
        args: &["abandon"],
        keeps_goal: false,
        next: REPLACE,
    },
    Scenario {
        name: "init --replace",
        setup: with_goal,
        args: &["init", "A new goal", "-c", "c passes", "--replace"],
        // Two commits: killed between them, the old goal is abandoned and the new one not yet made.
        keeps_goal: false,
        next: REPLACE,
    },
    Scenario {
        name: "init",
        setup: fresh,
        args: &["init", "A first goal", "-c", "c passes"],
        keeps_goal: true,
        next: REPLACE,
    },
    Scenario {
        name: "resume",
        setup: blocked,
        args: &["resume"],
        keeps_goal: true,
        next: &["block", "--reason", "again"],
    },
    Scenario {
        name: "criteria add",
        setup: with_goal,
        args: &["criteria", "add", "c returns 0"],
        keeps_goal: true,
        next: ITERATE,
    },
    Scenario {
        name: "criteria edit",
        setup: with_goal,
        args: &["criteria", "edit", "1", "a passes on CI"],
        keeps_goal: true,
        next: ITERATE,
    },
    Scenario {
        name: "retry that escalates",
        setup: last_retry,
        args: &["retry"],
        keeps_goal: true,
        next: &["block", "--reason", "again"],
    },
    Scenario {
        name: "iterate that escalates",
        setup: about_to_escalate,
        args: &["iterate", "-m", "tried again"],
        keeps_goal: true,
        next: &["block", "--reason", "again"],
    },
];

/// The fault points a clean run of `args` passes.
fn fault_points(repo: &Repo, args: &[&str]) -> Vec<String> {
    let out = repo
        .goal_std()
        .args(args)
        .env("GOAL_FAULT_LIST", "1")
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| l.strip_prefix("GOAL_FAULT_POINT "))
        .map(str::to_string)
        .collect()
}

/// Run `args`, stop it at fault point `k` and SIGKILL it there.
fn kill_at(repo: &Repo, args: &[&str], k: usize) -> String {
    let mut child = repo
        .goal_std()
        .args(args)
        .env("GOAL_FAULT_AT", k.to_string())
        .env("GOAL_FAULT_MODE", "stop")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let reader = BufReader::new(child.stderr.take().unwrap());
    for line in reader.lines() {
        let line = line.unwrap();
        if let Some(name) = line.strip_prefix("GOAL_FAULT ") {
            child.kill().unwrap(); // SIGKILL
            child.wait().unwrap();
            return name.to_string();
        }
    }
    panic!("{args:?} never reached fault point {k}: {:?}", child.wait());
}

/// Iteration numbers of the iterate commits, oldest first.
fn iterations(repo: &Repo) -> Vec<u64> {
    let log = repo.git(&["log", "--reverse", "--format=%(trailers:key=Goal-Action,valueonly,separator=)|%(trailers:key=Goal-Iteration,valueonly,separator=)"]);
    log.lines()
        .filter_map(|l| l.split_once('|'))
        .filter(|(action, _)| action.trim() == "iterate")
        .map(|(_, n)| n.trim().parse().unwrap())
        .collect()
}

fn assert_no_git_locks(repo: &Repo, context: &str) {
    for lock in ["index.lock", "HEAD.lock", "refs/heads/main.lock"] {
        assert!(
            !repo.path().join(".git").join(lock).exists(),
            "{context}: {lock} left behind"
        );
    }
}

#[test]
fn sigkill_at_every_fault_point_leaves_everything_consistent() {
    let mut runs = 0;
    for scenario in SCENARIOS {
        // A reference run: the file before and after, and the points it passes.
        let reference = (scenario.setup)();
        let start = reference.head();
        let mut versions = vec![std::fs::read(reference.path().join(GOAL)).ok()];
        let points = fault_points(&reference, scenario.args);
        versions.push(std::fs::read(reference.path().join(GOAL)).ok());
        // `done` makes two commits: the version between them is valid too.
        for commit in reference
            .git(&["rev-list", &format!("{start}..HEAD")])
            .lines()
        {
            let out = reference.git_output(&["show", &format!("{commit}:{GOAL}")]);
            versions.push(out.status.success().then_some(out.stdout));
        }
        assert!(
            points.len() >= 4,
            "{}: only {} fault points",
            scenario.name,
            points.len()
        );

        for k in 1..=points.len() {
            let repo = (scenario.setup)();
            let point = kill_at(&repo, scenario.args, k);
            let context = format!("{} killed at {k} ({point})", scenario.name);
            runs += 1;

            // GOAL.md is the old or the new version, never anything else.
            let now = std::fs::read(repo.path().join(GOAL)).ok();
            assert!(
                versions.contains(&now),
                "{context}: GOAL.md is neither before nor after"
            );
            repo.assert_fsck();

            // The next command works, finishing the interrupted one if it had started.
            let status = repo.goal().arg("status").output().unwrap();
            assert_ne!(
                status.status.code(),
                Some(2),
                "{context}: {}",
                stderr(&status)
            );
            // A mutating command takes the lock, which finishes what the killed one started.
            let next = scenario.next;
            let out = repo.goal().args(next).output().unwrap();
            assert!(
                out.status.success(),
                "{context}: {next:?} failed: {}",
                stderr(&out)
            );
            assert_no_git_locks(&repo, &context);
            repo.assert_fsck();

            // No iteration is half recorded: iteration numbers run 1, 2, … exactly once each.
            let numbers = iterations(&repo);
            let expected: Vec<u64> = (1..=numbers.len() as u64).collect();
            assert_eq!(numbers, expected, "{context}");
            if scenario.keeps_goal {
                let md = repo.goal_md();
                assert!(
                    md.contains(&format!("iteration: {}\n", numbers.len())),
                    "{context}:\n{md}"
                );
                assert!(
                    !repo.status_porcelain().contains(".agents/goal/GOAL.md"),
                    "{context}: GOAL.md left uncommitted"
                );
            }
            let stray: Vec<_> = std::fs::read_dir(repo.path().join(".agents/goal"))
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(".goal-tmp-"))
                .collect();
            assert!(stray.is_empty(), "{context}: temporary files left");
        }
    }
    assert!(runs >= 100, "only {runs} kill points exercised");
    eprintln!(
        "crash test: {runs} SIGKILLs at fault points across {} commands",
        SCENARIOS.len()
    );
}

#[test]
fn a_git_lock_left_by_a_killed_goal_is_cleared_with_a_message() {
    let repo = with_goal_and_work();
    let points = fault_points(&with_goal_and_work(), &["iterate", "-m", "step"]);
    let k = points
        .iter()
        .position(|p| p.ends_with("commit: journal written"))
        .unwrap()
        + 1;
    kill_at(&repo, &["iterate", "-m", "step"], k);
    // As if it had been killed inside libgit2 while holding the index lock.
    repo.write(".git/index.lock", "");
    let out = repo
        .goal()
        .args(["iterate", "-m", "next"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("removed") && err.contains("index.lock"),
        "{err}"
    );
    assert!(err.contains("finishing `goal: iteration 1: step`"), "{err}");
    assert_eq!(iterations(&repo), [1, 2]);
    assert_no_git_locks(&repo, "after recovery");
}

#[test]
fn eight_processes_iterating_at_once_lose_nothing() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    repo.git(&["config", "goal.stagnationWindow", "1000"]);
    let mut landed = 0;
    for round in 0..4 {
        let children: Vec<_> = (0..8)
            .map(|i| {
                repo.write(&format!("src/r{round}w{i}.rs"), "// work\n");
                repo.goal_std()
                    .args(["iterate", "-m", &format!("round {round} worker {i}")])
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            match out.status.code() {
                Some(0) => landed += 1,
                Some(1) => assert!(
                    stderr(&out).contains("another goal command is running"),
                    "{}",
                    stderr(&out)
                ),
                other => panic!("exit {other:?}: {}", stderr(&out)),
            }
        }
    }
    let numbers = iterations(&repo);
    // Each round's lock winner lands; the others wait or fail cleanly.
    assert!(landed >= 4, "only {landed} of 32 iterations landed");
    assert_eq!(numbers.len(), landed);
    assert_eq!(
        repo.trailer("HEAD", "Goal-Iteration"),
        Some(landed.to_string())
    );
    assert_eq!(numbers, (1..=landed as u64).collect::<Vec<_>>());
    let md = repo.goal_md();
    for n in 1..=landed {
        assert_eq!(md.matches(&format!("### Iteration {n}\n")).count(), 1);
    }
    assert_eq!(repo.status_porcelain(), "");
    repo.assert_fsck();
    eprintln!("concurrency test: 32 processes in 4 rounds of 8, {landed} landed");
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
