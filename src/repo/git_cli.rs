//! The git CLI where git2 has no equivalent (revision ranges, `merge-file`'s conflict markers,
//! `config` on a bare common dir, the demo's scratch repository): every run of `git` outside
//! git2 is here.

use std::path::Path;
use std::process::Command;

use crate::error::{Error, Result};

/// `git` itself, or the error that names it.
fn run(cmd: &mut Command) -> Result<std::process::Output> {
    cmd.output().map_err(|source| Error::Spawn {
        program: "git".into(),
        source,
    })
}

/// Run git (the CLI: revision ranges are its language) in `root`; its stdout's non-empty lines,
/// or None when git fails.
pub fn git_lines(root: &Path, args: &[&str]) -> Result<Option<Vec<String>>> {
    let out = run(Command::new("git").args(args).current_dir(root))?;
    if !out.status.success() {
        return Ok(None);
    }
    Ok(Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .filter(|l| !l.is_empty())
            .collect(),
    ))
}

/// Run git in `dir` and return its stdout; a failure names the command and git's own message.
pub fn git_output(dir: &Path, args: &[&str]) -> Result<String> {
    let out = run(Command::new("git").args(args).current_dir(dir))?;
    if !out.status.success() {
        return Err(Error::usage(
            format!(
                "git {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            "check that git is installed",
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `git merge-file` with standard conflict markers (`ours`, `base`, `theirs`), written into
/// `ours` as git's own merge would leave them. git exits with the number of conflicts; a
/// negative exit (255 and up) or a signal is git failing, and says so.
pub fn merge_file_markers(ours: &Path, base: &Path, theirs: &Path) -> Result<()> {
    let out = run(Command::new("git")
        .args(["merge-file", "-L", "ours", "-L", "base", "-L", "theirs"])
        .arg(ours)
        .arg(base)
        .arg(theirs))?;
    match out.status.code() {
        Some(code) if (0..=127).contains(&code) => Ok(()),
        code => Err(Error::usage(
            format!(
                "git merge-file failed on {} ({}): {}",
                ours.display(),
                code.map_or("killed by a signal".to_string(), |c| format!("exit {c}")),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            "resolve the file by hand",
        )),
    }
}

/// `git --git-dir <common_dir> config <args>`: whether it succeeded.
pub fn config_at(common_dir: &Path, args: &[&str]) -> Result<bool> {
    let out = run(Command::new("git")
        .arg("--git-dir")
        .arg(common_dir)
        .arg("config")
        .args(args))?;
    Ok(out.status.success())
}

/// A commit message cleaned up the way `git commit` does (comments and blank lines), or `text`
/// itself when it cannot be.
pub fn message_prettify(text: &str) -> String {
    git2::message_prettify(text, None).unwrap_or_else(|_| text.to_string())
}
