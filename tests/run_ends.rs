//! How a `goal run` turn or run ends: the process group's signals, `--max-time`, and a commit
//! refused by signing or a user's hook.

use std::process::Output;

use crate::common::{Repo, stderr};
#[allow(unused_imports)]
use crate::run::*;

/// What a turn leaves running in its process group ends with the turn: SIGTERM first (a job that
/// traps it can clean up), SIGKILL for one that ignores it, and both gone when the run ends.
#[test]
fn a_turn_ends_its_process_group_with_sigterm_then_sigkill() {
    let repo = project();
    let s = state(&repo);
    std::fs::write(
        s.join("polite.sh"),
        format!(
            "trap 'echo term > \"{}/term\"; exit 0' TERM\nwhile :; do sleep 0.05; done\n",
            s.display()
        ),
    )
    .unwrap();
    let script = agent(
        &repo,
        &format!(
            "sh \"$S/polite.sh\" >/dev/null 2>&1 & echo $! > \"$S/polite\"\n(trap '' TERM; exec sleep 60) >/dev/null 2>&1 & echo $! > \"$S/stubborn\"\nsleep 0.2\n{WORK}"
        ),
    );
    let out = run(&repo, &script, &[]);
    assert_eq!(code(&out), 0, "{}", explain(&out));
    assert!(
        s.join("term").exists(),
        "the job that traps SIGTERM was not sent one"
    );
    for name in ["polite", "stubborn"] {
        let pid = std::fs::read_to_string(s.join(name)).unwrap();
        assert!(!alive(&pid), "{name} job {pid} survived the turn");
    }
}

/// A turn cut short by --max-time says so: the budget ended it, not the turn timeout.
#[test]
fn max_time_running_out_is_named_as_the_budget_that_ended_the_turn() {
    let repo = project();
    let script = agent(&repo, "while :; do echo working; sleep 0.05; done");
    let out = run(&repo, &script, &["--max-time", "1s"]);
    assert_eq!(code(&out), 3, "{}", explain(&out));
    let ev = events(&out);
    let ends = named(&ev, "turn_end");
    assert_eq!(ends.len(), 1, "{ev:?}");
    assert_eq!(ends[0]["end"], "--max-time ran out: killed", "{ev:?}");
    let text = serde_json::to_string(&ev).unwrap();
    assert!(!text.contains("turn timeout"), "{text}");
    assert!(text.contains("--max-time ran out during a turn"), "{text}");
}

/// The agent proves everything and records its own iteration; only the completion commit is
/// then refused — by `refuse` (a git config or hook set up after the iteration is in).
fn refused_at_done(repo: &Repo) -> Output {
    let script = agent(
        repo,
        "echo hello > hello.txt\ngoal verify -c 1 >/dev/null 2>&1\ngoal iterate -m 'wrote hello.txt' >/dev/null 2>&1\necho done",
    );
    run(repo, &script, &["--max-iterations", "3"])
}

#[test]
fn a_signing_failure_stops_the_run_with_its_message_and_the_goal_stays_in_progress() {
    let repo = project();
    // gpg.program fails on the completion commit only (its payload names the action).
    let gpg = state(&repo).join("gpg.sh");
    std::fs::write(
        &gpg,
        "#!/bin/sh\nif grep -q 'Goal-Action: complete'; then echo 'gpg: signing failed: No secret key' >&2; exit 2; fi\necho '[GNUPG:] SIG_CREATED '>&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&gpg, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // The agent's own iteration is made unsigned; only goal run's `goal done` signs.
    let script = agent(
        &repo,
        &format!(
            "echo hello > hello.txt\ngoal verify -c 1 >/dev/null 2>&1\ngoal iterate -m 'wrote hello.txt' >/dev/null 2>&1\ngit config commit.gpgSign true\ngit config gpg.program '{}'\necho done",
            gpg.display()
        ),
    );
    let out = run(&repo, &script, &["--max-iterations", "3"]);
    assert_eq!(code(&out), 1, "{}", explain(&out));
    assert_eq!(calls(&repo), 1, "no second turn after a signing failure");
    assert!(
        stderr(&out).contains("signing the commit failed"),
        "{}",
        explain(&out)
    );
    assert!(
        named(&events(&out), "done_refused").is_empty(),
        "a signing failure is not `goal done` refusing: {}",
        explain(&out)
    );
    assert!(
        repo.goal_md().contains("status: in-progress"),
        "{}",
        repo.goal_md()
    );
    assert_eq!(
        repo.trailer("HEAD", "Goal-Action").as_deref(),
        Some("iterate")
    );
}

#[test]
fn a_refusing_user_hook_stops_the_run_with_its_message_and_the_goal_stays_in_progress() {
    let repo = project();
    // A pre-commit hook that refuses the completion commit (its staged GOAL.md says complete).
    let hook = repo.path().join(".git/hooks/pre-commit");
    std::fs::write(
        &hook,
        "#!/bin/sh\nif git show :.agents/goal/GOAL.md 2>/dev/null | grep -q '^status: complete'; then echo 'pre-commit: no completing on Fridays' >&2; exit 1; fi\nexit 0\n",
    )
    .unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = refused_at_done(&repo);
    assert_eq!(code(&out), 1, "{}", explain(&out));
    assert_eq!(calls(&repo), 1, "no second turn after a refusing hook");
    let err = stderr(&out);
    assert!(
        err.contains("no completing on Fridays"),
        "{}",
        explain(&out)
    );
    assert!(err.contains("pre-commit hook"), "{}", explain(&out));
    assert!(
        named(&events(&out), "done_refused").is_empty(),
        "a refusing hook is not `goal done` refusing: {}",
        explain(&out)
    );
    assert!(
        repo.goal_md().contains("status: in-progress"),
        "{}",
        repo.goal_md()
    );
    assert_eq!(
        repo.trailer("HEAD", "Goal-Action").as_deref(),
        Some("iterate")
    );
}
