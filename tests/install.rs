//! The install channels: the Claude Code plugin (the real Claude Code CLI, offline against
//! tests/fixtures/agents/claude/fake_api.py), and the packages `scripts/package` builds (behind
//! GOAL_PACKAGE_TESTS, which .ci/run sets: it needs the release binary, npm and maturin).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{FakeApi, Repo, claude_dir, stderr, stdout};

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
        .envs(api.claude_env())
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
                    "The goal \"make the CSV importer skip malformed rows\" is not done (0/0 criteria proven, iteration 0, goal's stop block "
                ),
            "{text}"
        );
    }
}

#[test]
fn the_claude_code_plugin_loaded_with_plugin_dir_keeps_the_agent_on_the_goal() {
    let Some(dir) = claude_dir() else { return };
    let repo = Repo::new();
    let api = FakeApi::start(&dir, "say", &repo.home().join("api.jsonl"), "true");
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
    let api = FakeApi::start(&dir, "say", &repo.home().join("api.jsonl"), "true");
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
    let api = FakeApi::start(&dir, "say", &repo.home().join("api.jsonl"), "true");
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
        .home()
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
    repo.write(crate::common::GOAL, &md);
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

/// The `goal` under test, as the OS names the running binary.
fn this_goal() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_goal"))
        .canonicalize()
        .unwrap()
}

/// The gate refused the commit of [`staged_lie`] (goal's own words, not the shim's).
#[track_caller]
fn assert_gate_refused(out: &Output) {
    assert!(!out.status.success(), "{}", explain(out));
    assert!(
        stderr(out).contains("criterion 1 \"a passes\" is ticked without proof"),
        "{}",
        stderr(out)
    );
}

