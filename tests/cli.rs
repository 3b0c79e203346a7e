//! The command line every command shares: usage errors, `-C`, `--json` (one document on
//! stdout, failures included) and `--help`.

use crate::common::{GOAL, Repo, json, stderr, stdout};

#[test]
fn dash_c_runs_elsewhere() {
    let repo = Repo::new();
    let elsewhere = tempfile::TempDir::new().unwrap();
    repo.goal_in(elsewhere.path())
        .args([
            "-C",
            repo.path().to_str().unwrap(),
            "init",
            "x",
            "-c",
            "a passes",
        ])
        .assert()
        .success();
    assert!(repo.exists(GOAL));
    repo.refused(
        &["-C", "/no/such/dir", "status"],
        2,
        &["-C /no/such/dir: no such directory"],
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    let repo = Repo::new();
    repo.refused(
        &["init"],
        2,
        &["required arguments were not provided", "<GOAL>"],
    );
    repo.refused(&["nonsense"], 2, &["unrecognized subcommand 'nonsense'"]);
    let out = repo.goal().args(["status", "--bogus"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("goal: error: unexpected argument '--bogus'"),
        "{}",
        stderr(&out)
    );
    repo.ok(&["--help"]);
}

/// With --json, every command that reports prints one JSON document on stdout and nothing else.
#[test]
fn json_output_is_one_document_on_stdout() {
    let repo = Repo::new();
    repo.test_script("pass.sh", 1, 0);
    let runs: &[&[&str]] = &[
        &["init", "A goal", "-c", "a passes"],
        &["status"],
        &["criteria", "add", "b returns 0"],
        &["criteria", "lint"],
        &["verify", "-c", "1", "-c", "2", "--", "sh", "pass.sh"],
        &["check", "1"],
        &["uncheck", "2"],
        &["iterate", "-m", "step"],
        &["retry"],
        &["attempt", "status"],
        &["block", "--reason", "r"],
        &["resume"],
        &["log"],
        &["config"],
        &["hooks", "status"],
        &["detect", "my goal is to make the build reproducible"],
        &["abandon"],
    ];
    for args in runs {
        let out = repo.goal().arg("--json").args(*args).output().unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            stderr(&out)
        );
        let v: Result<serde_json::Value, _> = serde_json::from_slice(&out.stdout);
        assert!(
            v.is_ok(),
            "{args:?}: stdout is not one JSON document: {}",
            stdout(&out)
        );
    }
}

/// A command's --help is its manual on an agent's screen: the whole text.
#[test]
fn hooks_help_reads_as_a_whole() {
    let repo = Repo::new();
    let out = repo
        .goal()
        .args(["hooks", "--help"])
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "Manage the git hooks (pre-commit: evidence gate; commit-msg: material-change gate).\n\nAgent hosts' hooks (Claude Code, Codex, Gemini CLI, opencode, Cursor) are `goal hook`.\n\nUsage: goal hooks [OPTIONS] <COMMAND>\n"
        ),
        "{text}"
    );
    for command in ["install", "uninstall", "status", "run"] {
        assert!(
            text.contains(&format!("\n  {command} ")),
            "{command}: {text}"
        );
    }
}

