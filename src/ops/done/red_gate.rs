//! `goal done`'s red gate: before anything is cleaned up or committed, each acceptance criterion
//! seen red before green, each guard holding against the goal's base, and each weakened test
//! shown failing or confirmed; a refusal names every failure.

use crate::error::{Error, Result};
use crate::evidence::{Ledger, Record};
use crate::goal_file::GoalFile;
use crate::history;
use crate::ops::red::Place;
use crate::pin::{self, Kind, Pin};
use crate::repo::Oid;
use crate::surface::judge::{self, RedOutcome, RedState, Weakened, failed_by_name};
use crate::surface::weaken::{FindingKind, Findings};
use crate::test_names::{self as names, RunTests};
use crate::workspace::Workspace;

use super::{CriterionSummary, Options};

mod beside;
mod exams;

/// What the red gate let through: the findings (confirmed or shown) and a confirmed guards-only goal.
pub(super) struct RedGate {
    pub(super) weakened: Vec<Weakened>,
    pub(super) guards_only: bool,
    /// What the old and support exams found worth showing (refusing ones confirmed).
    pub(super) exams: Vec<crate::surface::exam::Exam>,
}

/// The rules of red before green over a goal whose criteria are all proven: findings in the goal's
/// diff over the test surface, a goal of guards only, a red witness for each acceptance criterion
/// (found, or made by running its red run here), green covering red, each guard holding against
/// its base run (found, or made here). Fills `proven[].red`; refuses (exit 1) naming each failure.
pub(super) fn red_gate(
    options: &Options,
    ws: &Workspace,
    goal: &GoalFile,
    ledger: &Ledger,
    proven: &mut [CriterionSummary],
) -> Result<RedGate> {
    let confirm = options.confirm;
    let texts: Vec<&str> = goal.criteria.iter().map(|c| c.text.as_str()).collect();
    let pins: Vec<String> = texts
        .iter()
        .filter_map(|t| pin::parse(t).and_then(|p| p.ok()).map(|p| p.command))
        .collect();
    let pinned = goal.criteria.iter().any(|c| pin::kind(&c.text).is_some());
    if history::init_commit(&ws.repo)?.is_none() && !pinned {
        // A goal with no `goal init` in its history (brought back by hand) and no pin: there is
        // no base to compare with, and nothing a red run could check.
        return Ok(RedGate {
            weakened: Vec::new(),
            guards_only: false,
            exams: Vec::new(),
        });
    }
    let step = crate::context::span("red gate: place (base, red tree)");
    let mut place = Place::of(ws)?;
    place.locked = true;
    drop(step);
    let step = crate::context::span("red gate: findings");
    let found = findings_read(ws, &place)?;
    drop(step);
    let weakened = judge::weakened(&found.findings, &pins, confirm);
    note_judged_by_red(&weakened);
    // An assertion-free test that its red run shows failing by name (and green passing) tests the
    // change whatever its body looks like: those wait for the red runs below.
    let free = assertion_free_waiting(&weakened);
    weakenings_confirmed(&weakened, free.len())?;
    let guards_only = judge::guards_only(&texts);
    guards_only_confirmed(guards_only, confirm)?;
    let mut gate = Gate {
        confirm,
        ws,
        ledger,
        place,
        found,
        weakened,
        free,
        refusals: Vec::new(),
        hint: None,
        exams: Vec::new(),
        surface: crate::ops::settings::surface(ws, goal)?,
        locks: crate::ops::red::locks_key(ws),
        ahead: Vec::new(),
        trees: std::cell::OnceCell::new(),
    };
    gate.criteria(goal, proven)?;
    gate.assertion_free_unshown();
    let (weakened, exams) = gate.verdict()?;
    Ok(RedGate {
        weakened,
        guards_only,
        exams,
    })
}

/// The goal's findings: its diff, base tree → the working tree, over the test surface; a file
/// that could not be read for weakened tests is warned about.
fn findings_read(ws: &Workspace, place: &Place) -> Result<Findings> {
    let found = crate::ops::red::findings(ws, place)?;
    for u in &found.unreadable {
        crate::context::note(format!(
            "warning: {} could not be read for weakened tests: {}",
            u.file, u.reason
        ));
    }
    Ok(found)
}