#[test]
fn installed_shims_call_the_goal_that_installed_them_by_its_path() {
    let repo = Repo::new();
    repo.ok(&["hooks", "install"]);
    let exe = this_goal();
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
    assert_gate_refused(&out);
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
    let exe = this_goal();
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
    assert_gate_refused(&out);
    // Without any goal: the shim's own refusal for a commit that changes the goal files.
    let out = commit_with_path(&repo, NO_GOAL_PATH);
    assert!(
        stderr(&out).contains("its gate needs `goal` on PATH"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.commit_count(), 2);
}

/// The packaging test runs only where GOAL_PACKAGE_TESTS is set (.ci/run sets it, after
/// `cargo build --release --locked`): it needs the release binary, npm, python3 with venv and
/// maturin.
fn packaging() -> bool {
    if std::env::var_os("GOAL_PACKAGE_TESTS").is_some() {
        return true;
    }
    eprintln!(
        "skipped: set GOAL_PACKAGE_TESTS=1 (after `cargo build --release --locked`) to build and install the packages"
    );
    false
}

/// A hermetic command with only `dirs` and the system folders on PATH.
fn run_in(repo: &Repo, program: &Path, args: &[&str], dirs: &[&Path]) -> Output {
    let mut path: Vec<PathBuf> = dirs.iter().map(|d| d.to_path_buf()).collect();
    path.extend(std::env::split_paths(NO_GOAL_PATH));
    repo.command(program)
        .env("PATH", std::env::join_paths(path).unwrap())
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[track_caller]
fn ok(out: Output, what: &str) -> String {
    assert_eq!(out.status.code(), Some(0), "{what}: {}", explain(&out));
    stdout(&out)
}

/// The installed `goal` (a launcher or the binary itself) answers --version and runs the demo,
/// and the hook shims it installs call `native` by its path, with no goal on PATH at commit time.
fn check_installed(goal: &Path, native: &Path, bin_dir: &Path) {
    let version = format!("goal {}\n", env!("CARGO_PKG_VERSION"));
    let scratch = Repo::new();
    assert_eq!(
        ok(
            run_in(&scratch, goal, &["--version"], &[bin_dir]),
            "--version"
        ),
        version
    );
    let demo_dir = scratch.home().join("demo");
    let demo = ok(
        run_in(
            &scratch,
            goal,
            &["demo", "--dir", demo_dir.to_str().unwrap()],
            &[bin_dir],
        ),
        "goal demo",
    );
    assert!(demo.contains("goal done"), "{demo}");
    assert_eq!(
        scratch
            .git_in(
                &demo_dir,
                &[
                    "log",
                    "-1",
                    "--format=%(trailers:key=Goal-Status,valueonly)"
                ]
            )
            .stdout,
        b"complete\n\n"
    );
    // Hooks: installed through this goal, they name the native binary.
    let repo = Repo::new();
    ok(
        run_in(&repo, goal, &["hooks", "install"], &[bin_dir]),
        "goal hooks install",
    );
    let native = native.canonicalize().unwrap();
    let shim = repo.read(".git/hooks/pre-commit");
    assert!(
        shim.contains(&format!("goal_hook_bin='{}'\n", native.display())),
        "{shim}"
    );
    assert!(!shim.contains("goal.js"), "{shim}");
    staged_lie_with(&repo, goal, bin_dir);
    let out = commit_with_path(&repo, NO_GOAL_PATH);
    assert_gate_refused(&out);
}

/// `npm install -g` of local tarballs into `prefix`, offline.
fn npm_install(work: &Repo, prefix: &Path, flags: &[&str], tarballs: &[PathBuf]) {
    let out = work
        .command("npm")
        .args(["install", "-g", "--offline", "--no-audit", "--no-fund"])
        .args(flags)
        .arg("--prefix")
        .arg(prefix)
        .args(tarballs)
        .output()
        .unwrap();
    ok(out, "npm install -g");
}

/// [`staged_lie`] with the installed goal.
fn staged_lie_with(repo: &Repo, goal: &Path, bin_dir: &Path) {
    ok(
        run_in(
            repo,
            goal,
            &["init", "Make the thing work", "-c", "a passes"],
            &[bin_dir],
        ),
        "goal init",
    );
    let md = repo.goal_md().replace("- [ ] a passes", "- [x] a passes");
    repo.write(crate::common::GOAL, &md);
    repo.git(&["add", "-A"]);
}

/// `scripts/package` builds every artifact from the release binary; each installs offline into a
/// temporary prefix or venv and works from there.
#[test]
fn the_packages_install_offline_and_run_goal() {
    if !packaging() {
        return;
    }
    let started = std::time::Instant::now();
    let release = root().join("target/release/goal");
    assert!(
        release.is_file(),
        "build it first: cargo build --release --locked"
    );
    let version = env!("CARGO_PKG_VERSION");
    let work = Repo::new();
    // The hermetic HOME hides the toolchain (scripts/package asks rustc for the host): name it
    // as this test's own cargo found it.
    let home = PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let rustup = std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| home.join(".rustup").into());
    let cargo_home = std::env::var_os("CARGO_HOME").unwrap_or_else(|| home.join(".cargo").into());
    let toolchain = std::env::var_os("RUSTUP_TOOLCHAIN").unwrap_or_else(|| "stable".into());
    let out = work
        .command(root().join("scripts/package"))
        .env("RUSTUP_HOME", &rustup)
        .env("CARGO_HOME", &cargo_home)
        .env("RUSTUP_TOOLCHAIN", &toolchain)
        .env("GOAL_BIN", &release)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "scripts/package: {}",
        explain(&out)
    );
    let packaged = started.elapsed();
    let dir = root().join("target/package");
    let host = String::from_utf8(
        std::process::Command::new("rustc")
            .arg("-vV")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .lines()
    .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
    .unwrap();

    // Checksums: every artifact, and they verify.
    let sums = std::fs::read_to_string(dir.join("SHA256SUMS")).unwrap();
    let archive = format!("goal-{version}-{host}.tar.gz");
    let names: Vec<&str> = sums
        .lines()
        .map(|l| l.split("  ").nth(1).unwrap())
        .collect();
    for want in [
        archive.as_str(),
        &format!("goal-cli-{version}.tgz"),
        &format!("goal-cli-linux-x64-{version}.tgz"),
    ] {
        assert!(names.contains(&want), "{want} not in SHA256SUMS:\n{sums}");
    }
    let wheel = names
        .iter()
        .find(|n| n.starts_with(&format!("goal_cli-{version}-py3-none-")) && n.ends_with(".whl"))
        .unwrap_or_else(|| panic!("no wheel in SHA256SUMS:\n{sums}"))
        .to_string();
    let check = std::process::Command::new("sha256sum")
        .args(["--check", "--strict", "SHA256SUMS"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(check.status.success(), "{}", explain(&check));

    // The binstall archive: goal-<version>-<target>/goal, the release binary itself.
    let unpacked = work.home().join("archive");
    std::fs::create_dir_all(&unpacked).unwrap();
    ok(
        work.command("tar")
            .args([
                "-xzf",
                dir.join(&archive).to_str().unwrap(),
                "-C",
                unpacked.to_str().unwrap(),
            ])
            .output()
            .unwrap(),
        "tar",
    );
    let from_archive = unpacked.join(format!("goal-{version}-{host}/goal"));
    assert_eq!(
        std::fs::read(&from_archive).unwrap(),
        std::fs::read(&release).unwrap()
    );

    // npm: both tarballs into a temporary global prefix, offline.
    let prefix = work.home().join("npm-prefix");
    npm_install(
        &work,
        &prefix,
        &[],
        &[
            dir.join(format!("goal-cli-linux-x64-{version}.tgz")),
            dir.join(format!("goal-cli-{version}.tgz")),
        ],
    );
    let launcher = prefix.join("bin/goal");
    assert!(
        std::fs::read_link(&launcher)
            .unwrap()
            .ends_with("goal-cli/bin/goal.js"),
        "npm links the launcher"
    );
    let native = prefix.join("lib/node_modules/goal-cli-linux-x64/bin/goal");
    check_installed(&launcher, &native, &prefix.join("bin"));

    // The launcher without its platform package fails clearly.
    let bare = work.home().join("npm-bare");
    npm_install(
        &work,
        &bare,
        &["--omit=optional"],
        &[dir.join(format!("goal-cli-{version}.tgz"))],
    );
    let out = run_in(&work, &bare.join("bin/goal"), &["--version"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", explain(&out));
    assert!(
        stderr(&out).contains("the package goal-cli-linux-x64 that carries goal's binary for linux-x64 is not installed")
            && stderr(&out).contains("hint: "),
        "{}",
        stderr(&out)
    );
    assert_eq!(stdout(&out), "");

    // PyPI: the wheel into a temporary venv, offline; `goal` is the binary itself.
    let venv = work.home().join("venv");
    ok(
        work.command("python3")
            .arg("-m")
            .arg("venv")
            .arg(&venv)
            .output()
            .unwrap(),
        "python3 -m venv",
    );
    ok(
        work.command(venv.join("bin/pip"))
            .args(["install", "--no-index", "--quiet"])
            .arg(dir.join(&wheel))
            .output()
            .unwrap(),
        "pip install",
    );
    let from_wheel = venv.join("bin/goal");
    assert_eq!(
        std::fs::read(&from_wheel).unwrap(),
        std::fs::read(&release).unwrap()
    );
    check_installed(&from_wheel, &from_wheel, &venv.join("bin"));
    eprintln!(
        "packaging test: scripts/package {:.1} s, all {:.1} s",
        packaged.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}

/// `cargo binstall` fills [package.metadata.binstall]'s templates; filled for a target, they name
/// the archive scripts/package writes (`goal-<version>-<target>.tar.gz`, the packaging test checks
/// it is there) and the binary inside it.
#[test]
fn binstall_metadata_names_the_release_archives() {
    let toml = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let section = toml
        .split("[package.metadata.binstall]\n")
        .nth(1)
        .expect("Cargo.toml has [package.metadata.binstall]");
    let key = |name: &str| -> String {
        section
            .lines()
            .take_while(|l| !l.starts_with('['))
            .find_map(|l| l.strip_prefix(&format!("{name} = ")))
            .unwrap_or_else(|| panic!("no {name}"))
            .trim_matches('"')
            .to_string()
    };
    assert_eq!(key("pkg-fmt"), "tgz");
    let version = env!("CARGO_PKG_VERSION");
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-musl",
        "aarch64-apple-darwin",
    ] {
        let fill = |t: &str| {
            t.replace("{ repo }", "https://github.com/o/r")
                .replace("{ name }", env!("CARGO_PKG_NAME"))
                .replace("{ version }", version)
                .replace("{ target }", target)
                .replace("{ archive-suffix }", ".tar.gz")
                .replace("{ bin }", "goal")
                .replace("{ binary-ext }", "")
        };
        assert_eq!(
            fill(&key("pkg-url")),
            format!(
                "https://github.com/o/r/releases/download/v{version}/goal-{version}-{target}.tar.gz"
            )
        );
        assert_eq!(
            fill(&key("bin-dir")),
            format!("goal-{version}-{target}/goal")
        );
    }
}
