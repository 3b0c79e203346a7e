//! An audit of a revision range: every goal in it audited from git, and with `--rerun` each
//! deciding record replayed at its commit, each test run on the goal's base and each acceptance
//! criterion's pin on its red tree; then whether everything checks.

use super::replay::Replayer;
use super::{GoalAudit, RunOutcome, Scope, WeakenedFinding};
use crate::error::{Error, Result};
use crate::pin;
use crate::workspace::Workspace;

/// What `goal audit` is asked.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// The range (None: the current goal, or the last finished one).
    pub range: Option<&'a str>,
    pub rerun: bool,
    pub allow_unpinned: bool,
    /// A test that passes on the goal's base fails the audit.
    pub strict: bool,
}

/// Audit every goal in the range (and replay it with `rerun`).
pub fn audit(ws: &Workspace, options: &Options) -> Result<Vec<GoalAudit>> {
    let scope = Scope::of(ws);
    let spans = super::goals_in(&ws.repo, options.range)?;
    if spans.is_empty() && options.range.is_none() {
        return Err(Error::refused(
            "no goal in this history: nothing to audit",
            "audit a range with `goal audit origin/main..HEAD`, or start a goal with `goal init \"<goal>\" -c \"<criterion>\"`",
        ));
    }
    let mut goals = Vec::new();
    for (i, (span, inside)) in spans.iter().enumerate() {
        let mut goal = super::audit_goal(&scope, span, inside)?;
        for c in &mut goal.criteria {
            c.goal = i;
        }
        goals.push(goal);
    }
    if options.rerun {
        let mut replayer = Replayer::new(ws.root(), &ws.repo.git_dir().join("goal").join("audit"));
        for goal in &mut goals {
            replay_goal(&mut replayer, goal, options.allow_unpinned)?;
            replay_red(ws, &replayer, goal)?;
        }
    }
    Ok(goals)
}

/// Replay each criterion's deciding record and run its test on the goal's base.
fn replay_goal(replayer: &mut Replayer, goal: &mut GoalAudit, allow_unpinned: bool) -> Result<()> {
    let base = goal.base_commit;
    let has_init = goal.init.is_some();
    for i in 0..goal.criteria.len() {
        let Some(record) = goal.criteria[i].record.clone() else {
            continue;
        };
        let c = &goal.criteria[i];
        let skip = if !goal.chain_ok {
            Some("the evidence chain does not verify: nothing from it is run".to_string())
        } else if !c.pinned && !allow_unpinned {
            Some(format!(
                "unpinned: `{}` is not the criterion's pinned command (replay it with --allow-unpinned after reading it)",
                pin::render(&record.argv)
            ))
        } else {
            None
        };
        if let Some(why) = skip {
            let c = &mut goal.criteria[i];
            c.replay = Some("skipped".into());
            c.replay_reason = Some(why);
            continue;
        }
        let number = c.number;
        let commit = super::commit_for(goal, &record, c.ticked_at);
        let result = match commit {
            None => Err(
                "no commit of the goal has the record's tree (the work it ran on was never committed)"
                    .to_string(),
            ),
            Some(commit) => replayer.run(
                Some(commit),
                &record.argv,
                &record.cwd,
                &record.junit,
                &format!("evidence {}, criterion {number}", record.id),
            )?,
        };
        let c = &mut goal.criteria[i];
        c.replay_commit = commit.map(|c| c.to_string());
        match result {
            Ok(outcome) => {
                c.replay = Some(
                    if outcome == RunOutcome::of(&record) {
                        "reproduced"
                    } else {
                        "not reproduced"
                    }
                    .into(),
                );
                c.replayed = Some(outcome);
            }
            Err(why) => {
                c.replay = Some("cannot run".into());
                c.replay_reason = Some(why);
            }
        }
        // Red before green: a test that passes where the goal started tests nothing it added.
        // This is for unpinned records (an acceptance criterion's red run is replayed on the red
        // tree instead, in `replay_red`; a guard is meant to pass there).
        if record.is_test() && !record.check && has_init && c.kind == "unpinned" {
            let result = replayer.run(
                base,
                &record.argv,
                &record.cwd,
                &record.junit,
                &format!("criterion {number} on the goal's base, which should fail"),
            )?;
            let c = &mut goal.criteria[i];
            if let Ok(outcome) = result {
                c.base = Some(outcome);
                if outcome.passes_tests() {
                    c.flag("passes-on-base");
                }
            }
        }
    }
    Ok(())
}

