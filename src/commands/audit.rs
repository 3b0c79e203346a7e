//! `goal audit`: what a reviewer (or CI) can check of a goal from git alone, and `--rerun` to
//! replay its evidence.

use serde::Serialize;

use crate::audit::review;
use crate::audit::{
    self, CommitCheck, CriterionAudit, GoalAudit, Problem, RunOutcome, WeakenedFinding,
};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::history::MaterialEntry;
use crate::pin;
use crate::workspace::Workspace;

/// Check every goal commit in a revision range: the Goal-* trailers agree with the committed
/// GOAL.md, the evidence chain verifies, every tick is proven by a record on the tree of the
/// commit that ticked it, and material changes and hand-made commits are listed. For each
/// criterion, the record that decides it is shown.
///
/// --rerun replays each deciding record in a temporary worktree at the commit that has its
/// tree, and compares exit code and test counts: reproduced, not reproduced, cannot run. It also
/// runs each deciding test command on the goal's base (red before green): a test that already
/// passed there is flagged passes-on-base. Replay runs the branch's code: only pinned commands
/// run, unless --allow-unpinned; each is printed before it runs; nothing runs from an evidence
/// chain that does not verify.
///
/// Exit 0 only when everything checks (and, with --rerun, reproduces); 1 otherwise.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The commits to audit, as git understands a range (e.g. origin/main..HEAD). Default: the
    /// current goal, or the last finished one.
    #[arg(value_name = "REV-RANGE")]
    pub range: Option<String>,
    /// Replay each criterion's deciding record, and run its test on the goal's base tree.
    #[arg(long)]
    pub rerun: bool,
    /// Also replay records whose command is not the criterion's pinned one (code from the
    /// branch runs: read it first).
    #[arg(long)]
    pub allow_unpinned: bool,
    /// A test that passes on the goal's base tree fails the audit (otherwise a warning), and so
    /// does every confirmation the goal's commits record (weakened tests, guards only, a
    /// material change, a settings change), each listed.
    #[arg(long)]
    pub strict: bool,
    /// text, or github: workflow annotations (::error, ::warning) at GOAL.md's lines.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Github,
}

#[derive(Debug, Serialize)]
struct GoalView<'a> {
    goal: &'a str,
    status: &'a str,
    hand_made_status: bool,
    iteration: u64,
    init: Option<&'a str>,
    base: Option<&'a str>,
    chain_ok: bool,
}

#[derive(Debug, Serialize)]
struct AuditView<'a> {
    range: Option<&'a str>,
    ok: bool,
    rerun: bool,
    goals: Vec<GoalView<'a>>,
    criteria: Vec<&'a CriterionAudit>,
    commits: Vec<&'a CommitCheck>,
    problems: Vec<&'a Problem>,
    material_changes: Vec<&'a MaterialEntry>,
    tests_weakened: Vec<WeakenedView<'a>>,
    /// Each goal's last `mutants` record with the goal it belongs to.
    mutation: Vec<MutationView<'a>>,
    /// With `--rerun`: each of those records made again at its commit.
    mutation_replays: &'a [MutationReplay],
    /// Every confirmation the goals' commits record (`--strict` fails on any).
    confirmations: Vec<&'a crate::audit::Confirmation>,
}

/// A goal's last `mutants` record with the goal it belongs to (an index into `goals`).
#[derive(Debug, Serialize)]
struct MutationView<'a> {
    goal: usize,
    #[serde(flatten)]
    mutation: &'a crate::mutants::MutationView,
}

/// A goal's `mutants` record made again (`--rerun`): whether the replay agrees, what it saw.
#[derive(Debug, Serialize)]
struct MutationReplay {
    goal: usize,
    record: String,
    same: bool,
    replayed: crate::mutants::Mutation,
}

/// Make each goal's last `mutants` record again at the commit whose code it was made on.
fn replay_mutations(ws: &Workspace, goals: &[GoalAudit]) -> Result<Vec<MutationReplay>> {
    let mut out = Vec::new();
    for (i, g) in goals.iter().enumerate() {
        let Some(view) = &g.mutation else { continue };
        // The last commit of that code that still holds the goal (the done commit removes it).
        let mut at = None;
        for (commit, code) in g.trees.iter().rev() {
            let tree = ws.repo.commit_info(*commit)?.tree;
            if *code == view.tree && ws.repo.file_in_tree(tree, &ws.goal_rel)?.is_some() {
                at = Some((*commit, tree));
                break;
            }
        }
        let Some((commit, tree)) = at else { continue };
        let (same, replayed) =
            crate::ops::mutants::replay(ws, commit, tree, g.base_commit, &view.result)?;
        out.push(MutationReplay {
            goal: i,
            record: view.record.clone(),
            same,
            replayed,
        });
    }
    Ok(out)
}

