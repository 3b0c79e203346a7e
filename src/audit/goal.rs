//! One goal audited from its commits: each commit checked as the gate's hook would have (its
//! trailers against its GOAL.md, its evidence chain, its ticks, its material changes), then each
//! criterion's deciding record, its red witness and the weakening findings of the whole change.

use std::collections::{HashMap, HashSet};

use super::goal_findings;
use super::{CommitCheck, CriterionAudit, GoalAudit, Problem, RunOutcome, Scope, Span};
use crate::error::Result;
use crate::evidence::Ledger;
use crate::goal_file::GoalFile;
use crate::history::MaterialEntry;
use crate::material;
use crate::pin;
use crate::repo::{CommitInfo, Oid};
use crate::trailers::{GoalAction, GoalTrailers};

/// Check every commit of `span` inside `inside`, and find each criterion's deciding record.
pub fn audit_goal(scope: &Scope, span: &Span, inside: &HashSet<Oid>) -> Result<GoalAudit> {
    let mut out = empty_audit(span);
    let mut walk = Walk::default();
    for (i, info) in span.commits.iter().enumerate() {
        walk.commit(scope, info, i == 0, inside.contains(&info.id), &mut out)?;
    }
    let Some(goal) = walk.last_goal.take() else {
        return Ok(out);
    };
    if span.has_init
        && let Some(last) = span.commits.last()
    {
        (out.tests_weakened, out.tests_unreadable) = weakening(scope, span, last, &goal)?;
    }
    out.goal = goal.goal.clone();
    out.iteration = goal.iteration;
    out.status = match walk.ended.as_deref() {
        Some("abandoned") => "abandoned".into(),
        _ => goal.status.as_str().into(),
    };
    out.hand_made_status =
        walk.ended.is_none() && walk.made_status.as_deref() != Some(out.status.as_str());
    let ledger = last_ledger(scope, walk.last_goal_tree, &mut out)?;
    for f in out.tests_weakened.iter_mut() {
        // An assertion-free test a red run showed failing by name tests the change.
        if f.finding.kind == crate::surface::weaken::FindingKind::AssertionFree
            && crate::surface::judge::seen_failing_red(&ledger, &f.finding.test)
        {
            f.refuses = false;
        }
    }
    for c in &goal.criteria {
        let at = walk.ticked_at.get(&c.text).copied().filter(|_| c.passed);
        let audit = criterion_audit(c, at, &out.trees, &ledger);
        out.criteria.push(audit);
    }
    red_witnesses(scope, span, &goal, &ledger, &mut out)?;
    base_pinned(scope, span, &mut out)?;
    Ok(out)
}

/// The goal's init commit still sits on the base recorded at `goal init` (`base-rewritten`
/// otherwise); a goal whose base was not recorded is not checked.
fn base_pinned(scope: &Scope, span: &Span, out: &mut GoalAudit) -> Result<()> {
    let Some(init) = span.commits.first().filter(|_| span.has_init) else {
        return Ok(());
    };
    let found =
        crate::history::base::rewritten(scope.repo, scope.repo.root(), &scope.goal_rel, init)?;
    if let Some(why) = found {
        out.problems.push(Problem {
            commit: Some(init.id.to_string()),
            criterion: None,
            line: None,
            message: why,
        });
    }
    Ok(())
}

/// The audit before any commit is read.
fn empty_audit(span: &Span) -> GoalAudit {
    GoalAudit {
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
    }
}

/// What the walk along the goal's commits carries from one commit to the next.
#[derive(Default)]
struct Walk {
    last_goal: Option<GoalFile>,
    last_goal_tree: Option<Oid>,
    last_blob: Option<Oid>,
    last_evidence: Option<Oid>,
    /// Each ticked criterion's text → the commit that ticked it.
    ticked_at: HashMap<String, Oid>,
    ended: Option<String>,
    /// The status the last commit made by `goal` gave the goal.
    made_status: Option<String>,
}

/// One commit as the audit reads it.
struct Seen<'a> {
    info: &'a CommitInfo,
    code: String,
    trailers: Option<GoalTrailers>,
    action: Option<GoalAction>,
    /// GOAL.md changed in this commit (or it is the first).
    changed: bool,
    checked: bool,
}

