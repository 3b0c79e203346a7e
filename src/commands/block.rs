//! `goal block`: mark the goal blocked, with the reason in a `## Blocked` section.

use serde_json::json;

use super::short;
use crate::context::Ctx;
use crate::error::Result;
use crate::workspace::Workspace;

/// Set status blocked and write the reason under `## Blocked` (commit). `goal resume` undoes it.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What blocks the goal, and what would unblock it.
    #[arg(long, required = true)]
    pub reason: String,
    #[command(flatten)]
    pub commit: super::CommitFlags,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    let crate::ops::block::Changed { goal, commit: oid } =
        crate::ops::block::block(&ws, &args.reason)?;
    let reason = args.reason.trim();
    if ctx.json {
        ctx.emit_json(
            &json!({"status": goal.status, "blocked": goal.blocked, "commit": oid.to_string()}),
        )?;
    } else {
        ctx.say(format!("Blocked: {reason} — committed {}", short(oid)));
        ctx.say("When it is unblocked, run `goal resume`.");
    }
    Ok(0)
}
