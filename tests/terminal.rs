//! A good citizen of the terminal: closed pipes, signals, abandon phrases aimed at the goal,
//! `goal restore`, phases with a goal text, completions and man page, the continuation language,
//! words a user knows, and colour (only on a terminal, never with NO_COLOR) and `--quiet`.

use std::io::Read;
use std::path::Path;
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{EVIDENCE, GOAL, Repo, stderr, stdout};

/// Wait for `child` at most `limit`; panics (after killing it) when it is still running.
fn wait_bounded(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("goal still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Poll until `ready` holds, at most 10 s.
fn poll(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out: {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

// ---------------------------------------------------------------------------------------------
// Pipes

/// Run `goal ARGS` with its stdout a pipe whose reading end is closed at once.
fn with_closed_stdout(repo: &Repo, args: &[&str]) -> (ExitStatus, String) {
    let mut child = repo
        .goal_std()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (wait_bounded(&mut child, Duration::from_secs(60)), err)
}

#[test]
fn a_closed_stdout_never_panics() {
    let repo = Repo::new();
    repo.init_goal(&["tests/parser.rs passes"]);
    repo.ok(&["iterate", "-m", "implemented the parser"]);
    let demo = tempfile::TempDir::new().unwrap();
    let demo_dir = demo.path().join("demo");
    let demo_dir = demo_dir.to_str().unwrap();
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["log"],
        &["log", "--json"],
        &["config"],
        &["inject"],
        &["continuation"],
        &["demo", "--dir", demo_dir],
        &["--help"],
        &["help", "init"],
        &["init", "--help"],
    ] {
        let (status, err) = with_closed_stdout(&repo, args);
        assert_ne!(status.code(), Some(101), "goal {args:?}: {err}");
        assert!(!err.contains("panicked"), "goal {args:?}: {err}");
        assert!(!err.contains("Broken pipe"), "goal {args:?}: {err}");
    }
}

#[test]
fn a_commit_made_before_the_pipe_closed_stays_made() {
    let repo = Repo::new();
    repo.init_goal(&["tests/parser.rs passes"]);
    let before = repo.commit_count();
    let (status, err) = with_closed_stdout(&repo, &["iterate", "-m", "implemented the parser"]);
    assert_ne!(status.code(), Some(101), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(repo.commit_count(), before + 1);
    assert_eq!(
        repo.trailer("HEAD", "Goal-Action").as_deref(),
        Some("iterate")
    );
    assert!(repo.goal_md().contains("implemented the parser"));
}

// ---------------------------------------------------------------------------------------------
// Signals

/// Whether process `pid` still runs (a zombie waiting for its reaper does not).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the command name in parentheses: "pid (comm) S …".
            let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
            !state.is_some_and(|s| s.starts_with('Z') || s.starts_with('X'))
        }
        Err(_) => false,
    }
}

fn pids(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn send(pid: u32, signal: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(pid as i32).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

/// Start `goal verify -c 1 -- sh -c SCRIPT` (SCRIPT writes its pids to `pids`), wait until
/// `expect` pids are written, send `signal` to goal, and return goal's exit status, the time it
/// took to exit and the pids.
fn interrupt_verify(
    repo: &Repo,
    script: &str,
    expect: usize,
    signal: rustix::process::Signal,
    grace: &str,
) -> (ExitStatus, Duration, Vec<u32>, String) {
    let pid_file = repo.path().join("pids");
    let mut child = repo
        .goal_std()
        .args(["verify", "-c", "1", "--", "sh", "-c", script])
        .env("GOAL_SIGNAL_GRACE", grace)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    poll("the test command's pids", || {
        pids(&pid_file).len() >= expect
    });
    let sent = Instant::now();
    send(child.id(), signal);
    let status = wait_bounded(&mut child, Duration::from_secs(10));
    let took = sent.elapsed();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let pids = pids(&pid_file);
    // Killed processes are gone at once; give their reaper a moment to collect them.
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    (status, took, pids, err)
}

fn signal_repo() -> Repo {
    let repo = Repo::new();
    repo.write(".gitignore", "pids\n");
    repo.init_goal(&["tests/parser.rs passes"]);
    repo
}

#[test]
fn sigint_during_verify_stops_the_whole_process_group_and_records_nothing() {
    let repo = signal_repo();
    // A background process of a non-interactive shell ignores SIGINT: only the kill after the
    // grace period stops it.
    let (status, took, pids, err) = interrupt_verify(
        &repo,
        "echo $$ > pids; sleep 300 & echo $! >> pids; sleep 300; wait",
        2,
        rustix::process::Signal::INT,
        "0.3",
    );
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    assert!(took < Duration::from_millis(2500), "took {took:?}");
    assert_eq!(pids.len(), 2);
    for pid in pids {
        assert!(!alive(pid), "process {pid} of the test command survived");
    }
    assert!(!repo.exists(EVIDENCE), "no evidence is written");
    assert!(!repo.goal_md().contains("[x]"));
}

/// The pin of the done test below: passes where code.txt says fixed, fails where not; in a kept
/// worktree of goal's (its path holds `/checkouts/`), the clean run, the base run and the old
/// exam (fixed code, or the base's version of this script) write their pids and hang; the red
/// run (the base's code, this final version) does not.
const HANGING_PIN: &str = r#"#!/bin/sh
case "$PWD" in
*/checkouts/*)
    if grep -q fixed code.txt || ! grep -q "the goal's" tests/check.sh; then
        echo $$ >> "$SIGNAL_PIDS"
        sleep 300 &
        echo $! >> "$SIGNAL_PIDS"
        wait
    fi
    ;;
esac
if grep -q fixed code.txt; then
    echo "1 passed, 0 failed"
    exit 0
fi
echo "0 passed, 1 failed"
exit 1
"#;

#[test]
fn sigint_during_done_stops_the_clean_run_and_the_exam_beside_it() {
    let repo = Repo::new();
    repo.write(".gitignore", "pids\n");
    repo.write("code.txt", "buggy\n");
    repo.write("tests/check.sh", HANGING_PIN);
    crate::common::commit_all(&repo, "base");
    repo.init_goal(&["the thing works (verify: `sh tests/check.sh`)"]);
    repo.write("code.txt", "fixed\n");
    repo.write("tests/check.sh", &format!("{HANGING_PIN}# the goal's\n"));
    repo.ok(&["verify", "-c", "1"]);
    repo.ok(&["iterate", "-m", "the fix"]);
    let pid_file = repo.path().join("pids");
    let mut child = repo
        .goal_std()
        .arg("done")
        .env("SIGNAL_PIDS", &pid_file)
        .env("GOAL_SIGNAL_GRACE", "0.3")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Two cores or more: the clean run and the base run hang at once (two pids each).
    let at_once = std::thread::available_parallelism().map_or(1, |c| c.get()) >= 2;
    let expect = if at_once { 4 } else { 2 };
    poll("the runs' pids", || pids(&pid_file).len() >= expect);
    send(child.id(), rustix::process::Signal::INT);
    let status = wait_bounded(&mut child, Duration::from_secs(10));
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted by SIGINT"), "{err}");
    if at_once {
        assert!(err.contains("beside the clean run"), "{err}");
    }
    let pids = pids(&pid_file);
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) && start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    for pid in pids {
        assert!(!alive(pid), "process {pid} of a run survived");
    }
    assert!(repo.exists(GOAL), "the goal is still open");
}

#[test]
fn sigterm_during_verify_exits_143() {
    let repo = signal_repo();
    let (status, _, pids, err) = interrupt_verify(
        &repo,
        "echo $$ > pids; sleep 300",
        1,
        rustix::process::Signal::TERM,
        "0.3",
    );
    assert_eq!(status.code(), Some(143), "{err}");
    assert!(err.contains("interrupted by SIGTERM"), "{err}");
    assert!(pids.iter().all(|&p| !alive(p)));
    assert!(!repo.exists(EVIDENCE));
}

#[test]
fn a_child_that_ignores_sigint_is_killed_after_the_grace_period() {
    let repo = signal_repo();
    let (status, took, pids, err) = interrupt_verify(
        &repo,
        "trap '' INT; echo $$ > pids; while :; do sleep 0.05; done",
        1,
        rustix::process::Signal::INT,
        "0.2",
    );
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(took >= Duration::from_millis(200), "took {took:?}");
    assert!(took < Duration::from_millis(2500), "took {took:?}");
    assert!(pids.iter().all(|&p| !alive(p)));
    assert!(!repo.exists(EVIDENCE));
}

#[test]
fn a_command_that_ends_by_itself_is_not_waited_for_longer() {
    let repo = signal_repo();
    repo.test_script("t.sh", 2, 0);
    let start = Instant::now();
    repo.ok(&["verify", "-c", "1", "--", "sh", "t.sh"]);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(repo.read(EVIDENCE).contains("\"exit_code\":0"));
}

/// A test command that ends by itself but leaves a background job behind: `goal verify` returns
/// with the command's own result, and nothing of its process group survives — whether the job
/// holds the output pipe open (it used to hang `goal` until the job ended), has let go of it (it
/// used to live on), or ignores SIGTERM (killed once the grace period runs out).
#[test]
fn a_command_that_ends_leaves_nothing_of_its_process_group_behind() {
    for (job, grace) in [
        ("sleep 300 &", "3"),
        ("sleep 300 >/dev/null 2>&1 &", "3"),
        ("(trap '' TERM; exec sleep 300) >/dev/null 2>&1 &", "0.2"),
    ] {
        let repo = signal_repo();
        let pid_file = repo.path().join("pids");
        // The summary is made by the script, not written in it (a line the command carries
        // word for word is no test's result).
        let script = format!("{job} echo $! > pids; printf '==== %d passed in 0.01s ====\\n' 1");
        let start = Instant::now();
        let out = repo
            .goal()
            .args(["verify", "-c", "1", "--", "sh", "-c", &script])
            .env("GOAL_SIGNAL_GRACE", grace)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let took = start.elapsed();
        assert_eq!(out.status.code(), Some(0), "{job}: {out:?}");
        assert!(took < Duration::from_secs(10), "{job}: took {took:?}");
        let pids = pids(&pid_file);
        assert_eq!(pids.len(), 1, "{job}");
        assert!(
            !alive(pids[0]),
            "{job}: the background job {} survived",
            pids[0]
        );
        assert!(repo.read(EVIDENCE).contains("\"exit_code\":0"), "{job}");
    }
}

// ---------------------------------------------------------------------------------------------
// Abandon means the goal, and `goal restore`

fn prompt(repo: &Repo, text: &str) -> Value {
    let input = serde_json::json!({
        "session_id": "s",
        "transcript_path": "/dev/null",
        "cwd": repo.path().display().to_string(),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    });
    let out = repo
        .goal()
        .args(["hook", "claude"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap_or(Value::Null)
}

fn context(answer: &Value) -> &str {
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("")
}

#[test]
fn the_claude_hook_abandons_only_a_phrase_aimed_at_the_goal_and_restore_brings_it_back() {
    let repo = Repo::new();
    repo.init_goal(&["tests/parser.rs passes", "cargo clippy passes"]);
    repo.test_script("t.sh", 3, 0);
    repo.ok(&["verify", "-c", "1", "--", "sh", "t.sh"]);
    repo.ok(&["retry", "--reason", "flaky network"]);
    repo.ok(&["iterate", "-m", "implemented the parser"]);
    // What the restore brings back is what was committed before the abandon.
    assert!(
        repo.status_porcelain().is_empty(),
        "{}",
        repo.status_porcelain()
    );
    let goal_md = repo.goal_md();
    let evidence = repo.read(EVIDENCE);
    let retry = repo.read(".agents/goal/retry.json");
    let head = repo.head();

    for text in [
        "ok, cancel the build and run the tests again",
        "abandon this approach, try a queue instead",
        "don't cancel",
        "we should not abandon the goal",
        "放弃这个方案",
    ] {
        let answer = prompt(&repo, text);
        assert_eq!(repo.head(), head, "{text:?} changed HEAD");
        assert_eq!(repo.goal_md(), goal_md, "{text:?}");
        assert!(
            context(&answer).starts_with("[goal-driven-loop] ACTIVE GOAL"),
            "{text:?}: {answer}"
        );
    }

    let answer = prompt(&repo, "cancel the goal");
    assert!(!repo.exists(GOAL));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("abandoned")
    );
    assert!(context(&answer).contains("`goal restore`"), "{answer}");

    let out = repo.goal().arg("restore").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("Restored: Make the thing work"));
    assert_eq!(repo.goal_md(), goal_md, "GOAL.md comes back byte for byte");
    assert_eq!(repo.read(EVIDENCE), evidence);
    assert_eq!(repo.read(".agents/goal/retry.json"), retry);
    assert_eq!(
        repo.trailer("HEAD", "Goal-Action").as_deref(),
        Some("restore")
    );
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("in-progress")
    );
    // The commit holds the goal files as they were before the abandon.
    assert_eq!(
        repo.git(&["show", &format!("HEAD:{GOAL}")]),
        repo.git(&["show", &format!("{head}:{GOAL}")])
    );
    assert!(
        repo.status_porcelain().is_empty(),
        "{}",
        repo.status_porcelain()
    );
    repo.assert_fsck();
    // The goal goes on across the abandon and the restore.
    let log = stdout(&repo.goal().arg("log").output().unwrap());
    assert!(log.contains("implemented the parser"), "{log}");
    repo.ok(&["iterate", "-m", "added the clippy fixes"]);
}

#[test]
fn restore_refuses_with_an_active_goal_or_nothing_abandoned() {
    let repo = Repo::new();
    let out = repo.goal().arg("restore").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no abandoned goal"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("hint: "), "{}", stderr(&out));

    repo.init_goal(&["tests/parser.rs passes"]);
    let out = repo.goal().arg("restore").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("a goal is active"),
        "{}",
        stderr(&out)
    );

    // Every abandon says how to take it back: abandon, init --replace, init --abandon-current.
    let out = repo.goal().arg("abandon").output().unwrap();
    assert!(stdout(&out).contains("restore it with `goal restore`"));
    repo.ok(&["restore"]);
    let out = repo
        .goal()
        .args(["init", "--replace", "Ship the CSV exporter with paging"])
        .output()
        .unwrap();
    assert!(stdout(&out).contains("restore it with `goal restore`"));
    let out = repo
        .goal()
        .args(["init", "--abandon-current"])
        .output()
        .unwrap();
    assert!(stdout(&out).contains("restore it with `goal restore`"));
    // The last abandoned goal comes back; restoring twice has nothing left to restore.
    repo.ok(&["restore"]);
    assert!(repo.goal_md().contains("Ship the CSV exporter with paging"));
    repo.ok(&["abandon"]);
    repo.ok(&["restore"]);
    let out = repo.goal().arg("restore").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

// ---------------------------------------------------------------------------------------------
// The stale-goal question takes the words it offers

#[test]
fn the_stale_goal_question_takes_words_and_letters() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let run = |goal: &str, answer: &str| {
        let line = format!(
            "{} init '{goal}' -c 'b passes'; echo exit=$?",
            env!("CARGO_BIN_EXE_goal")
        );
        repo.on_a_tty(&line, &[("GOAL_PROMPT_TIMEOUT", Some("5"))], Some(answer))
    };
    let text = run("Another goal", "replace\n");
    assert!(
        text.contains("continue / replace / abandon"),
        "the question names its words: {text}"
    );
    assert!(text.contains("exit=0"), "{text}");
    assert!(repo.goal_md().contains("Another goal"));
    // "c" answers continue: a choice, so exit 0 and the goal as it was.
    let text = run("A third goal", "c\n");
    assert!(text.contains("exit=0"), "{text}");
    assert!(repo.goal_md().contains("Another goal"));
    let text = run("A third goal", "A\n");
    assert!(text.contains("exit=0"), "{text}");
    assert!(!repo.exists(GOAL), "abandon creates no new goal");
    assert!(text.contains("goal restore"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Phases never swallow the goal text

#[test]
fn phases_take_commas_or_a_repeated_flag_and_leave_the_goal_alone() {
    for args in [
        &[
            "init",
            "--phases",
            "Design,Build",
            "Build the storage layer",
        ][..],
        &[
            "init",
            "--phases",
            "Design, Build",
            "Build the storage layer",
        ],
        &[
            "init",
            "Build the storage layer",
            "--phases",
            "Design,Build",
        ],
        &[
            "init",
            "--phases",
            "Design",
            "--phases",
            "Build",
            "Build the storage layer",
        ],
    ] {
        let repo = Repo::new();
        repo.ok(args);
        let md = repo.goal_md();
        assert!(
            md.contains("# Goal: Build the storage layer\n"),
            "{args:?}: {md}"
        );
        assert!(
            md.contains("### Phase 1: Design\n### Phase 2: Build\n"),
            "{args:?}: {md}"
        );
        assert!(!md.contains("Phase 3"), "{args:?}: {md}");
    }
    // The old form is an error, not a third phase.
    let repo = Repo::new();
    let out = repo
        .goal()
        .args([
            "init",
            "--phases",
            "Design",
            "Build",
            "Build the storage layer",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!repo.exists(GOAL));
    let help = stdout(&repo.goal().args(["init", "--help"]).output().unwrap());
    assert!(help.contains("--phases \"Design,Build\""), "{help}");
}

// ---------------------------------------------------------------------------------------------
// Completions, the manual page, the continuation language

#[test]
fn completions_for_every_shell_and_a_man_page() {
    let repo = Repo::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = repo.goal().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(script.contains("goal"), "{shell}: {script}");
        assert!(script.contains("restore"), "{shell} completes the commands");
    }
    let bash = stdout(&repo.goal().args(["completions", "bash"]).output().unwrap());
    assert!(bash.contains("complete -F _goal"), "{bash}");
    let out = repo.goal().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));

    let out = repo.goal().arg("man").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let page = stdout(&out);
    assert!(
        page.lines().any(|l| l.starts_with(".TH goal 1")),
        "a roff page with a title line: {page}"
    );
    assert!(page.contains("restore"), "{page}");
}

#[test]
fn the_continuation_follows_goal_language() {
    let repo = Repo::new();
    repo.init_goal(&["a passes", "b passes"]);
    let continuation = || stdout(&repo.goal().arg("continuation").output().unwrap());
    assert_eq!(
        continuation(),
        "🔄 目标状态已保存至 .agents/goal/GOAL.md\n当前进度：0/2 criteria 通过，第 0 轮迭代。\n"
    );
    repo.git(&["config", "goal.language", "en"]);
    assert_eq!(
        continuation(),
        "🔄 Goal state saved to .agents/goal/GOAL.md\nProgress: 0/2 criteria passed, iteration 0.\n"
    );
    repo.git(&["config", "goal.language", "zh"]);
    assert!(continuation().starts_with("🔄 目标状态已保存至"));
    repo.git(&["config", "goal.language", "fr"]);
    let out = repo.goal().arg("continuation").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("goal.language"), "{}", stderr(&out));
    repo.git(&["config", "--unset", "goal.language"]);
    let config = stdout(&repo.goal().arg("config").output().unwrap());
    assert!(
        config.contains("goal.language = zh (default)\n    default zh"),
        "{config}"
    );
}

// ---------------------------------------------------------------------------------------------
// Words a user knows

/// In-house words a user does not know, found in `text` (what, where).
pub(crate) fn in_house_words(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let lower = text.to_lowercase();
    for word in ["seed", "§"] {
        if lower.contains(word) {
            found.push(word.to_string());
        }
    }
    if text.contains("SPEC") {
        found.push("SPEC".into());
    }
    // S1/S2/S3 only with what they mean, close by.
    for (signal, meaning) in [("S1", "passing"), ("S2", "progress"), ("S3", "change")] {
        for (at, _) in text.match_indices(signal) {
            let before = text[..at].chars().next_back();
            let after = text[at + 2..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
            if word(before) || word(after) {
                continue;
            }
            let near: String = text[..at]
                .chars()
                .rev()
                .take(60)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .chain(text[at..].chars().take(60))
                .collect();
            if !near.contains(meaning) {
                found.push(format!("{signal} without \"{meaning}\" near it: …{near}…"));
            }
        }
    }
    // --deslop keeps its name; the word itself is explained, never used alone.
    for (at, _) in lower.match_indices("deslop") {
        let flag = lower[..at].ends_with("--") || lower[..at].ends_with("goal.");
        if !flag {
            found.push(format!("deslop at byte {at}"));
        }
    }
    found
}

/// Every command path of the command line (`[]`, `["init"]`, `["hooks", "install"]`, …).
fn command_paths() -> Vec<Vec<String>> {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<Vec<String>>) {
        out.push(path.clone());
        for sub in cmd.get_subcommands() {
            let mut p = path.clone();
            p.push(sub.get_name().to_string());
            walk(sub, p, out);
        }
    }
    let mut out = Vec::new();
    walk(&goal::cli::Cli::command(), Vec::new(), &mut out);
    out
}

#[test]
fn help_config_and_readme_speak_words_a_user_knows() {
    let repo = Repo::new();
    let paths = command_paths();
    assert!(paths.len() > 30, "{paths:?}");
    assert!(paths.iter().any(|p| p == &["hooks", "install"]));
    let mut problems = Vec::new();
    for path in &paths {
        for flag in ["--help", "-h"] {
            let out = repo.goal().args(path).arg(flag).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{path:?} {flag}");
            for word in in_house_words(&stdout(&out)) {
                problems.push(format!("goal {} {flag}: {word}", path.join(" ")));
            }
        }
    }
    let config = stdout(&repo.goal().arg("config").output().unwrap());
    for word in in_house_words(&config) {
        problems.push(format!("goal config: {word}"));
    }
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    for word in in_house_words(&readme) {
        problems.push(format!("README.md: {word}"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // The checker itself finds what it is for.
    assert_eq!(in_house_words("as the seed says").len(), 1);
    assert_eq!(in_house_words("see SPEC §9").len(), 2);
    assert_eq!(in_house_words("(S1 true, S2 false, S3 true)").len(), 3);
    assert!(in_house_words(&format!("({})", "S1 criteria passing count flat: yes, S2 no progress words: no, S3 no net code change: no")).is_empty());
    assert_eq!(in_house_words("the deslop pass").len(), 1);
    assert!(in_house_words("--deslop CMD, git config goal.deslop").is_empty());
}

#[test]
fn iterate_and_status_explain_the_stagnation_signals() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let out = repo
        .goal()
        .args(["iterate", "-m", "looked around"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("S1 criteria passing count flat for 3 iterations: no"),
        "{text}"
    );
    assert!(in_house_words(&text).is_empty(), "{text}");
    let status = stdout(&repo.goal().arg("status").output().unwrap());
    assert!(in_house_words(&status).is_empty(), "{status}");
}

/// On a terminal, where colour would otherwise be on, any non-empty `NO_COLOR` turns it off and
/// an empty one does not (no-color.org).
#[test]
fn no_color_means_no_escape_codes_on_a_terminal() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let status = format!("{} status", env!("CARGO_BIN_EXE_goal"));
    for (no_color, coloured) in [
        (None, true),
        (Some(""), true),
        (Some("1"), false),
        (Some("yes please"), false),
    ] {
        let text = repo.on_a_tty(&status, &[("NO_COLOR", no_color)], None);
        assert!(
            text.contains("Make the thing work"),
            "{no_color:?}: {text:?}"
        );
        assert_eq!(
            text.contains('\x1b'),
            coloured,
            "NO_COLOR={no_color:?}: {text:?}"
        );
    }
}

/// SPEC §3: colours only on a TTY and never with `NO_COLOR`; `--quiet` silences human output but
/// not errors.
#[test]
fn colour_only_on_a_tty_without_no_color_and_quiet_keeps_errors() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    let status = format!("{} status", env!("CARGO_BIN_EXE_goal"));
    let coloured = repo.on_a_tty(&status, &[("NO_COLOR", None)], None);
    assert!(coloured.contains("\x1b[1mGoal:\x1b[0m"), "{coloured:?}");
    let plain = repo.on_a_tty(&status, &[("NO_COLOR", Some("1"))], None);
    assert!(
        plain.contains("Goal: Make the thing work") && !plain.contains('\x1b'),
        "{plain:?}"
    );
    let piped = repo
        .goal()
        .env_remove("NO_COLOR")
        .arg("status")
        .output()
        .unwrap();
    assert!(!stdout(&piped).contains('\x1b'), "{}", stdout(&piped));

    repo.write("src/lib.rs", "// work\n");
    let quiet = repo
        .goal()
        .args(["--quiet", "iterate", "-m", "quiet step"])
        .output()
        .unwrap();
    assert!(quiet.status.success());
    assert_eq!(stdout(&quiet), "");
    assert_eq!(repo.trailer("HEAD", "Goal-Iteration").as_deref(), Some("1"));
    let refused = repo
        .goal()
        .args(["--quiet", "check", "1"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("goal: error: cannot check criterion 1"),
        "{}",
        stderr(&refused)
    );
}
