//! Reading goals back from git history: goal commits, stagnation points, and the audit rows of
//! `goal log`.

use std::path::Path;

use crate::repo::Oid;
use serde::Serialize;

use crate::config::Config;
use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::material;
use crate::repo::{CommitInfo, DiffStat, Repo};
use crate::stagnation::{self, Point, Signals, StagnationVerdict};
use crate::surface::Surface;
use crate::surface::weaken::{self, FileChange, Finding};
use crate::trailers::{GoalAction, GoalTrailers};
use crate::usage::Usage;

/// A commit that carries `Goal-*` trailers.
#[derive(Debug, Clone)]
pub struct GoalCommit {
    pub info: CommitInfo,
    pub trailers: GoalTrailers,
}

impl GoalCommit {
    fn action(&self) -> Option<GoalAction> {
        self.trailers.action
    }

    /// Whether this commit records an iteration (or the init, iteration 0).
    fn is_point(&self) -> bool {
        matches!(self.action(), Some(GoalAction::Init | GoalAction::Iterate))
    }
}

/// The stagnation verdict of the active goal after its last recorded iteration, from history.
/// Walks back only as far as the window and the escalation count need.
pub fn stagnation(
    repo: &Repo,
    goal_dir: &Path,
    goal: &GoalFile,
    config: &Config,
) -> Result<StagnationVerdict> {
    stagnation_with(repo, goal_dir, goal, config, None)
}

/// The verdict [`stagnation`] will give once `pending` (the iteration about to be committed) is
/// in history: what `goal iterate` records in its commit's `Goal-Verdict` trailer.
pub fn stagnation_with(
    repo: &Repo,
    goal_dir: &Path,
    goal: &GoalFile,
    config: &Config,
    pending: Option<Point>,
) -> Result<StagnationVerdict> {
    let needed = config.log_window();
    let mut commits = Vec::new();
    let mut restored = false;
    for info in repo.first_parent_walk()? {
        let info = info?;
        let Some(trailers) = GoalTrailers::read(&info) else {
            continue;
        };
        let commit = GoalCommit { info, trailers };
        // A restore takes back the abandon before it: the goal goes on across both.
        match commit.action() {
            Some(GoalAction::Restore) => {
                restored = true;
                continue;
            }
            Some(GoalAction::Abandon) if restored => {
                restored = false;
                continue;
            }
            _ => {}
        }
        let stop = commit.action() == Some(GoalAction::Init)
            || (commit.is_point() && commit.trailers.iteration + needed <= goal.iteration);
        let ends_other_goal = matches!(
            commit.action(),
            Some(GoalAction::Done | GoalAction::Abandon)
        );
        if ends_other_goal {
            break;
        }
        commits.push(commit);
        if stop {
            break;
        }
    }
    commits.reverse();
    let mut points = points(repo, goal_dir, &commits, goal, config)?;
    if let Some(p) = pending {
        points.retain(|q| q.iteration < p.iteration);
        if points
            .last()
            .is_some_and(|q| q.iteration + 1 != p.iteration)
        {
            points.clear();
        }
        points.push(p);
    }
    let boundary = commits
        .iter()
        .filter(|c| c.action() == Some(GoalAction::Escalate))
        .map(|c| c.trailers.iteration)
        .max();
    Ok(stagnation::verdict(
        &points,
        config.stagnation_window,
        config.escalate_after,
        boundary,
    ))
}

/// Stagnation points from goal commits (oldest first): the last init/iterate commit of each
/// iteration, consecutive iterations only.
fn points(
    repo: &Repo,
    goal_dir: &Path,
    commits: &[GoalCommit],
    goal: &GoalFile,
    config: &Config,
) -> Result<Vec<Point>> {
    let mut by_iteration: Vec<&GoalCommit> = Vec::new();
    for c in commits.iter().filter(|c| c.is_point()) {
        match by_iteration.last() {
            Some(last) if last.trailers.iteration == c.trailers.iteration => {
                by_iteration.pop();
            }
            Some(last) if last.trailers.iteration + 1 != c.trailers.iteration => {
                by_iteration.clear()
            }
            _ => {}
        }
        by_iteration.push(c);
    }
    // A few points look their entries up one by one; many (a large escalation count) read the
    // Progress Log once, or the lookups would make this quadratic in the history.
    let entries: Option<std::collections::HashMap<u64, crate::goal_file::LogEntry>> =
        (by_iteration.len() > 8).then(|| goal.log().into_iter().map(|e| (e.number, e)).collect());
    by_iteration
        .iter()
        .map(|c| {
            let entry = match &entries {
                Some(map) => map.get(&c.trailers.iteration).cloned(),
                None => goal.log_entry(c.trailers.iteration),
            };
            Ok(Point {
                iteration: c.trailers.iteration,
                passing: c.trailers.passing,
                progress_words: entry.is_some_and(|e| {
                    stagnation::has_keyword(goal.entry_text(&e), &config.progress_keywords)
                }),
                tree: repo.tree_without(c.info.tree, goal_dir)?.to_string(),
            })
        })
        .collect()
}

