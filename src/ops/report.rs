//! The summary of a goal a person pastes into a pull request: built from history (criteria with
//! their evidence, iterations, time, retries, stagnation, material changes, hand-made commits,
//! the clean-up findings, each `goal run`), as data, plain text or GitHub Markdown.

use std::collections::HashSet;

use serde::Serialize;

use crate::audit::{self, CommitCheck, Scope};
use crate::deslop;
use crate::error::{Error, Result};
use crate::history::{self, MaterialEntry, Row, RunSummary, Sink};
use crate::repo::Oid;
use crate::summary::TestCounts;
use crate::trailers::{GoalAction, GoalTrailers};
use crate::workspace::Workspace;

#[derive(Debug, Serialize)]
pub struct CriterionRow {
    pub(crate) number: usize,
    pub(crate) text: String,
    pub(crate) ticked: bool,
    pub(crate) evidence: Option<String>,
    pub(crate) command: Option<Vec<String>>,
    pub(crate) cwd: Option<String>,
    pub(crate) exit_code: Option<i32>,
    pub(crate) tests: Option<TestCounts>,
    /// The commit that ticked it.
    pub(crate) commit: Option<String>,
    /// Proven by its pinned command (false: a command the agent chose).
    pub(crate) pinned: bool,
    /// Why nothing proves it, when nothing does.
    pub(crate) why: Option<String>,
    /// acceptance, guard or unpinned.
    pub(crate) kind: &'static str,
    /// An acceptance criterion's red state (witnessed, pending, passes-on-base, inconclusive);
    /// null for guards and unpinned criteria.
    pub(crate) red: Option<&'static str>,
    /// The red record: the witness (or the last red run).
    pub(crate) red_evidence: Option<String>,
    pub(crate) red_exit_code: Option<i32>,
    pub(crate) red_tests: Option<TestCounts>,
    /// Its run on the goal's base, when one was made (a guard's tells whether it was red there).
    pub(crate) base_exit_code: Option<i32>,
    pub(crate) base_tests: Option<TestCounts>,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub(crate) goal: String,
    pub(crate) status: String,
    /// The status was written by a commit made without `goal` (unverified).
    pub(crate) hand_made_status: bool,
    pub(crate) iterations: u64,
    /// The goal's first and last commits.
    pub(crate) first_commit: String,
    pub(crate) last_commit: String,
    pub(crate) elapsed_s: i64,
    /// Failed attempts recorded with `goal retry` that reached a commit.
    pub(crate) retries: u32,
    pub(crate) escalations: usize,
    pub(crate) stagnation_episodes: usize,
    pub(crate) criteria: Vec<CriterionRow>,
    /// The settings that judge the goal that are not the defaults (its GOAL.md's; `{}` when none).
    pub(crate) settings: serde_json::Value,
    #[serde(skip)]
    pub(crate) settings_text: Vec<String>,
    pub(crate) material_changes: Vec<MaterialEntry>,
    pub(crate) hand_made: Vec<CommitCheck>,
    pub(crate) problems: Vec<String>,
    pub(crate) deslop: Vec<deslop::Finding>,
    /// The weakening findings of the goal's diff over the test surface.
    pub(crate) tests_weakened: Vec<audit::WeakenedFinding>,
    /// Changes to the tests that `goal done`'s runs judged without refusing, and what its
    /// exams showed, as `goal log` lists them.
    pub(crate) tests_changed: Vec<String>,
    pub(crate) files_changed: usize,
    pub(crate) insertions: usize,
    pub(crate) deletions: usize,
    /// Each `goal run` that worked on the goal: its iterations with the agent of each, and what
    /// its agents reported using.
    pub(crate) runs: Vec<RunSummary>,
    /// The goal over its iterations, oldest first (what `goal report --html` draws).
    pub(crate) timeline: Vec<Point>,
    /// The budget the goal's `goal run` was given (its first commit's `Goal-Budget`), if any.
    pub(crate) budget: Option<Budget>,
    /// The goal's last `mutants` record when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mutation: Option<super::mutants::MutationView>,
}

/// One iteration of the goal, as the picture draws it.
#[derive(Debug, Serialize)]
pub struct Point {
    pub(crate) iteration: u64,
    pub(crate) commit: String,
    pub(crate) date: String,
    pub(crate) proven: usize,
    pub(crate) total: usize,
    /// The criteria ticked after this iteration (ticks are proven on the tree they commit).
    pub(crate) ticked: Vec<usize>,
    /// The `goal run` agent that made it, if one did.
    pub(crate) agent: Option<String>,
    /// What that agent reported using; null when nothing was recorded (never drawn as 0).
    pub(crate) usage: Option<crate::usage::Usage>,
}

/// A `goal run`'s budget, from `Goal-Budget: cost=… tokens=… iterations=…`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize)]
pub struct Budget {
    pub cost_usd: Option<f64>,
    pub tokens: Option<u64>,
    pub iterations: Option<u64>,
}

