//! `goal iterate`: record an iteration, commit the work, judge stagnation, escalate.

use serde_json::json;

use super::{Commit, require_in_progress, short};
use crate::context::{Ctx, now_rfc3339};
use crate::error::{Error, Result};
use crate::goal_file::GoalFile;
use crate::history;
use crate::repo::Stage;
use crate::stagnation::{STRATEGY_PROMPT, Verdict};
use crate::trailers::Action;
use crate::workspace::Workspace;

/// Record iteration N+1: append it to the Progress Log (one bullet per -m), commit the goal files
/// and all other changes of the working tree (as `git add -A`), then judge stagnation.
///
/// Exit 1 when stagnation escalates and the goal is blocked.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What was done or found (repeatable; one bullet each).
    #[arg(short = 'm', long = "message", value_name = "LINE", required = true)]
    pub messages: Vec<String>,
    /// Commit the goal files only (you committed your code yourself).
    #[arg(long)]
    pub goal_only: bool,
    #[command(flatten)]
    pub commit: super::CommitFlags,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?.with(&args.commit);
    ws.repo.ensure_idle()?;
    let messages: Vec<String> = args
        .messages
        .iter()
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
        .collect();
    if messages.is_empty() {
        return Err(Error::usage(
            "every -m is empty",
            "goal iterate -m \"<what you did and verified>\"",
        ));
    }
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    require_in_progress(&goal, "record an iteration")?;
    let number = goal.iteration + 1;
    goal.append_iteration(number, &messages);
    goal.set_iteration(number);
    goal.set_updated(&now_rfc3339());

    let stage = if args.goal_only {
        Stage::GoalOnly
    } else {
        Stage::All
    };
    let mut commit = Commit::new(
        Action::Iterate,
        format!("iteration {number}: {}", messages[0]),
    );
    commit.stage = stage;
    commit.body = messages.iter().map(|m| format!("- {m}")).collect();
    commit.evidence = evidence_ids(&ws, &goal, stage)?;
    commit.new_retry_episode(&ws);
    let oid = commit.make(&ws, Some(&goal), &goal)?;

    let verdict = history::stagnation(&ws.repo, &ws.goal_dir, &goal, &ws.config)?;
    let escalated = if verdict.escalate {
        Some(escalate(ctx, &ws, &mut goal, &verdict)?)
    } else {
        None
    };

    if ctx.json {
        ctx.emit_json(&json!({
            "iteration": number,
            "commit": oid.to_string(),
            "passing": goal.passing_count(),
            "total": goal.criteria.len(),
            "stagnation": verdict,
            "prompt": verdict.signals.stagnant.then_some(STRATEGY_PROMPT),
            "escalated": escalated.is_some(),
            "status": goal.status,
        }))?;
    } else {
        ctx.say(format!(
            "Iteration {number} recorded — committed {} · {}/{} criteria passing",
            short(oid),
            goal.passing_count(),
            goal.criteria.len()
        ));
        super::print_added(ctx, &ws, Some(oid));
        let s = verdict.signals;
        if s.stagnant {
            ctx.say(format!(
                "{} (S1 {}, S2 {}, S3 {}) — auto-recovery {} of {}",
                ctx.red("stagnant"),
                s.s1,
                s.s2,
                s.s3,
                verdict.recoveries,
                ws.config.escalate_after
            ));
            ctx.say(STRATEGY_PROMPT);
        } else {
            ctx.say(format!(
                "not stagnant (S1 {}, S2 {}, S3 {})",
                s.s1, s.s2, s.s3
            ));
        }
    }
    if escalated.is_some() {
        return Ok(1);
    }
    Ok(0)
}

/// Ids of evidence that proves each passed criterion on the tree being committed.
fn evidence_ids(ws: &Workspace, goal: &GoalFile, stage: Stage) -> Result<Vec<String>> {
    let ledger = ws.ledger()?;
    if ledger.records.is_empty() || goal.passing_count() == 0 {
        return Ok(Vec::new());
    }
    let tree = match stage {
        Stage::All => ws.worktree_tree()?,
        Stage::GoalOnly => match ws.repo.head_tree()? {
            Some(t) => ws.repo.tree_without(t, &ws.goal_dir)?,
            None => return Ok(Vec::new()),
        },
    }
    .to_string();
    let mut ids = Vec::new();
    for c in goal.criteria.iter().filter(|c| c.passed) {
        if let Ok(record) = ledger.proof(c.number, &c.text, &tree)
            && !ids.contains(&record.id)
        {
            ids.push(record.id.clone());
        }
    }
    Ok(ids)
}

/// Block the goal after repeated stagnation: Blocked entry, commit, stderr line, notify.
fn escalate(ctx: &Ctx, ws: &Workspace, goal: &mut GoalFile, verdict: &Verdict) -> Result<String> {
    let message = format!(
        "Stagnation: no progress over {} iterations after {} auto-recoveries (S1 {}, S2 {}, S3 {}); a person should look at the approach",
        ws.config.stagnation_window,
        verdict.recoveries,
        verdict.signals.s1,
        verdict.signals.s2,
        verdict.signals.s3
    );
    let subject = format!(
        "escalate: blocked by stagnation at iteration {}",
        goal.iteration
    );
    super::escalate(ctx, ws, goal, subject, &message, Vec::new())?;
    Ok(message)
}

/// Run `goal.notify` with the message as its one argument (never through a shell's parsing of it).
pub fn notify(ctx: &Ctx, ws: &Workspace, message: &str) {
    let Some(command) = &ws.config.notify else {
        return;
    };
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{command} \"$1\""))
        .arg("goal-notify")
        .arg(message)
        .current_dir(ws.root())
        .stdin(std::process::Stdio::null())
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => ctx.note(format!(
            "warning: notify command `{command}` exited {}",
            s.code().unwrap_or(-1)
        )),
        Err(e) => ctx.note(format!(
            "warning: cannot run notify command `{command}`: {e}"
        )),
    }
}