/// A weakening finding with the goal it belongs to (an index into `goals`).
#[derive(Debug, Serialize)]
struct WeakenedView<'a> {
    goal: usize,
    #[serde(flatten)]
    finding: &'a WeakenedFinding,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    if ctx.json && args.format == Format::Github {
        return Err(Error::usage(
            "--json and --format github cannot be used together",
            "pick one: `goal audit --json` or `goal audit --format github`",
        ));
    }
    // Replaying needs a worktree to check commits out from; reading history does not.
    let ws = if args.rerun {
        Workspace::open(ctx)?
    } else {
        Workspace::open_history(ctx)?
    };
    let options = review::Options {
        range: args.range.as_deref(),
        rerun: args.rerun,
        allow_unpinned: args.allow_unpinned,
        strict: args.strict,
    };
    let goals = review::audit(&ws, &options)?;
    let mut ok = review::verdict(&goals, &options);
    let replays = if args.rerun {
        replay_mutations(&ws, &goals)?
    } else {
        Vec::new()
    };
    ok &= replays.iter().all(|r| r.same);
    if ctx.json {
        ctx.emit_json(&audit_view(&args, &goals, &replays, ok))?;
    } else {
        print_text(ctx, &goals, &args, ok);
        print_replays(ctx, &replays);
        if args.format == Format::Github {
            print_annotations(&ws, &goals, &args);
        }
    }
    Ok(u8::from(!ok))
}

/// The audit as `--json` shows it: the goals, and each of their findings with the goal it
/// belongs to.
fn audit_view<'a>(
    args: &'a Args,
    goals: &'a [GoalAudit],
    replays: &'a [MutationReplay],
    ok: bool,
) -> AuditView<'a> {
    AuditView {
        range: args.range.as_deref(),
        ok,
        rerun: args.rerun,
        goals: goals
            .iter()
            .map(|g| GoalView {
                goal: &g.goal,
                status: &g.status,
                hand_made_status: g.hand_made_status,
                iteration: g.iteration,
                init: g.init.as_deref(),
                base: g.base.as_deref(),
                chain_ok: g.chain_ok,
            })
            .collect(),
        criteria: goals.iter().flat_map(|g| &g.criteria).collect(),
        commits: goals.iter().flat_map(|g| &g.commits).collect(),
        problems: goals.iter().flat_map(|g| &g.problems).collect(),
        material_changes: goals.iter().flat_map(|g| &g.material_changes).collect(),
        confirmations: goals.iter().flat_map(|g| &g.confirmations).collect(),
        mutation_replays: replays,
        mutation: goals
            .iter()
            .enumerate()
            .filter_map(|(goal, g)| {
                Some(MutationView {
                    goal,
                    mutation: g.mutation.as_ref()?,
                })
            })
            .collect(),
        tests_weakened: goals
            .iter()
            .enumerate()
            .flat_map(|(goal, g)| {
                g.tests_weakened
                    .iter()
                    .map(move |finding| WeakenedView { goal, finding })
            })
            .collect(),
    }
}

/// Each `mutants` record made again with `--rerun`: whether the replay is the same.
fn print_replays(ctx: &Ctx, replays: &[MutationReplay]) {
    for r in replays {
        let verdict = if r.same {
            ctx.green("the same")
        } else {
            ctx.red("differs")
        };
        ctx.say(format!(
            "Mutation record {} replayed: {verdict} ({})",
            r.record,
            r.replayed.line()
        ));
    }
}

fn print_text(ctx: &Ctx, goals: &[GoalAudit], args: &Args, ok: bool) {
    if goals.is_empty() {
        ctx.say(format!(
            "No goal commits in {}: nothing to audit.",
            args.range.as_deref().unwrap_or("this history")
        ));
        return;
    }
    for g in goals {
        print_goal(ctx, g, args);
    }
    let verdict = if ok {
        ctx.green("audit: ok")
    } else {
        ctx.red("audit: FAILED")
    };
    let problems: usize = goals.iter().map(|g| g.problems.len()).sum();
    let mut tail = vec![format!("{problems} problem(s) in commits")];
    tail.extend(weakening_tail(goals));
    if args.rerun {
        tail.extend(rerun_tail(goals, args.strict));
    } else {
        tail.push("evidence not replayed (add --rerun)".into());
    }
    ctx.say(format!("{verdict} — {}", tail.join("; ")));
}