/// Replay the red run of each acceptance criterion: its pin on the red tree of the goal's last
/// state (the base code with the tests as at the end) in a temporary worktree. It must fail:
/// one that passes is `passes-on-base`, one that runs no test `inconclusive` (both fail the
/// audit). Only pins run (the criterion's own words), and nothing from a broken chain.
fn replay_red(ws: &Workspace, replayer: &Replayer, goal: &mut GoalAudit) -> Result<()> {
    let Some((base, tree)) = goal.red_tree else {
        return Ok(());
    };
    if !goal.chain_ok {
        return Ok(());
    }
    for c in &mut goal.criteria {
        let Some(pin) = pin::parse(&c.text).and_then(|p| p.ok()) else {
            continue;
        };
        if pin.kind != pin::Kind::Acceptance || (c.record.is_none() && c.red.is_none()) {
            continue;
        }
        let junit = c
            .record
            .as_ref()
            .map(|r| r.junit.clone())
            .unwrap_or_default();
        crate::context::warn_line(format!(
            "goal: running `{}` on the red tree of criterion {} (base {} with the tests as at the end), which should fail",
            pin.command,
            c.number,
            crate::repo::short_id(&base.to_string())
        ));
        let options = crate::surface::tree_run::TreeRunOptions {
            work_root: ws.root(),
            git_dir: ws.repo.common_dir(),
            cwd: "",
            junit: &junit,
            show: false,
            to_stderr: true,
            keep: false,
            name_tests: true,
        };
        let run = match crate::surface::tree_run::run_in_tree(
            &ws.repo, base, tree, &pin.argv, &options,
        ) {
            Ok(run) => run,
            Err(e @ Error::Interrupted { .. }) => return Err(e),
            Err(e) => {
                c.red_replay = Some("cannot run".into());
                c.replay_reason.get_or_insert(e.to_string());
                continue;
            }
        };
        replayer.show_tail(base, &run.output);
        let outcome = RunOutcome {
            exit_code: run.exit_code,
            tests: run.tests,
        };
        c.red_replayed = Some(outcome);
        // Judged as `goal verify --red` judges it: a run of no test is inconclusive, with or
        // without a record of the criterion.
        let text = String::from_utf8_lossy(&run.output);
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(40)..].join("\n");
        let verdict = crate::surface::judge::red_outcome_of(
            run.exit_code,
            run.tests,
            &tail,
            run.path_missing.is_some(),
        );
        let name = match verdict {
            crate::surface::judge::RedOutcome::Red => "red",
            crate::surface::judge::RedOutcome::PassesOnBase => "passes-on-base",
            crate::surface::judge::RedOutcome::Inconclusive => "inconclusive",
        };
        c.red_replay = Some(name.into());
        if name != "red" {
            c.flag(name);
        }
    }
    Ok(())
}

/// Everything checks: no problem, every ticked criterion decided by a record, and with --rerun
/// every record reproduced (and with --strict no test passing on the base, and no confirmation of
/// any kind: a confirmation is the person's, and --strict asks that none was needed).
pub fn verdict(goals: &[GoalAudit], args: &Options) -> bool {
    goals.iter().all(|g| {
        g.problems.is_empty()
            && g.chain_ok
            && (!args.strict || g.confirmations.is_empty())
            && !g.tests_weakened.iter().any(|f| fails(g, f))
            && g.criteria.iter().all(|c| {
                !c.flags
                    .iter()
                    .any(|f| f == "unproven" || f == "no-red-witness")
                    && !matches!(
                        c.red_replay.as_deref(),
                        Some("passes-on-base" | "inconclusive")
                    )
                    && (!args.rerun
                        || c.record.is_none()
                        || c.replay.as_deref() == Some("reproduced"))
                    && (!args.strict || !c.flags.iter().any(|f| f == "passes-on-base"))
            })
    })
}

/// A finding that fails the audit: one that refuses `goal done`, in a finished goal, that no
/// `Goal-Tests-Weakened` trailer records (a completion that went around the gate).
pub fn fails(goal: &GoalAudit, f: &WeakenedFinding) -> bool {
    goal.status == "complete" && f.refuses && !f.confirmed
}