/// Each test change that does not refuse by itself is noted: red before green judges it.
fn note_judged_by_red(weakened: &[Weakened]) {
    for w in weakened.iter().filter(|w| !w.refuses) {
        crate::context::note(format!(
            "the goal changes a test: {} (the runs of `goal done` judge it)",
            w.describe()
        ));
    }
}

/// The assertion-free findings (by index) that still refuse, unconfirmed: a red run showing the
/// test failing by name lets them through.
fn assertion_free_waiting(weakened: &[Weakened]) -> Vec<usize> {
    (0..weakened.len())
        .filter(|&i| {
            let w = &weakened[i];
            w.kind == FindingKind::AssertionFree && w.refuses && !w.confirmed
        })
        .collect()
}

/// Is every weakening that refuses, other than the `free` assertion-free ones the red runs may
/// show, confirmed? Refused (for the person) naming each when not.
fn weakenings_confirmed(weakened: &[Weakened], free: usize) -> Result<()> {
    let unconfirmed: Vec<&Weakened> = weakened
        .iter()
        .filter(|w| w.refuses && !w.confirmed)
        .collect();
    if unconfirmed.len() <= free {
        return Ok(());
    }
    let refusals: Vec<String> = unconfirmed
        .iter()
        .map(|w| format!("the goal weakens its tests: {}", w.describe()))
        .collect();
    let hint = format!(
        "restore the tests (the bug stays until a test shows it fixed), or {} (recorded in a Goal-Tests-Weakened trailer)",
        crate::person::offer("accept each weakening", "goal done --confirm")
    );
    let what: Vec<String> = unconfirmed.iter().map(|w| w.describe()).collect();
    Err(Error::for_person(
        format!("the goal is not proven done:\n  {}", refusals.join("\n  ")),
        hint,
        format!("the weakened tests ({})", what.join("; ")),
    ))
}

/// Is a goal of guards only confirmed (a refactoring)? Refused (for the person) when not.
fn guards_only_confirmed(guards_only: bool, confirm: bool) -> Result<()> {
    if guards_only && !confirm {
        return Err(Error::for_person(
            "every criterion of the goal is a guard: guards show nothing broke, not that the change works",
            format!(
                "add an acceptance criterion whose test fails before the change: `goal criteria add \"<outcome>\" --verify \"<test command>\"`, or, for a refactoring, {}",
                crate::person::offer("confirm", "goal done --confirm")
            ),
            "a goal whose criteria are all guards (a refactoring)",
        ));
    }
    Ok(())
}

/// One reason the gate refuses, and the next step (the first refusal's is the hint).
struct Refusal {
    why: String,
    next: String,
}

/// What the gate's steps over the criteria share: where the red runs run, the goal's findings
/// and their judgement, the assertion-free ones still waiting for a red run, and the refusals
/// gathered so far with the first one's next step.
struct Gate<'a> {
    confirm: bool,
    ws: &'a Workspace,
    ledger: &'a Ledger,
    place: Place,
    found: Findings,
    /// `found.findings` judged, one for one.
    weakened: Vec<Weakened>,
    free: Vec<usize>,
    refusals: Vec<String>,
    hint: Option<String>,
    /// The exams' outcomes so far.
    exams: Vec<crate::surface::exam::Exam>,
    /// The goal's test surface (GOAL.md's settings), read once.
    surface: crate::surface::Surface,
    /// The working tree's dependency lock files' digest (a base run's key), read once.
    locks: String,
    /// The runs of the current criterion made beside its clean run, each by what it is (`base`,
    /// `old`, `support`), not yet recorded: taken (and recorded) where the gate would have made
    /// them, in the same order.
    ahead: Vec<(&'static str, Result<crate::ops::red::Made>)>,
    /// The exams' trees, built once.
    trees: std::cell::OnceCell<exams::ExamTrees>,
}

