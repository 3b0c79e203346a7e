//! What a reviewer can check of a goal from git alone: the goals a revision range holds, the
//! checks on each goal commit (trailers, evidence chain, proven ticks, material and hand-made
//! changes), and each criterion's deciding record. `goal audit` and `goal report` read it;
//! [`replay`] runs the records again.

pub mod replay;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::evidence::{Ledger, Record};
use crate::goal_file::GoalFile;
use crate::history::MaterialEntry;
use crate::material;
use crate::pin;
use crate::repo::{CommitInfo, Oid, Repo};
use crate::summary::TestCounts;
use crate::trailers::{GoalAction, GoalTrailers};
use crate::workspace::Workspace;

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

/// Run git (the CLI: revision ranges are its language) in `root`; stdout, or None when git
/// fails.
pub(crate) fn git_lines(root: &Path, args: &[&str]) -> Result<Option<Vec<String>>> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .map_err(|source| Error::Spawn {
            program: "git".into(),
            source,
        })?;
    if !out.status.success() {
        return Ok(None);
    }
    Ok(Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .filter(|l| !l.is_empty())
            .collect(),
    ))
}

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
    let mut start = 0;
    for i in (0..=oldest).rev() {
        let info = repo.commit_info(oid(&line[i])?)?;
        match action_of(&info) {
            Some(GoalAction::Init) => {
                start = i;
                break;
            }
            Some(GoalAction::Done | GoalAction::Abandon) if i < oldest => {
                start = i + 1;
                break;
            }
            _ => {}
        }
    }
    let mut spans: Vec<Span> = Vec::new();
    let mut open = false;
    for text in &line[start..] {
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
    Ok(match range {
        Some(_) => spans
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
            .collect(),
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

/// Something the audit found wrong.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// The commit it is about, if any.
    pub commit: Option<String>,
    pub criterion: Option<usize>,
    /// The 1-based line in the committed GOAL.md it points at.
    pub line: Option<usize>,
    pub message: String,
}

/// One goal commit (or hand-made change of the goal files) inside the range.
#[derive(Debug, Clone, Serialize)]
pub struct CommitCheck {
    pub commit: String,
    pub subject: String,
    /// The `Goal-Action` trailer, or null for a commit made without `goal`.
    pub action: Option<String>,
    /// A change of the goal files committed without `goal`.
    pub hand_made: bool,
    /// Committed by `goal` with the user's git hooks skipped (`Goal-Hooks: skipped`).
    pub hooks_skipped: bool,
    pub problems: Vec<String>,
}

/// A run's result: what a record claims, or what a replay saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RunOutcome {
    pub exit_code: i32,
    pub tests: Option<TestCounts>,
}

impl RunOutcome {
    pub fn of(record: &Record) -> RunOutcome {
        RunOutcome {
            exit_code: record.exit_code,
            tests: record.tests,
        }
    }

    /// Passing test evidence: exit 0 and a test summary with at least one test and no failure.
    pub fn passes_tests(&self) -> bool {
        self.exit_code == 0 && self.tests.is_some_and(|t| t.passed >= 1 && t.failed == 0)
    }

    pub fn describe(&self) -> String {
        match self.tests {
            Some(t) => format!(
                "exit {}, {} passed, {} failed, {} ignored",
                self.exit_code, t.passed, t.failed, t.ignored
            ),
            None => format!("exit {}, no test summary", self.exit_code),
        }
    }
}

/// One criterion of the goal's last state and the record that decides it.
#[derive(Debug, Clone, Serialize)]
pub struct CriterionAudit {
    /// The goal it belongs to: an index into the audit's `goals`.
    pub goal: usize,
    pub number: usize,
    pub text: String,
    /// Its 1-based line in the last committed GOAL.md.
    pub line: usize,
    pub ticked: bool,
    /// The deciding record's id (the latest passing record naming it on the tree of the commit
    /// that ticked it), or null.
    pub evidence: Option<String>,
    pub argv: Option<Vec<String>>,
    pub cwd: Option<String>,
    /// The record's command is the criterion's pin.
    pub pinned: bool,
    /// The commit that ticked it.
    pub commit: Option<String>,
    /// What the record claims.
    pub recorded: Option<RunOutcome>,
    /// reproduced | not reproduced | cannot run | skipped; null without `--rerun`.
    pub replay: Option<String>,
    /// Why it was skipped or could not run.
    pub replay_reason: Option<String>,
    /// The commit the replay ran at.
    pub replay_commit: Option<String>,
    pub replayed: Option<RunOutcome>,
    /// The run on the goal's base tree (red before green), when one was made.
    pub base: Option<RunOutcome>,
    /// acceptance, guard or unpinned.
    pub kind: &'static str,
    /// An acceptance criterion's red state on the goal's last state (`witnessed`, `pending`: no
    /// witness, `passes-on-base`, `inconclusive`) and its record; null for guards, unpinned
    /// criteria, and goals started on an unborn branch.
    pub red: Option<crate::surface::judge::Red>,
    /// What the red record (witness or last red run) claims.
    pub red_recorded: Option<RunOutcome>,
    /// What replaying the red run (`--rerun`) came to: red, passes-on-base, inconclusive, or
    /// cannot run.
    pub red_replay: Option<String>,
    pub red_replayed: Option<RunOutcome>,
    /// unpinned, open, unproven, passes-on-base, no-red-witness.
    pub flags: Vec<String>,
    /// Why it has no deciding record.
    pub why: Option<String>,
    #[serde(skip)]
    pub record: Option<Record>,
    #[serde(skip)]
    pub ticked_at: Option<Oid>,
}

impl CriterionAudit {
    pub fn flag(&mut self, flag: &str) {
        if !self.flags.iter().any(|f| f == flag) {
            self.flags.push(flag.to_string());
        }
    }
}

/// The audit of one goal.
#[derive(Debug, Serialize)]
pub struct GoalAudit {
    pub goal: String,
    /// The status of its last state: in-progress, blocked, complete, or abandoned.
    pub status: String,
    /// The status was written by a commit made without `goal` (unverified).
    pub hand_made_status: bool,
    pub iteration: u64,
    pub init: Option<String>,
    /// The commit the goal started from (null: an unborn branch).
    pub base: Option<String>,
    pub criteria: Vec<CriterionAudit>,
    pub commits: Vec<CommitCheck>,
    pub material_changes: Vec<MaterialEntry>,
    pub problems: Vec<Problem>,
    /// The weakening findings of the goal's diff (base → its last commit) over the test surface.
    pub tests_weakened: Vec<WeakenedFinding>,
    /// Test-surface files the findings could not parse (their findings are unknown).
    pub tests_unreadable: Vec<crate::surface::weaken::Unreadable>,
    /// The evidence chain of the last state verifies (nothing is replayed from a broken one).
    pub chain_ok: bool,
    /// The tree of every commit of the goal without the goal folder, for finding a record's.
    #[serde(skip)]
    pub trees: Vec<(Oid, String)>,
    #[serde(skip)]
    pub base_commit: Option<Oid>,
    /// The commit to make the red worktree at and the red tree of the goal's last state (base
    /// code, tests as at the end), for replaying.
    #[serde(skip)]
    pub red_tree: Option<(Oid, Oid)>,
}

/// The repository's paths and witness, as the audit needs them.
pub struct Scope<'a> {
    pub repo: &'a Repo,
    pub goal_dir: PathBuf,
    pub goal_rel: PathBuf,
    pub evidence_rel: PathBuf,
    /// This clone's witness; None in a clone where `goal verify` never ran (a fresh one).
    pub witness: Option<HashSet<String>>,
}

