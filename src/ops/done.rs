//! Complete the goal: `goal done`'s gate (the proof's one answer), the deslop pass, the two
//! commits, and the summary.

use serde::Serialize;

use crate::context::now_rfc3339;
use crate::deslop;
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::evidence::Ledger;
use crate::goal_file::{GoalFile, Status};
use crate::history;
use crate::proof::{Proof, Unaccepted};
use crate::repo::{DiffStat, Oid, Stage};
use crate::summary::TestCounts;
use crate::surface::judge::Weakened;
use crate::trailers::GoalAction;
use crate::workspace::Workspace;

mod red_gate;

use red_gate::red_gate;

pub struct Options {
    /// Clean-up check commands (empty: git config goal.deslop).
    pub deslop: Vec<String>,
    /// No warnings on stderr.
    /// Accept weakened tests (each recorded in a `Goal-Tests-Weakened` trailer) and a goal of
    /// guards only (`Goal-Guards-Only: confirmed`).
    pub confirm: bool,
    /// The `goal run` that calls it (`Goal-Run` on the completion), and what its agents used
    /// since its last commit (`Goal-Usage`).
    pub run: Option<String>,
    pub usage: Option<crate::usage::Usage>,
    /// The run's budget, when these are the run's first commits (`Goal-Budget`).
    pub budget: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct CriterionSummary {
    pub number: usize,
    pub text: String,
    pub evidence: String,
    pub tests: Option<TestCounts>,
    /// The command whose run proves it.
    pub command: Vec<String>,
    /// Proven by its pinned command (false: by a command chosen at verify time).
    pub pinned: bool,
    /// acceptance, guard or unpinned.
    pub kind: &'static str,
    /// The red witness's record id (acceptance criteria; null for guards and unpinned ones).
    pub red: Option<String>,
    /// A guard's base record id (its pin's run on the goal's base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The goal's base commit that run was made on (short), for people.
    #[serde(skip)]
    pub base_commit: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct DeslopCommand {
    pub command: String,
    pub exit_code: i32,
    pub passed: bool,
}

#[derive(Debug, Serialize)]
pub struct Summary {
    pub goal: String,
    pub iterations: u64,
    pub criteria: Vec<CriterionSummary>,
    pub files_changed: usize,
    pub insertions: usize,
    pub deletions: usize,
    pub elapsed_s: i64,
    pub deslop: Vec<deslop::Finding>,
    pub deslop_commands: Vec<DeslopCommand>,
    /// Every criterion removed or materially reworded in the goal's life.
    pub material_changes: Vec<history::MaterialEntry>,
    /// What the goal's diff does to its tests (weakening findings).
    pub tests_weakened: Vec<Weakened>,
    /// What the old and support exams found: the base's tests on the final code, the goal's
    /// tests with the base's configuration (refusing ones only when a person confirmed them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub exams: Vec<crate::surface::exam::Exam>,
    pub commits: Vec<String>,
    /// The git tree id the completion was proven on (the tree the evidence is bound to).
    pub tree: String,
    /// The settings that judge the goal that are not the defaults (GOAL.md's; `{}` when none).
    pub settings: serde_json::Value,
    /// The goal's change under mutation (absent while `mutants` is off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutation: Option<crate::mutants::Mutation>,
}

/// The goal completed: the summary and the two commits (complete, done).
pub struct Done {
    pub summary: Summary,
    pub commits: Vec<Oid>,
}

/// The red flag that a missing proof would be.
fn red_flag(why: &str) -> &'static str {
    if why.contains("no tests ran")
        || why.contains("no evidence")
        || why.contains("no test summary")
        || why.contains("cannot read this runner's summary")
    {
        "\"tests don't run but code looks fine\""
    } else if why.contains("stale") {
        "\"all criteria basically met, close enough\" (the evidence is for older code)"
    } else if why.contains("failed") || why.contains("exited") {
        "\"close enough\" (the last run failed)"
    } else {
        "\"close enough\""
    }
}

/// `goal done`'s refusal of a goal its proof does not accept, with every reason and the next
/// command.
fn refusal(
    ws: &Workspace,
    goal: &GoalFile,
    ledger: &Ledger,
    tree_text: &str,
    proof: &Proof,
    unaccepted: &Unaccepted,
) -> Error {
    let missing = match unaccepted {
        Unaccepted::NoCriteria => {
            return Error::not_proven(
                "the goal has no criteria: nothing proves it done",
                "add criteria with `goal criteria add \"<observable outcome>\"`",
            );
        }
        Unaccepted::BrokenChain(reason) => {
            return Error::not_proven(
                format!("evidence.jsonl does not verify: {reason}"),
                crate::store::broken_ledger_hint(&ws.evidence_rel()),
            );
        }
        Unaccepted::Unproven(_) => unproven_reasons(goal, ledger, tree_text, proof),
        // done's own red gate says these, after the red runs it may make itself.
        Unaccepted::Refused(why) => vec![why.clone()],
        Unaccepted::NoPassingTest => vec![
            "no passing test evidence on this tree: a check alone cannot complete a goal — red flag \"tests don't run but code looks fine\""
                .into(),
        ],
    };
    let numbers: Vec<usize> = match unaccepted {
        Unaccepted::Unproven(numbers) => numbers.clone(),
        _ => Vec::new(),
    };
    Error::not_proven(
        format!("the goal is not proven done:\n  {}", missing.join("\n  ")),
        still_to_prove(proof, &numbers),
    )
}

/// Why each criterion is not proven on the tree `tree_text`, with its red flag (unless the reason
/// names one) and the run that would prove it (unless the reason says it).
fn unproven_reasons(
    goal: &GoalFile,
    ledger: &Ledger,
    tree_text: &str,
    proof: &Proof,
) -> Vec<String> {
    let mut missing = Vec::new();
    for c in &goal.criteria {
        if let Err(why) = ledger.proof(c.number, &c.text, tree_text) {
            let rerun = proof
                .get(c.number)
                .and_then(|p| p.rerun_line())
                .filter(|l| !why.contains(l.as_str()))
                .map(|l| format!("; run `{l}`"))
                .unwrap_or_default();
            // A reason that names its red flag already is not given a second one.
            let flag = if why.contains("red flag") {
                String::new()
            } else {
                format!(" — red flag {}", red_flag(&why))
            };
            missing.push(format!(
                "criterion {} \"{}\": {why}{flag}{rerun}",
                c.number, c.text
            ));
        }
    }
    missing
}

/// The refusal's next command: the first unproven criterion's run, with the list of those still
/// to prove; a generic `goal verify` when none is named.
fn still_to_prove(proof: &Proof, numbers: &[usize]) -> String {
    match numbers.first() {
        Some(&n) => format!(
            "{} (criteria still to prove: {})",
            proof
                .get(n)
                .and_then(|p| p.rerun_line())
                .unwrap_or_else(|| format!("goal verify -c {n} -- <test command>")),
            numbers
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "goal verify -c <N> -- <test command>".to_string(),
    }
}

/// The goal's base as recorded at `goal init`: a history rewritten under the init commit is
/// refused unless a person confirms (a rebase they made), and then recorded with the completion.
fn base_rewritten(
    ws: &Workspace,
    init: Option<&crate::repo::CommitInfo>,
    confirm: bool,
) -> Result<Option<String>> {
    let Some(init) = init else {
        return Ok(None);
    };
    let Some(why) = history::base::rewritten(&ws.repo, ws.root(), &ws.goal_rel, init)? else {
        return Ok(None);
    };
    if confirm {
        return Ok(Some(why));
    }
    Err(Error::not_proven(
        why,
        format!(
            "put back the history the goal started from (`git log refs/goal/base/…` shows it), or {}",
            crate::person::offer("accept a rebase made on purpose", "goal done --confirm")
        ),
    ))
}

pub fn done(ws: &Workspace, options: Options) -> Result<Done> {
    let _all = crate::context::span("done: all");
    let step = crate::context::span("done: proof (goal, history, ledger, tree)");
    crate::ops::confirm::check_confirm(options.confirm, "goal done --confirm")?;
    ws.repo.ensure_idle()?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    // Under `goal mcp`, done runs pins only once a person approved every one.
    crate::ops::approve::require_approved(ws, &goal, &[], false)?;
    if goal.status == Status::Blocked {
        return Err(Error::Blocked {
            doing: "it cannot be completed until it is resumed".into(),
            hint: "see the Blocked section with `goal status`, then `goal resume`".into(),
        });
    }
    let init = history::init_commit(&ws.repo)?;
    let base_rewritten = base_rewritten(ws, init.as_ref(), options.confirm)?;
    let ledger = ws.ledger()?;
    let tree = ws.worktree_tree()?;
    let tree_text = tree.to_string();
    let proof = crate::proof::judge(&goal, &ledger, Some(&tree_text)).seen_from(&ws.here);
    let mut proven = match &proof.acceptance {
        Ok(()) => proven_criteria(&goal, &ledger, &tree_text),
        Err(unaccepted) => return Err(refusal(ws, &goal, &ledger, &tree_text, &proof, unaccepted)),
    };

    drop(step);
    // Red before green, guards, weakened tests: refused here, before anything is cleaned up.
    let step = crate::context::span("done: red gate");
    let gate = red_gate(&options, ws, &goal, &ledger, &mut proven)?;
    drop(step);
    let step = crate::context::span("done: mutation check, deslop, material changes");
    // The goal's change under mutation when its `mutants` setting is on.
    let mutation = crate::ops::mutants::done_check(ws, &goal, options.confirm)?;

    // Deslop: run the commands, scan what the goal added. Findings never block.
    let cleanup = deslop_pass(ws, &options, tree, init.as_ref().map(|c| c.tree))?;
    let material_changes =
        history::material_changes(&ws.repo, &ws.goal_dir, &ws.goal_rel, &ws.config)?;

    let completion = Completion {
        proven: &proven,
        material_changes: &material_changes,
        gate: &gate,
        mutation: mutation.as_ref(),
        base_rewritten: base_rewritten.as_deref(),
    };
    drop(step);
    let step = crate::context::span("done: commits");
    let commits = commits_made(ws, &mut goal, &options, &completion)?;
    drop(step);
    // The red runs' worktree served this goal: the next one makes its own.
    let step = crate::context::span("done: remove the kept worktrees");
    crate::repo::KeptWorktree::remove(ws.root());
    drop(step);

    let summary = Summary {
        settings: goal.settings.json(),
        goal: goal.goal.clone(),
        iterations: goal.iteration,
        criteria: proven,
        files_changed: cleanup.stat.files_changed,
        insertions: cleanup.stat.insertions,
        deletions: cleanup.stat.deletions,
        elapsed_s: elapsed_s(init.as_ref(), &goal),
        deslop: cleanup.findings,
        deslop_commands: cleanup.commands,
        material_changes,
        tests_weakened: gate.weakened,
        exams: gate.exams,
        commits: commits.iter().map(|c| c.to_string()).collect(),
        tree: tree_text,
        mutation: mutation.map(|m| m.mutation),
    };
    Ok(Done { summary, commits })
}

/// Each criterion with its proof on the tree `tree_text` (its red witness and a guard's base
/// are the red gate's to fill).
fn proven_criteria(goal: &GoalFile, ledger: &Ledger, tree_text: &str) -> Vec<CriterionSummary> {
    goal.criteria
        .iter()
        .filter_map(|c| {
            let record = ledger.proof(c.number, &c.text, tree_text).ok()?;
            Some(CriterionSummary {
                number: c.number,
                text: c.text.clone(),
                evidence: record.id.clone(),
                tests: record.tests,
                command: record.argv.clone(),
                pinned: crate::pin::argv(&c.text).is_some(),
                kind: crate::pin::kind_name(&c.text),
                red: None,
                base: None,
                base_commit: None,
            })
        })
        .collect()
}

/// What the deslop pass came to: each command's exit, the findings in what the goal added, and
/// the goal's diff stat.
struct Cleanup {
    commands: Vec<DeslopCommand>,
    findings: Vec<deslop::Finding>,
    stat: DiffStat,
}

/// The deslop pass: its commands run (refused when they changed the working tree `tree` the
/// evidence is bound to), then what the goal added since `base` scanned, and its diff stat.
fn deslop_pass(ws: &Workspace, options: &Options, tree: Oid, base: Option<Oid>) -> Result<Cleanup> {
    let commands = deslop_commands_run(ws, options)?;
    // The deslop commands may have changed files (formatters): the gate below re-checks the tree.
    let final_tree = ws.worktree_tree()?;
    if final_tree != tree {
        return Err(Error::not_proven(
            "the deslop commands changed the working tree, so the evidence no longer matches it",
            "verify the criteria again on the cleaned-up code, then run `goal done`",
        ));
    }
    // Diffs need real trees: the goal folder is left out by path.
    let full = ws.worktree_tree_full()?;
    let findings = deslop::scan(&ws.repo.added_lines(base, full, &ws.goal_dir)?);
    let stat = match base {
        Some(b) => ws.repo.diff_stat(Some(b), full, &ws.goal_dir)?,
        None => DiffStat::default(),
    };
    Ok(Cleanup {
        commands,
        findings,
        stat,
    })
}

/// Each deslop command (`--deslop`, else git config goal.deslop) run with `sh -c`: its exit code,
/// warned about when it fails or cannot run (127). Only an interrupt stops `goal done` here.
fn deslop_commands_run(ws: &Workspace, options: &Options) -> Result<Vec<DeslopCommand>> {
    let commands = if options.deslop.is_empty() {
        ws.config.deslop.clone()
    } else {
        options.deslop.clone()
    };
    let mut deslop_commands = Vec::new();
    for command in &commands {
        let argv = vec!["sh".to_string(), "-c".to_string(), command.clone()];
        let exit_code = match crate::child::run_teed(&argv, ws.root(), true) {
            Ok((code, _)) => code,
            Err(e @ Error::Interrupted { .. }) => return Err(e),
            Err(e) => {
                crate::context::note(format!(
                    "warning: deslop command `{command}` could not run: {e}"
                ));
                127
            }
        };
        if exit_code != 0 {
            crate::context::note(format!(
                "warning: deslop command `{command}` exited {exit_code} (noted, not blocking)"
            ));
        }
        deslop_commands.push(DeslopCommand {
            command: command.clone(),
            exit_code,
            passed: exit_code == 0,
        });
    }
    Ok(deslop_commands)
}

/// What the completion commit records beside the goal: the proven criteria's evidence, the
/// material changes, and what the red gate and the mutation check had confirmed.
struct Completion<'a> {
    proven: &'a [CriterionSummary],
    material_changes: &'a [history::MaterialEntry],
    gate: &'a red_gate::RedGate,
    mutation: Option<&'a crate::ops::mutants::DoneMutation>,
    /// The base found rewritten, confirmed by a person (recorded as a confirmed finding).
    base_rewritten: Option<&'a str>,
}

/// The two commits, made together once both pass the user's hooks: status complete with every
/// criterion ticked (unless the goal is complete already), then the goal files removed.
fn commits_made(
    ws: &Workspace,
    goal: &mut GoalFile,
    options: &Options,
    completion: &Completion,
) -> Result<Vec<Oid>> {
    // Commit 1: status complete, every criterion ticked, with the work it proves.
    // Both commits pass the user's hooks before either is made.
    let mut pending = Vec::new();
    if goal.status != Status::Complete {
        pending.push(complete_commit(ws, goal, options, completion)?);
    }
    // Commit 2: the goal files go; the history keeps them.
    let mut commit = Commit::new(GoalAction::Done, format!("done \"{}\"", goal.goal));
    if pending.is_empty() {
        commit.run.clone_from(&options.run);
        commit.usage = options.usage;
        commit.budget.clone_from(&options.budget);
    }
    commit.other = vec![(ws.evidence_rel(), None), (ws.retry_rel(), None)];
    commit.status = Some("complete");
    pending.push(commit.prepare(ws, None, goal)?);
    ws.commit_all(pending)
}

/// Commit 1, prepared: every criterion ticked, the status complete, with the trailers of what
/// proved it (evidence, material changes, confirmed weakenings, guards only, mutants) and the run's.
fn complete_commit(
    ws: &Workspace,
    goal: &mut GoalFile,
    options: &Options,
    completion: &Completion,
) -> Result<crate::door::Pending> {
    for n in 1..=goal.criteria.len() {
        goal.set_passed(n, true);
    }
    goal.set_status(Status::Complete);
    goal.set_updated(&now_rfc3339());
    let mut commit = Commit::new(GoalAction::Complete, format!("complete \"{}\"", goal.goal));
    commit.stage = Stage::All;
    commit.body = completion
        .material_changes
        .iter()
        .map(material_line)
        .collect();
    commit.evidence = completion
        .proven
        .iter()
        .map(|c| c.evidence.clone())
        .collect();
    commit.evidence.dedup();
    commit.tests_weakened = completion
        .gate
        .weakened
        .iter()
        .filter(|w| w.confirmed)
        .map(Weakened::describe)
        .chain(completion.base_rewritten.map(str::to_string))
        .chain(
            completion
                .gate
                .exams
                .iter()
                .filter(|e| e.confirmed)
                .map(crate::surface::exam::Exam::describe),
        )
        .collect();
    commit.tests_changed = completion
        .gate
        .exams
        .iter()
        .filter(|e| !e.refuses)
        .map(crate::surface::exam::Exam::describe)
        .collect();
    commit.guards_only = completion.gate.guards_only;
    commit.mutants_confirmed = completion
        .mutation
        .map(|m| m.confirmed.clone())
        .unwrap_or_default();
    commit.run.clone_from(&options.run);
    commit.usage = options.usage;
    commit.budget.clone_from(&options.budget);
    commit.prepare(ws, Some(goal), goal)
}

/// Seconds from the goal's start (its init commit, else its `created` date) to now, never
/// negative; 0 when neither is known.
fn elapsed_s(init: Option<&crate::repo::CommitInfo>, goal: &GoalFile) -> i64 {
    let started = init.map(|c| c.time).or_else(|| {
        goal.created
            .as_deref()
            .and_then(|c| chrono::DateTime::parse_from_rfc3339(c).ok())
            .map(|d| d.timestamp())
    });
    let now = chrono::DateTime::parse_from_rfc3339(&now_rfc3339())
        .map(|d| d.timestamp())
        .unwrap_or_default();
    started.map_or(0, |s| (now - s).max(0))
}

/// One material change in words: old → new, commit, reason.
pub fn material_line(m: &history::MaterialEntry) -> String {
    format!(
        "material change in {}: {}",
        &m.commit[..10.min(m.commit.len())],
        m.describe()
    )
}
