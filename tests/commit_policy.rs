//! goal's commits obey the repository's own policy, as `git commit` would: the user's hooks,
//! signing, goal files only in housekeeping commits, and file modes.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::{GOAL, Repo, stderr, stdout};

/// A pre-commit linter that refuses any staged file containing `breakpoint()` (spelt in two
/// halves, so that a linter committed with the work does not refuse itself).
const LINTER: &str = "#!/bin/sh\n\
if git grep --cached -l -F 'break''point()'; then\n\
  echo 'lint: a debugger call is left in' >&2\n\
  exit 1\n\
fi\n";

fn hook(repo: &Repo, rel: &str, script: &str) {
    repo.write(rel, script);
    let path = repo.path().join(rel);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn mode(repo: &Repo, rel: &str) -> u32 {
    std::fs::metadata(repo.path().join(rel))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

/// A goal with one criterion and a file of work the linter refuses.
fn goal_with_a_breakpoint() -> Repo {
    let repo = Repo::new();
    repo.init_goal(&["app runs"]);
    repo.write("app.py", "def run():\n    breakpoint()\n");
    repo
}

fn assert_refused_by_the_linter(repo: &Repo, out: &Output, head: &str, goal_md: &str) {
    assert_eq!(out.status.code(), Some(1), "{}", stderr(out));
    let err = stderr(out);
    assert!(err.contains("lint: a debugger call is left in"), "{err}");
    // The hint says to fix what the hook found, not how to get around the hook.
    assert!(
        err.contains("fix what the pre-commit hook reports"),
        "{err}"
    );
    assert!(!err.contains("--no-verify"), "{err}");
    assert_eq!(repo.head(), head);
    assert_eq!(repo.goal_md(), goal_md);
}

#[test]
fn a_pre_commit_linter_refuses_iterate_and_no_verify_gets_past_it() {
    let repo = goal_with_a_breakpoint();
    hook(&repo, ".git/hooks/pre-commit", LINTER);
    let (head, goal_md) = (repo.head(), repo.goal_md());

    let out = repo
        .goal()
        .args(["iterate", "-m", "step"])
        .output()
        .unwrap();
    assert_refused_by_the_linter(&repo, &out, &head, &goal_md);
    // The linter saw the file in what goal was about to commit; nothing was staged for real.
    assert!(stderr(&out).contains("app.py"), "{}", stderr(&out));
    assert_eq!(repo.git(&["diff", "--cached", "--name-only"]), "");

    let out = repo
        .goal()
        .args(["iterate", "--no-verify", "-m", "step"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(repo.trailer("HEAD", "Goal-Iteration").as_deref(), Some("1"));
    assert!(
        repo.git(&["show", "--name-only", "--format=", "HEAD"])
            .contains("app.py")
    );
    // Skipping the hooks leaves a trace: the trailer, goal log's flag, audit's list.
    assert_eq!(
        repo.trailer("HEAD", "Goal-Hooks").as_deref(),
        Some("skipped")
    );
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Hooks"),
        None,
        "init ran the hooks"
    );
    let rows = crate::common::json(&repo.goal().args(["log", "--json"]).output().unwrap());
    assert_eq!(
        rows[1]["flags"],
        serde_json::json!(["hooks-skipped"]),
        "{rows}"
    );
    assert_eq!(rows[0]["flags"], serde_json::json!([]), "{rows}");
    let audit = crate::common::json(&repo.goal().args(["audit", "--json"]).output().unwrap());
    assert_eq!(audit["commits"][1]["hooks_skipped"], true, "{audit}");
    assert_eq!(audit["commits"][0]["hooks_skipped"], false, "{audit}");
    let text = stdout(&repo.goal().arg("audit").output().unwrap());
    assert!(text.contains("step  [hooks-skipped]"), "{text}");
}

#[test]
fn a_husky_style_core_hooks_path_linter_runs_too() {
    let repo = goal_with_a_breakpoint();
    hook(&repo, ".husky/pre-commit", LINTER);
    repo.git(&["config", "core.hooksPath", ".husky"]);
    let (head, goal_md) = (repo.head(), repo.goal_md());
    let out = repo
        .goal()
        .args(["iterate", "-m", "step"])
        .output()
        .unwrap();
    assert_refused_by_the_linter(&repo, &out, &head, &goal_md);

    // Fixed, the same command goes through the same hook.
    repo.write("app.py", "def run():\n    pass\n");
    repo.ok(&["iterate", "-m", "step"]);
    assert_eq!(repo.trailer("HEAD", "Goal-Iteration").as_deref(), Some("1"));
}

#[test]
fn a_refusing_hook_on_a_housekeeping_commit_leaves_the_goal_files_as_they_were() {
    let repo = Repo::new();
    repo.init_goal(&["app runs"]);
    hook(
        &repo,
        ".git/hooks/commit-msg",
        "#!/bin/sh\necho 'policy: no goal commits today' >&2\nexit 1\n",
    );
    let (head, goal_md) = (repo.head(), repo.goal_md());
    let out = repo
        .goal()
        .args(["criteria", "add", "tests pass"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("policy: no goal commits today"));
    assert_eq!(repo.head(), head);
    assert_eq!(repo.goal_md(), goal_md);
    assert_eq!(repo.status_porcelain(), "");
}

#[test]
fn a_commit_msg_hook_edits_the_message_and_the_trailers_still_parse() {
    let repo = Repo::new();
    repo.init_goal(&["app runs"]);
    hook(
        &repo,
        ".git/hooks/commit-msg",
        "#!/bin/sh\nprintf '\\nChecked by the message hook.\\n' >> \"$1\"\n",
    );
    hook(
        &repo,
        ".git/hooks/post-commit",
        "#!/bin/sh\ngit rev-parse HEAD >> \"$(git rev-parse --git-dir)/post-commit-ran\"\n",
    );
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.ok(&["iterate", "-m", "step"]);

    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        message.contains("Checked by the message hook."),
        "{message}"
    );
    let trailers = repo.trailers("HEAD");
    assert!(
        trailers.contains(&("Goal-Iteration".into(), "1".into())),
        "{message}\n{trailers:?}"
    );
    assert!(
        trailers.contains(&("Goal-Action".into(), "iterate".into())),
        "{trailers:?}"
    );
    assert_eq!(repo.read(".git/post-commit-ran").trim(), repo.head());
}

#[test]
fn done_runs_the_hooks_on_both_commits_before_making_either() {
    let repo = Repo::new();
    repo.init_goal(&["app runs"]);
    repo.test_script("pass.sh", 1, 0);
    repo.ok(&["verify", "-c", "1", "--", "sh", "pass.sh"]);
    repo.ok(&["iterate", "-m", "tests pass"]);
    // Refuses the second commit only: the one whose message says done.
    hook(
        &repo,
        ".git/hooks/commit-msg",
        "#!/bin/sh\nif grep -q '^goal: done' \"$1\"; then echo 'policy: not today' >&2; exit 1; fi\n",
    );
    let (head, goal_md) = (repo.head(), repo.goal_md());
    let out = repo.goal().arg("done").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("policy: not today"));
    assert_eq!(repo.head(), head, "the first commit must not be made");
    assert_eq!(repo.goal_md(), goal_md);
    assert_eq!(repo.status_porcelain(), "");
}

/// Run `goal args` and kill it if it is not done within `limit`.
fn goal_within(repo: &Repo, args: &[&str], limit: Duration) -> Output {
    let mut child = repo
        .goal_std()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("goal {args:?} still running after {limit:?}: a deadlock");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn goals_own_hook_block_in_the_users_hook_file_neither_deadlocks_nor_gates_twice() {
    let repo = Repo::new();
    hook(
        &repo,
        ".git/hooks/pre-commit",
        "#!/bin/sh\necho \"user hook: gated=$GOAL_GATED_TREE\" >> \"$(git rev-parse --git-dir)/hook-log\"\n",
    );
    repo.ok(&["hooks", "install"]);
    let installed = repo.read(".git/hooks/pre-commit");
    assert!(installed.contains("hooks run pre-commit") && installed.contains("user hook"));
    repo.init_goal(&["app runs"]);
    repo.write("src/lib.rs", "pub fn a() {}\n");
    let out = goal_within(&repo, &["iterate", "-m", "step"], Duration::from_secs(30));
    assert!(out.status.success(), "{}", stderr(&out));

    // goal told the hook file which tree it had gated: the one committed.
    let log = repo.read(".git/hook-log");
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
    assert!(
        log.lines().last() == Some(&format!("user hook: gated={}", tree.trim())),
        "{log}"
    );

    // goal's block passes that tree at once; without the mark it holds it to the gate.
    let md = repo.goal_md().replace("- [ ] app runs", "- [x] app runs");
    repo.write(GOAL, &md);
    repo.git(&["add", GOAL]);
    let staged = repo.git(&["write-tree"]);
    let gated = repo
        .goal()
        .args(["hooks", "run", "pre-commit"])
        .env("GOAL_GATED_TREE", staged.trim())
        .output()
        .unwrap();
    assert!(gated.status.success(), "{}", stderr(&gated));
    let plain = repo
        .goal()
        .args(["hooks", "run", "pre-commit"])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(1), "{}", stderr(&plain));
}

/// An ssh key made for the test, set as the signing key, with an allowed-signers file.
fn ssh_signing(repo: &Repo) -> bool {
    let key = repo.home().join("id_ed25519");
    let made = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "test", "-f"])
        .arg(&key)
        .output();
    if !made.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped: no ssh-keygen");
        return false;
    }
    let public = std::fs::read_to_string(key.with_extension("pub")).unwrap();
    let allowed = repo.home().join("allowed_signers");
    std::fs::write(&allowed, format!("test@example.invalid {public}")).unwrap();
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingkey", key.to_str().unwrap()]);
    repo.git(&[
        "config",
        "gpg.ssh.allowedSignersFile",
        allowed.to_str().unwrap(),
    ]);
    repo.git(&["config", "commit.gpgsign", "true"]);
    true
}