impl Walk {
    /// Read one commit: check it (when `checked`, inside the range asked for) and carry on.
    fn commit(
        &mut self,
        scope: &Scope,
        info: &CommitInfo,
        first: bool,
        checked: bool,
        out: &mut GoalAudit,
    ) -> Result<()> {
        let repo = scope.repo;
        let code = repo.tree_without(info.tree, &scope.goal_dir)?.to_string();
        out.trees.push((info.id, code.clone()));
        let blob = repo.blob_id(info.tree, &scope.goal_rel)?;
        let evidence_blob = repo.blob_id(info.tree, &scope.evidence_rel)?;
        let changed = blob != self.last_blob || first;
        let evidence_changed = evidence_blob != self.last_evidence;
        self.last_blob = blob;
        self.last_evidence = evidence_blob;
        let trailers = GoalTrailers::read(info);
        let action = trailers.as_ref().and_then(|t| t.action);
        if let Some(t) = trailers.as_ref().filter(|_| action.is_some()) {
            self.made_status = Some(t.status.clone());
        }
        let id = info.id.to_string();
        if let (true, Some(t)) = (checked, trailers.as_ref()) {
            out.confirmations.extend(super::Confirmation::of(&id, t));
        }
        let seen = Seen {
            info,
            code,
            trailers,
            action,
            changed,
            checked,
        };
        let mut problems: Vec<Problem> = Vec::new();
        self.judge(scope, &seen, evidence_changed, &mut problems, out)?;
        if checked {
            let check = CommitCheck {
                commit: id,
                subject: info.subject().to_string(),
                action: action.map(|a| a.as_str().to_string()),
                hand_made: action.is_none() && (changed || evidence_changed),
                hooks_skipped: seen.trailers.as_ref().is_some_and(|t| t.hooks_skipped),
                problems: problems.iter().map(|p| p.message.clone()).collect(),
            };
            out.problems.extend(problems);
            if action.is_some() || check.hand_made {
                out.commits.push(check);
            }
        }
        Ok(())
    }

    /// The problems of one commit: its GOAL.md, trailers, evidence, ticks and material changes.
    fn judge(
        &mut self,
        scope: &Scope,
        seen: &Seen,
        evidence_changed: bool,
        problems: &mut Vec<Problem>,
        out: &mut GoalAudit,
    ) -> Result<()> {
        let commit = seen.info.id.to_string();
        let mut problem = |criterion: Option<(usize, usize)>, message: String| {
            problems.push(Problem {
                commit: Some(commit.clone()),
                criterion: criterion.map(|(n, _)| n),
                line: criterion.map(|(_, l)| l),
                message,
            });
        };
        let goal = match scope.goal_at(seen.info.tree)? {
            None => None,
            Some(Ok(g)) => Some(g),
            Some(Err(why)) => {
                problem(None, format!("GOAL.md does not parse: {why}"));
                None
            }
        };
        match (&seen.trailers, &goal) {
            (Some(t), Some(g)) if seen.action.is_some() => {
                for why in trailer_mismatches(t, g) {
                    problem(None, why);
                }
            }
            (t, None) if self.last_blob.is_none() && seen.changed && self.last_goal.is_some() => {
                let status = t.as_ref().map(|t| t.status.as_str());
                if !matches!(status, Some("complete" | "abandoned")) {
                    problem(
                        None,
                        "deletes the goal files without a `Goal-Status: complete|abandoned` trailer"
                            .into(),
                    );
                }
                self.ended = status.map(str::to_string);
            }
            _ => {}
        }
        let ledger = scope.ledger_at(seen.info.tree)?;
        if evidence_changed && let Some(why) = chain_problem(&ledger) {
            problem(None, why);
        }
        let Some(g) = goal else { return Ok(()) };
        if seen.changed {
            for (criterion, why) in self.ticks(seen, &g, &ledger) {
                problem(criterion, why);
            }
            if let Some(last) = &self.last_goal {
                for why in material_changes(seen, last, &g, out) {
                    problem(None, why);
                }
            }
        }
        self.last_goal = Some(g);
        self.last_goal_tree = Some(seen.info.tree);
        // A restore brings an abandoned goal back.
        self.ended = None;
        Ok(())
    }

