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
    Init(commands::init::Args),
    Status(commands::status::Args),
    #[command(subcommand)]
    Criteria(commands::criteria::Command),
    Verify(commands::verify::Args),
    Check(commands::check::CheckArgs),
    Uncheck(commands::check::UncheckArgs),
    Iterate(commands::iterate::Args),
    Retry(commands::retry::Args),
    Run(commands::run::Args),
    Block(commands::block::Args),
    Resume(commands::resume::Args),
    Done(commands::done::Args),
    Abandon(commands::abandon::Args),
    Restore(commands::restore::Args),
    Log(commands::log::Args),
    Audit(commands::audit::Args),
    Recheck(commands::recheck::Args),
    Fleet(commands::fleet::Args),
    #[command(subcommand)]
    Ci(commands::ci::Command),
    #[command(hide = true)]
    MergeDriver(commands::merge_driver::Args),
    Report(commands::report::Args),
    Mcp(commands::mcp::Args),
    #[command(subcommand)]
    Hooks(commands::hooks::Command),
    Detect(commands::detect::Args),
    Inject(commands::inject::Args),
    Continuation(commands::inject::ContinuationArgs),
    #[command(subcommand)]
    Attempt(commands::attempt::Command),
    #[command(subcommand)]
    Hook(commands::hook::Command),
    #[command(subcommand)]
    Integrate(commands::integrate::Command),
    Config(commands::config::Args),
    Demo(commands::demo::Args),
    Completions(commands::completions::Args),
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
