//! `goal log`: the audit of a goal, read back from git history.

use crate::context::Ctx;
use crate::error::Result;
use crate::history::{self, GoalHistory, Row};
use crate::workspace::Workspace;

/// One row per iteration from the commits with Goal-* trailers (first parent from HEAD): date,
/// passing X/Y, the iteration diff, the first log line, evidence ids and flags (stagnant,
/// material-change, unverified-check, blocked). Without --all: the most recent goal.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Every goal found in history, finished and abandoned ones included.
    #[arg(long)]
    pub all: bool,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let goals = history::goals(&ws.repo, &ws.goal_dir, &ws.goal_rel, &ws.config, args.all)?;
    if ctx.json {
        // Oldest first, across goals too.
        let rows: Vec<&Row> = goals.iter().rev().flat_map(|g| g.rows.iter()).collect();
        ctx.emit_json(&rows)?;
        return Ok(0);
    }
    if goals.is_empty() {
        ctx.say("No goal commits in this history. Start one with `goal init \"<goal>\" -c \"<criterion>\"`.");
        return Ok(0);
    }
    for (i, g) in goals.iter().rev().enumerate() {
        if i > 0 {
            ctx.say("");
        }
        print_goal(ctx, g);
    }
    Ok(0)
}

fn print_goal(ctx: &Ctx, g: &GoalHistory) {
    ctx.say(format!("{} {} ({})", ctx.bold("Goal:"), g.goal, g.status));
    for r in &g.rows {
        let flags = if r.flags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", r.flags.join(", "))
        };
        let flags = if r
            .flags
            .iter()
            .any(|f| f == "unverified-check" || f == "broken-evidence-chain")
        {
            ctx.red(&flags)
        } else if flags.is_empty() {
            flags
        } else {
            ctx.yellow(&flags)
        };
        let evidence = if r.evidence.is_empty() {
            String::new()
        } else {
            format!("  evidence {}", r.evidence.join(","))
        };
        ctx.say(format!(
            "{:>4}  {}  {}  {}/{}  {} files +{} -{}  {}{}{}",
            r.iteration,
            &r.commit[..10],
            &r.date[..10.min(r.date.len())],
            r.passing,
            r.total,
            r.files_changed,
            r.insertions,
            r.deletions,
            r.summary,
            evidence,
            flags
        ));
    }
    for id in &g.unmarked_deletions {
        ctx.say(ctx.red(&format!(
            "      {}  deleted the goal files without a Goal-Status: complete|abandoned trailer",
            &id[..10]
        )));
    }
    ctx.say(format!("passing: {}", history::sparkline(&g.rows)));
}
