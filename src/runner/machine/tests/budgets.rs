//! The budgets: --max-iterations, --max-time, --max-cost and --max-tokens stop with 3.

use super::*;

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
fn the_unreported_usage_table() {
    let u = |i: Option<u64>, o: Option<u64>, c: Option<f64>| Usage {
        input_tokens: i,
        output_tokens: o,
        cost_usd: c,
    };
    let budget = |cost: Option<f64>, tokens: Option<u64>| Budget {
        max_cost_usd: cost,
        max_tokens: tokens,
    };
    // (budget, one turn's usage, the flag it cannot be held to)
    let table = [
        (budget(None, None), u(None, None, None), None),
        (
            budget(Some(1.0), None),
            u(None, None, None),
            Some("--max-cost"),
        ),
        // aider on a model whose price it does not know: tokens, no cost.
        (
            budget(Some(1.0), None),
            u(Some(10), Some(5), None),
            Some("--max-cost"),
        ),
        (budget(Some(1.0), None), u(None, None, Some(0.0)), None),
        (
            budget(None, Some(100)),
            u(None, None, Some(0.3)),
            Some("--max-tokens"),
        ),
        (budget(None, Some(100)), u(Some(0), None, None), None),
        (budget(None, Some(100)), u(Some(10), Some(5), None), None),
        (
            budget(Some(1.0), Some(100)),
            u(Some(10), Some(5), None),
            Some("--max-cost"),
        ),
        (
            budget(Some(1.0), Some(100)),
            u(None, None, Some(0.1)),
            Some("--max-tokens"),
        ),
        (
            budget(Some(1.0), Some(100)),
            u(Some(1), Some(1), Some(0.1)),
            None,
        ),
    ];
    for (budget, turn, flag) in table {
        assert_eq!(
            budget.unreported(&turn).map(|(f, _)| f),
            flag,
            "{budget:?} with {turn:?}"
        );
    }
}

#[test]
fn an_agent_that_reports_no_cost_leaves_the_run_after_its_turn_is_recorded() {
    let cost_cap = Limits {
        budget: Budget {
            max_cost_usd: Some(1.0),
            max_tokens: None,
        },
        ..limits()
    };
    let priced = r#"{"type":"result","is_error":false,"result":"worked","total_cost_usd":0.25,"usage":{"input_tokens":1,"output_tokens":1}}"#;
    // One agent, no cost in its turn: the turn is recorded, then the run stops with 2, naming it.
    let mut d = Drive {
        m: machine(cost_cap).named(&["aider".to_string()]),
        now: T0,
        log: Vec::new(),
    };
    let (outcome, reason) = d.run(
        |_, _| exited(0, "Tokens: 10 sent, 5 received."),
        |_| open(),
        |_| None,
    );
    assert_eq!(outcome, RunEnd::HardFailure, "{reason}");
    assert_eq!(
        (turns(&d), d.count(|a| matches!(a, Step::Record { .. }))),
        (1, 1)
    );
    assert!(reason.contains("aider's turn reported no cost"), "{reason}");
    assert!(reason.contains("--max-cost"), "{reason}");
    // Two agents: the next takes over (`usage-unreported`) and runs to the budget.
    let mut d = agents(2, cost_cap);
    let (outcome, reason) = d.run_agents(
        |_, _, i| exited(0, if i == 0 { "worked" } else { priced }),
        |_| open(),
        |_| None,
    );
    assert_eq!(outcome, RunEnd::Budget, "{reason}");
    assert_eq!(d.agents(), [0, 1, 1, 1, 1]);
    assert_eq!(d.switches(), [(0, 1, "usage-unreported".to_string())]);
    assert!(
        d.m.why(0)
            .is_some_and(|w| w.contains("agent 1's turn reported no cost"))
    );
    // Both unreported: out one after the other, exit 2 when none is left.
    let mut d = agents(2, cost_cap);
    let (outcome, reason) = d.run(|_, _| exited(0, "worked"), |_| open(), |_| None);
    assert_eq!((outcome, turns(&d)), (RunEnd::HardFailure, 2), "{reason}");
    assert!(reason.ends_with("no agent is left in the run"), "{reason}");
    // The turn that proves the goal completes it all the same.
    let mut d = Drive::new(cost_cap);
    let proven = GoalState::InProgress {
        all_proven: true,
        stagnant: false,
    };
    let (outcome, _) = d.run(|_, _| exited(0, "worked"), |_| proven, |_| None);
    assert_eq!(outcome, RunEnd::Complete);
    // Tokens reported, no cost asked for: the run goes on to its iteration budget.
    let mut d = Drive::new(Limits {
        budget: Budget {
            max_cost_usd: None,
            max_tokens: Some(1000),
        },
        max_iterations: Some(3),
        ..limits()
    });
    let (outcome, _) = d.run(|_, _| exited(0, priced), |_| open(), |_| None);
    assert_eq!((outcome, turns(&d)), (RunEnd::Budget, 3));
}
