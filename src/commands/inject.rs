//! `goal inject` and `goal continuation`: the state-injection texts.

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::texts::{continuation, continuation_en, injection};
use crate::workspace::Workspace;

/// Print the goal's state for an agent's context (before every turn). Prints nothing and exits 0
/// when there is no goal.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The share of the context window in use (0–1; a number above 1 is read as a percentage);
    /// above 0.8 the save-progress directive is added.
    #[arg(long, value_name = "F")]
    pub context_usage: Option<f64>,
}

/// Print the fixed two-line continuation prompt (Chinese; English with `git config goal.language
/// en`).
#[derive(Debug, clap::Args)]
pub struct ContinuationArgs {}

/// Accept 0–1, or a percentage above 1 (Pi reports 0–100, more when a window overflows).
fn usage_share(value: f64) -> Result<f64> {
    if !value.is_finite() || value < 0.0 {
        return Err(Error::usage(
            format!("--context-usage {value} is not a share of the context window"),
            "give a number from 0 to 1 (or a percentage from 0 to 100), e.g. `--context-usage 0.85`",
        ));
    }
    Ok(if value > 1.0 { value / 100.0 } else { value })
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let usage = args.context_usage.map(usage_share).transpose()?;
    // Outside a repository there is no goal either: nothing to inject.
    let ws = match Workspace::open(ctx) {
        Err(Error::NotARepo { .. }) => return Ok(0),
        other => other?,
    };
    let Some(goal) = ws.read_goal(crate::workspace::Part::View)? else {
        return Ok(0);
    };
    let proof = crate::ops::proof(&ws, &goal)?;
    print!("{}", injection(&goal, &proof, usage));
    Ok(0)
}

pub fn run_continuation(ctx: &Ctx, _args: ContinuationArgs) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let goal = ws.goal()?;
    // The progress figure is the proven count, as everywhere.
    let proven = crate::ops::proof(&ws, &goal)?.proven;
    match ws.config.language {
        crate::config::Language::Zh => print!("{}", continuation(&goal, proven)),
        crate::config::Language::En => print!("{}", continuation_en(&goal, proven)),
    }
    Ok(0)
}
