//! The goals a revision range holds, read along first parents with the git CLI (revision ranges
//! are its language): each goal's span of commits and its base.

use std::collections::HashSet;
use std::path::Path;

use crate::error::{Error, Result};
use crate::repo::{CommitInfo, Oid, Repo};
use crate::trailers::{GoalAction, GoalTrailers};

/// The commits of one goal, oldest first, along first parents: from its `init` to its `done`
/// (or `abandon`), or to the tip of the range.
pub struct Span {
    pub commits: Vec<CommitInfo>,
    /// The commit the goal started from (the init commit's first parent); None for a goal
    /// started on an unborn branch.
    pub base: Option<Oid>,
    /// Whether the first commit is the goal's `init` (false: its start lies beyond the history
    /// that was read).
    pub has_init: bool,
}

pub(crate) use crate::repo::git_cli::git_lines;

fn oid(text: &str) -> Result<Oid> {
    Oid::from_str(text.trim()).map_err(Error::git("read a commit id"))
}

fn action_of(info: &CommitInfo) -> Option<GoalAction> {
    GoalTrailers::read(info).and_then(|t| t.action)
}

/// The goals that `range` touches, each with the set of its commits inside the range; with no
/// range, the most recent goal on HEAD's first-parent line (active or finished), whole.
pub fn goals_in(repo: &Repo, range: Option<&str>) -> Result<Vec<(Span, HashSet<Oid>)>> {
    let root = repo.root();
    let in_range: Vec<String> = match range {
        Some(r) => {
            if r.starts_with('-') || r.trim().is_empty() {
                return Err(bad_range(r));
            }
            git_lines(root, &["rev-list", "--first-parent", r, "--"])?
                .ok_or_else(|| bad_range(r))?
        }
        None => match repo.head_id()? {
            Some(head) => vec![head.to_string()],
            None => Vec::new(),
        },
    };
    spans_of(repo, range, in_range)
}

/// The most recent goal on `rev`'s first-parent line (active or finished), whole; None when
/// that history holds no goal. Err (exit 2) when `rev` is not a commit.
pub fn goal_at(repo: &Repo, rev: &str) -> Result<Option<Span>> {
    let spec = format!("{rev}^{{commit}}");
    let resolved = match rev.starts_with('-') {
        true => None,
        false => git_lines(repo.root(), &["rev-parse", "--verify", "-q", &spec])?,
    };
    let Some(commit) = resolved.and_then(|l| l.into_iter().next()) else {
        return Err(Error::usage(
            format!("`{rev}` is not a commit of this repository"),
            "give a commit of the goal, e.g. `goal report HEAD`",
        ));
    };
    Ok(spans_of(repo, None, vec![commit])?.pop().map(|(s, _)| s))
}

/// The goals of the first-parent line ending at `in_range`'s first (newest) commit: those that
/// hold a commit of `in_range` when `range` is given, else the last one.
fn spans_of(
    repo: &Repo,
    range: Option<&str>,
    in_range: Vec<String>,
) -> Result<Vec<(Span, HashSet<Oid>)>> {
    let root = repo.root();
    let Some(tip) = in_range.first() else {
        return Ok(Vec::new());
    };
    // Every commit from the tip back along first parents, oldest first.
    let mut line: Vec<String> =
        git_lines(root, &["rev-list", "--first-parent", tip.as_str(), "--"])?
            .ok_or_else(|| bad_range(tip))?;
    line.reverse();
    let wanted: HashSet<Oid> = match range {
        Some(_) => in_range.iter().map(|c| oid(c)).collect::<Result<_>>()?,
        None => HashSet::new(),
    };
    // Read only from the start of the goal that holds the range's oldest commit.
    let oldest = match range {
        Some(_) => line
            .iter()
            .position(|c| in_range.last() == Some(c))
            .unwrap_or(0),
        None => line.len().saturating_sub(1),
    };
    let start = goal_start(repo, &line, oldest)?;
    let mut spans = read_spans(repo, &line[start..])?;
    Ok(match range {
        Some(_) => touched(spans, &wanted),
        None => spans
            .pop()
            .map(|s| {
                let all = s.commits.iter().map(|c| c.id).collect();
                (s, all)
            })
            .into_iter()
            .collect(),
    })
}

/// Where in `line` (oldest first) the goal holding the commit at `oldest` starts: its `init`,
/// or the commit after the last goal's end before it (0 when neither is found).
fn goal_start(repo: &Repo, line: &[String], oldest: usize) -> Result<usize> {
    for i in (0..=oldest).rev() {
        let info = repo.commit_info(oid(&line[i])?)?;
        match action_of(&info) {
            Some(GoalAction::Init) => return Ok(i),
            Some(GoalAction::Done | GoalAction::Abandon) if i < oldest => return Ok(i + 1),
            _ => {}
        }
    }
    Ok(0)
}

/// The goals' spans among `line` (commits oldest first, from a goal's start): each `init` opens
/// one, a `done` or `abandon` closes it, a `restore` reopens the last; a goal commit before any
/// `init` opens a span whose start lies beyond what was read.
fn read_spans(repo: &Repo, line: &[String]) -> Result<Vec<Span>> {
    let root = repo.root();
    let mut spans: Vec<Span> = Vec::new();
    let mut open = false;
    for text in line {
        let info = repo.commit_info(oid(text)?)?;
        let action = action_of(&info);
        match action {
            Some(GoalAction::Init) => {
                let base = parent_of(root, info.id)?;
                spans.push(Span {
                    commits: vec![info],
                    base,
                    has_init: true,
                });
                open = true;
            }
            // A restore takes the goal back up where its abandon left it.
            Some(GoalAction::Restore) if !open && !spans.is_empty() => {
                if let Some(span) = spans.last_mut() {
                    span.commits.push(info);
                }
                open = true;
            }
            _ if open => {
                if let Some(span) = spans.last_mut() {
                    span.commits.push(info);
                }
                if matches!(action, Some(GoalAction::Done | GoalAction::Abandon)) {
                    open = false;
                }
            }
            // A goal commit whose init lies before what was read.
            Some(_) if spans.is_empty() => {
                spans.push(Span {
                    commits: vec![info],
                    base: None,
                    has_init: false,
                });
                open = true;
            }
            _ => {}
        }
    }
    Ok(spans)
}

/// The spans that hold a commit of `wanted`, each with those commits.
fn touched(spans: Vec<Span>, wanted: &HashSet<Oid>) -> Vec<(Span, HashSet<Oid>)> {
    spans
        .into_iter()
        .filter_map(|s| {
            let inside: HashSet<Oid> = s
                .commits
                .iter()
                .map(|c| c.id)
                .filter(|c| wanted.contains(c))
                .collect();
            (!inside.is_empty()).then_some((s, inside))
        })
        .collect()
}

/// The first parent of a commit; None for a root commit.
fn parent_of(root: &Path, commit: Oid) -> Result<Option<Oid>> {
    let spec = format!("{commit}^");
    match git_lines(root, &["rev-parse", "--verify", "-q", &spec])? {
        Some(lines) => lines.first().map(|l| oid(l)).transpose(),
        None => Ok(None),
    }
}

fn bad_range(range: &str) -> Error {
    Error::usage(
        format!("`{range}` is not a revision range of this repository"),
        "give a range git understands, e.g. `goal audit origin/main..HEAD` (CI must fetch the whole history: `fetch-depth: 0`)",
    )
}
