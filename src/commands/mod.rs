//! One module per command; `run` dispatches with one line per command.

pub mod abandon;
pub mod attempt;
pub mod audit;
pub mod block;
pub mod check;
pub mod ci;
pub mod completions;
pub mod config;
pub mod criteria;
pub mod demo;
pub mod detect;
pub mod done;
pub mod fleet;
pub mod hook;
pub mod hooks;
pub mod init;
pub mod inject;
pub mod integrate;
pub mod iterate;
pub mod log;
pub mod mcp;
pub mod merge_driver;
pub mod race;
pub mod recheck;
pub mod report;
pub mod restore;
pub mod resume;
pub mod retry;
pub mod run;
pub mod status;
pub mod verify;

use crate::repo::Oid;

use crate::context::Ctx;
use crate::workspace::Workspace;

/// The flags of every command that commits.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CommitFlags {
    /// Skip your git hooks (pre-commit, commit-msg, …) for this command's commit, as `git commit
    /// --no-verify` does; goal's own gate still applies.
    #[arg(long, short = 'n')]
    pub no_verify: bool,
}

pub use crate::ops::criterion_number;

/// The new files a commit brought in (the goal's own left out): at most 10 paths, then a count.
pub fn added_lines(ws: &Workspace, commit: Oid) -> Vec<String> {
    const SHOWN: usize = 10;
    let added = ws
        .repo
        .added_paths(commit, &ws.goal_dir)
        .unwrap_or_default();
    let mut lines: Vec<String> = added.iter().take(SHOWN).map(|p| format!("  {p}")).collect();
    if added.len() > SHOWN {
        lines.push(format!("  and {} more", added.len() - SHOWN));
    }
    lines
}

/// The first folder among `paths` that build tools and test runners make (target/, __pycache__/,
/// node_modules/, …), to point at .gitignore.
fn build_output(paths: &[String]) -> Option<String> {
    const DIRS: &[&str] = &[
        "target",
        "__pycache__",
        ".pytest_cache",
        "node_modules",
        ".mypy_cache",
        ".tox",
        "dist",
        "build",
        ".venv",
        ".gradle",
        "coverage",
    ];
    paths.iter().find_map(|p| {
        let parts: Vec<&str> = p.split('/').collect();
        parts[..parts.len().saturating_sub(1)]
            .iter()
            .position(|c| DIRS.contains(c))
            .map(|i| format!("{}/", parts[..=i].join("/")))
    })
}

/// Say which new files a commit brought in, on stdout for people (nothing with --json).
pub fn print_added(ctx: &Ctx, ws: &Workspace, commit: Option<Oid>) {
    let Some(commit) = commit else {
        return;
    };
    let lines = added_lines(ws, commit);
    if lines.is_empty() || ctx.json {
        return;
    }
    ctx.say(format!("new files committed in {}:", short(commit)));
    for line in lines {
        ctx.say(line);
    }
    let added = ws
        .repo
        .added_paths(commit, &ws.goal_dir)
        .unwrap_or_default();
    if let Some(dir) = build_output(&added) {
        ctx.note(format!(
            "hint: `{dir}` looks like build output or a cache: add it to .gitignore and untrack it with `git rm -r --cached {dir}`, then `goal iterate` again"
        ));
    }
}

pub use crate::ops::short;

pub use crate::ops::require_in_progress;
