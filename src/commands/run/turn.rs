//! One turn of the agent: its prompt, its process watched to its end, and the iteration it is
//! recorded as.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;

use super::display::{spend_text, usage_json};
use super::edge::Edge;
use super::goal_state::goal_state;
use crate::error::Result;
use crate::goal_file::Status;
use crate::ops;
use crate::runner::agent::{self, INTERRUPTS, Turn};
use crate::runner::machine::{Event, GoalState, Step, TurnEnd};
use crate::runner::presets::PromptPlace;
use crate::runner::prompt::{Extra, turn_prompt};
use crate::usage::Usage;

/// The largest prompt passed in GOAL_PROMPT (Linux refuses one variable over 128 KiB).
const MAX_ENV_PROMPT: usize = 100 * 1024;

/// A turn as planned before its agent starts.
struct TurnPlan {
    /// The agent's name.
    name: String,
    /// The goal's iteration before the turn: a commit past it is the turn's iteration.
    iteration_before: u64,
    prompt: String,
    /// The agent's command line, the prompt in place.
    argv: Vec<String>,
    /// The turn's log, in the run's folder.
    log: PathBuf,
    /// The turn's environment.
    env: Vec<(String, String)>,
}

impl Edge<'_> {
    /// Run one turn of the agent: its prompt, its process, its end.
    pub(super) fn start_turn(
        &mut self,
        turn: u64,
        agent: usize,
        iteration_attempt: u32,
        timeout_ms: Option<u64>,
    ) -> Result<Option<Event>> {
        let plan = self.plan_turn(turn, agent, iteration_attempt)?;
        let place = self.agents[agent].place;
        let reader = self.agents[agent].reader;
        let spec = Turn {
            argv: &plan.argv,
            // A preset that takes the prompt as an argument gets an empty stdin: some
            // (gemini, pi) would read it as more input.
            stdin: (place != Some(PromptPlace::Arg)).then_some(plan.prompt.as_str()),
            cwd: self.ws.root(),
            env: plan.env,
            log: plan.log.clone(),
            idle_timeout: Some(self.args.idle_timeout),
            turn_timeout: timeout_ms.map(Duration::from_millis),
        };
        let mut follow = Vec::new();
        // A claiming racer watches for another's claim while the agent works: once it verifies,
        // the agent is stopped as by a second Ctrl-C.
        let watch = self
            .claim
            .as_ref()
            .map(|run| run.claimant.watch(self.ws.root()));
        let mut lost = None;
        let ended = agent::run_turn(&spec, || {
            self.tick(turn, watch.as_ref(), &mut lost, &mut follow)
        });
        let committed = self.committed_since(plan.iteration_before);
        let usage = reader.map(|r| r(&ended.output)).unwrap_or_default();
        self.turn_ended(turn, &plan.name, &plan.log, &ended.end, committed, usage);
        drop(watch);
        if let Some(found) = lost {
            return self.lost_in_turn(turn, found);
        }
        self.pending.extend(follow);
        Ok(Some(Event::TurnEnded {
            now_ms: self.clock.now_ms(),
            end: ended.end,
            output: ended.output,
            committed,
            usage,
        }))
    }

    /// The turn about to start: HEAD before it kept, its prompt, command line, log and
    /// environment made, and its start said.
    fn plan_turn(&mut self, turn: u64, agent: usize, iteration_attempt: u32) -> Result<TurnPlan> {
        // Failed tries count with the turn that is finally recorded: the first one's HEAD stays.
        if self.head_before_turn.is_none() {
            self.head_before_turn = self.ws.repo.head_id()?;
        }
        let name = self.agents[agent].name.clone();
        let goal = self.ws.goal()?;
        let iteration_before = goal.iteration;
        let prompt = self.prompt_for(&goal)?;
        let argv = self.argv_with(agent, &prompt);
        let log = self.run_dir.join(format!("turn-{turn}.log"));
        let iteration = goal.iteration + 1;
        self.display.event(
            "turn_start",
            json!({"turn": turn, "agent": name, "iteration": iteration, "attempt": iteration_attempt, "log": log.display().to_string()}),
            &format!("turn {turn} (iteration {iteration}, try {iteration_attempt}) started with {name}"),
        );
        self.working(turn);
        let env = self.turn_env(turn, &name, iteration, &prompt);
        Ok(TurnPlan {
            name,
            iteration_before,
            prompt,
            argv,
            log,
            env,
        })
    }

    /// Whether the turn made its iteration commit: the goal's iteration went past the one before
    /// it (or the goal file is gone or unreadable).
    fn committed_since(&self, iteration_before: u64) -> bool {
        self.ws
            .read_goal(crate::workspace::Part::Whole)
            .ok()
            .flatten()
            .is_none_or(|g| g.iteration > iteration_before)
    }

    /// The turn's end said (its event and the status line), and what it used added to the run's
    /// spend and to what the next commit records.
    fn turn_ended(
        &mut self,
        turn: u64,
        name: &str,
        log: &Path,
        end: &TurnEnd,
        committed: bool,
        usage: Usage,
    ) {
        let (code, verdict) = self.verdict(end);
        self.display.event(
            "turn_end",
            json!({"turn": turn, "agent": name, "exit_code": code, "end": verdict, "committed": committed, "usage": usage_json(&usage), "log": log.display().to_string()}),
            &format!("turn {turn} ended: {verdict}"),
        );
        self.spend = spend_text(&self.machine.usage().plus(usage));
        self.unrecorded = self.unrecorded.plus(usage);
        self.display.status(&format!(
            "turn {turn} · {}{} · turn ended: {verdict}",
            self.summary, self.spend
        ));
    }

    /// The turn's prompt, from the goal, its proof and what the run has seen.
    fn prompt_for(&self, goal: &crate::goal_file::GoalFile) -> Result<String> {
        let proof = crate::ops::proof(self.ws, goal)?;
        Ok(turn_prompt(
            goal,
            &proof,
            &Extra {
                stagnant: self.machine.stagnant,
                refusal: self.machine.refusal.as_deref(),
                last_failure: self.machine.last_failure.as_deref(),
                language: self.ws.config.prompt_language(&goal.goal),
            },
        ))
    }

    /// The agent's command line with the prompt in place of `{prompt}`.
    fn argv_with(&self, agent: usize, prompt: &str) -> Vec<String> {
        self.agents[agent]
            .argv
            .iter()
            .map(|a| {
                if a == "{prompt}" {
                    prompt.to_string()
                } else {
                    a.clone()
                }
            })
            .collect()
    }

    /// The status line while the agent works.
    fn working(&self, turn: u64) {
        self.display.status(&format!(
            "turn {turn} · {summary}{spend} · agent working",
            summary = self.summary,
            spend = self.spend
        ));
    }

    /// The turn's environment: the run's marks and the prompt. The prompt is also a file beside
    /// the turn's log; the environment holds it only while it fits (the kernel refuses a
    /// variable over 128 KiB).
    fn turn_env(
        &self,
        turn: u64,
        name: &str,
        iteration: u64,
        prompt: &str,
    ) -> Vec<(String, String)> {
        let prompt_file = self.run_dir.join(format!("turn-{turn}.prompt"));
        let _ = std::fs::write(&prompt_file, prompt);
        let mut env = vec![
            ("GOAL_RUN".to_string(), "1".to_string()),
            ("GOAL_ITERATION".to_string(), iteration.to_string()),
            ("GOAL_RUN_ID".to_string(), self.run_id.clone()),
            ("GOAL_RUN_AGENT".to_string(), name.to_string()),
            // The mark of an agent's environment: `--confirm` from it is refused.
            ("GOAL_AGENT".to_string(), name.to_string()),
            (
                "GOAL_PROMPT_FILE".to_string(),
                prompt_file.display().to_string(),
            ),
        ];
        if prompt.len() < MAX_ENV_PROMPT {
            env.push(("GOAL_PROMPT".to_string(), prompt.to_string()));
        }
        env
    }

    /// A look while the agent works: another racer's claim verified (`lost`), Ctrl-C passed to
    /// the machine (its steps kept in `follow`). Whether to kill the agent now.
    fn tick(
        &mut self,
        turn: u64,
        watch: Option<&crate::runner::claim::Watch>,
        lost: &mut Option<crate::runner::claim::Claim>,
        follow: &mut Vec<Step>,
    ) -> bool {
        let now = INTERRUPTS.load(Ordering::SeqCst);
        if lost.is_none()
            && let (Some(found), Some(run)) = (watch.and_then(|w| w.found()), self.claim.as_mut())
            && super::claim::verified(run, self.ws, self.ctx, &found).unwrap_or(false)
        {
            *lost = Some(found);
        }
        if lost.is_some() {
            return true;
        }
        let mut kill = false;
        while self.seen_interrupts < now {
            self.seen_interrupts += 1;
            let actions = self.machine.handle(Event::Interrupt {
                now_ms: self.clock.now_ms(),
            });
            if actions.contains(&Step::KillAgent) {
                kill = true;
            } else {
                self.display.event(
                    "interrupt",
                    json!({"turn": turn}),
                    "Ctrl-C: finishing this turn, then stopping (Ctrl-C again stops the agent now)",
                );
            }
            follow.extend(actions.into_iter().filter(|a| *a != Step::KillAgent));
        }
        self.working(turn);
        kill
    }

    /// The turn's exit code and how it ended, in words.
    fn verdict(&self, end: &TurnEnd) -> (Option<i32>, String) {
        match end {
            TurnEnd::Exited(c) => (Some(*c), format!("exited {c}")),
            TurnEnd::IdleTimeout => (None, "idle timeout: killed".to_string()),
            // Which budget ended it: the turn's own timeout, or the run's --max-time.
            TurnEnd::TurnTimeout if self.machine.max_time_passed(self.clock.now_ms()) => {
                (None, "--max-time ran out: killed".to_string())
            }
            TurnEnd::TurnTimeout => (None, "turn timeout: killed".to_string()),
            TurnEnd::Killed => (None, "killed".to_string()),
            TurnEnd::NotStarted(why) => (None, why.clone()),
        }
    }

    /// Record the turn as an iteration (when the agent did not), and read the goal's state again.
    pub(super) fn record(&mut self, turn: u64, iterate: Option<String>) -> Result<Option<Event>> {
        let (recorded, new_files) = self.iterate_for_agent(iterate)?;
        let (state, now_summary) = goal_state(self.ws)?;
        self.summary = now_summary;
        // The status line says what the event line below says, not the last turn's.
        self.display.status(&format!(
            "turn {turn} · {}{} · iteration recorded",
            self.summary, self.spend
        ));
        let (iteration, stagnant) = match self.ws.read_goal(crate::workspace::Part::Whole)? {
            Some(g) => (
                Some(g.iteration),
                matches!(state, GoalState::InProgress { stagnant: true, .. }),
            ),
            None => (None, false),
        };
        self.announce_iteration(turn, iteration, recorded.as_deref(), stagnant, &new_files);
        if let Some(why) = crate::runner::overstep::overstep(&self.turn_commits()?) {
            return Ok(Some(Event::TurnOverstepped {
                now_ms: self.clock.now_ms(),
                why,
            }));
        }
        Ok(Some(Event::Recorded {
            now_ms: self.clock.now_ms(),
            state,
        }))
    }

    /// The iteration commit `goal run` makes for the agent (`iterate`: its message, when the
    /// agent made none), while the goal is still in progress. Returns the message recorded, and
    /// the files that commit brought into git.
    fn iterate_for_agent(
        &mut self,
        iterate: Option<String>,
    ) -> Result<(Option<String>, Vec<String>)> {
        let mut recorded = None;
        let mut new_files: Vec<String> = Vec::new();
        if let Some(message) = iterate
            && self
                .ws
                .read_goal(crate::workspace::Part::Whole)?
                .is_some_and(|g| g.status == Status::InProgress)
        {
            let _hush = crate::context::hush();
            let iterated = ops::iterate::iterate(
                self.ws,
                ops::iterate::Options {
                    budget: self.budget.take(),
                    messages: vec![message.clone()],
                    goal_only: false,
                    run_id: Some(self.run_id.clone()),
                    run_agent: Some(self.agents[self.machine.agent()].name.clone()),
                    usage: Some(std::mem::take(&mut self.unrecorded))
                        .filter(|u| *u != Usage::default()),
                },
            )?;
            recorded = Some(message);
            // The files this iteration brought into git, said where people look (an
            // escalation commit after it brings none).
            new_files = self
                .ws
                .repo
                .added_paths(iterated.commit, &self.ws.goal_dir)
                .unwrap_or_default();
        }
        Ok((recorded, new_files))
    }

    /// The `iterate` event: who recorded the iteration, the goal's state, the new files and
    /// whether the run is stagnant.
    fn announce_iteration(
        &self,
        turn: u64,
        iteration: Option<u64>,
        recorded: Option<&str>,
        stagnant: bool,
        new_files: &[String],
    ) {
        self.display.event(
            "iterate",
            json!({"turn": turn, "iteration": iteration, "recorded_by": if recorded.is_some() { "goal run" } else { "agent" }, "message": recorded, "state": self.summary, "stagnant": stagnant, "new_files": new_files}),
            &format!(
                "iteration recorded by {}: {summary}{}{}",
                if recorded.is_some() {
                    "goal run"
                } else {
                    "the agent"
                },
                if new_files.is_empty() {
                    String::new()
                } else {
                    format!(
                        " · new files committed: {}",
                        crate::commands::verify::name_paths(new_files)
                    )
                },
                if stagnant {
                    " · stagnant: the next prompt asks for a new strategy"
                } else {
                    ""
                }, summary = self.summary),
        );
    }

    /// The goal trailers of the commits made since the turn started (oldest first; at most the
    /// last thousand, should the agent have rewritten history).
    fn turn_commits(&mut self) -> Result<Vec<crate::trailers::GoalTrailers>> {
        let before = self.head_before_turn.take();
        let mut commits = Vec::new();
        for info in self.ws.repo.first_parent_walk()?.take(1000) {
            let info = info?;
            if Some(info.id) == before {
                break;
            }
            commits.extend(crate::trailers::GoalTrailers::read(&info));
        }
        commits.reverse();
        Ok(commits)
    }
}