/// With --json every command prints one JSON document on stdout, failures included: no goal is
/// `{"active": false, …}`, any other failure `{"error": {message, hint, exit_code}}`, and the
/// exit codes stay what they are.
#[test]
fn json_failures_are_one_document_too() {
    let outside = tempfile::TempDir::new().unwrap();
    let repo = Repo::new();
    let one_document = |out: &std::process::Output| -> serde_json::Value {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut docs = serde_json::Deserializer::from_str(&text).into_iter::<serde_json::Value>();
        let first = docs
            .next()
            .unwrap_or_else(|| panic!("no JSON on stdout: {text:?}"))
            .unwrap();
        assert!(docs.next().is_none(), "more than one document: {text}");
        first
    };
    let out = repo.goal().args(["status", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v = one_document(&out);
    assert_eq!(v["active"], false, "{v}");
    assert_eq!(v["goal"], serde_json::Value::Null);
    let out = repo
        .goal_in(outside.path())
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v = one_document(&out);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a git repository"),
        "{v}"
    );
    assert_eq!(v["error"]["exit_code"], 2);
    assert_eq!(v["error"]["kind"], "user", "{v}");
    assert!(
        v["error"]["hint"].as_str().unwrap().contains("git init"),
        "{v}"
    );

    repo.init_goal(&["a passes"]);
    assert_eq!(
        json(&repo.goal().args(["status", "--json"]).output().unwrap())["active"],
        true
    );
    for (args, code, words, kind) in [
        (&["done", "--json"][..], 1, "not proven done", "refusal"),
        (
            &["verify", "-c", "9", "--json"],
            2,
            "no criterion 9",
            "user",
        ),
        (
            &["criteria", "remove", "1", "--json"],
            1,
            "material change",
            "refusal",
        ),
        (
            &["log", "--json", "-C", "/nonexistent"],
            2,
            "no such directory",
            "user",
        ),
        (
            &["verify", "-c", "1", "--json", "--", "/no/such/program"],
            2,
            "/no/such/program",
            "environment",
        ),
    ] {
        let out = repo.goal().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        let v = one_document(&out);
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains(words),
            "{args:?}: {v}"
        );
        assert_eq!(v["error"]["exit_code"], code, "{args:?}");
        assert_eq!(v["error"]["kind"], kind, "{args:?}: {v}");
        assert!(
            stderr(&out).contains("goal: error:"),
            "{args:?}: the text stays on stderr"
        );
    }
    // A command that answered in JSON and then refused prints no second document.
    let out = repo
        .goal()
        .args(["init", "Another", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(one_document(&out)["created"], false);
}

#[test]
fn the_command_list_gives_one_line_a_command() {
    let repo = Repo::new();
    let out = repo
        .goal()
        .arg("--help")
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    let text = stdout(&out);
    let list: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(list.len() > 20, "{text}");
    // A line of its own for each command: none wraps onto a line of its own.
    let wrapped: Vec<&&str> = list
        .iter()
        .filter(|l| !l.starts_with("  ") || l.starts_with("   "))
        .collect();
    assert!(wrapped.is_empty(), "{wrapped:?}\n{text}");
    // The detail is in each command's own --help.
    let init = stdout(&repo.goal().args(["init", "--help"]).output().unwrap());
    assert!(init.contains("--replace"), "{init}");
    let hook = stdout(&repo.goal().args(["hook", "--help"]).output().unwrap());
    assert!(hook.contains("`goal hooks`"), "{hook}");
}

/// Every exit code the binary returns, each from a command that returns it: 0 done, 1 a
/// negative answer, 2 bad input, a test command's own code passed on by `verify`. (128 + a
/// signal: tests/terminal.rs stops commands with SIGINT and SIGTERM.)
#[test]
fn every_exit_code_the_binary_returns() {
    let repo = Repo::new();
    let none: &[&str] = &[];
    let cases: &[(&[&str], i32, &[&str])] = &[
        (&["status"], 1, &["no active goal"]),
        (&["init", "x", "-c", "a passes"], 0, none),
        (
            &["status", "--bogus"],
            2,
            &["unexpected argument '--bogus'"],
        ),
        (&["verify", "-c", "9"], 2, &["no criterion 9"]),
        (&["done"], 1, &["not proven done"]),
        (
            &["verify", "--", "sh", "-c", "echo 1 failed; exit 3"],
            3,
            none,
        ),
    ];
    for (args, code, words) in cases {
        let out = repo.goal().args(*args).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {err}");
        for w in *words {
            assert!(err.contains(w), "{args:?}: {err}");
        }
    }
}
