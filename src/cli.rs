//! The command line: global options and the command list.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::commands;
use crate::context::Ctx;
use crate::error::Result;

/// The command reference (docs/reference.md), generated from these definitions.
pub mod reference;

/// Keep a coding agent on one goal until the goal is proven done.
///
/// The goal lives in .agents/goal/GOAL.md and every change of it is a git commit with Goal-*
/// trailers. Exit codes: 0 success, 1 refused or a negative answer, 2 bad input.
#[derive(Debug, Parser)]
#[command(name = "goal", version, max_term_width = 100)]
pub struct Cli {
    /// Run as if goal was started in DIR.
    #[arg(short = 'C', value_name = "DIR", global = true)]
    pub dir: Option<PathBuf>,
    /// Machine output: one JSON document on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// Print nothing but errors.
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// The goal file, inside the worktree (default .agents/goal/GOAL.md).
    #[arg(long, value_name = "PATH", env = "GOAL_FILE", global = true)]
    pub file: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    #[command(about = "Start a goal: GOAL.md with its criteria, in one commit")]
    Init(commands::init::Args),
    #[command(about = "Show the active goal: each criterion, its evidence and the next step")]
    Status(commands::status::Args),
    #[command(subcommand, about = "Add, pin, edit or remove acceptance criteria")]
    Criteria(commands::criteria::Command),
    #[command(about = "Run a criterion's test and record the evidence")]
    Verify(commands::verify::Args),
    #[command(about = "Tick a criterion that has passing evidence")]
    Check(commands::check::CheckArgs),
    #[command(about = "Untick a criterion")]
    Uncheck(commands::check::UncheckArgs),
    #[command(about = "Record an iteration in the progress log and commit it")]
    Iterate(commands::iterate::Args),
    #[command(about = "Record a failed attempt of the current iteration")]
    Retry(commands::retry::Args),
    #[command(about = "Drive an agent CLI, turn after turn, until the goal is proven done")]
    Run(commands::run::Args),
    #[command(about = "Mark the goal blocked, with the reason")]
    Block(commands::block::Args),
    #[command(about = "Set a blocked goal back to in-progress")]
    Resume(commands::resume::Args),
    #[command(about = "Complete the goal once its tests prove it, in two commits")]
    Done(commands::done::Args),
    #[command(about = "Give up the active goal (a person's command)")]
    Abandon(commands::abandon::Args),
    #[command(about = "Bring back the last abandoned goal of this branch")]
    Restore(commands::restore::Args),
    #[command(about = "One row per iteration, read back from the goal's commits")]
    Log(commands::log::Args),
    #[command(about = "Check the goal commits of a revision range and their evidence")]
    Audit(commands::audit::Args),
    #[command(about = "Run the pins of every finished goal again on the current tree")]
    Recheck(commands::recheck::Args),
    #[command(about = "Every goal in flight, one row per worktree or branch")]
    Fleet(commands::fleet::Args),
    #[command(subcommand, about = "Set up CI for goals (GitHub Actions)")]
    Ci(commands::ci::Command),
    #[command(hide = true)]
    MergeDriver(commands::merge_driver::Args),
    #[command(about = "Summarise a goal for a pull request (text, markdown, HTML, JSON)")]
    Report(commands::report::Args),
    #[command(about = "Serve goal's tools over the Model Context Protocol (stdio)")]
    Mcp(commands::mcp::Args),
    #[command(
        subcommand,
        about = "Manage the git hooks (for agent hosts' hooks: `goal hook`)"
    )]
    Hooks(commands::hooks::Command),
    #[command(about = "Tell whether a user message sets or drops a goal")]
    Detect(commands::detect::Args),
    #[command(about = "Print the goal's state for an agent's context")]
    Inject(commands::inject::Args),
    #[command(about = "Print the continuation prompt")]
    Continuation(commands::inject::ContinuationArgs),
    #[command(
        subcommand,
        about = "The retry guard: declared attempts and the retry policy"
    )]
    Attempt(commands::attempt::Command),
    #[command(
        subcommand,
        about = "Answer an agent host's hook event (for the git hooks: `goal hooks`)"
    )]
    Hook(commands::hook::Command),
    #[command(
        subcommand,
        about = "Install or remove an agent host's adapter in this project"
    )]
    Integrate(commands::integrate::Command),
    #[command(about = "List every goal.* setting with its value in force")]
    Config(commands::config::Args),
    #[command(about = "Walk a whole goal loop in a scratch repository")]
    Demo(commands::demo::Args),
    #[command(about = "Print a shell completion script")]
    Completions(commands::completions::Args),
    #[command(about = "Print goal's manual page (roff)")]
    Man(commands::completions::ManArgs),
}

/// Run one command; `app` gives goal's whole command line as clap describes it (for completions
/// and the manual page).
pub fn run(ctx: &Ctx, command: Command, app: fn() -> clap::Command) -> Result<u8> {
    use commands::*;
    match command {
        Command::Init(args) => init::run(ctx, args),
        Command::Status(args) => status::run(ctx, args),
        Command::Criteria(cmd) => criteria::run(ctx, cmd),
        Command::Verify(args) => verify::run(ctx, args),
        Command::Check(args) => check::run_check(ctx, args),
        Command::Uncheck(args) => check::run_uncheck(ctx, args),
        Command::Iterate(args) => iterate::run(ctx, args),
        Command::Retry(args) => retry::run(ctx, args),
        Command::Run(args) => run::run(ctx, args, app),
        Command::Block(args) => block::run(ctx, args),
        Command::Resume(args) => resume::run(ctx, args),
        Command::Done(args) => done::run(ctx, args),
        Command::Abandon(args) => abandon::run(ctx, args),
        Command::Restore(args) => restore::run(ctx, args),
        Command::Log(args) => log::run(ctx, args),
        Command::Audit(args) => audit::run(ctx, args),
        Command::Recheck(args) => recheck::run(ctx, args),
        Command::Fleet(args) => fleet::run(ctx, args),
        Command::Ci(cmd) => ci::run(ctx, cmd),
        Command::MergeDriver(args) => merge_driver::run(ctx, args),
        Command::Report(args) => report::run(ctx, args),
        Command::Mcp(args) => mcp::run(ctx, args),
        Command::Hooks(cmd) => hooks::run(ctx, cmd),
        Command::Detect(args) => detect::run(ctx, args),
        Command::Inject(args) => inject::run(ctx, args),
        Command::Continuation(args) => inject::run_continuation(ctx, args),
        Command::Attempt(cmd) => attempt::run(ctx, cmd),
        Command::Hook(cmd) => hook::run(ctx, cmd),
        Command::Integrate(cmd) => integrate::run(ctx, cmd),
        Command::Config(args) => config::run(ctx, args),
        Command::Demo(args) => demo::run(ctx, args),
        Command::Completions(args) => completions::run(ctx, args, app()),
        Command::Man(args) => completions::run_man(ctx, args, app()),
    }
}
