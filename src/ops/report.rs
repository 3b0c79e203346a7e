//! The summary of a goal a person pastes into a pull request: built from history (criteria with
//! their evidence, iterations, time, retries, stagnation, material changes, hand-made commits,
//! the clean-up findings, each `goal run`), as data, plain text or GitHub Markdown.

use std::collections::HashSet;

use serde::Serialize;

use crate::audit::{self, CommitCheck, Scope};
use crate::deslop;
use crate::error::{Error, Result};
use crate::history::{self, MaterialEntry, Row, RunSummary, Sink};
use crate::pin;
use crate::repo::Oid;
use crate::summary::TestCounts;
use crate::trailers::{GoalAction, GoalTrailers};
use crate::workspace::Workspace;

mod html;
pub use html::page as html;

#[derive(Debug, Serialize)]
struct CriterionRow {
    number: usize,
    text: String,
    ticked: bool,
    evidence: Option<String>,
    command: Option<Vec<String>>,
    cwd: Option<String>,
    exit_code: Option<i32>,
    tests: Option<TestCounts>,
    /// The commit that ticked it.
    commit: Option<String>,
    /// Proven by its pinned command (false: a command the agent chose).
    pinned: bool,
    /// Why nothing proves it, when nothing does.
    why: Option<String>,
    /// acceptance, guard or unpinned.
    kind: &'static str,
    /// An acceptance criterion's red state (witnessed, pending, passes-on-base, inconclusive);
    /// null for guards and unpinned criteria.
    red: Option<&'static str>,
    /// The red record: the witness (or the last red run).
    red_evidence: Option<String>,
    red_exit_code: Option<i32>,
    red_tests: Option<TestCounts>,
}

#[derive(Debug, Serialize)]
pub struct Report {
    goal: String,
    status: String,
    /// The status was written by a commit made without `goal` (unverified).
    hand_made_status: bool,
    iterations: u64,
    /// The goal's first and last commits.
    first_commit: String,
    last_commit: String,
    elapsed_s: i64,
    /// Failed attempts recorded with `goal retry` that reached a commit.
    retries: u32,
    escalations: usize,
    stagnation_episodes: usize,
    criteria: Vec<CriterionRow>,
    /// The settings that judge the goal that are not the defaults (its GOAL.md's; `{}` when none).
    settings: serde_json::Value,
    #[serde(skip)]
    settings_text: Vec<String>,
    material_changes: Vec<MaterialEntry>,
    hand_made: Vec<CommitCheck>,
    problems: Vec<String>,
    deslop: Vec<deslop::Finding>,
    /// The weakening findings of the goal's diff over the test surface.
    tests_weakened: Vec<audit::WeakenedFinding>,
    files_changed: usize,
    insertions: usize,
    deletions: usize,
    /// Each `goal run` that worked on the goal: its iterations with the agent of each, and what
    /// its agents reported using.
    runs: Vec<RunSummary>,
    /// The goal over its iterations, oldest first (what `goal report --html` draws).
    timeline: Vec<Point>,
    /// The budget the goal's `goal run` was given (its first commit's `Goal-Budget`), if any.
    budget: Option<Budget>,
    /// The goal's last `mutants` record when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    mutation: Option<super::mutants::MutationView>,
}

/// One iteration of the goal, as the picture draws it.
#[derive(Debug, Serialize)]
pub struct Point {
    iteration: u64,
    commit: String,
    date: String,
    proven: usize,
    total: usize,
    /// The criteria ticked after this iteration (ticks are proven on the tree they commit).
    ticked: Vec<usize>,
    /// The `goal run` agent that made it, if one did.
    agent: Option<String>,
    /// What that agent reported using; null when nothing was recorded (never drawn as 0).
    usage: Option<crate::usage::Usage>,
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

/// The markdown report of the last goal on HEAD's history (what `goal done --report` prints).
pub fn markdown_at_head(ws: &Workspace) -> Result<String> {
    build(ws, "HEAD").map(|r| markdown(&r))
}

fn duration(seconds: i64) -> String {
    format!("{}h {:02}m", seconds / 3600, (seconds % 3600) / 60)
}

fn counts_text(tests: Option<TestCounts>, exit_code: Option<i32>) -> String {
    match (tests, exit_code) {
        (Some(t), _) if t.ignored > 0 => format!(
            "{} passed, {} failed, {} ignored",
            t.passed, t.failed, t.ignored
        ),
        (Some(t), _) => format!("{} passed, {} failed", t.passed, t.failed),
        (None, Some(code)) => format!("check, exit {code}"),
        (None, None) => "—".into(),
    }
}

fn tests_text(c: &CriterionRow) -> String {
    counts_text(c.tests, c.exit_code)
}

/// The red → green of a criterion: its witness failing on the code before the goal, then its
/// deciding record; a guard or an unpinned criterion says so.
fn red_green(c: &CriterionRow) -> String {
    let green = match &c.command {
        Some(_) => tests_text(c),
        None => "not proven".into(),
    };
    match (c.kind, c.red) {
        ("guard", _) => format!("guard: stays green ({green})"),
        ("unpinned", _) | (_, None) => format!("unpinned: no red run ({green})"),
        (_, Some("witnessed")) => format!(
            "red {} ({}) → green ({green})",
            c.red_evidence.as_deref().unwrap_or(""),
            counts_text(c.red_tests, c.red_exit_code)
        ),
        (_, Some(state)) => format!("no red witness ({state}) → green ({green})"),
    }
}

fn weakened_line(f: &audit::WeakenedFinding) -> String {
    format!(
        "{} {} {}{}",
        code(&format!("{}:{}", f.finding.file, f.finding.line)),
        f.finding.kind,
        code(&f.finding.test),
        if f.confirmed {
            " (recorded with --confirm)"
        } else if f.refuses {
            " — not recorded with --confirm: `goal done` refuses this"
        } else {
            ""
        }
    )
}

/// A table cell: one line, `|` escaped.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

/// A code span that holds any text.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {} ``", text.replace('\n', " "))
    } else {
        format!("`{}`", text.replace('\n', " "))
    }
}

