//! `goal done`: the completion gate, the deslop pass, two commits and the summary.

use serde::Serialize;

use super::short;
use crate::context::{Ctx, now_rfc3339};
use crate::deslop;
use crate::door::Commit;
use crate::error::{Error, Result};
use crate::goal_file::Status;
use crate::history;
use crate::repo::{DiffStat, Stage};
use crate::summary::TestCounts;
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
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
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
            crate::store::broken_ledger_hint(&ws.evidence_rel()),
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
            }),
            Err(why) => {
                let rerun = proof
                    .get(c.number)
                    .and_then(|p| p.rerun_line())
                    .filter(|l| !why.contains(l.as_str()))
                    .map(|l| format!("; run `{l}`"))
                    .unwrap_or_default();
                missing.push(format!(
                    "criterion {} \"{}\": {why} — red flag {}{rerun}",
                    c.number,
                    c.text,
                    red_flag(&why)
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

/// One material change in words: old → new, commit, reason.
fn material_line(m: &history::MaterialEntry) -> String {
    let new = match &m.new {
        Some(new) => format!("\"{new}\""),
        None => "removed".to_string(),
    };
    let recorded = match &m.recorded {
        Some(r) => format!("; recorded: {r}"),
        None => "; not recorded with --confirm".to_string(),
    };
    format!(
        "material change in {}: criterion {} \"{}\" → {new} ({}{recorded})",
        &m.commit[..10.min(m.commit.len())],
        m.number,
        m.old,
        m.reason
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
        ctx.say(format!(
            "  [x] {}. {} — evidence {} ({tests}){unpinned}",
            c.number, c.text, c.evidence
        ));
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
