//! The goal's change under mutation on the working tree as it is now: every hunk of its
//! code reverted alone in the kept worktree (each must turn some acceptance pin red), then the
//! ecosystem's mutation tools over the functions it changed; the result is a `mutants` record in the
//! ledger, bound to the tree, that never changes a criterion's state. `goal verify --mutants`
//! makes one; `goal done` makes (or reuses) one when the goal's `mutants` setting is on.

mod tools;

use crate::context::now_rfc3339;
use crate::error::{Error, Result};
use crate::evidence::{self, NewRecord, Record};
use crate::goal_file::{GoalFile, Mutants};
use crate::mutants::hunks::{self, FileChange};
use crate::mutants::{Mutation, Sample, Totals, Unneeded};
use crate::ops::red::Place;
use crate::pin;
use crate::repo::{Oid, TreeChange};
use crate::surface::tree_run::{TreeRunOptions, run_in_tree};
use crate::workspace::Workspace;

/// The argv a `mutants` record names (it is no pin: nothing replays it as one).
pub const RECORD_ARGV: [&str; 3] = ["goal", "verify", "--mutants"];

/// An acceptance criterion's pin: its number, text and command.
pub struct Pin {
    pub number: usize,
    pub text: String,
    pub argv: Vec<String>,
}

/// The goal's acceptance pins.
pub fn acceptance_pins(goal: &GoalFile) -> Vec<Pin> {
    goal.criteria
        .iter()
        .filter(|c| pin::kind(&c.text) == Some(pin::Kind::Acceptance))
        .filter_map(|c| {
            Some(Pin {
                number: c.number,
                text: c.text.clone(),
                argv: pin::argv(&c.text)?,
            })
        })
        .collect()
}

/// `goal verify --mutants [-c N]…`: the check with the acceptance pins (of `criteria`, when
/// given), recorded; a tool missing records nothing.
pub fn verify(ws: &Workspace, goal: &GoalFile, criteria: &[usize]) -> Result<Record> {
    for &n in criteria {
        let number = super::criterion_number(goal, n)?;
        let text = &goal.criteria[number - 1].text;
        if pin::kind(text) != Some(pin::Kind::Acceptance) {
            return Err(Error::usage(
                format!(
                    "criterion {n} is not an acceptance criterion: its pin cannot kill mutants"
                ),
                "name an acceptance criterion (`(verify: `cmd`)`), or leave out -c to use them all",
            ));
        }
    }
    let mut goal = goal.clone();
    if !criteria.is_empty() {
        goal.criteria.retain(|c| criteria.contains(&c.number));
    }
    let place = Place::of(ws)?;
    let started = now_rfc3339();
    let clock = std::time::Instant::now();
    let work = ws.worktree_tree_full()?;
    let (mutation, output) = measure(ws, &place, work, &goal)?;
    // A tool that is not there measured nothing: nothing is recorded, the command fails as the
    // machine's (done, which must answer, records it and makes it again once the tool is there).
    if let Some(missing) = mutation.missing.first() {
        return Err(Error::ToolMissing {
            tool: missing.tool.clone(),
            install: missing.install.clone(),
        });
    }
    let pins = acceptance_pins(&goal);
    append(ws, &place, &pins, mutation, started, clock, output)
}

/// Run the check on the working tree now and append its `mutants` record (the caller holds the
/// worktree's lock when `place.locked`).
pub fn check(ws: &Workspace, place: &Place, goal: &GoalFile) -> Result<Record> {
    let started = now_rfc3339();
    let clock = std::time::Instant::now();
    let work = ws.worktree_tree_full()?;
    let (mutation, output) = measure(ws, place, work, goal)?;
    let pins = acceptance_pins(goal);
    append(ws, place, &pins, mutation, started, clock, output)
}

