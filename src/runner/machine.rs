//! The loop of `goal run` as a pure state machine: events in (a turn ended, a goal state was read,
//! `goal done` answered, a timer fired, Ctrl-C), actions out (start a turn, wait, record an
//! iteration or a retry, call `goal done`, kill the agent, stop with an exit code). No process, no
//! clock, no git: the caller owns those and passes the time (Unix ms) with every event, so the
//! whole error table is tested with a fake clock.

use super::presets::{Patterns, TurnVerdict};
use crate::retry::Backoff;
use crate::usage::Usage;

/// The bounds of a run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    /// Money and tokens this run may spend (checked after each turn).
    pub budget: Budget,
    pub backoff: Backoff,
    /// Iterations this run may record (failed turns are retries and do not count).
    pub max_iterations: Option<u64>,
    /// Wall time of the whole run, waits included.
    pub max_time_ms: Option<u64>,
    /// The longest one turn may take.
    pub turn_timeout_ms: Option<u64>,
    /// The longest the agent may print nothing (for the message only: the caller enforces it).
    pub idle_timeout_ms: Option<u64>,
}

/// The goal as read after a turn was recorded (or at the start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalState {
    InProgress {
        all_proven: bool,
        stagnant: bool,
    },
    /// Blocked: stagnation escalated, retries ran out, or the agent ran `goal block`.
    Blocked,
    /// Completed (the agent ran `goal done` itself).
    Complete,
    /// The goal files are gone without completion (abandoned).
    Gone,
}

/// How a turn's process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    Exited(i32),
    /// No output for the idle timeout: the process group was killed.
    IdleTimeout,
    /// The turn timeout (or the rest of --max-time) ran out: the process group was killed.
    TurnTimeout,
    /// Killed on request (a second Ctrl-C).
    Killed,
    /// The agent could not be started (a missing binary): the text says why.
    NotStarted(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Start {
        now_ms: u64,
        state: GoalState,
        /// Failed attempts already recorded in this iteration (retry.json).
        retries: u32,
    },
    TurnEnded {
        now_ms: u64,
        end: TurnEnd,
        output: String,
        /// An iteration commit was made during the turn (the agent ran `goal iterate`).
        committed: bool,
        /// What the turn used, as the agent CLI reported it.
        usage: Usage,
    },
    Recorded {
        now_ms: u64,
        state: GoalState,
    },
    /// `goal done` answered: None when it completed the goal, else its refusal.
    DoneAnswered {
        now_ms: u64,
        refusal: Option<String>,
    },
    /// `goal done` refused for a reason only a person's `--confirm` lifts (`confirm`: what they
    /// must confirm): the run blocks the goal at once instead of spending turns.
    DoneNeedsPerson {
        now_ms: u64,
        confirm: String,
    },
    /// After a turn was recorded: its commits carry a confirmation trailer, or it abandoned the
    /// goal and started another (`why`). The run stops.
    TurnOverstepped {
        now_ms: u64,
        why: String,
    },
    TimerFired {
        now_ms: u64,
    },
    Interrupt {
        now_ms: u64,
    },
}

/// Why a run stopped, with its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunEnd {
    Complete,
    Blocked,
    HardFailure,
    Budget,
    Interrupted,
    /// `--claim`: another racer's claim was found, or refused this one's (never the machine's).
    Lost,
    /// `--claim`: the remote could not be reached before time ran out (never the machine's).
    Unpushed,
}

impl RunEnd {
    pub fn code(self) -> u8 {
        match self {
            RunEnd::Complete | RunEnd::Lost => 0,
            RunEnd::Blocked | RunEnd::Unpushed => 1,
            RunEnd::HardFailure => 2,
            RunEnd::Budget => 3,
            RunEnd::Interrupted => 130,
        }
    }

