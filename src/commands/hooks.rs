//! `goal hooks install|uninstall|status|run`: the git hooks that hold plain commits to the gate.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::repo::Repo;
use crate::workspace::{DEFAULT_GOAL_DIR, write_atomic};

const BEGIN: &str = "# >>> goal >>>";
const END: &str = "# <<< goal <<<";

/// The shim scripts, from the crate's hooks/ folder.
const HOOKS: &[(&str, &str)] = &[
    ("pre-commit", include_str!("../../hooks/pre-commit")),
    ("commit-msg", include_str!("../../hooks/commit-msg")),
];

/// Manage the git hooks (pre-commit: evidence gate; commit-msg: material-change gate).
///
/// Agent hosts' hooks (Claude Code, Codex, Gemini CLI, opencode, Cursor) are `goal hook`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Install the shims into the effective hooks folder (core.hooksPath, else the common git
    /// dir's hooks/). An existing hook keeps its lines: the shim goes in a marked block.
    Install {
        /// Replace a hook that is not a shell script (it is kept as <hook>.goal-backup).
        #[arg(long)]
        force: bool,
    },
    /// Remove the marked blocks, leaving the user's own hook lines.
    Uninstall,
    /// Show where the hooks are and whether the shims are installed (exit 1 when not).
    Status,
    /// Run a hook's logic (what the shims call).
    Run {
        /// pre-commit or commit-msg.
        hook: String,
        /// The arguments git gave the hook.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// The block of a shim: the lines between (and including) the markers.
fn block_of(script: &str) -> String {
    let start = script.find(BEGIN).unwrap_or(0);
    let end = script.find(END).map_or(script.len(), |e| e + END.len());
    format!("{}\n", &script[start..end])
}

/// `text` without the goal block (the user's lines as they were).
fn without_block(text: &str) -> String {
    let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        return text.to_string();
    };
    let mut end = end + END.len();
    if text[end..].starts_with('\n') {
        end += 1;
    }
    format!("{}{}", &text[..start], &text[end..])
}

fn is_shell(text: &str) -> bool {
    match text.lines().next() {
        Some(first) if first.starts_with("#!") => ["sh", "bash", "dash", "zsh", "ksh"]
            .iter()
            .any(|s| first.split(['/', ' ']).any(|part| part == *s)),
        // No shebang: git runs it with sh.
        _ => true,
    }
}

fn set_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut perms = std::fs::metadata(path)
        .map_err(Error::io("cannot stat", path))?
        .permissions();
    perms.set_mode(perms.mode() | 0o755);
    std::fs::set_permissions(path, perms).map_err(Error::io("cannot make executable", path))
}

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    if let Command::Run { hook, args } = &command {
        return run_hook(ctx, hook, args);
    }
    let repo = Repo::discover(&ctx.cwd)?;
    let dir = repo.hooks_dir();
    match command {
        Command::Install { force } => {
            let code = install(ctx, &repo, &dir, force)?;
            let goal = crate::self_path::current_goal().map_or_else(
                || "goal".to_string(),
                |p| crate::self_path::shell_quoted(&p),
            );
            let (goal_dir, _) = goal_paths(ctx, &repo);
            let at = crate::merge_driver::install::register(repo.common_dir(), &goal_dir, &goal)?;
            ctx.note(format!(
                "registered the merge driver for the goal files (merge.goal in .git/config, {})",
                at.display()
            ));
            Ok(code)
        }
        Command::Uninstall => {
            let code = uninstall(ctx, &dir)?;
            if crate::merge_driver::install::unregister(repo.common_dir())? {
                ctx.note("removed the merge driver for the goal files");
            }
            Ok(code)
        }
        Command::Status => status(ctx, &repo, &dir),
        Command::Run { .. } => unreachable!("handled above"),
    }
}