/// One goal: its commits and their problems, material changes, confirmations, its chain, the
/// mutation record, weakening findings and criteria.
fn print_goal(ctx: &Ctx, g: &GoalAudit, args: &Args) {
    ctx.say(format!(
        "{} {} ({}, iteration {})",
        ctx.bold("Goal:"),
        g.goal,
        crate::history::status_text(&g.status, g.hand_made_status),
        g.iteration
    ));
    for c in &g.commits {
        print_commit(ctx, c);
    }
    for m in &g.material_changes {
        ctx.say(format!(
            "  material change in {}: {}",
            audit::short_id(&m.commit),
            m.describe()
        ));
    }
    for c in &g.confirmations {
        let line = format!(
            "  confirmation ({}) in {}: {}{}",
            c.kind,
            audit::short_id(&c.commit),
            c.what,
            if args.strict {
                " — fails with --strict"
            } else {
                ""
            }
        );
        ctx.say(if args.strict { ctx.red(&line) } else { line });
    }
    if !g.chain_ok {
        ctx.say(ctx.red(
            "  the evidence chain of the goal's last state does not verify: no record of it counts, nothing of it is replayed",
        ));
    }
    if let Some(m) = &g.mutation {
        ctx.say(format!("  {}", m.line()));
    }
    print_weakening(ctx, g);
    for c in &g.criteria {
        print_criterion(ctx, c);
    }
}

fn print_commit(ctx: &Ctx, c: &crate::audit::CommitCheck) {
    let action = c.action.clone().unwrap_or_else(|| "hand-made".into());
    let mark = if c.problems.is_empty() {
        ctx.green("ok")
    } else {
        ctx.red("FAIL")
    };
    let skipped = if c.hooks_skipped {
        ctx.yellow("  [hooks-skipped]")
    } else {
        String::new()
    };
    ctx.say(format!(
        "  {}  {:<9} {mark}  {}{skipped}",
        audit::short_id(&c.commit),
        action,
        c.subject
    ));
    for p in &c.problems {
        ctx.say(format!("      {}", ctx.red(p)));
    }
}

fn print_weakening(ctx: &Ctx, g: &GoalAudit) {
    for f in &g.tests_weakened {
        let line = format!(
            "  tests weakened: {}{}",
            f.finding.trailer_value(),
            if f.confirmed {
                " (recorded with --confirm)"
            } else if f.refuses {
                " — not recorded with --confirm: `goal done` refuses this"
            } else {
                ""
            }
        );
        ctx.say(if review::fails(g, f) {
            ctx.red(&line)
        } else {
            ctx.yellow(&line)
        });
    }
    for u in &g.tests_unreadable {
        ctx.say(ctx.yellow(&format!(
            "  tests not read: {}: {} (its findings are unknown)",
            u.file, u.reason
        )));
    }
}

/// The summary's words on weakening findings, when there are any.
fn weakening_tail(goals: &[GoalAudit]) -> Option<String> {
    let weakened: usize = goals.iter().map(|g| g.tests_weakened.len()).sum();
    if weakened == 0 {
        return None;
    }
    let unrecorded = goals
        .iter()
        .flat_map(|g| &g.tests_weakened)
        .filter(|f| f.refuses && !f.confirmed)
        .count();
    let failing = goals
        .iter()
        .map(|g| {
            g.tests_weakened
                .iter()
                .filter(|f| review::fails(g, f))
                .count()
        })
        .sum::<usize>();
    let open = if unrecorded > failing {
        format!(
            " ({} in a goal not finished: `goal done` will refuse them)",
            unrecorded - failing
        )
    } else {
        String::new()
    };
    Some(format!(
        "{weakened} test weakening finding(s), {unrecorded} refusing and not recorded with --confirm{open}"
    ))
}

