//! `goal run`'s edge: the machine's steps carried out, one method per [`Step`], each handing the
//! machine back what happened.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::json;

use super::agents::AgentSpec;
use super::args::Args;
use super::display::{spend_text, usage_json};
use crate::context::Ctx;
use crate::error::Result;
use crate::ops;
use crate::runner::agent::INTERRUPTS;
use crate::runner::clock::Clock;
use crate::runner::display::Display;
use crate::runner::machine::{Event, Machine, RunEnd, Step, WaitKind, human_ms};
use crate::usage::Usage;
use crate::workspace::Workspace;

/// `goal run`'s edge: the process, the clock, git and the terminal around the pure machine.
pub(super) struct Edge<'a> {
    pub(super) ctx: &'a Ctx,
    pub(super) ws: &'a Workspace,
    pub(super) args: &'a Args,
    /// The run's agents, in the order given (failover).
    pub(super) agents: Vec<AgentSpec>,
    /// The run's marker for `goal fleet` (it names the agent of the moment).
    pub(super) marker: Option<crate::fleet::RunMarker>,
    /// What the turns used since the last commit `goal run` made (it goes into the next one's
    /// `Goal-Usage`: failed tries and turns the agent recorded itself ride with it).
    pub(super) unrecorded: Usage,
    /// The run's budget (`Goal-Budget`), until the run's first commit carries it.
    pub(super) budget: Option<String>,
    pub(super) run_id: String,
    pub(super) run_dir: PathBuf,
    pub(super) display: Display,
    pub(super) machine: Machine,
    pub(super) clock: Clock,
    /// Ctrl-Cs already handed to the machine.
    pub(super) seen_interrupts: usize,
    pub(super) scale: f64,
    /// The goal's state in a few words, for the status line.
    pub(super) summary: String,
    /// What the run has spent so far, for the status line (` · $0.12 · 3400 tokens`, or empty).
    pub(super) spend: String,
    /// The machine's actions still to carry out.
    pub(super) pending: Vec<Step>,
    /// HEAD when the current turn started: the turn's commits are those after it.
    pub(super) head_before_turn: Option<crate::repo::Oid>,
    /// `--claim`: the race through a remote.
    pub(super) claim: Option<super::claim::ClaimRun>,
}

