//! `goal init`: create GOAL.md and commit it.

use std::path::PathBuf;

use serde_json::json;

use super::short;
use crate::ask;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::goal_file::GoalFile;
use crate::lint;
use crate::ops::{self, init::Initialized, init::OnActive};
use crate::workspace::Workspace;

/// Start a goal: create .agents/goal/GOAL.md (status in-progress, iteration 0) and commit it.
///
/// When a goal is already active: on a TTY, asks continue / replace / abandon (answer with the
/// number, the word or its first letter; 10 s, then continue); without one, prints the active goal and exits 1 unless --replace or
/// --abandon-current says what to do.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The goal, in one sentence.
    #[arg(required_unless_present = "abandon_current")]
    pub goal: Option<String>,
    /// An acceptance criterion (repeatable). Without any, add them later with `goal criteria add`.
    #[arg(short = 'c', long = "criterion", value_name = "CRITERION")]
    pub criteria: Vec<String>,
    /// Read criteria from a file, one a line (`- [ ]` markers are stripped; `-` reads stdin).
    #[arg(long, value_name = "FILE")]
    pub criteria_file: Option<PathBuf>,
    /// Group criteria in phases (multi-stage mode), in order: one value with the phases separated
    /// by commas (`--phases "Design,Build"`), or the flag repeated (`--phases Design --phases
    /// Build`). It never takes the goal text. -c criteria go to phase 1.
    #[arg(long, value_delimiter = ',', value_name = "PHASE,...")]
    pub phases: Vec<String>,
    /// Abandon the active goal (in its own commit), then create this one.
    #[arg(long, conflicts_with = "abandon_current")]
    pub replace: bool,
    /// Abandon the active goal and create none.
    #[arg(long)]
    pub abandon_current: bool,
    #[command(flatten)]
    pub commit: super::CommitFlags,
}

/// Criteria from a file: one a line, list markers and checkboxes stripped, blanks and `#` skipped.
fn criteria_from(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let l = l.trim_start_matches(['-', '*', '+']).trim_start();
            let l = match l.find(". ") {
                Some(i) if l[..i].chars().all(|c| c.is_ascii_digit()) && i > 0 => &l[i + 2..],
                _ => l,
            };
            let l = l.trim_start();
            let l = if l.len() >= 3 && l.starts_with('[') && l.as_bytes()[2] == b']' {
                &l[3..]
            } else {
                l
            };
            l.trim().to_string()
        })
        .filter(|l| !l.is_empty())
        .collect()
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    if args.abandon_current {
        crate::ops::confirm::check_persons_choice(
            "abandoning the goal",
            "goal init --abandon-current",
        )?;
    } else if args.replace {
        crate::ops::confirm::check_persons_choice(
            "replacing the goal",
            "goal init --replace \"<goal>\"",
        )?;
    }
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    ws.repo.ensure_idle()?;
    let mut criteria = args.criteria.clone();
    if let Some(file) = &args.criteria_file {
        criteria.extend(criteria_from(&read_criteria_file(ctx, file)?));
    }
    // Whether a person picked the choice at the question (a timeout is nobody's answer).
    let answered = std::cell::Cell::new(false);
    let ask = |active: &GoalFile| on_active(ctx, &args, active, &answered);
    let made = ops::init::init(
        &ws,
        ops::init::Options {
            goal: args.goal.clone(),
            criteria,
            phases: args.phases.clone(),
            abandon_current: args.abandon_current,
            on_active: &ask,
        },
    )?;
    let (goal, oid) = match made {
        Initialized::Kept(active) => return kept(ctx, &active, answered.get()),
        Initialized::Abandoned(a) => {
            super::abandon::say_abandoned(ctx, &a.goal, &a.reason, a.commit);
            return Ok(0);
        }
        Initialized::Created {
            goal,
            commit,
            replaced,
        } => {
            if let Some(a) = replaced {
                super::abandon::say_abandoned(ctx, &a.goal, &a.reason, a.commit);
            }
            (*goal, commit)
        }
    };
    if let Some(note) = crate::ops::init::ignored_goal_folder(&ws) {
        ctx.note(note);
    }
    warn_vague(ctx, &goal);
    if ctx.json {
        ctx.emit_json(&json!({
            "created": true,
            "goal": goal.goal,
            "status": goal.status,
            "iteration": 0,
            "commit": oid.to_string(),
            "criteria": goal.criteria.iter().map(|c| json!({"number": c.number, "text": c.text})).collect::<Vec<_>>(),
            "phases": goal.phases.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
        }))?;
        return Ok(0);
    }
    say_created(ctx, &ws, &goal, oid);
    Ok(0)
}

