//! Complete the goal: `goal done`'s gate (the proof's one answer), the deslop pass, the two
//! commits, and the summary.

use serde::Serialize;

use crate::context::now_rfc3339;
use crate::deslop;
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::evidence::{Ledger, Record};
use crate::goal_file::{GoalFile, Status};
use crate::history;
use crate::pin::{self, Kind};
use crate::proof::{Proof, Unaccepted};
use crate::repo::{DiffStat, Oid, Stage};
use crate::summary::TestCounts;
use crate::surface::judge::{self, RedOutcome, RedState, Weakened};
use crate::surface::weaken::FindingKind;
use crate::test_names::{self as names, RunTests};
use crate::trailers::GoalAction;
use crate::workspace::Workspace;

pub struct Options {
    /// Clean-up check commands (empty: git config goal.deslop).
    pub deslop: Vec<String>,
    /// No warnings on stderr.
    pub quiet: bool,
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
    pub commits: Vec<String>,
    /// The git tree id the completion was proven on (the tree the evidence is bound to).
    pub tree: String,
    /// The settings that judge the goal that are not the defaults (GOAL.md's; `{}` when none).
    pub settings: serde_json::Value,
    /// The goal's change under mutation (§20; absent while `mutants` is off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutation: Option<crate::mutants::Mutation>,
}

/// The goal completed: the summary and the two commits (complete, done).
pub struct Done {
    pub summary: Summary,
    pub commits: Vec<Oid>,
}

/// The seeds' red flag that a missing proof would be.
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
    let mut missing = Vec::new();
    match unaccepted {
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
        Unaccepted::Unproven(_) => {
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
        }
        // done's own red gate says these, after the red runs it may make itself.
        Unaccepted::Refused(why) => missing.push(why.clone()),
        Unaccepted::NoPassingTest => missing.push(
            "no passing test evidence on this tree: a check alone cannot complete a goal — red flag \"tests don't run but code looks fine\""
                .into(),
        ),
    }
    let numbers: Vec<usize> = match unaccepted {
        Unaccepted::Unproven(numbers) => numbers.clone(),
        _ => Vec::new(),
    };
    Error::not_proven(
        format!("the goal is not proven done:\n  {}", missing.join("\n  ")),
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
        },
    )
}

