//! `goal`: keep a coding agent on one goal until the goal is proven done.

// The layers, top down (an arrow only points to its own rank or down; tests/layers.rs gives every
// module its rank and checks it): lib and cli → commands (arguments in, text or JSON out) → runner
// (goal run's state machine and agents) → ops (one function per operation) → audit, door, fleet,
// history, merge_driver, recheck (goals read back from git; the one commit door) → workspace →
// config, gate, proof, store, surface, texts, user_hooks (a goal's state) → ask, child, context,
// error, fault, repo (the only git user), trailers (the system) → the pure rules (goal_file,
// evidence, detect, lint, material, pin, summary, test_names, stagnation, retry, …).

/// Questions on the terminal with a timed default (never the agent's prompt).
pub mod ask;
/// Audit and replay: what a reviewer can check of a goal from git alone.
pub mod audit;
/// Commands goal runs (verify's command, clean-up checks, notify), each in its own process group.
pub mod child;
/// The Claude Code hooks: one table for `goal integrate claude` and the plugin's hooks file.
pub mod claude_hooks;
/// The command line: global options and the command list.
pub mod cli;
/// One module per command: arguments to options, an operation, the report rendered.
pub mod commands;
/// Settings: git config keys under `goal.`, with the original design's values as defaults.
pub mod config;
/// What every command gets: the global options, where to print, and the clock.
pub mod context;
/// The deslop scan of `goal done`: slop the goal's diff added. Pure.
pub mod deslop;
/// Goal-setting detection in a user message: triggers, anti-triggers, abandon phrases. Pure.
pub mod detect;
/// The commit door: gate, the user's hooks, signing, the journal; the one way a goal commit is made.
pub mod door;
/// One error type, its exit code and the hint that says what to run next.
pub mod error;
/// Evidence records: their hash chain, whether they pass, whether they prove a criterion. Pure.
pub mod evidence;
/// Fault injection for the crash-consistency tests.
pub mod fault;
/// Every goal in flight: rows for worktrees and branch tips, and `goal run`'s run.json marker.
pub mod fleet;
/// The commit gate: what the hooks and goal's own commits refuse. Pure rules over a staged tree.
pub mod gate;
/// The GOAL.md model: a lossless line-based document, parsed and edited in place. Pure.
pub mod goal_file;
/// Reading goals back from git history: goal commits, stagnation points, log rows.
pub mod history;
/// The agent hosts goal integrates with (Claude Code, Codex, Gemini CLI, opencode, Cursor): one
/// table, and goal's entries added to and removed from their settings files. Pure.
pub mod hosts;
/// JSON with comments, edited by spans so the user's bytes stay as they are. Pure.
pub mod jsonc;
/// JUnit XML reports: counting their test cases, reading those a run wrote.
pub mod junit;
/// The verifiability red line: a criterion must name something observable. Pure.
pub mod lint;
/// Whether a change of criteria is material (a lowered bar) or safe. Pure.
pub mod material;
/// `goal mcp`: the Model Context Protocol server on stdio, each tool a `goal` command.
pub mod mcp;
/// Merging the goal files of two branches: GOAL.md, evidence.jsonl, retry.json.
pub mod merge_driver;
/// Proof with teeth: the goal's change under mutation — hunks, tools, their outcomes.
pub mod mutants;
/// What goal adds to a pin's run so that its runner names each test (`-rfEsxXp`, `-v`,
/// `--verbose`, `PYTEST_ADDOPTS`, `GOFLAGS`): what it reports, never what it selects. Pure.
pub mod naming;
/// One function per operation (init, criteria, verify, check, iterate, done, block, resume,
/// abandon, restore, retries), the red and base runs, and the views status and report build.
pub mod ops;
/// A confirmation is the person's: the agent's mark (`GOAL_AGENT`, `GOAL_RUN_AGENT`) and what it
/// refuses.
pub mod person;
/// Pinned verification commands: the `(verify: `<command>`)` a criterion may end with. Pure.
pub mod pin;
/// One truth for "proven" and for "would `goal done` accept". Pure.
pub mod proof;
/// Finished goals rechecked on the current tree: their pins run again, nothing recorded.
pub mod recheck;
/// What the commands print that is more than a line: reports as text, markdown and pages. Pure.
pub mod render;
/// The only git user (git2 and the git CLI): open, snapshot trees, commit, walk history.
pub mod repo;
/// Backoff and the retry guard: pure rules over raw attempts.
pub mod retry;
/// `goal run`: the agent loop as a state machine, agent presets, the agent process, the display.
pub mod runner;
/// The path of the running `goal` binary, for the hook shims it installs.
pub mod self_path;
/// Stagnation (S1, S2, S3), auto-recoveries and escalation. Pure.
pub mod stagnation;
/// The goal folder's file names, the witness file, and the one ledger loader.
pub mod store;
/// Recognising test-runner summary lines in a command's output. Pure.
pub mod summary;
/// The test surface: test files and items, the red tree, weakening findings, runs on another tree.
pub mod surface;
/// Test names a run reported (from its output or JUnit reports), and the rules comparing them.
pub mod test_names;
/// The texts agents read of the goal's state (injection, continuation, save-progress). Pure.
pub mod texts;
/// The `Goal-*` trailers of goal commits: writing them and reading them back.
pub mod trailers;
/// What an agent's turn used (tokens, cost), read from each CLI's output. Pure.
pub mod usage;
/// The user's git hooks, run on goal's own commits as `git commit` would.
pub mod user_hooks;
/// The GitHub Actions workflows `goal ci init` writes (pure text).
pub mod workflow;
/// The goal's home in one worktree: paths, the lock, atomic writes, loading GOAL.md and the ledger.
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
                return ExitCode::from(error::ErrorKind::User.exit_code());
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

/// With `--json`, a failure is a document too: `{"error": {"kind", "message", "hint", "exit_code"}}` on
/// stdout (the text stays on stderr), so `goal … --json | jq` always has one to read.
pub fn report_json(error: &Error) {
    let document = serde_json::json!({
        "error": {
            "kind": error.kind().as_str(),
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
    context::set_quiet(cli.quiet);
    let ctx = Ctx {
        cwd,
        file: cli.file,
        json: cli.json,
        color: context::color_wanted(),
    };
    cli::run(&ctx, cli.command, <Cli as clap::CommandFactory>::command)
}

/// `goal: error: …` and `hint: …` on stderr.
pub fn report(error: &Error) {
    eprint!("{}", error.render());
}