/// The `init` commit of the active goal (first parent from HEAD).
pub fn init_commit(repo: &Repo) -> Result<Option<CommitInfo>> {
    let mut restored = false;
    for info in repo.first_parent_walk()? {
        let info = info?;
        match GoalTrailers::read(&info).and_then(|t| t.action) {
            Some(GoalAction::Init) => return Ok(Some(info)),
            // A restore takes back the abandon before it.
            Some(GoalAction::Restore) => restored = true,
            Some(GoalAction::Abandon) if restored => restored = false,
            Some(GoalAction::Done | GoalAction::Abandon) => return Ok(None),
            _ => {}
        }
    }
    Ok(None)
}

/// What one commit did to the criteria.
#[derive(Debug, Default)]
struct Change {
    unverified: bool,
    broken: bool,
    material: Vec<MaterialEntry>,
}

/// Put a commit's findings on a row, flagged `tests-weakened`.
fn weakened(row: &mut Row, commit: &str, findings: Vec<Finding>) {
    if findings.is_empty() {
        return;
    }
    row.flag("tests-weakened");
    row.tests_weakened
        .extend(findings.into_iter().map(|finding| WeakenedEntry {
            commit: commit.to_string(),
            finding,
        }));
}

impl Change {
    fn apply(self, row: &mut Row) {
        if self.unverified {
            row.flag("unverified-check");
        }
        if self.broken {
            row.flag("broken-evidence-chain");
        }
        if !self.material.is_empty() {
            row.flag("material-change");
        }
        row.material.extend(self.material);
    }
}

/// One row of `goal log`: an iteration of a goal.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub iteration: u64,
    pub commit: String,
    pub date: String,
    pub passing: usize,
    pub total: usize,
    pub files_changed: usize,
    pub insertions: usize,
    pub deletions: usize,
    pub summary: String,
    pub evidence: Vec<String>,
    pub flags: Vec<String>,
    pub stagnation: Signals,
    pub status: String,
    /// The goal this row belongs to (useful with `--all`).
    pub goal: String,
    /// Criteria removed or materially reworded by this row's commits, whoever made them.
    pub material: Vec<MaterialEntry>,
    /// The `goal run` that made this iteration (its `Goal-Run` trailer), if one did.
    pub run: Option<String>,
    /// The agent of that run that made it (`Goal-Run: <run id> agent=<name>`).
    pub agent: Option<String>,
    /// What the run's agent CLI reported using, summed over this row's `Goal-Usage` trailers
    /// (null when none has one).
    pub usage: Option<Usage>,
    /// The row of an iteration (not a completion, a block or a hand-made commit).
    #[serde(skip)]
    pub is_iteration: bool,
    /// Weakening findings this row's commits made to the test surface (each commit against its
    /// parent), whoever made them.
    pub tests_weakened: Vec<WeakenedEntry>,
    /// The findings this row's commit records as accepted (`Goal-Tests-Weakened` trailers of a
    /// completion made with `goal done --confirm`): `<kind> <file>:<line> <test>`.
    pub tests_weakened_confirmed: Vec<String>,
}

/// One `goal run` as a goal's rows show it: the iterations it made, the agent of each, and what
/// its agents reported using (the sum of its rows' `Goal-Usage`; null when none was recorded).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunSummary {
    pub run: String,
    pub iterations: Vec<RunIteration>,
    pub usage: Option<Usage>,
}

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct RunIteration {
    pub iteration: u64,
    /// Null for a run made before `goal run` recorded its agent.
    pub agent: Option<String>,
}

/// The runs of these rows, in the order they first appear. Pure.
pub fn runs(rows: &[Row]) -> Vec<RunSummary> {
    let mut out: Vec<RunSummary> = Vec::new();
    for row in rows {
        let Some(id) = &row.run else {
            continue;
        };
        let i = match out.iter().position(|r| r.run == *id) {
            Some(i) => i,
            None => {
                out.push(RunSummary {
                    run: id.clone(),
                    iterations: Vec::new(),
                    usage: None,
                });
                out.len() - 1
            }
        };
        let run = &mut out[i];
        if row.is_iteration
            && !run
                .iterations
                .iter()
                .any(|it| it.iteration == row.iteration)
        {
            run.iterations.push(RunIteration {
                iteration: row.iteration,
                agent: row.agent.clone(),
            });
        }
        if let Some(u) = row.usage {
            run.usage = Some(run.usage.map_or(u, |r| r.plus(u)));
        }
    }
    out
}