/// `--criteria-file FILE` (`-`: stdin), relative to `-C`'s folder.
fn read_criteria_file(ctx: &Ctx, file: &std::path::Path) -> Result<String> {
    if file.as_os_str() == "-" {
        return std::io::read_to_string(std::io::stdin())
            .map_err(Error::io("cannot read", "stdin"));
    }
    let path = if file.is_absolute() {
        file.to_path_buf()
    } else {
        ctx.cwd.join(file)
    };
    std::fs::read_to_string(&path).map_err(Error::io("cannot read the criteria file", path))
}

/// What to do with the goal already active: `--replace`, the person's answer on a terminal
/// (`answered` says whether one was given), else keep it.
fn on_active(
    ctx: &Ctx,
    args: &Args,
    active: &GoalFile,
    answered: &std::cell::Cell<bool>,
) -> OnActive {
    if args.replace {
        return OnActive::Replace;
    }
    // An agent does not answer the person's question: the active goal is kept.
    if !ctx.interactive() || crate::person::agent().is_some() {
        return OnActive::Keep;
    }
    let answer = ask::choose_answered(
        &format!("goal: a goal is already active: \"{}\"", active.goal),
        &[
            "continue the current goal",
            "replace it with the new goal",
            "abandon the current goal",
        ],
        0,
        ask::timeout(),
    );
    answered.set(answer.is_some());
    match answer.unwrap_or(0) {
        0 => OnActive::Keep,
        1 => OnActive::Replace,
        _ => OnActive::Abandon,
    }
}

/// The active goal kept: shown, and refused unless continuing is what the person chose (without
/// an answer, the rule stays).
fn kept(ctx: &Ctx, active: &GoalFile, answered: bool) -> Result<u8> {
    if ctx.json {
        ctx.emit_json(&json!({"created": false, "active": active.goal, "status": active.status, "iteration": active.iteration}))?;
    } else {
        ctx.say(format!("Active goal: {}", active.goal));
        ctx.say(format!(
            "Progress: {}/{} criteria passed, iteration {} ({})",
            active.passing_count(),
            active.criteria.len(),
            active.iteration,
            active.status
        ));
    }
    if answered {
        return Ok(0);
    }
    let hint = if crate::person::agent().is_some() {
        "continue with `goal status`; replacing or abandoning it is the person's (they run `goal init --replace \"<goal>\"` or `goal init --abandon-current`)"
    } else {
        "continue with `goal status`, or use `goal init --replace \"<goal>\"` / `goal init --abandon-current`"
    };
    Err(Error::refused(
        "a goal is already active; continuing it",
        hint,
    ))
}

/// A warning for each criterion that names nothing observable.
fn warn_vague(ctx: &Ctx, goal: &GoalFile) {
    let findings = lint::lint_all(&goal.criteria_texts());
    let vague: Vec<_> = findings.iter().filter(|f| !f.verifiable).collect();
    for f in &vague {
        ctx.note(format!(
            "warning: criterion {} \"{}\" is not verifiable: {}",
            f.number, f.text, f.reason
        ));
    }
    if !vague.is_empty() {
        ctx.note("hint: reword it with `goal criteria edit N \"<observable outcome>\"` (see `goal criteria lint`)");
    }
}

fn say_created(ctx: &Ctx, ws: &Workspace, goal: &GoalFile, oid: crate::repo::Oid) {
    ctx.say(format!("{} {}", ctx.bold("Goal set:"), goal.goal));
    for c in &goal.criteria {
        ctx.say(format!("  [ ] {}. {}", c.number, c.text));
    }
    ctx.say(format!(
        "Committed {} ({})",
        short(oid),
        ws.goal_rel.display()
    ));
    if goal.criteria.is_empty() {
        ctx.say("Criteria are still to be written: add each, pinned to the test that proves it, with `goal criteria add \"<observable outcome>\" --verify \"<test command>\"`.");
    } else {
        ctx.say("Next: work on a criterion, prove it with `goal verify -c N` (its pinned test) or `goal verify -c N -- <test command>`, then `goal iterate -m \"<what you did>\"`.");
    }
}

#[cfg(test)]
mod tests {
    use super::criteria_from;

    #[test]
    fn criteria_file_lines() {
        let got = criteria_from("# heading\n- [ ] one\n* [x] two\n3. three\n\nfour\n+ five\n");
        assert_eq!(got, ["one", "two", "three", "four", "five"]);
    }
}
