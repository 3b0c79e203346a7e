//! The hook shims' own promises: a refusal holds whatever the user's lines below the block do
//! (`exit 0`, `exec`), and a hooks folder git tracks (husky style) gets shims that hold no path
//! of this machine. git itself runs the hooks.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{GOAL, Repo, stderr};

/// No goal on this PATH: a shim that finds goal found it by the path it was given.
const NO_GOAL_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

fn this_goal() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_goal"))
        .canonicalize()
        .unwrap()
}

fn hook(repo: &Repo, rel: &str, text: &str) {
    repo.write(rel, text);
    let path = repo.path().join(rel);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A goal with one criterion, ticked by hand and staged: a commit the gate refuses.
fn staged_lie(repo: &Repo) {
    let md = repo.goal_md().replace("- [ ] a passes", "- [x] a passes");
    repo.write(GOAL, &md);
    repo.git(&["add", "-A"]);
}

fn commit(repo: &Repo, path: &str) -> Output {
    repo.git_cmd()
        .env("PATH", path)
        .args(["commit", "-q", "-m", "lie"])
        .output()
        .unwrap()
}

#[track_caller]
fn assert_gate_refused(out: &Output) {
    assert!(!out.status.success(), "the commit went through");
    assert!(
        stderr(out).contains("criterion 1 \"a passes\" is ticked without proof"),
        "{}",
        stderr(out)
    );
}

#[test]
fn a_refusal_holds_when_the_user_s_hook_ends_with_exit_0_or_exec() {
    for (name, other) in [("pre-commit", "commit-msg"), ("commit-msg", "pre-commit")] {
        for ending in ["exit 0", "exec true", "exec \"$(command -v true)\" \"$@\""] {
            let case = format!("{name} ending in {ending}");
            let repo = Repo::new();
            repo.init_goal(&["a passes"]);
            hook(
                &repo,
                &format!(".git/hooks/{name}"),
                &format!(
                    "#!/bin/sh\necho user-hook-ran >> \"$(git rev-parse --git-dir)/user-marker\"\n{ending}\n"
                ),
            );
            repo.ok(&["hooks", "install"]);
            // Only this hook's gate stands between the lie and a commit.
            std::fs::remove_file(repo.path().join(".git/hooks").join(other)).unwrap();
            let head = repo.head();
            staged_lie(&repo);
            let out = commit(&repo, NO_GOAL_PATH);
            assert_gate_refused(&out);
            assert_eq!(repo.head(), head, "{case}: nothing committed");
            // The user's lines ran all the same, once.
            assert_eq!(repo.read(".git/user-marker"), "user-hook-ran\n", "{case}");
            // An honest commit goes through them once too.
            repo.git(&["reset", "-q"]);
            repo.git(&["checkout", "-q", "--", GOAL]);
            repo.write("note.txt", "x\n");
            repo.git(&["add", "note.txt"]);
            let out = commit(&repo, NO_GOAL_PATH);
            assert!(out.status.success(), "{case}: {}", stderr(&out));
            assert_eq!(
                repo.read(".git/user-marker"),
                "user-hook-ran\nuser-hook-ran\n",
                "{case}"
            );
        }
    }
}

#[test]
fn shims_in_a_tracked_hooks_folder_hold_no_machine_path_and_read_it_from_git_config() {
    let repo = Repo::new();
    repo.init_goal(&["a passes"]);
    // husky style: the hooks folder is in the repository.
    hook(&repo, ".husky/pre-commit", "#!/bin/sh\necho linted\n");
    repo.git(&["add", ".husky"]);
    repo.git(&["commit", "-q", "-m", "husky"]);
    repo.git(&["config", "core.hooksPath", ".husky"]);
    repo.ok(&["hooks", "install"]);
    let exe = this_goal();
    assert_eq!(
        repo.git(&["config", "--get", "goal.bin"]).trim(),
        exe.display().to_string()
    );
    for name in ["pre-commit", "commit-msg"] {
        let text = repo.read(&format!(".husky/{name}"));
        assert!(!text.contains(&*exe.to_string_lossy()), "{text}");
        assert!(!text.contains("/target/"), "{text}");
        assert!(
            text.contains("goal_hook_bin=$(git config --get goal.bin)"),
            "{text}"
        );
    }
    // The gate runs through the binary git config names (no goal on PATH)...
    let head = repo.head();
    staged_lie(&repo);
    assert_gate_refused(&commit(&repo, NO_GOAL_PATH));
    assert_eq!(repo.head(), head);
    repo.git(&["reset", "-q"]);
    repo.git(&["checkout", "-q", "--", GOAL]);
    // ...and what `goal iterate` commits of the folder holds no path of this machine.
    repo.ok(&["iterate", "-m", "step"]);
    let committed = repo.git(&["show", "HEAD:.husky/pre-commit"]);
    assert!(!committed.contains(&*exe.to_string_lossy()), "{committed}");
    // Without the config key, the `goal` on PATH is run.
    repo.git(&["config", "--unset", "goal.bin"]);
    staged_lie(&repo);
    let goal_dir = exe.parent().unwrap().display().to_string();
    assert_gate_refused(&commit(&repo, &format!("{goal_dir}:{NO_GOAL_PATH}")));
    let out = commit(&repo, NO_GOAL_PATH);
    // Not on PATH either: only a commit of the goal files is held back, with the reason.
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("needs `goal` on PATH"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn shims_in_an_untracked_hooks_folder_keep_the_binary_s_path() {
    let repo = Repo::new();
    repo.git(&["config", "core.hooksPath", "my-hooks"]);
    repo.ok(&["hooks", "install"]);
    let text = repo.read("my-hooks/pre-commit");
    assert!(
        text.contains(&format!("goal_hook_bin='{}'\n", this_goal().display())),
        "{text}"
    );
}