fn install(ctx: &Ctx, repo: &Repo, dir: &Path, force: bool) -> Result<u8> {
    std::fs::create_dir_all(dir).map_err(Error::io("cannot create", dir))?;
    let mut done = Vec::new();
    let goal = crate::self_path::current_goal();
    let bin = shim_bin(ctx, repo, dir, goal.as_deref())?;
    for (name, script) in HOOKS {
        let script = &crate::self_path::shim(script, bin);
        let path = dir.join(name);
        let existing = std::fs::read(&path).ok();
        let new = match existing.as_deref().map(String::from_utf8_lossy) {
            None => script.to_string(),
            Some(text) if !is_shell(&text) => {
                if !force {
                    return Err(Error::usage(
                        format!(
                            "{} is not a shell script: goal cannot add its lines to it",
                            path.display()
                        ),
                        "call `goal hooks run pre-commit` from it yourself, or replace it with `goal hooks install --force` (a backup is kept)",
                    ));
                }
                let backup = path.with_extension("goal-backup");
                std::fs::copy(&path, &backup).map_err(Error::io("cannot back up", &path))?;
                ctx.note(format!("kept the old hook as {}", backup.display()));
                script.to_string()
            }
            Some(text) => {
                // The block goes first (after the shebang), so the user's own `exit` cannot skip it.
                let user = without_block(&text);
                let block = block_of(script);
                match user.split_once('\n') {
                    Some((first, rest)) if first.starts_with("#!") => {
                        format!("{first}\n{block}{rest}")
                    }
                    _ if user.starts_with("#!") => format!("{user}\n{block}"),
                    _ => format!("#!/bin/sh\n{block}{user}"),
                }
            }
        };
        write_atomic(&path, new.as_bytes())?;
        set_executable(&path)?;
        done.push(path);
    }
    if ctx.json {
        ctx.emit_json(
            &json!({"installed": done.iter().map(|p| p.display().to_string()).collect::<Vec<_>>()}),
        )?;
    } else {
        for p in &done {
            ctx.say(format!("installed {}", p.display()));
        }
    }
    Ok(0)
}

/// Where the shims find the binary: by its path, written in; or, in a hooks folder git tracks
/// (husky style: committed, shared by every clone), by `git config goal.bin`, so that no
/// machine's path is committed. The config key is set either way.
fn shim_bin<'a>(
    ctx: &Ctx,
    repo: &Repo,
    dir: &Path,
    goal: Option<&'a Path>,
) -> Result<crate::self_path::ShimBin<'a>> {
    use crate::self_path::{CONFIG_KEY, ShimBin};
    if let Some(goal) = goal {
        repo.set_local_config(CONFIG_KEY, &goal.to_string_lossy())?;
    }
    if !repo.tracks_files_in(dir) {
        return Ok(ShimBin::Path(goal));
    }
    ctx.note(format!(
        "{} is tracked by git: the hooks read goal's path from `git config {CONFIG_KEY}` (set in .git/config), else run the `goal` on PATH",
        dir.display()
    ));
    Ok(ShimBin::Config)
}

fn uninstall(ctx: &Ctx, dir: &Path) -> Result<u8> {
    let mut removed = Vec::new();
    for (name, _) in HOOKS {
        let path = dir.join(name);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if !text.contains(BEGIN) {
            continue;
        }
        let rest = without_block(&text);
        let meaningful = rest
            .lines()
            .any(|l| !l.trim().is_empty() && !l.starts_with("#!"));
        if meaningful {
            write_atomic(&path, rest.as_bytes())?;
            set_executable(&path)?;
        } else {
            std::fs::remove_file(&path).map_err(Error::io("cannot remove", &path))?;
        }
        removed.push(path);
    }
    if ctx.json {
        ctx.emit_json(&json!({"removed": removed.iter().map(|p| p.display().to_string()).collect::<Vec<_>>()}))?;
    } else if removed.is_empty() {
        ctx.say("no goal hooks were installed");
    } else {
        for p in &removed {
            ctx.say(format!("removed goal's block from {}", p.display()));
        }
    }
    Ok(0)
}

