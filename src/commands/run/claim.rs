//! `goal run --claim <remote>`'s edge: the racer's own branch made at the start, pushed after
//! each iteration, the claim read between turns, the win claimed (or lost) at the end, and the
//! race's summary. The names, the race id and the pushes themselves are `runner::claim`'s.

use serde_json::json;

use super::args::Args;
use super::display::usage_json;
use super::edge::Edge;
use crate::error::{Error, Result};
use crate::repo::Oid;
use crate::repo::Pushed;
use crate::runner::claim::{self, Claim, Claimant, SEAT_ENV};
use crate::runner::machine::RunEnd;
use crate::runner::race::RacerOutcome;
use crate::workspace::Workspace;

/// A claiming run's state beside the machine.
pub(super) struct ClaimRun {
    pub(super) claimant: Claimant,
    /// The claim another racer won with, once it verified (or refused this one's).
    pub(super) winner: Option<Claim>,
    /// Claimed commits that did not verify (each is said once, and the race goes on).
    pub(super) rejected: Vec<String>,
    /// What could not be pushed, for the summary.
    pub(super) unpushed: Option<String>,
    /// Turns cut short by another's claim and recorded as iterations.
    pub(super) cut_short: u64,
}

/// Before the goal starts: refuse what cannot race (no such remote, a bad race id, no commit),
/// then switch to the racer's new branch. Returns the race's start commit.
pub(super) fn prepare(
    ws: &Workspace,
    args: &Args,
    remote: &str,
    agent: &str,
    run_id: &str,
) -> Result<Oid> {
    if !ws.repo.has_remote(remote) {
        return Err(Error::usage(
            format!("no remote `{remote}` in this repository"),
            format!(
                "add it with `git remote add {remote} <url>`, or name one that `git remote` lists"
            ),
        ));
    }
    if let Some(why) = race_id_given(args).as_deref().and_then(claim::bad_race_id) {
        return Err(Error::usage(
            why,
            "give every racer the same id, e.g. `--race-id 42` (a CI run's id)",
        ));
    }
    let Some(start) = ws.repo.head_id()? else {
        return Err(Error::usage(
            "no commit to race from (the branch has no commit yet)",
            "make a first commit with `git commit`, push it, then `goal run --claim` again",
        ));
    };
    if std::env::var_os(SEAT_ENV).is_some() && ws.repo.head_branch().is_some() {
        return Ok(start);
    }
    let text = match super::goal_state::check_goal(ws, args.goal.as_deref(), &args.criteria)? {
        Some(text) => text,
        None => ws.goal()?.goal,
    };
    let slug = crate::runner::race::slug(&text);
    ws.repo
        .switch_new_branch(&claim::racer_branch(&slug, agent, run_id))?;
    Ok(start)
}

/// `--race-id`, else GOAL_RACE_ID.
fn race_id_given(args: &Args) -> Option<String> {
    args.race_id.clone().or_else(|| {
        std::env::var("GOAL_RACE_ID")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.trim().to_string())
    })
}

/// Once the goal is there: the race id (given, or of the start and the goal) and the claimant.
pub(super) fn claimant(
    ws: &Workspace,
    args: &Args,
    remote: &str,
    start: Oid,
    scale: f64,
) -> Result<ClaimRun> {
    let race_id = match race_id_given(args) {
        Some(id) => id,
        None => {
            let goal = ws.goal()?;
            claim::default_race_id(start, &goal.goal, &goal.criteria_texts())
        }
    };
    let Some(branch) = ws.repo.head_branch() else {
        return Err(Error::usage(
            "HEAD is on no branch: a claiming racer pushes a branch of its own",
            "run `goal run --claim` on a branch",
        ));
    };
    Ok(ClaimRun {
        claimant: Claimant {
            remote: remote.to_string(),
            race_id,
            branch,
            start,
            scale,
            deadline: args.max_time.map(|t| std::time::Instant::now() + t),
        },
        winner: None,
        rejected: Vec::new(),
        unpushed: None,
        cut_short: 0,
    })
}

/// Whether another racer's claim `found` verifies (each claimed commit checked once: one that
/// does not is said once, and the race goes on).
pub(super) fn verified(
    run: &mut ClaimRun,
    ws: &Workspace,
    ctx: &crate::context::Ctx,
    found: &Claim,
) -> Result<bool> {
    if run.rejected.contains(&found.commit) {
        return Ok(false);
    }
    if let Err(why) = run.claimant.verify(ws, found)? {
        ctx.note(format!(
            "{} on {} claims {} but it does not verify: {why} (racing on)",
            run.claimant.claim_ref(),
            run.claimant.remote,
            crate::repo::short_id(&found.commit)
        ));
        run.rejected.push(found.commit.clone());
        return Ok(false);
    }
    Ok(true)
}

