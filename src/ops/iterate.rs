//! Record an iteration: the Progress Log entry, the commit of the work, stagnation judged, and
//! the escalation when it has gone on too long.

use crate::context::now_rfc3339;
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::GoalFile;
use crate::history;
use crate::proof::{self, CriterionProof, Proof, ProofState};
use crate::repo::{Oid, Stage};
use crate::stagnation::StagnationVerdict;
use crate::trailers::GoalAction;
use crate::workspace::Workspace;

pub struct Options {
    /// What was done or found: one bullet each (blank ones dropped).
    pub messages: Vec<String>,
    /// Commit the goal files only.
    pub goal_only: bool,
    /// The `goal run` this iteration belongs to, and its agent that made it.
    pub run_id: Option<String>,
    pub run_agent: Option<String>,
    /// The run's budget, for its first commit (`Goal-Budget`).
    pub budget: Option<String>,
    /// What the run's agent used for the turns this iteration records (`goal run` itself knows).
    pub usage: Option<crate::usage::Usage>,
}

/// What an iteration recorded.
pub struct Iterated {
    pub number: u64,
    pub commit: Oid,
    /// The goal as committed (blocked when stagnation escalated).
    pub goal: GoalFile,
    /// Every criterion judged on the committed code.
    pub proof: Proof,
    /// Ticks taken back: not proven on the committed code.
    pub unticked: Vec<CriterionProof>,
    pub verdict: StagnationVerdict,
    /// The escalation's message, when stagnation blocked the goal.
    pub escalated: Option<String>,
}

pub fn iterate(ws: &Workspace, options: Options) -> Result<Iterated> {
    ws.repo.ensure_idle()?;
    let messages = messages_given(&options)?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    super::require_in_progress(&goal, "record an iteration")?;
    let number = goal.iteration + 1;
    goal.append_iteration(number, &messages);
    goal.set_iteration(number);
    goal.set_updated(&now_rfc3339());

    let stage = if options.goal_only {
        Stage::GoalOnly
    } else {
        Stage::All
    };
    let mut commit = iteration_commit(&options, number, &messages, stage);
    // Ticks follow proof: a tick not proven on the tree being committed is taken back here (in
    // the committed file and the working file), never a reason to refuse the iteration.
    let tree = committed_tree(ws, stage)?;
    let proof = committed_proof(ws, &goal, tree)?;
    let unticked = ticks_follow_proof(&mut goal, &proof, &mut commit);
    commit.new_retry_episode(ws);
    commit.verdict = Some(verdict_before_commit(ws, &goal, number, tree)?);
    let oid = commit.make(ws, Some(&goal), &goal)?;

    let verdict = history::stagnation(&ws.repo, &ws.goal_dir, &goal, &ws.config)?;
    let escalated = if verdict.escalate {
        Some(escalate(ws, &mut goal, &verdict)?)
    } else {
        None
    };
    Ok(Iterated {
        number,
        commit: oid,
        goal,
        proof,
        unticked,
        verdict,
        escalated,
    })
}

/// The iteration's messages, trimmed, blank ones dropped; a usage error when none is left.
fn messages_given(options: &Options) -> Result<Vec<String>> {
    let messages: Vec<String> = options
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
    Ok(messages)
}

/// The iteration's commit before proof is judged: its subject and body from the messages, what
/// it stages, and the run's trailers (run, agent, usage, budget).
fn iteration_commit(
    options: &Options,
    number: u64,
    messages: &[String],
    stage: Stage,
) -> Commit<'static> {
    let mut commit = Commit::new(
        GoalAction::Iterate,
        format!("iteration {number}: {}", messages[0]),
    );
    commit.stage = stage;
    commit.run = options.run_id.clone().filter(|r| !r.trim().is_empty());
    commit.run_agent = options.run_agent.clone().filter(|a| !a.trim().is_empty());
    commit.usage = options.usage;
    commit.budget = options.budget.clone();
    commit.body = messages.iter().map(|m| format!("- {m}")).collect();
    commit
}

/// Which ticks the committed code keeps: a ticked criterion not proven is unticked in `goal`
/// (and returned), a proven one's evidence goes on the commit.
fn ticks_follow_proof(
    goal: &mut GoalFile,
    proof: &Proof,
    commit: &mut Commit,
) -> Vec<CriterionProof> {
    let mut unticked = Vec::new();
    for p in proof
        .criteria
        .iter()
        .filter(|p| p.ticked && p.state != ProofState::Proven)
    {
        goal.set_passed(p.number, false);
        unticked.push(p.clone());
    }
    for p in proof
        .criteria
        .iter()
        .filter(|p| p.ticked && p.state == ProofState::Proven)
    {
        if let Some(id) = &p.evidence
            && !commit.evidence.contains(id)
        {
            commit.evidence.push(id.clone());
        }
    }
    unticked
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
fn escalate(ws: &Workspace, goal: &mut GoalFile, verdict: &StagnationVerdict) -> Result<String> {
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
    super::escalate(ws, goal, subject, &message, Vec::new())?;
    Ok(message)
}