impl Gate<'_> {
    /// A refusal gathered: its reason listed, its next step the hint unless one came first.
    fn gather(&mut self, r: Refusal) {
        self.refusals.push(r.why);
        self.hint.get_or_insert(r.next);
    }

    /// Each proven criterion with a pin, by its kind: an acceptance criterion seen red before
    /// green, a guard holding against the goal's base.
    fn criteria(&mut self, goal: &GoalFile, proven: &mut [CriterionSummary]) -> Result<()> {
        let ledger = self.ledger;
        for c in proven.iter_mut() {
            let text = &goal.criteria[c.number - 1].text;
            let Some(Ok(p)) = pin::parse(text) else {
                continue;
            };
            let Some(green) = ledger.find(&c.evidence) else {
                continue;
            };
            match p.kind {
                Kind::Acceptance => self.acceptance(c, text, &p, green)?,
                Kind::Guard => self.guard(c, text, &p, green)?,
            }
        }
        Ok(())
    }

    /// The gate's answer: refused with every reason gathered, else the findings, the
    /// assertion-free ones a red run showed failing no longer refusing.
    fn verdict(self) -> Result<(Vec<Weakened>, Vec<crate::surface::exam::Exam>)> {
        let Gate {
            mut weakened,
            refusals,
            hint,
            exams,
            ..
        } = self;
        if !refusals.is_empty() {
            return Err(refuse(refusals, hint));
        }
        for w in &mut weakened {
            // Shown, no longer refusing: its red run showed it failing.
            if w.kind == FindingKind::AssertionFree && w.refuses && !w.confirmed {
                w.refuses = false;
            }
        }
        Ok((weakened, exams))
    }

    /// Acceptance criterion `c`, proven by `green`: is there a red witness? did the goal change
    /// the code its tests run? does its pin pass clean? is each weakened test it runs shown
    /// failing (or confirmed)? does green cover red? Sets `c.red` (and `c`'s evidence to the
    /// clean run), or gathers the first refusal.
    fn acceptance(
        &mut self,
        c: &mut CriterionSummary,
        text: &str,
        p: &Pin,
        green: &Record,
    ) -> Result<()> {
        let n = c.number;
        // The red witness (its red run made here when the ledger has none) and the deciding
        // green, the pin once more on the final tree, clean; the exams' runs beside them where
        // the machine has the cores.
        let step = crate::context::span(format!("criterion {n}: red, clean and the runs beside"));
        let (witness, clean) = match self.red_and_clean_with_exams(n, text, p, green)? {
            beside::RedAndClean::Both { witness, clean } => (*witness, *clean),
            beside::RedAndClean::Refused(r) => {
                self.gather(r);
                return Ok(());
            }
            beside::RedAndClean::Nothing => return Ok(()),
        };
        drop(step);
        c.evidence.clone_from(&clean.id);
        c.tests = clean.tests;
        let green = &clean;
        if let Some(r) = green_covers_red(n, &witness, green) {
            self.gather(r);
            return Ok(());
        }
        // The old exam judges the base's tests by running them: a weakened test of the base is
        // then judged by what it says of the final code, not by the red run alone.
        let step = crate::context::span(format!("criterion {n}: exams"));
        let judged = self.exams(n, text, p, green, &witness)?;
        drop(step);
        let step = crate::context::span(format!("criterion {n}: exam-changed, weakenings"));
        self.exam_changed(n, text, p, (green, &witness), &judged.base_tests)?;
        if let Some(r) = self.weakenings_shown(n, text, p, green, &witness, &judged.base_tests)? {
            self.gather(r);
            return Ok(());
        }
        drop(step);
        self.free.retain(|&i| {
            !(crate::surface::weaken::pin_runs(&p.command, &self.found.findings[i])
                && failed_by_name(witness.names.as_ref(), &self.weakened[i].test))
        });
        c.red = Some(witness.id.clone());
        Ok(())
    }

    /// Criterion `n`'s red witness and what its red run came to: the ledger's (a witness, a run
    /// that passes on the base, an inconclusive one), or its red run made here.
    fn witness(
        &self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
    ) -> Result<(Option<Record>, RedOutcome)> {
        let (ledger, place) = (self.ledger, &self.place);
        Ok(match judge::red_state(ledger, n, text, &place.target) {
            Some(judge::Red {
                state: RedState::Witnessed,
                record: Some(id),
            }) => (ledger.find(&id).cloned(), RedOutcome::Red),
            Some(judge::Red {
                state: RedState::PassesOnBase,
                ..
            }) => (None, RedOutcome::PassesOnBase),
            Some(judge::Red {
                state: RedState::Inconclusive,
                record,
            }) => (
                record.and_then(|id| ledger.find(&id).cloned()),
                RedOutcome::Inconclusive,
            ),
            _ => {
                crate::context::status_line(format!(
                    "criterion {n}: checking that its tests fail on the code before the goal (base {})…",
                    place.base_short()
                ));

                crate::ops::red::red_run(self.ws, place, n, text, &p.argv, &green.junit)?
            }
        })
    }

    /// Did the goal change the code criterion `n`'s tests run? Refused when its passing run is on
    /// the red tree itself (or the same code as it).
    fn code_unchanged(&self, n: usize, green: &Record) -> Option<Refusal> {
        let target = &self.place.target.tree;
        if green.tree != *target
            && green.tree_after.as_deref() != Some(target.as_str())
            && !same_code_as_red(self.ws, &self.place, green)
        {
            return None;
        }
        // The red tree is the base's code with the tests as now: equal to green's tree, the goal
        // changed none of the code its tests run.
        Some(Refusal {
            why: format!(
                "criterion {n}: the goal changed none of the code its tests run (its passing run {} is on the red tree itself: the base's code with the tests as now); red then green on the same code is the environment or a flaky test, not the goal's change",
                green.id
            ),
            next: format!(
                "change the code the criterion is about (outside the tests), then `goal verify -c {n}`"
            ),
        })
    }

    /// Is each weakened assertion criterion `n`'s pin runs shown failing by its red run (by name,
    /// or by a red run of that test alone), or confirmed? Refused naming those that are not.
    fn weakenings_shown(
        &mut self,
        n: usize,
        text: &str,
        p: &Pin,
        green: &Record,
        witness: &Record,
        base_tests: &[String],
    ) -> Result<Option<Refusal>> {
        // A weakened assertion is judged by the red/green pair: so the pair must be about that
        // test. A red run that failed only elsewhere (another test, an import or a build of code
        // the goal added) does not show the weakened test tests the change. A test of the base
        // the old exam ran by name is judged by it instead; one it could not see (the base run
        // named no test: a pin that ran none of them) is still judged by the red run here. A
        // test importing a name from other code than the base's tests did must be seen failing
        // by name on a red run that loaded.
        let mut unshown = Vec::new();
        let loaded_and_named = loaded_and_named(witness);
        // `weakened` is `found.findings` judged, one for one.
        for (w, _) in self
            .weakened
            .iter_mut()
            .zip(&self.found.findings)
            .filter(|(w, f)| {
                matches!(
                    w.kind,
                    FindingKind::AssertionWeakened
                        | FindingKind::AssertionRemoved
                        | FindingKind::ImportRedirected
                        | FindingKind::SkipAdded
                        | FindingKind::TestRemoved
                ) && crate::surface::weaken::pin_runs(&p.command, f)
                    && !base_tests
                        .iter()
                        .any(|t| crate::surface::judge::same_test(t, &w.test))
            })
        {
            if w.kind == FindingKind::ImportRedirected && loaded_and_named {
                continue;
            }
            if failed_by_name(witness.names.as_ref(), &w.test)
                || crate::ops::red::red_shows_without_failures(
                    self.ws,
                    &self.place,
                    n,
                    text,
                    &p.argv,
                    &green.junit,
                    witness,
                    &w.test,
                )?
            {
                continue;
            }
            if self.confirm {
                w.confirmed = true;
                continue;
            }
            unshown.push(w.describe());
        }
        if unshown.is_empty() {
            return Ok(None);
        }
        Ok(Some(Refusal {
            why: format!(
                "criterion {n}: the goal weakens a test its pin runs ({}), and its red run {} did not show that test failing (it failed elsewhere: another test, or an import or build failure): nothing shows the weakened test tests the change",
                unshown.join("; "),
                witness.id
            ),
            next: format!(
                "restore the assertion, or make the weakened test itself fail on the code before the goal (see it with `goal verify --red -c {n}`); or {} (recorded in a Goal-Tests-Weakened trailer)",
                crate::person::offer("accept it", "goal done --confirm")
            ),
        }))
    }

    /// Guard `c`, passing in `green`: does it hold against its base run (found, or made here)?
    /// Sets `c.base`, or gathers the refusal.
    fn guard(
        &mut self,
        c: &mut CriterionSummary,
        text: &str,
        p: &Pin,
        green: &Record,
    ) -> Result<()> {
        let n = c.number;
        let base = self.base_run(n, text, p, green)?;
        if let Some(r) = guard_holds(n, &base, green) {
            self.gather(r);
            return Ok(());
        }
        c.base = Some(base.id.clone());
        c.base_commit = Some(self.place.base_short());
        Ok(())
    }

    /// Guard `n`'s run on the goal's base: the ledger's, or made here.
    fn base_run(&self, n: usize, text: &str, p: &Pin, green: &Record) -> Result<Record> {
        let base_tree = self.place.base_tree.to_string();
        Ok(
            match judge::guard_base(self.ledger, n, text, &base_tree, &self.locks) {
                Some(r) => r.clone(),
                None => {
                    crate::context::status_line(format!(
                        "criterion {n}: running its guard on the goal's base (base {})…",
                        self.place.base_short()
                    ));

                    crate::ops::red::base_run(
                        self.ws,
                        &self.place,
                        n,
                        text,
                        &p.argv,
                        &green.junit,
                        None,
                    )?
                }
            },
        )
    }

    /// The assertion-free tests no red run showed failing by name: each refused.
    fn assertion_free_unshown(&mut self) {
        let unshown: Vec<String> = self
            .free
            .iter()
            .map(|&i| {
                format!(
                    "the goal weakens its tests: {} (no red run shows it failing)",
                    self.weakened[i].describe()
                )
            })
            .collect();
        for why in unshown {
            self.gather(Refusal {
                why,
                next: "make the test check the change (a test seen failing on the code before the goal by name tests it), or accept it with `goal done --confirm` (recorded in a Goal-Tests-Weakened trailer)".into(),
            });
        }
    }
}

