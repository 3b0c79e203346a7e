//! `goal verify`: run a command, record evidence bound to the working tree, tick or untick.

use crate::context::Ctx;
use crate::error::Result;
use crate::evidence::Record;
use crate::ops::verify::{self, Options};
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
///
/// `--mutants` records the goal's change under mutation (a `mutants` record bound to the tree;
/// it never changes a criterion's state): each hunk of the goal's code reverted alone must turn
/// an acceptance pin red, and the mutants of the functions it changed (cargo-mutants, mutmut,
/// StrykerJS; at most 200, those on changed lines first) must be killed by them. Exit 0 when the result passes `mutants_min` with no
/// unneeded change, 1 when it does not, 2 when a tool it needs is not installed.
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
    /// Record the goal's change under mutation: every change needed, its mutants killed by the
    /// acceptance pins (-c: only those criteria's pins).
    #[arg(long, conflicts_with_all = ["red", "base", "check", "argv", "junit"])]
    pub mutants: bool,
    /// The command and its arguments, after `--` (default: the pinned commands).
    #[arg(last = true, value_name = "CMD")]
    pub argv: Vec<String>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let goal = ws.goal()?;
    // Under `goal mcp`, only the pins a person approved run.
    crate::ops::approve::require_approved(&ws, &goal, &args.criteria, !args.argv.is_empty())?;
    if args.mutants {
        return mutants(ctx, &ws, &goal, &args.criteria);
    }
    let options = Options {
        criteria: args.criteria,
        check: args.check,
        junit: args.junit,
        red: args.red,
        base: args.base,
        argv: args.argv,
        cwd: ctx.cwd.clone(),
        json: ctx.json,
    };
    if options.red || options.base {
        let done = verify::elsewhere(&ws, &goal, &options)?;
        return render_elsewhere(ctx, &options, done);
    }
    let runs = verify::plan(&ws, &goal, &ws.ledger()?, &options)?;
    // Refuse a broken or malformed ledger before spending time on the run.
    verify::refuse_broken_chain(&ws)?;
    // The first command that failed gives its exit code; else 1 when a run proved nothing.
    let (mut failed, mut proved_nothing) = (None, false);
    let mut records = Vec::new();
    for run in &runs {
        let record = verify::run_one(&ws, run, &options)?;
        let code = exit_code(&record);
        if !ctx.json {
            report(ctx, &record, &run.criteria);
        }
        if record.exit_code != 0 {
            failed = failed.or(Some(code));
        } else if code != 0 {
            proved_nothing = true;
        }
        records.push(record);
    }
    verify::keep_base_runs(&ws, &runs, &records, &options)?;
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

/// A red or base run's record, as `goal verify --red` / `--base` shows it.
fn render_elsewhere(ctx: &Ctx, args: &Options, done: verify::Elsewhere) -> Result<u8> {
    let verify::Elsewhere {
        record,
        red,
        message,
    } = done;
    // A red run exits 0 when it fails there as it should; a base run is recorded either way.
    let exit = u8::from(red.is_some_and(|o| o != RedOutcome::Red));
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

/// `goal verify --mutants`: the record, its result, the exit code (2: a tool is missing).
fn mutants(
    ctx: &Ctx,
    ws: &Workspace,
    goal: &crate::goal_file::GoalFile,
    criteria: &[usize],
) -> Result<u8> {
    use crate::ops::mutants as m;
    let record = m::verify(ws, goal, criteria)?;
    let Some(mutation) = record.mutants.as_ref() else {
        return Ok(1);
    };
    let min = crate::ops::settings::of_goal(ws, goal).mutants_min;
    let exit = u8::from(!mutation.refusals(min).is_empty());
    if ctx.json {
        ctx.emit_json(&serde_json::json!({
            "record": record,
            "mutants": mutation,
            "passes": exit == 0,
        }))?;
    } else {
        for line in m::shown(mutation) {
            ctx.note(line);
        }
        ctx.note(format!("mutants record {}", record.id));
        if !mutation.survivors.is_empty() || !mutation.unneeded.is_empty() {
            ctx.note(format!("hint: {}", crate::mutants::SURVIVOR_MEANS));
        }
    }
    Ok(exit)
}

/// The exit code of one run: the command's own when it failed, 1 when it exited 0 but proved
/// nothing, 0 when its evidence passes.
fn exit_code(record: &Record) -> u8 {
    if record.exit_code != 0 {
        u8::try_from(record.exit_code).unwrap_or(1).max(1)
    } else {
        u8::from(!record.proves())
    }
}

fn tests_words(record: &Record) -> String {
    match record.tests {
        Some(t) => format!(
            "tests {} passed, {} failed, {} ignored",
            t.passed, t.failed, t.ignored
        ),
        None => crate::summary::no_summary_words(&record.output_tail.join("\n")),
    }
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