/// The goal's change under mutation on the tree `work` (the goal folder included or not), with
/// `goal`'s acceptance pins: the result and the tools' output.
pub fn measure(
    ws: &Workspace,
    place: &Place,
    work: Oid,
    goal: &GoalFile,
) -> Result<(Mutation, Vec<u8>)> {
    let pins = acceptance_pins(goal);
    let mut output = Vec::new();
    if pins.is_empty() {
        let m = Mutation {
            notes: vec![
                "the goal has no acceptance criteria: the mutation check is skipped".into(),
            ],
            ..empty()
        };
        return Ok((m, output));
    }
    let files = code_changes(ws, place, work)?;
    let mut m = empty();
    m.suppressed = hunks::suppressions(&files);
    m.suppressed.extend(tool_configs_changed(ws, place, work)?);
    if place.target.trusted {
        m.unneeded = unneeded(ws, place, work, &files, &pins, &mut m.hunks)?;
    } else {
        m.notes
            .push("the red tree is not trustworthy: no change was reverted".into());
    }
    // A tool's run mutates and tests many times: it gets the pins' time bound once per pin
    // and once more.
    let _longer = crate::child::LongerRuns::by(u32::try_from(pins.len() + 1).unwrap_or(u32::MAX));
    tools::run_all(ws, place, work, &files, &pins, &mut m, &mut output)?;
    m.score = m.totals.score();
    Ok((m, output))
}

fn empty() -> Mutation {
    Mutation {
        hunks: 0,
        unneeded: Vec::new(),
        tools: Vec::new(),
        totals: Totals::default(),
        sample: Sample::default(),
        score: None,
        survivors: Vec::new(),
        missing: Vec::new(),
        notes: Vec::new(),
        failed: Vec::new(),
        suppressed: Vec::new(),
        unchecked: Vec::new(),
    }
}

/// The goal's change to its code: the red tree (the base's code, the final tests) against the
/// working tree, source files only, as text (a file that is not UTF-8 is left out).
/// The mutation tools' configuration files the goal changed (`<file>: configuration changed`).
fn tool_configs_changed(ws: &Workspace, place: &Place, work: Oid) -> Result<Vec<String>> {
    Ok(ws
        .repo
        .changed_files(Some(place.red.tree), work, &ws.goal_dir)?
        .into_iter()
        .filter(|(path, _, _)| hunks::is_tool_config(path))
        .map(|(path, _, _)| format!("{path}: the tool's configuration changed"))
        .collect())
}

fn code_changes(ws: &Workspace, place: &Place, work: Oid) -> Result<Vec<FileChange>> {
    let text = |id: Option<Oid>| -> Result<Option<String>> {
        match id {
            Some(id) => Ok(String::from_utf8(ws.repo.blob_bytes(id)?).ok()),
            None => Ok(None),
        }
    };
    let mut out = Vec::new();
    for (path, before, after) in ws
        .repo
        .changed_files(Some(place.red.tree), work, &ws.goal_dir)?
    {
        if !hunks::is_source(&path) {
            continue;
        }
        let (b, a) = (text(before)?, text(after)?);
        if (before.is_some() && b.is_none()) || (after.is_some() && a.is_none()) {
            continue;
        }
        out.push(FileChange {
            path,
            before: b,
            after: a,
        });
    }
    Ok(out)
}

/// Revert each hunk (or file) of the plan alone and run the pins until one fails: a reversion
/// that leaves them all green is an unneeded change. `made` counts the reversions.
fn unneeded(
    ws: &Workspace,
    place: &Place,
    work: Oid,
    files: &[FileChange],
    pins: &[Pin],
    made: &mut usize,
) -> Result<Vec<Unneeded>> {
    let plan = hunks::plan(files);
    let mut out = Vec::new();
    for (i, r) in plan.iter().enumerate() {
        crate::context::note(format!(
            "mutants: reverting the change at {}:{} ({} of {}) and running the acceptance pins…",
            r.path,
            r.line,
            i + 1,
            plan.len()
        ));
        let change = match &r.text {
            Some(text) => TreeChange::Upsert {
                path: r.path.clone(),
                id: ws.repo.write_blob(text.as_bytes())?,
                mode: 0o100644,
            },
            None => TreeChange::Remove {
                path: r.path.clone(),
            },
        };
        let tree = ws.repo.update_tree(work, &[change])?;
        *made += 1;
        if !any_red(ws, place, tree, pins)? {
            out.push(Unneeded {
                file: r.path.clone(),
                line: r.line,
            });
        }
    }
    Ok(out)
}

