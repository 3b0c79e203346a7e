//! `goal`: keep a coding agent on one goal until the goal is proven done.

/// Audit and replay: what a reviewer can check of a goal from git alone.
pub mod audit;
pub mod child;
/// The Claude Code hooks in one table: `goal integrate claude` and the plugin's hooks.json.
pub mod claude_hooks;
pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod deslop;
pub mod detect;
pub mod error;
pub mod evidence;
pub mod fault;
/// Every goal in flight: rows for worktrees and branch tips, and `goal run`'s run.json marker.
pub mod fleet;
pub mod gate;
pub mod goal_file;
pub mod history;
/// JUnit XML reports: counting their test cases, reading those a run wrote.
pub mod junit;
pub mod lint;
pub mod material;
/// Merging the goal files of two branches: GOAL.md, evidence.jsonl, retry.json.
pub mod merge_driver;
pub mod pin;
pub mod prompt;
pub mod proof;
/// Finished goals rechecked on the current tree: their pins run again, nothing recorded.
pub mod recheck;
pub mod repo;
pub mod retry;
/// `goal run`: the agent loop as a state machine, agent presets, the agent process, the display.
pub mod runner;
/// The path of this binary, for the hook shims that call it back.
pub mod self_path;
pub mod stagnation;
pub mod summary;
/// The test surface: test files and items, the red tree, weakening findings, runner test names.
pub mod surface;
pub mod trailers;
pub mod user_hooks;
pub mod workspace;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::Cli;
use crate::context::Ctx;
use crate::error::Error;

/// Parse the command line, run the command, map the outcome to an exit code.
pub fn main() -> ExitCode {
    child::quiet_on_closed_pipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Usage errors are diagnostics like any other: `goal: error: …` on stderr, exit 2.
            if e.use_stderr() {
                use std::io::IsTerminal;
                let styled = e.render();
                let colour = std::io::stderr().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
                let text = if colour {
                    styled.ansi().to_string()
                } else {
                    styled.to_string()
                };
                eprint!("goal: {text}");
                return ExitCode::from(2);
            }
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    let json = cli.json;
    match run(cli) {
        // A signal that stopped a child (notify, say) still ends the command as interrupted.
        Ok(code) => ExitCode::from(
            child::interrupted().map_or(code, |s| u8::try_from(128 + s).unwrap_or(130)),
        ),
        Err(e) => {
            report(&e);
            if json && !context::wrote_json() {
                report_json(&e);
            }
            ExitCode::from(e.exit_code())
        }
    }
}

/// With `--json`, a failure is a document too: `{"error": {"message", "hint", "exit_code"}}` on
/// stdout (the text stays on stderr), so `goal … --json | jq` always has one to read.
pub fn report_json(error: &Error) {
    let document = serde_json::json!({
        "error": {
            "message": error.to_string(),
            "hint": error.hint(),
            "exit_code": error.exit_code(),
        }
    });
    println!(
        "{}",
        serde_json::to_string_pretty(&document).unwrap_or_default()
    );
}

/// Run a parsed command line; Ok carries the exit code of a command that answered.
pub fn run(cli: Cli) -> Result<u8, Error> {
    let process_dir =
        std::env::current_dir().map_err(Error::io("cannot read the current directory", "."))?;
    let cwd = match &cli.dir {
        None => process_dir,
        Some(dir) => {
            let dir: PathBuf = if dir.is_absolute() {
                dir.clone()
            } else {
                process_dir.join(dir)
            };
            if !dir.is_dir() {
                return Err(Error::usage(
                    format!("-C {}: no such directory", dir.display()),
                    "give an existing directory to -C",
                ));
            }
            dir
        }
    };
    let ctx = Ctx {
        cwd,
        file: cli.file,
        json: cli.json,
        quiet: cli.quiet,
        color: context::color_wanted(),
    };
    commands::run(&ctx, cli.command)
}

/// `goal: error: …` and `hint: …` on stderr.
pub fn report(error: &Error) {
    eprintln!("goal: error: {error}");
    if let Some(hint) = error.hint() {
        eprintln!("hint: {hint}");
    }
}
