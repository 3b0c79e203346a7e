//! The one verdict every host's hook gives: what to inject at session start and with a prompt
//! (a goal set or abandoned from the person's words), and whether a stop is let through or the
//! agent kept working (bounded by `goal.stopBlocks`, counting only goal's own blocks). Each host's
//! adapter only reads its payload and writes this answer in the host's format.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::detect::{self, Granularity, Kind};
use crate::error::{Error, Result};
use crate::goal_file::{GoalFile, Status};
use crate::proof::{Proof, ProofState};
use crate::texts as inject;
use crate::trailers::{GoalAction, GoalTrailers};
use crate::workspace::{Part, Workspace, write_atomic};

/// goal's answer to a stop, the same for every host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stop {
    /// True: keep the agent working with `reason`. False: let it stop.
    pub block: bool,
    pub reason: Option<String>,
    pub proven: usize,
    pub total: usize,
}

impl Stop {
    fn allow(proven: usize, total: usize) -> Stop {
        Stop {
            block: false,
            reason: None,
            proven,
            total,
        }
    }
}

/// The context a session starts with: the goal's state and its proof line; "" without a goal.
pub fn session_start(ws: &Workspace) -> Result<String> {
    let Some(goal) = ws.read_goal(Part::Whole)? else {
        return Ok(String::new());
    };
    let proof = crate::ops::proof(ws, &goal)?;
    let mut text = inject::injection(&goal, &proof, None);
    text.push_str(&inject::proof_open_line(&goal, &proof));
    text.push('\n');
    Ok(text)
}

/// What a person's prompt does: a goal phrase sets the goal when there is none, an abandon
/// phrase abandons the active one (never a slash command: `detect` reads none). The context to
/// add to the prompt; "" for none.
pub fn prompt(ws: &Workspace, prompt: &str) -> Result<String> {
    // A host that sends goal's block reason back as the next prompt (Gemini CLI, opencode's
    // plugin): goal's own words, never read as the person's.
    let d = if prompt.contains(crate::claude_hooks::GOALS_BLOCK) {
        detect::detect("")
    } else {
        detect::detect(prompt)
    };
    let mut notes = Vec::new();
    let active = ws.read_goal(Part::Whole)?;
    match (d.kind, &active) {
        (Kind::Goal, None) => notes.extend(set_goal(ws, &d)?),
        (Kind::Goal, Some(goal)) => notes.push(format!(
            "goal: a goal is already active (\"{}\"); continuing it. Replacing or dropping it is the person's: they say so in their own words, or run `goal init --replace \"<new goal>\"` or `goal abandon` in their own terminal.",
            goal.goal
        )),
        (Kind::Abandon, Some(_)) => {
            // The goal is read again under the lock: what is abandoned is what is there now.
            let goal = crate::ops::abandon::abandon(ws, "abandoned by the user")?.goal;
            return Ok(format!(
                "goal: the goal \"{}\" was abandoned at the user's request ({}/{} criteria passed, iteration {}); its files were deleted in a commit. If that was not meant, restore it with `goal restore`.",
                goal.goal,
                goal.passing_count(),
                goal.criteria.len(),
                goal.iteration
            ));
        }
        _ => {}
    }
    let goal = ws.read_goal(Part::Whole)?;
    let proof = match &goal {
        Some(goal) => Some(crate::ops::proof(ws, goal)?),
        None => None,
    };
    let mut text = match (&goal, &proof) {
        (Some(goal), Some(proof)) => inject::injection(goal, proof, None),
        _ => String::new(),
    };
    for note in notes {
        text.push_str(&note);
        text.push('\n');
    }
    if let (Some(goal), Some(proof)) = (&goal, &proof) {
        text.push_str(&inject::proof_open_line(goal, proof));
        text.push('\n');
    }
    Ok(text)
}

/// Set the goal a prompt named; the notes telling the agent what to do first.
fn set_goal(ws: &Workspace, d: &detect::Detection) -> Result<Vec<String>> {
    let text = d.goal.clone().unwrap_or_default();
    crate::ops::init::init(
        ws,
        crate::ops::init::Options {
            goal: Some(text.clone()),
            criteria: Vec::new(),
            phases: Vec::new(),
            abandon_current: false,
            on_active: &|_| crate::ops::init::OnActive::Keep,
        },
    )?;
    let mut notes = vec![format!(
        "goal: a new goal was set from this prompt and committed: \"{text}\". Write its acceptance criteria first — each an observable outcome (a command, a test, an exit code, an output), pinned to the test that proves it — with `goal criteria add \"<outcome>\" --verify \"<test command>\"`. {}",
        inject::TEST_FIRST
    )];
    if ws
        .goal()
        .is_ok_and(|g| g.settings.mutants != crate::goal_file::Mutants::Off)
    {
        notes.push(format!("goal: {}", inject::MUTANTS_ON));
    }
    if d.granularity == Granularity::Coarse {
        notes.push(
            "goal: this goal looks coarse (it spans modules, many files or architecture): suggest to the person that they split it into phases (replacing a goal is theirs: `goal init --replace \"<goal>\" --phases \"<phase 1>,<phase 2>,…\"`), then add criteria per phase with `goal criteria add --phase N \"…\"`.".into(),
        );
    }
    Ok(notes)
}

