//! Reading goals back from git history: goal commits, stagnation points, and the audit rows of
//! `goal log`.

use std::path::Path;

use git2::Oid;
use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::evidence::Ledger;
use crate::goal_file::GoalFile;
use crate::repo::{CommitInfo, DiffStat, Repo};
use crate::stagnation::{self, Point, Signals, Verdict};
use crate::trailers::{Action, GoalTrailers};

/// A commit that carries `Goal-*` trailers.
#[derive(Debug, Clone)]
pub struct GoalCommit {
    pub info: CommitInfo,
    pub trailers: GoalTrailers,
}

impl GoalCommit {
    fn action(&self) -> Option<Action> {
        self.trailers.action
    }

    /// Whether this commit records an iteration (or the init, iteration 0).
    fn is_point(&self) -> bool {
        matches!(self.action(), Some(Action::Init | Action::Iterate))
    }
}

/// The stagnation verdict of the active goal after its last recorded iteration, from history.
/// Walks back only as far as the window and the escalation count need.
pub fn stagnation(
    repo: &Repo,
    goal_dir: &Path,
    goal: &GoalFile,
    config: &Config,
) -> Result<Verdict> {
    let needed = (config.stagnation_window + config.escalate_after + 1) as u64;
    let mut commits = Vec::new();
    for info in repo.first_parent_walk()? {
        let info = info?;
        let Some(trailers) = GoalTrailers::read(&info) else {
            continue;
        };
        let commit = GoalCommit { info, trailers };
        let stop = commit.action() == Some(Action::Init)
            || (commit.is_point() && commit.trailers.iteration + needed <= goal.iteration);
        let ends_other_goal = matches!(commit.action(), Some(Action::Done | Action::Abandon));
        if ends_other_goal {
            break;
        }
        commits.push(commit);
        if stop {
            break;
        }
    }
    commits.reverse();
    let points = points(repo, goal_dir, &commits, goal, config)?;
    let boundary = commits
        .iter()
        .filter(|c| c.action() == Some(Action::Escalate))
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
    by_iteration
        .iter()
        .map(|c| {
            let entry = goal
                .log
                .iter()
                .rev()
                .find(|e| e.number == c.trailers.iteration);
            Ok(Point {
                iteration: c.trailers.iteration,
                passing: c.trailers.passing,
                progress_words: entry
                    .is_some_and(|e| stagnation::has_keyword(&e.text, &config.progress_keywords)),
                tree: repo.tree_without(c.info.tree, goal_dir)?.to_string(),
            })
        })
        .collect()
}

/// The `init` commit of the active goal (first parent from HEAD).
pub fn init_commit(repo: &Repo) -> Result<Option<CommitInfo>> {
    for info in repo.first_parent_walk()? {
        let info = info?;
        match GoalTrailers::read(&info).and_then(|t| t.action) {
            Some(Action::Init) => return Ok(Some(info)),
            Some(Action::Done | Action::Abandon) => return Ok(None),
            _ => {}
        }
    }
    Ok(None)
}

/// One row of `goal log`: an iteration of a goal.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub iteration: u64,
    pub commit: String,
    pub date: String,
    pub passing: usize,
    pub total: usize,
    pub files_changed: usize,
    pub insertions: usize,
    pub deletions: usize,
    pub summary: String,
    pub evidence: Vec<String>,
    pub flags: Vec<String>,
    pub stagnation: Signals,
    pub status: String,
    /// The goal this row belongs to (useful with `--all`).
    pub goal: String,
}

/// One goal found in history, its rows oldest first.
#[derive(Debug, Clone, Serialize)]
pub struct GoalHistory {
    pub goal: String,
    /// in-progress, blocked, complete or abandoned: the status of its last goal commit.
    pub status: String,
    pub rows: Vec<Row>,
    /// Commits that delete the goal files without a `Goal-Status: complete|abandoned` trailer.
    pub unmarked_deletions: Vec<String>,
}

