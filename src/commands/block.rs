//! `goal block`: mark the goal blocked, with the reason in a `## Blocked` section.

use serde_json::json;

use super::short;
use crate::context::{Ctx, now_rfc3339};
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::Status;
use crate::trailers::Action;
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
    ws.repo.ensure_idle()?;
    let reason = args.reason.trim();
    if reason.is_empty() {
        return Err(Error::usage(
            "the reason is empty",
            "goal block --reason \"<what blocks it>\"",
        ));
    }
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    if goal.status == Status::Complete {
        return Err(Error::refused(
            "the goal is complete: nothing to block",
            "finish it with `goal done`",
        ));
    }
    goal.set_blocked(reason);
    goal.set_status(Status::Blocked);
    goal.set_updated(&now_rfc3339());
    let mut commit = Commit::new(Action::Block, format!("block: {reason}"));
    commit.body = vec![format!("Reason: {reason}")];
    let oid = commit.make(&ws, Some(&goal), &goal)?;
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
