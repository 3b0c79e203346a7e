//! Beside Claude Code's own `/goal <condition>`: the real Claude Code CLI (tests/fixtures/agents/claude), offline
//! against tests/fixtures/agents/claude/fake_api.py, which also answers `/goal`'s judge (a model without tools
//! asked whether the condition holds; JUDGE scripts its verdicts), with goal's plugin loaded by
//! `--plugin-dir`. And the proof lines the judge can quote.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{FakeApi, Repo, claude_dir, json, last_record, project, status, stdout};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `claude -p --plugin-dir plugins/goal <prompt>` in the repository, `goal` under test on PATH.
fn claude(repo: &Repo, dir: &Path, api: &FakeApi, prompt: &str) -> Output {
    let goal_dir: PathBuf = Path::new(env!("CARGO_BIN_EXE_goal"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        goal_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let plugin = root().join("plugins/goal");
    let mut cmd = repo.command(dir.join("node_modules/.bin/claude"));
    cmd.env("PATH", path)
        .envs(api.claude_env())
        .args(["-p", "--allowedTools", "Bash", "--plugin-dir"])
        .args([plugin.to_str().unwrap(), prompt]);
    // A session the stand-in keeps going by mistake fails the test instead of hanging it.
    let out = assert_cmd::Command::from_std(cmd)
        .timeout(std::time::Duration::from_secs(180))
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        stdout(&out),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The agent's model calls (the session with tools), oldest first.
fn main_calls(api: &FakeApi) -> Vec<serde_json::Value> {
    api.requests()
        .into_iter()
        .filter(|r| r["kind"] != "side" && r["kind"] != "judge")
        .collect()
}

/// The judge's verdicts, in order.
fn verdicts(api: &FakeApi) -> Vec<bool> {
    api.requests()
        .into_iter()
        .filter(|r| r["kind"] == "judge")
        .map(|r| r["met"] == true)
        .collect()
}

fn start(repo: &Repo, dir: &Path, script: &str, work: &str, judge: &str) -> FakeApi {
    FakeApi::judged(dir, script, &repo.home().join("api.jsonl"), work, judge)
}

const GOAL_FEEDBACK: &str = "The goal \"Make the thing work\" is not done";

#[test]
fn slash_commands_leave_goals_state_alone() {
    let Some(dir) = claude_dir() else { return };
    // `/goal abandon the goal` is Claude Code's command (its condition "abandon the goal").
    let repo = project(&["division works"]);
    let (head, md) = (repo.head(), repo.goal_md());
    let api = start(&repo, &dir, "say", "true", "yes");
    claude(&repo, &dir, &api, "/goal abandon the goal");
    assert!(!verdicts(&api).is_empty(), "the /goal judge was asked");
    assert_eq!(
        repo.head(),
        head,
        "no commit: {}",
        repo.git(&["log", "--oneline"])
    );
    assert_eq!(repo.goal_md(), md);
    // `/goal <text that reads as a goal>` makes no goal of goal's.
    let repo = Repo::new();
    let api = start(&repo, &dir, "say", "true", "yes");
    claude(
        &repo,
        &dir,
        &api,
        "/goal my goal is to make add() add; done when the tests pass",
    );
    assert!(!verdicts(&api).is_empty(), "the /goal judge was asked");
    assert!(!repo.exists(".agents/goal"));
    assert_eq!(repo.commit_count(), 1);
}

#[test]
fn a_judge_that_accepts_a_bare_claim_still_meets_goals_block() {
    let Some(dir) = claude_dir() else { return };
    let repo = project(&["division works"]);
    let api = start(&repo, &dir, "say", "true", "yes");
    claude(&repo, &dir, &api, "/goal the work is done");
    assert_eq!(
        verdicts(&api).first(),
        Some(&true),
        "the judge accepted at once"
    );
    let calls = main_calls(&api);
    assert_eq!(
        calls.len(),
        4,
        "the answer and goal's three blocks: {calls:?}"
    );
    for call in &calls[1..] {
        let text = call["last_text"].as_str().unwrap();
        assert!(text.contains(GOAL_FEEDBACK), "{text}");
        assert!(
            text.trim_end()
                .lines()
                .last()
                .unwrap()
                .starts_with("GOAL-PROOF: open 0/1 "),
            "{text}"
        );
    }
    assert!(
        repo.exists(".agents/goal/GOAL.md"),
        "the goal is still open"
    );
}

// Claude Code writes the transcript behind the session, and the two hooks finish in either order:
// goal finds its own last block by its number and waits for it to be written.
#[test]
fn a_judge_that_blocks_three_times_does_not_use_up_goals_blocks() {
    let Some(dir) = claude_dir() else { return };
    let repo = project(&["division works"]);
    let api = start(&repo, &dir, "say", "true", "no,no,no,yes");
    claude(&repo, &dir, &api, "/goal all tests pass");
    assert_eq!(verdicts(&api), [false, false, false, true]);
    let calls = main_calls(&api);
    // Three continuations both hooks asked for, then goal's own three.
    let all: Vec<String> = api
        .requests()
        .iter()
        .map(|r| {
            format!(
                "{} {} | {}",
                r["kind"],
                r["met"],
                r["last_text"]
                    .as_str()
                    .unwrap_or("")
                    .replace('\n', " ")
                    .chars()
                    .take(160)
                    .collect::<String>()
            )
        })
        .collect();
    assert_eq!(calls.len(), 7, "{}", all.join("\n"));
    for call in &calls[1..] {
        let text = call["last_text"].as_str().unwrap();
        assert!(text.contains(GOAL_FEEDBACK), "{text}");
    }
    for call in &calls[4..] {
        let text = call["last_text"].as_str().unwrap();
        assert!(!text.contains("[all tests pass]"), "goal's alone: {text}");
    }
}

#[test]
fn a_judge_keyed_on_the_proof_line_ends_the_session_at_the_first_done_that_succeeds() {
    let Some(dir) = claude_dir() else { return };
    let repo = project(&["division works"]);
    let condition = stdout(
        &repo
            .goal()
            .args(["integrate", "claude", "--goal-condition"])
            .output()
            .unwrap(),
    );
    // The agent's first turn runs `goal done` too early (refused); the next proves and finishes.
    repo.write(
        ".git/step.sh",
        "if [ -f .git/stepped ]; then goal verify -c 1 -- sh pass.sh && goal done; \
         else touch .git/stepped; goal done; fi\n",
    );
    let api = start(&repo, &dir, "work", "sh .git/step.sh", "proof");
    claude(&repo, &dir, &api, &format!("/goal {}", condition.trim()));
    assert_eq!(verdicts(&api), [false, true], "{:#?}", api.requests());
    let calls = main_calls(&api);
    assert_eq!(
        calls.len(),
        4,
        "two turns of a tool call and an answer: {calls:#?}"
    );
    assert!(!repo.exists(".agents/goal"), "the goal is done");
    assert!(
        repo.git(&["log", "--format=%s"]).contains("goal: done"),
        "{}",
        repo.git(&["log", "--oneline"])
    );
}

#[test]
fn done_prints_the_complete_proof_line_with_the_tree_its_evidence_is_bound_to() {
    let repo = project(&["division works"]);
    let refused = repo.goal().arg("done").output().unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(!stdout(&refused).contains("GOAL-PROOF: complete"));
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    let tree = last_record(&repo)["tree"].as_str().unwrap().to_string();
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert_eq!(
        text.trim_end().lines().last().unwrap(),
        format!("GOAL-PROOF: complete Make the thing work {tree}"),
        "{text}"
    );
}

#[test]
fn status_json_says_what_done_would_decide() {
    let repo = project(&["division works"]);
    assert_eq!(status(&repo)["done_would_pass"], false);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    assert_eq!(status(&repo)["done_would_pass"], true);
    repo.ok(&["block", "--reason", "waiting for the API key"]);
    assert_eq!(status(&repo)["done_would_pass"], false, "blocked");
    repo.ok(&["resume"]);
    repo.write("late.py", "edited after the run\n");
    assert_eq!(status(&repo)["done_would_pass"], false, "stale");
}

#[test]
fn the_hooks_end_their_context_and_block_reasons_with_the_open_proof_line() {
    let repo = project(&["division works"]);
    let hook = |event: &str| {
        let out = repo
            .goal()
            .args(["hook", "claude"])
            .write_stdin(event.to_string())
            .output()
            .unwrap();
        json(&out)
    };
    let next = status(&repo)["next"].as_str().unwrap().to_string();
    let line = format!("GOAL-PROOF: open 0/1 {next}");
    let stop = hook(r#"{"hook_event_name":"Stop","stop_hook_active":false}"#);
    let reason = stop["reason"].as_str().unwrap();
    assert!(reason.ends_with(&line), "{reason}");
    for event in [
        r#"{"hook_event_name":"SessionStart","source":"compact"}"#,
        r#"{"hook_event_name":"UserPromptSubmit","prompt":"carry on"}"#,
    ] {
        let v = hook(event);
        let text = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(text.trim_end().ends_with(&line), "{text}");
    }
    // `goal inject`'s own text is unchanged: no proof line.
    let inject = stdout(&repo.goal().arg("inject").output().unwrap());
    assert!(!inject.contains("GOAL-PROOF"), "{inject}");
}

#[test]
fn integrate_claude_goal_condition_prints_the_condition_and_changes_nothing() {
    let repo = Repo::new();
    let out = repo
        .goal()
        .args(["integrate", "claude", "--goal-condition"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("`GOAL-PROOF: complete`"), "{text}");
    assert!(text.contains("tool result"), "{text}");
    assert!(!repo.exists(".claude"));
}
