//! `goal done`: the completion gate, the deslop pass, two commits and the summary.

use crate::context::Ctx;
use crate::error::Result;
use crate::ops;
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
    /// changed test selection, a test importing a name from other code), each recorded in a
    /// `Goal-Tests-Weakened` trailer, a goal whose criteria are all guards
    /// (`Goal-Guards-Only: confirmed`), or what the mutation gate refuses (each recorded in a
    /// `Goal-Mutants-Confirmed` trailer).
    #[arg(long)]
    pub confirm: bool,
    #[command(flatten)]
    pub commit: super::CommitFlags,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let open = crate::context::span("done: open the workspace");
    let ws = Workspace::open(ctx)?.with_no_verify(args.commit.no_verify);
    drop(open);
    let done = ops::done::done(
        &ws,
        ops::done::Options {
            budget: None,
            deslop: args.deslop,
            confirm: args.confirm,
            run: None,
            usage: None,
        },
    )?;
    super::print_added(ctx, &ws, done.commits.first().copied());
    let summary = done.summary;
    let report = match args.report {
        true => Some(crate::render::report_text::markdown(
            &crate::ops::report::build(&ws, "HEAD")?,
        )),
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

/// What `goal done` prints for people once the goal is complete (nothing with --json): the new
/// files committed and the summary.
pub fn render(ctx: &Ctx, ws: &Workspace, done: &ops::done::Done) {
    super::print_added(ctx, ws, done.commits.first().copied());
    if !ctx.json {
        print_summary(ctx, &done.summary);
    }
}

/// The summary of a completed goal, line by line: its criteria and their evidence, what the
/// gates found, what changed, the clean-up pass and the commits, then the proof line.
fn print_summary(ctx: &Ctx, s: &ops::done::Summary) {
    ctx.say(format!("{} {}", ctx.green("Goal complete:"), s.goal));
    ctx.say(format!("  iterations: {}", s.iterations));
    print_settings(ctx, &s.settings);
    for c in &s.criteria {
        ctx.say(criterion_line(c));
    }
    print_gates(ctx, s);
    print_changes(ctx, s);
    print_deslop(ctx, s);
    let short_ids: Vec<String> = s
        .commits
        .iter()
        .map(|c| crate::repo::short_id(c).to_string())
        .collect();
    ctx.say(format!(
        "  commits: {} (`goal log` keeps the audit)",
        short_ids.join(", ")
    ));
    // The line a transcript judge (Claude Code's `/goal`) quotes: printed even with --quiet.
    println!("{}", crate::texts::proof_complete_line(&s.goal, &s.tree));
}

/// The settings GOAL.md sets apart from the defaults, on one line (nothing when there are none).
fn print_settings(ctx: &Ctx, settings: &serde_json::Value) {
    let Some(settings) = settings.as_object().filter(|m| !m.is_empty()) else {
        return;
    };
    let parts: Vec<String> = settings
        .iter()
        .map(|(k, v)| match v {
            serde_json::Value::Array(a) => format!(
                "{k}: {}",
                a.iter()
                    .filter_map(|x| x.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            v => format!("{k}: {v}").replace('"', ""),
        })
        .collect();
    ctx.say(format!(
        "  settings (GOAL.md, not the defaults): {}",
        parts.join("; ")
    ));
}

/// A criterion's line: its evidence, its tests or check, its red or guard base, and whether
/// the command that proves it is unpinned.
fn criterion_line(c: &ops::done::CriterionSummary) -> String {
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
    let red = match (&c.red, &c.base) {
        (Some(id), _) => format!(", red {id} → green"),
        // The base a person can `git show`: its commit, as every other line names it.
        (None, Some(id)) => match &c.base_commit {
            Some(commit) => format!(", guard, base {commit}"),
            None => format!(", guard, base record {id}"),
        },
        _ => String::new(),
    };
    format!(
        "  [x] {}. {} — evidence {} ({tests}{red}){unpinned}",
        c.number, c.text, c.evidence
    )
}

/// What the gates let through: the tests weakened and the mutation gate's findings.
fn print_gates(ctx: &Ctx, s: &ops::done::Summary) {
    let (weakened, changed): (Vec<_>, Vec<_>) = s.tests_weakened.iter().partition(|w| w.refuses);
    if !weakened.is_empty() {
        ctx.say(format!("  tests weakened: {}", weakened.len()));
        for w in &weakened {
            let note = if w.confirmed { " (confirmed)" } else { "" };
            ctx.say(format!("    {}{note}", w.describe()));
        }
    }
    if !changed.is_empty() {
        ctx.say(format!(
            "  tests changed (judged by the runs): {}",
            changed.len()
        ));
        for w in &changed {
            ctx.say(format!("    {}", w.describe()));
        }
    }
    if !s.exams.is_empty() {
        ctx.say(format!("  exams: {}", s.exams.len()));
        for e in &s.exams {
            let note = if e.confirmed { " (confirmed)" } else { "" };
            ctx.say(format!("    {}{note}", e.describe()));
        }
    }
    if let Some(m) = &s.mutation {
        ctx.say(format!("  mutation: {}", m.line()));
        for u in &m.unneeded {
            ctx.say(format!("    {}", u.describe()));
        }
        for v in &m.survivors {
            ctx.say(format!("    survived {}", v.describe()));
        }
    }
}

/// What the goal changed: its material changes, the files changed and the time it took.
fn print_changes(ctx: &Ctx, s: &ops::done::Summary) {
    if s.material_changes.is_empty() {
        ctx.say("  material changes: none");
    } else {
        ctx.say(format!("  material changes: {}", s.material_changes.len()));
        for m in &s.material_changes {
            ctx.say(format!("    {}", ops::done::material_line(m)));
        }
    }
    ctx.say(format!(
        "  files changed: {} (+{} -{})",
        s.files_changed, s.insertions, s.deletions
    ));
    let (h, m) = (s.elapsed_s / 3600, (s.elapsed_s % 3600) / 60);
    ctx.say(format!("  elapsed: {h}h {m:02}m"));
}

/// The clean-up pass: each check command's verdict and the scan's findings.
fn print_deslop(ctx: &Ctx, s: &ops::done::Summary) {
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
}