    /// The criteria this commit ticked, remembered; those ticked without passing evidence on
    /// its tree, judged by the gate's own rules as its hook would have (a ledger that does not
    /// parse proves none of the ticks: its Err is why it does not, a finding of the audit, not a
    /// failure of it).
    fn ticks(
        &mut self,
        seen: &Seen,
        g: &GoalFile,
        ledger: &std::result::Result<Ledger, String>,
    ) -> Vec<(Option<(usize, usize)>, String)> {
        let before: HashSet<&str> = self
            .last_goal
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
            self.ticked_at.insert(c.text.clone(), seen.info.id);
        }
        let unproven: Vec<(usize, String)> = match ledger {
            _ if newly.is_empty() => Vec::new(),
            Ok(l) => unproven_ticks(self.last_goal.as_ref(), g, l, &seen.code),
            Err(why) => newly.iter().map(|c| (c.number, why.clone())).collect(),
        };
        self.ticked_at
            .retain(|text, _| g.criteria.iter().any(|c| c.passed && &c.text == text));
        unproven
            .into_iter()
            .map(|(number, why)| {
                let line = g.criterion(number).map_or(0, |c| c.line_number());
                (
                    Some((number, line)),
                    format!(
                        "criterion {number} is ticked without passing evidence on this commit's tree: {why}"
                    ),
                )
            })
            .collect()
    }
}

/// What the trailers say that the committed GOAL.md does not.
fn trailer_mismatches(t: &GoalTrailers, g: &GoalFile) -> Vec<String> {
    let mut out = Vec::new();
    if t.status != g.status.as_str() {
        out.push(format!(
            "Goal-Status says {} but the committed GOAL.md says {}",
            t.status, g.status
        ));
    }
    if (t.passing, t.total) != (g.passing_count(), g.criteria.len()) {
        out.push(format!(
            "Goal-Passing says {}/{} but the committed GOAL.md ticks {}/{}",
            t.passing,
            t.total,
            g.passing_count(),
            g.criteria.len()
        ));
    }
    if t.iteration != g.iteration {
        out.push(format!(
            "Goal-Iteration says {} but the committed GOAL.md says iteration {}",
            t.iteration, g.iteration
        ));
    }
    out
}

/// Why a commit's evidence.jsonl proves nothing, if it does not parse (the ledger's Err: why,
/// as the audit reports it) or its chain breaks.
fn chain_problem(ledger: &std::result::Result<Ledger, String>) -> Option<String> {
    match ledger {
        Err(why) => Some(format!("evidence.jsonl does not parse: {why}")),
        Ok(l) => l
            .verify_chain()
            .err()
            .map(|why| format!("the evidence chain does not verify: {why}")),
    }
}

/// The criteria the gate refuses as ticked without proof on `code`.
fn unproven_ticks(
    last: Option<&GoalFile>,
    g: &GoalFile,
    ledger: &Ledger,
    code: &str,
) -> Vec<(usize, String)> {
    crate::gate::evaluate(&crate::gate::GateInput {
        head_goal: last,
        staged_goal: Ok(Some(g)),
        ledger,
        tree: code,
        message: None,
    })
    .into_iter()
    .filter_map(|v| match v {
        crate::gate::Violation::Unproven { number, why, .. } => Some((number, why)),
        _ => None,
    })
    .collect()
}

/// The material changes from `last` to `g` (settings, criteria reworded or removed): each
/// listed (in the range asked for), and a problem when the commit records none.
fn material_changes(
    seen: &Seen,
    last: &GoalFile,
    g: &GoalFile,
    out: &mut GoalAudit,
) -> Vec<String> {
    let recorded = seen
        .info
        .trailer("Goal-Material-Change")
        .map(str::to_string);
    let mut entries = Vec::new();
    if last.settings != g.settings && !last.settings.only_stricter(&g.settings) {
        entries.push((
            MaterialEntry {
                commit: seen.info.id.to_string(),
                number: 0,
                old: last.settings.to_string(),
                new: Some(g.settings.to_string()),
                reason: "the settings that judge the goal changed".into(),
                recorded: recorded.clone(),
            },
            format!(
                "the settings that judge the goal were changed ({} → {}) without a Goal-Material-Change record",
                last.settings, g.settings
            ),
        ));
    }
    for m in material::compare(&last.criteria_texts(), &g.criteria_texts()) {
        let what = if m.new.is_some() {
            "materially reworded"
        } else {
            "removed"
        };
        let why = format!(
            "criterion {} \"{}\" was {what} without a Goal-Material-Change record ({})",
            m.number, m.text, m.reason
        );
        let entry = MaterialEntry {
            commit: seen.info.id.to_string(),
            number: m.number,
            old: m.text,
            new: m.new,
            reason: m.reason,
            recorded: recorded.clone(),
        };
        entries.push((entry, why));
    }
    let mut problems = Vec::new();
    for (entry, why) in entries {
        if recorded.is_none() {
            problems.push(why);
        }
        if seen.checked {
            out.material_changes.push(entry);
        }
    }
    problems
}