pub fn done(ws: &Workspace, options: Options) -> Result<Done> {
    crate::ops::confirm::check_confirm(options.confirm, "goal done --confirm")?;
    ws.repo.ensure_idle()?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    if goal.status == Status::Blocked {
        return Err(Error::Blocked {
            doing: "it cannot be completed until it is resumed".into(),
            hint: "see the Blocked section with `goal status`, then `goal resume`".into(),
        });
    }
    let ledger = ws.ledger()?;
    let tree = ws.worktree_tree()?;
    let tree_text = tree.to_string();
    let proof = crate::proof::judge(&goal, &ledger, Some(&tree_text)).seen_from(&ws.here);
    let mut proven = match &proof.acceptance {
        Ok(()) => goal
            .criteria
            .iter()
            .filter_map(|c| {
                let record = ledger.proof(c.number, &c.text, &tree_text).ok()?;
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
            .collect::<Vec<_>>(),
        Err(unaccepted) => return Err(refusal(ws, &goal, &ledger, &tree_text, &proof, unaccepted)),
    };

    // Red before green, guards, weakened tests: refused here, before anything is cleaned up.
    let gate = red_gate(&options, ws, &goal, &ledger, &mut proven)?;
    // The goal's change under mutation (§20), when its `mutants` setting is on.
    let mutation = crate::ops::mutants::done_check(ws, &goal, options.quiet, options.confirm)?;

    // Deslop: run the commands, scan what the goal added. Findings never block.
    let init = history::init_commit(&ws.repo)?;
    let base = init.as_ref().map(|c| c.tree);
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
                super::note(
                    options.quiet,
                    format!("warning: deslop command `{command}` could not run: {e}"),
                );
                127
            }
        };
        if exit_code != 0 {
            super::note(
                options.quiet,
                format!(
                    "warning: deslop command `{command}` exited {exit_code} (noted, not blocking)"
                ),
            );
        }
        deslop_commands.push(DeslopCommand {
            command: command.clone(),
            exit_code,
            passed: exit_code == 0,
        });
    }
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

    let material_changes =
        history::material_changes(&ws.repo, &ws.goal_dir, &ws.goal_rel, &ws.config)?;

    // Commit 1: status complete, every criterion ticked, with the work it proves.
    // Both commits pass the user's hooks before either is made.
    let mut pending = Vec::new();
    if goal.status != Status::Complete {
        for n in 1..=goal.criteria.len() {
            goal.set_passed(n, true);
        }
        goal.set_status(Status::Complete);
        goal.set_updated(&now_rfc3339());
        let mut commit = Commit::new(GoalAction::Complete, format!("complete \"{}\"", goal.goal));
        commit.stage = Stage::All;
        commit.body = material_changes.iter().map(material_line).collect();
        commit.evidence = proven.iter().map(|c| c.evidence.clone()).collect();
        commit.evidence.dedup();
        commit.tests_weakened = gate
            .weakened
            .iter()
            .filter(|w| w.confirmed)
            .map(Weakened::describe)
            .collect();
        commit.guards_only = gate.guards_only;
        commit.mutants_confirmed = mutation
            .as_ref()
            .map(|m| m.confirmed.clone())
            .unwrap_or_default();
        commit.run.clone_from(&options.run);
        commit.usage = options.usage;
        commit.budget.clone_from(&options.budget);
        pending.push(commit.prepare(ws, Some(&goal), &goal)?);
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
    pending.push(commit.prepare(ws, None, &goal)?);
    let commits = ws.commit_all(pending)?;
    // The red runs' worktree served this goal: the next one makes its own.
    crate::repo::KeptWorktree::remove(ws.root());

    let started = init.as_ref().map(|c| c.time).or_else(|| {
        goal.created
            .as_deref()
            .and_then(|c| chrono::DateTime::parse_from_rfc3339(c).ok())
            .map(|d| d.timestamp())
    });
    let now = chrono::DateTime::parse_from_rfc3339(&now_rfc3339())
        .map(|d| d.timestamp())
        .unwrap_or_default();
    let summary = Summary {
        settings: goal.settings.json(),
        goal: goal.goal.clone(),
        iterations: goal.iteration,
        criteria: proven,
        files_changed: stat.files_changed,
        insertions: stat.insertions,
        deletions: stat.deletions,
        elapsed_s: started.map_or(0, |s| (now - s).max(0)),
        deslop: findings,
        deslop_commands,
        material_changes,
        tests_weakened: gate.weakened,
        commits: commits.iter().map(|c| c.to_string()).collect(),
        tree: tree_text,
        mutation: mutation.map(|m| m.mutation),
    };
    Ok(Done { summary, commits })
}

/// What the red gate let through: the findings (confirmed or shown) and a confirmed guards-only goal.
struct RedGate {
    weakened: Vec<Weakened>,
    guards_only: bool,
}

fn run_tests(record: &Record) -> RunTests<'_> {
    RunTests {
        counts: record.tests,
        names: record.names.as_ref(),
    }
}

