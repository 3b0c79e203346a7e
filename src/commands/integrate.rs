//! `goal integrate <host>`: install goal's hooks (or extension, or plugin) into a project's
//! configuration for an agent host, and `--uninstall` remove exactly them.

use std::path::{Path, PathBuf};

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::hosts::{Host, Removed};
use crate::repo::Repo;
use crate::workspace::write_atomic;

/// Install an agent host's adapter into this project (idempotent), or remove it.
///
/// Only goal's own entries are added to the host's file; the rest of it is kept byte for byte
/// (comments and layout included), and `--uninstall` gives the file back as it was, or deletes
/// it when goal created it.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Claude Code: `goal hook claude` in .claude/settings.json for UserPromptSubmit,
    /// SessionStart and Stop (verified with Claude Code 2.1).
    Claude(ClaudeArgs),
    /// Pi: the extension in .pi/extensions/goal/ (verified with Pi 0.73.1).
    Pi(Uninstall),
    /// Codex CLI: `goal hook codex` in .codex/hooks.json for SessionStart, UserPromptSubmit and
    /// Stop, and GOAL_AGENT=codex in .codex/config.toml (verified with codex 0.169.0). Codex runs
    /// them only once you trust the project and the hooks (`/hooks`).
    Codex(Uninstall),
    /// Gemini CLI: `goal hook gemini` in .gemini/settings.json for SessionStart, BeforeAgent and
    /// AfterAgent (verified with gemini 0.61.0). Gemini CLI reads it only in a trusted folder.
    Gemini(Uninstall),
    /// opencode: the plugin .opencode/plugins/goal.js, which calls `goal hook opencode`
    /// (verified with opencode 1.18.33).
    Opencode(Uninstall),
    /// Cursor: `goal hook cursor` in .cursor/hooks.json for sessionStart, beforeSubmitPrompt and
    /// stop, with `loop_limit` goal.stopBlocks + 1 (unverified: tested with recorded payloads).
    Cursor(CursorArgs),
}

#[derive(Debug, clap::Args)]
pub struct Uninstall {
    /// Remove what `goal integrate` added, and nothing else.
    #[arg(long)]
    pub uninstall: bool,
}

#[derive(Debug, clap::Args)]
pub struct ClaudeArgs {
    /// Print the condition to give Claude Code's `/goal` beside goal's hooks (met only when a tool
    /// result shows `GOAL-PROOF: complete`) and change nothing.
    #[arg(long)]
    pub goal_condition: bool,
    #[command(flatten)]
    pub remove: Uninstall,
}

#[derive(Debug, clap::Args)]
pub struct CursorArgs {
    /// Also remove goal's hooks from .claude/settings.json, which Cursor runs too (a stop is
    /// judged once either way).
    #[arg(long)]
    pub no_claude: bool,
    #[command(flatten)]
    pub remove: Uninstall,
}

/// The `/goal` condition that a transcript judge can only meet on `goal done`'s proof line.
pub const GOAL_CONDITION: &str = "a tool result in this session shows a line starting with `GOAL-PROOF: complete` (printed by a `goal done` that succeeded); a claim of being done, a plan, or the text `GOAL-PROOF: open` does not meet it";

/// The Pi extension's files, embedded from integrations/pi/.
pub const PI_FILES: &[(&str, &str)] = &[
    ("index.ts", include_str!("../../integrations/pi/index.ts")),
    (
        "package.json",
        include_str!("../../integrations/pi/package.json"),
    ),
];

/// The opencode plugin, embedded from integrations/opencode/.
pub const OPENCODE_PLUGIN: &str = include_str!("../../integrations/opencode/goal.js");

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    let repo = Repo::discover(&ctx.cwd)?;
    let root = repo.root();
    let stop_blocks = crate::config::Config::load(&repo)?.stop_blocks;
    use crate::hosts::{CLAUDE, CODEX, CURSOR, GEMINI};
    match command {
        Command::Claude(args) if args.goal_condition => {
            println!("{GOAL_CONDITION}");
            Ok(0)
        }
        Command::Claude(args) => hooks(ctx, root, CLAUDE, args.remove.uninstall, 0),
        Command::Pi(args) if args.uninstall => {
            remove_files(ctx, &root.join(".pi/extensions/goal"), PI_FILES)
        }
        Command::Pi(_) => pi(ctx, root),
        Command::Codex(args) => {
            let code = hooks(ctx, root, CODEX, args.uninstall, 0)?;
            codex_mark(ctx, root, args.uninstall)?;
            Ok(code)
        }
        Command::Gemini(args) => hooks(ctx, root, GEMINI, args.uninstall, 0),
        Command::Opencode(args) => opencode(ctx, root, args.uninstall),
        Command::Cursor(args) => {
            let code = hooks(ctx, root, CURSOR, args.remove.uninstall, stop_blocks)?;
            cursor_and_claude(ctx, root, args.no_claude && !args.remove.uninstall)?;
            Ok(code)
        }
    }
}

fn read(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io("cannot read", path)(e)),
    }
}

