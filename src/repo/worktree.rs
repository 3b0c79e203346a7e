//! Linked worktrees and branches for `goal run --race`, through the git CLI (`git worktree` is
//! its language, and what it writes is what `git worktree list` reads back).

use std::path::Path;
use std::process::Command;

use super::{Oid, Repo};
use crate::error::{Error, Result};

/// Run git in `dir`: Ok(stdout) when it succeeded, Err(its stderr's last line) when not.
fn git(dir: &Path, args: &[&str]) -> Result<std::result::Result<String, String>> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|source| Error::Spawn {
            program: "git".into(),
            source,
        })?;
    if out.status.success() {
        return Ok(Ok(String::from_utf8_lossy(&out.stdout).into_owned()));
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("git failed")
        .to_string();
    Ok(Err(last))
}

fn cli_failed(what: &str, why: &str) -> Error {
    Error::git(what.to_string())(git2::Error::from_str(why))
}

impl Repo {
    /// Whether the local branch `name` exists.
    pub fn branch_exists(&self, name: &str) -> bool {
        self.inner
            .find_branch(name, git2::BranchType::Local)
            .is_ok()
    }

    /// The commit the local branch `name` points at.
    pub fn branch_tip(&self, name: &str) -> Option<Oid> {
        self.inner
            .find_branch(name, git2::BranchType::Local)
            .ok()?
            .get()
            .target()
    }

    /// `git worktree add -b <branch> <path> <start>`: a new branch at `start`, checked out in a
    /// new linked worktree at `path`.
    pub fn add_worktree(&self, path: &Path, branch: &str, start: Oid) -> Result<()> {
        let path_text = path.to_string_lossy();
        let start_text = start.to_string();
        let args = [
            "worktree",
            "add",
            "--quiet",
            "-b",
            branch,
            path_text.as_ref(),
            start_text.as_str(),
        ];
        git(&self.root, &args)?
            .map(|_| ())
            .map_err(|why| cli_failed(&format!("git worktree add {path_text}"), &why))
    }

    /// `git worktree remove <path>` (`--force` too when `force`): Err with git's reason when it
    /// refuses.
    pub fn remove_worktree(
        &self,
        path: &Path,
        force: bool,
    ) -> Result<std::result::Result<(), String>> {
        let path_text = path.to_string_lossy();
        let mut args = vec!["worktree", "remove"];
        if force {
            args.push("--force");
        }
        args.push(path_text.as_ref());
        Ok(git(&self.root, &args)?.map(|_| ()))
    }

    /// `git branch -D <name>`: for a branch `goal` made and nothing else used.
    pub fn delete_branch(&self, name: &str) -> Result<()> {
        git(&self.root, &["branch", "--quiet", "-D", name])?
            .map(|_| ())
            .map_err(|why| cli_failed(&format!("git branch -D {name}"), &why))
    }

    /// `git switch -c <branch>`: a new branch at HEAD, checked out here (the work tree kept).
    pub fn switch_new_branch(&self, branch: &str) -> Result<()> {
        git(&self.root, &["switch", "--quiet", "-c", branch])?
            .map(|_| ())
            .map_err(|why| cli_failed(&format!("git switch -c {branch}"), &why))
    }

    /// The branch HEAD is on (None: detached or unborn).
    pub fn head_branch(&self) -> Option<String> {
        let head = self.inner.head().ok()?;
        if !head.is_branch() {
            return None;
        }
        head.shorthand().ok().map(str::to_string)
    }

    /// Whether some local branch holds `commit` (so a worktree at it can go without losing it).
    pub fn on_a_branch(&self, commit: Oid) -> Result<bool> {
        let commit = commit.to_string();
        let out = git(
            &self.root,
            &[
                "for-each-ref",
                "--count=1",
                "--contains",
                commit.as_str(),
                "--format=%(refname)",
                "refs/heads/",
            ],
        )?;
        Ok(out.is_ok_and(|refs| !refs.trim().is_empty()))
    }
}

/// What `git status --porcelain` lists in the worktree at `dir` (changes and untracked files, not
/// ignored ones): the work a removal would lose.
pub fn uncommitted(dir: &Path) -> Result<Vec<String>> {
    git(dir, &["status", "--porcelain", "--ignore-submodules=none"])?
        .map(|out| out.lines().map(str::to_string).collect())
        .map_err(|why| cli_failed(&format!("git status in {}", dir.display()), &why))
}

/// The commit checked out in the worktree at `dir`.
pub fn head_of(dir: &Path) -> Result<Option<Oid>> {
    Ok(git(dir, &["rev-parse", "--verify", "--quiet", "HEAD"])?
        .ok()
        .and_then(|out| Oid::from_str(out.trim()).ok()))
}