impl Budget {
    /// The value of a `Goal-Budget` trailer; None when it names nothing readable. Pure.
    pub fn parse(value: &str) -> Option<Budget> {
        let mut b = Budget::default();
        for word in value.split_whitespace() {
            match word.split_once('=') {
                Some(("cost", n)) => b.cost_usd = n.parse().ok().filter(|c: &f64| c.is_finite()),
                Some(("tokens", n)) => b.tokens = n.parse().ok(),
                Some(("iterations", n)) => b.iterations = n.parse().ok(),
                _ => {}
            }
        }
        (b != Budget::default()).then_some(b)
    }

    /// The trailer value: the parts that are set, or None when none is.
    pub fn value(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(c) = self.cost_usd {
            parts.push(format!("cost={c}"));
        }
        if let Some(t) = self.tokens {
            parts.push(format!("tokens={t}"));
        }
        if let Some(i) = self.iterations {
            parts.push(format!("iterations={i}"));
        }
        (!parts.is_empty()).then(|| parts.join(" "))
    }
}

/// Rows of `goal log` that belong to a set of commits.
struct Rows<'a> {
    commits: &'a HashSet<String>,
    rows: Vec<Row>,
}

impl Sink for Rows<'_> {
    fn goal_start(&mut self, _goal: &str) -> Result<()> {
        Ok(())
    }
    fn row(&mut self, row: &Row) -> Result<()> {
        if self.commits.contains(&row.commit) {
            self.rows.push(row.clone());
        }
        Ok(())
    }
    fn goal_end(&mut self, _status: &str, _unmarked: &[String]) -> Result<()> {
        Ok(())
    }
}

pub fn build(ws: &Workspace, rev: &str) -> Result<Report> {
    let Some(span) = audit::goal_at(&ws.repo, rev)? else {
        return Err(Error::refused(
            format!("no goal in the history of {rev}: nothing to report"),
            "start one with `goal init \"<goal>\" -c \"<criterion>\"`",
        ));
    };
    let scope = Scope::of(ws);
    let all: HashSet<Oid> = span.commits.iter().map(|c| c.id).collect();
    let goal = audit::audit_goal(&scope, &span, &all)?;
    let (Some(first), Some(last)) = (span.commits.first(), span.commits.last()) else {
        return Err(Error::refused("the goal has no commits", "goal log --all"));
    };
    let (retries, escalations) = retries_and_escalations(ws, &span, last, goal.iteration)?;
    let ids: HashSet<String> = all.iter().map(|c| c.to_string()).collect();
    let mut rows = Rows {
        commits: &ids,
        rows: Vec::new(),
    };
    history::walk_goals(
        &ws.repo,
        &ws.goal_dir,
        &ws.goal_rel,
        &ws.config,
        true,
        &mut rows,
    )?;
    let added = ws
        .repo
        .added_lines(Some(first.tree), last.tree, &ws.goal_dir)?;
    let stat = ws
        .repo
        .diff_stat(Some(first.tree), last.tree, &ws.goal_dir)?;
    let criteria = goal.criteria.iter().map(criterion_of).collect();
    // The last state that has GOAL.md (a finished goal's last commit deletes it).
    let settings = [last.tree, first.tree]
        .iter()
        .find_map(|tree| ws.repo.file_in_tree(*tree, &ws.goal_rel).ok().flatten())
        .and_then(|b| crate::goal_file::GoalFile::settings_in(&b))
        .unwrap_or_default();
    let mutation = mutation_of(ws, &span.commits)?;
    Ok(Report {
        mutation,
        settings: settings.json(),
        settings_text: settings.non_default(),
        goal: goal.goal.clone(),
        status: goal.status.clone(),
        hand_made_status: goal.hand_made_status,
        iterations: goal.iteration,
        first_commit: first.id.to_string(),
        last_commit: last.id.to_string(),
        elapsed_s: (last.time - first.time).max(0),
        retries,
        escalations,
        stagnation_episodes: stagnation_episodes(&rows.rows),
        criteria,
        material_changes: goal.material_changes,
        hand_made: goal.commits.into_iter().filter(|c| c.hand_made).collect(),
        problems: goal.problems.into_iter().map(|p| p.message).collect(),
        deslop: deslop::scan(&added),
        tests_weakened: goal.tests_weakened,
        tests_changed: tests_changed(&rows.rows),
        files_changed: stat.files_changed,
        insertions: stat.insertions,
        deletions: stat.deletions,
        runs: history::runs(&rows.rows),
        timeline: timeline(ws, &span.commits, &rows.rows)?,
        budget: span
            .commits
            .iter()
            .find_map(|c| c.trailer("Goal-Budget").and_then(Budget::parse)),
    })
}

/// The rows' changes to the tests judged by `done`'s runs, and what its exams showed, in the
/// words `goal log` gives them.
fn tests_changed(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows {
        out.extend(r.tests_changed.iter().map(|w| {
            format!(
                "in {}: {}",
                crate::repo::short_id(&w.commit),
                w.finding.trailer_value()
            )
        }));
        out.extend(r.exams_shown.iter().map(|v| format!("exam: {v}")));
    }
    out
}

