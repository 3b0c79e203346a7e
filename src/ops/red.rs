//! The red and base runs of a goal in this worktree: where they stand (the goal's base commit,
//! the red tree of the working tree now), each criterion's red state, running a pin on the red
//! tree or the base tree and recording it in the ledger, and what `goal done` would refuse.

use crate::context::now_rfc3339;
use crate::error::{Error, Result};
use crate::evidence::{self, NewRecord, Record};
use crate::pin;
use crate::repo::{Oid, Repo};
use crate::surface::judge::RedOutcome;
use crate::surface::judge::RedTarget;
use crate::surface::red::RedTree;
use crate::surface::tree_run::{TreeRun, TreeRunOptions, red_target, run_in_tree};
use crate::workspace::{Workspace, write_atomic};

/// The goal's base: the first parent of its init commit (None for a root commit, or a parent a
/// shallow clone does not have).
fn base_of(repo: &Repo, init: &crate::repo::CommitInfo) -> Result<Option<Oid>> {
    Ok(repo.commit_and_parent(init.id)?.1)
}

/// The goal's init commit and its [`Place`], each read at most once however many of a command's
/// questions need them (status asks for red states and for done's refusals: six history walks
/// and a `git rev-parse` before).
#[derive(Default)]
pub struct PlaceOnce {
    init: std::cell::OnceCell<Option<crate::repo::CommitInfo>>,
    place: std::cell::OnceCell<Place>,
}

impl PlaceOnce {
    /// The goal's init commit on this branch (None: no `goal init` in the history).
    pub fn init(&self, ws: &Workspace) -> Result<Option<&crate::repo::CommitInfo>> {
        if let Some(init) = self.init.get() {
            return Ok(init.as_ref());
        }
        let init = crate::history::init_commit(&ws.repo)?;
        Ok(self.init.get_or_init(|| init).as_ref())
    }

    pub fn place(&self, ws: &Workspace) -> Result<&Place> {
        if let Some(place) = self.place.get() {
            return Ok(place);
        }
        let place = Place::at(ws, self.init(ws)?.cloned())?;
        Ok(self.place.get_or_init(|| place))
    }
}

/// Where a goal's red and base runs stand: its base commit, the commit the temporary worktrees
/// start from, and the red tree of the working tree as it is now.
pub struct Place {
    /// The caller holds the worktree's lock already (`goal done`): appending takes no other.
    pub locked: bool,
    pub base: Option<Oid>,
    pub head: Oid,
    pub red: RedTree,
    pub target: RedTarget,
    /// The base tree without the goal folder (a guard's base record is on it).
    pub base_tree: Oid,
    /// The base tree as committed (what a base run checks out).
    pub base_tree_full: Oid,
}

impl Place {
    pub fn of(ws: &crate::workspace::Workspace) -> Result<Place> {
        Place::at(ws, crate::history::init_commit(&ws.repo)?)
    }

    /// The place of a goal whose init commit is `init`.
    fn at(
        ws: &crate::workspace::Workspace,
        init: Option<crate::repo::CommitInfo>,
    ) -> Result<Place> {
        let Some(init) = init else {
            return Err(Error::usage(
                "no goal commit found on this branch: the red run needs the commit the goal started from",
                "start the goal with `goal init`",
            ));
        };
        let base = base_of(&ws.repo, &init)?;
        let work = ws.worktree_tree_full()?;
        let base_tree_full = match base {
            Some(b) => ws.repo.commit_info(b)?.tree,
            None => ws.repo.empty_tree()?,
        };
        let surface = super::settings::surface(ws, &ws.goal()?)?;
        let (red, target) = red_target(&ws.repo, base, work, &ws.goal_dir, &surface)?;
        Ok(Place {
            locked: false,
            base,
            head: init.id,
            base_tree: ws.repo.tree_without(base_tree_full, &ws.goal_dir)?,
            base_tree_full,
            red,
            target,
        })
    }

    /// The base commit's short id, for messages.
    pub fn base_short(&self) -> String {
        self.base.map_or("(empty)".to_string(), crate::ops::short)
    }
}

