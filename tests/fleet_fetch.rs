//! `goal fleet --fetch <remote>`: the remote fetched (never prompting, bounded in time), then its
//! goals listed as `--remote` lists them, each branch `goal run` made naming its run and agent; a
//! remote that cannot be reached is a warning.

use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::{Repo, assert_refused, json, stderr};

/// A bare remote on disk holding a branch `goal/parse` whose tip carries an active goal, and a
/// repository (the one under test) with that remote as `origin`, never fetched yet.
fn with_remote() -> (Repo, tempfile::TempDir) {
    let remote = tempfile::TempDir::new().unwrap();
    let bare = remote.path().join("origin.git");
    let repo = Repo::new();
    repo.git(&["init", "-q", "--bare", bare.to_str().unwrap()]);
    repo.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    repo.git(&["push", "-q", "origin", "main"]);
    repo.git(&["switch", "-q", "-c", "goal/parse"]);
    repo.ok(&[
        "init",
        "Parse the rows",
        "-c",
        "rows parse (verify: `sh t.sh`)",
    ]);
    repo.git(&["push", "-q", "origin", "goal/parse"]);
    repo.git(&["switch", "-q", "main"]);
    repo.git(&["branch", "-q", "-D", "goal/parse"]);
    // Forget what the push taught: the remote-tracking ref exists only after a fetch.
    repo.git(&["update-ref", "-d", "refs/remotes/origin/goal/parse"]);
    (repo, remote)
}

fn fleet_fetch(repo: &Repo, env: &[(&str, &str)]) -> Output {
    let mut cmd = repo.goal();
    cmd.args(["--json", "fleet", "--fetch", "origin"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.timeout(Duration::from_secs(60)).output().unwrap()
}

fn remote_goals(out: &Output) -> Vec<String> {
    json(out)["goals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["kind"] == "remote" && !g["goal"].is_null())
        .map(|g| format!("{} {}", g["branch"].as_str().unwrap_or("?"), g["goal"]))
        .collect()
}

#[test]
fn fetch_brings_the_remote_goals_in_and_git_agrees() {
    let (repo, _remote) = with_remote();
    let before = repo
        .goal()
        .args(["--json", "fleet", "--remote"])
        .output()
        .unwrap();
    assert_eq!(remote_goals(&before), Vec::<String>::new());
    let out = fleet_fetch(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(remote_goals(&out), ["origin/goal/parse \"Parse the rows\""]);
    // git sees the ref the fetch wrote, where git fetch writes it.
    let refs = repo.git(&["for-each-ref", "--format=%(refname)", "refs/remotes/origin"]);
    assert!(
        refs.lines().any(|r| r == "refs/remotes/origin/goal/parse"),
        "{refs}"
    );
}

#[test]
fn an_unreachable_remote_is_a_warning_and_the_rows_are_as_last_fetched() {
    let (repo, remote) = with_remote();
    fleet_fetch(&repo, &[]);
    std::fs::rename(
        remote.path().join("origin.git"),
        remote.path().join("gone.git"),
    )
    .unwrap();
    let out = fleet_fetch(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("goal: warning: could not fetch origin"),
        "{}",
        stderr(&out)
    );
    assert_eq!(remote_goals(&out), ["origin/goal/parse \"Parse the rows\""]);
}

#[test]
fn a_refused_connection_never_prompts() {
    let (repo, _remote) = with_remote();
    // Nothing listens on the loopback's discard port: git fails at once and asks nobody.
    repo.git(&[
        "remote",
        "set-url",
        "origin",
        "https://127.0.0.1:9/origin.git",
    ]);
    let out = fleet_fetch(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("could not fetch origin"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_remote_that_hangs_is_given_up_after_the_time_limit() {
    let (repo, _remote) = with_remote();
    repo.git(&[
        "remote",
        "set-url",
        "origin",
        "ssh://example.invalid/origin.git",
    ]);
    let start = Instant::now();
    // An ssh that never answers (git runs GIT_SSH_COMMAND for ssh:// URLs).
    let out = fleet_fetch(
        &repo,
        &[
            ("GIT_SSH_COMMAND", "sh -c 'exec sleep 30'"),
            ("GOAL_FETCH_TIMEOUT", "1"),
        ],
    );
    assert!(
        start.elapsed() < Duration::from_secs(15),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no answer within 1 s"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_remote_that_is_not_configured_is_bad_input() {
    let repo = Repo::new();
    let out = repo
        .goal()
        .args(["fleet", "--fetch", "nosuch"])
        .output()
        .unwrap();
    assert_refused(
        "fleet --fetch nosuch",
        &out,
        Some(2),
        &["nosuch", "git remote -v"],
    );
}

#[test]
fn a_branch_goal_run_made_names_its_run_and_agent_local_and_remote() {
    let (repo, _remote) = with_remote();
    repo.git(&["switch", "-q", "-c", "goal/run"]);
    repo.test_script("t.sh", 1, 0);
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "t"]);
    repo.init_goal(&["it works (verify: `sh t.sh`)"]);
    let agent = repo.home().join("agent.sh");
    std::fs::write(&agent, "#!/bin/sh\ncat >/dev/null\necho looked\n").unwrap();
    let out = repo
        .goal()
        .env("GOAL_TIME_SCALE", "0")
        .args(["run", "--max-iterations", "1", "--", "sh"])
        .arg(&agent)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let trailer = repo.trailer("HEAD", "Goal-Run").unwrap();
    let id = trailer.split_whitespace().next().unwrap().to_string();
    repo.git(&["push", "-q", "origin", "goal/run"]);
    repo.git(&["switch", "-q", "main"]);
    repo.git(&["update-ref", "-d", "refs/remotes/origin/goal/run"]);
    let out = fleet_fetch(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let want = serde_json::json!({"agent": "sh", "id": id, "live": false});
    for (kind, branch) in [("branch", "goal/run"), ("remote", "origin/goal/run")] {
        let doc = json(&out);
        let row = doc["goals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["kind"] == kind && g["branch"] == branch)
            .cloned()
            .unwrap_or_else(|| panic!("no {kind} row {branch}: {doc}"));
        assert_eq!(row["run"], want, "{kind} {branch}");
    }
    // A branch no run made names none.
    let doc = json(&out);
    let parse = doc["goals"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["branch"] == "origin/goal/parse")
        .cloned()
        .unwrap();
    assert_eq!(parse["run"], serde_json::Value::Null);
    let text = repo.goal().args(["fleet", "--remote"]).output().unwrap();
    assert!(
        crate::common::stdout(&text).contains(&format!("sh {id} (made the tip)")),
        "{}",
        crate::common::stdout(&text)
    );
}