/// Whether a red run named a failing test and loaded every test file.
fn loaded_and_named(witness: &Record) -> bool {
    witness.names.as_ref().is_some_and(|x| {
        x.names
            .iter()
            .any(|t| t.outcome == crate::test_names::TestOutcome::Failed)
    }) && !crate::test_names::load_or_build_failed(&witness.output_tail.join("\n"))
}

/// Does criterion `n`'s red run witness red? Refused, with what to do, when it passed on the base,
/// was inconclusive, or ran nothing (`witness` is the record it has, for its environment).
fn red_refused(n: usize, outcome: &RedOutcome, witness: Option<&Record>) -> Option<Refusal> {
    let environment = witness.and_then(judge::environment_of);
    let why = judge::outcome_message(n, outcome, environment.as_deref())?;
    let next = match outcome {
        RedOutcome::Inconclusive if environment.is_some() => format!(
            "make the pin's program and runner available where `goal` runs it (the red run sees the working tree's environment and dependency folders), then `goal verify --red -c {n}`"
        ),
        RedOutcome::Inconclusive => format!(
            "run its pin before the fix — with the tests written and the code not yet changed, `goal verify -c {n}` failing is a witness; `goal verify --red -c {n}` shows the red run"
        ),
        _ => format!(
            "write a test that fails on the code before the goal and passes now (see it with `goal verify --red -c {n}`)"
        ),
    };
    Some(Refusal { why, next })
}