fn status(ctx: &Ctx, repo: &Repo, dir: &Path) -> Result<u8> {
    let mut rows = Vec::new();
    for (name, _) in HOOKS {
        let path = dir.join(name);
        let state = match std::fs::read_to_string(&path) {
            Err(_) => "missing",
            Ok(text) if text.contains(BEGIN) => "installed",
            Ok(_) => "not installed (a hook of the user's is there)",
        };
        rows.push((name.to_string(), path, state));
    }
    let all = rows.iter().all(|(_, _, s)| *s == "installed");
    if ctx.json {
        ctx.emit_json(&json!({
            "hooks_dir": dir.display().to_string(),
            "core_hooks_path": repo.config_string("core.hooksPath"),
            "installed": all,
            "hooks": rows.iter().map(|(n, p, s)| json!({"hook": n, "path": p.display().to_string(), "state": s})).collect::<Vec<_>>(),
        }))?;
    } else {
        ctx.say(format!("hooks folder: {}", dir.display()));
        for (name, _, state) in &rows {
            ctx.say(format!("  {name}: {state}"));
        }
        if !all {
            ctx.say("install them with `goal hooks install`");
        }
    }
    Ok(if all { 0 } else { 1 })
}

/// The goal folder and file as the hooks see them (GOAL_FILE may move them).
fn goal_paths(ctx: &Ctx, repo: &Repo) -> (PathBuf, PathBuf) {
    let rel = ctx
        .file
        .as_ref()
        .and_then(|f| {
            let abs = if f.is_absolute() {
                f.clone()
            } else {
                ctx.cwd.join(f)
            };
            abs.strip_prefix(repo.root()).ok().map(Path::to_path_buf)
        })
        .unwrap_or_else(|| PathBuf::from(DEFAULT_GOAL_DIR).join(crate::store::GOAL_FILE));
    let dir = rel
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_GOAL_DIR));
    (dir, rel)
}

fn run_hook(ctx: &Ctx, hook: &str, args: &[String]) -> Result<u8> {
    // The hook's name and arguments are checked before the fast path, so that a misspelt hook
    // line is a usage error at once rather than a silent pass on every commit.
    let message_file = match hook {
        "pre-commit" => None,
        "commit-msg" => {
            let Some(file) = args.first() else {
                return Err(Error::usage(
                    "commit-msg needs the message file",
                    "git passes it: `goal hooks run commit-msg .git/COMMIT_EDITMSG`",
                ));
            };
            Some(file)
        }
        other => {
            return Err(Error::usage(
                format!("unknown hook `{other}`"),
                "goal hooks run pre-commit | goal hooks run commit-msg <message file>",
            ));
        }
    };
    let repo = Repo::for_hook(&ctx.cwd)?;
    let (goal_dir, goal_rel) = goal_paths(ctx, &repo);
    // The fast path: a commit that does not touch the goal folder passes at once.
    if !repo.index_touches(&goal_dir)? {
        return Ok(0);
    }
    let message = match message_file {
        None => None,
        Some(file) => {
            let path = if Path::new(file).is_absolute() {
                PathBuf::from(file)
            } else {
                ctx.cwd.join(file)
            };
            Some(
                std::fs::read_to_string(&path)
                    .map_err(Error::io("cannot read the commit message", path))?,
            )
        }
    };
    let staged = repo.index_tree()?;
    // A goal command running the user's hooks for its own commit already held this tree to the
    // gate (and holds goal's lock): checking it again would only repeat the work.
    let gated = std::env::var(crate::user_hooks::GATED_TREE_ENV).ok();
    if gated.is_some_and(|tree| tree == staged.to_string()) {
        return Ok(0);
    }
    let head = repo.head_tree()?;
    crate::door::check_tree(
        &repo,
        &goal_dir,
        &goal_rel,
        staged,
        head,
        message.as_deref(),
    )?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_come_and_go() {
        let user = "#!/bin/bash\necho mine\nexit 0\n";
        let block = block_of(HOOKS[0].1);
        let installed = format!("#!/bin/bash\n{block}echo mine\nexit 0\n");
        assert_eq!(without_block(&installed), user);
        assert!(is_shell(user));
        assert!(!is_shell("#!/usr/bin/env python3\nprint(1)\n"));
        assert!(is_shell("#!/usr/bin/env bash\n"));
    }
}
