//! `goal resume`: back to in-progress, the `## Blocked` section removed.

use serde_json::json;

use super::short;
use crate::context::Ctx;
use crate::error::Result;
use crate::workspace::Workspace;

/// Set a blocked goal back to in-progress and remove its Blocked section (commit). A goal
/// marked complete (by hand, or before its proof went stale) is set back to in-progress too.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub commit: super::CommitFlags,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    let crate::ops::block::Changed { goal, commit: oid } = crate::ops::block::resume(&ws)?;
    if ctx.json {
        ctx.emit_json(&json!({"status": goal.status, "commit": oid.to_string()}))?;
    } else {
        ctx.say(format!(
            "Resumed — committed {}. Continue with the next iteration.",
            short(oid)
        ));
    }
    Ok(0)
}
