//! A racer's end and the race's report: the turn a winner cut short recorded as an iteration,
//! its standing and diff, its worktree kept or removed.

use super::worktrees::{keep_logs, keep_reason};
use super::{Race, Racer, RacerOutcome};
use crate::context::Ctx;
use crate::error::Result;
use crate::goal_file::Status;
use crate::repo::{DiffStat, Oid};
use crate::trailers::GoalTrailers;
use crate::usage::Usage;
use crate::workspace::Workspace;

/// Lines changed on a racer's branch since the race started (the goal's own files left out).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Diff {
    pub files: usize,
    pub insertions: usize,
    pub deletions: usize,
}

impl From<DiffStat> for Diff {
    fn from(d: DiffStat) -> Diff {
        Diff {
            files: d.files_changed,
            insertions: d.insertions,
            deletions: d.deletions,
        }
    }
}

/// One racer, once the race is over.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RacerReport {
    pub agent: String,
    pub branch: String,
    pub worktree: String,
    /// Iterations recorded on its branch during the race (the cut-short turn's included).
    pub iterations: u64,
    /// Agent turns started (failed ones, retried, included).
    pub turns: u64,
    /// What its turns used, as the agent CLI reported it (absent fields: not reported).
    pub usage: Usage,
    pub proven: Option<usize>,
    pub total: Option<usize>,
    pub diff: Diff,
    pub winner: bool,
    pub outcome: RacerOutcome,
    /// Why its run ended, in its own words.
    pub reason: String,
    /// The reason was shown as the race went (the text summary does not repeat it).
    #[serde(skip)]
    pub reason_shown: bool,
    pub exit_code: Option<i32>,
    /// Its `goal run`'s id (`goal log` shows it).
    pub run: Option<String>,
    pub worktree_kept: bool,
    /// Why the worktree was not removed.
    pub kept_because: Option<String>,
}

/// The race, once it is over.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RaceReport {
    pub racers: Vec<RacerReport>,
    /// The winner's branch (with `--claim`, on the remote, perhaps another machine's).
    pub winner: Option<String>,
    /// `--claim`: the race's id (the claim is `refs/goal/won/<it>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub race_id: Option<String>,
    #[serde(skip)]
    pub interrupted: bool,
    #[serde(skip)]
    pub code: u8,
}

/// A racer's run has ended: record its cut-short turn, take its standing, keep its turn logs,
/// remove its worktree unless it must stay.
pub(super) fn finish(r: &Race, racer: &mut Racer, won: bool, winner: Option<&str>) -> RacerReport {
    let mut outcome = settle_outcome(r, racer, winner);
    let ctx = Ctx {
        cwd: racer.worktree.clone(),
        file: r.file_given.then(|| racer.worktree.join(r.goal_rel)),
        json: true,
        color: false,
    };
    // What the racers' goals say as they are wound up is the race's to report, not theirs.
    let _hush = crate::context::hush();
    // The turn the winner cut short is an iteration too: nothing is left uncommitted.
    if racer.stopped
        && let (Some(turn), Some(winner)) = (racer.open_turn, winner)
    {
        record_stopped_turn(r, racer, &ctx, turn, winner);
    }
    if racer.stopped
        && let Some(remote) = &r.claim
        && !push_stopped(r, racer, remote)
    {
        outcome = RacerOutcome::Unpushed;
    }
    let (standing, logs) = standing_at_end(r, &racer.seat.branch, &ctx);
    let kept_because = leave_worktree(r, racer, logs.as_deref());
    report(racer, outcome, won, standing, kept_because)
}

/// How the racer's run ended, and why in its own words: one stopped because another won lost
/// (through a remote) or was stopped, unless it completed; with no reason given, its last
/// stderr line says why.
fn settle_outcome(r: &Race, racer: &mut Racer, winner: Option<&str>) -> RacerOutcome {
    let code = racer.exit_code;
    let mut outcome = racer
        .outcome
        .unwrap_or_else(|| code.map_or(RacerOutcome::Error, RacerOutcome::of_code));
    if racer.stopped && outcome != RacerOutcome::Complete {
        // Through a remote, the winner's claim is the others' loss.
        outcome = if r.claim.is_some() {
            RacerOutcome::Lost
        } else {
            RacerOutcome::Stopped
        };
        racer.reason = format!(
            "stopped: {} won the race",
            winner.unwrap_or("another racer")
        );
    }
    if racer.reason.is_empty() {
        racer.reason = racer.last_stderr.clone();
        racer.reason_shown = false;
    }
    outcome
}

/// The turn `winner` cut short recorded as an iteration on the racer's branch, and said so (a
/// failure to record it is noted).
fn record_stopped_turn(r: &Race, racer: &mut Racer, ctx: &Ctx, turn: u64, winner: &str) {
    let branch = &racer.seat.branch;
    match record_cut_short(ctx, turn, winner, racer.run.clone(), &racer.seat.agent) {
        Ok(true) => {
            racer.iterations += 1;
            (r.say)(&format!(
                "{branch}: turn {turn} cut short, recorded as an iteration"
            ));
        }
        Ok(false) => {}
        Err(e) => (r.note)(&format!("{branch}: cannot record the turn cut short: {e}")),
    }
}

/// Where a racer stands at its end: its criteria proven, its diff since the race started.
struct Standing {
    proven: Option<usize>,
    total: Option<usize>,
    diff: Diff,
}

