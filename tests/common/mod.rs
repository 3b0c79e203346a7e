//! A hermetic git repository and helpers to drive `goal` and `git` in it.

pub mod git_server;
pub mod source;
pub mod stand_in;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use tempfile::TempDir;

pub const NOW: &str = "2026-11-30T15:04:05Z";
/// Where a goal lives in a repository, and its evidence ledger.
pub const GOAL: &str = ".agents/goal/GOAL.md";
pub const EVIDENCE: &str = ".agents/goal/evidence.jsonl";

/// The environment every child process of a test gets, built from nothing (as jj's
/// `TestEnvironment` does): `PATH` (with goal's binary first), a temporary `HOME` holding `TMPDIR`, no user or
/// system git config, fixed dates and clock, no colour. Nothing of the calling environment leaks
/// in — not what git exported to a calling hook (GIT_DIR, GIT_INDEX_FILE, …), nor a user's own
/// GOAL_FILE. It owns the temporary `HOME` and hands out commands (`goal`, `git`, any program)
/// with that environment and no other.
pub struct TestEnv {
    home: TempDir,
    vars: Vec<(OsString, OsString)>,
}

impl TestEnv {
    pub fn new() -> TestEnv {
        let home = TempDir::new().unwrap();
        let bin_dir = Path::new(env!("CARGO_BIN_EXE_goal"))
            .parent()
            .unwrap()
            .to_path_buf();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![bin_dir];
        paths.extend(pytest_dir().iter().cloned());
        paths.extend(std::env::split_paths(&path));
        let mut vars: Vec<(OsString, OsString)> = vec![
            ("PATH".into(), std::env::join_paths(paths).unwrap()),
            ("HOME".into(), home.path().into()),
            // The kept worktree of red runs lives under the cache folder: inside this HOME.
            ("XDG_CACHE_HOME".into(), home.path().join(".cache").into()),
            // Temporary files of goal and of everything it starts stay inside this HOME too: a
            // test sees no other test's and leaves none behind.
            ("TMPDIR".into(), home.path().join("tmp").into()),
        ];
        std::fs::create_dir_all(home.path().join("tmp")).unwrap();
        vars.extend(
            [
                ("GIT_CONFIG_GLOBAL", "/dev/null"),
                ("GIT_CONFIG_NOSYSTEM", "1"),
                ("TZ", "UTC"),
                ("GIT_AUTHOR_DATE", "@1796051045 +0000"),
                ("GIT_COMMITTER_DATE", "@1796051045 +0000"),
                ("GOAL_NOW", NOW),
                ("NO_COLOR", "1"),
            ]
            .map(|(key, value)| (key.into(), value.into())),
        );
        TestEnv { home, vars }
    }

    /// The temporary `HOME` (also a scratch folder outside any repository).
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// `program` in `dir`, with this environment and nothing else.
    pub fn command(
        &self,
        program: impl AsRef<std::ffi::OsStr>,
        dir: &Path,
    ) -> std::process::Command {
        let mut cmd = std::process::Command::new(program);
        cmd.env_clear().envs(self.vars.iter().map(|(k, v)| (k, v)));
        cmd.current_dir(dir);
        cmd
    }

    /// The `goal` under test in `dir`.
    pub fn goal_std(&self, dir: &Path) -> std::process::Command {
        self.command(env!("CARGO_BIN_EXE_goal"), dir)
    }

    /// The `goal` under test in `dir`, for assertions.
    pub fn goal(&self, dir: &Path) -> Command {
        Command::from_std(self.goal_std(dir))
    }

    /// `git` in `dir`: never a bare `Command::new("git")`, which would inherit a calling hook's
    /// GIT_DIR and GIT_INDEX_FILE.
    pub fn git(&self, dir: &Path) -> std::process::Command {
        self.command("git", dir)
    }
}

/// A git repository in a temporary work folder, in its own [`TestEnv`].
pub struct Repo {
    pub dir: TempDir,
    pub env: TestEnv,
}

/// The pytest the red-before-green tests run (they drive a real Python package).
const PYTEST: &str = "9.2.0";