/// Delete a file goal created, and the folders that leaves empty (`.codex/`, `.opencode/plugins/`).
fn delete(path: &Path) -> Result<()> {
    std::fs::remove_file(path).map_err(Error::io("cannot delete", path))?;
    let mut dir = path.parent();
    while let Some(d) = dir {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}

fn parse_error(path: &Path, e: crate::hosts::EditError) -> Error {
    Error::Parse {
        path: path.to_path_buf(),
        line: e.line,
        message: e.message,
    }
}

/// Add goal's hook entries to the host's JSON file, or remove them.
fn hooks(ctx: &Ctx, root: &Path, host: &Host, uninstall: bool, stop_blocks: u32) -> Result<u8> {
    let path = root.join(host.file);
    let text = read(&path)?;
    let command = host.command();
    if uninstall {
        let Some(text) = text else {
            ctx.say(format!(
                "{} does not exist: nothing to remove",
                path.display()
            ));
            return Ok(0);
        };
        match crate::hosts::uninstall(host, &text).map_err(|e| parse_error(&path, e))? {
            Removed::Nothing => ctx.say(format!("{} does not run `{command}`", path.display())),
            Removed::Text(text) => {
                write_atomic(&path, text.as_bytes())?;
                ctx.say(format!("removed `{command}` from {}", path.display()));
            }
            Removed::Delete => {
                delete(&path)?;
                ctx.say(format!("removed {} (goal had created it)", path.display()));
            }
        }
        return Ok(0);
    }
    let installed = crate::hosts::install(host, text.as_deref().unwrap_or(""), stop_blocks)
        .map_err(|e| parse_error(&path, e))?;
    match installed {
        Some(text) => {
            write_atomic(&path, text.as_bytes())?;
            ctx.say(format!(
                "added `{command}` to {} for {}",
                path.display(),
                host.events.join(", ")
            ));
            ctx.say(format!(
                "commit {} to share it; `goal` must be on PATH where {} runs",
                host.file, host.title
            ));
        }
        None => ctx.say(format!("{} already runs `{command}`", path.display())),
    }
    if let Some(trust) = host.trust {
        ctx.say(format!("trust: {trust}"));
    }
    Ok(0)
}

/// The key path of goal's mark in Codex's project configuration.
const CODEX_CONFIG: &str = ".codex/config.toml";

/// `shell_environment_policy.set.GOAL_AGENT = "codex"` in .codex/config.toml (or its removal),
/// edited with `toml_edit` so the rest of the file stays as written.
fn codex_mark(ctx: &Ctx, root: &Path, uninstall: bool) -> Result<()> {
    let path = root.join(CODEX_CONFIG);
    let text = read(&path)?;
    let edited = crate::hosts::codex_mark(text.as_deref().unwrap_or(""), !uninstall)
        .map_err(|e| parse_error(&path, e))?;
    match edited {
        None => {}
        Some(new) if new.is_empty() && text.is_some() => {
            delete(&path)?;
            ctx.say(format!("removed {} (goal had created it)", path.display()));
        }
        Some(new) => {
            write_atomic(&path, new.as_bytes())?;
            let verb = if uninstall {
                "removed GOAL_AGENT=codex from"
            } else {
                "set GOAL_AGENT=codex (the agent's mark) in"
            };
            ctx.say(format!("{verb} {}", path.display()));
        }
    }
    Ok(())
}

/// Under Cursor, which runs Claude Code's hooks too: say so when .claude/settings.json runs goal
/// (a stop is judged once), or take goal out of it (`--no-claude`).
fn cursor_and_claude(ctx: &Ctx, root: &Path, no_claude: bool) -> Result<()> {
    let claude = crate::hosts::CLAUDE;
    if no_claude {
        hooks(ctx, root, claude, true, 0)?;
        return Ok(());
    }
    let path = root.join(claude.file);
    if read(&path)?.is_some_and(|t| t.contains(&claude.command())) {
        ctx.say(format!(
            "{} runs `{}` too, and Cursor runs Claude Code's hooks: goal judges each stop once; `goal integrate cursor --no-claude` takes goal out of {}",
            claude.file,
            claude.command(),
            claude.file
        ));
    }
    Ok(())
}

fn opencode(ctx: &Ctx, root: &Path, uninstall: bool) -> Result<u8> {
    let host = crate::hosts::OPENCODE;
    let path = root.join(host.file);
    if uninstall {
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("goal.js");
        return remove_files(ctx, &dir, &[(name, OPENCODE_PLUGIN)]);
    }
    if read(&path)?.as_deref() == Some(OPENCODE_PLUGIN) {
        ctx.say(format!(
            "the opencode plugin {} is up to date",
            path.display()
        ));
        return Ok(0);
    }
    write_atomic(&path, OPENCODE_PLUGIN.as_bytes())?;
    ctx.say(format!("wrote {}", path.display()));
    ctx.say("opencode loads it from .opencode/plugins/ on its next start; `goal` must be on PATH");
    Ok(0)
}

fn pi(ctx: &Ctx, root: &Path) -> Result<u8> {
    let dir = root.join(".pi/extensions/goal");
    let mut written = Vec::new();
    for (name, text) in PI_FILES {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(*text) {
            continue;
        }
        write_atomic(&path, text.as_bytes())?;
        written.push(path);
    }
    if written.is_empty() {
        ctx.say(format!(
            "the Pi extension in {} is up to date",
            dir.display()
        ));
    } else {
        for p in &written {
            ctx.say(format!("wrote {}", p.display()));
        }
        ctx.say("Pi loads it from .pi/extensions/ on its next start; `goal` must be on PATH (or set GOAL_BIN)");
    }
    Ok(0)
}

/// Delete the files goal wrote in `dir` (and `dir` when that empties it). A file changed since is
/// left, and said so (exit 1).
fn remove_files(ctx: &Ctx, dir: &Path, files: &[(&str, &str)]) -> Result<u8> {
    let mut kept: Vec<PathBuf> = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        match read(&path)? {
            None => {}
            Some(have) if have == *text => {
                delete(&path)?;
                ctx.say(format!("removed {}", path.display()));
            }
            Some(_) => kept.push(path),
        }
    }
    if kept.is_empty() {
        return Ok(0);
    }
    for path in &kept {
        eprintln!(
            "goal: {} differs from the file goal wrote, so it was left as it is: delete it yourself (`rm {}`) if it is not yours",
            path.display(),
            path.display()
        );
    }
    Ok(1)
}
