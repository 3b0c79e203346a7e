//! The command line: global options and the command list.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::commands;

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
    #[command(hide = true)]
    MergeDriver(commands::merge_driver::Args),
    Report(commands::report::Args),
    #[command(subcommand)]
    Hooks(commands::hooks::Command),
    Detect(commands::detect::Args),
    Inject(commands::inject::Args),
    Continuation(commands::inject::ContinuationArgs),
    #[command(subcommand)]
    Attempt(commands::attempt::Command),
    #[command(subcommand)]
    Hook(commands::claude_hook::Command),
    #[command(subcommand)]
    Integrate(commands::integrate::Command),
    Config(commands::config::Args),
    Demo(commands::demo::Args),
    Completions(commands::completions::Args),
    Man(commands::completions::ManArgs),
}