/// How a host says what it knows of a stop.
#[derive(Debug, Default)]
pub struct StopInput<'a> {
    /// The agent is stopping again after a stop hook kept it going (`stop_hook_active`, Cursor's
    /// `loop_count` above 0): goal's blocks are counted on from the last.
    pub continuing: bool,
    /// Claude Code's transcript, to tell whether goal's last block was shared with another hook.
    pub transcript: Option<&'a Path>,
    /// A key naming this one stop where several hooks of goal's may judge it (Cursor runs its own
    /// hooks and Claude Code's): the first judges, the others get the same answer.
    pub once: Option<String>,
}

/// How many stops goal's own stop hook has blocked since the last iteration commit, and the reason
/// it gave the last time (to find that block in the transcript).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct StopState {
    pub iteration_commit: String,
    pub blocks: u32,
    /// The reason of the block counted last, while it may still be refunded; "" once judged.
    #[serde(default)]
    pub reason: String,
    /// How many stops goal's hook has blocked in this repository, ever: the number in each block's
    /// reason, so the transcript shows which feedback is the last block's.
    #[serde(default)]
    pub seq: u64,
}

/// The count of goal's own blocks this stop starts from. A fresh stop (no hook blocked the one
/// before) or a new iteration commit starts again at 0; a block that another stop hook made too
/// (Claude Code's `/goal` judge, say) kept the session going without goal and is not counted.
pub fn own_blocks(saved: &StopState, continuing: bool, current: &str, shared: bool) -> u32 {
    if !continuing || saved.iteration_commit != current {
        return 0;
    }
    if shared && !saved.reason.is_empty() {
        return saved.blocks.saturating_sub(1);
    }
    saved.blocks
}

/// Judge a stop: keep the agent working while the goal is in progress, up to `goal.stopBlocks`
/// of goal's own blocks; let it stop when there is no goal, it is done or blocked, or the bound
/// is spent. With `input.once`, a stop several hooks judge is judged by the first.
pub fn stop(ws: &Workspace, input: &StopInput) -> Result<Stop> {
    let Some(key) = &input.once else {
        return judge(ws, input);
    };
    let dir = ws.repo.git_dir().join(crate::store::STOPS_DIR);
    std::fs::create_dir_all(&dir).map_err(Error::io("cannot create", &dir))?;
    let name = crate::repo::short_sha256(key.as_bytes());
    let lock = dir.join(format!("{name}.lock"));
    let answer = dir.join(format!("{name}.json"));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock)
    {
        Ok(_) => {
            let verdict = judge(ws, input)?;
            let bytes = serde_json::to_vec(&verdict)
                .map_err(|e| Error::internal("write the stop's verdict", e))?;
            write_atomic(&answer, &bytes)?;
            Ok(verdict)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(judged(&answer)),
        Err(e) => Err(Error::io("cannot create", &lock)(e)),
    }
}