/// The rules of red before green over a goal whose criteria are all proven: findings in the goal's
/// diff over the test surface, a goal of guards only, a red witness for each acceptance criterion
/// (found, or made by running its red run here), green covering red, each guard holding against
/// its base run (found, or made here). Fills `proven[].red`; refuses (exit 1) naming each failure.
fn red_gate(
    options: &Options,
    ws: &Workspace,
    goal: &GoalFile,
    ledger: &Ledger,
    proven: &mut [CriterionSummary],
) -> Result<RedGate> {
    let (quiet, confirm) = (options.quiet, options.confirm);
    let texts: Vec<&str> = goal.criteria.iter().map(|c| c.text.as_str()).collect();
    let pins: Vec<String> = texts
        .iter()
        .filter_map(|t| pin::parse(t).and_then(|p| p.ok()).map(|p| p.command))
        .collect();
    let pinned = goal.criteria.iter().any(|c| pin::kind(&c.text).is_some());
    if history::init_commit(&ws.repo)?.is_none() && !pinned {
        // A goal with no `goal init` in its history (brought back by hand) and no pin: there is
        // no base to compare with, and nothing a red run could check.
        return Ok(RedGate {
            weakened: Vec::new(),
            guards_only: false,
        });
    }
    let mut place = crate::ops::red::Place::of(ws)?;
    place.locked = true;
    // Findings: the goal's diff, base tree → the working tree, over the test surface.
    let found = crate::ops::red::findings(ws, &place)?;
    for u in &found.unreadable {
        super::note(
            quiet,
            format!(
                "warning: {} could not be read for weakened tests: {}",
                u.file, u.reason
            ),
        );
    }
    let mut weakened = judge::weakened(&found.findings, &pins, confirm);
    for w in weakened.iter().filter(|w| !w.refuses) {
        super::note(
            quiet,
            format!(
                "the goal changes a test: {} (red before green judges it)",
                w.describe()
            ),
        );
    }
    let mut refusals: Vec<String> = Vec::new();
    let mut hint: Option<String> = None;
    // An assertion-free test that its red run shows failing by name (and green passing) tests the
    // change whatever its body looks like: those wait for the red runs below.
    let mut free: Vec<usize> = (0..weakened.len())
        .filter(|&i| {
            let w = &weakened[i];
            w.kind == FindingKind::AssertionFree && w.refuses && !w.confirmed
        })
        .collect();
    let unconfirmed: Vec<&Weakened> = weakened
        .iter()
        .filter(|w| w.refuses && !w.confirmed)
        .collect();
    if unconfirmed.len() > free.len() {
        for w in &unconfirmed {
            refusals.push(format!("the goal weakens its tests: {}", w.describe()));
        }
        let hint = format!(
            "restore the tests (the bug stays until a test shows it fixed), or {} (recorded in a Goal-Tests-Weakened trailer)",
            crate::person::offer("accept each weakening", "goal done --confirm")
        );
        let what: Vec<String> = unconfirmed.iter().map(|w| w.describe()).collect();
        return Err(Error::for_person(
            format!("the goal is not proven done:\n  {}", refusals.join("\n  ")),
            hint,
            format!("the weakened tests ({})", what.join("; ")),
        ));
    }
    let guards_only = judge::guards_only(&texts);
    if guards_only && !confirm {
        return Err(Error::for_person(
            "every criterion of the goal is a guard: guards show nothing broke, not that the change works",
            format!(
                "add an acceptance criterion whose test fails before the change: `goal criteria add \"<outcome>\" --verify \"<test command>\"`, or, for a refactoring, {}",
                crate::person::offer("confirm", "goal done --confirm")
            ),
            "a goal whose criteria are all guards (a refactoring)",
        ));
    }
    for c in proven.iter_mut() {
        let text = &goal.criteria[c.number - 1].text;
        let Some(Ok(p)) = pin::parse(text) else {
            continue;
        };
        let Some(green) = ledger.find(&c.evidence) else {
            continue;
        };
        let n = c.number;
        match p.kind {
            Kind::Acceptance => {
                let state = judge::red_state(ledger, n, text, &place.target);
                let (witness, outcome) = match state {
                    Some(judge::Red {
                        state: RedState::Witnessed,
                        record: Some(id),
                    }) => (ledger.find(&id).cloned(), RedOutcome::Red),
                    Some(judge::Red {
                        state: RedState::PassesOnBase,
                        ..
                    }) => (None, RedOutcome::PassesOnBase),
                    Some(judge::Red {
                        state: RedState::Inconclusive,
                        record,
                    }) => (
                        record.and_then(|id| ledger.find(&id).cloned()),
                        RedOutcome::Inconclusive,
                    ),
                    _ => {
                        if !quiet {
                            crate::context::eprint_line(format!(
                                "criterion {n}: checking that its tests fail on the code before the goal (base {})…",
                                place.base_short()
                            ));
                        }
                        crate::ops::red::red_run(quiet, ws, &place, n, text, &p.argv, &green.junit)?
                    }
                };
                let environment = witness.as_ref().and_then(judge::environment_of);
                if let Some(why) = judge::outcome_message(n, &outcome, environment.as_deref()) {
                    refusals.push(why);
                    hint.get_or_insert_with(|| match outcome {
                        RedOutcome::Inconclusive if environment.is_some() => format!(
                            "make the pin's program and runner available where `goal` runs it (the red run sees the working tree's environment and dependency folders), then `goal verify --red -c {n}`"
                        ),
                        RedOutcome::Inconclusive => format!(
                            "run its pin before the fix — with the tests written and the code not yet changed, `goal verify -c {n}` failing is a witness; `goal verify --red -c {n}` shows the red run"
                        ),
                        _ => format!(
                            "write a test that fails on the code before the goal and passes now (see it with `goal verify --red -c {n}`)"
                        ),
                    });
                    continue;
                }
                let Some(witness) = witness else { continue };
                if green.tree == place.target.tree
                    || green.tree_after.as_deref() == Some(place.target.tree.as_str())
                    || same_code_as_red(ws, &place, green)
                {
                    // The red tree is the base's code with the tests as now: equal to green's
                    // tree, the goal changed none of the code its tests run.
                    refusals.push(format!(
                        "criterion {n}: the goal changed none of the code its tests run (its passing run {} is on the red tree itself: the base's code with the tests as now); red then green on the same code is the environment or a flaky test, not the goal's change",
                        green.id
                    ));
                    hint.get_or_insert_with(|| {
                        format!(
                            "change the code the criterion is about (outside the tests), then `goal verify -c {n}`"
                        )
                    });
                    continue;
                }
                // The deciding green: the pin once more on the final tree, clean.
                let clean = match clean_green(quiet, ws, &place, n, text, &p.argv, green)? {
                    Ok(clean) => clean,
                    Err((why, next)) => {
                        refusals.push(why);
                        hint.get_or_insert(next);
                        continue;
                    }
                };
                c.evidence.clone_from(&clean.id);
                c.tests = clean.tests;
                let green = &clean;
                // A weakened assertion is judged by the red/green pair: so the pair must be about
                // that test. A red run that failed only elsewhere (another test, an import or a
                // build of code the goal added) does not show the weakened test tests the change.
                let mut unshown = Vec::new();
                // `weakened` is `found.findings` judged, one for one.
                for (w, _) in weakened.iter_mut().zip(&found.findings).filter(|(w, f)| {
                    matches!(
                        w.kind,
                        FindingKind::AssertionWeakened | FindingKind::AssertionRemoved
                    ) && crate::surface::weaken::pin_runs(&p.command, f)
                }) {
                    if failed_by_name(witness.names.as_ref(), &w.test)
                        || crate::ops::red::red_shows_without_failures(
                            quiet,
                            ws,
                            &place,
                            n,
                            text,
                            &p.argv,
                            &green.junit,
                            &witness,
                            &w.test,
                        )?
                    {
                        continue;
                    }
                    if confirm {
                        w.confirmed = true;
                        continue;
                    }
                    unshown.push(w.describe());
                }
                if !unshown.is_empty() {
                    refusals.push(format!(
                        "criterion {n}: the goal weakens a test its pin runs ({}), and its red run {} did not show that test failing (it failed elsewhere: another test, or an import or build failure): nothing shows the weakened test tests the change",
                        unshown.join("; "),
                        witness.id
                    ));
                    hint.get_or_insert_with(|| {
                        format!(
                            "restore the assertion, or make the weakened test itself fail on the code before the goal (see it with `goal verify --red -c {n}`); or {} (recorded in a Goal-Tests-Weakened trailer)",
                            crate::person::offer("accept it", "goal done --confirm")
                        )
                    });
                    continue;
                }
                if let Err(missing) =
                    names::green_covers_red(&run_tests(&witness), &run_tests(green))
                {
                    let words: Vec<String> = missing.iter().map(|m| m.to_string()).collect();
                    refusals.push(format!(
                        "criterion {n}: its passing run does not run the tests that failed on the code before the goal ({}; red {}, green {})",
                        words.join("; "),
                        witness.id,
                        green.id
                    ));
                    hint.get_or_insert_with(|| {
                        format!("run the same tests at the end: `goal verify -c {n}`")
                    });
                    continue;
                }
                free.retain(|&i| {
                    !(crate::surface::weaken::pin_runs(&p.command, &found.findings[i])
                        && failed_by_name(witness.names.as_ref(), &weakened[i].test))
                });
                c.red = Some(witness.id.clone());
            }
            Kind::Guard => {
                let base_tree = place.base_tree.to_string();
                let base = match judge::guard_base(ledger, n, text, &base_tree) {
                    Some(r) => r.clone(),
                    None => {
                        if !quiet {
                            crate::context::eprint_line(format!(
                                "criterion {n}: running its guard on the goal's base (base {})…",
                                place.base_short()
                            ));
                        }
                        crate::ops::red::base_run(
                            quiet,
                            ws,
                            &place,
                            n,
                            text,
                            &p.argv,
                            &green.junit,
                        )?
                    }
                };
                if let Err(missing) = names::guard_holds(&run_tests(&base), &run_tests(green)) {
                    let words: Vec<String> = missing.iter().map(|m| m.to_string()).collect();
                    refusals.push(format!(
                        "guard {n} runs less than on the goal's base: {} (base {}, now {})",
                        words.join("; "),
                        base.id,
                        green.id
                    ));
                    hint.get_or_insert_with(|| {
                        "bring the lost or skipped tests back, then `goal verify` again".to_string()
                    });
                    continue;
                }
                c.base = Some(base.id.clone());
                c.base_commit = Some(place.base_short());
            }
        }
    }
    for &i in &free {
        refusals.push(format!(
            "the goal weakens its tests: {} (no red run shows it failing)",
            weakened[i].describe()
        ));
        hint.get_or_insert_with(|| {
            "make the test check the change (a test seen failing on the code before the goal by name tests it), or accept it with `goal done --confirm` (recorded in a Goal-Tests-Weakened trailer)".into()
        });
    }
    if !refusals.is_empty() {
        return Err(refuse(refusals, hint));
    }
    for w in &mut weakened {
        // Shown, no longer refusing: its red run showed it failing.
        if w.kind == FindingKind::AssertionFree && w.refuses && !w.confirmed {
            w.refuses = false;
        }
    }
    Ok(RedGate {
        weakened,
        guards_only,
    })
}

