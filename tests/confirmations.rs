//! A confirmation is the person's, and the settings that judge a goal travel with it: `--confirm`
//! refused in an agent's environment (GOAL_AGENT, GOAL_RUN_AGENT) and allowed without, the
//! criterion an agent added itself, GOAL.md's settings deciding over git config (the
//! `goal.testsOnly` trick), `goal criteria surface`, `goal audit --strict` listing every
//! confirmation, and `goal run` blocking at once on a refusal only a person can lift.

use crate::common::{Repo, commit_all, json, stderr, stdout};

const GUARD: &str = "the suite stays green (guard: `sh pass.sh`)";
const REFUSAL: &str = "a confirmation is the person's: ask them to run `goal done --confirm`";

/// A project whose one criterion is a guard, proven: `goal done` refuses it unless a person
/// confirms (a goal of guards only).
fn guards_only() -> Repo {
    let repo = guards_only_open();
    repo.ok(&["verify", "-c", "1"]);
    repo
}

/// As [`guards_only`], the guard not yet run.
fn guards_only_open() -> Repo {
    let repo = Repo::new();
    repo.test_script("pass.sh", 2, 0);
    commit_all(&repo, "scripts");
    repo.init_goal(&[GUARD]);
    repo
}

fn goal_with(repo: &Repo, env: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    let mut cmd = repo.goal();
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.args(args).output().unwrap()
}

