//! `goal verify`: run a command, record evidence bound to the working tree, tick or untick.

use std::time::Instant;

use std::path::PathBuf;

use super::criterion_number;
use crate::child::run_teed;
use crate::context::{Ctx, now_rfc3339};
use crate::error::{Error, Result};
use crate::evidence::{self, NewRecord, Record};
use crate::goal_file::GoalFile;
use crate::ops::red as run;
use crate::pin;
use crate::summary;
use crate::surface::judge::{self, RedOutcome};
use crate::workspace::Workspace;

/// Run a test command (argv, no shell) in the current directory, stream its output, and append
/// an evidence record bound to the working tree's git tree. Each -c criterion is ticked when the
/// evidence passes and unticked when it does not.
///
/// Without a command, run the criteria's pinned commands (`(verify: `cmd`)` at the end of a
/// criterion) at the worktree root: `-c N` runs N's pin; no `-c` runs every distinct pin once.
///
/// Evidence passes when the command exits 0 and, if a test summary is recognised (cargo test,
/// nextest, pytest, unittest, go test, jest, vitest, mocha, node --test, bun, deno, TAP, RSpec,
/// PHPUnit, Maven/Gradle, dotnet, CTest, "N passed, N failed", or --junit reports), no test
/// failed and at least one ran. Without a test summary it is check evidence, accepted only with
/// --check. Commands that only print (echo, printf, cat, true, …) are never evidence.
///
/// Exit code: the command's when it failed; 1 when it exited 0 but proved nothing (no test
/// summary without --check, no test ran); 0 when the evidence passes.
///
/// `--red -c N` runs N's pin on the red tree instead (the code before the goal with the tests as
/// they are now) in a temporary worktree, and exits 0 when it fails there as it should, 1 when it
/// passes there or runs no test. `--base -c N` records a guard's run on the goal's base tree.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A criterion this run proves (repeatable).
    #[arg(short = 'c', long = "criterion", value_name = "N")]
    pub criteria: Vec<usize>,
    /// Accept a passing run without a test summary (a linter, a type checker, a script).
    #[arg(long)]
    pub check: bool,
    /// A JUnit XML report the run writes (a path or glob, repeatable); its test cases are counted.
    #[arg(long = "junit", value_name = "FILE")]
    pub junit: Vec<String>,
    /// Run criterion N's pin on the red tree (the code before the goal, the tests as now) in a
    /// temporary worktree: exit 0 when it fails there, 1 when it passes or runs no test.
    #[arg(long, conflicts_with_all = ["base", "check", "argv"])]
    pub red: bool,
    /// Record guard N's base run: its pin on the goal's base tree, in a temporary worktree.
    #[arg(long, conflicts_with_all = ["check", "argv"])]
    pub base: bool,
    /// The command and its arguments, after `--` (default: the pinned commands).
    #[arg(last = true, value_name = "CMD")]
    pub argv: Vec<String>,
}

/// One command to run and the criteria its evidence is for.
struct Run {
    argv: Vec<String>,
    /// Where it runs, and the same relative to the worktree root.
    dir: PathBuf,
    cwd: String,
    criteria: Vec<(usize, String)>,
    /// Accept it without a test summary: `--check`, or a pin last proven as a check.
    check: bool,
    /// It runs a guard's pin: without a test summary it is a check (a linter), untold.
    guard: bool,
}

