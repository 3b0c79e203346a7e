//! How a turn's end is read: its verdict from the way it ended, a good turn recorded, an agent
//! out of the run after a hard failure. Pure, like the machine it belongs to.

use super::words::{clip, human_ms};
use super::{Machine, Phase, RunEnd, Step, TurnEnd};
use crate::runner::presets::TurnVerdict;

impl Machine {
    /// What the turn's end says: its verdict, or the steps that stop the run (`--max-time` ran
    /// out during it).
    pub(super) fn verdict(
        &mut self,
        now_ms: u64,
        end: TurnEnd,
        output: &str,
    ) -> Result<TurnVerdict, Vec<Step>> {
        Ok(match end {
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
                    return Err(self.stop(
                        RunEnd::Budget,
                        "--max-time ran out during a turn: the agent was stopped",
                    ));
                }
                TurnVerdict::Failed(format!(
                    "the turn took longer than {} (turn timeout): its process group was killed",
                    human_ms(self.limits.turn_timeout_ms.unwrap_or(0))
                ))
            }
            TurnEnd::Killed => TurnVerdict::Failed("the agent was killed".into()),
        })
    }

    /// A good turn: recorded as an iteration (by goal, with its summary, unless the agent
    /// committed one), which starts a new retry count as `goal iterate` does.
    pub(super) fn turn_ok(&mut self, output: &str, committed: bool) -> Vec<Step> {
        self.retries = 0;
        self.slots[self.current].limit_waits = 0;
        self.iterations += 1;
        self.last_failure = None;
        self.phase = Phase::Recording;
        let iterate = (!committed).then(|| {
            let summary = crate::runner::presets::last_message(output)
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

    /// A hard failure: the agent is out of the run; another one still in it takes the next
    /// turn, and with none left the run stops.
    pub(super) fn agent_out(&mut self, now_ms: u64, why: String) -> Vec<Step> {
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
}