/// The red state of each criterion of `goal` on the working tree as it is now (None for guards
/// and unpinned criteria); all None when no criterion is an acceptance criterion, so that the
/// red tree is built only when something needs it.
pub fn red_states(
    ws: &crate::workspace::Workspace,
    goal: &crate::goal_file::GoalFile,
    ledger: &crate::evidence::Ledger,
    once: &PlaceOnce,
) -> Result<Vec<Option<crate::surface::judge::Red>>> {
    let acceptance = goal
        .criteria
        .iter()
        .any(|c| crate::pin::kind(&c.text) == Some(crate::pin::Kind::Acceptance));
    if !acceptance || once.init(ws)?.is_none() {
        return Ok(goal
            .criteria
            .iter()
            .map(|c| {
                (crate::pin::kind(&c.text) == Some(crate::pin::Kind::Acceptance)).then_some(
                    crate::surface::judge::Red {
                        state: crate::surface::judge::RedState::Pending,
                        record: None,
                    },
                )
            })
            .collect());
    }
    let place = once.place(ws)?;
    Ok(goal
        .criteria
        .iter()
        .map(|c| crate::surface::judge::red_state(ledger, c.number, &c.text, &place.target))
        .collect())
}

/// Run criterion `n`'s pin on the red tree and record it (None: the red tree cannot be trusted,
/// nothing ran). What it came to.
pub fn red_run(
    ws: &Workspace,
    place: &Place,
    n: usize,
    text: &str,
    argv: &[String],
    junit: &[String],
) -> Result<(Option<Record>, RedOutcome)> {
    if !place.target.trusted {
        for u in &place.red.untrusted {
            crate::context::note(format!("the red tree is not trustworthy: {}", u.reason));
        }
        return Ok((None, RedOutcome::Inconclusive));
    }
    crate::context::status_line(format!(
        "goal: running `{}` on the code before the goal (base {}) with the tests as now",
        pin::render(argv),
        place.base_short()
    ));

    let result = run_in_tree(
        &ws.repo,
        place.head,
        place.red.tree,
        argv,
        &options(ws, junit),
    )?;
    let cut_off = crate::child::take_cut_off();
    let missing = result.path_missing.clone();
    let environment = match &cut_off {
        Some(cut) => cut_off_says_nothing(ws, n, argv, cut)?,
        None => environment_failed(ws, argv, &result),
    };
    let load_failed = load_failed_in_tests(ws, place, &result.failed_to_load)?;
    let extra = evidence::Extra {
        names: Some(result.names.clone()),
        red: Some(evidence::Red {
            base: place.target.base.clone(),
            tests: place.target.tests.clone(),
            environment: environment.clone(),
            load_failed,
        }),
        base_run: false,
        locks: None,
        exam: None,
        ran: Vec::new(),
    };
    let record = append(
        ws,
        place,
        n,
        text,
        argv,
        &place.target.tree,
        (result, cut_off),
        extra,
        junit,
    )?;
    let outcome = crate::surface::judge::red_outcome(&record, missing.is_some());
    if let Some(path) = missing {
        crate::context::note(format!(
            "`{path}` does not exist on the code before the goal: nothing of it ran"
        ));
    }
    if let Some(why) = environment {
        let what = if record.cut_off.is_some() {
            "the red run is inconclusive"
        } else {
            "the red run's environment failed, not the code"
        };
        crate::context::note(format!("{what}: {why}"));
    }
    Ok((Some(record), outcome))
}

/// The files whose suites failed to load on the red tree, when each is a file of the test surface
/// (a test that does not type-check or import against the base code); empty when any is not (an
/// error in the code says nothing of the tests).
fn load_failed_in_tests(ws: &Workspace, place: &Place, files: &[String]) -> Result<Vec<String>> {
    let mut tests = Vec::new();
    for f in files {
        match ws
            .repo
            .file_in_tree(place.red.tests, std::path::Path::new(f))?
        {
            Some(_) => tests.push(f.clone()),
            None => return Ok(Vec::new()),
        }
    }
    Ok(tests)
}