/// The summary's words on what `--rerun` replayed: pins, red runs, tests passing on the base.
fn rerun_tail(goals: &[GoalAudit], strict: bool) -> Vec<String> {
    let criteria = || goals.iter().flat_map(|g| &g.criteria);
    let count = |state: &str| {
        criteria()
            .filter(|c| c.replay.as_deref() == Some(state))
            .count()
    };
    let mut tail = vec![format!(
        "{} reproduced, {} not reproduced, {} cannot run, {} skipped",
        count("reproduced"),
        count("not reproduced"),
        count("cannot run"),
        count("skipped")
    )];
    // Red runs (acceptance criteria, on the red tree) and unpinned records on the base.
    let red_runs: Vec<&str> = criteria().filter_map(|c| c.red_replay.as_deref()).collect();
    if !red_runs.is_empty() {
        let n = |state: &str| red_runs.iter().filter(|r| **r == state).count();
        tail.push(format!(
            "{} red run(s) replayed: {} red, {} passes-on-base, {} inconclusive, {} cannot run",
            red_runs.len(),
            n("red"),
            n("passes-on-base"),
            n("inconclusive"),
            n("cannot run")
        ));
    }
    let on_base = criteria()
        .filter(|c| c.base.is_some() && c.flags.iter().any(|f| f == "passes-on-base"))
        .count();
    if on_base > 0 {
        tail.push(format!(
            "{on_base} test(s) pass on the goal's base (passes-on-base{})",
            if strict { ", fails with --strict" } else { "" }
        ));
    }
    tail
}

fn print_criterion(ctx: &Ctx, c: &CriterionAudit) {
    let tick = if c.ticked { "[x]" } else { "[ ]" };
    ctx.say(format!("  {tick} {}. {}", c.number, c.text));
    match &c.record {
        None => {
            if let Some(why) = &c.why {
                let line = format!("      {why}");
                ctx.say(if c.ticked { ctx.red(&line) } else { line });
            }
        }
        Some(record) => print_record(ctx, c, record),
    }
    if let Some(red) = &c.red {
        let line = match (red.state, &red.record) {
            (crate::surface::judge::RedState::Witnessed, Some(id)) => {
                ctx.green(&format!("red before green: witnessed by evidence {id}"))
            }
            (state, record) => {
                let line = format!(
                    "no red witness ({}{}): no run of its pin failed on the code before the goal with the tests as at the end",
                    state.as_str(),
                    record
                        .as_deref()
                        .map(|r| format!(", evidence {r}"))
                        .unwrap_or_default()
                );
                if c.flags.iter().any(|f| f == "no-red-witness") {
                    ctx.red(&line)
                } else {
                    ctx.yellow(&line)
                }
            }
        };
        ctx.say(format!("      {line}"));
    }
    if let (true, Some(base)) = (c.kind == "guard", &c.base) {
        let state = if base.exit_code == 0 { "green" } else { "red" };
        ctx.say(format!(
            "      guard on the goal's base: {state} ({})",
            base.describe()
        ));
    }
    match (c.red_replay.as_deref(), &c.red_replayed) {
        (Some("red"), Some(o)) => ctx.say(format!(
            "      {} ({})",
            ctx.green("red run replayed: fails on the code before the goal"),
            o.describe()
        )),
        (Some(state), o) => ctx.say(format!(
            "      {}: {}",
            ctx.red(&format!("red run replayed: {state}")),
            match state {
                "passes-on-base" => format!(
                    "its tests pass on the code before the goal ({}): they do not test the change",
                    o.map(|o| o.describe()).unwrap_or_default()
                ),
                "inconclusive" => "its tests did not run on the code before the goal".to_string(),
                _ => c.replay_reason.clone().unwrap_or_default(),
            }
        )),
        (None, _) => {}
    }
    if let (true, Some(base)) = (c.flags.iter().any(|f| f == "passes-on-base"), &c.base) {
        ctx.say(format!(
            "      {}: the test already passed on the goal's base ({}): it does not test what the goal added",
            ctx.yellow("warning: passes-on-base"),
            base.describe()
        ));
    }
}

/// The deciding record of a criterion and what replaying it came to.
fn print_record(ctx: &Ctx, c: &CriterionAudit, record: &crate::evidence::Record) {
    let unpinned = if c.pinned {
        ""
    } else {
        " — unpinned: the agent chose this command"
    };
    ctx.say(format!(
        "      evidence {} `{}` ({}) ticked in {}{unpinned}",
        record.id,
        pin::render(&record.argv),
        RunOutcome::of(record).describe(),
        c.commit.as_deref().map(audit::short_id).unwrap_or_default()
    ));
    match (c.replay.as_deref(), &c.replayed) {
        (Some("reproduced"), _) => ctx.say(format!("      {}", ctx.green("reproduced"))),
        (Some("not reproduced"), Some(replayed)) => ctx.say(format!(
            "      {}: recorded {}; replayed {}",
            ctx.red("not reproduced"),
            RunOutcome::of(record).describe(),
            replayed.describe()
        )),
        (Some(state), _) => ctx.say(format!(
            "      {}: {}",
            ctx.red(state),
            c.replay_reason.as_deref().unwrap_or("")
        )),
        (None, _) => {}
    }
}

