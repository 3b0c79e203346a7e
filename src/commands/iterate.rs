//! `goal iterate`: record an iteration, commit the work, judge stagnation, escalate.

use serde_json::json;

use super::{Commit, require_in_progress, short};
use crate::context::{Ctx, now_rfc3339};
use crate::error::{Error, Result};
use crate::goal_file::GoalFile;
use crate::history;
use crate::proof::{self, Proof, State};
use crate::repo::{Oid, Stage};
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
    /// The `goal run` this iteration belongs to (set by `goal run` for its agent).
    #[arg(long, hide = true, env = "GOAL_RUN_ID", value_name = "ID")]
    pub run_id: Option<String>,
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
    commit.run = args.run_id.clone().filter(|r| !r.trim().is_empty());
    commit.body = messages.iter().map(|m| format!("- {m}")).collect();
    // Ticks follow proof: a tick not proven on the tree being committed is taken back here (in
    // the committed file and the working file), never a reason to refuse the iteration.
    let tree = committed_tree(&ws, stage)?;
    let proof = committed_proof(&ws, &goal, tree)?;
    let mut unticked = Vec::new();
    for p in proof
        .criteria
        .iter()
        .filter(|p| p.ticked && p.state != State::Proven)
    {
        goal.set_passed(p.number, false);
        unticked.push(p.clone());
    }
    for p in proof
        .criteria
        .iter()
        .filter(|p| p.ticked && p.state == State::Proven)
    {
        if let Some(id) = &p.evidence
            && !commit.evidence.contains(id)
        {
            commit.evidence.push(id.clone());
        }
    }
    commit.new_retry_episode(&ws);
    commit.verdict = Some(verdict_before_commit(&ws, &goal, number, tree)?);
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
            "proven": proof.proven,
            "total": goal.criteria.len(),
            "unticked": unticked.iter().map(|p| serde_json::json!({
                "number": p.number,
                "state": p.state,
                "why": p.why,
                "rerun": p.rerun,
            })).collect::<Vec<_>>(),
            "stagnation": verdict,
            "prompt": verdict.signals.stagnant.then_some(STRATEGY_PROMPT),
            "escalated": escalated.is_some(),
            "status": goal.status,
        }))?;
    } else {
        for p in &unticked {
            let why = p
                .why
                .as_deref()
                .unwrap_or("not proven on the committed code");
            let rerun = match p.rerun_line() {
                Some(line) if !why.contains(line.as_str()) => format!("; re-run `{line}`"),
                _ => String::new(),
            };
            ctx.say(format!(
                "unticked criterion {} ({}): {why}{rerun}",
                p.number,
                p.state.as_str()
            ));
        }
        ctx.say(format!(
            "Iteration {number} recorded — committed {} · {}/{} criteria proven",
            short(oid),
            goal.passing_count(),
            goal.criteria.len()
        ));
        super::print_added(ctx, &ws, Some(oid));
        let s = verdict.signals;
        if s.stagnant {
            ctx.say(format!(
                "{} ({}) — auto-recovery {} of {}",
                ctx.red("stagnant"),
                crate::stagnation::explain(&s, ws.config.stagnation_window),
                verdict.recoveries,
                ws.config.escalate_after
            ));
            ctx.say(STRATEGY_PROMPT);
        } else {
            ctx.say(format!(
                "not stagnant ({})",
                crate::stagnation::explain(&s, ws.config.stagnation_window)
            ));
        }
    }
    if escalated.is_some() {
        return Ok(1);
    }
    Ok(0)
}

/// The code this iteration commits, without the goal folder: the working tree, or HEAD's code
/// with `--goal-only`.
fn committed_tree(ws: &Workspace, stage: Stage) -> Result<Option<Oid>> {
    Ok(match stage {
        Stage::All => Some(ws.worktree_tree()?),
        Stage::GoalOnly => match ws.repo.head_tree()? {
            Some(t) => Some(ws.repo.tree_without(t, &ws.goal_dir)?),
            None => None,
        },
    })
}

/// Every criterion judged on the code this iteration commits.
fn committed_proof(ws: &Workspace, goal: &GoalFile, tree: Option<Oid>) -> Result<Proof> {
    let ledger = ws.ledger()?;
    if ledger.records.is_empty() {
        return Ok(proof::judge(goal, &ledger, None).seen_from(&ws.here));
    }
    let tree = tree.map(|t| t.to_string());
    Ok(proof::judge(goal, &ledger, tree.as_deref()).seen_from(&ws.here))
}

/// The verdict this iteration will get once committed, for its `Goal-Verdict` trailer:
/// `progress`, `stagnant` or `escalated`.
fn verdict_before_commit(
    ws: &Workspace,
    goal: &GoalFile,
    number: u64,
    tree: Option<Oid>,
) -> Result<&'static str> {
    let Some(tree) = tree else {
        return Ok("progress");
    };
    let pending = crate::stagnation::Point {
        iteration: number,
        passing: goal.passing_count(),
        progress_words: goal.log_entry(number).is_some_and(|e| {
            crate::stagnation::has_keyword(goal.entry_text(&e), &ws.config.progress_keywords)
        }),
        tree: tree.to_string(),
    };
    let verdict =
        history::stagnation_with(&ws.repo, &ws.goal_dir, goal, &ws.config, Some(pending))?;
    Ok(if verdict.escalate {
        "escalated"
    } else if verdict.signals.stagnant {
        "stagnant"
    } else {
        "progress"
    })
}

/// Block the goal after repeated stagnation: Blocked entry, commit, stderr line, notify.
fn escalate(ctx: &Ctx, ws: &Workspace, goal: &mut GoalFile, verdict: &Verdict) -> Result<String> {
    let message = format!(
        "Stagnation: no progress over {} iterations after {} auto-recoveries ({}); a person should look at the approach",
        ws.config.stagnation_window,
        verdict.recoveries,
        crate::stagnation::explain(&verdict.signals, ws.config.stagnation_window)
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
    let status = crate::child::status(
        std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{command} \"$1\""))
            .arg("goal-notify")
            .arg(message)
            .current_dir(ws.root())
            .stdin(std::process::Stdio::null()),
    );
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
