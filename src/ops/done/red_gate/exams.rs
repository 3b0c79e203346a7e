//! The exams of `goal done` that decide by execution: the base's tests on the final code (the old
//! exam), and the goal's own tests with the base's configuration, helpers and build files put
//! back (the support exam). A refusal here rests on a run; the findings on the tests' text only
//! point and explain.

use super::{Gate, Refusal};
use crate::error::Result;
use crate::evidence::Record;
use crate::pin::Pin;
use crate::repo::Oid;
use crate::surface::exam::{self, Exam, ExamFinding, OldExam, Run};
use crate::surface::weaken::{FindingKind, Findings};
use crate::test_names::load_or_build_failed;
use std::collections::HashMap;

/// A goal's own test an earlier red run showed failing by name.
struct Seen {
    test: String,
    /// The tree the red run took its tests from.
    tree: String,
    /// Whether the green run passed it by that name.
    passes: bool,
    /// Whether the red run of the final tests shows it failing by name too.
    red_again: bool,
}

/// The old-exam tree and the final tree.
#[derive(Clone, Copy)]
struct Trees {
    old: Oid,
    last: Oid,
}

/// The trees of the exams (see [`Gate::exam_trees`]).
#[derive(Clone, Copy)]
pub(super) struct ExamTrees {
    last: Oid,
    old: Option<Oid>,
    support: Option<Oid>,
}

/// What the exams of one criterion came to.
pub(super) struct Judged {
    /// The base's tests the old exam judged by name: a finding on their text is explained by it.
    pub(super) base_tests: Vec<String>,
}