/// Whether the red tree shows `test` failing once the tests that failed in `witness` are left
/// out. A cargo test binary that aborts on one test (a stack overflow) reports none after it, so
/// a test the goal weakened there never showed what it comes to on the old code: its pin runs
/// again with those tests skipped (`cargo test … -- --skip <name>`), at most three times while
/// other tests still bring it down, each run recorded as a red run of criterion `n`. Never for
/// a test the red run named, nor a pin that is not `cargo test`.
#[allow(clippy::too_many_arguments)]
pub fn red_shows_without_failures(
    ws: &Workspace,
    place: &Place,
    n: usize,
    text: &str,
    argv: &[String],
    junit: &[String],
    witness: &Record,
    test: &str,
) -> Result<bool> {
    use crate::surface::judge::{cargo_skipping, failed_by_name, named};
    let Some(names) = witness.names.as_ref() else {
        return Ok(false);
    };
    let mut skip = failed_names(names);
    if skip.is_empty() || named(names, test) || !place.target.trusted {
        return Ok(false);
    }
    for _ in 0..3 {
        let Some(skipping) = cargo_skipping(argv, &skip) else {
            return Ok(false);
        };
        crate::context::status_line(format!(
            "criterion {n}: {test} did not report on the code before the goal (its test binary stopped at {}); running `{}` there",
            skip.join(", "),
            pin::render(&skipping)
        ));
        let result = run_in_tree(
            &ws.repo,
            place.head,
            place.red.tree,
            &skipping,
            &options(ws, junit),
        )?;
        let found = result.names.clone();
        let extra = evidence::Extra {
            names: Some(found.clone()),
            red: Some(evidence::Red {
                base: place.target.base.clone(),
                tests: place.target.tests.clone(),
                environment: None,
                load_failed: Vec::new(),
            }),
            base_run: false,
            locks: None,
            exam: None,
            ran: Vec::new(),
        };
        append(
            ws,
            place,
            n,
            text,
            &skipping,
            &place.target.tree,
            (result, crate::child::take_cut_off()),
            extra,
            junit,
        )?;
        if failed_by_name(Some(&found), test) {
            return Ok(true);
        }
        let more: Vec<String> = failed_names(&found)
            .into_iter()
            .filter(|t| !skip.contains(t))
            .collect();
        if named(&found, test) || more.is_empty() {
            return Ok(false);
        }
        skip.extend(more);
    }
    Ok(false)
}

/// The tests a run names failing.
fn failed_names(names: &crate::test_names::TestNames) -> Vec<String> {
    names
        .names
        .iter()
        .filter(|t| t.outcome == crate::test_names::TestOutcome::Failed)
        .map(|t| t.name.clone())
        .collect()
}

/// Why a red run failed because of its environment (the end of its output read as a record's
/// tail is), the goal's npm scripts being those of the working tree's `package.json`.
fn environment_failed(ws: &Workspace, argv: &[String], result: &TreeRun) -> Option<String> {
    let text = String::from_utf8_lossy(&result.output);
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(evidence::TAIL_LINES)..].join("\n");
    let scripts: Vec<String> = std::fs::read_to_string(ws.root().join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| {
            v.get("scripts")?
                .as_object()
                .map(|m| m.keys().cloned().collect())
        })
        .unwrap_or_default();
    crate::surface::environment::environment_failure(
        argv,
        result.exit_code,
        result.tests,
        &tail,
        &|script| scripts.iter().any(|s| s == script),
    )
}

/// The dependency lock files whose change makes a pin's base run again: the dependency folders
/// a run on another tree sees are the working tree's, installed from these.
pub const LOCK_FILES: &[&str] = &[
    "Cargo.lock",
    "package-lock.json",
    "go.sum",
    "poetry.lock",
    "uv.lock",
];

/// A digest of the working tree's dependency lock files as they are now (each one's name and
/// content; a missing one counts as missing): the key a base run is kept under.
pub fn locks_key(ws: &Workspace) -> String {
    let mut bytes = Vec::new();
    for name in LOCK_FILES {
        bytes.extend_from_slice(name.as_bytes());
        match std::fs::read(ws.root().join(name)) {
            Ok(content) => {
                bytes.push(1);
                bytes.extend_from_slice(crate::evidence::sha256_hex(&content).as_bytes());
            }
            Err(_) => bytes.push(0),
        }
    }
    crate::evidence::sha256_hex(&bytes)
}