/// Where a `pytest` comes from when `PATH` has none: a venv the suite makes once per machine
/// (`$GOAL_TEST_CACHE`, else `~/.cache/goal-tests`, `pytest-<version>`), so that `cargo test
/// --locked` needs nothing installed by hand (only python3 and the registry). None when `PATH` has one already.
fn pytest_dir() -> &'static Option<PathBuf> {
    static DIR: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        if std::env::split_paths(&path).any(|d| d.join("pytest").is_file()) {
            return None;
        }
        let cache = std::env::var_os("GOAL_TEST_CACHE")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/goal-tests"))
            })?;
        let venv = cache.join(format!("pytest-{PYTEST}"));
        let bin = venv.join("bin");
        if bin.join("pytest").is_file() {
            return Some(bin);
        }
        // One maker at a time across the test processes (an OS lock), the others wait for it.
        std::fs::create_dir_all(&cache).ok()?;
        let lock = std::fs::File::create(cache.join(format!("pytest-{PYTEST}.lock"))).ok()?;
        lock.lock().ok()?;
        if bin.join("pytest").is_file() {
            return Some(bin);
        }
        let _ = std::fs::remove_dir_all(&venv);
        let made = std::process::Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success())
            && std::process::Command::new(bin.join("pip"))
                .args(["install", "--quiet", "--disable-pip-version-check"])
                .arg(format!("pytest=={PYTEST}"))
                .status()
                .is_ok_and(|s| s.success());
        if !made {
            eprintln!(
                "tests: no pytest on PATH and none could be installed into {}",
                venv.display()
            );
            let _ = std::fs::remove_dir_all(&venv);
            return None;
        }
        Some(bin)
    })
}

impl Repo {
    /// A new repository with an identity and one commit.
    pub fn new() -> Repo {
        let repo = Repo::empty();
        repo.write("README.md", "# project\n");
        repo.git(&["add", "README.md"]);
        repo.git(&["commit", "-q", "-m", "initial"]);
        repo
    }

