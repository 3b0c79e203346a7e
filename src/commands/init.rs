//! `goal init`: create GOAL.md and commit it.

use std::path::PathBuf;

use serde_json::json;

use super::{Commit, short};
use crate::context::{Ctx, now_rfc3339};
use crate::error::{Error, Result};
use crate::goal_file::{GoalFile, one_line};
use crate::lint;
use crate::prompt;
use crate::repo::Stage;
use crate::trailers::Action;
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
    let ws = Workspace::open(ctx)?.with(&args.commit);
    ws.repo.ensure_idle()?;
    let mut criteria: Vec<String> = args
        .criteria
        .iter()
        .map(|c| one_line(c))
        .filter(|c| !c.is_empty())
        .collect();
    if let Some(file) = &args.criteria_file {
        let text = if file.as_os_str() == "-" {
            std::io::read_to_string(std::io::stdin()).map_err(Error::io("cannot read", "stdin"))?
        } else {
            let path = if file.is_absolute() {
                file.clone()
            } else {
                ctx.cwd.join(file)
            };
            std::fs::read_to_string(&path)
                .map_err(Error::io("cannot read the criteria file", path))?
        };
        criteria.extend(criteria_from(&text));
    }
    // A pin must parse and must run a real test: refused before anything is written.
    for (i, c) in criteria.iter().enumerate() {
        match crate::pin::parse(c) {
            None => {}
            Some(Err(why)) => {
                return Err(Error::usage(
                    format!("criterion {}: {why}", i + 1),
                    "write the pin as (verify: `<test command>`), or (guard: `<command>`) for what must stay true, at the end of the criterion",
                ));
            }
            Some(Ok(p)) => {
                if let Err(why) = crate::pin::check_pinnable(&p.argv) {
                    return Err(Error::refused(
                        format!(
                            "criterion {}: `{}` cannot be pinned: {why}",
                            i + 1,
                            p.command
                        ),
                        "pin the test command that proves the criterion",
                    ));
                }
            }
        }
    }
    let goal_text = args.goal.as_deref().map(one_line).unwrap_or_default();
    if args.goal.is_some() && goal_text.is_empty() {
        return Err(Error::usage(
            "the goal text is empty",
            "goal init \"<what done looks like>\" -c \"<criterion>\"",
        ));
    }
    let phases: Vec<String> = args
        .phases
        .iter()
        .map(|p| one_line(p))
        .filter(|p| !p.is_empty())
        .collect();
    let _lock = ws.lock()?;

    let mut replaced = None;
    if let Some(active) = ws.read_goal()? {
        // Whether a person picked the choice at the question (a timeout is nobody's answer).
        let mut answered = false;
        let choice = if args.abandon_current {
            2
        } else if args.replace {
            1
        } else if ctx.interactive() {
            let answer = prompt::choose_answered(
                &format!("goal: a goal is already active: \"{}\"", active.goal),
                &[
                    "continue the current goal",
                    "replace it with the new goal",
                    "abandon the current goal",
                ],
                0,
                prompt::timeout(),
            );
            answered = answer.is_some();
            answer.unwrap_or(0)
        } else {
            0
        };
        match choice {
            0 => {
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
                // Continuing is what the person chose: no refusal (without an answer, §3's rule).
                if answered {
                    return Ok(0);
                }
                return Err(Error::refused(
                    "a goal is already active; continuing it",
                    "continue with `goal status`, or use `goal init --replace \"<goal>\"` / `goal init --abandon-current`",
                ));
            }
            1 => {
                // Made with the new goal's commit, after both passed the user's hooks.
                let reason = "replaced by a new goal";
                let commit = super::abandon::abandon_commit(&ws, &active, reason);
                replaced = Some((commit.prepare(&ws, None, &active)?, active, reason));
            }
            _ => {
                super::abandon::abandon(ctx, &ws, &active, "abandoned by the user")?;
                return Ok(0);
            }
        }
    } else if args.abandon_current {
        return Err(Error::NoGoal {
            path: ws.goal_rel.clone(),
        });
    }
    if goal_text.is_empty() {
        return Err(Error::usage(
            "the goal text is missing",
            "goal init \"<goal>\" -c \"<criterion>\"",
        ));
    }

    let goal = GoalFile::new(&goal_text, &now_rfc3339(), &criteria, &phases);
    let mut commit = Commit::new(Action::Init, format!("init \"{goal_text}\""));
    commit.stage = Stage::GoalOnly;
    // Evidence and retry state of an earlier goal belong to no goal now.
    commit.other = vec![(ws.evidence_rel(), None), (ws.retry_rel(), None)];
    let oid = match replaced {
        None => commit.make(&ws, Some(&goal), &goal)?,
        Some((abandon, active, reason)) => {
            let pending = vec![abandon, commit.prepare(&ws, Some(&goal), &goal)?];
            let made = ws.commit_all(pending)?;
            let (Some(&first), Some(&last)) = (made.first(), made.last()) else {
                return Err(Error::usage("no commit was made", "run `goal init` again"));
            };
            super::abandon::say_abandoned(ctx, &active, reason, first);
            last
        }
    };

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
    Ok(0)
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
