//! `goal verify`: run a test command (or the criteria's pins) and record evidence bound to the
//! working tree, ticking each criterion it proves and unticking one it does not; or one pin's run
//! on the red tree or the goal's base tree.

use std::path::PathBuf;
use std::time::Instant;

use crate::context::now_rfc3339;
use crate::error::{Error, Result};
use crate::evidence::{self, NewRecord, Record};
use crate::goal_file::GoalFile;
use crate::pin;
use crate::repo::Oid;
use crate::summary;
use crate::surface::judge::{self, RedOutcome};
use crate::workspace::Workspace;

use super::red::{self as run, Place};

/// What `goal verify` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The criteria the run is for (`-c`, as given).
    pub criteria: Vec<usize>,
    pub check: bool,
    pub junit: Vec<String>,
    /// Run the pin on the red tree (`--red`) or record a guard's base run (`--base`).
    pub red: bool,
    pub base: bool,
    /// The command given after `--` (empty: the pins).
    pub argv: Vec<String>,
    /// Where the command was started (a given command runs there, a pin at the worktree root).
    pub cwd: PathBuf,
    /// `--json`: the command's output goes to stderr, stdout keeps the one document.
    pub json: bool,
}

/// What a red or base run came to: its record (None when nothing ran: an untrustworthy red
/// tree), the red run's outcome (None for a base run), and the sentence that says it.
pub struct Elsewhere {
    pub record: Option<Record>,
    pub red: Option<RedOutcome>,
    pub message: String,
}

/// One command to run and the criteria its evidence is for.
pub struct Run {
    pub argv: Vec<String>,
    /// Where it runs, and the same relative to the worktree root.
    pub dir: PathBuf,
    pub cwd: String,
    pub criteria: Vec<(usize, String)>,
    /// Accept it without a test summary: `--check`, or a pin last proven as a check.
    pub check: bool,
    /// It runs a guard's pin: without a test summary it is a check (a linter), untold.
    pub guard: bool,
}

/// What the command line asks for: one given command, or the pinned ones.
pub fn plan(
    ws: &Workspace,
    goal: &GoalFile,
    ledger: &crate::evidence::Ledger,
    args: &Options,
) -> Result<Vec<Run>> {
    let mut numbers = Vec::new();
    for &n in &args.criteria {
        let n = super::criterion_number(goal, n)?;
        if !numbers.contains(&n) {
            numbers.push(n);
        }
    }
    if args.argv.is_empty() {
        pinned_runs(ws, goal, ledger, args, &numbers)
    } else {
        given_run(ws, goal, args, &numbers).map(|run| vec![run])
    }
}

/// `goal verify [-c N…] -- <command>`: the command given, for the criteria named (none pinned to
/// another command), at the worktree root when one of them is pinned.
fn given_run(ws: &Workspace, goal: &GoalFile, args: &Options, numbers: &[usize]) -> Result<Run> {
    let text = |n: usize| goal.criteria[n - 1].text.clone();
    if let Some(why) = pin::self_grading(&args.argv) {
        return Err(Error::NotEvidence {
            command: pin::render(&args.argv),
            criterion: None,
            why,
        });
    }
    for &n in numbers {
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
                    "run its pin with `goal verify -c {n}`, or {}",
                    crate::person::offer(
                        "change the pin",
                        &format!("goal criteria pin {n} --confirm -- <command>")
                    )
                ),
            ));
        }
    }
    // A pin runs at the worktree root, wherever `goal verify` was started.
    let pinned = numbers.iter().any(|&n| pin::argv(&text(n)).is_some());
    let (dir, cwd) = if pinned {
        (ws.root().to_path_buf(), String::new())
    } else {
        (args.cwd.clone(), ws.here.clone())
    };
    let guard = numbers
        .iter()
        .any(|&n| pin::kind(&text(n)) == Some(pin::Kind::Guard));
    Ok(Run {
        argv: args.argv.clone(),
        dir,
        cwd,
        criteria: numbers.iter().map(|&n| (n, text(n))).collect(),
        check: args.check,
        guard,
    })
}

