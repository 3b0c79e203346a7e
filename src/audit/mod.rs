//! What a reviewer can check of a goal from git alone: the goals a revision range holds, the
//! checks on each goal commit (trailers, evidence chain, proven ticks, material and hand-made
//! changes), and each criterion's deciding record. `goal audit` and `goal report` read it;
//! [`replay`] runs the records again.

mod found;
mod range;
pub mod replay;
pub mod review;
mod weakened;

pub use found::{CommitCheck, Confirmation, CriterionAudit, GoalAudit, Problem, RunOutcome};
pub(crate) use range::git_lines;
pub use range::{Span, goal_at, goals_in};
pub use weakened::{WeakenedFinding, goal_findings};

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::evidence::{Ledger, Record};
use crate::goal_file::GoalFile;
use crate::history::MaterialEntry;
use crate::material;
use crate::pin;
use crate::repo::{Oid, Repo};
use crate::trailers::GoalTrailers;
use crate::workspace::Workspace;

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
    crate::repo::short_id(id)
}

/// Check every commit of `span` inside `inside`, and find each criterion's deciding record.
pub fn audit_goal(scope: &Scope, span: &Span, inside: &HashSet<Oid>) -> Result<GoalAudit> {
    let repo = scope.repo;
    let mut out = GoalAudit {
        goal: String::new(),
        mutation: None,
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
        confirmations: Vec::new(),
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
        if let (true, Some(t)) = (checked, trailers.as_ref()) {
            out.confirmations.extend(found::Confirmation::of(&id, t));
        }
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
                let newly: Vec<_> = g
                    .criteria
                    .iter()
                    .filter(|c| c.passed && !before.contains(c.text.as_str()))
                    .collect();
                for c in &newly {
                    ticked_at.insert(c.text.clone(), info.id);
                }
                // The gate's own rules judge the commit, as its hook would have; a ledger that
                // does not parse proves none of the ticks.
                let unproven: Vec<(usize, String)> = match &ledger {
                    _ if newly.is_empty() => Vec::new(),
                    Ok(l) => crate::gate::evaluate(&crate::gate::GateInput {
                        head_goal: last_goal.as_ref(),
                        staged_goal: Ok(Some(g)),
                        ledger: l,
                        tree: &code,
                        message: None,
                    })
                    .into_iter()
                    .filter_map(|v| match v {
                        crate::gate::Violation::Unproven { number, why, .. } => Some((number, why)),
                        _ => None,
                    })
                    .collect(),
                    Err(why) => newly.iter().map(|c| (c.number, why.clone())).collect(),
                };
                for (number, why) in unproven {
                    let line = g.criterion(number).map_or(0, |c| c.line_number());
                    problem(
                        Some((number, line)),
                        format!(
                            "criterion {number} is ticked without passing evidence on this commit's tree: {why}"
                        ),
                    );
                }
                ticked_at.retain(|text, _| g.criteria.iter().any(|c| c.passed && &c.text == text));
                if let Some(last) = &last_goal {
                    let recorded = info.trailer("Goal-Material-Change").map(str::to_string);
                    if last.settings != g.settings {
                        if recorded.is_none() {
                            problem(
                                None,
                                format!(
                                    "the settings that judge the goal were changed ({} → {}) without a Goal-Material-Change record",
                                    last.settings, g.settings
                                ),
                            );
                        }
                        if checked {
                            out.material_changes.push(MaterialEntry {
                                commit: id.clone(),
                                number: 0,
                                old: last.settings.to_string(),
                                new: Some(g.settings.to_string()),
                                reason: "the settings that judge the goal changed".into(),
                                recorded: recorded.clone(),
                            });
                        }
                    }
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
    if let Some(tree) = last_goal_tree {
        let code = repo.tree_without(tree, &scope.goal_dir)?.to_string();
        out.mutation = ledger.mutation_view(&code);
    }
    out.chain_ok = ledger.verify_chain().is_ok()
        && last_goal_tree
            .map(|t| scope.ledger_at(t).map(|l| l.is_ok()))
            .transpose()?
            .unwrap_or(true);
    for f in out.tests_weakened.iter_mut() {
        // An assertion-free test a red run showed failing by name tests the change.
        if f.finding.kind == crate::surface::weaken::FindingKind::AssertionFree
            && crate::surface::judge::seen_failing_red(&ledger, &f.finding.test)
        {
            f.refuses = false;
        }
    }
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
        let surface = crate::surface::surface_of(&goal.settings)?;
        let (red, target) = crate::surface::tree_run::red_target(
            repo,
            span.base,
            last.tree,
            &scope.goal_dir,
            &surface,
        )?;
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