/// Does criterion `n`'s passing run `green` run the tests that failed in its red `witness`?
/// Refused naming those it misses.
fn green_covers_red(n: usize, witness: &Record, green: &Record) -> Option<Refusal> {
    let missing = names::green_covers_red(&run_tests(witness), &run_tests(green)).err()?;
    let words: Vec<String> = missing.iter().map(|m| m.to_string()).collect();
    Some(Refusal {
        why: format!(
            "criterion {n}: its passing run does not run the tests that failed on the code before the goal ({}; red {}, green {})",
            words.join("; "),
            witness.id,
            green.id
        ),
        next: format!("run the same tests at the end: `goal verify -c {n}`"),
    })
}

/// Does guard `n`, now passing in `green`, run all it ran on the goal's base? Refused naming the
/// tests lost or skipped.
fn guard_holds(n: usize, base: &Record, green: &Record) -> Option<Refusal> {
    let missing = names::guard_holds(&run_tests(base), &run_tests(green)).err()?;
    let words: Vec<String> = missing.iter().map(|m| m.to_string()).collect();
    Some(Refusal {
        why: format!(
            "guard {n} runs less than on the goal's base: {} (base {}, now {})",
            words.join("; "),
            base.id,
            green.id
        ),
        next: "bring the lost or skipped tests back, then `goal verify` again".to_string(),
    })
}

