//! The user's git hooks (`pre-commit`, `prepare-commit-msg`, `commit-msg`, `post-commit`), run
//! for `goal`'s own commits the way `git commit` runs them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::{Error, Result};
use crate::repo::Oid;

/// Set for the user's hooks: the tree `goal` has already held to its gate. `goal hooks run`
/// (goal's own block in a shared hook file) passes a commit of that tree at once instead of
/// checking it a second time.
pub const GATED_TREE_ENV: &str = "GOAL_GATED_TREE";

/// The hooks folder of a repository, as git finds it.
pub struct Hooks {
    dir: PathBuf,
    root: PathBuf,
}

impl Hooks {
    pub fn new(dir: PathBuf, root: PathBuf) -> Hooks {
        Hooks { dir, root }
    }

    /// The hook `name`, when git would run it: it exists and is executable.
    pub fn find(&self, name: &str) -> Option<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let path = self.dir.join(name);
        let meta = std::fs::metadata(&path).ok()?;
        (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some(path)
    }

    /// Whether any hook that can refuse a commit is there (when none is, no process is started).
    pub fn any_refusing(&self) -> bool {
        ["pre-commit", "prepare-commit-msg", "commit-msg"]
            .iter()
            .any(|h| self.find(h).is_some())
    }

    /// Run hook `name` with `args` (nothing happens when it is not there), in the worktree root,
    /// with its stdout sent to stderr and no stdin, as git does. A non-zero exit is a refusal.
    pub fn run(
        &self,
        name: &str,
        args: &[OsString],
        index_file: Option<&Path>,
        gated_tree: Option<Oid>,
    ) -> Result<()> {
        let Some(path) = self.find(name) else {
            return Ok(());
        };
        let spawn = |program: &Path, script: Option<&Path>| {
            let mut command = Command::new(program);
            if let Some(script) = script {
                command.arg(script);
            }
            command
                .args(args)
                .current_dir(&self.root)
                .env("GIT_EDITOR", ":")
                .stdin(Stdio::null());
            // The crash tests' fault plan is for this process, not for a `goal` the hook runs.
            for key in ["GOAL_FAULT_AT", "GOAL_FAULT_MODE", "GOAL_FAULT_LIST"] {
                command.env_remove(key);
            }
            match index_file {
                Some(file) => command.env("GIT_INDEX_FILE", file),
                None => command.env_remove("GIT_INDEX_FILE"),
            };
            match gated_tree {
                Some(tree) => command.env(GATED_TREE_ENV, tree.to_string()),
                None => command.env_remove(GATED_TREE_ENV),
            };
            if let Some(fd) = crate::context::stderr_descriptor() {
                command.stdout(Stdio::from(fd));
            }
            command.status()
        };
        let status = match spawn(&path, None) {
            // No `#!` line: git runs such a hook with sh.
            Err(e) if e.raw_os_error() == Some(8) => spawn(Path::new("/bin/sh"), Some(&path)),
            other => other,
        }
        .map_err(|source| Error::HookSpawn {
            hook: name.to_string(),
            path: path.clone(),
            source,
        })?;
        if status.success() {
            return Ok(());
        }
        Err(Error::HookRefused {
            hook: name.to_string(),
            path,
            status: match status.code() {
                Some(code) => format!("exit {code}"),
                None => "killed by a signal".to_string(),
            },
        })
    }
}

/// `message` after a `commit-msg` hook edited it into `edited`: the hook's text kept, and
/// `goal`'s trailers put back as the final trailer block when they no longer parse there (a hook
/// that appends a paragraph after them hides them from `git interpret-trailers`).
pub fn restore_trailers(message: &str, edited: &str) -> String {
    let ours = crate::repo::parse_trailers(message);
    let edited = crate::repo::git_cli::message_prettify(edited);
    if edited.trim().is_empty() {
        return message.to_string();
    }
    let parsed = crate::repo::parse_trailers(&edited);
    if ours.iter().all(|t| parsed.contains(t)) {
        return edited;
    }
    let lines: Vec<String> = ours.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    let kept: Vec<&str> = edited
        .lines()
        .filter(|l| !lines.iter().any(|t| t == l.trim_end()))
        .collect();
    let body = crate::repo::git_cli::message_prettify(&kept.join("\n"));
    let block = lines.join("\n");
    // Joined to a last paragraph that is itself a trailer block, or as a block of their own.
    let joined = format!("{}\n{block}\n", body.trim_end());
    let parsed = crate::repo::parse_trailers(&joined);
    if ours.iter().all(|t| parsed.contains(t)) && !body.trim().is_empty() {
        return joined;
    }
    format!("{}\n\n{block}\n", body.trim_end())
}

#[cfg(test)]
mod tests {
    use super::restore_trailers;

    const MESSAGE: &str =
        "goal: iteration 2: x\n\n- x\n\nGoal-Iteration: 2\nGoal-Action: iterate\n";

    #[test]
    fn trailers_come_back_after_a_hook() {
        let cases: &[(&str, &str)] = &[
            // Untouched.
            (MESSAGE, MESSAGE),
            // A paragraph appended after the trailers: they move below it.
            (
                "goal: iteration 2: x\n\n- x\n\nGoal-Iteration: 2\nGoal-Action: iterate\n\nReviewed by the linter.\n",
                "goal: iteration 2: x\n\n- x\n\nReviewed by the linter.\n\nGoal-Iteration: 2\nGoal-Action: iterate\n",
            ),
            // A trailer added to the block: kept, nothing moves.
            (
                "goal: iteration 2: x\n\n- x\n\nGoal-Iteration: 2\nGoal-Action: iterate\nChange-Id: I12\n",
                "goal: iteration 2: x\n\n- x\n\nGoal-Iteration: 2\nGoal-Action: iterate\nChange-Id: I12\n",
            ),
            // A trailer paragraph of the hook's own after ours: ours join it.
            (
                "goal: iteration 2: x\n\n- x\n\nGoal-Iteration: 2\nGoal-Action: iterate\n\nChange-Id: I12\n",
                "goal: iteration 2: x\n\n- x\n\nChange-Id: I12\nGoal-Iteration: 2\nGoal-Action: iterate\n",
            ),
        ];
        for (edited, want) in cases {
            assert_eq!(restore_trailers(MESSAGE, edited), *want, "{edited}");
        }
    }
}
