//! Tests of the machine: a scripted agent on a fake clock (`Drive`), and the loop's own rules
//! (completion, stagnation, recording, interrupts, the start state).

use super::*;

mod budgets;
mod failover;
mod failures;
mod person;

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
                | Step::BlockForPerson { .. }
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