/// What the command line asks for: one given command, or the pinned ones.
fn plan(
    ctx: &Ctx,
    ws: &Workspace,
    goal: &GoalFile,
    ledger: &crate::evidence::Ledger,
    args: &Args,
) -> Result<Vec<Run>> {
    let mut numbers = Vec::new();
    for &n in &args.criteria {
        let n = criterion_number(goal, n)?;
        if !numbers.contains(&n) {
            numbers.push(n);
        }
    }
    let text = |n: usize| goal.criteria[n - 1].text.clone();
    if !args.argv.is_empty() {
        if let Some(why) = pin::self_grading(&args.argv) {
            return Err(Error::refused(
                format!("`{}` is not evidence: {why}", pin::render(&args.argv)),
                "goal verify -c <N> -- <the test command that checks it>",
            ));
        }
        for &n in &numbers {
            if let Some(pinned) = pin::argv(&text(n))
                && pinned != args.argv
            {
                return Err(Error::refused(
                    format!(
                        "criterion {n} is pinned to `{}`: another command (`{}`) cannot prove it",
                        pin::render(&pinned),
                        pin::render(&args.argv)
                    ),
                    format!(
                        "run its pin with `goal verify -c {n}`, or change the pin with `goal criteria pin {n} --confirm -- <command>`"
                    ),
                ));
            }
        }
        // A pin runs at the worktree root, wherever `goal verify` was started.
        let pinned = numbers.iter().any(|&n| pin::argv(&text(n)).is_some());
        let (dir, cwd) = if pinned {
            (ws.root().to_path_buf(), String::new())
        } else {
            (ctx.cwd.clone(), ws.here.clone())
        };
        let guard = numbers
            .iter()
            .any(|&n| pin::kind(&text(n)) == Some(pin::Kind::Guard));
        return Ok(vec![Run {
            argv: args.argv.clone(),
            dir,
            cwd,
            criteria: numbers.iter().map(|&n| (n, text(n))).collect(),
            check: args.check,
            guard,
        }]);
    }
    // No command: the pins, each distinct one once, in criterion order, at the worktree root.
    let wanted: Vec<usize> = if numbers.is_empty() {
        (1..=goal.criteria.len()).collect()
    } else {
        numbers.clone()
    };
    let mut runs: Vec<Run> = Vec::new();
    for n in wanted {
        let argv = match pin::parse(&text(n)) {
            Some(Ok(p)) => p.argv,
            Some(Err(why)) => {
                return Err(Error::usage(
                    format!("criterion {n}: {why}"),
                    format!("fix the pin with `goal criteria pin {n} --confirm -- <command>`"),
                ));
            }
            None if numbers.is_empty() => continue,
            None => {
                return Err(Error::usage(
                    format!("criterion {n} has no pinned command, and no command was given"),
                    format!(
                        "give the test command: `goal verify -c {n} -- <test command>`, or pin one: `goal criteria pin {n} -- <test command>`"
                    ),
                ));
            }
        };
        if let Some(why) = pin::self_grading(&argv) {
            return Err(Error::refused(
                format!(
                    "criterion {n}'s pin `{}` is not evidence: {why}",
                    pin::render(&argv)
                ),
                format!("pin a real test: `goal criteria pin {n} --confirm -- <test command>`"),
            ));
        }
        // A pin proven as a check (a linter) stays one under plain `goal verify`, and a guard's
        // pin that prints no test summary is a check without --check.
        let check = args.check || ledger.pin_runs_as_check(n, &text(n));
        let guard = pin::kind(&text(n)) == Some(pin::Kind::Guard);
        match runs.iter_mut().find(|r| r.argv == argv) {
            Some(run) => {
                run.criteria.push((n, text(n)));
                run.check |= check;
                run.guard |= guard;
            }
            None => runs.push(Run {
                argv,
                dir: ws.root().to_path_buf(),
                cwd: String::new(),
                criteria: vec![(n, text(n))],
                check,
                guard,
            }),
        }
    }
    if runs.is_empty() {
        return Err(Error::usage(
            "no criterion has a pinned command, and no command was given",
            "goal verify -c <N> -- <test command>, or pin one: `goal criteria pin <N> -- <test command>`",
        ));
    }
    Ok(runs)
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let goal = ws.goal()?;
    if args.red || args.base {
        return run_elsewhere(ctx, &ws, &goal, &args);
    }
    let runs = plan(ctx, &ws, &goal, &ws.ledger()?, &args)?;
    // Refuse a broken or malformed ledger before spending time on the run.
    refuse_broken_chain(&ws)?;
    // The first command that failed gives its exit code; else 1 when a run proved nothing.
    let (mut failed, mut proved_nothing) = (None, false);
    let mut records = Vec::new();
    for run in &runs {
        let (record, code) = verify_one(ctx, &ws, run, &args)?;
        if record.exit_code != 0 {
            failed = failed.or(Some(code));
        } else if code != 0 {
            proved_nothing = true;
        }
        records.push(record);
    }
    let exit = failed.unwrap_or(u8::from(proved_nothing));
    if ctx.json {
        let runs: Vec<serde_json::Value> = records
            .iter()
            .map(|r| {
                serde_json::json!({
                    "record": r,
                    "passes": r.passes(),
                    "proves": r.proves(),
                })
            })
            .collect();
        match <[serde_json::Value; 1]>::try_from(runs) {
            Ok([one]) => ctx.emit_json(&one)?,
            Err(runs) => ctx.emit_json(&serde_json::json!({ "runs": runs }))?,
        }
    }
    Ok(exit)
}