impl RunSummary {
    /// `run <id>: iterations 1-2 claude, 3 pi · 1520 tokens · $0.0123`.
    pub fn line(&self) -> String {
        let mut groups: Vec<(u64, u64, Option<&str>)> = Vec::new();
        for it in &self.iterations {
            match groups.last_mut() {
                Some((_, last, agent))
                    if *last + 1 == it.iteration && *agent == it.agent.as_deref() =>
                {
                    *last = it.iteration;
                }
                _ => groups.push((it.iteration, it.iteration, it.agent.as_deref())),
            }
        }
        let made = groups
            .iter()
            .map(|(a, b, agent)| {
                let span = if a == b {
                    a.to_string()
                } else {
                    format!("{a}-{b}")
                };
                match agent {
                    Some(name) => format!("{span} {name}"),
                    None => span,
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut text = format!("run {}: ", self.run);
        text.push_str(&match self.iterations.len() {
            0 => "no iteration".to_string(),
            1 => format!("iteration {made}"),
            _ => format!("iterations {made}"),
        });
        text.push_str(&usage_text(self.usage.as_ref()));
        text
    }
}

/// ` · 1520 tokens (1200 in, 320 out) · $0.0123`, or ` · no usage recorded`.
pub fn usage_text(usage: Option<&Usage>) -> String {
    let Some(u) = usage else {
        return " · no usage recorded".to_string();
    };
    let mut text = String::new();
    if let Some(tokens) = u.tokens() {
        text.push_str(&format!(
            " · {tokens} tokens ({} in, {} out)",
            u.input_tokens.unwrap_or(0),
            u.output_tokens.unwrap_or(0)
        ));
    }
    if let Some(cost) = u.cost_usd {
        text.push_str(&format!(" · ${cost:.4}"));
    }
    text
}

/// A weakening finding, with the commit whose diff made it.
#[derive(Debug, Clone, Serialize)]
pub struct WeakenedEntry {
    pub commit: String,
    #[serde(flatten)]
    pub finding: Finding,
}

/// The test surface as the repository's git config sets it (`goal.tests`, `goal.testsOnly`);
/// a glob that does not parse is a usage error naming it.
pub fn surface(repo: &Repo) -> Result<Surface> {
    Surface::from_repo(repo).map_err(|e| crate::error::Error::Usage {
        message: e.to_string(),
        hint: format!(
            "fix it with `git config --unset-all goal.tests '{}'` and `git config --add goal.tests <glob>`",
            e.glob
        ),
    })
}

/// Whether a Rust file may hold test items at all (a cheap look before parsing it).
fn may_hold_tests(text: &str) -> bool {
    ["test", "bench", "quickcheck"]
        .iter()
        .any(|w| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some())
}

/// The weakening findings of one commit's change (`from` → `to`, outside the goal folder): only
/// the test-surface files it changed are read and parsed, so a commit that touches no test costs
/// one tree diff.
pub fn commit_findings(
    repo: &Repo,
    surface: &Surface,
    from: Option<Oid>,
    to: Oid,
    goal_dir: &Path,
    cases: &mut Cases,
) -> Result<Vec<Finding>> {
    let mut changes = Vec::new();
    let mut out = Vec::new();
    for (path, old, new) in repo.changed_files(from, to, goal_dir)? {
        let role = surface.classify(&path);
        if !role.is_surface() {
            continue;
        }
        // A test file in a language parsed here: its tests are read once per blob (the next
        // commit that changes it has this version as its base).
        if matches!(
            role,
            crate::surface::Role::Test | crate::surface::Role::RustSource
        ) && !path.ends_with("conftest.py")
            && let Some(language) = weaken::Language::of(&path)
        {
            let (base, last) = (
                cases.of(repo, old, language)?,
                cases.of(repo, new, language)?,
            );
            // A Rust source file with no test on either side imports nothing for a test (most
            // commits to a crate): its imports are not parsed.
            let testless = language == weaken::Language::Rust
                && base.as_ref().is_some_and(|b| b.is_empty())
                && last.as_ref().is_some_and(|l| l.is_empty());
            if let (Some(base), Some(last)) = (base, last) {
                weaken::compare(&path, &base, &last, &mut out);
            }
            if let Some(family) = language.family().filter(|_| !testless) {
                let last = cases.imports.of(repo, new, &path, language)?;
                if !last.bindings.is_empty() {
                    let base = cases.imports.of(repo, old, &path, language)?;
                    let mut elsewhere = from.map(|tree| {
                        crate::surface::red::TreeImports::new(
                            repo,
                            tree,
                            surface,
                            &mut cases.imports,
                        )
                    });
                    weaken::imports::redirects(
                        &path,
                        &base,
                        &last,
                        &mut |name| {
                            elsewhere
                                .as_mut()
                                .map(|e| e.sources(family, name))
                                .unwrap_or_default()
                        },
                        &mut out,
                    );
                }
            }
            continue;
        }
        let read = |id: Option<Oid>| -> Result<Option<String>> {
            id.map(|id| {
                repo.blob_bytes(id)
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            })
            .transpose()
        };
        let (base, last) = (read(old)?, read(new)?);
        if role == crate::surface::Role::RustSource
            && !base.as_deref().is_some_and(may_hold_tests)
            && !last.as_deref().is_some_and(may_hold_tests)
        {
            continue;
        }
        changes.push(FileChange { path, base, last });
    }
    if !changes.is_empty() {
        let mut elsewhere = from.map(|tree| {
            crate::surface::red::TreeImports::new(repo, tree, surface, &mut cases.imports)
        });
        let found = weaken::findings_with(surface, &changes, &mut |family, name| {
            elsewhere
                .as_mut()
                .map(|e| e.sources(family, name))
                .unwrap_or_default()
        });
        out.extend(found.findings);
    }
    out.sort_by(|a, b| (&a.file, a.line, a.kind, &a.test).cmp(&(&b.file, b.line, b.kind, &b.test)));
    out.dedup();
    Ok(out)
}

/// The test cases of recently read blobs, for [`commit_findings`]: each version of a test file is
/// parsed once as one commit's result and the next one's base. Kept small: cleared when full.
#[derive(Default)]
pub struct Cases {
    tests: std::collections::HashMap<Oid, Option<std::rc::Rc<Vec<weaken::TestCase>>>>,
    /// What each version of a test file imports, for `import-redirected`.
    imports: crate::surface::red::ImportCache,
}

impl Cases {
    /// The test cases of blob `id` (None: the file is absent, an empty list); None when the blob
    /// does not parse (its findings are unknown) or may hold no test (a Rust file without one).
    fn of(
        &mut self,
        repo: &Repo,
        id: Option<Oid>,
        language: weaken::Language,
    ) -> Result<Option<std::rc::Rc<Vec<weaken::TestCase>>>> {
        let Some(id) = id else {
            return Ok(Some(Default::default()));
        };
        if let Some(found) = self.tests.get(&id) {
            return Ok(found.clone());
        }
        let text = String::from_utf8_lossy(&repo.blob_bytes(id)?).into_owned();
        let parsed = if language == weaken::Language::Rust && !may_hold_tests(&text) {
            Some(Default::default())
        } else {
            language.tests(&text).ok().map(std::rc::Rc::new)
        };
        if self.tests.len() >= 256 {
            self.tests.clear();
        }
        self.tests.insert(id, parsed.clone());
        Ok(parsed)
    }
}

/// A material change of a criterion, as `goal log` and `goal done` list it.
#[derive(Debug, Clone, Serialize)]
pub struct MaterialEntry {
    pub commit: String,
    pub number: usize,
    pub old: String,
    /// None when the criterion was removed.
    pub new: Option<String>,
    pub reason: String,
    /// The `Goal-Material-Change` trailer of the commit, when it has one.
    pub recorded: Option<String>,
}

impl MaterialEntry {
    /// The change in words, once: `criterion N "old" → "new" (reason; recorded with --confirm)`.
    /// (The recorded trailer says the same change again, so only whether there is one is said.)
    pub fn describe(&self) -> String {
        let new = match &self.new {
            Some(n) => format!("\"{n}\""),
            None => "removed".into(),
        };
        let recorded = if self.recorded.is_some() {
            "recorded with --confirm"
        } else {
            "not recorded with --confirm"
        };
        format!(
            "criterion {} \"{}\" → {new} ({}; {recorded})",
            self.number, self.old, self.reason
        )
    }
}

impl Row {
    fn flag(&mut self, flag: &str) {
        if !self.flags.iter().any(|f| f == flag) {
            self.flags.push(flag.to_string());
        }
    }
}

/// Where `goal log` sends what it finds, as it finds it (oldest first): nothing is kept.
pub trait Sink {
    fn goal_start(&mut self, goal: &str) -> Result<()>;
    fn row(&mut self, row: &Row) -> Result<()>;
    /// `status`: the status of the goal's last commit; `unmarked`: commits that deleted the goal
    /// files without a `Goal-Status: complete|abandoned` trailer.
    fn goal_end(&mut self, status: &str, unmarked: &[String]) -> Result<()>;
}

fn date(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|d| d.format("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}

/// The work a commit describes: its message without the trailers (the `-m` bullets of an
/// iteration commit, which are its Progress Log entry).
pub fn work_text(info: &CommitInfo) -> String {
    match info.message.rfind("\n\nGoal-") {
        Some(at) => info.message[..at].to_string(),
        None => info.message.clone(),
    }
}

/// The summary of an iteration: the first line of work after `goal: iteration N: `.
fn summary_of(info: &CommitInfo, action: Option<GoalAction>, goal: &str) -> String {
    if action == Some(GoalAction::Init) {
        return format!("init: {goal}");
    }
    let subject = info.subject().trim_start_matches("goal: ");
    match subject.split_once(": ") {
        Some((head, rest)) if head.starts_with("iteration ") => rest.to_string(),
        _ => subject.to_string(),
    }
}

/// The criteria of the GOAL.md at a commit (the Progress Log is not read).
fn criteria_at(repo: &Repo, tree: Oid, goal_rel: &Path) -> Option<GoalFile> {
    repo.file_in_tree(tree, goal_rel)
        .ok()
        .flatten()
        .and_then(|b| GoalFile::parse_head(&b).ok())
}

/// Walk first-parent history and stream goals to `sink`, oldest first. `all`: every goal found;
/// otherwise only the most recent one. Memory stays bounded: one pass collects commit ids, a
/// second reads each commit once, keeping only a stagnation window and the row being built.
pub fn walk_goals(
    repo: &Repo,
    goal_dir: &Path,
    goal_rel: &Path,
    config: &Config,
    all: bool,
    sink: &mut dyn Sink,
) -> Result<()> {
    let mut ids = Vec::new();
    // Abandon commits that a later restore took back: the goal goes on across them.
    let mut restored = std::collections::HashSet::new();
    let mut restore_seen = false;
    for info in repo.first_parent_walk()? {
        let info = info?;
        let action = GoalTrailers::read(&info).and_then(|t| t.action);
        match action {
            Some(GoalAction::Restore) => restore_seen = true,
            Some(GoalAction::Abandon) if restore_seen => {
                restore_seen = false;
                restored.insert(info.id);
            }
            _ => {}
        }
        let init = action == Some(GoalAction::Init);
        // Each commit is read once: its message and trailers are kept (a few hundred bytes a
        // commit), not read again on the way forward.
        ids.push(info);
        if !all && init {
            break;
        }
    }
    let mut walker = Walker::new(repo, goal_dir, goal_rel, config, surface(repo)?);
    walker.restored = restored;
    for info in ids.into_iter().rev() {
        walker.commit(info, sink)?;
    }
    walker.finish(sink)
}

/// Every material change of the active goal's life, oldest first.
pub fn material_changes(
    repo: &Repo,
    goal_dir: &Path,
    goal_rel: &Path,
    config: &Config,
) -> Result<Vec<MaterialEntry>> {
    struct Collect(Vec<MaterialEntry>);
    impl Sink for Collect {
        fn goal_start(&mut self, _goal: &str) -> Result<()> {
            self.0.clear();
            Ok(())
        }
        fn row(&mut self, row: &Row) -> Result<()> {
            self.0.extend(row.material.iter().cloned());
            Ok(())
        }
        fn goal_end(&mut self, _status: &str, _unmarked: &[String]) -> Result<()> {
            Ok(())
        }
    }
    let mut sink = Collect(Vec::new());
    walk_goals(repo, goal_dir, goal_rel, config, false, &mut sink)?;
    Ok(sink.0)
}

/// The state of the forward pass.
struct Walker<'a> {
    repo: &'a Repo,
    goal_dir: &'a Path,
    goal_rel: &'a Path,
    config: &'a Config,
    /// Inside a goal: its text and status so far.
    goal: Option<(String, String)>,
    /// The status the last goal commit's trailer gave the goal.
    made_status: String,
    pending: Option<Row>,
    /// The commit tree of the pending row.
    pending_tree: Option<Oid>,
    /// The commit tree of the last row (for the iteration diff).
    last_row_tree: Option<Oid>,
    /// The last `window + 1` stagnation points.
    window: std::collections::VecDeque<Point>,
    /// Criteria of the last commit that changed GOAL.md.
    last_criteria: Option<Vec<(String, bool)>>,
    /// The Acceptance Criteria section `last_criteria` was read from: a GOAL.md whose section
    /// is byte for byte the same has the same criteria, and is not parsed again.
    last_section: Option<Vec<u8>>,
    /// GOAL.md's blob and the tree of the previous commit.
    last_blob: Option<Oid>,
    last_tree: Option<Oid>,
    /// Rows of hand-made commits, written after the pending row (which is older).
    hand_made: Vec<Row>,
    /// Whether the previous commit had the goal file.
    had_goal: bool,
    unmarked: Vec<String>,
    /// This repository's witness, when it has one (a fresh clone has none: then only the hash
    /// chain and the trees are checked).
    witness: Option<std::collections::HashSet<String>>,
    /// Abandon commits taken back by a later restore.
    restored: std::collections::HashSet<Oid>,
    /// The test surface, for the weakening findings of each commit of a goal.
    surface: Surface,
    /// Test cases of the test files' recent versions.
    cases: Cases,
}

impl<'a> Walker<'a> {
    fn new(
        repo: &'a Repo,
        goal_dir: &'a Path,
        goal_rel: &'a Path,
        config: &'a Config,
        surface: Surface,
    ) -> Self {
        Walker {
            surface,
            cases: Cases::default(),
            repo,
            goal_dir,
            goal_rel,
            config,
            goal: None,
            made_status: String::new(),
            pending: None,
            pending_tree: None,
            last_row_tree: None,
            window: std::collections::VecDeque::new(),
            last_criteria: None,
            last_section: None,
            last_blob: None,
            last_tree: None,
            hand_made: Vec::new(),
            had_goal: false,
            unmarked: Vec::new(),
            witness: crate::store::witness_if_any(repo),
            restored: std::collections::HashSet::new(),
        }
    }

    fn commit(&mut self, info: CommitInfo, sink: &mut dyn Sink) -> Result<()> {
        if self.restored.contains(&info.id) {
            return Ok(());
        }
        let trailers = GoalTrailers::read(&info);
        let action = trailers.as_ref().and_then(|t| t.action);
        let blob = self.repo.blob_id(info.tree, self.goal_rel)?;
        let has_goal = blob.is_some();
        if self.had_goal && !has_goal {
            let marked = trailers
                .as_ref()
                .is_some_and(|t| t.status == "complete" || t.status == "abandoned");
            if !marked {
                self.unmarked.push(info.id.to_string());
            }
        }
        self.had_goal = has_goal;
        let goal_changed = blob != self.last_blob;
        self.last_blob = blob;
        let parent_tree = self.last_tree.replace(info.tree);
        // Inside a goal, every commit's own change to the test surface is looked at.
        let findings = if self.goal.is_some() && action != Some(GoalAction::Init) && has_goal {
            commit_findings(
                self.repo,
                &self.surface,
                parent_tree,
                info.tree,
                self.goal_dir,
                &mut self.cases,
            )?
        } else {
            Vec::new()
        };
        // A commit without a Goal-Action trailer that changes GOAL.md (or weakens the tests) was
        // made without `goal`.
        let (Some(trailers), Some(_)) = (trailers, action) else {
            if self.goal.is_some() && has_goal && (goal_changed || !findings.is_empty()) {
                self.hand_made_row(&info, parent_tree, goal_changed, findings)?;
            }
            return Ok(());
        };
        if action == Some(GoalAction::Init) || self.goal.is_none() {
            self.end_goal(sink)?;
            let text = criteria_at(self.repo, info.tree, self.goal_rel)
                .map(|g| g.goal)
                .unwrap_or_default();
            sink.goal_start(&text)?;
            self.goal = Some((text, trailers.status.clone()));
        }
        if let Some((_, status)) = self.goal.as_mut() {
            status.clone_from(&trailers.status);
        }
        self.made_status.clone_from(&trailers.status);
        let goal_text = self
            .goal
            .as_ref()
            .map(|(g, _)| g.clone())
            .unwrap_or_default();

        if matches!(action, Some(GoalAction::Init | GoalAction::Iterate)) {
            // What the replaced row's commits used stays counted.
            let mut carried = None;
            match self.pending.take() {
                // A second commit for the same iteration replaces the first.
                Some(row) if row.iteration == trailers.iteration => {
                    carried = row.usage;
                    self.window.pop_back();
                }
                Some(row) => {
                    self.last_row_tree = self.pending_tree;
                    sink.row(&row)?;
                }
                None => {}
            }
            for row in std::mem::take(&mut self.hand_made) {
                sink.row(&row)?;
            }
            self.pending_tree = Some(info.tree);
            let prev_tree = self.last_row_tree;
            let stat = match prev_tree {
                Some(prev) => self.repo.diff_stat(Some(prev), info.tree, self.goal_dir)?,
                None => DiffStat::default(),
            };
            let window = self.config.stagnation_window;
            if self
                .window
                .back()
                .is_some_and(|p| p.iteration + 1 != trailers.iteration)
            {
                self.window.clear();
            }
            self.window.push_back(Point {
                iteration: trailers.iteration,
                passing: trailers.passing,
                progress_words: stagnation::has_keyword(
                    &work_text(&info),
                    &self.config.progress_keywords,
                ),
                tree: self
                    .repo
                    .tree_without(info.tree, self.goal_dir)?
                    .to_string(),
            });
            while self.window.len() > window + 1 {
                self.window.pop_front();
            }
            let points: Vec<Point> = self.window.iter().cloned().collect();
            let signals = stagnation::signals_at(&points, points.len() - 1, window);
            let mut row = Row {
                iteration: trailers.iteration,
                commit: info.id.to_string(),
                date: date(info.time),
                passing: trailers.passing,
                total: trailers.total,
                files_changed: stat.files_changed,
                insertions: stat.insertions,
                deletions: stat.deletions,
                summary: summary_of(&info, action, &goal_text),
                evidence: Vec::new(),
                flags: Vec::new(),
                stagnation: signals,
                status: trailers.status.clone(),
                goal: goal_text.clone(),
                material: Vec::new(),
                run: trailers.run.clone(),
                agent: trailers.run_agent.clone(),
                usage: carried,
                is_iteration: true,
                tests_weakened: Vec::new(),
                tests_weakened_confirmed: Vec::new(),
            };
            if signals.stagnant {
                row.flag("stagnant");
            }
            self.pending = Some(row);
        }

        // Flags and evidence of every goal commit go to the row of its iteration.
        let change = if goal_changed {
            self.criteria_change(&info, trailers.material_change.as_deref())?
        } else {
            Change::default()
        };
        if matches!(action, Some(GoalAction::Complete | GoalAction::Block)) {
            // A completion or a block is a row of its own, after the iteration it followed: a
            // row shows its own commit's trailers (the proofs `goal done` committed are the
            // complete row's, not the last iteration's), and the iteration was not blocked.
            if let Some(row) = self.pending.take() {
                sink.row(&row)?;
            }
            for row in std::mem::take(&mut self.hand_made) {
                sink.row(&row)?;
            }
            self.pending = Some(Row {
                iteration: trailers.iteration,
                commit: info.id.to_string(),
                date: date(info.time),
                passing: trailers.passing,
                total: trailers.total,
                files_changed: 0,
                insertions: 0,
                deletions: 0,
                summary: summary_of(&info, action, &goal_text),
                evidence: Vec::new(),
                flags: Vec::new(),
                stagnation: Signals::default(),
                status: trailers.status.clone(),
                goal: goal_text.clone(),
                material: Vec::new(),
                run: trailers.run.clone(),
                agent: trailers.run_agent.clone(),
                usage: None,
                is_iteration: false,
                tests_weakened: Vec::new(),
                tests_weakened_confirmed: Vec::new(),
            });
        }
        if let Some(row) = self
            .pending
            .as_mut()
            .filter(|r| r.iteration == trailers.iteration)
        {
            if trailers.material_change.is_some() {
                row.flag("material-change");
            }
            if trailers.status == "blocked" {
                row.flag("blocked");
            }
            if trailers.hooks_skipped {
                row.flag("hooks-skipped");
            }
            if let Some(u) = trailers.usage {
                row.usage = Some(row.usage.map_or(u, |r| r.plus(u)));
            }
            // `goal done --confirm` accepted weakened tests: its completion says which.
            if !trailers.tests_weakened.is_empty() {
                row.flag("tests-weakened");
                row.tests_weakened_confirmed
                    .extend(trailers.tests_weakened.iter().cloned());
            }
            // The goal's last row shows how it ended: complete, with every criterion.
            if action == Some(GoalAction::Complete) {
                row.status.clone_from(&trailers.status);
                row.passing = trailers.passing;
                row.total = trailers.total;
            }
            if row.commit == info.id.to_string() {
                row.evidence.clone_from(&trailers.evidence);
            }
            change.apply(row);
            weakened(row, &info.id.to_string(), findings);
        }
        if matches!(action, Some(GoalAction::Done | GoalAction::Abandon)) {
            self.end_goal(sink)?;
        }
        Ok(())
    }

    /// A row of its own for a commit that changed GOAL.md without `goal`.
    fn hand_made_row(
        &mut self,
        info: &CommitInfo,
        parent_tree: Option<Oid>,
        goal_changed: bool,
        findings: Vec<Finding>,
    ) -> Result<()> {
        let Some(now) = criteria_at(self.repo, info.tree, self.goal_rel) else {
            return Ok(());
        };
        let stat = self.repo.diff_stat(parent_tree, info.tree, self.goal_dir)?;
        if let Some((_, status)) = self.goal.as_mut() {
            let now_status = now.status.as_str();
            *status = status_text(now_status, now_status != self.made_status);
        }
        let mut row = Row {
            iteration: now.iteration,
            commit: info.id.to_string(),
            date: date(info.time),
            passing: now.passing_count(),
            total: now.criteria.len(),
            files_changed: stat.files_changed,
            insertions: stat.insertions,
            deletions: stat.deletions,
            summary: info.subject().to_string(),
            evidence: Vec::new(),
            flags: vec!["hand-made".to_string()],
            stagnation: Signals::default(),
            status: now.status.as_str().to_string(),
            goal: now.goal.clone(),
            material: Vec::new(),
            run: None,
            agent: None,
            usage: None,
            is_iteration: false,
            tests_weakened: Vec::new(),
            tests_weakened_confirmed: Vec::new(),
        };
        if goal_changed {
            let recorded = info.trailer("Goal-Material-Change").map(str::to_string);
            self.criteria_change(info, recorded.as_deref())?
                .apply(&mut row);
        }
        weakened(&mut row, &info.id.to_string(), findings);
        self.hand_made.push(row);
        Ok(())
    }

    /// What a commit that changed GOAL.md did to its criteria: ticks without passing evidence on
    /// its tree, a broken evidence chain, material changes.
    fn criteria_change(&mut self, info: &CommitInfo, recorded: Option<&str>) -> Result<Change> {
        let bytes = self
            .repo
            .file_in_tree(info.tree, self.goal_rel)
            .ok()
            .flatten();
        let section = bytes.as_deref().and_then(GoalFile::criteria_section);
        if self.last_criteria.is_some()
            && section.is_some()
            && section == self.last_section.as_deref()
        {
            // Only the Progress Log (or the frontmatter) changed: no criterion did.
            return Ok(Change::default());
        }
        self.last_section = section.map(<[u8]>::to_vec);
        let Some(now) = bytes.and_then(|b| GoalFile::parse_head(&b).ok()) else {
            self.last_criteria = None;
            return Ok(Change::default());
        };
        let current: Vec<(String, bool)> = now
            .criteria
            .iter()
            .map(|c| (c.text.clone(), c.passed))
            .collect();
        let mut change = Change::default();
        if let Some(last) = &self.last_criteria {
            let old: Vec<String> = last.iter().map(|(t, _)| t.clone()).collect();
            let new: Vec<String> = current.iter().map(|(t, _)| t.clone()).collect();
            change.material = material::compare(&old, &new)
                .into_iter()
                .map(|m| MaterialEntry {
                    commit: info.id.to_string(),
                    number: m.number,
                    old: m.text,
                    new: m.new,
                    reason: m.reason,
                    recorded: recorded.map(str::to_string),
                })
                .collect();
        }
        let passed_before: std::collections::HashSet<&str> = self
            .last_criteria
            .iter()
            .flatten()
            .filter(|(_, p)| *p)
            .map(|(t, _)| t.as_str())
            .collect();
        let newly: Vec<_> = now
            .criteria
            .iter()
            .filter(|c| c.passed && !passed_before.contains(c.text.as_str()))
            .collect();
        if !newly.is_empty() {
            let ledger = self
                .repo
                .file_in_tree(info.tree, &self.goal_dir.join(crate::store::EVIDENCE_FILE))?
                .and_then(|b| {
                    crate::store::ledger(Some(&b), Path::new(""), self.witness.clone()).ok()
                })
                .unwrap_or_default();
            let tree = self
                .repo
                .tree_without(info.tree, self.goal_dir)?
                .to_string();
            change.unverified = newly
                .iter()
                .any(|k| ledger.proof(k.number, &k.text, &tree).is_err());
            change.broken = ledger.verify_chain().is_err();
        }
        self.last_criteria = Some(current);
        Ok(change)
    }

    fn end_goal(&mut self, sink: &mut dyn Sink) -> Result<()> {
        if let Some(row) = self.pending.take() {
            sink.row(&row)?;
        }
        for row in std::mem::take(&mut self.hand_made) {
            sink.row(&row)?;
        }
        if let Some((_, status)) = self.goal.take() {
            sink.goal_end(&status, &std::mem::take(&mut self.unmarked))?;
        }
        self.last_row_tree = None;
        self.pending_tree = None;
        self.window.clear();
        self.last_criteria = None;
        self.last_section = None;
        Ok(())
    }

    fn finish(mut self, sink: &mut dyn Sink) -> Result<()> {
        if self.goal.is_none() && !self.unmarked.is_empty() {
            sink.goal_start("")?;
            self.goal = Some((String::new(), String::new()));
        }
        self.end_goal(sink)
    }
}

/// A goal's status as every surface shows it: a status that a commit made without `goal` wrote
/// (say `status: complete` committed with `--no-verify`) is not one `goal` agreed to.
pub fn status_text(status: &str, hand_made: bool) -> String {
    if hand_made {
        format!("{status} (hand-made, unverified)")
    } else {
        status.to_string()
    }
}

/// Braille-free sparkline of passing counts (▁▂▃▄▅▆▇█), scaled to the largest total.
pub fn sparkline(rows: &[(usize, usize)]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = rows
        .iter()
        .map(|&(passing, total)| total.max(passing))
        .max()
        .unwrap_or(0);
    rows.iter()
        .map(|&(passing, _)| {
            (passing * (BARS.len() - 1) + max / 2)
                .checked_div(max)
                .map_or(BARS[0], |i| BARS[i.min(BARS.len() - 1)])
        })
        .collect()
}