/// Retries (the failures of each iteration that reached a commit — an iteration commit starts a
/// new episode —, the most per iteration, summed; the live retry state too while the goal is
/// active at HEAD) and escalations.
fn retries_and_escalations(
    ws: &Workspace,
    span: &audit::Span,
    last: &crate::repo::CommitInfo,
    iteration: u64,
) -> Result<(u32, usize)> {
    let mut per_iteration: std::collections::BTreeMap<u64, u32> = Default::default();
    let mut escalations = 0;
    for info in &span.commits {
        let trailers = GoalTrailers::read(info);
        if trailers.as_ref().and_then(|t| t.action) == Some(GoalAction::Escalate) {
            escalations += 1;
        }
        let iteration = trailers.map_or(0, |t| t.iteration);
        if let Some(bytes) = ws.repo.file_in_tree(info.tree, &ws.retry_rel())?
            && let Ok(state) = crate::retry::RetryState::parse(&String::from_utf8_lossy(&bytes))
        {
            let n = per_iteration.entry(iteration).or_default();
            *n = (*n).max(state.failures());
        }
    }
    let active = ws.repo.head_id()? == Some(last.id) && ws.goal_path().exists();
    if active {
        let n = per_iteration.entry(iteration).or_default();
        *n = (*n).max(ws.retry_state().failures());
    }
    Ok((per_iteration.values().sum(), escalations))
}

/// Stagnation episodes: runs of rows `goal log` flags stagnant.
fn stagnation_episodes(rows: &[history::Row]) -> usize {
    let mut episodes = 0;
    let mut in_episode = false;
    for row in rows {
        let stagnant = row.flags.iter().any(|f| f == "stagnant");
        if stagnant && !in_episode {
            episodes += 1;
        }
        in_episode = stagnant;
    }
    episodes
}

/// A criterion's row from its audit.
fn criterion_of(c: &audit::CriterionAudit) -> CriterionRow {
    CriterionRow {
        number: c.number,
        text: c.text.clone(),
        ticked: c.ticked,
        evidence: c.evidence.clone(),
        command: c.argv.clone(),
        cwd: c.cwd.clone(),
        exit_code: c.recorded.map(|o| o.exit_code),
        tests: c.recorded.and_then(|o| o.tests),
        commit: c.commit.clone(),
        pinned: c.pinned,
        why: c.why.clone(),
        kind: c.kind,
        red: c.red.as_ref().map(|r| r.state.as_str()),
        red_evidence: c.red.as_ref().and_then(|r| r.record.clone()),
        red_exit_code: c.red_recorded.map(|o| o.exit_code),
        red_tests: c.red_recorded.and_then(|o| o.tests),
        base_exit_code: c.base.map(|o| o.exit_code),
        base_tests: c.base.and_then(|o| o.tests),
    }
}

/// The last `mutants` record of the goal's ledger, as its last commit holding one had it (the
/// done commit removes the ledger), judged current against that commit's code.
fn mutation_of(
    ws: &Workspace,
    commits: &[crate::repo::CommitInfo],
) -> Result<Option<super::mutants::MutationView>> {
    for info in commits.iter().rev() {
        let Some(bytes) = ws.repo.file_in_tree(info.tree, &ws.evidence_rel())? else {
            continue;
        };
        let Ok(ledger) = crate::evidence::Ledger::parse(&bytes) else {
            return Ok(None);
        };
        let tree = ws.repo.tree_without(info.tree, &ws.goal_dir)?.to_string();
        return Ok(super::mutants::view(&ledger, &tree));
    }
    Ok(None)
}

/// The goal's iteration rows with the criteria each one's commit ticked.
fn timeline(
    ws: &Workspace,
    commits: &[crate::repo::CommitInfo],
    rows: &[Row],
) -> Result<Vec<Point>> {
    let trees: std::collections::HashMap<String, Oid> =
        commits.iter().map(|c| (c.id.to_string(), c.tree)).collect();
    let mut out = Vec::new();
    for row in rows.iter().filter(|r| r.is_iteration) {
        let ticked = match trees.get(&row.commit) {
            Some(tree) => ticked_in(ws, *tree)?,
            None => Vec::new(),
        };
        out.push(Point {
            iteration: row.iteration,
            commit: row.commit.clone(),
            date: row.date.clone(),
            proven: row.passing,
            total: row.total,
            ticked,
            agent: row.agent.clone(),
            usage: row.usage,
        });
    }
    Ok(out)
}

/// The numbers of the criteria ticked in the GOAL.md of a tree (none when it does not parse).
fn ticked_in(ws: &Workspace, tree: Oid) -> Result<Vec<usize>> {
    let Some(bytes) = ws.repo.file_in_tree(tree, &ws.goal_rel)? else {
        return Ok(Vec::new());
    };
    let text = String::from_utf8_lossy(&bytes);
    Ok(crate::goal_file::GoalFile::parse(&text)
        .map(|g| {
            g.criteria
                .iter()
                .filter(|c| c.passed)
                .map(|c| c.number)
                .collect()
        })
        .unwrap_or_default())
}