#[test]
fn confirm_is_refused_in_an_agents_environment_and_allowed_without() {
    let repo = guards_only();
    for mark in ["GOAL_AGENT", "GOAL_RUN_AGENT"] {
        let out = goal_with(&repo, &[(mark, "claude")], &["done", "--confirm"]);
        assert_eq!(out.status.code(), Some(1), "{mark}: {}", stderr(&out));
        assert!(stderr(&out).contains(REFUSAL), "{mark}: {}", stderr(&out));
    }
    // An empty mark is no mark; nothing was committed by the refusals.
    assert!(repo.exists(".agents/goal/GOAL.md"));
    // The hint of the refusal no longer offers the agent the confirmation.
    let out = goal_with(&repo, &[("GOAL_AGENT", "pi")], &["done"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("ask the person to confirm"), "{err}");
    assert!(!err.contains("confirm with `goal done --confirm`"), "{err}");
    let out = goal_with(&repo, &[], &["done"]);
    assert!(
        stderr(&out).contains("confirm with `goal done --confirm`"),
        "{}",
        stderr(&out)
    );
    // The person's own confirmation completes it.
    let out = goal_with(&repo, &[("GOAL_AGENT", "")], &["done", "--confirm"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Guards-Only").as_deref(),
        Some("confirmed")
    );
}

#[test]
fn every_confirming_command_is_refused_to_an_agent_naming_the_persons_command() {
    let repo = guards_only();
    let agent = [("GOAL_AGENT", "codex")];
    let cases: &[(&[&str], &str)] = &[
        (
            &["criteria", "remove", "1", "--confirm"],
            "`goal criteria remove 1 --confirm`",
        ),
        (
            &["criteria", "edit", "1", "another requirement", "--confirm"],
            "`goal criteria edit 1 'another requirement' --confirm`",
        ),
        (
            &["criteria", "pin", "1", "--confirm", "--", "sh", "other.sh"],
            "`goal criteria pin 1 --confirm -- sh other.sh`",
        ),
        (
            &["criteria", "surface", "--tests", "checks/**", "--confirm"],
            "`goal criteria surface --tests 'checks/**' --confirm`",
        ),
    ];
    let head = repo.head();
    for (args, command) in cases {
        let out = goal_with(&repo, &agent, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let want = format!("a confirmation is the person's: ask them to run {command}");
        assert!(stderr(&out).contains(&want), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(repo.head(), head, "nothing was committed");
    // The person removes it.
    repo.ok(&["criteria", "remove", "1", "--confirm"]);
}

#[test]
fn an_agent_may_change_a_criterion_it_added_until_it_has_evidence() {
    let repo = guards_only();
    let agent = [("GOAL_AGENT", "claude")];
    let out = goal_with(
        &repo,
        &agent,
        &[
            "criteria",
            "add",
            "hello.txt says hello (verify: `sh pass.sh`)",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Its own criterion, no evidence yet: removed without a confirmation, recorded as material.
    let out = goal_with(&repo, &agent, &["criteria", "remove", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let record = repo
        .trailer("HEAD", "Goal-Material-Change")
        .unwrap_or_default();
    assert!(record.contains("removed criterion 2"), "{record}");
    assert!(record.contains("added by the agent"), "{record}");
    // The criterion of the goal's start is not its own.
    let out = goal_with(&repo, &agent, &["criteria", "remove", "1"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("ask the person to confirm"),
        "{}",
        stderr(&out)
    );
    // Nor is one it added and then proved.
    goal_with(
        &repo,
        &agent,
        &["criteria", "add", "it still passes (verify: `sh pass.sh`)"],
    );
    repo.ok(&["verify", "-c", "2"]);
    let out = goal_with(&repo, &agent, &["criteria", "remove", "2"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is a material change"),
        "{}",
        stderr(&out)
    );
}

/// A Python package whose `add()` subtracts, with a failing test of it; the goal to fix it
/// pinned to that test.
fn calc() -> Repo {
    let repo = Repo::new();
    repo.write("calc/__init__.py", "def add(a, b):\n    return a - b\n");
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
    );
    repo.write("conftest.py", "");
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    commit_all(&repo, "calc");
    repo
}

const ADD: &str = "add(2, 2) returns 4 (verify: `pytest -q -p no:cacheprovider tests`)";

#[test]
fn git_config_tests_only_no_longer_turns_the_weakening_check_off() {
    let repo = calc();
    repo.init_goal(&[ADD]);
    assert!(
        !repo.goal_md().contains("tests_only"),
        "defaults are left out"
    );
    // The trick: one local setting makes `checks/**` the whole test surface, so deleting a
    // test of tests/ would weaken nothing.
    repo.git(&["config", "goal.testsOnly", "true"]);
    repo.git(&["config", "goal.tests", "checks/**"]);
    repo.write(
        "tests/test_calc.py",
        "from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
    );
    repo.ok(&["verify", "-c", "1"]);
    let out = repo.goal().args(["done"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("test-removed tests/test_calc.py"), "{err}");
    assert!(
        err.contains("goal: warning: git config goal.testsOnly is `true`, but GOAL.md says `tests_only: false`: GOAL.md's is used"),
        "{err}"
    );
    assert!(
        err.contains("git config goal.tests is `checks/**`"),
        "{err}"
    );
}

#[test]
fn the_settings_are_written_at_init_and_changed_only_with_a_confirmation() {
    let repo = calc();
    repo.git(&["config", "--add", "goal.tests", "checks/**"]);
    repo.git(&["config", "goal.mutants", "report"]);
    repo.init_goal(&[ADD]);
    let md = repo.goal_md();
    assert!(md.contains("\ntests: [\"checks/**\"]\n"), "{md}");
    assert!(md.contains("\nmutants: report\n"), "{md}");
    assert!(!md.contains("mutants_min"), "{md}");
    // They show where people look.
    let status = json(&repo.goal().args(["status", "--json"]).output().unwrap());
    assert_eq!(status["settings"]["tests"][0], "checks/**");
    assert_eq!(status["settings"]["mutants"], "report");
    let text = stdout(&repo.goal().arg("status").output().unwrap());
    assert!(text.contains("tests: checks/**; mutants: report"), "{text}");
    let config = stdout(&repo.goal().arg("config").output().unwrap());
    assert!(
        config.contains("goal.mutants = report (")
            && config.contains(") · GOAL.md: report, which decides"),
        "{config}"
    );
    // Bad values: exit 2, nothing changed.
    let head = repo.head();
    for args in [
        &["criteria", "surface", "--mutants", "always", "--confirm"][..],
        &["criteria", "surface", "--mutants-min", "1.5", "--confirm"],
        &["criteria", "surface", "--tests", "bad/[", "--confirm"],
    ] {
        let out = repo.goal().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    }
    // Without --confirm: refused, exit 1.
    repo.refused(
        &[
            "criteria",
            "surface",
            "--tests",
            "checks/**",
            "--tests-only",
        ],
        1,
        &["is a material change", "--confirm"],
    );
    assert_eq!(repo.head(), head);
    assert_eq!(repo.goal_md(), md);
    repo.ok(&[
        "criteria",
        "surface",
        "--tests",
        "checks/**",
        "--tests-only",
        "--confirm",
    ]);
    let md = repo.goal_md();
    assert!(
        md.contains("\ntests_only: true\n") && !md.contains("mutants:"),
        "{md}"
    );
    let record = repo
        .trailer("HEAD", "Goal-Material-Change")
        .unwrap_or_default();
    assert!(
        record.starts_with(
            "settings tests: checks/**; mutants: report → tests: checks/**; tests_only: true"
        ),
        "{record}"
    );
    let log = stdout(&repo.goal().arg("log").output().unwrap());
    assert!(
        log.contains("material change in") && log.contains("settings tests: checks/**"),
        "{log}"
    );
}

#[test]
fn audit_strict_fails_on_every_confirmation_and_lists_them() {
    let repo = guards_only();
    // Files moved onto the test surface: a material change, the person's.
    repo.ok(&["criteria", "surface", "--tests", "checks/**", "--confirm"]);
    repo.ok(&["done", "--confirm"]);
    let plain = repo.goal().args(["audit"]).output().unwrap();
    assert_eq!(
        plain.status.code(),
        Some(0),
        "{}{}",
        stdout(&plain),
        stderr(&plain)
    );
    let strict = repo.goal().args(["audit", "--strict"]).output().unwrap();
    assert_eq!(strict.status.code(), Some(1), "{}", stdout(&strict));
    let text = stdout(&strict);
    assert!(text.contains("confirmation (guards-only)"), "{text}");
    assert!(
        text.contains("confirmation (surface)") && text.contains("fails with --strict"),
        "{text}"
    );
    let out = repo
        .goal()
        .args(["audit", "--strict", "--json"])
        .output()
        .unwrap();
    let kinds: Vec<String> = json(&out)["confirmations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["surface", "guards-only"]);
    let gh = stdout(
        &repo
            .goal()
            .args(["audit", "--strict", "--format", "github"])
            .output()
            .unwrap(),
    );
    assert!(
        gh.contains("::error file=.agents/goal/GOAL.md::goal audit: confirmation (guards-only)"),
        "{gh}"
    );
}

/// `goal run --json` with the agent script `body` (its calls counted in `$S/calls`, its
/// environment's mark saved to `$S/mark`).
fn run(repo: &Repo, body: &str) -> std::process::Output {
    let s = repo.home().to_path_buf();
    let script = s.join("agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nS='{}'\nn=$(cat \"$S/calls\" 2>/dev/null || echo 0); echo $((n+1)) > \"$S/calls\"\ncat > /dev/null\necho \"$GOAL_AGENT\" > \"$S/mark\"\n{body}\n",
            s.display()
        ),
    )
    .unwrap();
    repo.goal()
        .env("GOAL_TIME_SCALE", "0")
        .args(["run", "--json", "--max-iterations", "4", "--", "sh"])
        .arg(&script)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap()
}

fn events(out: &std::process::Output) -> Vec<serde_json::Value> {
    stdout(out)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn goal_run_sends_the_agent_back_when_it_deletes_the_failing_test() {
    let repo = calc();
    repo.init_goal(&[ADD]);
    // The lazy agent deletes the failing test instead of fixing add(), and proves the rest: the
    // refusal rests on a run (the tests left pass on the code before the goal), which the agent
    // can answer by fixing the code, so the run sends it back rather than waiting for a person.
    let out = run(
        &repo,
        "printf 'from calc import add\\n\\n\\ndef test_zero():\\n    assert add(0, 0) == 0\\n' > tests/test_calc.py\ngoal verify -c 1 >/dev/null 2>&1\necho 'the tests pass'",
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let calls = std::fs::read_to_string(repo.home().join("calls")).unwrap();
    assert_eq!(calls.trim(), "4", "each turn sent back to work");
    let mark = std::fs::read_to_string(repo.home().join("mark")).unwrap();
    assert_eq!(
        mark.trim(),
        "sh",
        "the agent's environment is marked with its name"
    );
    let events = events(&out);
    let refused: Vec<_> = events
        .iter()
        .filter(|e| e["event"] == "done_refused")
        .collect();
    assert!(!refused.is_empty(), "{events:?}");
    let reason = refused[0]["refusal"].as_str().unwrap();
    assert!(
        reason.contains("pass on the code before the goal"),
        "{reason}"
    );
    let md = repo.goal_md();
    assert!(!md.contains("status: complete"), "{md}");
    assert!(!md.contains("status: blocked"), "{md}");
}

#[test]
fn goal_run_stops_after_a_turn_that_commits_a_confirmation() {
    let repo = guards_only_open();
    // The agent unsets its mark and confirms its own goal of guards only.
    let out = run(
        &repo,
        "goal verify -c 1 >/dev/null 2>&1\nGOAL_AGENT= GOAL_RUN_AGENT= goal done --confirm >/dev/null 2>&1\necho done",
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let events = events(&out);
    let last = events.last().unwrap();
    assert_eq!(last["event"], "blocked", "{events:?}");
    let reason = last["reason"].as_str().unwrap();
    assert!(reason.contains("Goal-Guards-Only: confirmed"), "{reason}");
    assert!(
        reason.contains("a confirmation is the person's"),
        "{reason}"
    );
}

/// Abandoning and replacing a goal are the person's: `goal abandon`, `goal init --replace` and
/// `goal init --abandon-current` are refused in an agent's environment (exit 1, nothing
/// committed, the hint naming what the person runs) and allowed without the mark.
#[test]
fn abandon_and_replace_are_refused_with_the_agents_mark() {
    let repo = guards_only_open();
    let head = repo.head();
    let cases: [(&[&str], &str); 4] = [
        (&["abandon"], "abandoning the goal is the person's"),
        (
            &["init", "--replace", "Another goal", "-c", "x"],
            "replacing the goal is the person's",
        ),
        (
            &["init", "--replace", "Another goal"],
            "replacing the goal is the person's",
        ),
        (
            &["init", "--abandon-current"],
            "abandoning the goal is the person's",
        ),
    ];
    for (args, words) in cases {
        for mark in ["GOAL_AGENT", "GOAL_RUN_AGENT"] {
            let out = goal_with(&repo, &[(mark, "codex")], args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{args:?} {mark}: {err}");
            assert!(err.contains(words), "{args:?}: {err}");
            assert!(err.contains("in their own terminal"), "{args:?}: {err}");
        }
        assert_eq!(repo.head(), head, "{args:?} committed nothing");
        assert!(repo.exists(".agents/goal/GOAL.md"));
    }
    // Without --replace, an agent's init keeps the active goal and says whose the choice is.
    let out = goal_with(&repo, &[("GOAL_AGENT", "codex")], &["init", "Another goal"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is the person's (they run `goal init --replace"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.head(), head);
    // The person replaces it, then abandons the new one.
    let out = goal_with(
        &repo,
        &[],
        &["init", "--replace", "Another goal", "-c", "x"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(repo.goal_md().contains("Another goal"));
    let out = goal_with(&repo, &[("GOAL_AGENT", "")], &["abandon"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!repo.exists(".agents/goal/GOAL.md"));
}
