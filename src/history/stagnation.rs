//! The active goal's stagnation points read back from history, and its verdict.

use std::path::Path;

use super::commits::GoalCommit;
use crate::config::Config;
use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::repo::Repo;
use crate::stagnation::{self, Point, StagnationVerdict};
use crate::trailers::{GoalAction, GoalTrailers};

/// The stagnation verdict of the active goal after its last recorded iteration, from history.
/// Walks back only as far as the window and the escalation count need.
pub fn stagnation(
    repo: &Repo,
    goal_dir: &Path,
    goal: &GoalFile,
    config: &Config,
) -> Result<StagnationVerdict> {
    stagnation_with(repo, goal_dir, goal, config, None)
}

/// The verdict [`stagnation`] will give once `pending` (the iteration about to be committed) is
/// in history: what `goal iterate` records in its commit's `Goal-Verdict` trailer.
pub fn stagnation_with(
    repo: &Repo,
    goal_dir: &Path,
    goal: &GoalFile,
    config: &Config,
    pending: Option<Point>,
) -> Result<StagnationVerdict> {
    let needed = config.log_window();
    let mut commits = Vec::new();
    let mut restored = false;
    for info in repo.first_parent_walk()? {
        let info = info?;
        let Some(trailers) = GoalTrailers::read(&info) else {
            continue;
        };
        let commit = GoalCommit { info, trailers };
        // A restore takes back the abandon before it: the goal goes on across both.
        match commit.action() {
            Some(GoalAction::Restore) => {
                restored = true;
                continue;
            }
            Some(GoalAction::Abandon) if restored => {
                restored = false;
                continue;
            }
            _ => {}
        }
        let stop = commit.action() == Some(GoalAction::Init)
            || (commit.is_point() && commit.trailers.iteration + needed <= goal.iteration);
        let ends_other_goal = matches!(
            commit.action(),
            Some(GoalAction::Done | GoalAction::Abandon)
        );
        if ends_other_goal {
            break;
        }
        commits.push(commit);
        if stop {
            break;
        }
    }
    commits.reverse();
    let mut points = points(repo, goal_dir, &commits, goal, config)?;
    if let Some(p) = pending {
        points.retain(|q| q.iteration < p.iteration);
        if points
            .last()
            .is_some_and(|q| q.iteration + 1 != p.iteration)
        {
            points.clear();
        }
        points.push(p);
    }
    let boundary = commits
        .iter()
        .filter(|c| c.action() == Some(GoalAction::Escalate))
        .map(|c| c.trailers.iteration)
        .max();
    Ok(stagnation::verdict(
        &points,
        config.stagnation_window,
        config.escalate_after,
        boundary,
    ))
}

/// Stagnation points from goal commits (oldest first): the last init/iterate commit of each
/// iteration, consecutive iterations only.
fn points(
    repo: &Repo,
    goal_dir: &Path,
    commits: &[GoalCommit],
    goal: &GoalFile,
    config: &Config,
) -> Result<Vec<Point>> {
    let mut by_iteration: Vec<&GoalCommit> = Vec::new();
    for c in commits.iter().filter(|c| c.is_point()) {
        match by_iteration.last() {
            Some(last) if last.trailers.iteration == c.trailers.iteration => {
                by_iteration.pop();
            }
            Some(last) if last.trailers.iteration + 1 != c.trailers.iteration => {
                by_iteration.clear()
            }
            _ => {}
        }
        by_iteration.push(c);
    }
    // A few points look their entries up one by one; many (a large escalation count) read the
    // Progress Log once, or the lookups would make this quadratic in the history.
    let entries: Option<std::collections::HashMap<u64, crate::goal_file::LogEntry>> =
        (by_iteration.len() > 8).then(|| goal.log().into_iter().map(|e| (e.number, e)).collect());
    by_iteration
        .iter()
        .map(|c| {
            let entry = match &entries {
                Some(map) => map.get(&c.trailers.iteration).cloned(),
                None => goal.log_entry(c.trailers.iteration),
            };
            Ok(Point {
                iteration: c.trailers.iteration,
                passing: c.trailers.passing,
                progress_words: entry.is_some_and(|e| {
                    stagnation::has_keyword(goal.entry_text(&e), &config.progress_keywords)
                }),
                tree: repo.tree_without(c.info.tree, goal_dir)?.to_string(),
            })
        })
        .collect()
}