    /// A new repository with an identity and no commit (an unborn branch).
    pub fn empty() -> Repo {
        let repo = Repo {
            dir: TempDir::new().unwrap(),
            env: TestEnv::new(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test"]);
        repo.git(&["config", "user.email", "test@example.invalid"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The environment's temporary `HOME`.
    pub fn home(&self) -> &Path {
        self.env.home()
    }

    /// `goal` in the repository.
    pub fn goal(&self) -> Command {
        self.goal_in(self.path())
    }

    /// Run `goal ARGS` in the repository and assert that it succeeds.
    #[track_caller]
    pub fn ok(&self, args: &[&str]) {
        self.goal().args(args).assert().success();
    }

    /// `goal ARGS` is refused: it exits with `code` and its stderr says each of `words` (the
    /// reason, so that a crash or a refusal for another reason does not pass). Returns stderr.
    #[track_caller]
    pub fn refused(&self, args: &[&str], code: i32, words: &[&str]) -> String {
        let out = self.goal().args(args).output().unwrap();
        assert_refused(&format!("goal {args:?}"), &out, Some(code), words)
    }

    /// `git ARGS` (a commit the installed hooks refuse, say) fails, and its stderr says each of
    /// `words`. Returns stderr.
    #[track_caller]
    pub fn git_refused(&self, args: &[&str], words: &[&str]) -> String {
        let out = self.git_output(args);
        assert_refused(&format!("git {args:?}"), &out, None, words)
    }

    pub fn goal_in(&self, dir: &Path) -> Command {
        self.env.goal(dir)
    }

    /// Run a shell command line on a pseudo-terminal (util-linux `script`) in the repository,
    /// with the hermetic environment changed by `env` (`None` removes a variable), typing `input`
    /// on it; what it printed, without `\r`. Panics when there is no `script` here: a test
    /// that cannot make a terminal must fail, not pass having checked nothing (`script` is in
    /// Debian's bsdutils; .ci/run installs it).
    #[allow(dead_code)]
    pub fn on_a_tty(
        &self,
        line: &str,
        env: &[(&str, Option<&str>)],
        input: Option<&str>,
    ) -> String {
        use std::io::{Read, Write};
        use std::process::Stdio;
        if let Err(e) = std::process::Command::new("script")
            .arg("--version")
            .output()
        {
            panic!("no `script` to make a pseudo-terminal ({e}): install bsdutils/util-linux");
        }
        let mut cmd = self.command("script");
        for (key, value) in env {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        // `script`'s stdin stays open (and silent) unless an answer is typed.
        let mut child = cmd
            .args(["-qec", line, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        if let Some(input) = input {
            stdin.write_all(input.as_bytes()).unwrap();
        }
        let mut out = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        drop(stdin);
        child.wait().unwrap();
        out.replace('\r', "")
    }

    /// A std command for `goal` (for spawning concurrent processes).
    pub fn goal_std(&self) -> std::process::Command {
        self.env.goal_std(self.path())
    }

    /// A hermetic command for any program, in the repository.
    #[allow(dead_code)]
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
        self.env.command(program, self.path())
    }

    pub fn git_output(&self, args: &[&str]) -> Output {
        self.git_in(self.path(), args)
    }

    pub fn git_in(&self, dir: &Path, args: &[&str]) -> Output {
        self.git_cmd().args(args).current_dir(dir).output().unwrap()
    }

    /// A hermetic `git` command in the repository, for callers that add their own environment
    /// (a temporary index, say): never a bare `Command::new("git")`, which would inherit a
    /// calling hook's GIT_DIR and GIT_INDEX_FILE.
    pub fn git_cmd(&self) -> std::process::Command {
        self.env.git(self.path())
    }

    /// The tree id `goal verify` binds evidence to for the working tree as it is now, read from
    /// the record of a passing `--check` run (which stays in the ledger).
    pub fn tree_by_goal(&self) -> String {
        let out = self
            .goal()
            .args(["verify", "--json", "--check", "--", "sh", "-c", "exit 0"])
            .output()
            .unwrap();
        json(&out)["record"]["tree"].as_str().unwrap().to_string()
    }

    /// The working tree's tree id without .agents/goal, as `git add -A && git write-tree` computes
    /// it in a fresh temporary index (git hashes every file, trusting no stat data): the referee
    /// for the tree ids `goal` records.
    pub fn tree_by_git(&self) -> String {
        let index = self.path().join(".git/referee-index");
        let _ = std::fs::remove_file(&index);
        let run = |args: &[&str]| {
            let out = self
                .git_cmd()
                .args(args)
                .env("GIT_INDEX_FILE", &index)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", stderr(&out));
            String::from_utf8(out.stdout).unwrap()
        };
        run(&["add", "-A"]);
        run(&[
            "rm",
            "-r",
            "-q",
            "--cached",
            "--ignore-unmatch",
            ".agents/goal",
        ]);
        let tree = run(&["write-tree"]).trim().to_string();
        std::fs::remove_file(&index).unwrap();
        tree
    }

    /// Run git and return stdout; panics when git fails.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_output(args);
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path().join(rel).exists()
    }

    pub fn goal_md(&self) -> String {
        self.read(".agents/goal/GOAL.md")
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    pub fn commit_count(&self) -> usize {
        match self.git_output(&["rev-list", "--count", "HEAD"]) {
            o if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().parse().unwrap(),
            _ => 0,
        }
    }

    /// The trailers of a commit as `git interpret-trailers --parse` reads them.
    pub fn trailers(&self, rev: &str) -> Vec<(String, String)> {
        let message = self.git(&["log", "-1", "--format=%B", rev]);
        let mut child = self
            .git_cmd()
            .args(["interpret-trailers", "--parse"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(message.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| {
                l.split_once(": ")
                    .map(|(k, v)| (k.to_string(), v.to_string()))
            })
            .collect()
    }

    pub fn trailer(&self, rev: &str, key: &str) -> Option<String> {
        self.trailers(rev)
            .into_iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// `git fsck` finds no error.
    pub fn assert_fsck(&self) {
        let out = self.git_output(&["fsck", "--no-dangling"]);
        assert!(
            out.status.success(),
            "git fsck: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !String::from_utf8_lossy(&out.stderr).contains("error"),
            "git fsck: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    pub fn status_porcelain(&self) -> String {
        self.git(&["status", "--porcelain"])
    }

    /// A linked worktree on a new branch `side`, in a temporary folder kept alive by the guard.
    pub fn add_worktree(&self) -> (TempDir, PathBuf) {
        let guard = TempDir::new().unwrap();
        let path = guard.path().join("wt");
        self.git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            "side",
            path.to_str().unwrap(),
        ]);
        (guard, path)
    }

    /// The flags of each `goal log --json` row, oldest first.
    pub fn log_flags(&self) -> Vec<Vec<String>> {
        let rows = json(&self.goal().args(["log", "--json"]).output().unwrap());
        rows.as_array()
            .unwrap()
            .iter()
            .map(|r| {
                r["flags"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f.as_str().unwrap().to_string())
                    .collect()
            })
            .collect()
    }

    /// A goal with criteria, committed.
    pub fn init_goal(&self, criteria: &[&str]) {
        let mut cmd = self.goal();
        cmd.args(["init", "Make the thing work"]);
        for c in criteria {
            cmd.args(["-c", c]);
        }
        cmd.assert().success();
    }

    #[allow(dead_code)]
    /// A test script printing a plain summary; exits non-zero when any test fails.
    pub fn test_script(&self, name: &str, passed: u32, failed: u32) {
        self.write(
            name,
            &format!(
                "#!/bin/sh\necho \"{passed} passed, {failed} failed\"\nexit {}\n",
                u32::from(failed > 0)
            ),
        );
    }
}

/// A new repository with the scripts a test run is made of, committed (`pytest-q.sh`: one test
/// passed, in pytest's `-q` form; `fail.sh`: one failed; `none-q.sh`: no tests ran; `pass.sh`: two
/// passed), and a goal with `criteria`.
pub fn project(criteria: &[&str]) -> Repo {
    let repo = Repo::new();
    repo.write(
        "pytest-q.sh",
        "#!/bin/sh\necho '.'\necho '1 passed in 0.01s'\n",
    );
    repo.write(
        "fail.sh",
        "#!/bin/sh\necho '1 failed, 1 passed in 0.02s'\nexit 1\n",
    );
    repo.write("none-q.sh", "#!/bin/sh\necho 'no tests ran in 0.01s'\n");
    repo.test_script("pass.sh", 2, 0);
    commit_all(&repo, "scripts");
    repo.init_goal(criteria);
    repo
}

/// `goal status --json`.
pub fn status(repo: &Repo) -> serde_json::Value {
    json(&repo.goal().args(["status", "--json"]).output().unwrap())
}

/// Each criterion's state (`open`, `proven`, `stale`, `failing`) as `goal status --json` says it.
pub fn states(repo: &Repo) -> Vec<String> {
    status(repo)["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["state"].as_str().unwrap().to_string())
        .collect()
}

/// Commit everything in the working tree (the project's own files, before the goal's work).
pub fn commit_all(repo: &Repo, message: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", message]);
}

/// The newest record of evidence.jsonl that a command ran for itself: not a base run, which a
/// red `goal verify` keeps after its own record for `goal done`.
pub fn last_record(repo: &Repo) -> serde_json::Value {
    repo.read(EVIDENCE)
        .lines()
        .rev()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["base_run"] != true)
        .unwrap()
}

/// The exit code of `goal ARGS`.
pub fn code(repo: &Repo, args: &[&str]) -> Option<i32> {
    repo.goal().args(args).output().unwrap().status.code()
}

/// `junit.sh`, which writes a JUnit report of two passing tests to `report.xml`; returns the
/// report's text.
pub fn junit_script(repo: &Repo) -> &'static str {
    let report =
        r#"<testsuite name="t" tests="2"><testcase name="a"/><testcase name="b"/></testsuite>"#;
    repo.write(
        "junit.sh",
        &format!("#!/bin/sh\nprintf '%s' '{report}' > report.xml\n"),
    );
    report
}

pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// `output` is a refusal: exit `code` (any failure when `None`) with each of `words` on stderr.
#[track_caller]
pub fn assert_refused(what: &str, out: &Output, code: Option<i32>, words: &[&str]) -> String {
    let err = stderr(out);
    match code {
        Some(code) => assert_eq!(
            out.status.code(),
            Some(code),
            "{what}: expected exit {code}\nstdout: {}\nstderr: {err}",
            stdout(out)
        ),
        None => assert!(
            !out.status.success(),
            "{what} went through\nstdout: {}\nstderr: {err}",
            stdout(out)
        ),
    }
    assert!(
        !words.is_empty(),
        "{what}: name the reason the refusal gives"
    );
    for word in words {
        assert!(err.contains(word), "{what}: stderr lacks {word:?}:\n{err}");
    }
    err
}

/// `text` with the repository's and the home folder's temporary paths as `[REPO]` and `[HOME]`,
/// for snapshots.
#[allow(dead_code)]
pub fn normalise(repo: &Repo, text: &str) -> String {
    let mut text = text.to_string();
    for (dir, name) in [(repo.path(), "[REPO]"), (repo.home(), "[HOME]")] {
        if let Ok(real) = dir.canonicalize() {
            text = text.replace(real.to_str().unwrap(), name);
        }
        text = text.replace(dir.to_str().unwrap(), name);
    }
    text
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[allow(dead_code)]
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The real Claude Code CLI (npm, installed by .ci/run into tests/fixtures/agents/claude/node_modules), offline
/// against tests/fixtures/agents/claude/fake_api.py. Skipped when it is not installed, unless GOAL_REQUIRE_CLAUDE
/// is set (CI sets it).
#[allow(dead_code)]
pub struct FakeApi {
    child: std::process::Child,
    pub port: String,
    pub log: PathBuf,
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[allow(dead_code)]
impl FakeApi {
    /// tests/fixtures/agents/claude/fake_api.py answering each session by `script`, logging to `log`.
    pub fn start(dir: &Path, script: &str, log: &Path, work_command: &str) -> FakeApi {
        FakeApi::judged(dir, script, log, work_command, "yes")
    }

    /// [`FakeApi::start`], answering the `/goal` judge's requests in turn by `judge` (JUDGE).
    pub fn judged(
        dir: &Path,
        script: &str,
        log: &Path,
        work_command: &str,
        judge: &str,
    ) -> FakeApi {
        use std::io::BufRead;
        let mut child = std::process::Command::new("python3")
            .arg(dir.join("fake_api.py"))
            .env("JUDGE", judge)
            .env("SCRIPT", script)
            .env("LOG", log)
            .env("WORK_COMMAND", work_command)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut port = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut port)
            .unwrap();
        FakeApi {
            child,
            port: port.trim().to_string(),
            log: log.to_path_buf(),
        }
    }

    /// The environment that points Claude Code at this stand-in, offline and quiet.
    pub fn claude_env(&self) -> Vec<(&'static str, String)> {
        vec![
            (
                "ANTHROPIC_BASE_URL",
                format!("http://127.0.0.1:{}", self.port),
            ),
            ("ANTHROPIC_API_KEY", "sk-ant-dummy".into()),
            ("DISABLE_TELEMETRY", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ]
    }

    /// The requests logged so far, one JSON object each.
    pub fn requests(&self) -> Vec<serde_json::Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// tests/fixtures/agents/claude, when Claude Code is installed there.
#[allow(dead_code)]
pub fn claude_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents/claude");
    if dir.join("node_modules/.bin/claude").exists() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("GOAL_REQUIRE_CLAUDE").is_none()
            && std::env::var_os("GOAL_REQUIRE_AGENT_CLIS").is_none(),
        "Claude Code is not installed: cd tests/fixtures/agents/claude && npm ci"
    );
    eprintln!("skipped: Claude Code is not installed (cd tests/fixtures/agents/claude && npm ci)");
    None
}