impl Edge<'_> {
    /// Another racer's claim verified while a turn ran, and the agent was stopped: the turn cut
    /// short is recorded as an iteration, the branch pushed, and the run ends `lost`.
    pub(super) fn lost_in_turn(
        &mut self,
        turn: u64,
        found: Claim,
    ) -> Result<Option<crate::runner::machine::Event>> {
        if let Some(run) = self.claim.as_mut() {
            run.winner = Some(found);
        }
        let by = match self.claim.as_ref().and_then(|r| r.winner.as_ref()) {
            Some(Claim {
                branch: Some(b), ..
            }) => b.clone(),
            _ => "another racer".into(),
        };
        if self
            .ws
            .read_goal(crate::workspace::Part::Whole)?
            .is_some_and(|g| g.status == crate::goal_file::Status::InProgress)
        {
            let message = format!("turn {turn}: cut short: {by} claimed the race");
            let _hush = crate::context::hush();
            crate::ops::iterate::iterate(
                self.ws,
                crate::ops::iterate::Options {
                    budget: self.budget.take(),
                    messages: vec![message.clone()],
                    goal_only: false,
                    run_id: Some(self.run_id.clone()),
                    run_agent: Some(self.agents[self.machine.agent()].name.clone()),
                    usage: Some(std::mem::take(&mut self.unrecorded))
                        .filter(|u| *u != crate::usage::Usage::default()),
                },
            )?;
            if let Some(run) = self.claim.as_mut() {
                run.cut_short += 1;
            }
            self.display.event(
                "iterate",
                json!({"turn": turn, "recorded_by": "goal run", "message": message, "cut_short": true}),
                &format!("the turn cut short is recorded as an iteration: {message}"),
            );
        }
        let lost = self.lost_reason();
        let (outcome, reason) = self.push_or_unpushed(RunEnd::Lost, lost)?;
        self.pending = vec![crate::runner::machine::Step::Stop { outcome, reason }];
        Ok(None)
    }

    /// Between turns: has another racer won? Some(stop) when its claim verifies (this run's work
    /// pushed first); a remote out of reach, or a claim that does not verify, lets the race go on.
    pub(super) fn claim_check(&mut self) -> Result<Option<(RunEnd, String)>> {
        let Some(run) = self.claim.as_mut() else {
            return Ok(None);
        };
        let found = match run.claimant.read(&self.ws.repo)? {
            Ok(found) => found,
            Err(why) => {
                self.ctx.note(format!(
                    "cannot read the race's claim on {}: {why} (racing on)",
                    run.claimant.remote
                ));
                return Ok(None);
            }
        };
        let Some(found) = found else {
            return Ok(None);
        };
        if !verified(run, self.ws, self.ctx, &found)? {
            return Ok(None);
        }
        run.winner = Some(found);
        let lost = self.lost_reason();
        Ok(Some(self.push_or_unpushed(RunEnd::Lost, lost)?))
    }

    /// After an iteration: push the branch; Some(stop) when the remote stays out of reach.
    pub(super) fn push_iteration(&mut self) -> Result<Option<(RunEnd, String)>> {
        let Some(run) = self.claim.as_ref() else {
            return Ok(None);
        };
        match run.claimant.push_branch(&self.ws.repo)? {
            Pushed::Done => Ok(None),
            Pushed::Refused(why) | Pushed::Unreachable(why) => {
                Ok(Some(self.unpushed("the iteration just recorded", &why)))
            }
        }
    }

    /// The run ends: a complete goal claims the win; any other end pushes the branch. The
    /// outcome may become `lost` (the claim was refused: another won) or `unpushed`.
    pub(super) fn settle(&mut self, outcome: RunEnd, reason: String) -> Result<(RunEnd, String)> {
        let Some(run) = self.claim.as_ref() else {
            return Ok((outcome, reason));
        };
        if outcome == RunEnd::Lost || outcome == RunEnd::Unpushed {
            return Ok((outcome, reason));
        }
        if outcome != RunEnd::Complete {
            return self.push_or_unpushed(outcome, reason);
        }
        let claim_ref = run.claimant.claim_ref();
        let remote = run.claimant.remote.clone();
        match run.claimant.claim(&self.ws.repo)? {
            Pushed::Done => Ok((
                RunEnd::Complete,
                format!("{reason}; won the race: {claim_ref} claimed on {remote}"),
            )),
            Pushed::Unreachable(why) => {
                Ok(self.unpushed("the claim and the complete commit", &why))
            }
            Pushed::Refused(why) => {
                let found = run.claimant.read(&self.ws.repo)?.ok().flatten();
                if let Some(found) = &found
                    && let Err(not) = run.claimant.verify(self.ws, found)?
                {
                    self.ctx.note(format!(
                        "{claim_ref} on {remote} was claimed first, by {}, which does not verify: {not}",
                        crate::repo::short_id(&found.commit)
                    ));
                }
                if found.is_none() {
                    self.ctx.note(format!("the claim push was refused: {why}"));
                }
                if let Some(run) = self.claim.as_mut() {
                    run.winner = found;
                }
                let lost = self.lost_reason();
                self.push_or_unpushed(RunEnd::Lost, lost)
            }
        }
    }

    /// Push the branch, then end as `outcome`, or as `unpushed` when it cannot be pushed.
    fn push_or_unpushed(&mut self, outcome: RunEnd, reason: String) -> Result<(RunEnd, String)> {
        let Some(run) = self.claim.as_ref() else {
            return Ok((outcome, reason));
        };
        match run.claimant.push_branch(&self.ws.repo)? {
            Pushed::Done => Ok((outcome, reason)),
            Pushed::Refused(why) | Pushed::Unreachable(why) => {
                Ok(self.unpushed(&format!("the last commits ({reason})"), &why))
            }
        }
    }

    /// The `unpushed` end: what was not pushed, where, and why.
    fn unpushed(&mut self, what: &str, why: &str) -> (RunEnd, String) {
        let Some(run) = self.claim.as_mut() else {
            return (RunEnd::Unpushed, why.to_string());
        };
        let c = &run.claimant;
        let text = format!(
            "unpushed: {what} on {branch} could not be pushed to {remote}: {why}; the commits are here — push them with `git push {remote} {branch}`",
            branch = c.branch,
            remote = c.remote
        );
        run.unpushed = Some(text.clone());
        (RunEnd::Unpushed, text)
    }

    fn lost_reason(&self) -> String {
        let Some(run) = self.claim.as_ref() else {
            return "lost".into();
        };
        let c = &run.claimant;
        let by = match &run.winner {
            Some(Claim {
                commit,
                branch: Some(branch),
            }) => format!("{branch} ({})", crate::repo::short_id(commit)),
            Some(Claim { commit, .. }) => crate::repo::short_id(commit).to_string(),
            None => "another racer".into(),
        };
        format!(
            "lost: {by} claimed race {} first; this run's work is on {}/{}",
            c.race_id, c.remote, c.branch
        )
    }

    /// The race's summary for a claiming run alone: the race's racer keys for this racer, the race id,
    /// the winner's branch (its own, the claim's, or null).
    pub(super) fn claim_summary(&self, outcome: RunEnd) {
        let Some(run) = self.claim.as_ref() else {
            return;
        };
        let c = &run.claimant;
        let won = outcome == RunEnd::Complete;
        let winner = if won {
            Some(c.branch.clone())
        } else {
            run.winner.as_ref().and_then(|w| w.branch.clone())
        };
        let merge = |branch: &str| {
            format!(
                "merge it with `git fetch {remote} && git merge {remote}/{branch}`",
                remote = c.remote
            )
        };
        let human = match &winner {
            Some(branch) if won => format!(
                "race {}: won — {branch} is on {}; {}",
                c.race_id,
                c.remote,
                merge(branch)
            ),
            Some(branch) => format!("race {}: {branch} won; {}", c.race_id, merge(branch)),
            None => format!(
                "race {}: no winner yet; this run's branch is {}",
                c.race_id, c.branch
            ),
        };
        self.display.event(
            "race",
            json!({"race_id": c.race_id, "claim_ref": c.claim_ref(), "racers": [self.racer(run, outcome)], "winner": winner}),
            &human,
        );
    }

    /// This racer as the race's summary lists it (the race's keys, and the remote's).
    fn racer(&self, run: &ClaimRun, outcome: RunEnd) -> serde_json::Value {
        let c = &run.claimant;
        let tip = self.ws.repo.branch_tip(&c.branch);
        let (proven, total) = crate::runner::race::standing(self.ws, tip);
        let tree = |commit: Oid| self.ws.repo.commit_info(commit).ok().map(|i| i.tree);
        let diff = tip
            .and_then(tree)
            .and_then(|to| {
                self.ws
                    .repo
                    .diff_stat(tree(c.start), to, &self.ws.goal_dir)
                    .ok()
            })
            .map(crate::runner::race::Diff::from)
            .unwrap_or_default();
        json!({
            "agent": self.agents[self.machine.agent()].name,
            "branch": c.branch,
            "worktree": self.ws.root().display().to_string(),
            "iterations": self.machine.iterations() + run.cut_short,
            "turns": self.machine.turns(),
            "usage": usage_json(&self.machine.usage()),
            "proven": proven,
            "total": total,
            "diff": diff,
            "winner": outcome == RunEnd::Complete,
            "outcome": RacerOutcome::of_event(outcome.event()).map_or("error", RacerOutcome::as_str),
            "run": self.run_id,
            "remote": c.remote,
            "unpushed": run.unpushed,
        })
    }
}