/// `goal verify --red -c N` / `--base -c N`: one criterion's pin on the red tree or the base tree.
fn run_elsewhere(ctx: &Ctx, ws: &Workspace, goal: &GoalFile, args: &Args) -> Result<u8> {
    let flag = if args.red { "--red" } else { "--base" };
    let [n] = args.criteria[..] else {
        return Err(Error::usage(
            format!("{flag} runs one criterion's pin: give it with -c"),
            format!("goal verify {flag} -c <N>"),
        ));
    };
    let n = criterion_number(goal, n)?;
    let text = goal.criteria[n - 1].text.clone();
    let pinned = match pin::parse(&text) {
        Some(Ok(p)) => p,
        Some(Err(why)) => {
            return Err(Error::usage(
                format!("criterion {n}: {why}"),
                format!("fix the pin with `goal criteria pin {n} --confirm -- <command>`"),
            ));
        }
        None => {
            return Err(Error::usage(
                format!("criterion {n} has no pinned command: {flag} runs a criterion's pin"),
                format!("pin the test that proves it: `goal criteria pin {n} -- <test command>`"),
            ));
        }
    };
    match (args.red, pinned.kind) {
        (true, pin::Kind::Guard) => {
            return Err(Error::usage(
                format!(
                    "criterion {n} is a guard: it must pass before and after the goal, not fail first"
                ),
                format!("record its run on the goal's base with `goal verify --base -c {n}`"),
            ));
        }
        (false, pin::Kind::Acceptance) => {
            return Err(Error::usage(
                format!(
                    "criterion {n} is an acceptance criterion: its base run is the red run, which must fail"
                ),
                format!("run it on the code before the goal with `goal verify --red -c {n}`"),
            ));
        }
        _ => {}
    }
    if let Some(why) = pin::self_grading(&pinned.argv) {
        return Err(Error::refused(
            format!(
                "criterion {n}'s pin `{}` is not evidence: {why}",
                pinned.command
            ),
            format!("pin a real test: `goal criteria pin {n} --confirm -- <test command>`"),
        ));
    }
    refuse_broken_chain(ws)?;
    let place = Place::of(ws)?;
    let (record, exit, message) = if args.red {
        let (record, outcome) = run::red_run(
            ctx.quiet || ctx.json,
            ws,
            &place,
            n,
            &text,
            &pinned.argv,
            &args.junit,
        )?;
        let message = judge::outcome_message(n, &outcome).unwrap_or_else(|| {
            format!("criterion {n} fails on the code before the goal, as it should (red)")
        });
        (record, u8::from(outcome != RedOutcome::Red), message)
    } else {
        let record = run::base_run(
            ctx.quiet || ctx.json,
            ws,
            &place,
            n,
            &text,
            &pinned.argv,
            &args.junit,
        )?;
        let message = if record.passes() {
            format!("guard {n} on the goal's base: recorded")
        } else {
            format!(
                "guard {n} fails on the goal's base ({}): `goal done` compares it with the end all the same",
                record.failure_reason()
            )
        };
        (Some(record), 0, message)
    };
    let record = match record {
        Some(r) => r,
        None => {
            ctx.note(message);
            return Ok(exit);
        }
    };
    if ctx.json {
        ctx.emit_json(&serde_json::json!({
            "record": record,
            "passes": record.passes(),
            "outcome": if args.red { Some(judge::recorded_outcome(&record)) } else { None },
        }))?;
    } else {
        ctx.note(format!(
            "evidence {}: exit {}, {} — {message}",
            record.id,
            record.exit_code,
            tests_words(&record)
        ));
    }
    Ok(exit)
}

pub use crate::ops::red::Place;

fn tests_words(record: &Record) -> String {
    match record.tests {
        Some(t) => format!(
            "tests {} passed, {} failed, {} ignored",
            t.passed, t.failed, t.ignored
        ),
        None => "no test summary".into(),
    }
}

/// evidence.jsonl must verify before anything is appended to it.
fn refuse_broken_chain(ws: &Workspace) -> Result<()> {
    let ledger = ws.ledger()?;
    if let Err(reason) = ledger.verify_chain() {
        let rel = ws.evidence_rel();
        return Err(Error::refused(
            format!(
                "{} does not verify ({reason}): nothing more is appended to a broken chain",
                rel.display()
            ),
            crate::store::broken_ledger_hint(&rel),
        ));
    }
    Ok(())
}