/// A run made on another tree, not yet recorded, and why it was cut off if it was.
pub type Made = (TreeRun, Option<evidence::CutOff>);

/// Run `argv` on `tree` in the kept worktree of `slot` (see
/// [`crate::repo::KeptWorktree::open_slot`]), showing nothing of its output, for a caller that
/// records it later (`goal done` runs an exam in the second one while the clean run goes on in
/// the first).
pub fn run_ahead(
    slot: &str,
    work_root: &std::path::Path,
    git_dir: &std::path::Path,
    head: Oid,
    argv: &[String],
    junit: &[String],
    tree: Oid,
) -> Result<Made> {
    let options = TreeRunOptions {
        work_root,
        git_dir,
        cwd: "",
        junit,
        show: false,
        to_stderr: true,
        keep: true,
        name_tests: true,
    };
    let result = crate::surface::tree_run::run_in_tree_at(slot, head, tree, argv, &options)?;
    Ok((result, crate::child::take_cut_off()))
}

/// Criterion `n`'s base run (its pin on the goal's base tree) when the ledger has none made with
/// the dependency lock files as they are now: made and recorded here, once per pin, so that
/// `goal done` finds it. Its record when one was made.
pub fn keep_base_run(
    ws: &Workspace,
    place: &Place,
    n: usize,
    text: &str,
    argv: &[String],
    junit: &[String],
) -> Result<Option<Record>> {
    let ledger = ws.ledger()?;
    let tree = place.base_tree.to_string();
    if crate::surface::judge::base_record(&ledger, n, text, &tree, &locks_key(ws)).is_some() {
        return Ok(None);
    }
    crate::context::status_line(format!(
        "goal: running `{}` on the goal's base (base {}), kept for `goal done`'s old exam",
        pin::render(argv),
        place.base_short()
    ));
    // One line says it; its output is the record's.
    let _hush = crate::context::hush();
    base_run(ws, place, n, text, argv, junit, None).map(Some)
}

/// Run criterion `n`'s pin on the goal's base tree and record it (`base_run`): a guard's base
/// record, or the run an acceptance criterion's old exam is judged against. `made`: the run,
/// made already (nothing runs here, nothing is said).
#[allow(clippy::too_many_arguments)]
pub fn base_run(
    ws: &Workspace,
    place: &Place,
    n: usize,
    text: &str,
    argv: &[String],
    junit: &[String],
    made: Option<Made>,
) -> Result<Record> {
    let (result, cut_off) = match made {
        Some(made) => made,
        None => {
            crate::context::status_line(format!(
                "goal: running `{}` on the goal's base (base {})",
                pin::render(argv),
                place.base_short()
            ));

            let result = run_in_tree(
                &ws.repo,
                place.head,
                place.base_tree_full,
                argv,
                &options(ws, junit),
            )?;
            (result, crate::child::take_cut_off())
        }
    };
    let extra = evidence::Extra {
        names: Some(result.names.clone()),
        red: None,
        base_run: true,
        locks: Some(locks_key(ws)),
        exam: None,
        ran: Vec::new(),
    };
    let tree = place.base_tree.to_string();
    append(
        ws,
        place,
        n,
        text,
        argv,
        &tree,
        (result, cut_off),
        extra,
        junit,
    )
}

