//! Snapshots of every command's `--json` output and of the texts agents read (status, inject, the
//! Claude Stop hook's reason, `goal run`'s prompt): the baseline a refactoring must not move.
//! Only what truly varies is normalised: temporary paths, durations and clock times.

use std::process::Output;

use regex::Regex;

use crate::common::{Repo, normalise};

/// `text` with temporary paths, durations and times that vary from run to run replaced.
fn scrub(repo: &Repo, text: &str) -> String {
    let text = normalise(repo, text);
    let rules: &[(&str, &str)] = &[
        (
            r#""(duration_ms|elapsed_ms|elapsed_s|duration_s)": ?[0-9.]+"#,
            r#""$1": [N]"#,
        ),
        (r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]"),
        (r"\b[0-9]{8}T[0-9]{6}Z-[0-9a-f]{4}\b", "[RUN]"),
        // A run's seconds as done says them ("the clean run passed in 0.1s"): a loaded machine.
        (r"passed in [0-9]+\.[0-9]s", "passed in [N]s"),
        // The default memory bound of a pin's run is this machine's (75 % of its memory).
        (
            r#"("key": "goal.pinMemory",(?s:[^}]*?)"in_force": )"[0-9]+""#,
            r#"$1"[MIB]""#,
        ),
    ];
    let mut text = text;
    for (pattern, with) in rules {
        text = Regex::new(pattern)
            .unwrap()
            .replace_all(&text, *with)
            .into_owned();
    }
    text
}

/// The whole snapshot with every hash (commit ids, evidence ids and hashes, which hold durations)
/// numbered in order of first appearance: `[H3]`, and `[H3…]` for a short form of it.
fn numbered(text: &str) -> String {
    let hex = Regex::new(r"\b[0-9a-f]{10,64}\b").unwrap();
    let mut long: Vec<String> = Vec::new();
    for m in hex.find_iter(text) {
        let t = m.as_str();
        if (t.len() == 40 || t.len() == 64) && !long.iter().any(|l| l == t) {
            long.push(t.to_string());
        }
    }
    let mut short: Vec<String> = Vec::new();
    hex.replace_all(text, |c: &regex::Captures| {
        let t = &c[0];
        // A number (a Unix time) is kept; an evidence id (12 hex digits) or the short form of a
        // hash that happens to hold no letter is still a hash.
        if t.bytes().all(|b| b.is_ascii_digit())
            && t.len() != 12
            && !long.iter().any(|l| l.starts_with(t))
        {
            return t.to_string();
        }
        if let Some(n) = long.iter().position(|l| l == t) {
            return format!("[H{}]", n + 1);
        }
        if let Some(n) = long.iter().position(|l| l.starts_with(t)) {
            return format!("[H{}…]", n + 1);
        }
        let n = short.iter().position(|s| s == t).unwrap_or_else(|| {
            short.push(t.to_string());
            short.len() - 1
        });
        format!("[S{}]", n + 1)
    })
    .into_owned()
}

/// Stdout and stderr and the exit code of one command, scrubbed.
fn shown(repo: &Repo, out: &Output) -> String {
    format!(
        "exit: {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        scrub(repo, &String::from_utf8_lossy(&out.stdout)),
        scrub(repo, &String::from_utf8_lossy(&out.stderr)),
    )
}

fn goal(repo: &Repo, args: &[&str]) -> String {
    let out = repo
        .goal()
        .env("GOAL_TIME_SCALE", "0")
        .args(args)
        .output()
        .unwrap();
    shown(repo, &out)
}

fn goal_stdin(repo: &Repo, args: &[&str], stdin: &str) -> String {
    let out = repo
        .goal()
        .args(args)
        .write_stdin(stdin.to_string())
        .output()
        .unwrap();
    shown(repo, &out)
}