impl<'a> Scope<'a> {
    pub fn of(ws: &'a Workspace) -> Scope<'a> {
        Scope {
            repo: &ws.repo,
            goal_dir: ws.goal_dir.clone(),
            goal_rel: ws.goal_rel.clone(),
            evidence_rel: ws.evidence_rel(),
            witness: crate::store::witness_if_any(&ws.repo),
        }
    }

    fn ledger_at(&self, tree: Oid) -> Result<std::result::Result<Ledger, String>> {
        Ok(match self.repo.file_in_tree(tree, &self.evidence_rel)? {
            None => Ok(Ledger::default()),
            Some(bytes) => {
                match crate::store::ledger(Some(&bytes), &self.evidence_rel, self.witness.clone()) {
                    Ok(l) => Ok(l),
                    Err(Error::Parse {
                        path,
                        line,
                        message,
                    }) => Err(format!("{}:{line}: {message}", path.display())),
                    Err(e) => return Err(e),
                }
            }
        })
    }

    fn goal_at(&self, tree: Oid) -> Result<Option<std::result::Result<GoalFile, String>>> {
        Ok(self.repo.file_in_tree(tree, &self.goal_rel)?.map(|bytes| {
            GoalFile::parse_bytes(&bytes)
                .map_err(|e| format!("{}:{}: {}", self.goal_rel.display(), e.line, e.message))
        }))
    }
}

fn short(id: &str) -> &str {
    &id[..10.min(id.len())]
}

/// Check every commit of `span` inside `inside`, and find each criterion's deciding record.
pub fn audit_goal(scope: &Scope, span: &Span, inside: &HashSet<Oid>) -> Result<GoalAudit> {
    let repo = scope.repo;
    let mut out = GoalAudit {
        goal: String::new(),
        status: String::new(),
        hand_made_status: false,
        iteration: 0,
        init: span
            .has_init
            .then(|| span.commits.first().map(|c| c.id.to_string()))
            .flatten(),
        base: span.base.map(|b| b.to_string()),
        criteria: Vec::new(),
        commits: Vec::new(),
        material_changes: Vec::new(),
        problems: Vec::new(),
        tests_weakened: Vec::new(),
        tests_unreadable: Vec::new(),
        chain_ok: true,
        trees: Vec::new(),
        base_commit: span.base,
        red_tree: None,
    };
    let mut last_goal: Option<GoalFile> = None;
    let mut last_goal_tree: Option<Oid> = None;
    let mut last_blob: Option<Oid> = None;
    let mut last_evidence: Option<Oid> = None;
    // Each ticked criterion's text → the commit that ticked it.
    let mut ticked_at: HashMap<String, Oid> = HashMap::new();
    let mut ended = None;
    // The status the last commit made by `goal` gave the goal.
    let mut made_status: Option<String> = None;
    for (i, info) in span.commits.iter().enumerate() {
        let code = repo.tree_without(info.tree, &scope.goal_dir)?.to_string();
        out.trees.push((info.id, code.clone()));
        let blob = repo.blob_id(info.tree, &scope.goal_rel)?;
        let evidence_blob = repo.blob_id(info.tree, &scope.evidence_rel)?;
        let changed = blob != last_blob || i == 0;
        let evidence_changed = evidence_blob != last_evidence;
        last_blob = blob;
        last_evidence = evidence_blob;
        let trailers = GoalTrailers::read(info);
        let action = trailers.as_ref().and_then(|t| t.action);
        if let Some(t) = trailers.as_ref().filter(|_| action.is_some()) {
            made_status = Some(t.status.clone());
        }
        let checked = inside.contains(&info.id);
        let id = info.id.to_string();
        let mut check = CommitCheck {
            commit: id.clone(),
            subject: info.subject().to_string(),
            action: action.map(|a| a.as_str().to_string()),
            hand_made: action.is_none() && (changed || evidence_changed),
            hooks_skipped: trailers.as_ref().is_some_and(|t| t.hooks_skipped),
            problems: Vec::new(),
        };
        let mut problems: Vec<Problem> = Vec::new();
        let mut problem = |criterion: Option<(usize, usize)>, message: String| {
            problems.push(Problem {
                commit: Some(id.clone()),
                criterion: criterion.map(|(n, _)| n),
                line: criterion.map(|(_, l)| l),
                message,
            });
        };
        let goal = match scope.goal_at(info.tree)? {
            None => None,
            Some(Ok(g)) => Some(g),
            Some(Err(why)) => {
                problem(None, format!("GOAL.md does not parse: {why}"));
                None
            }
        };
        // The trailers must say what the committed GOAL.md says.
        match (&trailers, &goal) {
            (Some(t), Some(g)) if action.is_some() => {
                if t.status != g.status.as_str() {
                    problem(
                        None,
                        format!(
                            "Goal-Status says {} but the committed GOAL.md says {}",
                            t.status, g.status
                        ),
                    );
                }
                if (t.passing, t.total) != (g.passing_count(), g.criteria.len()) {
                    problem(
                        None,
                        format!(
                            "Goal-Passing says {}/{} but the committed GOAL.md ticks {}/{}",
                            t.passing,
                            t.total,
                            g.passing_count(),
                            g.criteria.len()
                        ),
                    );
                }
                if t.iteration != g.iteration {
                    problem(
                        None,
                        format!(
                            "Goal-Iteration says {} but the committed GOAL.md says iteration {}",
                            t.iteration, g.iteration
                        ),
                    );
                }
            }
            (t, None) if last_blob.is_none() && changed && last_goal.is_some() => {
                let status = t.as_ref().map(|t| t.status.as_str());
                if !matches!(status, Some("complete" | "abandoned")) {
                    problem(
                        None,
                        "deletes the goal files without a `Goal-Status: complete|abandoned` trailer"
                            .into(),
                    );
                }
                ended = status.map(str::to_string);
            }
            _ => {}
        }
        let ledger = scope.ledger_at(info.tree)?;
        if evidence_changed {
            match &ledger {
                Err(why) => problem(None, format!("evidence.jsonl does not parse: {why}")),
                Ok(l) => {
                    if let Err(why) = l.verify_chain() {
                        problem(None, format!("the evidence chain does not verify: {why}"));
                    }
                }
            }
        }
        if let Some(g) = &goal {
            if changed {
                let before: HashSet<&str> = last_goal
                    .iter()
                    .flat_map(|l| &l.criteria)
                    .filter(|c| c.passed)
                    .map(|c| c.text.as_str())
                    .collect();
                for c in g.criteria.iter().filter(|c| c.passed) {
                    if before.contains(c.text.as_str()) {
                        continue;
                    }
                    ticked_at.insert(c.text.clone(), info.id);
                    let proof = match &ledger {
                        Ok(l) => l.proof(c.number, &c.text, &code).map(|_| ()),
                        Err(why) => Err(why.clone()),
                    };
                    if let Err(why) = proof {
                        problem(
                            Some((c.number, c.line_number())),
                            format!(
                                "criterion {} is ticked without passing evidence on this commit's tree: {why}",
                                c.number
                            ),
                        );
                    }
                }
                ticked_at.retain(|text, _| g.criteria.iter().any(|c| c.passed && &c.text == text));
                if let Some(last) = &last_goal {
                    let recorded = info.trailer("Goal-Material-Change").map(str::to_string);
                    for m in material::compare(&last.criteria_texts(), &g.criteria_texts()) {
                        if recorded.is_none() {
                            problem(
                                None,
                                format!(
                                    "criterion {} \"{}\" was {} without a Goal-Material-Change record ({})",
                                    m.number,
                                    m.text,
                                    if m.new.is_some() {
                                        "materially reworded"
                                    } else {
                                        "removed"
                                    },
                                    m.reason
                                ),
                            );
                        }
                        if checked {
                            out.material_changes.push(MaterialEntry {
                                commit: id.clone(),
                                number: m.number,
                                old: m.text,
                                new: m.new,
                                reason: m.reason,
                                recorded: recorded.clone(),
                            });
                        }
                    }
                }
            }
            last_goal = Some(g.clone());
            last_goal_tree = Some(info.tree);
            // A restore brings an abandoned goal back.
            ended = None;
        }
        if checked {
            check.problems = problems.iter().map(|p| p.message.clone()).collect();
            out.problems.extend(problems);
            if action.is_some() || check.hand_made {
                out.commits.push(check);
            }
        }
    }
    let Some(goal) = last_goal else {
        return Ok(out);
    };
    if span.has_init
        && let Some(last) = span.commits.last()
    {
        let confirmed: Vec<String> = span
            .commits
            .iter()
            .flat_map(|c| crate::repo::parse_trailers(&c.message))
            .filter(|(k, _)| k.eq_ignore_ascii_case("Goal-Tests-Weakened"))
            .map(|(_, v)| v)
            .collect();
        let found = goal_findings(
            repo,
            &scope.goal_dir,
            span.base,
            last.tree,
            &goal,
            &confirmed,
        )?;
        out.tests_weakened = found.0;
        out.tests_unreadable = found.1;
    }
    out.goal = goal.goal.clone();
    out.iteration = goal.iteration;
    out.status = match ended.as_deref() {
        Some("abandoned") => "abandoned".into(),
        _ => goal.status.as_str().into(),
    };
    out.hand_made_status = ended.is_none() && made_status.as_deref() != Some(out.status.as_str());
    let ledger = match last_goal_tree {
        Some(tree) => scope.ledger_at(tree)?.unwrap_or_default(),
        None => Ledger::default(),
    };
    out.chain_ok = ledger.verify_chain().is_ok()
        && last_goal_tree
            .map(|t| scope.ledger_at(t).map(|l| l.is_ok()))
            .transpose()?
            .unwrap_or(true);
    for c in &goal.criteria {
        let mut audit = CriterionAudit {
            goal: 0,
            number: c.number,
            text: c.text.clone(),
            line: c.line_number(),
            ticked: c.passed,
            evidence: None,
            argv: None,
            cwd: None,
            pinned: false,
            commit: None,
            recorded: None,
            replay: None,
            replay_reason: None,
            replay_commit: None,
            replayed: None,
            base: None,
            kind: pin::kind_name(&c.text),
            red: None,
            red_recorded: None,
            red_replay: None,
            red_replayed: None,
            flags: Vec::new(),
            why: None,
            record: None,
            ticked_at: None,
        };
        let at = ticked_at.get(&c.text).copied().filter(|_| c.passed);
        match at {
            None => {
                audit.flag("open");
                audit.why = Some("not ticked: no claim to check".into());
            }
            Some(commit) => {
                audit.commit = Some(commit.to_string());
                audit.ticked_at = Some(commit);
                let tree = out
                    .trees
                    .iter()
                    .find(|(c, _)| *c == commit)
                    .map(|(_, t)| t.clone())
                    .unwrap_or_default();
                match ledger.proof(c.number, &c.text, &tree) {
                    Ok(record) => {
                        audit.evidence = Some(record.id.clone());
                        audit.argv = Some(record.argv.clone());
                        audit.cwd = Some(record.cwd.clone());
                        audit.pinned = pin::argv(&c.text).as_ref() == Some(&record.argv);
                        audit.recorded = Some(RunOutcome::of(record));
                        if !audit.pinned {
                            audit.flag("unpinned");
                        }
                        audit.record = Some(record.clone());
                    }
                    Err(why) => {
                        audit.flag("unproven");
                        audit.why = Some(why);
                    }
                }
            }
        }
        out.criteria.push(audit);
    }
    // Red before green: each acceptance criterion of the last state has a witness (a failing run
    // of its pin on the red tree of that state); a finished goal without one fails the audit.
    if let (true, Some(last)) = (span.has_init, span.commits.last()) {
        let (red, target) =
            crate::surface::tree_run::red_target(repo, span.base, last.tree, &scope.goal_dir)?;
        // (A goal started on an unborn branch has no base commit: the red worktree is made at
        // its last commit, with the red tree checked out.)
        out.red_tree = Some((span.base.unwrap_or(last.id), red.tree));
        let finished = out.status == "complete";
        for (audit, c) in out.criteria.iter_mut().zip(&goal.criteria) {
            audit.red = crate::surface::judge::red_state(&ledger, c.number, &c.text, &target);
            audit.red_recorded = audit
                .red
                .as_ref()
                .and_then(|r| r.record.as_deref())
                .and_then(|id| ledger.records.iter().find(|r| r.id == id))
                .map(RunOutcome::of);
            if finished
                && audit
                    .red
                    .as_ref()
                    .is_some_and(|r| r.state != crate::surface::judge::RedState::Witnessed)
            {
                audit.flag("no-red-witness");
            }
        }
    }
    Ok(out)
}

/// A weakening finding of a goal, as audit and report show it.
#[derive(Debug, Clone, Serialize)]
pub struct WeakenedFinding {
    #[serde(flatten)]
    pub finding: crate::surface::weaken::Finding,
    /// A `Goal-Tests-Weakened` trailer of the goal records it (`goal done --confirm`).
    pub confirmed: bool,
    /// It refuses `goal done` without `--confirm`: a `selection-changed`, or a `test-removed`,
    /// `skip-added`, `assertion-free` or `import-redirected` in a test a pin runs.
    pub refuses: bool,
}

/// The weakening findings of a goal whose base is the commit `base` (None: an unborn branch, the
/// empty tree) and whose last commit has tree `last`, outside the goal folder; `confirmed` holds
/// the values of the goal's `Goal-Tests-Weakened` trailers. Also the files that did not parse.
pub fn goal_findings(
    repo: &Repo,
    goal_dir: &Path,
    base: Option<Oid>,
    last: Oid,
    goal: &GoalFile,
    confirmed: &[String],
) -> Result<(
    Vec<WeakenedFinding>,
    Vec<crate::surface::weaken::Unreadable>,
)> {
    let surface = crate::history::surface(repo)?;
    let base_tree = match base {
        Some(commit) => repo.commit_info(commit)?.tree,
        None => repo.empty_tree()?,
    };
    // (`tree_without` only computes ids: the goal folder is dropped from the changes instead.)
    let found = crate::surface::red::goal_findings(repo, base_tree, last, &surface, &|path| {
        Path::new(path).starts_with(goal_dir)
    })?;
    let pins: Vec<String> = goal
        .criteria
        .iter()
        .filter_map(|c| pin::parse(&c.text).and_then(|p| p.ok()))
        .map(|p| p.command)
        .collect();
    let findings = found
        .findings
        .into_iter()
        .map(|f| WeakenedFinding {
            confirmed: confirmed.iter().any(|v| v.trim() == f.trailer_value()),
            refuses: crate::surface::judge::refuses_done(&f, &pins),
            finding: f,
        })
        .collect();
    Ok((findings, found.unreadable))
}

/// The commit of the goal whose tree (without the goal folder) is the record's: the commit
/// that ticked the criterion first, then any other, oldest first.
pub fn commit_for(goal: &GoalAudit, record: &Record, prefer: Option<Oid>) -> Option<Oid> {
    goal.trees
        .iter()
        .find(|(c, t)| Some(*c) == prefer && record.on_tree(t))
        .or_else(|| goal.trees.iter().find(|(_, t)| record.on_tree(t)))
        .map(|(c, _)| *c)
}

/// The short id a person reads.
pub fn short_id(id: &str) -> String {
    short(id).to_string()
}
