//! `goal abandon`: delete the goal files in a commit marked `Goal-Status: abandoned`.

use crate::repo::Oid;
use serde_json::json;

use super::short;
use crate::context::Ctx;
use crate::door::Commit;
use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::trailers::Action;
use crate::workspace::Workspace;

/// Give up the active goal: delete its files in one commit (Goal-Status: abandoned).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Why the goal is abandoned (recorded in the commit).
    #[arg(long)]
    pub reason: Option<String>,
    #[command(flatten)]
    pub commit: super::CommitFlags,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    let _lock = ws.lock()?;
    let goal = ws.goal()?;
    let reason = args
        .reason
        .unwrap_or_else(|| "abandoned by the user".into());
    let oid = abandon(ctx, &ws, &goal, &reason)?;
    if ctx.json {
        ctx.emit_json(&json!({
            "abandoned": true,
            "goal": goal.goal,
            "iterations": goal.iteration,
            "passing": goal.passing_count(),
            "total": goal.criteria.len(),
            "reason": reason,
            "commit": oid.to_string(),
        }))?;
    }
    Ok(0)
}

/// Commit the deletion of the goal files and print a short summary.
pub fn abandon(ctx: &Ctx, ws: &Workspace, goal: &GoalFile, reason: &str) -> Result<Oid> {
    let oid = abandon_commit(ws, goal, reason).make(ws, None, goal)?;
    say_abandoned(ctx, goal, reason, oid);
    Ok(oid)
}

/// The commit that deletes the goal files (Goal-Status: abandoned).
pub fn abandon_commit(ws: &Workspace, goal: &GoalFile, reason: &str) -> Commit<'static> {
    let mut commit = Commit::new(Action::Abandon, format!("abandon \"{}\"", goal.goal));
    commit.body = vec![format!("Reason: {reason}")];
    commit.status = Some("abandoned");
    commit.other = vec![(ws.evidence_rel(), None), (ws.retry_rel(), None)];
    commit
}

/// The short summary of an abandoned goal.
pub fn say_abandoned(ctx: &Ctx, goal: &GoalFile, reason: &str, oid: Oid) {
    ctx.say(format!("Abandoned: {}", goal.goal));
    ctx.say(format!(
        "  {}/{} criteria passed after {} iteration(s); reason: {reason}",
        goal.passing_count(),
        goal.criteria.len(),
        goal.iteration
    ));
    ctx.say(format!(
        "  committed {} (the goal stays readable with `goal log --all`); restore it with `goal restore`",
        short(oid)
    ));
}
