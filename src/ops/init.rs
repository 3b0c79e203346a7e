//! Start a goal: GOAL.md created and committed; an active goal kept, replaced or abandoned as
//! the caller decides.

use crate::context::now_rfc3339;
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::{GoalFile, one_line};
use crate::repo::{Oid, Stage};
use crate::trailers::GoalAction;
use crate::workspace::Workspace;

use super::abandon::{Abandoned, abandon_commit, abandon_locked};

/// What to do with a goal that is already active.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnActive {
    /// Keep it: nothing is written.
    Keep,
    /// Abandon it in its own commit, made with the new goal's.
    Replace,
    /// Abandon it and create none.
    Abandon,
}

pub struct Options<'a> {
    /// The goal text (None: only `abandon_current`).
    pub goal: Option<String>,
    pub criteria: Vec<String>,
    pub phases: Vec<String>,
    /// Abandon the active goal and create none; there must be one.
    pub abandon_current: bool,
    /// Asked, the lock held, when a goal is already active.
    pub on_active: &'a dyn Fn(&GoalFile) -> OnActive,
}

pub enum Initialized {
    /// The new goal, its commit, and the goal it replaced.
    Created {
        goal: Box<GoalFile>,
        commit: Oid,
        replaced: Option<Box<Abandoned>>,
    },
    /// A goal was already active and is kept.
    Kept(Box<GoalFile>),
    /// The active goal was abandoned; none was created.
    Abandoned(Box<Abandoned>),
}

pub fn init(ws: &Workspace, options: Options<'_>) -> Result<Initialized> {
    ws.repo.ensure_idle()?;
    let criteria: Vec<String> = options
        .criteria
        .iter()
        .map(|c| one_line(c))
        .filter(|c| !c.is_empty())
        .collect();
    check_pins(&criteria)?;
    let goal_text = options.goal.as_deref().map(one_line).unwrap_or_default();
    if options.goal.is_some() && goal_text.is_empty() {
        return Err(Error::usage(
            "the goal text is empty",
            "goal init \"<what done looks like>\" -c \"<criterion>\"",
        ));
    }
    // The settings that judge the goal travel with it: git config's, written into GOAL.md.
    let settings = crate::config::goal_settings(&ws.repo)?;
    crate::surface::Surface::of_settings(&settings).map_err(|e| {
        Error::usage(
            format!("git config {e}"),
            format!("fix it with `git config --unset-all goal.tests '{}'` and `git config --add goal.tests <glob>`", e.glob),
        )
    })?;
    let phases: Vec<String> = options
        .phases
        .iter()
        .map(|p| one_line(p))
        .filter(|p| !p.is_empty())
        .collect();
    let _lock = ws.lock()?;
    let replaced = match active_goal(ws, &options)? {
        Active::None => None,
        Active::Done(answer) => return Ok(answer),
        Active::Replace(replaced) => Some(*replaced),
    };
    if goal_text.is_empty() {
        return Err(Error::usage(
            "the goal text is missing",
            "goal init \"<goal>\" -c \"<criterion>\"",
        ));
    }
    let mut goal = GoalFile::new(&goal_text, &now_rfc3339(), &criteria, &phases);
    goal.set_settings(&settings);
    let (oid, replaced) = commit_init(ws, &goal, &goal_text, replaced)?;
    super::approve::approve_written(ws, &[], &goal.criteria_texts())
        .unwrap_or_else(|e| crate::context::warn_line(format!("goal: warning: {e}")));
    Ok(Initialized::Created {
        goal: Box::new(goal),
        commit: oid,
        replaced,
    })
}

/// A pin must parse and must run a real test: refused before anything is written.
fn check_pins(criteria: &[String]) -> Result<()> {
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
                    return Err(Error::CannotPin {
                        command: p.command,
                        criterion: Some(i + 1),
                        why,
                        retry: "pin the test command that proves the criterion".into(),
                    });
                }
            }
        }
    }
    Ok(())
}