/// The way out of a broken ledger that loses nothing.
/// Run one command and record its evidence; returns the record and the exit code to report.
fn verify_one(ctx: &Ctx, ws: &Workspace, run: &Run, args: &Args) -> Result<(Record, u8)> {
    let before_full = ws.worktree_tree_full()?;
    let tree = ws.repo.tree_without(before_full, &ws.goal_dir)?.to_string();
    let started = now_rfc3339();
    let started_at = std::time::SystemTime::now();
    let clock = Instant::now();
    if !ctx.quiet && !ctx.json {
        eprintln!(
            "goal: running `{}`{}",
            pin::render(&run.argv),
            match run.cwd.as_str() {
                "" => String::new(),
                cwd => format!(" in {cwd}"),
            }
        );
    }
    let (exit_code, output) = run_teed(&run.argv, &run.dir, ctx.json)?;
    let duration_ms = clock.elapsed().as_millis() as u64;
    let text = String::from_utf8_lossy(&output);
    let (mut tests, echoed) = summary::recognise_run_noting(&run.argv, &text);
    if echoed {
        ctx.note(
            "warning: the output's test summary is written in the command itself: it is no test's result and proves nothing",
        );
    }
    if !args.junit.is_empty() {
        // The reports are the authority on what ran: they replace the output's summary. A
        // report this run did not write proves nothing (zero tests).
        tests = Some(
            match crate::junit::read_reports(&args.junit, &run.dir, started_at) {
                Ok((counts, _)) => counts,
                Err(why) => {
                    ctx.note(format!("warning: --junit: {why}; it proves nothing"));
                    summary::TestCounts::default()
                }
            },
        );
    }
    let after_full = ws.worktree_tree_full()?;
    let (mut created, changed) = if after_full == before_full {
        (Vec::new(), Vec::new())
    } else {
        ws.repo
            .changed_paths(before_full, after_full, &ws.goal_dir)?
    };
    // Rewriting an untracked file (a cache such as __pycache__/*.pyc) is like creating one: the
    // tracked code is as it was.
    let tracked = ws.repo.tracked(&changed)?;
    let mut tracked_changes = Vec::new();
    for (path, is_tracked) in changed.into_iter().zip(tracked) {
        if is_tracked {
            tracked_changes.push(path);
        } else {
            created.push(path);
        }
    }
    let changed = tracked_changes;
    // A run that only added or rewrote untracked files (caches, build outputs, a new lock file)
    // left the code as it was: the evidence holds for the tree with those files too.
    let tree_after = if changed.is_empty() && !created.is_empty() {
        Some(ws.repo.tree_without(after_full, &ws.goal_dir)?.to_string())
    } else {
        None
    };

    let _lock = ws.lock()?;
    let ledger = ws.ledger()?;
    let names = crate::test_names::from_output(&String::from_utf8_lossy(&output));
    let (record, line) = evidence::seal_with(
        NewRecord {
            criteria: run.criteria.clone(),
            argv: run.argv.clone(),
            cwd: run.cwd.clone(),
            exit_code,
            started,
            duration_ms,
            tree,
            tree_after,
            created,
            changed,
            tests,
            junit: args.junit.clone(),
            check: run.check || (run.guard && tests.is_none()),
            output,
        },
        evidence::Extra {
            names: Some(names),
            ..Default::default()
        },
        &ledger.head_hash(),
    );
    run::append_line(ws, &record, &line)?;

    let mut goal = ws.goal()?;
    for (n, text) in &run.criteria {
        // The goal may have changed while the command ran: tick only the same criterion.
        if goal.criterion(*n).is_some_and(|c| &c.text == text) {
            goal.set_passed(*n, record.proves());
        }
    }
    if !run.criteria.is_empty() {
        goal.set_updated(&now_rfc3339());
        ws.write_goal(&goal)?;
    }
    if !ctx.json {
        report(ctx, &record, &run.criteria);
    }
    let code = if exit_code != 0 {
        u8::try_from(exit_code).unwrap_or(1).max(1)
    } else {
        u8::from(!record.proves())
    };
    Ok((record, code))
}

/// At most this many paths are named in a message, then a count.
const MAX_NAMED: usize = 10;

/// `a, b, c` with at most ten names, then "and N more".
pub fn name_paths(paths: &[String]) -> String {
    let mut text = paths
        .iter()
        .take(MAX_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > MAX_NAMED {
        text.push_str(&format!(" and {} more", paths.len() - MAX_NAMED));
    }
    text
}

fn report(ctx: &Ctx, record: &Record, criteria: &[(usize, String)]) {
    let tests = tests_words(record);
    let names: Vec<String> = criteria.iter().map(|(n, _)| n.to_string()).collect();
    let verdict = if record.proves() {
        if names.is_empty() {
            "passes".to_string()
        } else {
            format!("criterion {} passed", names.join(", "))
        }
    } else {
        let mut text = record.failure_reason();
        if !names.is_empty() {
            text.push_str(&format!(" — criterion {} not passed", names.join(", ")));
        }
        text
    };
    ctx.note(format!(
        "evidence {}: exit {}, {tests} — {verdict}",
        record.id, record.exit_code
    ));
    if !record.created.is_empty() && record.changed.is_empty() {
        ctx.note(format!(
            "the run created or rewrote {} untracked file(s): {}; the evidence holds with them too. If they are build outputs or caches, add them to .gitignore, or `goal iterate` will commit them",
            record.created.len(),
            name_paths(&record.created)
        ));
    }
    if !record.changed.is_empty() {
        ctx.note(format!(
            "warning: the run modified or deleted {} tracked file(s): {}; this evidence is for the code as it was before the run — keep or revert those changes, then verify again",
            record.changed.len(),
            name_paths(&record.changed)
        ));
    }
}
