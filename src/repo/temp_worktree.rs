//! A detached worktree in a temporary folder, for running a command on another commit or tree
//! (the audit's replays, the red and base runs). It is removed when dropped, whatever happens:
//! the run succeeds, fails, or is stopped by Ctrl-C (the error comes back and the drop runs).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::Oid;
use crate::child;
use crate::error::{Error, Result};

pub struct TempWorktree {
    repo_root: PathBuf,
    /// The worktree's root.
    pub path: PathBuf,
    /// Holds the folder; removing it comes after `git worktree remove`.
    _dir: tempfile::TempDir,
}

/// Run git in `root` as a child of its own (signals passed on, no output shown); its success.
fn git_quiet(root: &Path, args: &[&str]) -> Result<bool> {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    match child::status(&mut command) {
        Ok(status) => Ok(status.success()),
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => Err(match child::interrupted() {
            Some(15) => Error::Interrupted {
                signal: "SIGTERM",
                code: 143,
            },
            _ => Error::Interrupted {
                signal: "SIGINT",
                code: 130,
            },
        }),
        Err(source) => Err(Error::Spawn {
            program: "git".into(),
            source,
        }),
    }
}

impl TempWorktree {
    /// `commit` checked out in a folder named `<prefix>…`.
    pub fn of_commit(repo_root: &Path, prefix: &str, commit: Oid) -> Result<TempWorktree> {
        let worktree = TempWorktree::folder(repo_root, prefix)?;
        let commit = commit.to_string();
        if !worktree.add(&["--quiet"], &commit)? {
            return Err(Error::refused(
                format!("cannot check out commit {commit} in a temporary worktree"),
                "check the repository with `git worktree list` and `git fsck`; CI must fetch the whole history (`fetch-depth: 0`)",
            ));
        }
        Ok(worktree)
    }

    /// `tree` read into a worktree whose HEAD is `head` (nothing is checked out until then).
    pub fn of_tree(repo_root: &Path, prefix: &str, head: Oid, tree: Oid) -> Result<TempWorktree> {
        let worktree = TempWorktree::folder(repo_root, prefix)?;
        let (head, tree) = (head.to_string(), tree.to_string());
        let added = worktree.add(&["--no-checkout", "--quiet"], &head)?
            && git_quiet(&worktree.path, &["read-tree", "--reset", "-u", &tree])?;
        if !added {
            return Err(Error::refused(
                format!("cannot check out tree {tree} in a temporary worktree"),
                "check the repository with `git worktree list` and `git fsck`",
            ));
        }
        Ok(worktree)
    }

    fn folder(repo_root: &Path, prefix: &str) -> Result<TempWorktree> {
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .map_err(Error::io(
                "cannot create a temporary folder in",
                std::env::temp_dir(),
            ))?;
        Ok(TempWorktree {
            repo_root: repo_root.to_path_buf(),
            path: dir.path().join("tree"),
            _dir: dir,
        })
    }

    /// `git worktree add --detach FLAGS… <path> <commit>`, no hook run (a post-checkout hook
    /// could come with the branch through core.hooksPath).
    fn add(&self, flags: &[&str], commit: &str) -> Result<bool> {
        let target = self.path.to_string_lossy().into_owned();
        let mut args = vec![
            "-c",
            "core.hooksPath=/dev/null",
            "worktree",
            "add",
            "--detach",
        ];
        args.extend_from_slice(flags);
        args.extend([target.as_str(), commit]);
        git_quiet(&self.repo_root, &args)
    }
}

impl Drop for TempWorktree {
    fn drop(&mut self) {
        let target = self.path.to_string_lossy().into_owned();
        let removed = git_quiet(
            &self.repo_root,
            &["worktree", "remove", "--force", "--force", &target],
        )
        .unwrap_or(false);
        if !removed {
            let _ = std::fs::remove_dir_all(&self.path);
        }
        let _ = git_quiet(&self.repo_root, &["worktree", "prune"]);
    }
}
