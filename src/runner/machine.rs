//! The loop of `goal run` as a pure state machine: events in (a turn ended, a goal state was read,
//! `goal done` answered, a timer fired, Ctrl-C), actions out (start a turn, wait, record an
//! iteration or a retry, call `goal done`, kill the agent, stop with an exit code). No process, no
//! clock, no git: the caller owns those and passes the time (Unix ms) with every event, so the
//! whole error table is tested with a fake clock.

use super::presets::{Patterns, TurnVerdict};
use crate::retry::Backoff;
use crate::usage::Usage;

/// The spend budgets of a run (`--max-cost`, `--max-tokens`), over the usage the agent CLI reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Budget {
    pub max_cost_usd: Option<f64>,
    pub max_tokens: Option<u64>,
}

impl Budget {
    /// Why the running `total` has spent this budget (it reached it: ≥), or None.
    pub fn spent(&self, total: &Usage) -> Option<String> {
        if let (Some(max), Some(cost)) = (self.max_cost_usd, total.cost_usd)
            && cost >= max
        {
            return Some(format!(
                "--max-cost {max} reached (${cost:.4} spent) and the goal is not proven done"
            ));
        }
        if let (Some(max), Some(tokens)) = (self.max_tokens, total.tokens())
            && tokens >= max
        {
            return Some(format!(
                "--max-tokens {max} reached ({tokens} tokens used) and the goal is not proven done"
            ));
        }
        None
    }
}

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
}