    /// The name of the run's stop event (`goal run --json`) and of its outcome.
    pub fn event(self) -> &'static str {
        match self {
            RunEnd::Complete => "done",
            RunEnd::Blocked => "blocked",
            RunEnd::Budget => "budget",
            RunEnd::Interrupted => "interrupted",
            RunEnd::HardFailure => "error",
            RunEnd::Lost => "lost",
            RunEnd::Unpushed => "unpushed",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitKind {
    /// Backoff before a retry.
    Retry,
    /// Until a usage limit resets.
    UsageLimit,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The next turn goes to another agent than the last one (indices in the run's list), and why:
    /// `from` hit its usage limit or left the run, or `to` is available again.
    Switch {
        from: usize,
        to: usize,
        reason: String,
    },
    /// Start turn `turn` (1-based over the whole run, retries included) of `iteration`, with
    /// agent `agent` (its index in the run's list).
    StartTurn {
        turn: u64,
        agent: usize,
        iteration_attempt: u32,
        timeout_ms: Option<u64>,
    },
    /// Read the goal after a good turn; first record an iteration with this message unless the
    /// agent made one (None).
    Record {
        turn: u64,
        iterate: Option<String>,
    },
    /// Record failed attempt `retry` of `max` in retry.json (as `goal retry`), then a Wait follows.
    RecordRetry {
        retry: u32,
        max: u32,
        delay_s: u64,
        reason: String,
    },
    /// Wait `ms` (nominal; the caller scales it), then send TimerFired. `delay_s`: the nominal delay
    /// (the whole one, even when --max-time cuts the wait short).
    Wait {
        ms: u64,
        delay_s: u64,
        kind: WaitKind,
        reason: String,
    },
    /// The failure after the last retry: block the goal as `goal retry` does (a commit).
    BlockRetries {
        reason: String,
    },
    /// Block the goal as `goal block` does, with this reason: only a person can go on.
    BlockForPerson {
        reason: String,
    },
    CallDone,
    /// Kill the agent's process group now (a second Ctrl-C).
    KillAgent,
    Stop {
        outcome: RunEnd,
        reason: String,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    InTurn,
    Recording,
    Waiting,
    CallingDone,
    Stopped,
}

/// One of the run's agents: its failure texts and whether it may take a turn.
struct Slot {
    patterns: Patterns,
    /// Limited until this time (Unix ms); 0 when available.
    until_ms: u64,
    /// Taken out of the run (an auth or configuration failure, a missing binary).
    gone: bool,
    /// Usage-limit waits in a row with no reset time (each one longer: [`limit_step`]).
    limit_waits: u32,
    /// Why it is limited or out of the run.
    why: Option<String>,
    /// Out of the run because a turn of it reported no usage a budget needs.
    unreported: bool,
    /// Its name, for the messages that name it.
    name: String,
}

/// The loop's state.
pub struct Machine {
    limits: Limits,
    slots: Vec<Slot>,
    /// The agent of the current (or last) turn.
    current: usize,
    phase: Phase,
    started_ms: u64,
    turn: u64,
    iterations: u64,
    retries: u32,
    interrupts: u32,
    /// What this run's turns used, summed.
    usage: Usage,
    /// The last verdict after an iteration was stagnant (the next prompt asks for a new strategy).
    pub stagnant: bool,
    /// The last refusal of `goal done`, for the next prompt.
    pub refusal: Option<String>,
    /// Why the last turn failed, for the next prompt.
    pub last_failure: Option<String>,
}

impl Machine {
    pub fn new(limits: Limits, patterns: Patterns) -> Machine {
        Machine::with_agents(limits, vec![patterns])
    }

    /// A run over several agents (failover): each turn goes to the first available one.
    pub fn with_agents(limits: Limits, agents: Vec<Patterns>) -> Machine {
        assert!(!agents.is_empty(), "a run needs an agent");
        let several = agents.len() > 1;
        Machine {
            limits,
            slots: agents
                .into_iter()
                .enumerate()
                .map(|(i, patterns)| Slot {
                    patterns,
                    until_ms: 0,
                    gone: false,
                    limit_waits: 0,
                    why: None,
                    unreported: false,
                    name: if several {
                        format!("agent {}", i + 1)
                    } else {
                        "the agent".into()
                    },
                })
                .collect(),
            current: 0,
            phase: Phase::Idle,
            started_ms: 0,
            turn: 0,
            iterations: 0,
            retries: 0,
            interrupts: 0,
            usage: Usage::default(),
            stagnant: false,
            refusal: None,
            last_failure: None,
        }
    }

    /// Name the agents (in the run's order) for the messages that name them.
    pub fn named(mut self, names: &[String]) -> Machine {
        for (slot, name) in self.slots.iter_mut().zip(names) {
            slot.name = name.clone();
        }
        self
    }

    /// Why agent `agent` is limited or out of the run, if it is.
    pub fn why(&self, agent: usize) -> Option<&str> {
        self.slots.get(agent).and_then(|s| s.why.as_deref())
    }

    /// Whether an agent left the run because its turns reported no usage a budget needs.
    pub fn usage_unreported(&self) -> bool {
        self.slots.iter().any(|s| s.unreported)
    }

    /// Turns started (failed ones, retried, included).
    pub fn turns(&self) -> u64 {
        self.turn
    }

    /// Iterations this run recorded (good turns).
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// The agent (index) of the current or last turn.
    pub fn agent(&self) -> usize {
        self.current
    }

    /// The first agent still in the run and not limited at `now_ms`.
    fn available(&self, now_ms: u64) -> Option<usize> {
        self.slots
            .iter()
            .position(|s| !s.gone && s.until_ms <= now_ms)
    }

    /// The earliest time an agent still in the run is available again.
    fn earliest(&self) -> Option<u64> {
        self.slots
            .iter()
            .filter(|s| !s.gone)
            .map(|s| s.until_ms)
            .min()
    }

    /// What this run's turns used so far, summed over the CLI's reports.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Failed turns in the current iteration.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    pub fn interrupts(&self) -> u32 {
        self.interrupts
    }

    /// Whether --max-time has run out at `now_ms` (a turn killed then was ended by the budget,
    /// not by the turn timeout).
    pub fn max_time_passed(&self, now_ms: u64) -> bool {
        self.deadline().is_some_and(|d| now_ms >= d)
    }

    fn deadline(&self) -> Option<u64> {
        self.limits
            .max_time_ms
            .map(|m| self.started_ms.saturating_add(m))
    }

    fn stop(&mut self, outcome: RunEnd, reason: impl Into<String>) -> Vec<Step> {
        self.phase = Phase::Stopped;
        vec![Step::Stop {
            outcome,
            reason: reason.into(),
        }]
    }

    pub fn handle(&mut self, event: Event) -> Vec<Step> {
        if self.phase == Phase::Stopped {
            return Vec::new();
        }
        match event {
            Event::Start {
                now_ms,
                state,
                retries,
            } => {
                self.started_ms = now_ms;
                self.retries = retries;
                self.after_state(now_ms, state)
            }
            Event::TurnEnded {
                now_ms,
                end,
                output,
                committed,
                usage,
            } if self.phase == Phase::InTurn => {
                self.usage = self.usage.plus(usage);
                let steps = self.turn_ended(now_ms, end, &output, committed);
                // A good turn is recorded first; then its agent leaves the run if a budget
                // cannot count what it used.
                if steps.iter().any(|s| matches!(s, Step::Record { .. })) {
                    self.hold_to_budget(usage);
                }
                steps
            }
            Event::Recorded { now_ms, state } if self.phase == Phase::Recording => {
                self.after_state(now_ms, state)
            }
            Event::DoneAnswered { now_ms, refusal } if self.phase == Phase::CallingDone => {
                match refusal {
                    None => self.stop(RunEnd::Complete, "every criterion is proven: goal complete"),
                    Some(refusal) => {
                        self.refusal = Some(refusal);
                        self.next_turn(now_ms)
                    }
                }
            }
            Event::DoneNeedsPerson { confirm, .. } if self.phase == Phase::CallingDone => {
                let reason = format!(
                    "a person must confirm {confirm}: a confirmation is the person's — they run `goal resume`, then `goal done --confirm`"
                );
                self.phase = Phase::Stopped;
                vec![
                    Step::BlockForPerson {
                        reason: reason.clone(),
                    },
                    Step::Stop {
                        outcome: RunEnd::Blocked,
                        reason: format!("the goal is blocked: {reason}"),
                    },
                ]
            }
            Event::TurnOverstepped { why, .. } if self.phase == Phase::Recording => self.stop(
                RunEnd::Blocked,
                format!("{why}: the run stops (a person is needed; see `goal log` and `goal audit --strict`)"),
            ),
            Event::TimerFired { now_ms } if self.phase == Phase::Waiting => self.next_turn(now_ms),
            Event::Interrupt { .. } => {
                self.interrupts += 1;
                match self.phase {
                    Phase::InTurn if self.interrupts >= 2 => vec![Step::KillAgent],
                    Phase::Idle | Phase::Waiting => self.stop(RunEnd::Interrupted, "interrupted"),
                    _ => Vec::new(),
                }
            }
            // An event that does not fit the phase (a late timer) changes nothing.
            _ => Vec::new(),
        }
    }

    fn after_state(&mut self, now_ms: u64, state: GoalState) -> Vec<Step> {
        match state {
            GoalState::Complete => self.stop(RunEnd::Complete, "the goal is complete"),
            GoalState::Gone => self.stop(
                RunEnd::Blocked,
                "the goal files are gone (the goal was abandoned)",
            ),
            GoalState::Blocked => self.stop(
                RunEnd::Blocked,
                "the goal is blocked: a person is needed (see `goal status`, then `goal resume`)",
            ),
            GoalState::InProgress { .. } if self.interrupts > 0 => self.stop(
                RunEnd::Interrupted,
                "interrupted: the last turn was recorded",
            ),
            GoalState::InProgress {
                all_proven,
                stagnant,
            } => {
                self.stagnant = stagnant;
                if all_proven {
                    self.phase = Phase::CallingDone;
                    vec![Step::CallDone]
                } else {
                    self.next_turn(now_ms)
                }
            }
        }
    }

    fn next_turn(&mut self, now_ms: u64) -> Vec<Step> {
        let remaining = match self.turn_allowed(now_ms) {
            Ok(remaining) => remaining,
            Err(steps) => return steps,
        };
        let agent = match self.next_agent(now_ms) {
            Ok(agent) => agent,
            Err(steps) => return steps,
        };
        let mut actions = Vec::new();
        if self.turn > 0 && agent != self.current {
            actions.push(Step::Switch {
                from: self.current,
                to: agent,
                reason: self.switch_reason(agent, now_ms),
            });
        }
        self.current = agent;
        let timeout_ms = match (self.limits.turn_timeout_ms, remaining) {
            (Some(t), Some(r)) => Some(t.min(r)),
            (t, r) => t.or(r),
        };
        self.turn += 1;
        self.phase = Phase::InTurn;
        actions.push(Step::StartTurn {
            turn: self.turn,
            agent,
            iteration_attempt: self.retries + 1,
            timeout_ms,
        });
        actions
    }

    /// Whether the run may take another turn: not after a Ctrl-C, nor past --max-iterations,
    /// the budget or --max-time (Err: the steps that stop it). Ok: the time left before
    /// --max-time (None: no deadline).
    fn turn_allowed(&mut self, now_ms: u64) -> Result<Option<u64>, Vec<Step>> {
        if self.interrupts > 0 {
            return Err(self.stop(RunEnd::Interrupted, "interrupted"));
        }
        if let Some(max) = self.limits.max_iterations
            && self.iterations >= max
        {
            return Err(self.stop(
                RunEnd::Budget,
                format!("--max-iterations {max} reached and the goal is not proven done"),
            ));
        }
        if let Some(why) = self.limits.budget.spent(&self.usage) {
            return Err(self.stop(RunEnd::Budget, why));
        }
        match self.deadline() {
            Some(deadline) if now_ms >= deadline => Err(self.stop(
                RunEnd::Budget,
                "--max-time ran out and the goal is not proven done",
            )),
            Some(deadline) => Ok(Some(deadline - now_ms)),
            None => Ok(None),
        }
    }

    /// The agent that takes the next turn (Err: the steps that wait for the earliest usage limit
    /// to reset, or stop the run when no agent is left in it).
    fn next_agent(&mut self, now_ms: u64) -> Result<usize, Vec<Step>> {
        if let Some(i) = self.available(now_ms) {
            return Ok(i);
        }
        match self.earliest() {
            Some(at) => {
                let why = self
                    .last_failure
                    .clone()
                    .unwrap_or_else(|| "every agent is at its usage limit".into());
                Err(self.wait_for_limit(now_ms, at.saturating_sub(now_ms), why))
            }
            None => {
                let why = match &self.slots[self.current].why {
                    Some(why) if self.slots.len() == 1 => why.clone(),
                    Some(why) => format!("{why}; no agent is left in the run"),
                    None => "no agent is left in the run".into(),
                };
                Err(self.stop(RunEnd::HardFailure, why))
            }
        }
    }

    /// Why the turn passes from the current agent to `agent`.
    fn switch_reason(&self, agent: usize, now_ms: u64) -> String {
        let from = &self.slots[self.current];
        let why = from.why.clone().unwrap_or_default();
        // An agent earlier in the list was passed over only while it was limited.
        if agent < self.current {
            "available again: its usage limit has reset".to_string()
        } else if from.unreported {
            "usage-unreported".to_string()
        } else if from.gone {
            format!("out of the run: {why}")
        } else {
            format!(
                "usage limit (available again in {}): {why}",
                about(from.until_ms.saturating_sub(now_ms))
            )
        }
    }

    fn turn_ended(
        &mut self,
        now_ms: u64,
        end: TurnEnd,
        output: &str,
        committed: bool,
    ) -> Vec<Step> {
        if committed {
            // The agent recorded an iteration itself: a new iteration, a new retry count.
            self.retries = 0;
        }
        if self.interrupts >= 2 {
            return self.stop(
                RunEnd::Interrupted,
                "interrupted twice: the agent was stopped",
            );
        }
        let verdict = match self.verdict(now_ms, end, output) {
            Ok(verdict) => verdict,
            Err(steps) => return steps,
        };
        if self.interrupts == 1 && verdict != TurnVerdict::Ok {
            return self.stop(RunEnd::Interrupted, "interrupted: the last turn failed");
        }
        // A failed turn that spent the budget is not retried (a good one is recorded first,
        // and the next turn is refused).
        if !matches!(verdict, TurnVerdict::Ok | TurnVerdict::Hard(_))
            && let Some(why) = self.limits.budget.spent(&self.usage)
        {
            return self.stop(RunEnd::Budget, why);
        }
        match verdict {
            TurnVerdict::Ok => self.turn_ok(output, committed),
            TurnVerdict::Hard(why) => self.agent_out(now_ms, why),
            TurnVerdict::UsageLimit {
                resets_at_ms: Some(at),
                why,
            } if at > now_ms => {
                self.slots[self.current].limit_waits = 0;
                self.limited(now_ms, at, why)
            }
            TurnVerdict::UsageLimit { why, .. } => {
                // No reset time (or one already past): wait in growing steps, no retry spent.
                let slot = &mut self.slots[self.current];
                slot.limit_waits += 1;
                let step = limit_step(slot.limit_waits);
                self.limited(
                    now_ms,
                    now_ms + step,
                    format!("{why} (no reset time given)"),
                )
            }
            TurnVerdict::Failed(why) => self.failure(now_ms, why),
        }
    }

    /// Take the current agent out of the run when its turn's `usage` lacks what a budget
    /// counts (it could spend without the run ever seeing it).
    fn hold_to_budget(&mut self, usage: Usage) {
        let Some((flag, what)) = self.limits.budget.unreported(&usage) else {
            return;
        };
        let slot = &mut self.slots[self.current];
        slot.gone = true;
        slot.unreported = true;
        slot.why = Some(format!(
            "{name}'s turn reported no {what}, so {flag} cannot hold it to the budget: {name} is out of the run",
            name = slot.name
        ));
    }

    /// The current agent is limited until `until`: the next available agent takes the next turn at
    /// once; when none is, the run waits for the earliest reset (no retry spent).
    fn limited(&mut self, now_ms: u64, until: u64, why: String) -> Vec<Step> {
        let slot = &mut self.slots[self.current];
        slot.until_ms = until;
        slot.why = Some(why.clone());
        self.last_failure = Some(why.clone());
        if self.available(now_ms).is_some() {
            return self.next_turn(now_ms);
        }
        let at = self.earliest().unwrap_or(until);
        let why = if self.slots.len() > 1 {
            format!("{why}; every agent is at its usage limit")
        } else {
            why
        };
        self.wait_for_limit(now_ms, at.saturating_sub(now_ms), why)
    }

    /// Wait `ms` for a usage limit to reset (cut short by --max-time), without spending a retry.
    fn wait_for_limit(&mut self, now_ms: u64, ms: u64, why: String) -> Vec<Step> {
        let until = match self.deadline() {
            Some(d) if d <= now_ms => {
                return self.stop(
                    RunEnd::Budget,
                    format!("{why}; --max-time ran out before it resets"),
                );
            }
            Some(d) => (now_ms + ms).min(d),
            None => now_ms + ms,
        };
        self.phase = Phase::Waiting;
        self.last_failure = Some(why.clone());
        vec![Step::Wait {
            ms: until - now_ms,
            delay_s: ms.div_ceil(1000),
            kind: WaitKind::UsageLimit,
            reason: why,
        }]
    }

    fn failure(&mut self, now_ms: u64, why: String) -> Vec<Step> {
        self.retries += 1;
        self.last_failure = Some(why.clone());
        let backoff = self.limits.backoff;
        if self.retries > backoff.max_retries {
            self.phase = Phase::Stopped;
            return vec![
                Step::BlockRetries {
                    reason: why.clone(),
                },
                Step::Stop {
                    outcome: RunEnd::Blocked,
                    reason: format!(
                        "retries exhausted: {} failed retries in this iteration (last: {why}); the goal is blocked",
                        backoff.max_retries
                    ),
                },
            ];
        }
        let delay_s = backoff.delay(self.retries);
        let mut ms = delay_s.saturating_mul(1000);
        if let Some(d) = self.deadline() {
            ms = ms.min(d.saturating_sub(now_ms));
        }
        self.phase = Phase::Waiting;
        vec![
            Step::RecordRetry {
                retry: self.retries,
                max: backoff.max_retries,
                delay_s,
                reason: why.clone(),
            },
            Step::Wait {
                ms,
                delay_s,
                kind: WaitKind::Retry,
                reason: why,
            },
        ]
    }
}

mod budget;
mod turn_end;
mod words;
pub use budget::Budget;
use words::about;
pub use words::{human_ms, limit_step};

#[cfg(test)]
mod tests;