#[test]
fn ssh_signed_goal_commits_verify() {
    let repo = Repo::new();
    if !ssh_signing(&repo) {
        return;
    }
    repo.init_goal(&["app runs"]);
    let out = repo.git_output(&["verify-commit", "HEAD"]);
    assert!(out.status.success(), "{}", stderr(&out));
    repo.write("src/lib.rs", "pub fn a() {}\n");
    repo.ok(&["iterate", "-m", "step"]);
    let out = repo.git_output(&["verify-commit", "HEAD"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(repo.trailer("HEAD", "Goal-Iteration").as_deref(), Some("1"));
    assert_eq!(repo.status_porcelain(), "");
    repo.assert_fsck();
}

#[test]
fn gpg_signed_goal_commits_verify_where_gpg_is_present() {
    if Command::new("gpg").arg("--version").output().is_err() {
        eprintln!("skipped: no gpg");
        return;
    }
    let repo = Repo::new();
    // A short path: gpg-agent's socket path has a length limit.
    let gnupg = tempfile::Builder::new()
        .prefix("gpg")
        .tempdir_in("/tmp")
        .unwrap();
    std::fs::set_permissions(gnupg.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let made = Command::new("gpg")
        .env("GNUPGHOME", gnupg.path())
        .args([
            "--batch",
            "--pinentry-mode",
            "loopback",
            "--passphrase",
            "",
            "--quick-gen-key",
            "Test <test@example.invalid>",
            "ed25519",
            "sign",
            "never",
        ])
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", stderr(&made));
    repo.git(&["config", "commit.gpgsign", "true"]);
    repo.git(&["config", "user.signingkey", "test@example.invalid"]);
    let result = std::panic::catch_unwind(|| {
        let out = repo
            .goal()
            .env("GNUPGHOME", gnupg.path())
            .args(["init", "Make the thing work", "-c", "app runs"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let mut verify = repo.git_cmd();
        verify
            .env("GNUPGHOME", gnupg.path())
            .args(["verify-commit", "HEAD"]);
        let out = verify.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    });
    // The agent this test's gpg started for its own home.
    let _ = Command::new("gpgconf")
        .env("GNUPGHOME", gnupg.path())
        .args(["--kill", "gpg-agent"])
        .output();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn a_missing_signing_key_commits_nothing_and_leaves_no_goal_behind() {
    let repo = Repo::new();
    repo.git(&["config", "gpg.format", "ssh"]);
    repo.git(&["config", "user.signingkey", "/nonexistent/id_ed25519"]);
    repo.git(&["config", "commit.gpgsign", "true"]);
    let head = repo.head();
    let out = repo
        .goal()
        .args(["init", "Make the thing work", "-c", "app runs"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("signing"), "{}", stderr(&out));
    assert_eq!(repo.head(), head);
    assert!(
        !repo.exists(".agents/goal"),
        "a goal folder was left behind"
    );
    assert!(!repo.exists(".agents"), "an .agents folder was left behind");
    assert_eq!(repo.status_porcelain(), "");
}

/// The paths a commit changed, as git lists them.
fn committed(repo: &Repo) -> Vec<String> {
    repo.git(&["show", "--name-only", "--format=", "HEAD"])
        .lines()
        .map(str::to_string)
        .collect()
}

fn staged(repo: &Repo) -> String {
    repo.git(&["diff", "--cached", "--name-only"])
}

#[test]
fn housekeeping_commits_hold_goal_files_only_and_leave_the_users_staging_alone() {
    let repo = Repo::new();
    repo.write("fourth.py", "print('not ready')\n");
    repo.git(&["add", "fourth.py"]);

    repo.init_goal(&["app runs"]);
    assert_eq!(committed(&repo), [GOAL]);
    assert_eq!(staged(&repo), "fourth.py\n");

    repo.ok(&["criteria", "add", "tests pass"]);
    assert_eq!(committed(&repo), [GOAL]);
    assert_eq!(staged(&repo), "fourth.py\n");

    repo.ok(&["block", "--reason", "waiting for the API key"]);
    assert_eq!(committed(&repo), [GOAL]);
    assert_eq!(staged(&repo), "fourth.py\n");

    repo.ok(&["resume"]);
    assert_eq!(committed(&repo), [GOAL]);
    assert_eq!(staged(&repo), "fourth.py\n");
    // The goal file is committed as on disk: nothing of goal's is left staged or modified.
    assert_eq!(repo.status_porcelain(), "A  fourth.py\n");
    repo.assert_fsck();
}

#[test]
fn iterate_prints_the_new_files_it_commits() {
    let repo = Repo::new();
    repo.init_goal(&["app runs"]);
    for i in 0..12 {
        repo.write(&format!("src/m{i:02}.rs"), "// new\n");
    }
    let out = repo
        .goal()
        .args(["iterate", "-m", "step"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("new files committed"), "{text}");
    assert!(
        text.contains("  src/m00.rs\n") && text.contains("  src/m09.rs\n"),
        "{text}"
    );
    assert!(!text.contains("src/m10.rs"), "{text}");
    assert!(text.contains("  and 2 more\n"), "{text}");
    assert!(!text.contains("GOAL.md"), "{text}");
}

/// `goal args` under umask 022.
fn goal_umask_022(repo: &Repo, args: &[&str]) {
    let out = repo
        .command("sh")
        .arg("-c")
        .arg("umask 022 && exec \"$0\" \"$@\"")
        .arg(Path::new(env!("CARGO_BIN_EXE_goal")))
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
}

#[test]
fn files_goal_creates_get_the_umask_mode_and_rewritten_files_keep_theirs() {
    let repo = Repo::new();
    repo.test_script("pass.sh", 1, 0);
    goal_umask_022(&repo, &["init", "Make the thing work", "-c", "app runs"]);
    assert_eq!(mode(&repo, GOAL), 0o644);
    goal_umask_022(&repo, &["verify", "-c", "1", "--", "sh", "pass.sh"]);
    assert_eq!(mode(&repo, ".agents/goal/evidence.jsonl"), 0o644);

    std::fs::set_permissions(
        repo.path().join(GOAL),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    goal_umask_022(&repo, &["block", "--reason", "waiting"]);
    assert_eq!(mode(&repo, GOAL), 0o755);
    assert!(repo.goal_md().contains("status: blocked"));

    repo.write(".claude/settings.json", "{\"model\": \"x\"}\n");
    std::fs::set_permissions(
        repo.path().join(".claude/settings.json"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    goal_umask_022(&repo, &["integrate", "claude"]);
    assert!(
        repo.read(".claude/settings.json")
            .contains("goal hook claude")
    );
    assert_eq!(mode(&repo, ".claude/settings.json"), 0o644);
}

#[test]
fn init_replace_runs_the_hooks_on_both_commits_before_abandoning_the_old_goal() {
    let repo = Repo::new();
    repo.init_goal(&["app runs"]);
    hook(
        &repo,
        ".git/hooks/commit-msg",
        "#!/bin/sh\nif grep -q '^goal: init' \"$1\"; then echo 'policy: no new goals' >&2; exit 1; fi\n",
    );
    let (head, goal_md) = (repo.head(), repo.goal_md());
    let out = repo
        .goal()
        .args(["init", "Another goal", "-c", "b passes", "--replace"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("policy: no new goals"));
    assert_eq!(repo.head(), head, "the old goal must not be abandoned");
    assert_eq!(repo.goal_md(), goal_md);

    let out = repo
        .goal()
        .args([
            "init",
            "Another goal",
            "-c",
            "b passes",
            "--replace",
            "--no-verify",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(repo.commit_count(), 4);
    assert_eq!(
        repo.trailer("HEAD~1", "Goal-Status").as_deref(),
        Some("abandoned")
    );
    assert!(repo.goal_md().contains("Another goal"));
}

#[test]
fn restore_takes_no_verify_and_says_so_in_its_commit() {
    let repo = Repo::new();
    repo.init_goal(&["app runs"]);
    repo.ok(&["abandon", "--reason", "wrong goal"]);
    hook(
        &repo,
        ".git/hooks/pre-commit",
        "#!/bin/sh\necho 'hook: no' >&2\nexit 1\n",
    );
    let head = repo.head();
    let out = repo.goal().args(["restore"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("hook: no"), "{}", stderr(&out));
    assert_eq!(repo.head(), head, "nothing committed");
    let out = repo.goal().args(["restore", "-n"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        repo.trailer("HEAD", "Goal-Action").as_deref(),
        Some("restore")
    );
    assert_eq!(
        repo.trailer("HEAD", "Goal-Hooks").as_deref(),
        Some("skipped")
    );
}
