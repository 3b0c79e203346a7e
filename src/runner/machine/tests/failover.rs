//! Failover over several agents: which one takes each turn, the switches and why, and the
//! usage-limit steps per agent.

use super::*;

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
