//! The runs of one acceptance criterion in `goal done` that wait on no other's outcome: its red
//! run (when the ledger has none) and its clean green in the kept worktree, one after the other,
//! and meanwhile the exams' runs (its base run when the ledger has none, the old exam, the
//! support exam) in a second kept worktree, where the machine has the cores. A run made beside
//! decides nothing by itself: each verdict is read off its own tree's run, after the clean run.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{Gate, Refusal, clean_green, red_refused};
use crate::error::{Error, Result};
use crate::evidence::Record;
use crate::pin::{self, Pin};
use crate::repo::Oid;
use crate::surface::judge::{self, RedState};

/// Runs made ahead of the exams that take them, each by what it is (`base`, `old`, `support`).
type Made = Vec<(&'static str, Result<crate::ops::red::Made>)>;

/// What criterion `n`'s red witness and clean run came to.
pub(super) enum RedAndClean {
    /// Refused: the red run (or the ledger's) shows no red, the goal changed none of the code
    /// its tests run, or the clean run did not pass.
    Refused(Refusal),
    /// No witness and nothing refused: nothing to judge.
    Nothing,
    Both {
        witness: Box<Record>,
        clean: Box<Record>,
    },
}

impl Gate<'_> {
    /// Criterion `n`'s red witness and clean green (see [`Gate::red_and_clean`]), with the runs
    /// its exams will make (see [`Gate::runs_beside`]) made meanwhile, one after the other, in
    /// the second kept worktree, their output not shown (a line says each one runs). They are
    /// recorded only when the exams take them, after the clean run and in the same order as one
    /// after the other; when the red or clean run refuses, those not yet begun are not made.
    pub(super) fn red_and_clean_with_exams(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
    ) -> Result<RedAndClean> {
        self.ahead.clear();
        let ahead = self.runs_beside(n, text, green)?;
        if ahead.is_empty() {
            let base_first = self.base_first(n, text)?;
            let (out, made) = self.red_and_clean(n, text, p, green, base_first)?;
            self.ahead = made;
            return Ok(out);
        }
        self.say_beside(n, p, &ahead, "beside the clean run");
        let (ws, head) = (self.ws, self.place.head);
        let (work_root, git_dir) = (ws.root().to_path_buf(), ws.repo.common_dir().to_path_buf());
        let stop = AtomicBool::new(false);
        let gate = &*self;
        let (out, made) = std::thread::scope(|scope| {
            let helper = scope.spawn(|| {
                let mut made = Vec::new();
                for (what, tree) in &ahead {
                    if crate::child::interrupted().is_some() || stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let _step = crate::context::span(format!("beside: {what}"));
                    let run = crate::ops::red::run_ahead(
                        crate::repo::KeptWorktree::EXAM,
                        &work_root,
                        &git_dir,
                        head,
                        &p.argv,
                        &green.junit,
                        *tree,
                    );
                    let failed = run.is_err();
                    made.push((*what, run));
                    if failed {
                        break;
                    }
                }
                made
            });
            let out = gate
                .red_and_clean(n, text, p, green, None)
                .map(|(out, _)| out);
            if !matches!(out, Ok(RedAndClean::Both { .. })) {
                stop.store(true, Ordering::SeqCst);
            }
            (out, helper.join())
        });
        let made = made.map_err(|_| {
            Error::refused(
                "the exams' runs beside the clean run stopped unexpectedly",
                "run `goal done` again",
            )
        })?;
        let out = out?;
        // A run stopped by Ctrl-C (or SIGTERM) ends `goal done` as the clean run's would.
        for (_, run) in &made {
            if let Err(Error::Interrupted { signal, code }) = run {
                return Err(Error::Interrupted {
                    signal,
                    code: *code,
                });
            }
        }
        self.ahead = made;
        Ok(out)
    }

    /// Criterion `n`'s red witness (the ledger's, or its red run made here), then, unless it
    /// refuses or the goal changed none of the code its tests run, its base run on `base_first`
    /// (the base tree, made here and returned for the old exam to take, see
    /// [`Gate::base_first`]) and its clean green.
    fn red_and_clean(
        &self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
        base_first: Option<Oid>,
    ) -> Result<(RedAndClean, Made)> {
        let (witness, outcome) = self.witness(n, text, p, green)?;
        if let Some(r) = red_refused(n, &outcome, witness.as_ref()) {
            return Ok((RedAndClean::Refused(r), Vec::new()));
        }
        let Some(witness) = witness else {
            return Ok((RedAndClean::Nothing, Vec::new()));
        };
        if let Some(r) = self.code_unchanged(n, green) {
            return Ok((RedAndClean::Refused(r), Vec::new()));
        }
        let mut made = Vec::new();
        if let Some(tree) = base_first {
            self.say_beside(n, p, &[("base", tree)], "before the clean run");
            let _step = crate::context::span("base run, before the clean run");
            let (work_root, git_dir) = (self.ws.root(), self.ws.repo.common_dir());
            let run = crate::ops::red::run_ahead(
                "",
                work_root,
                git_dir,
                self.place.head,
                &p.argv,
                &green.junit,
                tree,
            )?;
            made.push(("base", Ok(run)));
        }
        let _step = crate::context::span("the clean run");
        let out = match clean_green(self.ws, &self.place, n, text, &p.argv, green)? {
            Ok(clean) => RedAndClean::Both {
                witness: Box::new(witness),
                clean: Box::new(clean),
            },
            Err((why, next)) => RedAndClean::Refused(Refusal { why, next }),
        };
        Ok((out, made))
    }

    /// The base tree, when criterion `n`'s base run is to be made in the kept worktree between
    /// its red run and its clean run: for a project that builds into the run's tree, whose
    /// ledger has no base run. The red tree (the base's code, the final tests), the base tree
    /// (the base's code and tests), the final tree and the old-exam tree (the final code, the
    /// base's tests) then come in the order where the code changes once: each run after the red
    /// one rebuilds only what changed since the one before.
    fn base_first(&self, n: usize, text: &str) -> Result<Option<Oid>> {
        if !crate::surface::tree_run::builds_in_tree(self.ws.root()) {
            return Ok(None);
        }
        let runs = self.exam_runs_ahead(n, text)?;
        Ok(runs
            .into_iter()
            .find(|(what, _)| *what == "base")
            .map(|(_, tree)| tree))
    }

    /// The exams' runs of criterion `n` to make beside its red and clean runs (see
    /// [`Gate::exam_runs_ahead`]). None on one core, under `GOAL_EXAMS_AT_ONCE=0` (runs that must
    /// come in a known order, a measure of the difference), when the ledger's red state or the
    /// code refuses already (nothing would take them), and for a project that builds into the
    /// run's tree (cargo's `target/`): a second worktree would build the goal's own crates from
    /// nothing, while one after the other in the kept worktree rebuilds only what changed.
    fn runs_beside(
        &self,
        n: usize,
        text: &str,
        green: &Record,
    ) -> Result<Vec<(&'static str, Oid)>> {
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        let asked = std::env::var("GOAL_EXAMS_AT_ONCE").map_or(true, |v| v != "0");
        if cores < 2 || !asked || crate::surface::tree_run::builds_in_tree(self.ws.root()) {
            return Ok(Vec::new());
        }
        let known = judge::red_state(self.ledger, n, text, &self.place.target).map(|r| r.state);
        let witnessed = known == Some(RedState::Witnessed);
        if !(witnessed || self.place.target.trusted)
            || matches!(known, Some(RedState::PassesOnBase | RedState::Inconclusive))
            || self.code_unchanged(n, green).is_some()
        {
            return Ok(Vec::new());
        }
        self.exam_runs_ahead(n, text)
    }

    /// One line for each run made `when` (beside or before the clean run), its output not shown
    /// (not with `--quiet`).
    fn say_beside(&self, n: usize, p: &Pin, ahead: &[(&'static str, Oid)], when: &str) {
        for (what, _) in ahead {
            let on = match *what {
                "base" => format!("the goal's base (base {})", self.place.base_short()),
                exam => crate::ops::red::exam_tree_words(exam).to_string(),
            };
            crate::context::status_line(format!(
                "criterion {n}: running `{}` on {on}, {when} (its output not shown)…",
                pin::render(&p.argv)
            ));
        }
    }
}
