//! The forward pass over first-parent history that streams each goal's rows to a sink.

use std::path::Path;

use super::commits::{criteria_at, date, summary_of, work_text};
use super::findings::{Cases, commit_findings};
use super::rows::{MaterialEntry, Row, Sink, WeakenedEntry, status_text};
use crate::config::Config;
use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::material;
use crate::repo::{CommitInfo, DiffStat, Oid, Repo};
use crate::stagnation::{self, Point, Signals};
use crate::surface::Surface;
use crate::surface::weaken::Finding;
use crate::trailers::{GoalAction, GoalTrailers};

/// What one commit did to the criteria.
#[derive(Debug, Default)]
struct Change {
    unverified: bool,
    broken: bool,
    material: Vec<MaterialEntry>,
    /// The last `mutants` record on the commit's code, when its ledger has one.
    mutation: Option<crate::mutants::MutationView>,
}

/// Put a commit's findings on a row: those that refuse on their own flagged `tests-weakened`,
/// the others (judged by runs, explained here) `tests-changed`.
fn weakened(row: &mut Row, commit: &str, findings: Vec<Finding>) {
    for finding in findings {
        let refuses = finding.kind.refuses();
        row.flag(if refuses {
            "tests-weakened"
        } else if finding.kind == crate::surface::weaken::FindingKind::SpecialCasedInput {
            "special-cased-input"
        } else {
            "tests-changed"
        });
        let entry = WeakenedEntry {
            commit: commit.to_string(),
            finding,
        };
        if refuses {
            row.tests_weakened.push(entry);
        } else {
            row.tests_changed.push(entry);
        }
    }
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
        if let Some(m) = self.mutation {
            let clean = m.result.survivors.is_empty()
                && m.result.unneeded.is_empty()
                && m.result.missing.is_empty();
            row.flag(if clean { "mutants" } else { "mutants-survived" });
            if !m.result.unchecked.is_empty() {
                row.flag("mutation-unchecked");
            }
            row.mutation = Some(m);
        }
    }
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
    let mut walker = Walker::new(repo, goal_dir, goal_rel, config, Surface::default_rules());
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
    last_goal: Option<GoalFile>,
    /// The Acceptance Criteria section `last_goal` was read from: a GOAL.md whose section
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
    /// The test surface, for the weakening findings of each commit of a goal (its GOAL.md's).
    surface: Surface,
    /// The settings of the goal's GOAL.md as last seen, and a change of them not yet on a row.
    settings: Option<crate::goal_file::Settings>,
    /// [`GoalFile::settings_key`] of the GOAL.md `settings` were last read from.
    settings_key: Option<Vec<u8>>,
    settings_change: Option<MaterialEntry>,
    /// GOAL.md's bytes at the last blob read, for the questions one commit asks of it.
    goal_bytes: Option<(Oid, std::rc::Rc<[u8]>)>,
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
            settings: None,
            settings_key: None,
            settings_change: None,
            goal_bytes: None,
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
            last_goal: None,
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
        self.note_unmarked_end(&info, has_goal, trailers.as_ref());
        let goal_changed = blob != self.last_blob;
        self.last_blob = blob;
        let parent_tree = self.last_tree.replace(info.tree);
        if goal_changed && has_goal {
            self.settings_at(&info, action, trailers.as_ref())?;
        }
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
        let (Some(trailers), Some(action)) = (trailers, action) else {
            if self.goal.is_some() && has_goal && (goal_changed || !findings.is_empty()) {
                self.hand_made_row(&info, parent_tree, goal_changed, findings)?;
            }
            return Ok(());
        };
        let goal_text = self.goal_commit(&info, action, &trailers, sink)?;
        if matches!(action, GoalAction::Init | GoalAction::Iterate) {
            self.iteration_row(&info, action, &trailers, &goal_text, sink)?;
        }
        // Flags and evidence of every goal commit go to the row of its iteration.
        let mut change = if goal_changed {
            self.criteria_change(&info, trailers.material_change.as_deref())?
        } else {
            Change::default()
        };
        // The completion's mutation record, read whatever else the commit changed (it changes
        // the status and the log, seldom a criterion).
        if action == GoalAction::Complete {
            change.mutation = self.mutation_at(&info)?;
        }
        if matches!(action, GoalAction::Complete | GoalAction::Block) {
            // A completion or a block is a row of its own, after the iteration it followed: a
            // row shows its own commit's trailers (the proofs `goal done` committed are the
            // complete row's, not the last iteration's), and the iteration was not blocked.
            self.flush_rows(sink)?;
            self.pending = Some(base_row(&info, action, &trailers, &goal_text));
        }
        if let Some(row) = self
            .pending
            .as_mut()
            .filter(|r| r.iteration == trailers.iteration)
        {
            mark_row(row, &info, action, &trailers);
            change.apply(row);
            weakened(row, &info.id.to_string(), findings);
            // The init commit no longer on the base recorded at `goal init`.
            if action == GoalAction::Init
                && super::base::rewritten(self.repo, self.repo.root(), self.goal_rel, &info)?
                    .is_some()
            {
                row.flag("base-rewritten");
            }
        }
        if matches!(action, GoalAction::Done | GoalAction::Abandon) {
            self.end_goal(sink)?;
        }
        Ok(())
    }

    /// A commit that deletes the goal files without saying the goal ended (complete|abandoned).
    fn note_unmarked_end(&mut self, info: &CommitInfo, has_goal: bool, t: Option<&GoalTrailers>) {
        if self.had_goal && !has_goal {
            let marked = t.is_some_and(|t| t.status == "complete" || t.status == "abandoned");
            if !marked {
                self.unmarked.push(info.id.to_string());
            }
        }
        self.had_goal = has_goal;
    }

    /// A commit made by `goal`: a goal starts at `init` (or at the first goal commit seen), its
    /// status follows the trailers. The goal's text.
    fn goal_commit(
        &mut self,
        info: &CommitInfo,
        action: GoalAction,
        trailers: &GoalTrailers,
        sink: &mut dyn Sink,
    ) -> Result<String> {
        if action == GoalAction::Init || self.goal.is_none() {
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
        Ok(self
            .goal
            .as_ref()
            .map(|(g, _)| g.clone())
            .unwrap_or_default())
    }

    /// The pending row written, then the hand-made rows that came after it.
    fn flush_rows(&mut self, sink: &mut dyn Sink) -> Result<()> {
        if let Some(row) = self.pending.take() {
            sink.row(&row)?;
        }
        for row in std::mem::take(&mut self.hand_made) {
            sink.row(&row)?;
        }
        Ok(())
    }

    /// An `init` or `iterate` commit: a new pending row, with the code's change since the last
    /// row and the stagnation signals of the window. A second commit for the same iteration
    /// replaces the first (what the replaced row's commits used stays counted).
    fn iteration_row(
        &mut self,
        info: &CommitInfo,
        action: GoalAction,
        trailers: &GoalTrailers,
        goal_text: &str,
        sink: &mut dyn Sink,
    ) -> Result<()> {
        let mut carried = None;
        match self.pending.take() {
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
        let stat = match self.last_row_tree {
            Some(prev) => self.repo.diff_stat(Some(prev), info.tree, self.goal_dir)?,
            None => DiffStat::default(),
        };
        let signals = self.stagnation_at(info, trailers)?;
        let mut row = base_row(info, action, trailers, goal_text);
        row.files_changed = stat.files_changed;
        row.insertions = stat.insertions;
        row.deletions = stat.deletions;
        row.stagnation = signals;
        row.usage = carried;
        row.is_iteration = true;
        if signals.stagnant {
            row.flag("stagnant");
        }
        self.pending = Some(row);
        Ok(())
    }

    /// This iteration added to the stagnation window (consecutive iterations only), and the
    /// signals at it.
    fn stagnation_at(&mut self, info: &CommitInfo, trailers: &GoalTrailers) -> Result<Signals> {
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
                &work_text(info),
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
        Ok(stagnation::signals_at(&points, points.len() - 1, window))
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
            tests_changed: Vec::new(),
            exams_shown: Vec::new(),
            mutation: None,
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
    /// Read the settings of GOAL.md at `info` (the test surface of the commits that follow); a
    /// change of them within a goal is a material change.
    fn settings_at(
        &mut self,
        info: &CommitInfo,
        action: Option<GoalAction>,
        trailers: Option<&GoalTrailers>,
    ) -> Result<()> {
        let Some(bytes) = self.goal_bytes() else {
            return Ok(());
        };
        // Most goal commits change only the iteration and the Progress Log: the same settings.
        let key = GoalFile::settings_key(&bytes);
        if key.is_some() && key == self.settings_key {
            return Ok(());
        }
        let Some(now) = GoalFile::settings_in(&bytes) else {
            return Ok(());
        };
        self.settings_key = key;
        let last = self.settings.replace(now.clone());
        if last.as_ref() == Some(&now) {
            return Ok(());
        }
        // The bounds of the pins' runs bound resources, not judgement: no material change.
        if action != Some(GoalAction::Init)
            && let Some(last) = last.filter(|l| l.judging() != now.judging())
        {
            self.settings_change = Some(MaterialEntry {
                commit: info.id.to_string(),
                number: 0,
                old: last.to_string(),
                new: Some(now.to_string()),
                reason: "the settings that judge the goal changed".into(),
                recorded: trailers.and_then(|t| t.material_change.clone()),
            });
        }
        self.surface = crate::surface::surface_of(&now)?;
        Ok(())
    }

    /// [`Walker::criteria_inner`], with a change of the goal's settings made by the commit.
    fn criteria_change(&mut self, info: &CommitInfo, recorded: Option<&str>) -> Result<Change> {
        let mut change = self.criteria_inner(info, recorded)?;
        change.material.extend(self.settings_change.take());
        Ok(change)
    }

    /// GOAL.md's bytes in the commit being walked (its blob is `last_blob`), read once.
    fn goal_bytes(&mut self) -> Option<std::rc::Rc<[u8]>> {
        let id = self.last_blob?;
        if let Some((read, bytes)) = &self.goal_bytes
            && *read == id
        {
            return Some(bytes.clone());
        }
        let bytes: std::rc::Rc<[u8]> = self.repo.blob_bytes(id).ok()?.into();
        self.goal_bytes = Some((id, bytes.clone()));
        Some(bytes)
    }

    fn criteria_inner(&mut self, info: &CommitInfo, recorded: Option<&str>) -> Result<Change> {
        let bytes = self.goal_bytes();
        let section = bytes.as_deref().and_then(GoalFile::criteria_section);
        if self.last_goal.is_some() && section.is_some() && section == self.last_section.as_deref()
        {
            // Only the Progress Log (or the frontmatter) changed: no criterion did.
            return Ok(Change::default());
        }
        self.last_section = section.map(<[u8]>::to_vec);
        let Some(now) = bytes.and_then(|b| GoalFile::parse_head(&b).ok()) else {
            self.last_goal = None;
            return Ok(Change::default());
        };
        let mut change = Change::default();
        if let Some(last) = &self.last_goal {
            change.material = material::compare(&last.criteria_texts(), &now.criteria_texts())
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
        // Only a commit that ticks a box can tick one without proof: the ledger is read then.
        let ticks = now.criteria.iter().any(|c| {
            c.passed
                && !self
                    .last_goal
                    .iter()
                    .flat_map(|l| &l.criteria)
                    .any(|p| p.passed && p.text == c.text)
        });
        if ticks {
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
            // The gate's own rules judge the commit, as its hook would have.
            let violations = crate::gate::evaluate(&crate::gate::GateInput {
                head_goal: self.last_goal.as_ref(),
                staged_goal: Ok(Some(&now)),
                ledger: &ledger,
                tree: &tree,
                message: None,
            });
            for v in &violations {
                match v {
                    crate::gate::Violation::Unproven { .. } => change.unverified = true,
                    crate::gate::Violation::Evidence { .. } => change.broken = true,
                    _ => {}
                }
            }
        }
        self.last_goal = Some(now);
        Ok(change)
    }

    /// The last `mutants` record of the ledger committed at `info`, when made on its code.
    fn mutation_at(&self, info: &CommitInfo) -> Result<Option<crate::mutants::MutationView>> {
        let Some(bytes) = self
            .repo
            .file_in_tree(info.tree, &self.goal_dir.join(crate::store::EVIDENCE_FILE))?
        else {
            return Ok(None);
        };
        let Ok(ledger) = crate::store::ledger(Some(&bytes), Path::new(""), self.witness.clone())
        else {
            return Ok(None);
        };
        let tree = self
            .repo
            .tree_without(info.tree, self.goal_dir)?
            .to_string();
        Ok(ledger.mutation_view(&tree).filter(|m| m.current))
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
        self.last_goal = None;
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

/// A goal commit's row before its iteration's figures: its trailers, no change counted.
fn base_row(info: &CommitInfo, action: GoalAction, trailers: &GoalTrailers, goal: &str) -> Row {
    Row {
        iteration: trailers.iteration,
        commit: info.id.to_string(),
        date: date(info.time),
        passing: trailers.passing,
        total: trailers.total,
        files_changed: 0,
        insertions: 0,
        deletions: 0,
        summary: summary_of(info, Some(action), goal),
        evidence: Vec::new(),
        flags: Vec::new(),
        stagnation: Signals::default(),
        status: trailers.status.clone(),
        goal: goal.to_string(),
        material: Vec::new(),
        run: trailers.run.clone(),
        agent: trailers.run_agent.clone(),
        usage: None,
        is_iteration: false,
        tests_weakened: Vec::new(),
        tests_changed: Vec::new(),
        exams_shown: Vec::new(),
        mutation: None,
        tests_weakened_confirmed: Vec::new(),
    }
}

/// What a goal commit adds to its iteration's row: flags, usage, the weakened tests `done
/// --confirm` accepted, how the goal ended, and its own evidence.
fn mark_row(row: &mut Row, info: &CommitInfo, action: GoalAction, trailers: &GoalTrailers) {
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
    if !trailers.tests_weakened.is_empty() {
        row.flag("tests-weakened");
        row.tests_weakened_confirmed
            .extend(trailers.tests_weakened.iter().cloned());
    }
    if !trailers.tests_changed.is_empty() {
        row.flag("tests-changed");
        row.exams_shown
            .extend(trailers.tests_changed.iter().cloned());
    }
    // The goal's last row shows how it ended: complete, with every criterion.
    if action == GoalAction::Complete {
        row.status.clone_from(&trailers.status);
        row.passing = trailers.passing;
        row.total = trailers.total;
    }
    if row.commit == info.id.to_string() {
        row.evidence.clone_from(&trailers.evidence);
    }
}
