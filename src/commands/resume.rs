//! `goal resume`: back to in-progress, the `## Blocked` section removed.

use serde_json::json;

use super::short;
use crate::context::{Ctx, now_rfc3339};
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::Status;
use crate::trailers::Action;
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
    ws.repo.ensure_idle()?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    if goal.status == Status::InProgress {
        return Err(Error::refused(
            format!(
                "the goal is {}, not blocked: nothing to resume",
                goal.status
            ),
            "see `goal status`",
        ));
    }
    goal.clear_blocked();
    goal.set_status(Status::InProgress);
    goal.set_updated(&now_rfc3339());
    let mut commit = Commit::new(Action::Resume, "resume");
    // A resumed goal starts a fresh retry episode.
    commit.new_retry_episode(&ws);
    let oid = commit.make(&ws, Some(&goal), &goal)?;
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