/// Whether some pin fails on `tree` (run one after the other, stopping at the first red).
fn any_red(ws: &Workspace, place: &Place, tree: Oid, pins: &[Pin]) -> Result<bool> {
    for p in pins {
        let run = run_in_tree(&ws.repo, place.head, tree, &p.argv, &options(ws, false))?;
        let failed = run.exit_code != 0 || run.tests.is_some_and(|t| t.failed > 0);
        if failed {
            return Ok(true);
        }
    }
    Ok(false)
}

pub(super) fn options(ws: &Workspace, show: bool) -> TreeRunOptions<'_> {
    TreeRunOptions {
        work_root: ws.root(),
        git_dir: ws.repo.common_dir(),
        cwd: "",
        junit: &[],
        show,
        to_stderr: true,
        keep: true,
        name_tests: false,
    }
}

/// Seal the `mutants` record on the working tree (without the goal folder) and append it.
fn append(
    ws: &Workspace,
    place: &Place,
    pins: &[Pin],
    mutation: Mutation,
    started: String,
    clock: std::time::Instant,
    output: Vec<u8>,
) -> Result<Record> {
    let clean = mutation.unneeded.is_empty()
        && mutation.survivors.is_empty()
        && mutation.missing.is_empty();
    let new = NewRecord {
        criteria: pins.iter().map(|p| (p.number, p.text.clone())).collect(),
        argv: RECORD_ARGV.iter().map(|s| s.to_string()).collect(),
        cwd: String::new(),
        exit_code: i32::from(!clean),
        started,
        duration_ms: clock.elapsed().as_millis() as u64,
        tree: ws.worktree_tree()?.to_string(),
        tree_after: None,
        created: Vec::new(),
        changed: Vec::new(),
        tests: None,
        junit: Vec::new(),
        check: false,
        output,
    };
    let _lock = if place.locked { None } else { Some(ws.lock()?) };
    let ledger = ws.ledger()?;
    let (record, line) = evidence::seal_mutation(new, mutation, &ledger.head_hash());
    super::red::append_line(ws, &record, &line)?;
    Ok(record)
}

/// The latest counted `mutants` record on `tree` (the working tree without the goal folder).
pub fn latest<'a>(ledger: &'a evidence::Ledger, tree: &str) -> Option<&'a Record> {
    ledger
        .records
        .iter()
        .rev()
        .find(|r| r.mutants.is_some() && r.on_tree(tree) && ledger.counts(r))
}

/// `goal done`'s mutation check, by the goal's `mutants` setting: off, nothing; report, the
/// result shown (a missing tool a note); gate, refused below `mutants_min`, on an unneeded
/// change or a missing tool, unless a person confirms. Reuses a record already made on this
/// tree. The result, for the summary.
pub fn done_check(ws: &Workspace, goal: &GoalFile, confirm: bool) -> Result<Option<DoneMutation>> {
    let settings = super::settings::of_goal(ws, goal);
    if settings.mutants == Mutants::Off {
        return Ok(None);
    }
    let tree = ws.worktree_tree()?.to_string();
    let all: Vec<usize> = acceptance_pins(goal).iter().map(|p| p.number).collect();
    let ledger = ws.ledger()?;
    // A record that found a tool missing is made again once the tool is there.
    let made = latest(&ledger, &tree).filter(|r| {
        r.criteria == all
            && !r
                .mutants
                .as_ref()
                .is_some_and(|m| tools::installed_since(ws.root(), &m.missing))
    });
    let record = match made {
        Some(r) => r.clone(),
        None => {
            crate::context::note(
                "mutants: checking that every change is needed and that the tests notice its mutants…",
            );
            let mut place = Place::of(ws)?;
            place.locked = true;
            check(ws, &place, goal)?
        }
    };
    let Some(mutation) = record.mutants else {
        return Ok(None);
    };
    for line in shown(&mutation) {
        crate::context::note(line);
    }
    let refusals = if settings.mutants == Mutants::Gate {
        mutation.refusals(settings.mutants_min)
    } else {
        Vec::new()
    };
    if !confirm && !refusals.is_empty() {
        return Err(Error::not_proven(
            format!(
                "the goal's change under mutation (record {}):\n  {}",
                record.id,
                refusals.join("\n  ")
            ),
            format!(
                "{}; then `goal verify --mutants` and `goal done`, or {}",
                crate::mutants::SURVIVOR_MEANS,
                crate::person::offer("accept it", "goal done --confirm")
            ),
        ));
    }
    Ok(Some(DoneMutation {
        mutation,
        confirmed: refusals,
    }))
}