impl Edge<'_> {
    /// Carry out the machine's actions, feeding it what happened, until it stops the run.
    pub(super) fn drive(&mut self) -> Result<u8> {
        while !self.pending.is_empty() {
            let action = self.pending.remove(0);
            let next = match action {
                Step::StartTurn {
                    turn,
                    agent,
                    iteration_attempt,
                    timeout_ms,
                } => {
                    // Between turns a claiming racer reads the claim: another may have won.
                    if let Some((outcome, reason)) = self.claim_check()? {
                        return self.stop(outcome, reason);
                    }
                    self.start_turn(turn, agent, iteration_attempt, timeout_ms)?
                }
                Step::Record { turn, iterate } => {
                    let next = self.record(turn, iterate)?;
                    if let Some((outcome, reason)) = self.push_iteration()? {
                        return self.stop(outcome, reason);
                    }
                    next
                }
                Step::RecordRetry {
                    retry,
                    max,
                    delay_s,
                    reason,
                } => self.record_retry(retry, max, delay_s, reason)?,
                Step::BlockRetries { reason } => self.block_retries(&reason)?,
                Step::BlockForPerson { reason } => {
                    ops::block::block(self.ws, &reason)?;
                    None
                }
                Step::Wait {
                    ms: wait_ms,
                    delay_s,
                    kind,
                    reason,
                } => self.wait(wait_ms, delay_s, kind, reason)?,
                Step::CallDone => self.call_done()?,
                Step::KillAgent => self.kill_agent(),
                Step::Switch { from, to, reason } => self.switch(from, to, reason),
                Step::Stop { outcome, reason } => return self.stop(outcome, reason),
            };
            if let Some(event) = next {
                // A Ctrl-C that came while recording or while `goal done` ran counts before the
                // next step, so no new turn starts after it.
                let now = INTERRUPTS.load(Ordering::SeqCst);
                while self.seen_interrupts < now {
                    self.seen_interrupts += 1;
                    self.pending.extend(self.machine.handle(Event::Interrupt {
                        now_ms: self.clock.now_ms(),
                    }));
                }
                self.pending.extend(self.machine.handle(event));
            }
        }
        Ok(2)
    }

    /// Hand the next turn to another agent: say so, and name it in the fleet marker.
    fn switch(&mut self, from: usize, to: usize, reason: String) -> Option<Event> {
        // A reason that is a code says the rest in the agent's own why.
        let human = match self.machine.why(from) {
            Some(why) if reason == "usage-unreported" => format!("{reason}: {why}"),
            _ => reason.clone(),
        };
        let (from, to) = (self.agents[from].name.clone(), self.agents[to].name.clone());
        self.display.event(
            "switch",
            json!({"from": from, "to": to, "reason": reason}),
            &format!("switching from {from} to {to} — {human}"),
        );
        if let Some(marker) = self.marker.as_mut() {
            let _ = marker.set_agent(&to);
        }
        None
    }

    /// Count a failed turn in the retry guard and say when the next try comes.
    fn record_retry(
        &mut self,
        retry: u32,
        max: u32,
        delay_s: u64,
        reason: String,
    ) -> Result<Option<Event>> {
        record_failure(self.ws, &reason)?;
        self.display.event(
            "retry",
            json!({"retry": retry, "max": max, "delay_s": delay_s, "reason": reason}),
            &format!("retry {retry}/{max} in {delay_s}s — {reason}"),
        );
        Ok(None)
    }

    /// The failure after the last retry: recorded as `goal retry` does, which blocks the goal.
    fn block_retries(&mut self, reason: &str) -> Result<Option<Event>> {
        record_failure(self.ws, reason)?;
        Ok(None)
    }

    /// Nothing to do between turns: a second Ctrl-C kills the agent inside
    /// [`Edge::start_turn`]'s watch, the only place an agent runs.
    fn kill_agent(&mut self) -> Option<Event> {
        None
    }

    /// Wait out a backoff or a usage limit (scaled by GOAL_TIME_SCALE), stopped by Ctrl-C.
    fn wait(
        &mut self,
        wait_ms: u64,
        delay_s: u64,
        kind: WaitKind,
        reason: String,
    ) -> Result<Option<Event>> {
        if kind == WaitKind::UsageLimit {
            self.display.event(
                "wait",
                json!({"delay_s": delay_s, "kind": "usage_limit", "reason": reason}),
                &format!(
                    "usage limit: waiting {} for its reset — {reason}",
                    human_ms(delay_s * 1000)
                ),
            );
        }
        let real = Duration::from_secs_f64(wait_ms as f64 / 1000.0 * self.scale);
        let started = Instant::now();
        let mut stop = Vec::new();
        while started.elapsed() < real {
            std::thread::sleep(Duration::from_millis(50).min(real - started.elapsed().min(real)));
            let left = real.saturating_sub(started.elapsed());
            let nominal_left = if self.scale > 0.0 {
                left.as_secs_f64() / self.scale
            } else {
                0.0
            };
            self.display.status(&format!(
                "{summary}{spend} · {} in {:.0}s",
                if kind == WaitKind::UsageLimit {
                    "usage limit resets"
                } else {
                    "retry"
                },
                nominal_left.ceil(),
                summary = self.summary,
                spend = self.spend
            ));
            let now = INTERRUPTS.load(Ordering::SeqCst);
            if self.seen_interrupts < now {
                self.seen_interrupts = now;
                stop = self.machine.handle(Event::Interrupt {
                    now_ms: self.clock.now_ms(),
                });
                break;
            }
        }
        if !stop.is_empty() {
            self.pending.extend(stop);
            return Ok(None);
        }
        let waited = u64::try_from(started.elapsed().as_millis()).unwrap_or(0);
        self.clock.skew_ms += wait_ms.saturating_sub(waited);
        Ok(Some(Event::TimerFired {
            now_ms: self.clock.now_ms(),
        }))
    }

    /// Ask `goal done`: None when it completed the goal, else its refusal for the next prompt.
    fn call_done(&mut self) -> Result<Option<Event>> {
        let answer: Result<()> = self.display.suspend(|| {
            let _hush = crate::context::hush_if(self.ctx.json);
            let done = ops::done::done(
                self.ws,
                ops::done::Options {
                    budget: self.budget.take(),
                    deslop: Vec::new(),
                    // The agent never confirms its own weakened tests.
                    confirm: false,
                    run: Some(self.run_id.clone()),
                    usage: Some(self.unrecorded).filter(|u| *u != Usage::default()),
                },
            )?;
            self.unrecorded = Usage::default();
            crate::commands::done::render(self.ctx, self.ws, &done);
            Ok(())
        });
        // `goal done` answering no is for the agent to act on; a hook, signing, a lock
        // or I/O failing stops the run, the goal as it was.
        let mut person = None;
        let refusal = match answer {
            Ok(()) => None,
            Err(e) if e.is_done_refusal() => {
                person = e.person_must_confirm().map(str::to_string);
                Some(e.render_plain())
            }
            Err(e) => {
                self.display.finish();
                return Err(e);
            }
        };
        if let Some(r) = &refusal {
            self.display.event(
                "done_refused",
                json!({"refusal": r}),
                &format!(
                    "`goal done` refused: {}",
                    r.lines().next().unwrap_or_default()
                ),
            );
        }
        if let Some(confirm) = person {
            return Ok(Some(Event::DoneNeedsPerson {
                now_ms: self.clock.now_ms(),
                confirm,
            }));
        }
        Ok(Some(Event::DoneAnswered {
            now_ms: self.clock.now_ms(),
            refusal,
        }))
    }

    /// The run's last word: the stop event, a hard failure's diagnostic, the exit code.
    fn stop(&mut self, outcome: RunEnd, reason: String) -> Result<u8> {
        let (outcome, reason) = self.settle(outcome, reason)?;
        self.display.finish();
        let event = outcome.event();
        self.display.event(
            event,
            json!({"code": outcome.code(), "reason": reason, "iterations": self.machine.iterations(), "run": self.run_id, "usage": usage_json(&self.machine.usage())}),
            &format!(
                "{reason} (exit {}; {} iteration(s) this run{}; `goal log` shows run {run_id})",
                outcome.code(),
                self.machine.iterations(),
                spend_text(&self.machine.usage()).replace(" · ", ", "),
                run_id = self.run_id),
        );
        if outcome == RunEnd::HardFailure && !self.ctx.json {
            let hint = if self.machine.usage_unreported() {
                "use a model whose cost and tokens the agent reports (aider prints no cost for a model whose price it does not know), or bound the run with --max-iterations or --max-time instead; then `goal run` again to continue"
            } else {
                "fix the agent's setup (install it, log in, check its flags), then `goal run` again to continue"
            };
            eprint!("{}", crate::error::diagnostic(&reason, Some(hint)));
        }
        self.claim_summary(outcome);
        Ok(outcome.code())
    }
}

/// Record one failed attempt as `goal retry` does (retry.json; after the last one, the goal is
/// blocked in an escalation commit).
fn record_failure(ws: &Workspace, reason: &str) -> Result<()> {
    let _hush = crate::context::hush();
    let answer = ops::retry::record_failure(
        ws,
        ops::retry::Options {
            strategy: None,
            reason: Some(reason.to_string()),
        },
    );
    match answer {
        Ok(_) => Ok(()),
        // The goal is no longer in progress (the agent blocked it): nothing to count.
        Err(e) if e.is_not_in_progress() => Ok(()),
        Err(e) => Err(e),
    }
}
