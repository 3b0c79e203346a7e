//! goal's hooks under the real agent CLIs (codex 0.169.0, gemini 0.61.0, opencode 1.18.33, pinned
//! in tests/fixtures/agents/<cli>/), run offline against each CLI's stand-in API in its `hook`
//! mode: the stand-in model first answers "I am done." with the criterion open, and only once
//! goal's stop block is in the conversation runs WORK (which proves the criterion and runs `goal
//! done`), then answers again. So a session that ends proven was kept working by goal's hook, and
//! one where no hook runs ends after the first answer. Each test says how the host's trust was
//! given, or withheld.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::Repo;
use crate::common::stand_in::{StandIn, cli_dir, installed, path_with, project};

/// What the stand-in model runs once goal keeps it working: the agent's mark, a `--confirm`
/// from the agent's shell, then the proof and `goal done`.
const WORK: &str = "echo mark=${GOAL_AGENT:-GEMINI_CLI=$GEMINI_CLI}; goal done --confirm 2>&1 | head -2; echo hello > hello.txt && goal verify -c 1 && goal done";

fn bin(cli: &str) -> Option<PathBuf> {
    let bin = cli_dir(cli).join("node_modules/.bin").join(cli);
    installed(
        cli,
        &bin,
        &format!("cd tests/fixtures/agents/{cli} && npm ci"),
    )
}

/// The project with goal's integration for `host` committed.
fn integrated(host: &str) -> Repo {
    let repo = project();
    repo.ok(&["integrate", host]);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "agent host configuration"]);
    repo
}

fn stand_in(repo: &Repo, cli: &str) -> StandIn {
    StandIn::start(
        repo,
        &cli_dir(cli).join("fake_api.py"),
        "hook",
        &[("WORK_COMMAND", WORK)],
    )
}

/// The steps the stand-in model took, in order.
fn steps(api: &StandIn) -> Vec<String> {
    api.requests()
        .iter()
        .filter(|r| r["kind"] == "hook")
        .map(|r| r["step"].as_str().unwrap_or("").to_string())
        .collect()
}

fn explain(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The session was kept working by goal's stop hook (with goal's reason in the conversation),
/// proved the criterion under the agent's mark, and was let stop once done.
fn assert_kept_working_then_let_stop(
    repo: &Repo,
    api: &StandIn,
    (host, mark): (&str, &str),
    out: &Output,
) {
    assert_eq!(
        steps(api),
        ["stop-early", "work", "final"],
        "{}",
        explain(out)
    );
    let requests: Vec<_> = api
        .requests()
        .into_iter()
        .filter(|r| r["kind"] == "hook")
        .collect();
    assert_eq!(requests[0]["context"], true, "goal's context at the start");
    let outputs = requests[2]["outputs"].as_str().unwrap();
    assert!(outputs.contains(&format!("mark={mark}")), "{outputs}");
    assert!(
        outputs.contains("a confirmation is the person's"),
        "{outputs}"
    );
    assert!(
        outputs.contains(&format!("marked as the agent's ({host})")),
        "{outputs}"
    );
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("complete")
    );
    assert_eq!(repo.trailer("HEAD~1", "Assisted-by").as_deref(), Some(host));
    assert!(
        repo.git(&["log", "--format=%B"])
            .find("Signed-off-by")
            .is_none()
    );
    let status = repo.goal().arg("status").output().unwrap();
    let said = String::from_utf8_lossy(&status.stdout).to_string();
    assert!(
        said.contains(&format!("Agent host {host}: hooks installed, last ran 20")),
        "{said}"
    );
}

/// No hook ran: the model's first answer ended the session, the criterion is open, and `goal
/// status` says the host's hooks never ran and what the host's trust step is.
fn assert_no_hook_ran(repo: &Repo, api: &StandIn, host: &str, trust: &str, out: &Output) {
    assert_eq!(steps(api), ["stop-early"], "{}", explain(out));
    let first = api.requests().into_iter().find(|r| r["kind"] == "hook");
    assert_eq!(first.unwrap()["context"], false);
    let status = repo.goal().arg("status").output().unwrap();
    let said = String::from_utf8_lossy(&status.stdout).to_string();
    assert!(
        said.contains(&format!(
            "Agent host {host}: hooks installed, never ran: {trust}"
        )),
        "{said}"
    );
}