/// A run line with its id as code: `` `<id>`: iterations … ``.
fn code_run(line: &str) -> String {
    match line.strip_prefix("run ").and_then(|l| l.split_once(": ")) {
        Some((id, rest)) => format!("{}: {rest}", code(id)),
        None => line.to_string(),
    }
}

fn material_line(m: &MaterialEntry) -> String {
    format!("{} in {}", m.describe(), audit::short_id(&m.commit))
}

/// The "Mutation" section: the score and totals, each unneeded change, each survivor with
/// file:line and the mutation, each missing tool, failed tool, hidden code and note.
fn mutation_lines(m: &super::mutants::MutationView) -> Vec<String> {
    let r = &m.result;
    let mut out = vec![format!(
        "{} — record {}{}",
        r.line(),
        code(&m.record),
        if m.current {
            ""
        } else {
            " (made on an earlier tree)"
        }
    )];
    out.extend(r.unneeded.iter().map(|u| code(&u.describe())));
    out.extend(r.survivors.iter().map(|s| {
        format!(
            "survived {} {}",
            code(&format!("{}:{}", s.file, s.line)),
            code(&s.mutation)
        )
    }));
    out.extend(r.missing.iter().map(|t| t.describe()));
    out.extend(
        r.failed
            .iter()
            .map(|f| format!("{f}: its mutants are unknown")),
    );
    out.extend(
        r.suppressed
            .iter()
            .map(|at| format!("code hidden from the tools at {at}")),
    );
    out.extend(r.notes.iter().cloned());
    out
}

pub fn markdown(r: &Report) -> String {
    let mut out = Vec::new();
    out.push(format!("## Goal: {}", r.goal.replace('\n', " ")));
    out.push(String::new());
    out.push(format!(
        "**Status:** {} · **Iterations:** {} · **Time spent:** {} · **Retries:** {} · **Escalations:** {} · **Stagnation episodes:** {} · **Files changed:** {} (+{} −{})",
        crate::history::status_text(&r.status, r.hand_made_status),
        r.iterations,
        duration(r.elapsed_s),
        r.retries,
        r.escalations,
        r.stagnation_episodes,
        r.files_changed,
        r.insertions,
        r.deletions
    ));
    out.push(String::new());
    out.push("| # | Criterion | Command | Tests | Red → green | Evidence | Commit |".into());
    out.push("|---|---|---|---|---|---|---|".into());
    out.extend(r.criteria.iter().map(criterion_row));
    if r.criteria.iter().any(|c| c.command.is_some() && !c.pinned) {
        out.push(String::new());
        out.push(
            "⚠ unpinned: proven by a command the agent chose, not one pinned in the criterion."
                .into(),
        );
    }
    for (title, lines) in sections(r) {
        out.push(String::new());
        out.push(format!("### {title}"));
        out.push(String::new());
        if lines.is_empty() {
            out.push("None.".into());
        }
        out.extend(lines.into_iter().map(|l| format!("- {l}")));
    }
    out.push(String::new());
    out.push(format!(
        "Check it: `goal audit {}^..{} --rerun`",
        audit::short_id(&r.first_commit),
        audit::short_id(&r.last_commit)
    ));
    out.join("\n")
}