/// The weakening findings of the goal's whole change (base → last commit), with what its
/// commits confirmed.
fn weakening(
    scope: &Scope,
    span: &Span,
    last: &CommitInfo,
    goal: &GoalFile,
) -> Result<(
    Vec<super::WeakenedFinding>,
    Vec<crate::surface::weaken::Unreadable>,
)> {
    let confirmed: Vec<String> = span
        .commits
        .iter()
        .flat_map(|c| crate::repo::parse_trailers(&c.message))
        .filter(|(k, _)| k.eq_ignore_ascii_case("Goal-Tests-Weakened"))
        .map(|(_, v)| v)
        .collect();
    goal_findings(
        scope.repo,
        &scope.goal_dir,
        span.base,
        last.tree,
        goal,
        &confirmed,
    )
}

/// The ledger of the goal's last state (its mutation record shown, its chain judged).
fn last_ledger(scope: &Scope, tree: Option<Oid>, out: &mut GoalAudit) -> Result<Ledger> {
    let ledger = match tree {
        Some(tree) => scope.ledger_at(tree)?.unwrap_or_default(),
        None => Ledger::default(),
    };
    if let Some(tree) = tree {
        let code = scope.repo.tree_without(tree, &scope.goal_dir)?.to_string();
        out.mutation = ledger.mutation_view(&code);
    }
    out.chain_ok = ledger.verify_chain().is_ok()
        && tree
            .map(|t| scope.ledger_at(t).map(|l| l.is_ok()))
            .transpose()?
            .unwrap_or(true);
    Ok(ledger)
}

/// One criterion of the last state: its claim (ticked at `at`) and the record that decides it.
fn criterion_audit(
    c: &crate::goal_file::Criterion,
    at: Option<Oid>,
    trees: &[(Oid, String)],
    ledger: &Ledger,
) -> CriterionAudit {
    let mut audit = CriterionAudit::new(c.number, &c.text, c.line_number(), c.passed);
    let Some(commit) = at else {
        audit.flag("open");
        audit.why = Some("not ticked: no claim to check".into());
        return audit;
    };
    audit.commit = Some(commit.to_string());
    audit.ticked_at = Some(commit);
    let tree = trees
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
    audit
}

/// Red before green: each acceptance criterion of the last state has a witness (a failing run
/// of its pin on the red tree of that state); a finished goal without one fails the audit.
fn red_witnesses(
    scope: &Scope,
    span: &Span,
    goal: &GoalFile,
    ledger: &Ledger,
    out: &mut GoalAudit,
) -> Result<()> {
    let (true, Some(last)) = (span.has_init, span.commits.last()) else {
        return Ok(());
    };
    let surface = crate::surface::surface_of(&goal.settings)?;
    let (red, target) = crate::surface::tree_run::red_target(
        scope.repo,
        span.base,
        last.tree,
        &scope.goal_dir,
        &surface,
    )?;
    // (A goal started on an unborn branch has no base commit: the red worktree is made at its
    // last commit, with the red tree checked out.)
    out.red_tree = Some((span.base.unwrap_or(last.id), red.tree));
    let finished = out.status == "complete";
    // A guard's run on the base, as `goal done` recorded it (the base tree without the goal
    // folder, as the records name it).
    let base_tree = match span.base {
        Some(b) => Some(
            scope
                .repo
                .tree_without(scope.repo.commit_info(b)?.tree, &scope.goal_dir)?
                .to_string(),
        ),
        None => None,
    };
    for (audit, c) in out.criteria.iter_mut().zip(&goal.criteria) {
        if let Some(tree) = &base_tree
            && let Some(r) =
                crate::surface::judge::guard_base_recorded(ledger, c.number, &c.text, tree)
        {
            audit.base = Some(RunOutcome::of(r));
        }
        audit.red = crate::surface::judge::red_state(ledger, c.number, &c.text, &target);
        audit.red_recorded = audit
            .red
            .as_ref()
            .and_then(|r| r.record.as_deref())
            .and_then(|id| ledger.records.iter().find(|r| r.id == id))
            .map(RunOutcome::of);
        let witnessed = audit
            .red
            .as_ref()
            .is_none_or(|r| r.state == crate::surface::judge::RedState::Witnessed);
        if finished && !witnessed {
            audit.flag("no-red-witness");
        }
    }
    Ok(())
}