/// A project with a test script that passes once hello.txt exists, and a goal with two criteria
/// pinned to it.
fn project() -> Repo {
    let repo = Repo::new();
    repo.write(
        "test.sh",
        "#!/bin/sh\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    repo.git(&["add", "test.sh"]);
    repo.git(&["commit", "-q", "-m", "test"]);
    repo
}

fn init(repo: &Repo) -> String {
    goal(
        repo,
        &[
            "--json",
            "init",
            "Say hello",
            "-c",
            "hello.txt exists (verify: `sh test.sh`)",
            "-c",
            "the test passes (verify: `sh test.sh`)",
        ],
    )
}

#[test]
fn a_goal_from_init_to_done() {
    let repo = project();
    let mut shot = Vec::new();
    let mut step = |name: &str, text: String| shot.push(format!("=== {name}\n{text}"));
    step("init --json", init(&repo));
    step("status", goal(&repo, &["status"]));
    step("status --json", goal(&repo, &["--json", "status"]));
    step("inject", goal(&repo, &["inject"]));
    step("continuation", goal(&repo, &["continuation"]));
    step(
        "hook claude Stop",
        goal_stdin(
            &repo,
            &["hook", "claude"],
            r#"{"hook_event_name":"Stop","stop_hook_active":false}"#,
        ),
    );
    step(
        "hook claude SessionStart",
        goal_stdin(
            &repo,
            &["hook", "claude"],
            r#"{"hook_event_name":"SessionStart"}"#,
        ),
    );
    step(
        "criteria lint --json",
        goal(&repo, &["--json", "criteria", "lint"]),
    );
    step(
        "verify --json (red)",
        goal(&repo, &["--json", "verify", "-c", "1"]),
    );
    step("done --json (refused)", goal(&repo, &["--json", "done"]));
    repo.write("hello.txt", "hello\n");
    step("verify --json", goal(&repo, &["--json", "verify"]));
    step("status after verify", goal(&repo, &["status"]));
    step(
        "iterate --json",
        goal(&repo, &["--json", "iterate", "-m", "wrote hello.txt"]),
    );
    step(
        "status --json after iterate",
        goal(&repo, &["--json", "status"]),
    );
    step("inject after iterate", goal(&repo, &["inject"]));
    step(
        "hook claude Stop when proven",
        goal_stdin(
            &repo,
            &["hook", "claude"],
            r#"{"hook_event_name":"Stop","stop_hook_active":false}"#,
        ),
    );
    step("log --json", goal(&repo, &["--json", "log", "--all"]));
    step("log", goal(&repo, &["log", "--all"]));
    step("report --json", goal(&repo, &["--json", "report"]));
    step("audit --json", goal(&repo, &["--json", "audit"]));
    step("done --json", goal(&repo, &["--json", "done"]));
    step(
        "status --json after done",
        goal(&repo, &["--json", "status"]),
    );
    step("git log", repo.git(&["log", "--format=%H %s%n%b"]));
    insta::assert_snapshot!(numbered(&scrub(&repo, &shot.join("\n"))));
}

#[test]
fn block_resume_abandon_restore_retry() {
    let repo = project();
    let mut shot = Vec::new();
    let mut step = |name: &str, text: String| shot.push(format!("=== {name}\n{text}"));
    step("init --json", init(&repo));
    step(
        "criteria add --json",
        goal(&repo, &["--json", "criteria", "add", "a third thing"]),
    );
    step("check --json", goal(&repo, &["--json", "check", "3"]));
    step("uncheck --json", goal(&repo, &["--json", "uncheck", "3"]));
    step("retry --json", goal(&repo, &["--json", "retry"]));
    step("retry --json again", goal(&repo, &["--json", "retry"]));
    step(
        "attempt add --json",
        goal(&repo, &["--json", "attempt", "add", "failure", "s1"]),
    );
    step(
        "attempt policy --json",
        goal(&repo, &["--json", "attempt", "policy"]),
    );
    step(
        "block --json",
        goal(&repo, &["--json", "block", "--reason", "the disk is full"]),
    );
    step("status when blocked", goal(&repo, &["status"]));
    step(
        "hook claude Stop when blocked",
        goal_stdin(
            &repo,
            &["hook", "claude"],
            r#"{"hook_event_name":"Stop","stop_hook_active":false}"#,
        ),
    );
    step("resume --json", goal(&repo, &["--json", "resume"]));
    step(
        "abandon --json",
        goal(&repo, &["--json", "abandon", "--reason", "not needed"]),
    );
    step(
        "status --json abandoned",
        goal(&repo, &["--json", "status"]),
    );
    step("restore --json", goal(&repo, &["--json", "restore"]));
    step("status --json restored", goal(&repo, &["--json", "status"]));
    step(
        "detect --json",
        goal(
            &repo,
            &["--json", "detect", "my goal is to make the tests pass"],
        ),
    );
    step("config --json", goal(&repo, &["--json", "config"]));
    step(
        "hooks status --json",
        goal(&repo, &["--json", "hooks", "status"]),
    );
    step("git log", repo.git(&["log", "--format=%H %s%n%b"]));
    insta::assert_snapshot!(numbered(&scrub(&repo, &shot.join("\n"))));
}

#[test]
fn hook_claude_user_prompt_starts_a_goal() {
    let repo = project();
    let mut shot = Vec::new();
    let mut step = |name: &str, text: String| shot.push(format!("=== {name}\n{text}"));
    step(
        "hook claude UserPromptSubmit",
        goal_stdin(
            &repo,
            &["hook", "claude"],
            r#"{"hook_event_name":"UserPromptSubmit","prompt":"My goal is to make hello.txt exist"}"#,
        ),
    );
    step("status --json", goal(&repo, &["--json", "status"]));
    step(
        "hook claude UserPromptSubmit abandon",
        goal_stdin(
            &repo,
            &["hook", "claude"],
            r#"{"hook_event_name":"UserPromptSubmit","prompt":"abandon it"}"#,
        ),
    );
    step("git log", repo.git(&["log", "--format=%H %s%n%b"]));
    insta::assert_snapshot!(numbered(&scrub(&repo, &shot.join("\n"))));
}

#[test]
fn goal_run_events_and_prompts() {
    let repo = project();
    init(&repo);
    let state = repo.home().to_path_buf();
    let script = state.join("agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nS='{}'\nn=$(cat \"$S/calls\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$S/calls\"\ncat > \"$S/prompt-$n\"\nif [ $n -ge 2 ]; then echo hello > hello.txt; goal verify >/dev/null 2>&1; fi\necho \"turn $n done\"\n",
            state.display()
        ),
    )
    .unwrap();
    let out = repo
        .goal()
        .env("GOAL_TIME_SCALE", "0")
        .env("GOAL_SIGNAL_GRACE", "0.1")
        .args(["run", "--json", "--", "sh"])
        .arg(&script)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .unwrap();
    let mut shot = vec![format!("=== run --json\n{}", shown(&repo, &out))];
    for n in 1..=2 {
        let prompt = std::fs::read_to_string(state.join(format!("prompt-{n}"))).unwrap();
        shot.push(format!("=== prompt {n}\n{}", scrub(&repo, &prompt)));
    }
    shot.push(format!(
        "=== git log\n{}",
        repo.git(&["log", "--format=%s%n%b"])
    ));
    insta::assert_snapshot!(numbered(&scrub(&repo, &shot.join("\n"))));
}

/// Every command's `--help` (what an agent reads before it calls one), nested commands too.
#[test]
fn every_help_text() {
    fn names(command: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in command.get_subcommands() {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_string());
            out.push(path.clone());
            names(sub, &path, out);
        }
    }
    let mut paths = vec![Vec::new()];
    names(
        &<goal::cli::Cli as clap::CommandFactory>::command(),
        &[],
        &mut paths,
    );
    let repo = Repo::new();
    let mut shot = Vec::new();
    for path in paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        shot.push(format!("$ goal {}", args.join(" ")));
        shot.push(goal(&repo, &args));
    }
    insta::assert_snapshot!(shot.join("\n"));
}
