//! `goal hook claude`: the Claude Code hook adapter (JSON on stdin, JSON on stdout, exit 0).

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::context::Ctx;
use crate::detect::{self, Granularity, Kind};
use crate::error::{Error, Result};
use crate::goal_file::Status;
use crate::proof::ProofState;
use crate::texts as inject;
use crate::trailers::{GoalAction, GoalTrailers};
use crate::workspace::{Workspace, write_atomic};

/// Agent-harness hooks.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Answer a Claude Code hook event read from stdin (UserPromptSubmit, SessionStart, Stop).
    /// Always exits 0; problems are reported as a `systemMessage`.
    Claude,
}

pub fn run(ctx: &Ctx, command: Command) -> Result<u8> {
    match command {
        Command::Claude => {
            let answer = match read_stdin().and_then(|input| claude(ctx, &input)) {
                Ok(answer) => answer,
                Err(message) => {
                    Some(json!({"systemMessage": format!("goal hook claude: {message}")}))
                }
            };
            if let Some(answer) = answer {
                println!("{answer}");
            }
            Ok(0)
        }
    }
}

fn read_stdin() -> std::result::Result<String, String> {
    if std::io::stdin().is_terminal() {
        return Err("expected the hook's JSON on stdin (Claude Code pipes it)".into());
    }
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    Ok(input)
}

/// The answer to one hook event: Some(JSON) to print, None to print nothing.
fn claude(ctx: &Ctx, input: &str) -> std::result::Result<Option<Value>, String> {
    let value: Value =
        serde_json::from_str(input).map_err(|e| format!("stdin is not JSON: {e}"))?;
    let Value::Object(event) = value else {
        return Err("stdin is not a JSON object".into());
    };
    let Some(Value::String(name)) = event.get("hook_event_name") else {
        return Err("the event has no string `hook_event_name`".into());
    };
    // The hook runs in the session's directory; `cwd` in the event says which.
    let cwd = match event.get("cwd") {
        Some(Value::String(dir)) if PathBuf::from(dir).is_dir() => PathBuf::from(dir),
        _ => ctx.cwd.clone(),
    };
    let quiet = Ctx {
        cwd,
        file: ctx.file.clone(),
        json: false,
        quiet: true,
        color: false,
    };
    let result = match name.as_str() {
        "UserPromptSubmit" => {
            let prompt = match event.get("prompt") {
                Some(Value::String(p)) => p.clone(),
                None | Some(Value::Null) => String::new(),
                Some(_) => return Err("`prompt` is not a string".into()),
            };
            user_prompt(&quiet, &prompt)
        }
        "SessionStart" => session_start(&quiet),
        "Stop" => {
            let active = matches!(event.get("stop_hook_active"), Some(Value::Bool(true)));
            let transcript = match event.get("transcript_path") {
                Some(Value::String(path)) => Some(PathBuf::from(path)),
                _ => None,
            };
            stop(&quiet, active, transcript.as_deref())
        }
        _ => return Ok(None),
    };
    result.map_err(|e| match e.hint() {
        Some(hint) => format!("{e} (hint: {hint})"),
        None => e.to_string(),
    })
}

fn context(event: &str, text: String) -> Option<Value> {
    (!text.is_empty())
        .then(|| json!({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}))
}

