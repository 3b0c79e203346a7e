//! `goal done`: the completion gate, the deslop pass, two commits and the summary.

use serde::Serialize;

use super::{Commit, short};
use crate::context::{Ctx, now_rfc3339};
use crate::deslop;
use crate::error::{Error, Result};
use crate::evidence::{Ledger, Record};
use crate::goal_file::GoalFile;
use crate::goal_file::Status;
use crate::history;
use crate::pin::{self, Kind};
use crate::repo::{DiffStat, Stage};
use crate::summary::TestCounts;
use crate::surface::judge::{self, RedOutcome, RedState, Weakened};
use crate::surface::names::{self, RunTests};
use crate::trailers::Action;
use crate::workspace::Workspace;

/// Complete the goal: refused (exit 1) unless every criterion has passing evidence on the
/// working tree as it is now, with at least one test run among it. Then the clean-up pass: the
/// clean-up check commands run and the goal's added lines are scanned for leftovers (TODO,
/// debug prints, conflict markers, trailing blanks); findings are reported, never blocking. Then a commit of `status: complete` with all the work, a commit deleting the goal files,
/// and the completion summary.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A clean-up check command run before completion (a formatter check, a linter; repeatable;
    /// default: git config goal.deslop). Its failure is reported, not blocking.
    #[arg(long = "deslop", value_name = "CMD")]
    pub deslop: Vec<String>,
    /// After the summary, print the pull-request report in Markdown (`goal report --markdown`).
    #[arg(long)]
    pub report: bool,
    /// Accept what weakens the tests (a test removed or skipped, an assertion-free test, a
    /// changed test selection), each recorded in a `Goal-Tests-Weakened` trailer, or a goal whose
    /// criteria are all guards (`Goal-Guards-Only: confirmed`).
    #[arg(long)]
    pub confirm: bool,
    #[command(flatten)]
    pub commit: super::CommitFlags,
}

#[derive(Debug, Serialize)]
struct CriterionSummary {
    number: usize,
    text: String,
    evidence: String,
    tests: Option<TestCounts>,
    /// The command whose run proves it.
    command: Vec<String>,
    /// Proven by its pinned command (false: by a command chosen at verify time).
    pinned: bool,
    /// acceptance, guard or unpinned.
    kind: &'static str,
    /// The red witness's record id (acceptance criteria), or the guard's base record id.
    red: Option<String>,
}

#[derive(Debug, Serialize)]
struct DeslopCommand {
    command: String,
    exit_code: i32,
    passed: bool,
}

#[derive(Debug, Serialize)]
struct Summary {
    goal: String,
    iterations: u64,
    criteria: Vec<CriterionSummary>,
    files_changed: usize,
    insertions: usize,
    deletions: usize,
    elapsed_s: i64,
    deslop: Vec<deslop::Finding>,
    deslop_commands: Vec<DeslopCommand>,
    /// Every criterion removed or materially reworded in the goal's life.
    material_changes: Vec<history::MaterialEntry>,
    /// What the goal's diff does to its tests (weakening findings).
    tests_weakened: Vec<Weakened>,
    commits: Vec<String>,
}