/// One criterion's row of the table.
fn criterion_row(c: &CriterionRow) -> String {
    let command = match &c.command {
        Some(argv) => {
            let mut text = code(&pin::render(argv));
            if !c.pinned {
                text.push_str(" ⚠ unpinned");
            }
            text
        }
        None => c
            .why
            .as_deref()
            .map(|w| format!("not proven: {w}"))
            .unwrap_or_else(|| "—".into()),
    };
    format!(
        "| {} | {} | {} | {} | {} | {} | {} |",
        c.number,
        cell(&c.text),
        cell(&command),
        tests_text(c),
        cell(&red_green(c)),
        c.evidence
            .as_deref()
            .map(code)
            .unwrap_or_else(|| "—".into()),
        c.commit
            .as_deref()
            .map(|id| code(&audit::short_id(id)))
            .unwrap_or_else(|| "—".into()),
    )
}

/// The report's sections after the table, in order, each a title and its lines ("None." when
/// it has none); the optional ones only when they have something to say.
fn sections(r: &Report) -> Vec<(&'static str, Vec<String>)> {
    let mut out = Vec::new();
    if !r.settings_text.is_empty() {
        out.push(("Settings (not the defaults)", r.settings_text.clone()));
    }
    out.push((
        "Material changes",
        r.material_changes.iter().map(material_line).collect(),
    ));
    out.push((
        "Tests weakened",
        r.tests_weakened.iter().map(weakened_line).collect(),
    ));
    if let Some(m) = &r.mutation {
        out.push(("Mutation", mutation_lines(m)));
    }
    out.push((
        "Hand-made commits",
        r.hand_made
            .iter()
            .map(|c| format!("{} {}", code(&audit::short_id(&c.commit)), c.subject))
            .collect(),
    ));
    if !r.problems.is_empty() {
        out.push(("Audit problems", r.problems.clone()));
    }
    out.push((
        "Clean-up findings",
        r.deslop
            .iter()
            .map(|f| {
                format!(
                    "{} {} — {}",
                    code(&format!("{}:{}", f.file, f.line)),
                    f.kind,
                    code(&f.text)
                )
            })
            .collect(),
    ));
    if !r.runs.is_empty() {
        out.push((
            "Runs",
            r.runs.iter().map(|run| code_run(&run.line())).collect(),
        ));
    }
    out
}

pub fn text(r: &Report) -> String {
    let mut out = vec![
        format!(
            "Goal: {} ({})",
            r.goal,
            crate::history::status_text(&r.status, r.hand_made_status)
        ),
        format!(
            "  iterations: {}  time spent: {}  retries: {}  escalations: {}  stagnation episodes: {}",
            r.iterations,
            duration(r.elapsed_s),
            r.retries,
            r.escalations,
            r.stagnation_episodes
        ),
        format!(
            "  files changed: {} (+{} -{})",
            r.files_changed, r.insertions, r.deletions
        ),
    ];
    for c in &r.criteria {
        let tick = if c.ticked { "[x]" } else { "[ ]" };
        out.push(format!("  {tick} {}. {}", c.number, c.text));
        match &c.command {
            Some(argv) => out.push(format!(
                "      evidence {} `{}` ({}) in {}{}",
                c.evidence.as_deref().unwrap_or(""),
                pin::render(argv),
                tests_text(c),
                c.commit.as_deref().map(audit::short_id).unwrap_or_default(),
                if c.pinned { "" } else { " — unpinned" }
            )),
            None => out.push(format!("      {}", c.why.as_deref().unwrap_or("open"))),
        }
        out.push(format!("      red → green: {}", red_green(c)));
    }
    for run in &r.runs {
        out.push(format!("  {}", run.line()));
    }
    for f in &r.tests_weakened {
        out.push(format!("  tests weakened: {}", weakened_line(f)));
    }
    if let Some(m) = &r.mutation {
        out.push(format!("  {}", m.line()));
    }
    if !r.settings_text.is_empty() {
        out.push(format!(
            "  settings (not the defaults): {}",
            r.settings_text.join("; ")
        ));
    }
    for m in &r.material_changes {
        out.push(format!("  material change: {}", material_line(m)));
    }
    for c in &r.hand_made {
        out.push(format!(
            "  hand-made commit: {} {}",
            audit::short_id(&c.commit),
            c.subject
        ));
    }
    for p in &r.problems {
        out.push(format!("  audit problem: {p}"));
    }
    if r.deslop.is_empty() {
        out.push("  clean-up scan: nothing found".into());
    }
    for f in &r.deslop {
        out.push(format!("  {}:{}: {} — {}", f.file, f.line, f.kind, f.text));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report names the tests it did not run as verify, done and audit do: `ignored`.
    #[test]
    fn counts_read_as_every_other_surface_reads_them() {
        let t = |passed, failed, ignored| {
            Some(TestCounts {
                passed,
                failed,
                ignored,
            })
        };
        let cases = [
            (t(3, 0, 2), Some(0), "3 passed, 0 failed, 2 ignored"),
            (t(3, 1, 0), Some(1), "3 passed, 1 failed"),
            (None, Some(1), "check, exit 1"),
            (None, None, "—"),
        ];
        for (tests, code, want) in cases {
            assert_eq!(counts_text(tests, code), want, "{tests:?}");
        }
    }
}
