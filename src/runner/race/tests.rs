//! Tests of the race's pure parts: slugs, seats, the exit code, outcomes, signals, paths.

use super::*;

#[test]
fn slugs() {
    let cases: &[(&str, &str)] = &[
        ("Say hello", "say-hello"),
        (
            "Rate limit the /login endpoint!",
            "rate-limit-the-login-endpoint",
        ),
        ("  Fix: über-bug #12 ", "fix-ber-bug-12"),
        ("", "goal"),
        ("€€€", "goal"),
        (
            "make every request to the login endpoint return quickly",
            "make-every-request-to-the-login-endpoint",
        ),
        (
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa b",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(slug(text), *want, "{text:?}");
    }
}

fn branches(seats: &[Seat]) -> Vec<&str> {
    seats.iter().map(|s| s.branch.as_str()).collect()
}

#[test]
fn racers_take_the_agents_in_turn_and_names_never_repeat() {
    let agents = |names: &[&str]| names.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let free = |_: &str| false;
    // Racers, agents, the custom command, the branches.
    type Case<'a> = (usize, &'a [&'a str], Option<&'a str>, &'a [&'a str]);
    let cases: &[Case] = &[
        (
            2,
            &["claude", "codex"],
            None,
            &["goal/x-claude", "goal/x-codex"],
        ),
        (
            3,
            &["claude", "codex"],
            None,
            &["goal/x-claude-1", "goal/x-codex", "goal/x-claude-2"],
        ),
        (2, &["pi"], None, &["goal/x-pi-1", "goal/x-pi-2"]),
        (3, &[], Some("sh"), &["goal/x-1", "goal/x-2", "goal/x-3"]),
    ];
    for (n, list, command, want) in cases {
        let seats = seats("x", *n, &agents(list), *command, &free);
        assert_eq!(branches(&seats), *want, "{n} {list:?} {command:?}");
        assert!(seats.iter().all(|s| s.preset == command.is_none()));
    }
    let seats = seats("x", 3, &agents(&["claude", "codex"]), None, &free);
    let taken: Vec<&str> = seats.iter().map(|s| s.agent.as_str()).collect();
    assert_eq!(taken, ["claude", "codex", "claude"]);
    // A name in use already (an earlier race's branch) gets the next free suffix.
    let used = |b: &str| b == "goal/x-1" || b == "goal/x-2";
    let seats = super::seats("x", 2, &[], Some("sh"), &used);
    assert_eq!(branches(&seats), ["goal/x-1-2", "goal/x-2-2"]);
    assert!(super::seats("x", 2, &[], None, &free).is_empty());
}

#[test]
fn the_race_exit_code() {
    // won, interrupted, lost to a claim, the racers' codes → the race's.
    let cases: &[(bool, bool, bool, &[i32], u8)] = &[
        (true, false, false, &[0, 130], 0),
        (true, true, false, &[0, 130], 0),
        (false, true, false, &[130, 130], 130),
        (false, false, false, &[3, 1], 1),
        (false, false, false, &[3, 2], 2),
        (false, false, false, &[3, 3], 3),
        (false, false, false, &[130, 3], 3),
        (false, false, false, &[143], 143),
        (false, false, false, &[], 2),
        (false, false, true, &[0, 0], 0),
        (false, false, true, &[0, 1], 1),
        (false, false, true, &[0, 130], 0),
    ];
    for (won, interrupted, lost, codes, want) in cases {
        assert_eq!(
            exit_code(*won, *interrupted, *lost, codes),
            *want,
            "{won} {interrupted} {lost} {codes:?}"
        );
    }
}

#[test]
fn outcomes_from_events_and_codes() {
    assert_eq!(RacerOutcome::of_event("done"), Some(RacerOutcome::Complete));
    assert_eq!(RacerOutcome::of_event("budget"), Some(RacerOutcome::Budget));
    assert_eq!(RacerOutcome::of_event("turn_end"), None);
    assert_eq!(RacerOutcome::of_code(0), RacerOutcome::Complete);
    assert_eq!(RacerOutcome::of_code(3), RacerOutcome::Budget);
    assert_eq!(RacerOutcome::of_code(130), RacerOutcome::Interrupted);
    assert_eq!(RacerOutcome::of_code(1), RacerOutcome::Error);
    assert_eq!(nth_interrupt(1), Signal::INT);
    assert_eq!(nth_interrupt(2), Signal::TERM);
    assert_eq!(
        worktree_path(Path::new("/r/.git"), "goal/x-pi"),
        Path::new("/r/.git/goal/race/x-pi")
    );
}