fn date(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

/// Walk first-parent history from HEAD and gather goals, newest goal first. `all`: every goal;
/// otherwise only the most recent one.
pub fn goals(
    repo: &Repo,
    goal_dir: &Path,
    goal_rel: &Path,
    config: &Config,
    all: bool,
) -> Result<Vec<GoalHistory>> {
    // Segments of the first-parent history, newest first, each holding the commits of one goal
    // from its init up to (and including) its end.
    let mut found = Vec::new();
    let mut current: Vec<CommitInfo> = Vec::new();
    let mut in_goal = false;
    let mut unmarked: Vec<String> = Vec::new();
    // The newer neighbour of the commit being looked at, and whether it had the goal file.
    let mut child: Option<(CommitInfo, bool)> = None;
    for info in repo.first_parent_walk()? {
        let info = info?;
        let trailers = GoalTrailers::read(&info);
        let action = trailers.as_ref().and_then(|t| t.action);
        let has_goal = repo.blob_id(info.tree, goal_rel)?.is_some();
        if let Some((newer, false)) = &child
            && has_goal
        {
            // `newer` deleted the goal file: only `done` and `abandon` may, and they say so.
            let marked = GoalTrailers::read(newer)
                .is_some_and(|t| t.status == "complete" || t.status == "abandoned");
            if !marked {
                unmarked.push(newer.id.to_string());
            }
        }
        child = Some((info.clone(), has_goal));
        if trailers.is_some() || in_goal {
            if matches!(action, Some(Action::Done | Action::Abandon))
                && in_goal
                && !current.is_empty()
            {
                // An end marker of an older goal: the current segment was never closed by an init.
                found.push(std::mem::take(&mut current));
            }
            in_goal = true;
            current.push(info);
            if action == Some(Action::Init) {
                found.push(std::mem::take(&mut current));
                in_goal = false;
                if !all {
                    break;
                }
            }
        }
    }
    if !current.is_empty() {
        found.push(current);
    }
    let mut histories = Vec::new();
    for mut segment in found {
        segment.reverse();
        histories.push(rows_of(repo, goal_dir, goal_rel, config, &segment)?);
    }
    if let Some(first) = histories.first_mut() {
        first.unmarked_deletions = unmarked;
    }
    Ok(histories)
}

/// The GOAL.md at a commit, parsed fully.
fn goal_at(repo: &Repo, tree: Oid, goal_rel: &Path) -> Option<GoalFile> {
    repo.file_in_tree(tree, goal_rel)
        .ok()
        .flatten()
        .and_then(|b| GoalFile::parse_bytes(&b).ok())
}

/// The GOAL.md at a commit, only as far as its criteria (the Progress Log is not read).
fn criteria_at(repo: &Repo, tree: Oid, goal_rel: &Path) -> Option<GoalFile> {
    repo.file_in_tree(tree, goal_rel)
        .ok()
        .flatten()
        .and_then(|b| GoalFile::parse_head(&b).ok())
}

/// Build the rows of one goal from its commits (oldest first, non-goal commits included).
fn rows_of(
    repo: &Repo,
    goal_dir: &Path,
    goal_rel: &Path,
    config: &Config,
    commits: &[CommitInfo],
) -> Result<GoalHistory> {
    let goal_commits: Vec<(usize, GoalCommit)> = commits
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            GoalTrailers::read(c).map(|t| {
                (
                    i,
                    GoalCommit {
                        info: c.clone(),
                        trailers: t,
                    },
                )
            })
        })
        .collect();
    let goal_text = goal_commits
        .iter()
        .find_map(|(_, c)| criteria_at(repo, c.info.tree, goal_rel).map(|g| g.goal))
        .unwrap_or_default();
    let last_goal = goal_commits
        .iter()
        .rev()
        .find_map(|(_, c)| goal_at(repo, c.info.tree, goal_rel));
    let status = goal_commits
        .last()
        .map(|(_, c)| c.trailers.status.clone())
        .unwrap_or_default();

    // Rows: the init/iterate commit of each iteration.
    let mut rows: Vec<Row> = Vec::new();
    let mut row_trees: Vec<Oid> = Vec::new();
    let mut points: Vec<Point> = Vec::new();
    for (_, c) in goal_commits.iter().filter(|(_, c)| c.is_point()) {
        if rows
            .last()
            .is_some_and(|r| r.iteration == c.trailers.iteration)
        {
            rows.pop();
            row_trees.pop();
            points.pop();
        }
        let prev_tree = row_trees.last().copied();
        let stat = match prev_tree {
            Some(prev) => repo.diff_stat(Some(prev), c.info.tree, goal_dir)?,
            None => DiffStat::default(),
        };
        let entry = last_goal.as_ref().and_then(|g| {
            g.log
                .iter()
                .rev()
                .find(|e| e.number == c.trailers.iteration)
        });
        let summary = match c.action() {
            Some(Action::Init) => format!("init: {goal_text}"),
            _ => entry
                .and_then(|e| e.text.lines().find(|l| !l.trim().is_empty()))
                .map(|l| {
                    l.trim()
                        .trim_start_matches(['-', '*', '+'])
                        .trim()
                        .to_string()
                })
                .unwrap_or_else(|| c.info.subject().trim_start_matches("goal: ").to_string()),
        };
        points.push(Point {
            iteration: c.trailers.iteration,
            passing: c.trailers.passing,
            progress_words: entry
                .is_some_and(|e| stagnation::has_keyword(&e.text, &config.progress_keywords)),
            tree: repo.tree_without(c.info.tree, goal_dir)?.to_string(),
        });
        rows.push(Row {
            iteration: c.trailers.iteration,
            commit: c.info.id.to_string(),
            date: date(c.info.time),
            passing: c.trailers.passing,
            total: c.trailers.total,
            files_changed: stat.files_changed,
            insertions: stat.insertions,
            deletions: stat.deletions,
            summary,
            evidence: Vec::new(),
            flags: Vec::new(),
            stagnation: Signals::default(),
            status: c.trailers.status.clone(),
            goal: goal_text.clone(),
        });
        row_trees.push(c.info.tree);
    }

    // Stagnation per row.
    for (i, row) in rows.iter_mut().enumerate() {
        let signals = stagnation::signals_at(&points, i, config.stagnation_window);
        row.stagnation = signals;
        if signals.stagnant {
            row.flags.push("stagnant".into());
        }
    }

    // Flags and evidence from every goal commit of each iteration.
    let row_of = |iteration: u64| rows.iter().position(|r| r.iteration == iteration);
    let mut extra: Vec<(usize, &'static str)> = Vec::new();
    let mut evidence: Vec<(usize, Vec<String>)> = Vec::new();
    for (_, c) in &goal_commits {
        let Some(r) = row_of(c.trailers.iteration) else {
            continue;
        };
        if c.trailers.material_change.is_some() {
            extra.push((r, "material-change"));
        }
        if c.trailers.status == "blocked" {
            extra.push((r, "blocked"));
        }
        if !c.trailers.evidence.is_empty() {
            evidence.push((r, c.trailers.evidence.clone()));
        }
    }

    // unverified-check: a criterion passed in a goal commit that was not in the previous one,
    // with no passing evidence for the tree of the commit where the tick first appeared.
    let mut prev_goal: Option<GoalFile> = None;
    let mut prev_index: Option<usize> = None;
    for (index, c) in &goal_commits {
        let Some(now) = criteria_at(repo, c.info.tree, goal_rel) else {
            prev_goal = None;
            prev_index = Some(*index);
            continue;
        };
        let newly: Vec<_> = now
            .criteria
            .iter()
            .filter(|k| {
                k.passed
                    && !prev_goal
                        .as_ref()
                        .is_some_and(|p| p.criteria.iter().any(|o| o.passed && o.text == k.text))
            })
            .collect();
        if !newly.is_empty() {
            let ledger = repo
                .file_in_tree(c.info.tree, &goal_dir.join("evidence.jsonl"))?
                .and_then(|b| Ledger::parse(&b).ok())
                .unwrap_or_default();
            let start = prev_index.map_or(0, |p| p + 1);
            for k in newly {
                let tick_commit = first_tick(repo, goal_rel, &commits[start..=*index], &k.text)
                    .unwrap_or(c.info.tree);
                let tree = repo.tree_without(tick_commit, goal_dir)?.to_string();
                if ledger.proof(k.number, &k.text, &tree).is_err()
                    && let Some(r) = row_of(c.trailers.iteration)
                {
                    extra.push((r, "unverified-check"));
                }
            }
            if ledger.verify_chain().is_err()
                && let Some(r) = row_of(c.trailers.iteration)
            {
                extra.push((r, "broken-evidence-chain"));
            }
        }
        prev_goal = Some(now);
        prev_index = Some(*index);
    }
    for (r, flag) in extra {
        if !rows[r].flags.iter().any(|f| f == flag) {
            rows[r].flags.push(flag.to_string());
        }
    }
    for (r, ids) in evidence {
        for id in ids {
            if !rows[r].evidence.contains(&id) {
                rows[r].evidence.push(id);
            }
        }
    }
    Ok(GoalHistory {
        goal: goal_text,
        status,
        rows,
        unmarked_deletions: Vec::new(),
    })
}

/// The tree of the first commit in `commits` (oldest first) whose GOAL.md ticks `text`.
fn first_tick(repo: &Repo, goal_rel: &Path, commits: &[CommitInfo], text: &str) -> Option<Oid> {
    let mut last_blob = None;
    for c in commits {
        let blob = repo.blob_id(c.tree, goal_rel).ok().flatten();
        if blob.is_none() || blob == last_blob {
            continue;
        }
        last_blob = blob;
        if let Some(goal) = criteria_at(repo, c.tree, goal_rel)
            && goal.criteria.iter().any(|k| k.passed && k.text == text)
        {
            return Some(c.tree);
        }
    }
    None
}

/// Braille-free sparkline of passing counts (▁▂▃▄▅▆▇█), scaled to the largest total.
pub fn sparkline(rows: &[Row]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = rows
        .iter()
        .map(|r| r.total.max(r.passing))
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|r| {
            (r.passing * (BARS.len() - 1) + max / 2)
                .checked_div(max)
                .map_or(BARS[0], |i| BARS[i.min(BARS.len() - 1)])
        })
        .collect()
}