/// No command: the pins (of the criteria named, else of all that have one), each distinct one
/// once, in criterion order, at the worktree root.
fn pinned_runs(
    ws: &Workspace,
    goal: &GoalFile,
    ledger: &crate::evidence::Ledger,
    args: &Options,
    numbers: &[usize],
) -> Result<Vec<Run>> {
    let text = |n: usize| goal.criteria[n - 1].text.clone();
    let wanted: Vec<usize> = if numbers.is_empty() {
        (1..=goal.criteria.len()).collect()
    } else {
        numbers.to_vec()
    };
    let mut runs: Vec<Run> = Vec::new();
    for n in wanted {
        let Some(argv) = pin_of(n, &text(n), !numbers.is_empty())? else {
            continue;
        };
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

/// Criterion `n`'s pin (refused when it does not parse or grades itself); None when it has
/// none and was not `named` (a criterion named without a pin and without a command is refused).
fn pin_of(n: usize, text: &str, named: bool) -> Result<Option<Vec<String>>> {
    let argv = match pin::parse(text) {
        Some(Ok(p)) => p.argv,
        Some(Err(why)) => return Err(Error::BadPin { number: n, why }),
        None if !named => return Ok(None),
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
        return Err(Error::NotEvidence {
            command: pin::render(&argv),
            criterion: Some(n),
            why,
        });
    }
    Ok(Some(argv))
}

/// `goal verify --red -c N` / `--base -c N`: one criterion's pin on the red tree or the base tree.
pub fn elsewhere(ws: &Workspace, goal: &GoalFile, args: &Options) -> Result<Elsewhere> {
    let (n, text, pinned) = elsewhere_pin(goal, args)?;
    refuse_broken_chain(ws)?;
    let place = Place::of(ws)?;
    let _hush = crate::context::hush_if(args.json);
    if args.red {
        let (record, outcome) = run::red_run(ws, &place, n, &text, &pinned.argv, &args.junit)?;
        if record.is_some() && outcome == judge::RedOutcome::Red {
            // The pin is known and seen red: its base run is kept for `goal done` (a red run
            // that could not run there, or passed, says the base run would tell nothing yet).
            run::keep_base_run(ws, &place, n, &text, &pinned.argv, &args.junit)?;
        }
        let environment = record.as_ref().and_then(judge::environment_of);
        let message =
            judge::outcome_message(n, &outcome, environment.as_deref()).unwrap_or_else(|| {
                format!("criterion {n} fails on the code before the goal, as it should (red)")
            });
        return Ok(Elsewhere {
            record,
            red: Some(outcome),
            message,
        });
    }
    let record = run::base_run(ws, &place, n, &text, &pinned.argv, &args.junit, None)?;
    let message = if record.passes() {
        format!("guard {n} on the goal's base: recorded")
    } else {
        format!(
            "guard {n} fails on the goal's base ({}): `goal done` compares it with the end all the same",
            record.failure_reason()
        )
    };
    Ok(Elsewhere {
        record: Some(record),
        red: None,
        message,
    })
}

/// The base run of each acceptance criterion a failing run of `runs` (its record in `records`,
/// one for one) witnessed red on the working tree itself (the tests written, the code not yet
/// changed: the working tree is its red tree), when the ledger has none made with the dependency
/// lock files as they are: made now, once per pin, so that `goal done` need not. Nothing for a
/// goal with no base to run on.
pub fn keep_base_runs(
    ws: &Workspace,
    runs: &[Run],
    records: &[Record],
    args: &Options,
) -> Result<()> {
    let _hush = crate::context::hush_if(args.json);
    let red: Vec<(&Run, &Record)> = runs
        .iter()
        .zip(records)
        .filter(|(run, record)| {
            !record.passes()
                && record.cut_off.is_none()
                && judge::environment_of(record).is_none()
                && run
                    .criteria
                    .iter()
                    .any(|(_, t)| pin::kind(t) == Some(pin::Kind::Acceptance))
        })
        .collect();
    if red.is_empty() || crate::history::init_commit(&ws.repo)?.is_none() {
        return Ok(());
    }
    let Ok(place) = Place::of(ws) else {
        return Ok(());
    };
    for (run, record) in red {
        if !place.target.trusted || record.tree != place.target.tree {
            continue;
        }
        for (n, text) in &run.criteria {
            if let Some(Ok(p)) = pin::parse(text)
                && p.kind == pin::Kind::Acceptance
            {
                run::keep_base_run(ws, &place, *n, text, &p.argv, &args.junit)?;
            }
        }
    }
    Ok(())
}

/// Which pin `--red`/`--base` runs: the one criterion given with -c, its text and its pin,
/// refused when there is not exactly one, it has no pin (or a broken one), the pin's kind does
/// not run there (a guard's red run, an acceptance criterion's base run), or it grades itself.
fn elsewhere_pin(goal: &GoalFile, args: &Options) -> Result<(usize, String, pin::Pin)> {
    let flag = if args.red { "--red" } else { "--base" };
    let [n] = args.criteria[..] else {
        return Err(Error::usage(
            format!("{flag} runs one criterion's pin: give it with -c"),
            format!("goal verify {flag} -c <N>"),
        ));
    };
    let n = super::criterion_number(goal, n)?;
    let text = goal.criteria[n - 1].text.clone();
    let pinned = match pin::parse(&text) {
        Some(Ok(p)) => p,
        Some(Err(why)) => {
            return Err(Error::BadPin { number: n, why });
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
        return Err(Error::NotEvidence {
            command: pinned.command,
            criterion: Some(n),
            why,
        });
    }
    Ok((n, text, pinned))
}

/// evidence.jsonl must verify before anything is appended to it.
pub fn refuse_broken_chain(ws: &Workspace) -> Result<()> {
    let ledger = ws.ledger()?;
    if let Err(reason) = ledger.verify_chain() {
        return Err(Error::BrokenLedger {
            path: ws.evidence_rel(),
            reason,
            appending: true,
        });
    }
    Ok(())
}

/// Run one command and record its evidence.
pub fn run_one(ws: &Workspace, run: &Run, args: &Options) -> Result<Record> {
    let before_full = ws.worktree_tree_full()?;
    let tree = ws.repo.tree_without(before_full, &ws.goal_dir)?.to_string();
    let started = now_rfc3339();
    let started_at = std::time::SystemTime::now();
    let clock = Instant::now();
    if !args.json {
        crate::context::status_line(format!(
            "goal: running `{}`{}",
            pin::render(&run.argv),
            match run.cwd.as_str() {
                "" => String::new(),
                cwd => format!(" in {cwd}"),
            }
        ));
    }
    // The pin's runner asked to name each test (what it reports, never what it selects).
    let naming = crate::naming::naming(&run.argv, &|k| std::env::var(k).ok());
    let (exit_code, output) =
        crate::child::run_teed_env(&naming.argv, &run.dir, args.json, &naming.env)?;
    let cut_off = crate::child::take_cut_off();
    let duration_ms = clock.elapsed().as_millis() as u64;
    let tests = tests_counted(run, args, &String::from_utf8_lossy(&output), started_at);
    let after_full = ws.worktree_tree_full()?;
    let effects = what_the_run_changed(ws, before_full, after_full)?;

    let _lock = ws.lock()?;
    let ledger = ws.ledger()?;
    let names = crate::test_names::from_output(&String::from_utf8_lossy(&output));
    let (record, line) = evidence::seal_cut(
        NewRecord {
            criteria: run.criteria.clone(),
            argv: run.argv.clone(),
            cwd: run.cwd.clone(),
            exit_code,
            started,
            duration_ms,
            tree,
            tree_after: effects.tree_after,
            created: effects.created,
            changed: effects.changed,
            tests,
            junit: args.junit.clone(),
            check: run.check || (run.guard && tests.is_none()),
            output,
        },
        evidence::Extra {
            names: Some(names),
            ran: naming.shown(&run.argv),
            ..Default::default()
        },
        cut_off,
        &ledger.head_hash(),
    );
    super::red::append_line(ws, &record, &line)?;
    tick_as_recorded(ws, run, &record)?;
    Ok(record)
}

/// What the run's tests came to: the output's summary (warned about when the command itself
/// writes it), replaced by the `--junit` reports when given (zero tests when they do not read).
fn tests_counted(
    run: &Run,
    args: &Options,
    text: &str,
    started_at: std::time::SystemTime,
) -> Option<summary::TestCounts> {
    let (mut tests, echoed) = summary::recognise_run_noting(&run.argv, text);
    if echoed {
        crate::context::note(
            "warning: the output's test summary is written in the command itself: it is no test's result and proves nothing",
        );
    }
    if !args.junit.is_empty() {
        // The reports are the authority on what ran: they replace the output's summary. A
        // report this run did not write proves nothing (zero tests).
        tests = Some(
            match crate::surface::junit_reports::read(&args.junit, &run.dir, started_at) {
                Ok((counts, _)) => counts,
                Err(why) => {
                    crate::context::note(format!("warning: --junit: {why}; it proves nothing"));
                    summary::TestCounts::default()
                }
            },
        );
    }
    tests
}

/// What a run did to the working tree: the files it created (or rewrote untracked), the tracked
/// files it changed, and the tree its evidence also holds for when it changed no tracked file.
struct RunEffects {
    created: Vec<String>,
    changed: Vec<String>,
    tree_after: Option<String>,
}

/// Which files the run created or changed between the full trees before and after it.
fn what_the_run_changed(ws: &Workspace, before_full: Oid, after_full: Oid) -> Result<RunEffects> {
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
    Ok(RunEffects {
        created,
        changed,
        tree_after,
    })
}

/// Tick each of the run's criteria the record proves (untick those it does not), when the goal
/// still has the same criterion, and write the goal.
fn tick_as_recorded(ws: &Workspace, run: &Run, record: &Record) -> Result<()> {
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
    Ok(())
}