fn codex(repo: &Repo, bin: &Path, api: &StandIn, trusted: bool) -> Output {
    let home = repo.home().join("codex-home");
    std::fs::create_dir_all(&home).unwrap();
    let root = std::fs::canonicalize(repo.path()).unwrap();
    let mut config = format!("openai_base_url = \"http://127.0.0.1:{}/v1\"\n", api.port);
    if trusted {
        config.push_str(&format!(
            "[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            root.display()
        ));
    }
    std::fs::write(home.join("config.toml"), config).unwrap();
    let mut cmd = repo.env.command(bin, repo.path());
    cmd.env("PATH", path_with(&[bin.parent().unwrap()]))
        .env("CODEX_HOME", &home)
        .env("CODEX_API_KEY", "sk-offline-test")
        .args([
            "exec",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
        ]);
    if trusted {
        cmd.arg("--dangerously-bypass-hook-trust");
    }
    cmd.arg("Say hello")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// Trust: the project trusted by an entry in CODEX_HOME's config.toml (so .codex/ loads) and
/// the hooks by `--dangerously-bypass-hook-trust` (in place of `/hooks` in the TUI). `codex exec`
/// fires SessionStart, UserPromptSubmit and Stop at 0.169.0.
#[test]
fn codex_exec_is_kept_working_by_goals_stop_hook_until_done() {
    let Some(bin) = bin("codex") else { return };
    let repo = integrated("codex");
    let api = stand_in(&repo, "codex");
    let out = codex(&repo, &bin, &api, true);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert_kept_working_then_let_stop(&repo, &api, ("codex", "codex"), &out);
}

/// Neither the project nor the hooks trusted: codex runs no hook, says nothing of it, and goal
/// status says so.
#[test]
fn codex_without_trust_runs_no_hook_and_status_says_so() {
    let Some(bin) = bin("codex") else { return };
    let repo = integrated("codex");
    let api = stand_in(&repo, "codex");
    let out = codex(&repo, &bin, &api, false);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert_no_hook_ran(&repo, &api, "codex", "Codex loads a project's", &out);
}

fn gemini(repo: &Repo, bin: &Path, api: &StandIn, trusted: bool) -> Output {
    let home = repo.home();
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::write(
        home.join(".gemini/settings.json"),
        r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"maxAttempts": 1}}"#,
    )
    .unwrap();
    let tmp = home.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut cmd = repo.env.command(bin, repo.path());
    cmd.env("PATH", path_with(&[bin.parent().unwrap()]))
        .env("GEMINI_API_KEY", "offline-test-key")
        .env(
            "GOOGLE_GEMINI_BASE_URL",
            format!("http://127.0.0.1:{}", api.port),
        )
        .env("TMPDIR", &tmp)
        .env("GEMINI_CLI_NO_RELAUNCH", "true");
    if trusted {
        cmd.env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    } else {
        cmd.arg("--skip-trust");
    }
    cmd.args(["--yolo", "--output-format", "json", "-p", "Say hello"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// Trust: GEMINI_CLI_TRUST_WORKSPACE=true (the folder trusted, so .gemini/settings.json loads).
/// `gemini -p` fires SessionStart, BeforeAgent and AfterAgent at 0.61.0; AfterAgent's `deny`
/// sends goal's reason as the next prompt.
#[test]
fn gemini_is_kept_working_by_goals_after_agent_hook_until_done() {
    let Some(bin) = bin("gemini") else { return };
    let repo = integrated("gemini");
    let api = stand_in(&repo, "gemini");
    let out = gemini(&repo, &bin, &api, true);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert_kept_working_then_let_stop(&repo, &api, ("gemini", "GEMINI_CLI=1"), &out);
}

/// `--skip-trust` runs in the untrusted folder without its settings: no hook runs.
#[test]
fn gemini_without_trust_runs_no_hook_and_status_says_so() {
    let Some(bin) = bin("gemini") else { return };
    let repo = integrated("gemini");
    let api = stand_in(&repo, "gemini");
    let out = gemini(&repo, &bin, &api, false);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert_no_hook_ran(&repo, &api, "gemini", "Gemini CLI reads", &out);
}

/// A running `opencode serve`, killed when dropped.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// opencode has no trust step: its plugins load from the project. `opencode run` alone exits at
/// the first idle, before a plugin's next prompt is answered, so the session runs in `opencode
/// serve` (where the plugin lives) and `opencode run --attach` sends the first prompt; the test
/// then waits for the stand-in's last answer.
#[test]
fn opencode_is_kept_working_by_goals_plugin_until_done() {
    use std::io::BufRead;
    let Some(bin) = bin("opencode") else { return };
    let repo = integrated("opencode");
    let api = stand_in(&repo, "opencode");
    let config = repo.home().join("opencode.json");
    std::fs::write(&config, serde_json::json!({
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/claude-fake",
        "provider": {"fake": {"npm": "@ai-sdk/anthropic", "name": "Stand-in",
            "options": {"baseURL": format!("http://127.0.0.1:{}/v1", api.port), "apiKey": "sk-ant-dummy"},
            "models": {"claude-fake": {"name": "Claude (stand-in)"}}}}
    }).to_string()).unwrap();
    let opencode = |args: &[&str]| {
        let mut cmd = repo.env.command(&bin, repo.path());
        cmd.env("PATH", path_with(&[bin.parent().unwrap()]))
            .env("OPENCODE_CONFIG", &config)
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_SHARE", "1")
            .args(args)
            .stdin(std::process::Stdio::null());
        cmd
    };
    let mut child = opencode(&["serve", "--port", "0", "--hostname", "127.0.0.1"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let url = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| {
            l.split_whitespace()
                .find(|w| w.starts_with("http://"))
                .map(str::to_string)
        })
        .expect("opencode serve prints its address");
    let out = opencode(&["run", "--attach", &url, "--format", "json", "Say hello"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(180);
    while !steps(&api).contains(&"final".to_string()) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The last stop hook's answer (let stop) comes after the final answer: goal done's commit.
    while repo.trailer("HEAD~1", "Goal-Status").as_deref() != Some("complete")
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    drop(server);
    assert_kept_working_then_let_stop(&repo, &api, ("opencode", "opencode"), &out);
}