/// Run acceptance criterion `n`'s pin on an exam tree of `goal done` (`exam`: `old`, the base's
/// tests on the final code; `support`, the final tests with the base's configuration and helpers)
/// and record it on that tree (`made`: the run, made already: nothing runs here, nothing is
/// said). With the record, whether a test file or package did not load or build there, and the
/// run's whole output (the record keeps only its tail).
#[allow(clippy::too_many_arguments)]
pub fn exam_run_output(
    ws: &Workspace,
    place: &Place,
    n: usize,
    text: &str,
    argv: &[String],
    junit: &[String],
    tree: Oid,
    exam: &str,
    made: Option<Made>,
) -> Result<(Record, bool, String)> {
    let (result, cut_off) = match made {
        Some(made) => made,
        None => {
            crate::context::status_line(format!(
                "criterion {n}: running `{}` on {}…",
                pin::render(argv),
                exam_tree_words(exam)
            ));

            let result = run_in_tree(&ws.repo, place.head, tree, argv, &options(ws, junit))?;
            (result, crate::child::take_cut_off())
        }
    };
    let output = String::from_utf8_lossy(&result.output).into_owned();
    let load_failed = crate::test_names::load_or_build_failed(&output);
    let extra = evidence::Extra {
        names: Some(result.names.clone()),
        red: None,
        base_run: false,
        locks: None,
        exam: Some(exam.to_string()),
        ran: Vec::new(),
    };
    let tree = ws.repo.tree_without(tree, &ws.goal_dir)?.to_string();
    // A run cut off by its bound is recorded so; the tests it did not get to name are judged as
    // missing from it.
    let record = append(
        ws,
        place,
        n,
        text,
        argv,
        &tree,
        (result, cut_off),
        extra,
        junit,
    )?;
    Ok((record, load_failed, output))
}

/// What an exam's tree holds, for the line that says it runs (`old` or `support`).
pub fn exam_tree_words(exam: &str) -> &'static str {
    match exam {
        "old" => "the tests of the goal's base on the final code",
        "seen" => "the final code with the goal's tests as first seen failing",
        "seen-base" => "the base's code with the goal's tests as first seen failing",
        _ => "the final tests with the base's test configuration, helpers and build files",
    }
}

/// Run acceptance criterion `n`'s pin once more in a clean checkout of the final tree `tree`
/// (tracked files and what the goal commits: nothing git ignores or `.git/info/exclude` hides),
/// in the same worktree and environment as its red run, and record it on `tree_text` (the tree
/// its in-place green was judged on): that record is the deciding green.
#[allow(clippy::too_many_arguments)]
pub fn clean_run(
    ws: &Workspace,
    place: &Place,
    n: usize,
    text: &str,
    argv: &[String],
    junit: &[String],
    tree: Oid,
    tree_text: &str,
) -> Result<Record> {
    crate::context::status_line(format!(
        "criterion {n}: running `{}` once more in a clean checkout of the final tree (tracked files only)…",
        pin::render(argv)
    ));

    let result = run_in_tree(&ws.repo, place.head, tree, argv, &options(ws, junit))?;
    let extra = evidence::Extra {
        names: Some(result.names.clone()),
        red: None,
        base_run: false,
        locks: None,
        exam: None,
        ran: Vec::new(),
    };
    let ran = (result, crate::child::take_cut_off());
    append(ws, place, n, text, argv, tree_text, ran, extra, junit)
}

fn options<'a>(ws: &'a Workspace, junit: &'a [String]) -> TreeRunOptions<'a> {
    TreeRunOptions {
        work_root: ws.root(),
        git_dir: ws.repo.common_dir(),
        cwd: "",
        junit,
        show: !crate::context::quiet(),
        to_stderr: true,
        keep: true,
        name_tests: true,
    }
}

/// Seal a run made elsewhere as a record of criterion `n` on `tree`, witness it and append it.
#[allow(clippy::too_many_arguments)]
fn append(
    ws: &Workspace,
    place: &Place,
    n: usize,
    text: &str,
    argv: &[String],
    tree: &str,
    (result, cut_off): (TreeRun, Option<evidence::CutOff>),
    mut extra: evidence::Extra,
    junit: &[String],
) -> Result<Record> {
    let _step = crate::context::span("record a run");
    extra.ran = result.ran.clone();
    let _lock = if place.locked { None } else { Some(ws.lock()?) };
    let ledger = ws.ledger()?;
    let (record, line) = evidence::seal_cut(
        NewRecord {
            criteria: vec![(n, text.to_string())],
            argv: argv.to_vec(),
            cwd: String::new(),
            exit_code: result.exit_code,
            started: now_rfc3339(),
            duration_ms: result.duration_ms,
            tree: tree.to_string(),
            tree_after: None,
            created: Vec::new(),
            changed: Vec::new(),
            tests: result.tests,
            junit: junit.to_vec(),
            check: false,
            output: result.output,
        },
        extra,
        cut_off,
        &ledger.head_hash(),
    );
    append_line(ws, &record, &line)?;
    Ok(record)
}

