//! `goal recheck`: do the finished goals still hold on this tree?

use crate::commands::audit::escape;
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::recheck::{Checker, GoalCheck, PinKind, RecheckVerdict, finished_goals};
use crate::workspace::Workspace;

/// Run the pinned commands of every finished goal again on the current tree, in place: do the
/// goals still hold after a merge?
///
/// For every goal completed in the range (default, and with --all: every goal whose complete
/// commit is reachable from HEAD, merged branches included), each pinned acceptance and guard
/// command runs at the worktree root, each distinct command once. Nothing is recorded: no
/// evidence, no commit. Each criterion is reported holds, broken (with the end of its output),
/// cannot-run (its program is missing), or unpinned (no pin says how to check it: not run).
///
/// Exit 0 only when every pinned criterion holds; 1 otherwise. In CI, on the main branch after
/// a merge: `goal recheck --all --format github`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The commits whose completed goals to recheck, as git understands a range (e.g.
    /// origin/main..HEAD for a branch's own goals). Default: every goal completed in HEAD's history.
    #[arg(value_name = "REV-RANGE", conflicts_with = "all")]
    pub range: Option<String>,
    /// Every goal whose complete commit is reachable from HEAD (the default, spelled out for
    /// CI scripts).
    #[arg(long)]
    pub all: bool,
    /// text, or github: workflow annotations (::error) for each criterion that does not hold.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Github,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    if ctx.json && args.format == Format::Github {
        return Err(Error::usage(
            "--json and --format github cannot be used together",
            "pick one: `goal recheck --json` or `goal recheck --format github`",
        ));
    }
    let ws = Workspace::open(ctx)?;
    let finished = finished_goals(&ws.repo, &ws.goal_rel, args.range.as_deref())?;
    let mut checker = Checker::new(ws.root());
    if !ctx.json && !ctx.quiet() {
        checker.before = Box::new(|command| eprintln!("goal: running `{command}`"));
    }
    let mut goals = Vec::new();
    for f in &finished {
        goals.push(checker.check(f)?);
    }
    let ok = goals.iter().all(GoalCheck::ok);
    if ctx.json {
        ctx.emit_json(&serde_json::json!({ "goals": goals }))?;
    } else {
        print_text(ctx, &goals, ok);
        if args.format == Format::Github {
            print_annotations(&goals);
        }
    }
    Ok(u8::from(!ok))
}

fn print_text(ctx: &Ctx, goals: &[GoalCheck], ok: bool) {
    if goals.is_empty() {
        ctx.say("recheck: no completed goal in this history");
        return;
    }
    let mut counts = [0usize; 4];
    for g in goals {
        ctx.say(format!(
            "{} {}",
            ctx.bold(&format!("goal \"{}\"", g.goal)),
            &g.commit[..g.commit.len().min(7)]
        ));
        for c in &g.criteria {
            counts[c.verdict as usize] += 1;
            let word = match c.verdict {
                RecheckVerdict::Holds => ctx.green("holds"),
                RecheckVerdict::Broken => ctx.red("broken"),
                RecheckVerdict::CannotRun => ctx.red("cannot-run"),
                RecheckVerdict::Unpinned => ctx.yellow("unpinned"),
            };
            let pad = " ".repeat(10usize.saturating_sub(c.verdict.as_str().len()));
            let what = match (&c.command, c.kind) {
                (Some(cmd), Some(PinKind::Guard)) => format!(" (guard: `{cmd}`)"),
                (Some(cmd), _) => format!(" (verify: `{cmd}`)"),
                _ => String::new(),
            };
            ctx.say(format!("  {:>2}  {word}{pad} {}{what}", c.number, c.text));
            for line in &c.output_tail {
                ctx.say(format!("        | {line}"));
            }
        }
    }
    ctx.say(format!(
        "recheck: {} — {} goal(s): {} hold, {} broken, {} cannot run, {} unpinned",
        if ok { "ok" } else { "FAILED" },
        goals.len(),
        counts[RecheckVerdict::Holds as usize],
        counts[RecheckVerdict::Broken as usize],
        counts[RecheckVerdict::CannotRun as usize],
        counts[RecheckVerdict::Unpinned as usize],
    ));
}

fn print_annotations(goals: &[GoalCheck]) {
    for g in goals {
        for c in g.criteria.iter().filter(|c| !c.verdict.ok()) {
            let tail = c.output_tail.join("\n");
            println!(
                "::error title=goal recheck::{}",
                escape(&format!(
                    "goal \"{}\" ({}), criterion {} {}: {}\n{tail}",
                    g.goal,
                    &g.commit[..g.commit.len().min(7)],
                    c.number,
                    c.verdict.as_str(),
                    c.text
                ))
            );
        }
    }
}