/// A workflow command's message: `%`, CR and LF escaped as GitHub reads them.
pub(crate) fn escape(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// `--format github`: each finding of each goal as a workflow annotation, at GOAL.md's line
/// when it has one (confirmations, weakened tests, commit problems, then criteria).
fn print_annotations(ws: &Workspace, goals: &[GoalAudit], args: &Args) {
    let file = ws.goal_rel.to_string_lossy().into_owned();
    for g in goals {
        annotate_confirmations(&file, g, args.strict);
        annotate_weakening(g);
        for p in &g.problems {
            let commit = p.commit.as_deref().map(audit::short_id).unwrap_or_default();
            println!(
                "::error {}::{}",
                at(&file, p.line),
                escape(&format!("goal audit: commit {commit}: {}", p.message))
            );
        }
        for c in &g.criteria {
            annotate_criterion(&file, c, args.strict);
        }
    }
}

/// An annotation's place: GOAL.md, at a line when there is one.
fn at(file: &str, line: Option<usize>) -> String {
    match line {
        Some(n) => format!("file={file},line={n}"),
        None => format!("file={file}"),
    }
}

/// Every confirmation the goal's commits record: an error with `--strict`, else a warning.
fn annotate_confirmations(file: &str, g: &GoalAudit, strict: bool) {
    let kind = if strict { "error" } else { "warning" };
    for c in &g.confirmations {
        println!(
            "::{kind} {}::{}",
            at(file, None),
            escape(&format!(
                "goal audit: confirmation ({}) in {}: {}",
                c.kind,
                audit::short_id(&c.commit),
                c.what
            ))
        );
    }
}

/// Every weakening finding, at the test's own line: an error when it fails the audit.
fn annotate_weakening(g: &GoalAudit) {
    for f in &g.tests_weakened {
        let kind = if review::fails(g, f) {
            "error"
        } else {
            "warning"
        };
        println!(
            "::{kind} file={},line={}::{}",
            f.finding.file,
            f.finding.line,
            escape(&format!(
                "goal audit: tests weakened: {}{}",
                f.finding.trailer_value(),
                if f.confirmed {
                    " (recorded with --confirm)"
                } else {
                    ""
                }
            ))
        );
    }
}

/// A criterion's annotations at its line: its proof or replay failing, no red witness, and a
/// test that passes on the base (an error with `--strict`, else a warning).
fn annotate_criterion(file: &str, c: &CriterionAudit, strict: bool) {
    let line = Some(c.line);
    if let Some(message) = criterion_error(c) {
        println!("::error {}::{}", at(file, line), escape(&message));
    }
    if c.flags.iter().any(|f| f == "no-red-witness") {
        println!(
            "::error {}::{}",
            at(file, line),
            escape(&format!(
                "criterion {}: no red witness — no run of its pin failed on the code before the goal with the tests as at the end",
                c.number
            ))
        );
    }
    if c.flags.iter().any(|f| f == "passes-on-base") {
        let kind = if strict { "error" } else { "warning" };
        println!(
            "::{kind} {}::{}",
            at(file, line),
            escape(&format!(
                "criterion {}: its test already passes on the goal's base tree ({}): it does not test what the goal added",
                c.number,
                c.base.map(|o| o.describe()).unwrap_or_default()
            ))
        );
    }
}

/// Why a criterion fails the audit, if it does: ticked but unproven, or its record not
/// reproduced, unable to run or skipped.
fn criterion_error(c: &CriterionAudit) -> Option<String> {
    let recorded = c.recorded.map(|o| o.describe()).unwrap_or_default();
    match c.replay.as_deref() {
        _ if c.flags.iter().any(|f| f == "unproven") => Some(format!(
            "criterion {} is ticked but no record proves it: {}",
            c.number,
            c.why.as_deref().unwrap_or("")
        )),
        Some("not reproduced") => Some(format!(
            "criterion {} not reproduced: recorded {recorded}; replayed {}",
            c.number,
            c.replayed.map(|o| o.describe()).unwrap_or_default()
        )),
        Some(state @ ("cannot run" | "skipped")) => Some(format!(
            "criterion {} {state}: {}",
            c.number,
            c.replay_reason.as_deref().unwrap_or("")
        )),
        _ => None,
    }
}
