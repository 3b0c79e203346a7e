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
pub(crate) fn wait_bounded(child: &mut Child, limit: Duration) -> ExitStatus {
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
pub(crate) fn poll(what: &str, mut ready: impl FnMut() -> bool) {
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

/// `--quiet` is one switch for every layer: the progress lines of verify's runs, the red and base
/// runs and done's clean run are left out, while the outcome, errors and warnings stay; `--json`
/// leaves out verify's progress too.
#[test]
fn quiet_leaves_out_every_layers_progress_and_keeps_warnings() {
    let repo = Repo::new();
    repo.write(
        "test.sh",
        "#!/bin/sh\nif [ -f hello.txt ]; then echo '1 passed, 0 failed'; else echo '0 passed, 1 failed'; exit 1; fi\n",
    );
    repo.git(&["add", "test.sh"]);
    repo.git(&["commit", "-q", "-m", "test"]);
    repo.ok(&[
        "init",
        "Say hello",
        "-c",
        "hello.txt exists (verify: `sh test.sh`)",
    ]);
    let red = repo.goal().args(["verify", "-c", "1"]).output().unwrap();
    assert_eq!(red.status.code(), Some(1));
    assert!(
        stderr(&red).contains("goal: running `sh test.sh`"),
        "{}",
        stderr(&red)
    );
    repo.write("hello.txt", "hello\n");
    for flags in [&["--quiet"][..], &["--json"][..]] {
        let green = repo
            .goal()
            .args(flags)
            .args(["verify", "-c", "1"])
            .output()
            .unwrap();
        assert!(green.status.success(), "{flags:?}: {}", stderr(&green));
        assert!(
            !stderr(&green).contains("running"),
            "{flags:?}: {}",
            stderr(&green)
        );
    }
    // A git config that GOAL.md overrides is a warning: shown even with --quiet.
    repo.git(&["config", "goal.mutants", "gate"]);
    let done = repo.goal().args(["--quiet", "done"]).output().unwrap();
    assert!(done.status.success(), "{}", stderr(&done));
    let said = stderr(&done);
    assert!(
        !said.contains("running") && !said.contains("clean run"),
        "{said}"
    );
    assert!(
        said.contains("goal: warning: git config goal.mutants"),
        "{said}"
    );
}
