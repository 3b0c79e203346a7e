//! A failed turn: backoff and the retries that block, usage-limit waits (with or without a
//! reset time, cut by --max-time), hard failures, and the whole error table.

use super::*;

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