/// What becomes of the goal already active.
enum Active {
    /// There is none.
    None,
    /// It was kept or abandoned: `init` ends with this.
    Done(Initialized),
    /// It is replaced: its abandon commit, prepared to go with the new goal's.
    Replace(Box<(crate::door::Pending, GoalFile, &'static str)>),
}

/// The active goal kept, abandoned or replaced, as `--abandon-current` or the question answers.
fn active_goal(ws: &Workspace, options: &Options<'_>) -> Result<Active> {
    let Some(active) = ws.read_goal(crate::workspace::Part::Whole)? else {
        if options.abandon_current {
            return Err(Error::NoGoal {
                path: ws.goal_rel.clone(),
            });
        }
        return Ok(Active::None);
    };
    let choice = if options.abandon_current {
        OnActive::Abandon
    } else {
        (options.on_active)(&active)
    };
    Ok(match choice {
        OnActive::Keep => Active::Done(Initialized::Kept(Box::new(active))),
        OnActive::Replace => {
            // Made with the new goal's commit, after both passed the user's hooks.
            let reason = "replaced by a new goal";
            let commit = abandon_commit(ws, &active, reason);
            Active::Replace(Box::new((
                commit.prepare(ws, None, &active)?,
                active,
                reason,
            )))
        }
        OnActive::Abandon => Active::Done(Initialized::Abandoned(Box::new(abandon_locked(
            ws,
            active,
            "abandoned by the user",
        )?))),
    })
}

/// The init commit (the evidence and retry state of an earlier goal belong to no goal now),
/// made after the replaced goal's abandon commit when there is one.
fn commit_init(
    ws: &Workspace,
    goal: &GoalFile,
    goal_text: &str,
    replaced: Option<(crate::door::Pending, GoalFile, &'static str)>,
) -> Result<(Oid, Option<Box<Abandoned>>)> {
    let mut commit = Commit::new(GoalAction::Init, format!("init \"{goal_text}\""));
    commit.stage = Stage::GoalOnly;
    commit.other = vec![(ws.evidence_rel(), None), (ws.retry_rel(), None)];
    // The commit the goal starts from, pinned: the trailer here, the ref and the witness once
    // the commit is made (a replaced goal's abandon commit sits between, made by this init).
    let base = ws.repo.head_id()?;
    commit.base = base.map(|b| b.to_string());
    let pin_base = || match base {
        Some(base) => crate::history::base::record(&ws.repo, ws.root(), goal, base),
        None => Ok(()),
    };
    let Some((abandon, active, reason)) = replaced else {
        let made = commit.make(ws, Some(goal), goal)?;
        // The commit is made: a ref or witness that cannot be written leaves the trailer to check.
        let _ = pin_base();
        return Ok((made, None));
    };
    let pending = vec![abandon, commit.prepare(ws, Some(goal), goal)?];
    let made = ws.commit_all(pending)?;
    let (Some(&first), Some(&last)) = (made.first(), made.last()) else {
        return Err(Error::usage("no commit was made", "run `goal init` again"));
    };
    let _ = pin_base();
    let abandoned = Abandoned {
        goal: active,
        reason: reason.to_string(),
        commit: first,
    };
    Ok((last, Some(Box::new(abandoned))))
}

/// The note `init` gives when an ignore rule covers the goal's files (a `.gitignore` that starts
/// with `/*`, or one that ignores `.agents/`): goal commits them anyway.
pub fn ignored_goal_folder(ws: &Workspace) -> Option<String> {
    let rule = [ws.goal_rel.clone(), ws.evidence_rel()]
        .iter()
        .find_map(|rel| ws.repo.ignore_rule(rel))?;
    Some(format!(
        "note: {} is ignored by git (rule {rule}); goal commits its goal files anyway, as `git add -f` would, but a plain `git add` leaves them out",
        ws.goal_dir.display()
    ))
}