/// The racer's standing on `branch`, and the folder of its turn logs (None when its worktree
/// does not open as a workspace).
fn standing_at_end(r: &Race, branch: &str, ctx: &Ctx) -> (Standing, Option<std::path::PathBuf>) {
    let tip = r.repo.branch_tip(branch);
    let (proven, total, logs) = match Workspace::open(ctx) {
        Ok(ws) => {
            let (proven, total) = standing(&ws, tip);
            (
                proven,
                total,
                Some(ws.repo.git_dir().join("goal").join("runs")),
            )
        }
        Err(_) => (None, None, None),
    };
    let tree = |commit: Oid| r.repo.commit_info(commit).ok().map(|c| c.tree);
    let diff = tip
        .and_then(tree)
        .and_then(|to| r.repo.diff_stat(tree(r.start), to, r.goal_dir).ok())
        .map(Diff::from)
        .unwrap_or_default();
    let standing = Standing {
        proven,
        total,
        diff,
    };
    (standing, logs)
}

/// The racer's worktree removed, its turn logs kept first, unless it must stay: why it stayed
/// (None: removed).
fn leave_worktree(r: &Race, racer: &Racer, logs: Option<&std::path::Path>) -> Option<String> {
    let kept_because = keep_reason(r.repo, &racer.worktree, r.keep_worktrees);
    if kept_because.is_none() {
        // Its turn logs live in the worktree's own git folder, which goes with it.
        if let Some(logs) = logs {
            keep_logs(logs, &r.repo.common_dir().join("goal").join("runs"));
        }
        if let Err(why) = r
            .repo
            .remove_worktree(&racer.worktree, false)
            .unwrap_or_else(|e| Err(e.to_string()))
        {
            return Some(format!("`git worktree remove` refused: {why}"));
        }
    }
    kept_because
}

/// A racer stopped because another won, its cut-short turn recorded: its branch pushed, so that
/// its work is on the remote like every claiming racer's. False when it could not be.
fn push_stopped(r: &Race, racer: &Racer, remote: &str) -> bool {
    let claimant = crate::runner::claim::Claimant {
        remote: remote.to_string(),
        race_id: racer.race_id.clone().unwrap_or_default(),
        branch: racer.seat.branch.clone(),
        start: r.start,
        scale: crate::runner::clock::time_scale(),
        deadline: None,
    };
    let why = match claimant.push_branch(r.repo) {
        Ok(crate::repo::Pushed::Done) => return true,
        Ok(crate::repo::Pushed::Refused(why) | crate::repo::Pushed::Unreachable(why)) => why,
        Err(e) => e.to_string(),
    };
    let branch = &racer.seat.branch;
    (r.note)(&format!(
        "{branch}: cannot push it to {remote}: {why} (push it with `git push {remote} {branch}`)"
    ));
    false
}

/// The racer's report, from its run and where it stands.
fn report(
    racer: &Racer,
    outcome: RacerOutcome,
    won: bool,
    standing: Standing,
    kept_because: Option<String>,
) -> RacerReport {
    let Standing {
        proven,
        total,
        diff,
    } = standing;
    RacerReport {
        agent: racer.seat.agent.clone(),
        branch: racer.seat.branch.clone(),
        worktree: racer.worktree.display().to_string(),
        iterations: racer.iterations,
        turns: racer.turns,
        usage: racer.usage,
        proven,
        total,
        diff,
        winner: won,
        outcome,
        reason: racer.reason.clone(),
        reason_shown: racer.reason_shown,
        exit_code: racer.exit_code,
        run: racer.run.clone(),
        worktree_kept: kept_because.is_some(),
        kept_because,
    }
}

/// Record the turn a winner cut short as an iteration (as `goal iterate`); false when the goal is
/// no longer in progress there.
fn record_cut_short(
    ctx: &Ctx,
    turn: u64,
    winner: &str,
    run: Option<String>,
    agent: &str,
) -> Result<bool> {
    let ws = Workspace::open(ctx)?;
    if !ws
        .read_goal(crate::workspace::Part::Whole)?
        .is_some_and(|g| g.status == Status::InProgress)
    {
        return Ok(false);
    }
    crate::ops::iterate::iterate(
        &ws,
        crate::ops::iterate::Options {
            budget: None,
            messages: vec![format!("turn {turn}: cut short: {winner} won the race")],
            goal_only: false,
            run_id: run,
            // The racer's agent made the turn (its usage was never reported: it was cut short).
            run_agent: Some(agent.to_string()),
            usage: None,
        },
    )?;
    Ok(true)
}

/// Proven and total criteria: judged on the worktree while its goal is live, else as the last
/// goal commit on its branch counted them (a completed goal's files are gone).
pub fn standing(ws: &Workspace, tip: Option<Oid>) -> (Option<usize>, Option<usize>) {
    if let Ok(Some(goal)) = ws.read_goal(crate::workspace::Part::Whole)
        && let Ok(proof) = crate::ops::proof(ws, &goal)
    {
        return (Some(proof.proven), Some(goal.criteria.len()));
    }
    let mut at = tip;
    for _ in 0..8 {
        let Some(id) = at else { break };
        let Ok((info, parent)) = ws.repo.commit_and_parent(id) else {
            break;
        };
        if let Some(t) = GoalTrailers::read(&info) {
            return (Some(t.passing), Some(t.total));
        }
        at = parent;
    }
    (None, None)
}