/// The verdict another hook gave this stop, waited for while it is judging (a judge runs the
/// proof, seconds at most); a stop never judged in time is let through and counts nothing.
fn judged(answer: &Path) -> Stop {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if let Some(verdict) = std::fs::read(answer)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
        {
            return verdict;
        }
        if std::time::Instant::now() >= deadline {
            return Stop::allow(0, 0);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn judge(ws: &Workspace, input: &StopInput) -> Result<Stop> {
    let Some(goal) = ws.read_goal(Part::Whole)? else {
        return Ok(Stop::allow(0, 0));
    };
    if goal.status != Status::InProgress {
        let total = goal.criteria.len();
        return Ok(Stop::allow(goal.passing_count(), total));
    }
    let current = last_iteration_commit(ws)?;
    let path = ws.repo.git_dir().join(crate::store::STOP_STATE_FILE);
    let saved: StopState = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    // Read only when it can matter: a fresh stop or a new iteration starts at 0 anyway.
    let continued = input.continuing && saved.iteration_commit == current;
    let shared = continued
        && !saved.reason.is_empty()
        && input.transcript.is_some_and(|t| {
            crate::claude_hooks::shared_block(
                t,
                &saved.reason,
                crate::claude_hooks::transcript_wait(),
            )
        });
    let blocks = own_blocks(&saved, input.continuing, &current, shared);
    if blocks >= ws.config.stop_blocks {
        // The stop goes through; the last block is judged, so it is never refunded twice.
        let state = StopState {
            iteration_commit: current,
            blocks,
            reason: String::new(),
            seq: saved.seq,
        };
        write_stop_state(&path, &state)?;
        return Ok(Stop::allow(goal.passing_count(), goal.criteria.len()));
    }
    let proof = crate::ops::proof(ws, &goal)?;
    let seq = saved.seq + 1;
    let reason = block_reason(&goal, &proof, seq);
    let state = StopState {
        iteration_commit: current,
        blocks: blocks + 1,
        reason: reason.clone(),
        seq,
    };
    write_stop_state(&path, &state)?;
    Ok(Stop {
        block: true,
        reason: Some(reason),
        proven: proof.proven,
        total: goal.criteria.len(),
    })
}

fn write_stop_state(path: &Path, state: &StopState) -> Result<()> {
    let bytes =
        serde_json::to_vec(state).map_err(|e| Error::internal("write the stop state", e))?;
    write_atomic(path, &bytes)
}

/// Why the stop hook keeps the agent going: the goal, its figure, the next step, and the proof
/// line last.
fn block_reason(goal: &GoalFile, proof: &Proof, seq: u64) -> String {
    format!(
        "The goal \"{}\" is not done ({}/{} criteria proven, iteration {}, {}{seq}). {} If you are truly stuck, run `goal block --reason \"<why>\"`.\n{}",
        goal.goal,
        proof.proven,
        goal.criteria.len(),
        goal.iteration,
        crate::claude_hooks::GOALS_BLOCK,
        next_step(goal, proof),
        inject::proof_open_line(goal, proof)
    )
}

/// The step a block reason asks for.
fn next_step(goal: &GoalFile, proof: &Proof) -> String {
    if goal.criteria.is_empty() {
        return format!(
            "Write the acceptance criteria first, each pinned to the test that proves it: `goal criteria add \"<observable outcome>\" --verify \"<test command>\"`. {}",
            inject::TEST_FIRST
        );
    }
    if proof.complete() {
        let mutants = if goal.settings.mutants == crate::goal_file::Mutants::Off {
            String::new()
        } else {
            format!(" {}", inject::MUTANTS_ON)
        };
        return format!(
            "Every criterion is proven on the current code: {}.{mutants}",
            proof.done_to_finish()
        );
    }
    if let Some(why) = proof.refusal() {
        return format!(
            "Every criterion is proven on the current code, but `goal done` would refuse: {why}."
        );
    }
    let open: Vec<String> = goal
        .criteria
        .iter()
        .zip(&proof.criteria)
        .filter(|(_, p)| p.state != ProofState::Proven)
        .map(|(c, p)| format!("{}. {} ({})", c.number, c.text, p.state.as_str()))
        .collect();
    let reruns: Vec<String> = proof
        .criteria
        .iter()
        .filter(|p| matches!(p.state, ProofState::Stale | ProofState::Failing))
        .map(|p| p.next_step())
        .collect();
    let reruns = if reruns.is_empty() {
        String::new()
    } else {
        format!(" {}.", reruns.join("; "))
    };
    format!(
        "Not yet proven: {}.{reruns} Pick one, implement it, prove it with `goal verify -c N` (its pinned test) or `goal verify -c N -- <test command>`, then record the iteration with `goal iterate -m \"<what you did>\"`.",
        open.join("; ")
    )
}

/// The id of the newest init/iterate commit (first parent from HEAD), or "".
fn last_iteration_commit(ws: &Workspace) -> Result<String> {
    for info in ws.repo.first_parent_walk()? {
        let info = info?;
        if let Some(t) = GoalTrailers::read(&info)
            && matches!(t.action, Some(GoalAction::Iterate | GoalAction::Init))
        {
            return Ok(info.id.to_string());
        }
    }
    Ok(String::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count of goal's own blocks a stop starts from: (saved blocks, saved reason kept,
    /// continuing, same iteration commit, the last block shared with another hook, count).
    #[test]
    fn the_stop_limit_counts_only_the_blocks_goal_made_alone() {
        let table = [
            (2, true, true, true, false, 2),
            (2, true, true, true, true, 1),
            (3, true, true, true, true, 2),
            (0, true, true, true, true, 0),
            // Judged already (the stop after it went through): never refunded twice.
            (3, false, true, true, true, 3),
            // A fresh stop or a new iteration commit starts again.
            (3, true, false, true, false, 0),
            (3, true, true, false, true, 0),
        ];
        for (blocks, kept, active, same, shared, want) in table {
            let saved = StopState {
                iteration_commit: "c1".into(),
                blocks,
                reason: if kept { "why".into() } else { String::new() },
                seq: 0,
            };
            let current = if same { "c1" } else { "c2" };
            assert_eq!(
                own_blocks(&saved, active, current, shared),
                want,
                "{blocks} {kept} {active} {same} {shared}"
            );
        }
    }
}