use judge::failed_by_name;

/// Whether the passing run `green`, made on the working tree as it is, ran the same code as the
/// red tree of `place`: every file that differs (the goal folder aside) differs only in comments,
/// docstrings or whitespace. A tree that cannot be read is not the same.
fn same_code_as_red(ws: &Workspace, place: &crate::ops::red::Place, green: &Record) -> bool {
    let Ok(now) = ws.worktree_tree().map(|t| t.to_string()) else {
        return false;
    };
    if green.tree != now && green.tree_after.as_deref() != Some(now.as_str()) {
        return false;
    }
    let Ok(work) = ws.worktree_tree_full() else {
        return false;
    };
    let files = |t| -> Option<std::collections::BTreeMap<String, Oid>> {
        let list = ws.repo.tree_files(t).ok()?;
        Some(list.into_iter().map(|f| (f.path, f.id)).collect())
    };
    let (Some(fa), Some(fb)) = (files(place.red.tree), files(work)) else {
        return false;
    };
    let text = |id: &Oid| {
        ws.repo
            .blob_bytes(*id)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let paths: std::collections::BTreeSet<&String> = fa.keys().chain(fb.keys()).collect();
    paths.into_iter().all(|path| {
        if std::path::Path::new(path).starts_with(&ws.goal_dir) {
            return true;
        }
        match (fa.get(path), fb.get(path)) {
            (Some(x), Some(y)) if x == y => true,
            (Some(x), Some(y)) => match (text(x), text(y)) {
                (Some(x), Some(y)) => crate::surface::weaken::same_code(path, &x, &y),
                _ => false,
            },
            _ => false,
        }
    })
}

/// Acceptance criterion `n`'s deciding green: its pin run once more in a clean checkout of the
/// final tree (see [`crate::ops::red::clean_run`]), its cost shown. Err: why it does not prove
/// the criterion, and the next step.
fn clean_green(
    quiet: bool,
    ws: &Workspace,
    place: &crate::ops::red::Place,
    n: usize,
    text: &str,
    argv: &[String],
    green: &Record,
) -> Result<std::result::Result<Record, (String, String)>> {
    let tree = ws.worktree_tree_full()?;
    let record = crate::ops::red::clean_run(
        quiet,
        ws,
        place,
        n,
        text,
        argv,
        &green.junit,
        tree,
        &green.tree,
    )?;
    let verdict = ws
        .ledger()?
        .proof(n, text, &green.tree)
        .map(|r| r.id.clone());
    let seconds = record.duration_ms as f64 / 1000.0;
    if !quiet {
        let how = if verdict.is_ok() {
            "passed"
        } else {
            "did not pass"
        };
        crate::context::eprint_line(format!(
            "criterion {n}: the clean run {how} in {seconds:.1}s (record {})",
            record.id
        ));
    }
    match verdict {
        Ok(_) => Ok(Ok(record)),
        Err(why) => Ok(Err((
            format!(
                "criterion {n}: its pin does not pass in a clean checkout of the final tree (tracked files only: nothing git ignores or .git/info/exclude hides): {why} (record {}, exit {})",
                record.id, record.exit_code
            ),
            format!(
                "the passing run depended on files only this working tree has: see them with `git status --ignored`; commit what the tests need, or remove what patches them, then `goal verify -c {n}`"
            ),
        ))),
    }
}

fn refuse(refusals: Vec<String>, hint: Option<String>) -> Error {
    Error::not_proven(
        format!("the goal is not proven done:\n  {}", refusals.join("\n  ")),
        hint.unwrap_or_else(|| "goal status".into()),
    )
}

/// One material change in words: old → new, commit, reason.
pub fn material_line(m: &history::MaterialEntry) -> String {
    format!(
        "material change in {}: {}",
        &m.commit[..10.min(m.commit.len())],
        m.describe()
    )
}
