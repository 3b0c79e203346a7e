//! `goal abandon`: delete the goal files in a commit marked `Goal-Status: abandoned`.

use crate::repo::Oid;
use serde_json::json;

use super::short;
use crate::context::Ctx;
use crate::error::Result;
use crate::goal_file::GoalFile;
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
    crate::ops::confirm::check_persons_choice("abandoning the goal", "goal abandon")?;
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    let reason = args
        .reason
        .unwrap_or_else(|| "abandoned by the user".into());
    let done = crate::ops::abandon::abandon(&ws, &reason)?;
    say_abandoned(ctx, &done.goal, &done.reason, done.commit);
    if ctx.json {
        ctx.emit_json(&json!({
            "abandoned": true,
            "goal": done.goal.goal,
            "iterations": done.goal.iteration,
            "passing": done.goal.passing_count(),
            "total": done.goal.criteria.len(),
            "reason": done.reason,
            "commit": done.commit.to_string(),
        }))?;
    }
    Ok(0)
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