fn user_prompt(ctx: &Ctx, prompt: &str) -> Result<Option<Value>> {
    let ws = match Workspace::open(ctx) {
        Ok(ws) => ws,
        Err(Error::NotARepo { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    // `detect` never reads a slash command (`/goal abandon the goal`) as a goal or an abandon.
    let d = detect::detect(prompt);
    let mut notes = Vec::new();
    let active = ws.read_goal(crate::workspace::Part::Whole)?;
    match (d.kind, &active) {
        (Kind::Goal, None) => {
            let text = d.goal.clone().unwrap_or_default();
            crate::ops::init::init(
                &ws,
                crate::ops::init::Options {
                    goal: Some(text.clone()),
                    criteria: Vec::new(),
                    phases: Vec::new(),
                    abandon_current: false,
                    on_active: &|_| crate::ops::init::OnActive::Keep,
                },
            )?;
            notes.push(format!(
                "goal: a new goal was set from this prompt and committed: \"{text}\". Write its acceptance criteria first — each an observable outcome (a command, a test, an exit code, an output), pinned to the test that proves it — with `goal criteria add \"<outcome>\" --verify \"<test command>\"`. {}",
                crate::texts::TEST_FIRST
            ));
            if ws.goal().is_ok_and(|g| g.settings.mutants != crate::goal_file::Mutants::Off) {
                notes.push(format!("goal: {}", crate::texts::MUTANTS_ON));
            }
            if d.granularity == Granularity::Coarse {
                notes.push(
                    "goal: this goal looks coarse (it spans modules, many files or architecture): suggest to the person that they split it into phases (replacing a goal is theirs: `goal init --replace \"<goal>\" --phases \"<phase 1>,<phase 2>,…\"`), then add criteria per phase with `goal criteria add --phase N \"…\"`.".into(),
                );
            }
        }
        (Kind::Goal, Some(goal)) => notes.push(format!(
            "goal: a goal is already active (\"{}\"); continuing it. Replacing or dropping it is the person's: they say so in their own words, or run `goal init --replace \"<new goal>\"` or `goal abandon` in their own terminal.",
            goal.goal
        )),
        (Kind::Abandon, Some(_)) => {
            // The goal is read again under the lock: what is abandoned is what is there now.
            let goal = crate::ops::abandon::abandon(&ws, "abandoned by the user")?.goal;
            return Ok(context(
                "UserPromptSubmit",
                format!(
                    "goal: the goal \"{}\" was abandoned at the user's request ({}/{} criteria passed, iteration {}); its files were deleted in a commit. If that was not meant, restore it with `goal restore`.",
                    goal.goal,
                    goal.passing_count(),
                    goal.criteria.len(),
                    goal.iteration
                ),
            ));
        }
        _ => {}
    }
    let goal = ws.read_goal(crate::workspace::Part::Whole)?;
    let proof = match &goal {
        Some(goal) => Some(crate::ops::proof(&ws, goal)?),
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
    Ok(context("UserPromptSubmit", text))
}

fn session_start(ctx: &Ctx) -> Result<Option<Value>> {
    mark_agent_env(std::env::var_os("CLAUDE_ENV_FILE").map(std::path::PathBuf::from));
    let ws = match Workspace::open(ctx) {
        Ok(ws) => ws,
        Err(Error::NotARepo { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let Some(goal) = ws.read_goal(crate::workspace::Part::Whole)? else {
        return Ok(None);
    };
    let proof = crate::ops::proof(&ws, &goal)?;
    let mut text = inject::injection(&goal, &proof, None);
    text.push_str(&inject::proof_open_line(&goal, &proof));
    text.push('\n');
    Ok(context("SessionStart", text))
}

/// The line SessionStart appends to Claude Code's environment file: the session's commands run
/// marked as the agent's, so `--confirm` from them is refused.
pub const AGENT_MARK: &str = "export GOAL_AGENT=claude";

/// Mark the session's environment as the agent's: append [`AGENT_MARK`] to the file Claude Code
/// names in `CLAUDE_ENV_FILE` (only when it names one; once). A file that cannot be written is
/// warned about, never fatal to the hook.
fn mark_agent_env(file: Option<std::path::PathBuf>) {
    let Some(file) = file.filter(|f| !f.as_os_str().is_empty()) else {
        return;
    };
    let existing = std::fs::read_to_string(&file).unwrap_or_default();
    if existing.lines().any(|l| l.trim() == AGENT_MARK) {
        return;
    }
    let separator = if existing.is_empty() || existing.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| {
            std::io::Write::write_all(&mut f, format!("{separator}{AGENT_MARK}\n").as_bytes())
        });
    if let Err(e) = written {
        eprintln!(
            "goal: warning: cannot mark the session as the agent's in {} ({e}): `--confirm` will not be refused in it",
            file.display()
        );
    }
}

/// How many stops goal's own Stop hook has blocked since the last iteration commit, and the reason
/// it gave the last time (to find that block in the transcript).
#[derive(Debug, Default, Serialize, Deserialize)]
struct StopState {
    iteration_commit: String,
    blocks: u32,
    /// The reason of the block counted last, while it may still be refunded; "" once judged.
    #[serde(default)]
    reason: String,
    /// How many stops goal's hook has blocked in this repository, ever: the number in each block's
    /// reason, so the transcript shows which feedback is the last block's.
    #[serde(default)]
    seq: u64,
}

/// The count of goal's own blocks this stop starts from. A fresh stop (no hook blocked the one
/// before) or a new iteration commit starts again at 0; a block that another Stop hook made too
/// (Claude Code's `/goal` judge, say) kept the session going without goal and is not counted.
fn own_blocks(saved: &StopState, stop_hook_active: bool, current: &str, shared: bool) -> u32 {
    if !stop_hook_active || saved.iteration_commit != current {
        return 0;
    }
    if shared && !saved.reason.is_empty() {
        return saved.blocks.saturating_sub(1);
    }
    saved.blocks
}

fn stop(ctx: &Ctx, stop_hook_active: bool, transcript: Option<&Path>) -> Result<Option<Value>> {
    let ws = match Workspace::open(ctx) {
        Ok(ws) => ws,
        Err(Error::NotARepo { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let Some(goal) = ws.read_goal(crate::workspace::Part::Whole)? else {
        return Ok(None);
    };
    if goal.status != Status::InProgress {
        return Ok(None);
    }
    let current = last_iteration_commit(&ws)?;
    let path = ws.repo.git_dir().join(crate::store::STOP_STATE_FILE);
    let saved: StopState = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    // Read only when it can matter: a fresh stop or a new iteration starts at 0 anyway.
    let continued = stop_hook_active && saved.iteration_commit == current;
    let shared = continued
        && !saved.reason.is_empty()
        && transcript.is_some_and(|t| {
            crate::claude_hooks::shared_block(
                t,
                &saved.reason,
                crate::claude_hooks::transcript_wait(),
            )
        });
    let blocks = own_blocks(&saved, stop_hook_active, &current, shared);
    if blocks >= ws.config.stop_blocks {
        // The stop goes through; the last block is judged, so it is never refunded twice.
        let state = StopState {
            iteration_commit: current,
            blocks,
            reason: String::new(),
            seq: saved.seq,
        };
        write_stop_state(&path, &state)?;
        return Ok(None);
    }
    let proof = crate::ops::proof(&ws, &goal)?;
    let seq = saved.seq + 1;
    let reason = block_reason(&goal, &proof, seq);
    let state = StopState {
        iteration_commit: current,
        blocks: blocks + 1,
        reason: reason.clone(),
        seq,
    };
    write_stop_state(&path, &state)?;
    Ok(Some(json!({"decision": "block", "reason": reason})))
}

fn write_stop_state(path: &Path, state: &StopState) -> Result<()> {
    let bytes =
        serde_json::to_vec(state).map_err(|e| Error::internal("write the stop state", e))?;
    write_atomic(path, &bytes)
}

/// Why the Stop hook keeps the agent going: the goal, its figure, the next step, and the proof
/// line last.
fn block_reason(
    goal: &crate::goal_file::GoalFile,
    proof: &crate::proof::Proof,
    seq: u64,
) -> String {
    let open: Vec<String> = goal
        .criteria
        .iter()
        .zip(&proof.criteria)
        .filter(|(_, p)| p.state != ProofState::Proven)
        .map(|(c, p)| format!("{}. {} ({})", c.number, c.text, p.state.as_str()))
        .collect();
    let next = if goal.criteria.is_empty() {
        format!(
            "Write the acceptance criteria first, each pinned to the test that proves it: `goal criteria add \"<observable outcome>\" --verify \"<test command>\"`. {}",
            crate::texts::TEST_FIRST
        )
    } else if proof.complete() {
        let mutants = if goal.settings.mutants == crate::goal_file::Mutants::Off {
            String::new()
        } else {
            format!(" {}", crate::texts::MUTANTS_ON)
        };
        format!(
            "Every criterion is proven on the current code: {}.{mutants}",
            proof.done_to_finish()
        )
    } else if let Some(why) = proof.refusal() {
        format!(
            "Every criterion is proven on the current code, but `goal done` would refuse: {why}."
        )
    } else {
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
    };
    format!(
        "The goal \"{}\" is not done ({}/{} criteria proven, iteration {}, {}{seq}). {next} If you are truly stuck, run `goal block --reason \"<why>\"`.\n{}",
        goal.goal,
        proof.proven,
        goal.criteria.len(),
        goal.iteration,
        crate::claude_hooks::GOALS_BLOCK,
        inject::proof_open_line(goal, proof)
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
    /// stop_hook_active, same iteration commit, the last block shared with another hook, count).
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
