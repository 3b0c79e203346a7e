//! The install channels: the Claude Code plugin (the real Claude Code CLI, offline against
//! tests/claude/fake_api.py), and the packages `scripts/package` builds (behind
//! GOAL_PACKAGE_TESTS, which .ci/run sets: it needs the release binary, npm and maturin).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{FakeApi, Repo, claude_dir, stderr, stdout};

const TRIGGER: &str = "my goal is to make the CSV importer skip malformed rows";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The folder of the `goal` under test, to put on PATH.
fn goal_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_goal"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The real `claude` CLI in the repository, offline against `api`, with PATH as given.
fn claude(repo: &Repo, dir: &Path, api: &FakeApi, path: &str, args: &[&str]) -> Output {
    repo.command(dir.join("node_modules/.bin/claude"))
        .env("PATH", path)
        .env(
            "ANTHROPIC_BASE_URL",
            format!("http://127.0.0.1:{}", api.port),
        )
        .env("ANTHROPIC_API_KEY", "sk-ant-dummy")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn with_goal_on_path() -> String {
    format!(
        "{}:{}",
        goal_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The model calls of the one session that had tools (not titles or quota checks).
fn main_calls(api: &FakeApi) -> Vec<serde_json::Value> {
    api.requests()
        .into_iter()
        .filter(|r| r["kind"] != "side")
        .collect()
}

fn explain(out: &Output) -> String {
    format!("stdout: {}\nstderr: {}", stdout(out), stderr(out))
}

/// The four behaviours of the settings-file adapter, from the plugin: the trigger prompt makes
/// the goal and its commit, the goal block reaches the model, the Stop hook keeps the agent
/// going, and lets it stop after goal.stopBlocks (3) blocks with no new iteration.
#[track_caller]
fn assert_the_plugin_drove_the_session(repo: &Repo, api: &FakeApi, out: &Output) {
    assert_eq!(out.status.code(), Some(0), "{}", explain(out));
    assert!(
        repo.goal_md()
            .contains("goal: \"make the CSV importer skip malformed rows\""),
        "{}",
        repo.goal_md()
    );
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "goal: init \"make the CSV importer skip malformed rows\""
    );
    assert_eq!(
        repo.trailer("HEAD", "Goal-Status").as_deref(),
        Some("in-progress")
    );
    let calls = main_calls(api);
    let sessions: std::collections::BTreeSet<String> = calls
        .iter()
        .map(|c| c["session"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sessions.len(), 1, "{calls:?}");
    assert_eq!(
        calls.len(),
        4,
        "the first answer and three Stop blocks: {calls:?}"
    );
    assert!(calls.iter().all(|c| c["goal_block"] == true), "{calls:?}");
    for call in &calls[1..] {
        let text = call["last_text"].as_str().unwrap();
        assert!(
            text.starts_with("Stop hook feedback:")
                && text.contains(
                    "The goal \"make the CSV importer skip malformed rows\" is not done (0/0 criteria proven, iteration 0)."
                ),
            "{text}"
        );
    }
}

#[test]
fn the_claude_code_plugin_loaded_with_plugin_dir_keeps_the_agent_on_the_goal() {
    let Some(dir) = claude_dir() else { return };
    let repo = Repo::new();
    let api = FakeApi::start(&dir, "say", &repo.home.path().join("api.jsonl"), "true");
    let plugin = root().join("plugins/goal");
    let out = claude(
        &repo,
        &dir,
        &api,
        &with_goal_on_path(),
        &["-p", "--plugin-dir", plugin.to_str().unwrap(), TRIGGER],
    );
    assert_the_plugin_drove_the_session(&repo, &api, &out);
}

#[test]
fn the_claude_code_plugin_does_nothing_without_goal_on_path() {
    let Some(dir) = claude_dir() else { return };
    let repo = Repo::new();
    let api = FakeApi::start(&dir, "say", &repo.home.path().join("api.jsonl"), "true");
    let plugin = root().join("plugins/goal");
    // git and sh, but no goal.
    let path = "/usr/local/bin:/usr/bin:/bin";
    let found = repo
        .command("sh")
        .env("PATH", path)
        .args(["-c", "command -v goal"])
        .output()
        .unwrap();
    assert!(!found.status.success(), "a goal is installed in {path}");
    let out = claude(
        &repo,
        &dir,
        &api,
        path,
        &["-p", "--plugin-dir", plugin.to_str().unwrap(), TRIGGER],
    );
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert_eq!(stdout(&out).trim(), "ok");
    assert!(!repo.exists(".agents/goal"));
    assert_eq!(repo.commit_count(), 1);
    let calls = main_calls(&api);
    assert_eq!(calls.len(), 1, "no Stop block: {calls:?}");
    assert_eq!(calls[0]["goal_block"], false);
}

/// The repository is a marketplace: `claude plugin marketplace add <clone>` and
/// `claude plugin install goal@goal` (both offline from a local folder), then a plain `claude -p`.
#[test]
fn the_repository_is_a_marketplace_whose_goal_plugin_installs_and_runs() {
    let Some(dir) = claude_dir() else { return };
    let repo = Repo::new();
    let api = FakeApi::start(&dir, "say", &repo.home.path().join("api.jsonl"), "true");
    let path = with_goal_on_path();
    for args in [
        &["plugin", "validate", root().to_str().unwrap()][..],
        &[
            "plugin",
            "validate",
            root().join("plugins/goal").to_str().unwrap(),
        ],
        &["plugin", "marketplace", "add", root().to_str().unwrap()],
        &["plugin", "install", "goal@goal"],
    ] {
        let out = claude(&repo, &dir, &api, &path, args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "claude {args:?}: {}",
            explain(&out)
        );
    }
    let cached = repo
        .home
        .path()
        .join(".claude/plugins/cache/goal/goal/0.1.0/hooks/hooks.json");
    assert_eq!(
        std::fs::read_to_string(&cached).unwrap(),
        goal::claude_hooks::plugin_hooks(),
        "the installed plugin carries the generated hooks file"
    );
    let out = claude(&repo, &dir, &api, &path, &["-p", TRIGGER]);
    assert_the_plugin_drove_the_session(&repo, &api, &out);
}

/// The versions in the plugin's and the marketplace's manifests are the crate's.
#[test]
fn the_plugin_manifests_carry_the_crate_version() {
    let read = |rel: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(root().join(rel)).unwrap()).unwrap()
    };
    let version = env!("CARGO_PKG_VERSION");
    let plugin = read("plugins/goal/.claude-plugin/plugin.json");
    assert_eq!(plugin["name"], "goal");
    assert_eq!(plugin["version"], version);
    let market = read(".claude-plugin/marketplace.json");
    assert_eq!(market["plugins"][0]["name"], "goal");
    assert_eq!(market["plugins"][0]["source"], "./plugins/goal");
    assert_eq!(market["plugins"][0]["version"], version);
}

/// A goal with one criterion, ticked by hand and staged: a commit the gate refuses.
fn staged_lie(repo: &Repo) {
    repo.init_goal(&["a passes"]);
    let md = repo.goal_md().replace("- [ ] a passes", "- [x] a passes");
    repo.write(crate::support::GOAL, &md);
    repo.git(&["add", "-A"]);
}

/// `git commit` with PATH as given; its output.
fn commit_with_path(repo: &Repo, path: &str) -> Output {
    repo.git_cmd()
        .env("PATH", path)
        .args(["commit", "-q", "-m", "lie"])
        .output()
        .unwrap()
}

const NO_GOAL_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

#[test]
fn installed_shims_call_the_goal_that_installed_them_by_its_path() {
    let repo = Repo::new();
    repo.ok(&["hooks", "install"]);
    let exe = Path::new(env!("CARGO_BIN_EXE_goal"))
        .canonicalize()
        .unwrap();
    for hook in ["pre-commit", "commit-msg"] {
        let text = repo.read(&format!(".git/hooks/{hook}"));
        assert!(
            text.contains(&format!("goal_hook_bin='{}'\n", exe.display())),
            "{text}"
        );
        assert!(!text.contains("@GOAL_BIN@"), "{text}");
    }
    // No goal on PATH: the shim still runs this goal, whose gate refuses the lie.
    staged_lie(&repo);
    let out = commit_with_path(&repo, NO_GOAL_PATH);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("criterion 1 \"a passes\" is ticked without proof"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        repo.commit_count(),
        2,
        "only the goal's init commit was added"
    );
}

#[test]
fn a_shim_whose_goal_is_gone_falls_back_to_the_goal_on_path() {
    let repo = Repo::new();
    repo.ok(&["hooks", "install"]);
    let exe = Path::new(env!("CARGO_BIN_EXE_goal"))
        .canonicalize()
        .unwrap();
    for hook in ["pre-commit", "commit-msg"] {
        let rel = format!(".git/hooks/{hook}");
        let text = repo
            .read(&rel)
            .replace(&format!("'{}'", exe.display()), "'/nonexistent/goal'");
        repo.write(&rel, &text);
    }
    staged_lie(&repo);
    // With goal on PATH: its gate refuses.
    let on_path = format!("{}:{NO_GOAL_PATH}", goal_dir().display());
    let out = commit_with_path(&repo, &on_path);
    assert!(
        stderr(&out).contains("criterion 1 \"a passes\" is ticked without proof"),
        "{}",
        stderr(&out)
    );
    // Without any goal: the shim's own refusal for a commit that changes the goal files.
    let out = commit_with_path(&repo, NO_GOAL_PATH);
    assert!(
        stderr(&out).contains("its gate needs `goal` on PATH"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.commit_count(), 2);
}