impl RunEnd {
    pub fn code(self) -> u8 {
        match self {
            RunEnd::Complete => 0,
            RunEnd::Blocked => 1,
            RunEnd::HardFailure => 2,
            RunEnd::Budget => 3,
            RunEnd::Interrupted => 130,
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
        Machine {
            limits,
            slots: agents
                .into_iter()
                .map(|patterns| Slot {
                    patterns,
                    until_ms: 0,
                    gone: false,
                    limit_waits: 0,
                    why: None,
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
                self.turn_ended(now_ms, end, &output, committed)
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
        if self.interrupts > 0 {
            return self.stop(RunEnd::Interrupted, "interrupted");
        }
        if let Some(max) = self.limits.max_iterations
            && self.iterations >= max
        {
            return self.stop(
                RunEnd::Budget,
                format!("--max-iterations {max} reached and the goal is not proven done"),
            );
        }
        if let Some(why) = self.limits.budget.spent(&self.usage) {
            return self.stop(RunEnd::Budget, why);
        }
        let remaining = match self.deadline() {
            Some(deadline) if now_ms >= deadline => {
                return self.stop(
                    RunEnd::Budget,
                    "--max-time ran out and the goal is not proven done",
                );
            }
            Some(deadline) => Some(deadline - now_ms),
            None => None,
        };
        let agent = match self.available(now_ms) {
            Some(i) => i,
            None => match self.earliest() {
                Some(at) => {
                    let why = self
                        .last_failure
                        .clone()
                        .unwrap_or_else(|| "every agent is at its usage limit".into());
                    return self.wait_for_limit(now_ms, at.saturating_sub(now_ms), why);
                }
                None => {
                    return self.stop(RunEnd::HardFailure, "no agent is left in the run");
                }
            },
        };
        let mut actions = Vec::new();
        if self.turn > 0 && agent != self.current {
            let from = &self.slots[self.current];
            let why = from.why.clone().unwrap_or_default();
            // An agent earlier in the list was passed over only while it was limited.
            let reason = if agent < self.current {
                "available again: its usage limit has reset".to_string()
            } else if from.gone {
                format!("out of the run: {why}")
            } else {
                format!(
                    "usage limit (available again in {}): {why}",
                    about(from.until_ms.saturating_sub(now_ms))
                )
            };
            actions.push(Step::Switch {
                from: self.current,
                to: agent,
                reason,
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
        let verdict = match end {
            TurnEnd::NotStarted(why) => TurnVerdict::Hard(why),
            TurnEnd::Exited(code) => self.slots[self.current]
                .patterns
                .classify(code, output, now_ms),
            // A CLI that went quiet sleeping inside its turn on a limit is not a failed try.
            TurnEnd::IdleTimeout => self.slots[self.current]
                .patterns
                .idle(output, now_ms)
                .unwrap_or_else(|| {
                TurnVerdict::Failed(format!(
                    "the agent printed nothing for {} (idle timeout): its process group was killed",
                    human_ms(self.limits.idle_timeout_ms.unwrap_or(0))
                ))
            }),
            TurnEnd::TurnTimeout => {
                if self.max_time_passed(now_ms) {
                    return self.stop(
                        RunEnd::Budget,
                        "--max-time ran out during a turn: the agent was stopped",
                    );
                }
                TurnVerdict::Failed(format!(
                    "the turn took longer than {} (turn timeout): its process group was killed",
                    human_ms(self.limits.turn_timeout_ms.unwrap_or(0))
                ))
            }
            TurnEnd::Killed => TurnVerdict::Failed("the agent was killed".into()),
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
            TurnVerdict::Ok => {
                // The iteration it makes starts a new retry count (as `goal iterate` does).
                self.retries = 0;
                self.slots[self.current].limit_waits = 0;
                self.iterations += 1;
                self.last_failure = None;
                self.phase = Phase::Recording;
                let iterate = (!committed).then(|| {
                    let summary = super::presets::last_message(output)
                        .and_then(|m| {
                            m.lines()
                                .map(str::trim)
                                .find(|l| !l.is_empty())
                                .map(str::to_string)
                        })
                        .unwrap_or_else(|| "no summary".into());
                    format!("turn {}: {}", self.turn, clip(&summary, 200))
                });
                vec![Step::Record {
                    turn: self.turn,
                    iterate,
                }]
            }
            TurnVerdict::Hard(why) => {
                // The agent is out of the run; another one still in it takes the next turn.
                self.slots[self.current].gone = true;
                self.slots[self.current].why = Some(why.clone());
                if self.slots.iter().all(|s| s.gone) {
                    let why = if self.slots.len() > 1 {
                        format!("{why}; no agent is left in the run")
                    } else {
                        why
                    };
                    return self.stop(RunEnd::HardFailure, why);
                }
                self.last_failure = Some(why);
                self.next_turn(now_ms)
            }
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

/// The wait after the `n`-th usage limit in a row that named no reset time: 30 min, then 60,
/// doubling, capped at 2 h.
pub fn limit_step(n: u32) -> u64 {
    const STEP: u64 = 30 * 60_000;
    const CAP: u64 = 2 * 60 * 60_000;
    STEP.saturating_mul(1u64 << n.saturating_sub(1).min(8))
        .min(CAP)
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// A wait as people read it, rounded: `45 s`, `12 min`, `1 h 30 min`.
fn about(ms: u64) -> String {
    let s = ms.div_ceil(1000);
    match s {
        s if s < 90 => format!("{s} s"),
        s if s < 90 * 60 => format!("{} min", s.div_ceil(60)),
        s => {
            let m = s.div_ceil(60);
            match m % 60 {
                0 => format!("{} h", m / 60),
                r => format!("{} h {r} min", m / 60),
            }
        }
    }
}

/// `90 s`, `5 min`, `1.5 s`.
pub fn human_ms(ms: u64) -> String {
    if ms.is_multiple_of(60_000) && ms >= 60_000 {
        format!("{} min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: u64 = 1_800_000_000_000;
    const OVERLOADED: &str = r#"{"type":"result","is_error":true,"api_error_status":529,"result":"API Error: 529 overloaded_error. Please try again later."}"#;
    const AUTH: &str = "Failed to authenticate. API Error: 401 authentication_error";

    fn limits() -> Limits {
        Limits {
            backoff: Backoff::default(),
            ..Limits::default()
        }
    }

    fn machine(limits: Limits) -> Machine {
        Machine::new(limits, Patterns::all())
    }

    fn open() -> GoalState {
        GoalState::InProgress {
            all_proven: false,
            stagnant: false,
        }
    }

    /// Drives a machine with a scripted agent on a fake clock; turns take `turn_ms`.
    struct Drive {
        m: Machine,
        now: u64,
        log: Vec<Step>,
    }

    impl Drive {
        fn new(limits: Limits) -> Drive {
            Drive {
                m: machine(limits),
                now: T0,
                log: Vec::new(),
            }
        }

        fn send(&mut self, event: Event) -> Vec<Step> {
            let actions = self.m.handle(event);
            self.log.extend(actions.iter().cloned());
            actions
        }

        /// Run to the end: `agent(turn)` gives each turn's end and output; `state(n)` the goal
        /// after the n-th record; `done(n)` the answer to the n-th `goal done`.
        fn run(
            &mut self,
            mut agent: impl FnMut(u64, u64) -> (TurnEnd, String, bool),
            state: impl FnMut(u64) -> GoalState,
            done: impl FnMut(u64) -> Option<String>,
        ) -> (RunEnd, String) {
            self.run_agents(move |turn, now, _| agent(turn, now), state, done)
        }

        /// [`Drive::run`] where `agent(turn, now, index)` also gets the agent given the turn.
        fn run_agents(
            &mut self,
            mut agent: impl FnMut(u64, u64, usize) -> (TurnEnd, String, bool),
            mut state: impl FnMut(u64) -> GoalState,
            mut done: impl FnMut(u64) -> Option<String>,
        ) -> (RunEnd, String) {
            let mut pending = self.send(Event::Start {
                now_ms: self.now,
                state: open(),
                retries: 0,
            });
            let (mut records, mut dones) = (0, 0);
            for _ in 0..100_000 {
                let Some(action) = pending.first().cloned() else {
                    panic!("the machine stalled: {:?}", self.log);
                };
                pending.remove(0);
                let next = match action {
                    Step::StartTurn { turn, agent: i, .. } => {
                        self.now += 1000;
                        let (end, output, committed) = agent(turn, self.now, i);
                        Some(Event::TurnEnded {
                            now_ms: self.now,
                            end,
                            usage: crate::usage::claude(&output),
                            output,
                            committed,
                        })
                    }
                    Step::Record { .. } => {
                        records += 1;
                        Some(Event::Recorded {
                            now_ms: self.now,
                            state: state(records),
                        })
                    }
                    Step::CallDone => {
                        dones += 1;
                        Some(Event::DoneAnswered {
                            now_ms: self.now,
                            refusal: done(dones),
                        })
                    }
                    Step::Wait { ms, .. } => {
                        self.now += ms;
                        Some(Event::TimerFired { now_ms: self.now })
                    }
                    Step::RecordRetry { .. }
                    | Step::BlockRetries { .. }
                    | Step::Switch { .. }
                    | Step::KillAgent => None,
                    Step::Stop { outcome, reason } => return (outcome, reason),
                };
                if let Some(event) = next {
                    pending.extend(self.send(event));
                }
            }
            panic!("no end: {:?}", self.log);
        }

        fn waits(&self) -> Vec<(u64, WaitKind)> {
            self.log
                .iter()
                .filter_map(|a| match a {
                    Step::Wait { delay_s, kind, .. } => Some((*delay_s, *kind)),
                    _ => None,
                })
                .collect()
        }

        fn count(&self, f: impl Fn(&Step) -> bool) -> usize {
            self.log.iter().filter(|a| f(a)).count()
        }

        /// The agent of each turn, in order.
        fn agents(&self) -> Vec<usize> {
            self.log
                .iter()
                .filter_map(|a| match a {
                    Step::StartTurn { agent, .. } => Some(*agent),
                    _ => None,
                })
                .collect()
        }

        /// Each switch: (from, to, reason).
        fn switches(&self) -> Vec<(usize, usize, String)> {
            self.log
                .iter()
                .filter_map(|a| match a {
                    Step::Switch { from, to, reason } => Some((*from, *to, reason.clone())),
                    _ => None,
                })
                .collect()
        }
    }

    /// A machine over `n` agents (every one reads every preset's texts).
    fn agents(n: usize, limits: Limits) -> Drive {
        Drive {
            m: Machine::with_agents(limits, (0..n).map(|_| Patterns::all()).collect()),
            now: T0,
            log: Vec::new(),
        }
    }

    /// Claude Code at its usage limit, resetting `secs` after `now_ms`.
    fn limit_in(now_ms: u64, secs: u64) -> (TurnEnd, String, bool) {
        exited(
            1,
            &format!(
                r#"{{"type":"rate_limit_event","rate_limit_info":{{"status":"rejected","resetsAt":{}}}}}"#,
                now_ms / 1000 + secs
            ),
        )
    }

    fn exited(code: i32, output: &str) -> (TurnEnd, String, bool) {
        (TurnEnd::Exited(code), output.to_string(), false)
    }

    fn turns(d: &Drive) -> usize {
        d.count(|a| matches!(a, Step::StartTurn { .. }))
    }

    #[test]
    fn transient_failures_back_off_and_the_eleventh_blocks() {
        let mut d = Drive::new(Limits {
            max_iterations: Some(1),
            ..limits()
        });
        let (outcome, reason) = d.run(|_, _| exited(1, OVERLOADED), |_| open(), |_| None);
        assert_eq!(outcome, RunEnd::Blocked, "{reason}");
        assert_eq!(outcome.code(), 1);
        let delays: Vec<u64> = d.waits().iter().map(|w| w.0).collect();
        assert_eq!(delays, [30, 60, 120, 240, 300, 300, 300, 300, 300, 300]);
        assert!(d.waits().iter().all(|w| w.1 == WaitKind::Retry));
        // Retries are not iterations: --max-iterations 1 still allows 11 tries.
        assert_eq!(turns(&d), 11);
        assert_eq!(d.count(|a| matches!(a, Step::RecordRetry { .. })), 10);
        assert_eq!(d.count(|a| matches!(a, Step::BlockRetries { .. })), 1);
        assert_eq!(d.count(|a| matches!(a, Step::Record { .. })), 0);
        assert!(reason.contains("overloaded"), "{reason}");
    }

    #[test]
    fn a_good_turn_starts_a_new_retry_count() {
        let mut d = Drive::new(limits());
        // Fail, fail, succeed, fail: the fourth turn's retry is the first of a new iteration.
        let (outcome, _) = d.run(
            |turn, _| match turn {
                3 => exited(0, "did work"),
                5 => exited(0, "more"),
                _ if turn > 5 => exited(0, "x"),
                _ => exited(1, "API Error: 503"),
            },
            |n| {
                if n >= 2 { GoalState::Blocked } else { open() }
            },
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Blocked);
        let delays: Vec<u64> = d.waits().iter().map(|w| w.0).collect();
        assert_eq!(delays, [30, 60, 30]);
    }

    #[test]
    fn usage_limit_waits_for_its_reset_without_spending_a_retry() {
        let mut d = Drive::new(limits());
        let (outcome, _) = d.run(
            |turn, now| match turn {
                1 => exited(
                    1,
                    &format!(
                        r#"{{"type":"rate_limit_event","rate_limit_info":{{"status":"rejected","resetsAt":{}}}}}"#,
                        now / 1000 + 3
                    ),
                ),
                _ => exited(0, "ok"),
            },
            |_| GoalState::InProgress {
                all_proven: true,
                stagnant: false,
            },
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Complete);
        assert_eq!(d.waits(), [(3, WaitKind::UsageLimit)]);
        assert_eq!(d.count(|a| matches!(a, Step::RecordRetry { .. })), 0);
        assert_eq!(d.m.retries(), 0);
    }

    #[test]
    fn usage_limit_wait_is_capped_by_max_time() {
        let mut d = Drive::new(Limits {
            max_time_ms: Some(60_000),
            ..limits()
        });
        let (outcome, _) = d.run(
            |_, _| exited(1, "You've hit your usage limit. Try again in 5 hours."),
            |_| open(),
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Budget);
        assert_eq!(outcome.code(), 3);
        assert_eq!(d.waits(), [(5 * 3600, WaitKind::UsageLimit)]);
        let waited: u64 = d
            .log
            .iter()
            .filter_map(|a| match a {
                Step::Wait { ms, .. } => Some(*ms),
                _ => None,
            })
            .sum();
        assert_eq!(waited, 59_000, "the wait ends with --max-time");
    }

    #[test]
    fn a_usage_limit_with_no_reset_time_waits_in_growing_steps_without_a_retry() {
        let mut d = Drive::new(limits());
        let (outcome, _) = d.run(
            |turn, _| match turn {
                1..=4 => exited(
                    1,
                    "TerminalQuotaError: You have exhausted your daily quota on this model.",
                ),
                5 => exited(0, "ok"),
                6 => exited(1, "usage limit reached"),
                _ => exited(0, "ok"),
            },
            |n| if n >= 2 { GoalState::Blocked } else { open() },
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Blocked);
        let limit = WaitKind::UsageLimit;
        // 30 min, 60, 120, capped at 2 h; a good turn starts the steps again.
        assert_eq!(
            d.waits(),
            [
                (1800, limit),
                (3600, limit),
                (7200, limit),
                (7200, limit),
                (1800, limit)
            ]
        );
        assert_eq!(d.count(|a| matches!(a, Step::RecordRetry { .. })), 0);
        assert_eq!(
            (1..=6).map(limit_step).collect::<Vec<_>>(),
            [
                1_800_000, 3_600_000, 7_200_000, 7_200_000, 7_200_000, 7_200_000
            ]
        );
        assert_eq!(limit_step(u32::MAX), 7_200_000);
    }

    #[test]
    fn growing_usage_limit_waits_end_with_max_time() {
        let mut d = Drive::new(Limits {
            max_time_ms: Some(2 * 3_600_000),
            ..limits()
        });
        let (outcome, reason) = d.run(
            |_, _| exited(1, "usage limit reached"),
            |_| open(),
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Budget, "{reason}");
        assert!(reason.contains("--max-time"), "{reason}");
        let limit = WaitKind::UsageLimit;
        // The third step (2 h, nominal) is cut short where --max-time ends.
        assert_eq!(d.waits(), [(1800, limit), (3600, limit), (7200, limit)]);
        assert_eq!(d.now, T0 + 2 * 3_600_000);
        assert_eq!(d.count(|a| matches!(a, Step::RecordRetry { .. })), 0);
    }

    #[test]
    fn auth_and_missing_binary_stop_at_once() {
        for end in [
            exited(1, AUTH),
            exited(1, "Invalid API key · Please run /login"),
            (
                TurnEnd::NotStarted("cannot run `claude`: not found".into()),
                String::new(),
                false,
            ),
        ] {
            let mut d = Drive::new(limits());
            let (outcome, _) = d.run(|_, _| end.clone(), |_| open(), |_| None);
            assert_eq!(outcome, RunEnd::HardFailure, "{end:?}");
            assert_eq!(outcome.code(), 2);
            assert_eq!(turns(&d), 1);
            assert!(d.waits().is_empty());
        }
    }

    #[test]
    fn failover_the_slot_table() {
        // (what each turn's agent does, by turn; the agents of the turns; the usage-limit waits)
        type Script = fn(u64, u64, usize) -> (TurnEnd, String, bool);
        let proven = |n: u64| GoalState::InProgress {
            all_proven: n >= 1,
            stagnant: false,
        };
        /// (what, agents, script, the agent of each turn, the usage-limit waits, the outcome)
        type Row = (&'static str, usize, Script, Vec<usize>, Vec<u64>, RunEnd);
        let table: Vec<Row> = vec![
            (
                "one agent works: no switch",
                2,
                |_, _, _| exited(0, "ok"),
                vec![0],
                vec![],
                RunEnd::Complete,
            ),
            (
                "a limit goes to the next agent at once",
                2,
                |_, now, i| {
                    if i == 0 {
                        limit_in(now, 3600)
                    } else {
                        exited(0, "ok")
                    }
                },
                vec![0, 1],
                vec![],
                RunEnd::Complete,
            ),
            (
                "past two limited agents to the third",
                3,
                |_, now, i| {
                    if i < 2 {
                        limit_in(now, 600)
                    } else {
                        exited(0, "ok")
                    }
                },
                vec![0, 1, 2],
                vec![],
                RunEnd::Complete,
            ),
            (
                "every agent limited: wait for the earliest reset, then the first again",
                2,
                |turn, now, i| match (turn, i) {
                    (1, _) => limit_in(now, 600),
                    (2, _) => limit_in(now, 7200),
                    _ => exited(0, "ok"),
                },
                vec![0, 1, 0],
                vec![599],
                RunEnd::Complete,
            ),
            (
                "the earliest reset is the second agent's: it goes next",
                2,
                |turn, now, _| match turn {
                    1 => limit_in(now, 7200),
                    2 => limit_in(now, 600),
                    _ => exited(0, "ok"),
                },
                vec![0, 1, 1],
                vec![600],
                RunEnd::Complete,
            ),
            (
                "a limit without a reset time: out for 30 min, the other goes on",
                2,
                |_, _, i| {
                    if i == 0 {
                        exited(1, "usage limit reached")
                    } else {
                        exited(0, "ok")
                    }
                },
                vec![0, 1],
                vec![],
                RunEnd::Complete,
            ),
            (
                "both without a reset time: the wait is the earliest step",
                2,
                |turn, _, _| {
                    if turn <= 2 {
                        exited(1, "usage limit reached")
                    } else {
                        exited(0, "ok")
                    }
                },
                vec![0, 1, 0],
                vec![1799],
                RunEnd::Complete,
            ),
            (
                "an auth failure takes the agent out, the next goes on",
                2,
                |_, _, i| {
                    if i == 0 {
                        exited(1, AUTH)
                    } else {
                        exited(0, "ok")
                    }
                },
                vec![0, 1],
                vec![],
                RunEnd::Complete,
            ),
            (
                "a missing binary takes the agent out",
                2,
                |_, _, i| {
                    if i == 0 {
                        (
                            TurnEnd::NotStarted("cannot run `codex`: not found".into()),
                            String::new(),
                            false,
                        )
                    } else {
                        exited(0, "ok")
                    }
                },
                vec![0, 1],
                vec![],
                RunEnd::Complete,
            ),
            (
                "none left: exit 2",
                2,
                |_, _, _| exited(1, AUTH),
                vec![0, 1],
                vec![],
                RunEnd::HardFailure,
            ),
            (
                "a transient failure is retried with the same agent",
                2,
                |turn, _, _| {
                    if turn == 1 {
                        exited(1, OVERLOADED)
                    } else {
                        exited(0, "ok")
                    }
                },
                vec![0, 0],
                vec![],
                RunEnd::Complete,
            ),
        ];
        for (what, n, script, want_agents, want_waits, want) in table {
            let mut d = agents(n, limits());
            let (outcome, reason) = d.run_agents(script, proven, |_| None);
            assert_eq!(d.agents(), want_agents, "{what}: {reason} {:?}", d.log);
            let waits: Vec<u64> = d
                .waits()
                .iter()
                .filter(|w| w.1 == WaitKind::UsageLimit)
                .map(|w| w.0)
                .collect();
            assert_eq!(waits, want_waits, "{what}");
            assert_eq!(outcome, want, "{what}: {reason}");
            assert_eq!(
                d.count(|a| matches!(a, Step::RecordRetry { .. })),
                usize::from(what.contains("transient")),
                "{what}"
            );
        }
    }

    #[test]
    fn failover_switches_say_why_and_none_left_says_so() {
        let mut d = agents(2, limits());
        let (outcome, _) = d.run_agents(
            |turn, now, _| match turn {
                1 => limit_in(now, 600),
                2 => limit_in(now, 7200),
                _ => exited(0, "ok"),
            },
            |n| GoalState::InProgress {
                all_proven: n >= 1,
                stagnant: false,
            },
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Complete);
        let switches = d.switches();
        assert_eq!(switches.len(), 2, "{switches:?}");
        assert_eq!((switches[0].0, switches[0].1), (0, 1));
        assert!(
            switches[0]
                .2
                .starts_with("usage limit (available again in 10 min)"),
            "{switches:?}"
        );
        assert_eq!((switches[1].0, switches[1].1), (1, 0));
        assert_eq!(switches[1].2, "available again: its usage limit has reset");
        // The one wait says every agent is limited.
        let reason = d
            .log
            .iter()
            .find_map(|a| match a {
                Step::Wait { reason, .. } => Some(reason.clone()),
                _ => None,
            })
            .unwrap();
        assert!(
            reason.ends_with("every agent is at its usage limit"),
            "{reason}"
        );

        // Auth failures: each agent leaves; the last one's failure ends the run, exit 2.
        let mut d = agents(2, limits());
        let (outcome, reason) = d.run_agents(|_, _, _| exited(1, AUTH), |_| open(), |_| None);
        assert_eq!((outcome, outcome.code()), (RunEnd::HardFailure, 2));
        assert!(reason.ends_with("no agent is left in the run"), "{reason}");
        assert!(
            d.switches()[0].2.starts_with("out of the run: "),
            "{:?}",
            d.switches()
        );
        // A single agent's failure reads as before.
        let mut d = agents(1, limits());
        let (_, reason) = d.run_agents(|_, _, _| exited(1, AUTH), |_| open(), |_| None);
        assert!(!reason.contains("no agent is left"), "{reason}");

        // An agent out of the run never comes back, even after the others' limits.
        let mut d = agents(2, limits());
        let (outcome, _) = d.run_agents(
            |turn, now, i| match (turn, i) {
                (_, 0) => exited(1, AUTH),
                (2, 1) => limit_in(now, 600),
                _ => exited(0, "ok"),
            },
            |n| GoalState::InProgress {
                all_proven: n >= 1,
                stagnant: false,
            },
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Complete);
        assert_eq!(d.agents(), [0, 1, 1]);
        assert_eq!(d.waits(), [(600, WaitKind::UsageLimit)]);
    }

    #[test]
    fn failover_no_reset_steps_grow_per_agent_and_the_first_comes_back() {
        // Agent 0 names no reset time each time it runs; agent 1 works. Each time agent 0 is
        // available again (after 30 min, then 60) it takes the turn, then is out a longer step.
        let mut d = agents(2, limits());
        let mut at = Vec::new();
        let (outcome, _) = d.run_agents(
            |_, now, i| {
                at.push((i, now));
                match i {
                    0 => exited(1, "usage limit reached"),
                    _ => exited(0, "ok"),
                }
            },
            |n| {
                if n >= 13_000 {
                    GoalState::Complete
                } else {
                    open()
                }
            },
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Complete);
        // Agent 1's turns each take 1 s of the fake clock; agent 0 is back after 1800 s, then
        // after 3600 s more, then 7200 s (the cap).
        let zero: Vec<u64> = at
            .iter()
            .filter(|(i, _)| *i == 0)
            .map(|(_, t)| *t)
            .collect();
        assert!(zero.len() >= 4, "{zero:?}");
        let gaps: Vec<u64> = zero.windows(2).map(|w| (w[1] - w[0]) / 1000).collect();
        assert_eq!(gaps[..3], [1801, 3601, 7201], "{gaps:?}");
        assert!(d.waits().is_empty(), "agent 1 was always there: no wait");
    }

    #[test]
    fn the_error_table() {
        // (what the turn did, what the machine does next)
        let cases: Vec<((TurnEnd, &str), &str)> = vec![
            ((TurnEnd::Exited(0), "all done"), "record"),
            ((TurnEnd::Exited(0), "done, all tests pass"), "record"),
            ((TurnEnd::Exited(1), "oops"), "retry 30"),
            ((TurnEnd::Exited(1), OVERLOADED), "retry 30"),
            (
                (
                    TurnEnd::Exited(1),
                    "API Error: Request rejected (429) · rate_limit_error",
                ),
                "retry 30",
            ),
            (
                (
                    TurnEnd::Exited(0),
                    r#"{"type":"result","is_error":true,"result":"API Error: 500"}"#,
                ),
                "retry 30",
            ),
            ((TurnEnd::IdleTimeout, ""), "retry 30"),
            // opencode 1.18.33 sleeping inside its turn on a retry-after: a usage limit.
            (
                (
                    TurnEnd::IdleTimeout,
                    r#"timestamp=2027-01-15T08:00:00.000Z level=ERROR run=1 message="stream error" providerID=anthropic error.error="AI_APICallError: You have reached your specified API usage limits. You will regain access on 2027-01-16 at 00:00 UTC.""#,
                ),
                "wait 57599",
            ),
            // …but not once it went on and printed more.
            (
                (
                    TurnEnd::IdleTimeout,
                    "timestamp=2027-01-15T08:00:00.000Z level=ERROR run=1 message=\"stream error\" error.error=\"AI_APICallError: Overloaded\"\n{\"type\":\"step_start\"}",
                ),
                "retry 30",
            ),
            ((TurnEnd::TurnTimeout, ""), "retry 30"),
            ((TurnEnd::Exited(1), AUTH), "stop 2"),
            (
                (
                    TurnEnd::Exited(1),
                    "Claude AI usage limit reached|1800000100",
                ),
                "wait 99",
            ),
            (
                (TurnEnd::Exited(1), "quota will reset after 2h"),
                "wait 7200",
            ),
        ];
        for ((end, output), want) in cases {
            let mut m = machine(limits());
            m.handle(Event::Start {
                now_ms: T0,
                state: open(),
                retries: 0,
            });
            let actions = m.handle(Event::TurnEnded {
                now_ms: T0 + 1000,
                end: end.clone(),
                output: output.into(),
                committed: false,
                usage: Usage::default(),
            });
            let got = match actions.as_slice() {
                [Step::Record { .. }] => "record".to_string(),
                [Step::RecordRetry { delay_s, .. }, Step::Wait { .. }] => {
                    format!("retry {delay_s}")
                }
                [Step::Wait { delay_s, .. }] => format!("wait {delay_s}"),
                [Step::Stop { outcome, .. }] => format!("stop {}", outcome.code()),
                other => format!("{other:?}"),
            };
            assert_eq!(got, want, "{end:?} {output}");
        }
    }

    #[test]
    fn budgets_stop_with_three() {
        // --max-iterations: two good turns, never proven.
        let mut d = Drive::new(Limits {
            max_iterations: Some(2),
            ..limits()
        });
        let (outcome, reason) = d.run(|_, _| exited(0, "worked"), |_| open(), |_| None);
        assert_eq!((outcome, turns(&d)), (RunEnd::Budget, 2), "{reason}");
        assert!(reason.contains("--max-iterations 2"));

        // --max-time: failures wait 30 s, 60 s; the third wait is cut at the deadline.
        let mut d = Drive::new(Limits {
            max_time_ms: Some(120_000),
            ..limits()
        });
        let (outcome, reason) = d.run(|_, _| exited(1, "boom"), |_| open(), |_| None);
        assert_eq!(outcome, RunEnd::Budget, "{reason}");
        assert_eq!(turns(&d), 3);

        // The turn timeout is capped by the time left.
        let mut m = machine(Limits {
            max_time_ms: Some(10_000),
            turn_timeout_ms: Some(60_000),
            ..limits()
        });
        let actions = m.handle(Event::Start {
            now_ms: T0,
            state: open(),
            retries: 0,
        });
        assert!(matches!(
            actions.as_slice(),
            [Step::StartTurn {
                timeout_ms: Some(10_000),
                ..
            }]
        ));
        // A turn stopped by --max-time is the budget, not a retry.
        let actions = m.handle(Event::TurnEnded {
            now_ms: T0 + 10_000,
            end: TurnEnd::TurnTimeout,
            output: String::new(),
            committed: false,
            usage: Usage::default(),
        });
        assert!(matches!(
            actions.as_slice(),
            [Step::Stop {
                outcome: RunEnd::Budget,
                ..
            }]
        ));
    }

    #[test]
    fn the_spend_budget_table() {
        let u = |i: Option<u64>, o: Option<u64>, c: Option<f64>| Usage {
            input_tokens: i,
            output_tokens: o,
            cost_usd: c,
        };
        let cost = |m: f64| Budget {
            max_cost_usd: Some(m),
            max_tokens: None,
        };
        let tokens = |m: u64| Budget {
            max_cost_usd: None,
            max_tokens: Some(m),
        };
        // (budget, running total, spent?)
        let table = [
            (Budget::default(), u(Some(9), Some(9), Some(9.0)), false),
            (cost(0.5), u(None, None, None), false),
            (cost(0.5), u(None, None, Some(0.49)), false),
            (cost(0.5), u(None, None, Some(0.5)), true),
            (cost(0.5), u(None, None, Some(0.7)), true),
            (cost(0.5), u(Some(0), Some(0), Some(0.0)), false),
            (tokens(100), u(None, None, None), false),
            (tokens(100), u(Some(60), Some(39), None), false),
            (tokens(100), u(Some(60), Some(40), None), true),
            (tokens(100), u(None, Some(100), None), true),
            (tokens(100), u(Some(0), Some(0), Some(5.0)), false),
        ];
        for (budget, total, spent) in table {
            assert_eq!(
                budget.spent(&total).is_some(),
                spent,
                "{budget:?} with {total:?}"
            );
        }
        assert!(
            cost(0.5)
                .spent(&u(None, None, Some(0.5)))
                .unwrap()
                .contains("--max-cost 0.5")
        );
        assert!(
            tokens(100)
                .spent(&u(Some(60), Some(40), None))
                .unwrap()
                .contains("--max-tokens 100 reached (100 tokens")
        );
    }

    #[test]
    fn a_spend_budget_stops_after_the_turn_that_reaches_it() {
        let result = |cost: f64, input: u64| {
            format!(
                r#"{{"type":"result","is_error":false,"result":"worked","total_cost_usd":{cost},"usage":{{"input_tokens":{input},"output_tokens":10}}}}"#
            )
        };
        // Three good turns of $0.25: the second reaches $0.50, recorded, then the run stops.
        let mut d = Drive::new(Limits {
            budget: Budget {
                max_cost_usd: Some(0.5),
                max_tokens: None,
            },
            ..limits()
        });
        let (outcome, reason) = d.run(|_, _| exited(0, &result(0.25, 40)), |_| open(), |_| None);
        assert_eq!(outcome, RunEnd::Budget, "{reason}");
        assert_eq!(turns(&d), 2);
        assert_eq!(d.count(|a| matches!(a, Step::Record { .. })), 2);
        assert_eq!(
            d.m.usage(),
            Usage {
                input_tokens: Some(80),
                output_tokens: Some(20),
                cost_usd: Some(0.5)
            }
        );
        // Tokens: 50 a turn against 120: the third turn reaches it.
        let mut d = Drive::new(Limits {
            budget: Budget {
                max_cost_usd: None,
                max_tokens: Some(120),
            },
            ..limits()
        });
        let (outcome, reason) = d.run(|_, _| exited(0, &result(0.0, 40)), |_| open(), |_| None);
        assert_eq!((outcome, turns(&d)), (RunEnd::Budget, 3), "{reason}");
        assert!(
            reason.contains("--max-tokens 120 reached (150 tokens"),
            "{reason}"
        );
        // A failed turn that reaches it is not retried.
        let mut d = Drive::new(Limits {
            budget: Budget {
                max_cost_usd: Some(0.1),
                max_tokens: None,
            },
            ..limits()
        });
        let failed = r#"{"type":"result","is_error":true,"result":"boom","total_cost_usd":0.2,"usage":{"input_tokens":1,"output_tokens":1}}"#;
        let (outcome, _) = d.run(|_, _| exited(1, failed), |_| open(), |_| None);
        assert_eq!((outcome, turns(&d)), (RunEnd::Budget, 1));
        assert_eq!(d.count(|a| matches!(a, Step::RecordRetry { .. })), 0);
        // Proven on the turn that reaches it: completion wins.
        let mut d = Drive::new(Limits {
            budget: Budget {
                max_cost_usd: Some(0.1),
                max_tokens: None,
            },
            ..limits()
        });
        let (outcome, _) = d.run(
            |_, _| exited(0, &result(0.2, 1)),
            |_| GoalState::InProgress {
                all_proven: true,
                stagnant: false,
            },
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Complete);
    }

    #[test]
    fn completion_is_the_gates_call_and_a_refusal_feeds_the_next_turn() {
        let mut d = Drive::new(limits());
        let (outcome, _) = d.run(
            |_, _| exited(0, "all tests pass, done"),
            |n| GoalState::InProgress {
                all_proven: n >= 2,
                stagnant: false,
            },
            |n| (n == 1).then(|| "no passing test evidence on this tree".to_string()),
        );
        assert_eq!(outcome, RunEnd::Complete);
        assert_eq!(turns(&d), 3);
        assert_eq!(d.count(|a| *a == Step::CallDone), 2);
        assert_eq!(
            d.m.refusal.as_deref(),
            Some("no passing test evidence on this tree")
        );
        // Words alone never complete: a turn that says "done" with nothing proven goes on.
        let mut d = Drive::new(Limits {
            max_iterations: Some(5),
            ..limits()
        });
        let (outcome, _) = d.run(
            |_, _| exited(0, "done, all tests pass"),
            |_| open(),
            |_| None,
        );
        assert_eq!(outcome, RunEnd::Budget);
        assert_eq!(d.count(|a| *a == Step::CallDone), 0);
    }

    #[test]
    fn stagnation_sets_the_strategy_prompt_and_escalation_blocks() {
        let mut d = Drive::new(limits());
        let mut stagnant_seen_at_turn = Vec::new();
        let (outcome, _) = d.run(
            |turn, _| exited(0, &format!("turn {turn}")),
            |n| match n {
                1 | 2 => open(),
                3 | 4 => GoalState::InProgress {
                    all_proven: false,
                    stagnant: true,
                },
                _ => GoalState::Blocked,
            },
            |_| None,
        );
        stagnant_seen_at_turn.push(d.m.stagnant);
        assert_eq!(outcome, RunEnd::Blocked);
        assert_eq!(outcome.code(), 1);
        assert_eq!(turns(&d), 5);
        assert_eq!(stagnant_seen_at_turn, [true]);
    }

    #[test]
    fn a_turn_without_a_commit_is_recorded_with_its_summary() {
        let mut m = machine(limits());
        m.handle(Event::Start {
            now_ms: T0,
            state: open(),
            retries: 0,
        });
        let a = m.handle(Event::TurnEnded {
            now_ms: T0,
            end: TurnEnd::Exited(0),
            output: "{\"type\":\"result\",\"result\":\"Added the limiter\\nmore\"}".into(),
            committed: false,
            usage: Usage::default(),
        });
        assert_eq!(
            a,
            [Step::Record {
                turn: 1,
                iterate: Some("turn 1: Added the limiter".into())
            }]
        );
        m.handle(Event::Recorded {
            now_ms: T0,
            state: open(),
        });
        let a = m.handle(Event::TurnEnded {
            now_ms: T0,
            end: TurnEnd::Exited(0),
            output: String::new(),
            committed: true,
            usage: Usage::default(),
        });
        assert_eq!(
            a,
            [Step::Record {
                turn: 2,
                iterate: None
            }]
        );
        m.handle(Event::Recorded {
            now_ms: T0,
            state: open(),
        });
        let a = m.handle(Event::TurnEnded {
            now_ms: T0,
            end: TurnEnd::Exited(0),
            output: "   \n".into(),
            committed: false,
            usage: Usage::default(),
        });
        assert_eq!(
            a,
            [Step::Record {
                turn: 3,
                iterate: Some("turn 3: no summary".into())
            }]
        );
    }

    #[test]
    fn one_interrupt_finishes_and_records_the_turn_two_stop_at_once() {
        let start = |m: &mut Machine| {
            m.handle(Event::Start {
                now_ms: T0,
                state: open(),
                retries: 0,
            })
        };
        // One Ctrl-C during a turn: nothing now; the turn is recorded; then 130.
        let mut m = machine(limits());
        start(&mut m);
        assert!(m.handle(Event::Interrupt { now_ms: T0 }).is_empty());
        let a = m.handle(Event::TurnEnded {
            now_ms: T0,
            end: TurnEnd::Exited(0),
            output: "half way".into(),
            committed: false,
            usage: Usage::default(),
        });
        assert!(matches!(a.as_slice(), [Step::Record { .. }]));
        let a = m.handle(Event::Recorded {
            now_ms: T0,
            state: open(),
        });
        assert!(matches!(
            a.as_slice(),
            [Step::Stop {
                outcome: RunEnd::Interrupted,
                ..
            }]
        ));
        // Two: kill the agent now, record nothing, 130.
        let mut m = machine(limits());
        start(&mut m);
        m.handle(Event::Interrupt { now_ms: T0 });
        assert_eq!(m.handle(Event::Interrupt { now_ms: T0 }), [Step::KillAgent]);
        let a = m.handle(Event::TurnEnded {
            now_ms: T0,
            end: TurnEnd::Killed,
            output: String::new(),
            committed: false,
            usage: Usage::default(),
        });
        assert!(matches!(
            a.as_slice(),
            [Step::Stop {
                outcome: RunEnd::Interrupted,
                ..
            }]
        ));
        assert_eq!(RunEnd::Interrupted.code(), 130);
        // During a backoff wait: stop at once.
        let mut m = machine(limits());
        start(&mut m);
        m.handle(Event::TurnEnded {
            now_ms: T0,
            end: TurnEnd::Exited(1),
            output: "x".into(),
            committed: false,
            usage: Usage::default(),
        });
        let a = m.handle(Event::Interrupt { now_ms: T0 });
        assert!(matches!(
            a.as_slice(),
            [Step::Stop {
                outcome: RunEnd::Interrupted,
                ..
            }]
        ));
    }

    #[test]
    fn the_start_state_decides_first() {
        let cases = [
            (GoalState::Blocked, "stop 1"),
            (GoalState::Complete, "stop 0"),
            (
                GoalState::InProgress {
                    all_proven: true,
                    stagnant: false,
                },
                "done",
            ),
            (open(), "turn"),
        ];
        for (state, want) in cases {
            let mut m = machine(limits());
            let a = m.handle(Event::Start {
                now_ms: T0,
                state,
                retries: 0,
            });
            let got = match a.as_slice() {
                [Step::Stop { outcome, .. }] => format!("stop {}", outcome.code()),
                [Step::CallDone] => "done".into(),
                [Step::StartTurn { .. }] => "turn".into(),
                other => format!("{other:?}"),
            };
            assert_eq!(got, want, "{state:?}");
        }
        // Retries already spent in this iteration count.
        let mut m = machine(limits());
        m.handle(Event::Start {
            now_ms: T0,
            state: open(),
            retries: 10,
        });
        let a = m.handle(Event::TurnEnded {
            now_ms: T0,
            end: TurnEnd::Exited(1),
            output: String::new(),
            committed: false,
            usage: Usage::default(),
        });
        assert!(matches!(
            a.as_slice(),
            [Step::BlockRetries { .. }, Step::Stop { .. }]
        ));
    }
}
