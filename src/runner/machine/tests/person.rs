//! What only a person can lift: `goal done` refusing for a confirmation blocks the run at once;
//! a turn that commits a confirmation, or switches goals, stops it.

use super::*;

fn proven() -> GoalState {
    GoalState::InProgress {
        all_proven: true,
        stagnant: false,
    }
}

/// A machine past one good turn, waiting for its record (`Phase::Recording`).
fn recording() -> Machine {
    let mut m = machine(limits());
    m.handle(Event::Start {
        now_ms: T0,
        state: open(),
        retries: 0,
    });
    let steps = m.handle(Event::TurnEnded {
        now_ms: T0 + 1000,
        end: TurnEnd::Exited(0),
        output: "done".into(),
        committed: false,
        usage: Default::default(),
    });
    assert!(matches!(steps[..], [Step::Record { .. }]), "{steps:?}");
    m
}

#[test]
fn a_refusal_only_a_person_can_lift_blocks_at_once() {
    let mut m = recording();
    let steps = m.handle(Event::Recorded {
        now_ms: T0 + 2000,
        state: proven(),
    });
    assert_eq!(steps, vec![Step::CallDone]);
    let steps = m.handle(Event::DoneNeedsPerson {
        now_ms: T0 + 3000,
        confirm: "the weakened tests (test-removed tests/a.py:3 test_a)".into(),
    });
    let [
        Step::BlockForPerson { reason },
        Step::Stop {
            outcome,
            reason: said,
        },
    ] = &steps[..]
    else {
        panic!("{steps:?}");
    };
    assert_eq!(*outcome, RunEnd::Blocked);
    assert_eq!(outcome.code(), 1);
    for text in [reason, said] {
        assert!(text.contains("test-removed tests/a.py:3 test_a"), "{text}");
        assert!(text.contains("`goal done --confirm`"), "{text}");
    }
    // Stopped: nothing more happens, and no turn was spent on it.
    assert!(m.handle(Event::TimerFired { now_ms: T0 + 4000 }).is_empty());
}

#[test]
fn an_ordinary_refusal_still_goes_to_the_next_turn() {
    let mut m = recording();
    m.handle(Event::Recorded {
        now_ms: T0 + 2000,
        state: proven(),
    });
    let steps = m.handle(Event::DoneAnswered {
        now_ms: T0 + 3000,
        refusal: Some("criterion 1 is not proven".into()),
    });
    assert!(
        matches!(steps[..], [Step::StartTurn { turn: 2, .. }]),
        "{steps:?}"
    );
}

#[test]
fn each_event_counts_only_in_its_phase() {
    // (event, in which phase it arrives, whether the run stops on it)
    let late_needs_person = Event::DoneNeedsPerson {
        now_ms: T0 + 2000,
        confirm: "x".into(),
    };
    let overstepped = Event::TurnOverstepped {
        now_ms: T0 + 2000,
        why: "the turn's commits carry a confirmation (Goal-Guards-Only: confirmed)".into(),
    };
    // While recording, `goal done` has not been asked: its answer is out of phase.
    let mut m = recording();
    assert!(m.handle(late_needs_person).is_empty());
    // A turn that overstepped stops the run, exit 1, saying why.
    let steps = m.handle(overstepped);
    let [Step::Stop { outcome, reason }] = &steps[..] else {
        panic!("{steps:?}");
    };
    assert_eq!(outcome.code(), 1);
    assert!(reason.contains("Goal-Guards-Only: confirmed"), "{reason}");
    assert!(reason.contains("the run stops"), "{reason}");
}