/// The seeds' red flag that a missing proof would be.
fn red_flag(why: &str) -> &'static str {
    if why.contains("no tests ran")
        || why.contains("no evidence")
        || why.contains("no test summary")
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

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?.with(&args.commit);
    ws.repo.ensure_idle()?;
    let _lock = ws.lock()?;
    let mut goal = ws.goal()?;
    match goal.status {
        Status::Blocked => {
            return Err(Error::refused(
                "the goal is blocked: it cannot be completed until it is resumed",
                "see the Blocked section with `goal status`, then `goal resume`",
            ));
        }
        Status::Complete | Status::InProgress => {}
    }
    if goal.criteria.is_empty() {
        return Err(Error::refused(
            "the goal has no criteria: nothing proves it done",
            "add criteria with `goal criteria add \"<observable outcome>\"`",
        ));
    }
    let ledger = ws.ledger()?;
    if let Err(reason) = ledger.verify_chain() {
        return Err(Error::refused(
            format!("evidence.jsonl does not verify: {reason}"),
            super::verify::broken_ledger_hint(&ws.evidence_rel()),
        ));
    }
    let tree = ws.worktree_tree()?;
    let tree_text = tree.to_string();
    let proof = crate::proof::judge(&goal, &ledger, Some(&tree_text)).seen_from(&ws.here);
    let mut missing = Vec::new();
    let mut proven = Vec::new();
    for c in &goal.criteria {
        match ledger.proof(c.number, &c.text, &tree_text) {
            Ok(record) => proven.push(CriterionSummary {
                number: c.number,
                text: c.text.clone(),
                evidence: record.id.clone(),
                tests: record.tests,
                command: record.argv.clone(),
                pinned: crate::pin::argv(&c.text).is_some(),
                kind: crate::pin::kind_name(&c.text),
                red: None,
            }),
            Err(why) => {
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
                ))
            }
        }
    }
    if missing.is_empty() && !ledger.has_passing_test(&tree_text) {
        missing.push(
            "no passing test evidence on this tree: a check alone cannot complete a goal — red flag \"tests don't run but code looks fine\""
                .into(),
        );
    }
    if !missing.is_empty() {
        let numbers: Vec<String> = goal
            .criteria
            .iter()
            .filter(|c| ledger.proof(c.number, &c.text, &tree_text).is_err())
            .map(|c| c.number.to_string())
            .collect();
        return Err(Error::refused(
            format!("the goal is not proven done:\n  {}", missing.join("\n  ")),
            match numbers.first() {
                Some(n) => format!(
                    "{} (criteria still to prove: {})",
                    n.parse::<usize>()
                        .ok()
                        .and_then(|n| proof.get(n))
                        .and_then(|p| p.rerun_line())
                        .unwrap_or_else(|| format!("goal verify -c {n} -- <test command>")),
                    numbers.join(", ")
                ),
                None => "goal verify -c <N> -- <test command>".to_string(),
            },
        ));
    }

    // Red before green, guards, weakened tests: refused here, before anything is cleaned up.
    let gate = red_gate(ctx, &ws, &goal, &ledger, &mut proven, args.confirm)?;

    // Deslop: run the commands, scan what the goal added. Findings never block.
    let init = history::init_commit(&ws.repo)?;
    let base = init.as_ref().map(|c| c.tree);
    let commands = if args.deslop.is_empty() {
        ws.config.deslop.clone()
    } else {
        args.deslop.clone()
    };
    let mut deslop_commands = Vec::new();
    for command in &commands {
        let argv = vec!["sh".to_string(), "-c".to_string(), command.clone()];
        let exit_code = match crate::child::run_teed(&argv, ws.root(), true) {
            Ok((code, _)) => code,
            Err(e @ Error::Interrupted { .. }) => return Err(e),
            Err(e) => {
                ctx.note(format!(
                    "warning: deslop command `{command}` could not run: {e}"
                ));
                127
            }
        };
        if exit_code != 0 {
            ctx.note(format!(
                "warning: deslop command `{command}` exited {exit_code} (noted, not blocking)"
            ));
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
        return Err(Error::refused(
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
        let mut commit = Commit::new(Action::Complete, format!("complete \"{}\"", goal.goal));
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
        pending.push(commit.prepare(&ws, Some(&goal), &goal)?);
    }
    // Commit 2: the goal files go; the history keeps them.
    let mut commit = Commit::new(Action::Done, format!("done \"{}\"", goal.goal));
    commit.other = vec![(ws.evidence_rel(), None), (ws.retry_rel(), None)];
    commit.status = Some("complete");
    pending.push(commit.prepare(&ws, None, &goal)?);
    let commits = ws.commit_all(pending)?;
    super::print_added(ctx, &ws, commits.first().copied());

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
    };
    let report = match args.report {
        true => Some(super::report::markdown_at_head(&ws)?),
        false => None,
    };
    if ctx.json {
        let mut value = serde_json::to_value(&summary).unwrap_or_default();
        if let (Some(report), Some(object)) = (report, value.as_object_mut()) {
            object.insert("report".into(), report.into());
        }
        ctx.emit_json(&value)?;
        return Ok(0);
    }
    print_summary(ctx, &summary);
    if let Some(report) = report {
        ctx.say(format!("\n{report}"));
    }
    Ok(0)
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
    ctx: &Ctx,
    ws: &Workspace,
    goal: &GoalFile,
    ledger: &Ledger,
    proven: &mut [CriterionSummary],
    confirm: bool,
) -> Result<RedGate> {
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
    let mut place = super::verify::Place::of(ws)?;
    place.locked = true;
    // Findings: the goal's diff, base tree → the working tree, over the test surface.
    let surface = crate::surface::Surface::from_repo(&ws.repo).map_err(|e| {
        Error::usage(
            e.to_string(),
            "fix it with `git config --unset-all goal.tests`",
        )
    })?;
    let changes = crate::surface::red::surface_changes(
        &ws.repo,
        place.base_tree_full,
        ws.worktree_tree_full()?,
        &surface,
    )?;
    let found = crate::surface::weaken::findings(&surface, &changes);
    for u in &found.unreadable {
        ctx.note(format!(
            "warning: {} could not be read for weakened tests: {}",
            u.file, u.reason
        ));
    }
    let weakened = judge::weakened(&found.findings, &pins, confirm);
    for w in weakened.iter().filter(|w| !w.refuses) {
        ctx.note(format!(
            "the goal changes a test: {} (red before green judges it)",
            w.describe()
        ));
    }
    let mut refusals: Vec<String> = Vec::new();
    let mut hint: Option<String> = None;
    let unconfirmed: Vec<&Weakened> = weakened
        .iter()
        .filter(|w| w.refuses && !w.confirmed)
        .collect();
    if !unconfirmed.is_empty() {
        for w in &unconfirmed {
            refusals.push(format!("the goal weakens its tests: {}", w.describe()));
        }
        hint = Some(
            "restore the tests (the bug stays until a test shows it fixed), or accept each weakening with `goal done --confirm` (recorded in a Goal-Tests-Weakened trailer)".into(),
        );
        return Err(refuse(refusals, hint));
    }
    let guards_only = judge::guards_only(&texts);
    if guards_only && !confirm {
        return Err(Error::refused(
            "every criterion of the goal is a guard: guards show nothing broke, not that the change works",
            "add an acceptance criterion whose test fails before the change: `goal criteria add \"<outcome>\" --verify \"<test command>\"`, or, for a refactoring, confirm with `goal done --confirm`",
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
                        ..
                    }) => (None, RedOutcome::Inconclusive),
                    _ => {
                        if !ctx.json {
                            eprintln!(
                                "criterion {n}: checking that its tests fail on the code before the goal (base {})…",
                                place.base_short()
                            );
                        }
                        super::verify::red_run(ctx, ws, &place, n, text, &p.argv, &green.junit)?
                    }
                };
                if let Some(why) = judge::outcome_message(n, &outcome) {
                    refusals.push(why);
                    hint.get_or_insert_with(|| match outcome {
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
                c.red = Some(witness.id.clone());
            }
            Kind::Guard => {
                let base_tree = place.base_tree.to_string();
                let base = match judge::guard_base(ledger, n, text, &base_tree) {
                    Some(r) => r.clone(),
                    None => {
                        if !ctx.json {
                            eprintln!(
                                "criterion {n}: running its guard on the goal's base (base {})…",
                                place.base_short()
                            );
                        }
                        super::verify::base_run(ctx, ws, &place, n, text, &p.argv, &green.junit)?
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
                c.red = Some(base.id.clone());
            }
        }
    }
    if !refusals.is_empty() {
        return Err(refuse(refusals, hint));
    }
    Ok(RedGate {
        weakened,
        guards_only,
    })
}

fn refuse(refusals: Vec<String>, hint: Option<String>) -> Error {
    Error::refused(
        format!("the goal is not proven done:\n  {}", refusals.join("\n  ")),
        hint.unwrap_or_else(|| "goal status".into()),
    )
}

/// One material change in words: old → new, commit, reason.
fn material_line(m: &history::MaterialEntry) -> String {
    format!(
        "material change in {}: {}",
        &m.commit[..10.min(m.commit.len())],
        m.describe()
    )
}

fn print_summary(ctx: &Ctx, s: &Summary) {
    ctx.say(format!("{} {}", ctx.green("Goal complete:"), s.goal));
    ctx.say(format!("  iterations: {}", s.iterations));
    for c in &s.criteria {
        let tests = match c.tests {
            Some(t) => format!(
                "{} passed, {} failed, {} ignored",
                t.passed, t.failed, t.ignored
            ),
            None => "check".into(),
        };
        let unpinned = if c.pinned {
            String::new()
        } else {
            format!(
                " — proven by an unpinned command `{}`",
                crate::pin::render(&c.command)
            )
        };
        let red = match (c.kind, &c.red) {
            ("acceptance", Some(id)) => format!(", red {id} → green"),
            ("guard", Some(id)) => format!(", guard, base {id}"),
            _ => String::new(),
        };
        ctx.say(format!(
            "  [x] {}. {} — evidence {} ({tests}{red}){unpinned}",
            c.number, c.text, c.evidence
        ));
    }
    if !s.tests_weakened.is_empty() {
        ctx.say(format!("  tests weakened: {}", s.tests_weakened.len()));
        for w in &s.tests_weakened {
            let note = if w.confirmed { " (confirmed)" } else { "" };
            ctx.say(format!("    {}{note}", w.describe()));
        }
    }
    if s.material_changes.is_empty() {
        ctx.say("  material changes: none");
    } else {
        ctx.say(format!("  material changes: {}", s.material_changes.len()));
        for m in &s.material_changes {
            ctx.say(format!("    {}", material_line(m)));
        }
    }
    ctx.say(format!(
        "  files changed: {} (+{} -{})",
        s.files_changed, s.insertions, s.deletions
    ));
    let (h, m) = (s.elapsed_s / 3600, (s.elapsed_s % 3600) / 60);
    ctx.say(format!("  elapsed: {h}h {m:02}m"));
    for d in &s.deslop_commands {
        let verdict = if d.passed {
            "ok".to_string()
        } else {
            format!("failed (exit {}), noted", d.exit_code)
        };
        ctx.say(format!("  deslop `{}`: {verdict}", d.command));
    }
    if s.deslop.is_empty() {
        ctx.say("  deslop scan: nothing found");
    } else {
        ctx.say(format!("  deslop scan: {} finding(s)", s.deslop.len()));
        for f in &s.deslop {
            ctx.say(format!(
                "    {}:{}: {} — {}",
                f.file, f.line, f.kind, f.text
            ));
        }
    }
    let short_ids: Vec<String> = s.commits.iter().map(|c| c[..10].to_string()).collect();
    ctx.say(format!(
        "  commits: {} (`goal log` keeps the audit)",
        short_ids.join(", ")
    ));
    let _ = short;
}