fn run_tests(record: &Record) -> RunTests<'_> {
    RunTests {
        counts: record.tests,
        names: record.names.as_ref(),
    }
}

/// Whether the passing run `green`, made on the working tree as it is, ran the same code as the
/// red tree of `place`: every file that differs (the goal folder aside) differs only in comments,
/// docstrings or whitespace. A tree that cannot be read is not the same.
fn same_code_as_red(ws: &Workspace, place: &Place, green: &Record) -> bool {
    let Ok(now) = ws.worktree_tree().map(|t| t.to_string()) else {
        return false;
    };
    if green.tree != now && green.tree_after.as_deref() != Some(now.as_str()) {
        return false;
    }
    let Ok(work) = ws.worktree_tree_full() else {
        return false;
    };
    let files = |t| -> Option<std::collections::BTreeMap<String, Oid>> {
        let list = ws.repo.tree_files(t).ok()?;
        Some(list.into_iter().map(|f| (f.path, f.id)).collect())
    };
    let (Some(fa), Some(fb)) = (files(place.red.tree), files(work)) else {
        return false;
    };
    let text = |id: &Oid| {
        ws.repo
            .blob_bytes(*id)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let paths: std::collections::BTreeSet<&String> = fa.keys().chain(fb.keys()).collect();
    paths.into_iter().all(|path| {
        if std::path::Path::new(path).starts_with(&ws.goal_dir) {
            return true;
        }
        match (fa.get(path), fb.get(path)) {
            (Some(x), Some(y)) if x == y => true,
            (Some(x), Some(y)) => match (text(x), text(y)) {
                (Some(x), Some(y)) => crate::surface::weaken::same_code(path, &x, &y),
                _ => false,
            },
            _ => false,
        }
    })
}

/// Acceptance criterion `n`'s deciding green: its pin run once more in a clean checkout of the
/// final tree (see [`crate::ops::red::clean_run`]), its cost shown. Err: why it does not prove
/// the criterion, and the next step.
fn clean_green(
    ws: &Workspace,
    place: &Place,
    n: usize,
    text: &str,
    argv: &[String],
    green: &Record,
) -> Result<std::result::Result<Record, (String, String)>> {
    let tree = ws.worktree_tree_full()?;
    let record =
        crate::ops::red::clean_run(ws, place, n, text, argv, &green.junit, tree, &green.tree)?;
    let verdict = ws
        .ledger()?
        .proof(n, text, &green.tree)
        .map(|r| r.id.clone());
    let seconds = record.duration_ms as f64 / 1000.0;
    let how = if verdict.is_ok() {
        "passed"
    } else {
        "did not pass"
    };
    crate::context::status_line(format!(
        "criterion {n}: the clean run {how} in {seconds:.1}s (record {})",
        record.id
    ));
    match verdict {
        Ok(_) => Ok(Ok(record)),
        Err(why) => Ok(Err((
            format!(
                "criterion {n}: its pin does not pass in a clean checkout of the final tree (tracked files only: nothing git ignores or .git/info/exclude hides): {why} (record {}, exit {})",
                record.id, record.exit_code
            ),
            format!(
                "the passing run depended on files only this working tree has: see them with `git status --ignored`; commit what the tests need, or remove what patches them, then `goal verify -c {n}`"
            ),
        ))),
    }
}

fn refuse(refusals: Vec<String>, hint: Option<String>) -> Error {
    Error::not_proven(
        format!("the goal is not proven done:\n  {}", refusals.join("\n  ")),
        hint.unwrap_or_else(|| "goal status".into()),
    )
}
