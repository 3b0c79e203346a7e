//! `goal restore`: bring back the last abandoned goal of this branch, as it was, in a commit.

use serde_json::json;

use super::short;
use crate::context::Ctx;
use crate::error::Result;
use crate::workspace::Workspace;

/// Bring back the last abandoned goal of this branch: its GOAL.md, evidence and retry state as
/// they were just before it was abandoned, in a commit (Goal-Action: restore).
///
/// Refused when a goal is active, or when no goal was abandoned since the last restore.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub commit: super::CommitFlags,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    let crate::ops::restore::Restored {
        goal,
        abandoned_in,
        commit: oid,
    } = crate::ops::restore::restore(&ws)?;
    if ctx.json {
        ctx.emit_json(&json!({
            "restored": true,
            "goal": goal.goal,
            "status": goal.status,
            "iteration": goal.iteration,
            "passing": goal.passing_count(),
            "total": goal.criteria.len(),
            "abandoned_in": abandoned_in.to_string(),
            "commit": oid.to_string(),
        }))?;
        return Ok(0);
    }
    ctx.say(format!("Restored: {}", goal.goal));
    ctx.say(format!(
        "  {}/{} criteria passed, iteration {} ({}), as it was before {}",
        goal.passing_count(),
        goal.criteria.len(),
        goal.iteration,
        goal.status,
        short(abandoned_in)
    ));
    ctx.say(format!(
        "  committed {}; see where it stands with `goal status`",
        short(oid)
    ));
    Ok(0)
}
