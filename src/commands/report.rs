//! `goal report`: the summary of a goal a person pastes into a pull request.

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::ops::report::{build, markdown, text};
use crate::workspace::Workspace;

/// Summarise a goal, active or finished, for a pull request: the goal, each criterion with its
/// evidence (command, tests passed/failed, commit; unpinned commands marked), iterations and
/// time spent, retries, stagnation episodes, material changes, hand-made commits, the
/// clean-up findings of the goal's diff, and each `goal run` that worked on it (the agent of each
/// iteration, what its agents reported using).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A commit of the goal, or after it (default HEAD): the last goal on its history is shown.
    #[arg(value_name = "REV")]
    pub rev: Option<String>,
    /// GitHub-flavoured Markdown, with the criteria as a table.
    #[arg(long)]
    pub markdown: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    if ctx.json && args.markdown {
        return Err(Error::usage(
            "--json and --markdown cannot be used together",
            "pick one: `goal report --json` or `goal report --markdown`",
        ));
    }
    let ws = Workspace::open_history(ctx)?;
    let report = build(&ws, args.rev.as_deref().unwrap_or("HEAD"))?;
    if ctx.json {
        ctx.emit_json(&report)?;
    } else if args.markdown {
        ctx.say(markdown(&report));
    } else {
        ctx.say(text(&report));
    }
    Ok(0)
}