/// What `goal done`'s mutation check let through: the result, and the gate's refusals a person
/// confirmed (one `Goal-Mutants-Confirmed` trailer each).
pub struct DoneMutation {
    pub mutation: Mutation,
    pub confirmed: Vec<String>,
}

/// What people are shown of a result: its line, the unneeded changes, the survivors, the
/// missing tools, the tools whose results could not be read, and the notes.
pub fn shown(m: &Mutation) -> Vec<String> {
    let mut out = vec![format!("mutants: {}", m.line())];
    out.extend(
        m.unneeded
            .iter()
            .map(|u| format!("mutants: {}", u.describe())),
    );
    out.extend(
        m.survivors
            .iter()
            .map(|s| format!("mutants: survived {}", s.describe())),
    );
    out.extend(
        m.missing
            .iter()
            .map(|t| format!("mutants: {}", t.describe())),
    );
    out.extend(
        m.failed
            .iter()
            .map(|f| format!("mutants: {f}: its mutants are unknown")),
    );
    out.extend(
        m.suppressed
            .iter()
            .map(|s| format!("mutants: code hidden from the tools at {s}")),
    );
    if !m.unchecked.is_empty() {
        out.push(format!("mutants: {}", m.unchecked_text()));
    }
    out.extend(m.notes.iter().map(|n| format!("mutants: {n}")));
    out
}

pub use crate::mutants::MutationView;

/// The goal's last `mutants` record, as shown (None: none was made).
pub fn view(ledger: &evidence::Ledger, tree: &str) -> Option<MutationView> {
    ledger.mutation_view(tree)
}

/// `goal audit --rerun`: the goal's last `mutants` record made again at the commit whose code it
/// was made on (`commit`, its tree `tree`), over the goal's `base`: whether the replay agrees (the
/// same totals, unneeded changes and survivors) and what it saw.
pub fn replay(
    ws: &Workspace,
    commit: Oid,
    tree: Oid,
    base: Option<Oid>,
    recorded: &Mutation,
) -> Result<(bool, Mutation)> {
    let bytes = ws
        .repo
        .file_in_tree(tree, &ws.goal_rel)?
        .unwrap_or_default();
    let goal = GoalFile::parse(&String::from_utf8_lossy(&bytes)).map_err(|e| {
        Error::refused(
            format!(
                "the goal file at {} does not parse: {e}",
                super::short(commit)
            ),
            "see it with `git show <commit>:.agents/goal/GOAL.md`",
        )
    })?;
    let surface = crate::surface::surface_of(&goal.settings)?;
    let (red, target) =
        crate::surface::tree_run::red_target(&ws.repo, base, tree, &ws.goal_dir, &surface)?;
    let base_tree_full = match base {
        Some(b) => ws.repo.commit_info(b)?.tree,
        None => ws.repo.empty_tree()?,
    };
    let place = Place {
        locked: true,
        base,
        head: commit,
        red,
        target,
        base_tree: ws.repo.tree_without(base_tree_full, &ws.goal_dir)?,
        base_tree_full,
    };
    let hush = crate::context::hush();
    let (seen, _) = measure(ws, &place, tree, &goal)?;
    drop(hush);
    let same = seen.totals == recorded.totals
        && seen.unneeded == recorded.unneeded
        && seen.survivors == recorded.survivors;
    Ok((same, seen))
}