impl Gate<'_> {
    /// Acceptance criterion `n`'s exams, after its clean green `green` and red `witness`: the
    /// base run (found, or made here), the old exam and, where the goal changed what chooses its
    /// tests, the support exam. Their outcomes are kept; a refusing one is gathered unless a
    /// person confirms.
    pub(super) fn exams(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
        witness: &Record,
    ) -> Result<Judged> {
        let step = crate::context::span("exams: their trees");
        let planned = self.exam_trees()?;
        drop(step);
        let mut base_tests = Vec::new();
        if let Some(old) = planned.old {
            let at = Trees {
                old,
                last: planned.last,
            };
            let _step = crate::context::span("exams: old exam");
            base_tests = self.old_exam(n, text, p, (green, witness), at)?;
        }
        if let Some(support) = planned.support {
            let _step = crate::context::span("exams: support exam");
            self.support_exam(n, text, p, (green, witness), support)?;
        }
        // What was made ahead and not taken (an exam that did not get to it) is dropped.
        self.ahead.clear();
        Ok(Judged { base_tests })
    }

    /// The trees the exams run on: the final tree, the old exam's (None when it cannot be
    /// trusted) and the support exam's (None when the goal changed nothing it puts back). Built
    /// once: the working tree does not change while `goal done` holds its lock, and the trees
    /// depend on nothing else.
    fn exam_trees(&self) -> Result<ExamTrees> {
        if let Some(trees) = self.trees.get() {
            return Ok(*trees);
        }
        let trees = self.exam_trees_built()?;
        Ok(*self.trees.get_or_init(|| trees))
    }

    /// The goal folder's path in the tree, without a trailing `/`.
    fn goal_folder(&self) -> String {
        let goal = self.ws.goal_dir.to_string_lossy();
        goal.trim_end_matches('/').to_string()
    }

    fn exam_trees_built(&self) -> Result<ExamTrees> {
        let last = self.ws.worktree_tree_full()?;
        let goal = self.goal_folder();
        let in_goal = |p: &str| in_folder(&goal, p);
        let repo = &self.ws.repo;
        let base_tree = self.place.base_tree_full;
        let old_tree =
            crate::surface::red::old_exam_tree(repo, base_tree, last, &self.surface, &in_goal)?;
        let support =
            crate::surface::red::support_tree(repo, base_tree, last, &self.surface, &in_goal)?
                .filter(|&s| s != last);
        Ok(ExamTrees {
            last,
            old: old_tree.untrusted.is_empty().then_some(old_tree.tree),
            support,
        })
    }

    /// The runs criterion `n`'s exams will make after its clean run, each by what it is and the
    /// tree it runs on: its base run when the ledger has none, the old exam's run (unless it is
    /// the clean run itself) and the support exam's.
    pub(super) fn exam_runs_ahead(&self, n: usize, text: &str) -> Result<Vec<(&'static str, Oid)>> {
        let planned = self.exam_trees()?;
        let mut runs = Vec::new();
        if let Some(old) = planned.old {
            if self.kept_base(n, text).is_none() {
                runs.push(("base", self.place.base_tree_full));
            }
            if old != planned.last {
                runs.push(("old", old));
            }
        }
        if let Some(support) = planned.support {
            runs.push(("support", support));
        }
        Ok(runs)
    }

    /// The run of `what` (`base`, `old`, `support`) made ahead, once.
    fn take_ahead(&mut self, what: &str) -> Option<Result<crate::ops::red::Made>> {
        let at = self.ahead.iter().position(|(w, _)| *w == what)?;
        Some(self.ahead.remove(at).1)
    }

    /// The old exam of criterion `n`: the base's tests on the final code (`at.old`; the clean run
    /// `green` itself when the goal changed nothing it would put back), judged against the base
    /// run. The base's tests it judged by name.
    fn old_exam(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        (green, witness): (&Record, &Record),
        at: Trees,
    ) -> Result<Vec<String>> {
        let base = self.base_for_exam(n, text, p, green)?;
        let (old, old_failed) = if at.old == at.last {
            let tail = green.output_tail.join("\n");
            (green.clone(), load_or_build_failed(&tail))
        } else {
            self.exam_run(n, text, p, green, at.old, "old")?
        };
        let old_run = Run {
            load_failed: old_failed,
            ..run_of(&old)
        };
        let mut base_tests = Vec::new();
        let cut = exam::Cut {
            base: base.cut_off.is_some(),
            old: old.cut_off.is_some(),
            quick_green: quick(green)?,
        };
        let judged =
            exam::old_exam_bounded(run_of(&base), old_run, run_of(witness), run_of(green), cut);
        match judged {
            OldExam::Judged(mut found) => {
                self.renamed_api(witness, &mut found);
                self.unjudged_rerun(n, text, p, green, witness, &mut found)?;
                if cut.old {
                    // Run once more, it would only be cut off again.
                    self.note_cut_still_failing(n, &old, green);
                } else if at.old != at.last {
                    self.flaky(n, text, p, green, at.old, &mut found)?;
                }
                if let Some(b) = base.names.as_ref().filter(|b| b.usable()) {
                    base_tests = b.names.iter().map(|t| t.name.clone()).collect();
                }
                self.keep(n, &old, found, "old");
            }
            OldExam::Inconclusive => {
                let nothing = ExamFinding {
                    kind: exam::ExamKind::Inconclusive,
                    test: "(the old exam ran no test)".into(),
                };
                self.keep(n, &old, vec![nothing], "old");
            }
            OldExam::CutOff if cut.base => self.cut_off(n, &base, "base"),
            OldExam::CutOff => self.cut_off(n, &old, "old"),
            OldExam::NotApplicable => {}
        }
        Ok(base_tests)
    }

    /// The support exam of criterion `n`: the goal's tests (failed red, passed green) on the
    /// support tree; one that could not be set up there is inconclusive.
    fn support_exam(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        (green, witness): (&Record, &Record),
        support: Oid,
    ) -> Result<()> {
        let mut goal_tests = match (witness.names.as_ref(), green.names.as_ref()) {
            (Some(r), Some(g)) => exam::goal_tests(r, g),
            _ => Vec::new(),
        };
        // A test an earlier red run showed failing by name counts too: the red run of the final
        // tests may fail to build on the base's code because of the very helper put back here.
        if let Some(g) = green.names.as_ref() {
            for r in self.earlier_reds(n, text, witness)? {
                for t in r.names.iter().flat_map(|x| exam::goal_tests(x, g)) {
                    if !goal_tests.contains(&t) {
                        goal_tests.push(t);
                    }
                }
            }
        }
        let (run, _) = self.exam_run(n, text, p, green, support, "support")?;
        if run.cut_off.is_some() {
            self.cut_off(n, &run, "support");
            return Ok(());
        }
        let cannot = exam::set_up_errors(&run.output_tail);
        let found = exam::support_exam(&goal_tests, run_of(&run), run_of(green))
            .into_iter()
            .map(|mut f| {
                if cannot.contains(&f.test) {
                    f.kind = exam::ExamKind::Inconclusive;
                }
                f
            })
            .collect();
        self.keep(n, &run, found, "support");
        Ok(())
    }

    /// The goal's own tests changed after red (tests of the base, `base_tests`, are the old
    /// exam's): each test an earlier red run of criterion `n` showed failing by name (a red-run
    /// record, or a failing run made on the base's code with the tests of then) that the red run
    /// of the final tests (`witness`) does not show failing by name: its exam changed after it
    /// was seen red (`exam-changed`). One the green run no longer passes by that name (renamed,
    /// removed, skipped) counts when a test file changed since; so does one the red run of the
    /// final tests shows failing by name too, only ever shown.
    ///
    /// The version seen red is then run on the final code, once per tree it was seen on. Still
    /// failing there by name, the goal's first check still finds the bug: refusing. Passing
    /// there, that check went red to green: shown. Where it cannot run by name (the goal changed
    /// the API it calls), the change decides: a weakening or a removal refuses, any other
    /// rewrite is shown.
    pub(super) fn exam_changed(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        (green, witness): (&Record, &Record),
        base_tests: &[String],
    ) -> Result<()> {
        let Some(names) = green.names.as_ref() else {
            return Ok(());
        };
        let seen = self.seen_red(n, text, names, witness, base_tests)?;
        if seen.is_empty() {
            return Ok(());
        }
        // One diff and one run per tree seen red (most goals have one), against the final tree.
        let to = self.ws.worktree_tree_full()?;
        let mut since: HashMap<String, Option<Findings>> = HashMap::new();
        let mut again: HashMap<String, Option<(Record, String)>> = HashMap::new();
        for Seen { tree, .. } in &seen {
            if !since.contains_key(tree) {
                since.insert(tree.clone(), self.changes_since(tree, to));
                let run = self.seen_again(n, text, p, green, tree, (to, "seen"))?;
                again.insert(tree.clone(), run);
            }
        }
        for s in seen {
            let found = vec![ExamFinding {
                kind: exam::ExamKind::ExamChanged,
                test: s.test.clone(),
            }];
            let weak = weakened(&s.test, since.get(&s.tree).and_then(Option::as_ref));
            let Some((run, output)) = again.get(&s.tree).and_then(Option::as_ref).cloned() else {
                // Its test files are as they were seen red: a test seen red again, or one the
                // green run only did not name, is judged by the red run; any other by its change.
                if s.red_again || !s.passes {
                    continue;
                }
                if weak {
                    self.keep(n, witness, found, "red");
                } else {
                    self.show(n, witness, found);
                }
                continue;
            };
            let outcome = run.names.as_ref().and_then(|x| x.outcome(&s.test));
            match outcome {
                // Seen failing by name again, by the red run of its final version: that red may
                // come from a name only the final code has, or from an expectation corrected.
                // The first version saying on the final code just what it said on the base shows
                // the goal's code change nowhere in it: refusing. Otherwise shown.
                Some(crate::test_names::TestOutcome::Failed) if s.red_again => {
                    if self.same_on_base(n, text, p, green, &s, &output)? {
                        self.keep(n, &run, found, "seen-same");
                    } else {
                        self.show(n, &run, found);
                    }
                }
                Some(crate::test_names::TestOutcome::Failed) => self.keep(n, &run, found, "seen"),
                _ if s.red_again => {}
                Some(crate::test_names::TestOutcome::Passed) => self.show(n, &run, found),
                _ if weak => self.keep(n, witness, found, "red"),
                _ => self.show(n, witness, found),
            }
        }
        Ok(())
    }

    /// Whether the goal's test `s`, as first seen red, fails on the base's code with the output
    /// (`on_final`) it gave on the final code, every line the same.
    fn same_on_base(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
        s: &Seen,
        on_final: &str,
    ) -> Result<bool> {
        let base = self.place.base_tree_full;
        let Some((run, output)) =
            self.seen_again(n, text, p, green, &s.tree, (base, "seen-base"))?
        else {
            return Ok(false);
        };
        let failed = run.names.as_ref().and_then(|x| x.outcome(&s.test))
            == Some(crate::test_names::TestOutcome::Failed);
        Ok(failed && exam::same_output(&output, on_final))
    }

    /// Criterion `n`'s tests the goal wrote that an earlier red run showed failing by name (not
    /// the base's `base_tests`, nor one the green run `names` fails), each with the tree of the
    /// red run that showed it failing, whether the green run passed it by that name (one it no
    /// longer passes was renamed, removed or skipped), and whether `witness` shows it failing.
    fn seen_red(
        &self,
        n: usize,
        text: &str,
        names: &crate::test_names::TestNames,
        witness: &Record,
        base_tests: &[String],
    ) -> Result<Vec<Seen>> {
        let mut seen: Vec<Seen> = Vec::new();
        for r in self.earlier_reds(n, text, witness)? {
            for t in r.names.iter().flat_map(|x| &x.names) {
                if t.outcome == crate::test_names::TestOutcome::Failed
                    && names.outcome(&t.name) != Some(crate::test_names::TestOutcome::Failed)
                    && !base_tests.contains(&t.name)
                    && !seen.iter().any(|s| s.test == t.name)
                {
                    // A red run's own tree is only hashed; the tree its tests came from is kept.
                    let from = r.red.as_ref().map_or(&r.tree, |red| &red.tests);
                    seen.push(Seen {
                        test: t.name.clone(),
                        tree: from.clone(),
                        passes: names.outcome(&t.name)
                            == Some(crate::test_names::TestOutcome::Passed),
                        red_again: crate::surface::judge::failed_by_name(
                            witness.names.as_ref(),
                            &t.name,
                        ),
                    });
                }
            }
        }
        Ok(seen)
    }

    /// The run of criterion `n`'s pin on the code of `to` (the final tree, or the base's),
    /// recorded as `exam`, with the goal's test files as a red run saw them (`seen_red_on`), and
    /// its whole output; None when they are those of `to` or the tree is unreadable.
    fn seen_again(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
        seen_red_on: &str,
        (to, exam): (Oid, &'static str),
    ) -> Result<Option<(Record, String)>> {
        let Ok(seen) = seen_red_on.parse::<Oid>() else {
            return Ok(None);
        };
        let goal = self.goal_folder();
        let in_goal = |p: &str| in_folder(&goal, p);
        let Ok(Some(tree)) =
            crate::surface::red::seen_again_tree(&self.ws.repo, seen, to, &self.surface, &in_goal)
        else {
            return Ok(None);
        };
        let _step = crate::context::span(format!("exams: the goal's test as seen red ({exam})"));
        let (run, _, output) = self.exam_run_output(n, text, p, green, tree, exam)?;
        Ok((run.cut_off.is_none()).then_some((run, output)))
    }

    /// The findings of the change from the tree a red run showed the goal's tests failing on
    /// (`seen_red_on`) to the final tree `to`; None when a tree cannot be read.
    fn changes_since(&self, seen_red_on: &str, to: Oid) -> Option<Findings> {
        let from = seen_red_on.parse::<Oid>().ok()?;
        crate::surface::red::goal_findings(&self.ws.repo, from, to, &self.surface, &|_| false).ok()
    }

    /// Exam outcomes shown, never refusing (whatever their kind says alone).
    fn show(&mut self, n: usize, run: &Record, found: Vec<ExamFinding>) {
        for f in found {
            self.exams.push(Exam {
                criterion: n,
                kind: f.kind,
                test: f.test,
                record: run.id.clone(),
                refuses: false,
                confirmed: false,
            });
        }
    }

    /// Criterion `n`'s red runs made with other tests than `witness`'s: red-run records, and
    /// failing runs of its pin on a tree that was its own red tree (the base's code, the tests
    /// of then).
    fn earlier_reds(&self, n: usize, text: &str, witness: &Record) -> Result<Vec<Record>> {
        let Some(Ok(pin)) = crate::pin::parse(text) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for r in &self.ledger.records {
            if r.id == witness.id
                || r.argv != pin.argv
                || r.exit_code == 0
                || !r.criteria.contains(&n)
                || r.names.is_none()
                || r.exam.is_some()
                || r.base_run
            {
                continue;
            }
            let red_run = r
                .red
                .as_ref()
                .is_some_and(|red| witness.red.as_ref().is_none_or(|w| w.tests != red.tests));
            let test_first =
                r.red.is_none() && r.tree != witness.tree && self.on_base_code(&r.tree)?;
            if red_run || test_first {
                out.push(r.clone());
            }
        }
        Ok(out)
    }

    /// Whether `tree` holds the base's code (it is its own red tree); false when it cannot be
    /// read.
    fn on_base_code(&self, tree: &str) -> Result<bool> {
        let Ok(oid) = tree.parse::<Oid>() else {
            return Ok(false);
        };
        // A record's tree is not always in the object database (a run's tree is hashed, not
        // written): one that is not there cannot be told to be on the base's code.
        match crate::surface::tree_run::red_target(
            &self.ws.repo,
            self.place.base,
            oid,
            &self.ws.goal_dir,
            &self.surface,
        ) {
            Ok((_, target)) => Ok(target.tree == tree),
            Err(_) => Ok(false),
        }
    }

    /// A base test still failing on the final code whose goal's version only follows names the
    /// goal renamed in the code (`assertion-changed`, `test-renamed`) and fails by name on the
    /// red run: the base's version fails for the old names, not for the bug (inconclusive).
    fn renamed_api(&self, witness: &Record, found: &mut [ExamFinding]) {
        use crate::surface::weaken::FindingKind;
        for f in found
            .iter_mut()
            .filter(|f| f.kind == exam::ExamKind::StillFailing)
        {
            let follows = self.found.findings.iter().any(|w| {
                matches!(
                    w.kind,
                    FindingKind::AssertionChanged | FindingKind::TestRenamed
                ) && crate::surface::judge::same_test(&f.test, &w.test)
            });
            if follows
                && witness.names.as_ref().and_then(|x| x.outcome(&f.test))
                    == Some(crate::test_names::TestOutcome::Failed)
            {
                f.kind = exam::ExamKind::Inconclusive;
            }
        }
    }

    /// A base test whose behaviour the goal changed and whose version the red run did not name
    /// because its test binary stopped at another test (a cargo test that aborts): the red run
    /// made again without the tests that brought it down judges it.
    fn unjudged_rerun(
        &self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
        witness: &Record,
        found: &mut [ExamFinding],
    ) -> Result<()> {
        for f in found
            .iter_mut()
            .filter(|f| f.kind == exam::ExamKind::UnjudgedChange)
        {
            if crate::ops::red::red_shows_without_failures(
                self.ws,
                &self.place,
                n,
                text,
                &p.argv,
                &green.junit,
                witness,
                &f.test,
            )? {
                f.kind = exam::ExamKind::BehaviorChanged;
            }
        }
        Ok(())
    }

    /// A test still failing on the old-exam tree is run there once more (the pin again: the
    /// runner chooses what runs); each that passes then is `flaky`, shown, never refusing.
    fn flaky(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
        tree: Oid,
        found: &mut [ExamFinding],
    ) -> Result<()> {
        let still =
            |f: &ExamFinding| f.kind == exam::ExamKind::StillFailing && f.test != exam::BY_COUNTS;
        if !found.iter().any(still) {
            return Ok(());
        }
        let (again, _) = self.exam_run(n, text, p, green, tree, "old")?;
        for f in found.iter_mut().filter(|f| still(f)) {
            if again.names.as_ref().and_then(|x| x.outcome(&f.test))
                == Some(crate::test_names::TestOutcome::Passed)
            {
                f.kind = exam::ExamKind::Flaky;
            }
        }
        Ok(())
    }

    /// Criterion `n`'s run on the goal's base: the ledger's, or made here (or beside the clean
    /// run).
    fn base_for_exam(&mut self, n: usize, text: &str, p: &Pin, green: &Record) -> Result<Record> {
        if let Some(r) = self.kept_base(n, text) {
            return Ok(r.clone());
        }
        let made = self.take_ahead("base").transpose()?;
        crate::ops::red::base_run(self.ws, &self.place, n, text, &p.argv, &green.junit, made)
    }

    /// Criterion `n`'s base run kept in the ledger, unless it was cut off at a bound (a bound
    /// raised since may let it finish: it is made again).
    fn kept_base(&self, n: usize, text: &str) -> Option<&Record> {
        let base_tree = self.place.base_tree.to_string();
        crate::surface::judge::base_record(self.ledger, n, text, &base_tree, &self.locks)
            .filter(|r| r.cut_off.is_none())
    }

    /// Criterion `n`'s exam is inconclusive: its run `run` on the tree of `what` (`base`, `old`,
    /// `support`) was cut off at a bound, not in a way that shows a test still failing. Refused,
    /// naming the setting a person can raise; a `--confirm` does not accept it.
    fn cut_off(&mut self, n: usize, run: &Record, what: &str) {
        let Some(cut) = &run.cut_off else {
            return;
        };
        let (exam, on) = match what {
            "base" => ("old exam", "the goal's base"),
            exam => (
                if exam == "old" {
                    "old exam"
                } else {
                    "support exam"
                },
                crate::ops::red::exam_tree_words(exam),
            ),
        };
        self.gather(Refusal {
            why: format!(
                "criterion {n}: its {exam} is inconclusive: the run of its pin on {on} (record {}) was {}",
                run.id,
                cut.describe()
            ),
            next: format!(
                "if the tests need more than the bound, a person raises `{}` (`goal config` shows it), then `goal done` again; a test that loops or grows there is for the code to fix",
                cut.setting
            ),
        });
    }

    /// Why the old exam counts tests still failing in a run cut off at its bound.
    fn note_cut_still_failing(&self, n: usize, old: &Record, green: &Record) {
        if let Some(cut) = &old.cut_off {
            crate::context::note(format!(
                "criterion {n}: the old exam's run ({}) was {}; each test that failed on the base and that it did not get to counts still failing, as its clean green ({}) finished in {} ms, within half the time bound",
                old.id,
                cut.describe(),
                green.id,
                green.duration_ms
            ));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn exam_run(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
        tree: Oid,
        exam: &'static str,
    ) -> Result<(Record, bool)> {
        let (record, load_failed, _) = self.exam_run_output(n, text, p, green, tree, exam)?;
        Ok((record, load_failed))
    }

    /// [`Gate::exam_run`], with the run's whole output.
    fn exam_run_output(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
        tree: Oid,
        exam: &'static str,
    ) -> Result<(Record, bool, String)> {
        let made = self.take_ahead(exam).transpose()?;
        crate::ops::red::exam_run_output(
            self.ws,
            &self.place,
            n,
            text,
            &p.argv,
            &green.junit,
            tree,
            exam,
            made,
        )
    }

    /// Keep criterion `n`'s exam outcomes (`run` is the exam's record): each refusing one
    /// confirmed by a person's `--confirm`, or gathered as a refusal.
    fn keep(&mut self, n: usize, run: &Record, found: Vec<ExamFinding>, exam: &str) {
        for f in found {
            let refuses = f.kind.refuses();
            let kept = Exam {
                criterion: n,
                kind: f.kind,
                test: f.test,
                record: run.id.clone(),
                refuses,
                confirmed: refuses && self.confirm,
            };
            if refuses && !self.confirm {
                self.gather(refusal(&kept, exam));
            }
            self.exams.push(kept);
        }
    }
}

/// The refusal of a refusing exam outcome, with what to do.
fn refusal(e: &Exam, exam: &str) -> Refusal {
    let n = e.criterion;
    let why = match e.kind {
        exam::ExamKind::StillFailing => format!(
            "criterion {n}: the base's test {} still fails on the final code (old exam, record {}): the bug it shows is still in, whatever the goal did to that test",
            e.test, e.record
        ),
        exam::ExamKind::ExamChanged if exam == "seen" => format!(
            "criterion {n}: the goal's test {} was seen failing by name on an earlier red run, then changed; that version still fails on the final code (record {}), and the red run of its final version does not show it failing by name: the bug the goal first tested is still in",
            e.test, e.record
        ),
        exam::ExamKind::ExamChanged if exam == "seen-same" => format!(
            "criterion {n}: the goal's test {} was seen failing by name on an earlier red run, then changed; that version fails on the final code (record {}) saying just what it said on the base's code: the goal's code change shows nowhere in it, and its final version fails on the base for another reason (a name or text only the final code has)",
            e.test, e.record
        ),
        exam::ExamKind::ExamChanged => format!(
            "criterion {n}: the goal's test {} was seen failing by name on an earlier red run, then changed, and the red run of its final version (record {}) does not show it failing by name: nothing shows the final test tests the change",
            e.test, e.record
        ),
        exam::ExamKind::SupportFails => format!(
            "criterion {n}: the goal's test {} fails once the test configuration, helpers and build files are as the base had them (support exam, record {}): what the goal changed there chooses what its test runs",
            e.test, e.record
        ),
        kind => format!(
            "criterion {n}: {} {}: the base's test passed on the base and fails on the final code, and {} ({exam} exam, record {})",
            kind.as_str(),
            e.test,
            match kind {
                exam::ExamKind::WeakenedToPass =>
                    "the goal's version of it passes on the code before the goal",
                exam::ExamKind::RemovedAfterChange => "the final tree no longer runs it",
                _ => "no red run shows the goal's version of it failing by name",
            },
            e.record
        ),
    };
    let next = format!(
        "fix the code until the base's tests pass on it (or make the goal's version of the test fail on the code before the goal, by name: `goal verify --red -c {n}`); or {} (recorded in a Goal-Tests-Weakened trailer)",
        crate::person::offer("accept it", "goal done --confirm")
    );
    Refusal { why, next }
}

/// Whether the deciding green `green` finished within half the time bound of a pin's runs.
fn quick(green: &Record) -> Result<bool> {
    let bound = crate::child::pin_bounds()?.timeout;
    Ok(exam::within_half(green.duration_ms, bound.as_millis()))
}

/// Whether the tree path `p` lies inside the folder `dir` (no trailing `/`; empty: nowhere).
fn in_folder(dir: &str, p: &str) -> bool {
    !dir.is_empty() && p.starts_with(dir) && p[dir.len()..].starts_with('/')
}

/// A record as the exams read it.
fn run_of(r: &Record) -> Run<'_> {
    let load_failed = r
        .red
        .as_ref()
        .is_some_and(|red| !red.load_failed.is_empty())
        || load_or_build_failed(&r.output_tail.join("\n"));
    Run {
        counts: r.tests,
        names: r.names.as_ref(),
        load_failed,
    }
}

/// Whether the change to `test` since it was seen red (`found`) is a weakening (an assertion
/// weakened or removed, a skip, an import redirected, nothing asserted): such a change must be
/// shown failing by name again, and refuses when the red run of the final version cannot. Any
/// other change (an honest rewrite: a renamed API the final test calls, which the base's code
/// cannot load) is shown, with both versions. A tree or file that could not be read counts as a
/// weakening (fail closed).
fn weakened(test: &str, found: Option<&Findings>) -> bool {
    let Some(found) = found else {
        return true;
    };
    !found.unreadable.is_empty()
        || found.findings.iter().any(|f| {
            matches!(
                f.kind,
                FindingKind::AssertionWeakened
                    | FindingKind::AssertionRemoved
                    | FindingKind::AssertionFree
                    | FindingKind::SkipAdded
                    | FindingKind::ImportRedirected
                    | FindingKind::TestRemoved
            ) && crate::surface::judge::same_test(test, &f.test)
        })
}