/// Why a red run of criterion `n`'s pin that was cut off shows nothing (None: it counts red).
/// It counts red only when the latest green of the same pin on the working code finished within
/// half the time bound: the code before the goal then ran far past what the goal's code needs
/// (a loop, a leak). Otherwise the bound, not the code, may have ended it: inconclusive.
fn cut_off_says_nothing(
    ws: &Workspace,
    n: usize,
    argv: &[String],
    cut: &evidence::CutOff,
) -> Result<Option<String>> {
    let bound = crate::child::pin_bounds()?.timeout;
    let ledger = ws.ledger()?;
    let green =
        ledger.records.iter().rev().find(|r| {
            r.on_working_code() && r.argv == argv && r.criteria.contains(&n) && r.passes()
        });
    let why = match green {
        Some(g) if u128::from(g.duration_ms) * 2 <= bound.as_millis() => {
            crate::context::note(format!(
                "criterion {n}: the red run was {}; counted red, as its green ({}) finished in {} ms, within half the time bound",
                cut.describe(),
                g.id,
                g.duration_ms
            ));
            return Ok(None);
        }
        Some(g) => format!(
            "the red run was {}, and its green ({}) took {} ms, more than half the time bound: the bound may have ended it, not the code",
            cut.describe(),
            g.id,
            g.duration_ms
        ),
        None => format!(
            "the red run was {}, and no passing run of this pin on the goal's code shows how long it needs",
            cut.describe()
        ),
    };
    Ok(Some(why))
}

/// Witness a sealed record, then append its line to evidence.jsonl.
pub fn append_line(ws: &Workspace, record: &Record, line: &str) -> Result<()> {
    // The witness first: a crash after it leaves an unused hash, never an unwitnessed record.
    ws.witness(record)?;
    let evidence_path = ws.abs(&ws.evidence_rel());
    let mut bytes = std::fs::read(&evidence_path).unwrap_or_default();
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line.as_bytes());
    write_atomic(&evidence_path, &bytes)
}

/// The weakening findings of the goal's diff (base tree → the working tree) over the test surface.
pub fn findings(ws: &Workspace, place: &Place) -> Result<crate::surface::weaken::Findings> {
    let surface = super::settings::surface(ws, &ws.goal()?)?;
    crate::surface::red::goal_findings(
        &ws.repo,
        place.base_tree_full,
        ws.worktree_tree_full()?,
        &surface,
        &|_| false,
    )
}

/// Why `goal done` (without `--confirm`) would refuse a goal whose criteria are all proven, for
/// status's next step: a goal of guards only, or a finding that refuses. None when it would not
/// (or when the goal has no history to compare with).
pub fn done_would_refuse(
    ws: &Workspace,
    goal: &crate::goal_file::GoalFile,
    once: &PlaceOnce,
) -> Result<Option<String>> {
    let texts: Vec<&str> = goal.criteria.iter().map(|c| c.text.as_str()).collect();
    if crate::surface::judge::guards_only(&texts) {
        return Ok(Some(format!(
            "every criterion is a guard, which shows nothing broke, not that the change works: add an acceptance criterion (`goal criteria add \"<outcome>\" --verify \"<test command>\"`), or, for a refactoring, {}",
            crate::person::offer("confirm", "goal done --confirm")
        )));
    }
    if once.init(ws)?.is_none() {
        return Ok(None);
    }
    let place = once.place(ws)?;
    let pins: Vec<String> = texts
        .iter()
        .filter_map(|t| pin::parse(t).and_then(|p| p.ok()).map(|p| p.command))
        .collect();
    let found = findings(ws, place)?;
    let refusing: Vec<String> = crate::surface::judge::weakened(&found.findings, &pins, false)
        .iter()
        .filter(|w| w.refuses)
        .map(|w| w.describe())
        .collect();
    Ok((!refusing.is_empty()).then(|| {
        format!(
            "the goal weakens its tests ({}): restore them, or {}",
            refusing.join("; "),
            crate::person::offer("accept each", "goal done --confirm")
        )
    }))
}
