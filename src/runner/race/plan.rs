//! The race's plan, pure: the racers' seats (agents and branch names), how a racer's run
//! ended, and the race's exit code.

/// One racer's place in the race.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    /// The preset's name, or the custom command's program.
    pub agent: String,
    /// Whether `agent` is a preset (the racer is given `--agent <it>`).
    pub preset: bool,
    pub branch: String,
}

/// The longest slug of a goal text in a branch name.
const SLUG_MAX: usize = 40;

/// `say-hello-world`: a goal text as part of a branch name (lowercase ASCII letters and digits,
/// words joined by `-`, at most 40 characters, cut between words). Pure.
pub fn slug(text: &str) -> String {
    let words = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase);
    let mut slug = String::new();
    for word in words {
        let sep = usize::from(!slug.is_empty());
        if slug.len() + sep + word.len() > SLUG_MAX {
            if slug.is_empty() {
                slug = word[..SLUG_MAX].to_string();
            }
            break;
        }
        if sep == 1 {
            slug.push('-');
        }
        slug.push_str(&word);
    }
    if slug.is_empty() {
        "goal".to_string()
    } else {
        slug
    }
}

/// The racers' seats: racer i takes `agents[i % len]` (or, given `command`, the custom command)
/// on branch `goal/<slug>-<agent>` (`goal/<slug>-<n>` for the custom command), `-<k>` added where
/// an agent repeats, and `-2`, `-3`… where `taken` says a name is in use already. Pure.
pub fn seats(
    slug: &str,
    racers: usize,
    agents: &[String],
    command: Option<&str>,
    taken: &dyn Fn(&str) -> bool,
) -> Vec<Seat> {
    let mut seats: Vec<Seat> = Vec::new();
    for i in 0..racers {
        let (agent, preset, base) = match command {
            Some(program) => (program.to_string(), false, format!("goal/{slug}-{}", i + 1)),
            None if agents.is_empty() => return Vec::new(),
            None => {
                let agent = agents[i % agents.len()].clone();
                let repeats = (0..racers)
                    .filter(|j| agents[j % agents.len()] == agent)
                    .count();
                let base = if repeats > 1 {
                    let k = (0..=i)
                        .filter(|j| agents[j % agents.len()] == agent)
                        .count();
                    format!("goal/{slug}-{agent}-{k}")
                } else {
                    format!("goal/{slug}-{agent}")
                };
                (agent, true, base)
            }
        };
        let mut branch = base.clone();
        let mut n = 2;
        while taken(&branch) || seats.iter().any(|s| s.branch == branch) {
            branch = format!("{base}-{n}");
            n += 1;
        }
        seats.push(Seat {
            agent,
            preset,
            branch,
        });
    }
    seats
}

/// How a racer's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RacerOutcome {
    /// Its `goal done` succeeded (the first one to: the winner).
    Complete,
    /// Stopped because another racer won.
    Stopped,
    Interrupted,
    Blocked,
    Budget,
    /// A hard agent failure, or the run refused to start.
    Error,
    /// `--claim`: another racer (on this machine or another) claimed the win first.
    Lost,
    /// `--claim`: its work could not be pushed to the remote.
    Unpushed,
}

impl RacerOutcome {
    /// The outcome a `goal run --json` stop event names. Pure.
    pub fn of_event(event: &str) -> Option<RacerOutcome> {
        Some(match event {
            "done" => RacerOutcome::Complete,
            "blocked" => RacerOutcome::Blocked,
            "budget" => RacerOutcome::Budget,
            "interrupted" => RacerOutcome::Interrupted,
            "error" => RacerOutcome::Error,
            "lost" => RacerOutcome::Lost,
            "unpushed" => RacerOutcome::Unpushed,
            _ => return None,
        })
    }

    /// The outcome of a run that ended without a stop event, by its exit code. Pure.
    pub fn of_code(code: i32) -> RacerOutcome {
        match code {
            0 => RacerOutcome::Complete,
            3 => RacerOutcome::Budget,
            c if c >= 128 => RacerOutcome::Interrupted,
            _ => RacerOutcome::Error,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RacerOutcome::Complete => "complete",
            RacerOutcome::Stopped => "stopped",
            RacerOutcome::Interrupted => "interrupted",
            RacerOutcome::Blocked => "blocked",
            RacerOutcome::Budget => "budget",
            RacerOutcome::Error => "error",
            RacerOutcome::Lost => "lost",
            RacerOutcome::Unpushed => "unpushed",
        }
    }
}

/// The race's exit code, as `goal run`'s: 0 when a racer won; else 130 when Ctrl-C stopped it;
/// else from the racers' own codes, the one that most needs a person first: 1 (blocked, or
/// unpushed), 2 (a hard failure), 3 (a budget ran out); else 0 when a racer lost to another's
/// claim (`--claim`: the race was won elsewhere); then any other. Pure.
pub fn exit_code(won: bool, interrupted: bool, lost: bool, codes: &[i32]) -> u8 {
    if won {
        return 0;
    }
    if interrupted {
        return 130;
    }
    for wanted in [1, 2, 3] {
        if codes.contains(&wanted) {
            return wanted as u8;
        }
    }
    if lost {
        return 0;
    }
    codes
        .iter()
        .find_map(|c| u8::try_from(*c).ok().filter(|c| *c != 0))
        .unwrap_or(2)
}
