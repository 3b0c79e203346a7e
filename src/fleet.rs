//! Every goal in flight: one row per worktree (its working GOAL.md: live progress) and per branch
//! tip not checked out (its trailers and GOAL.md blob), read from refs alone — no history walk.
//! Also the marker a running `goal run` keeps, `<git-dir>/goal/run.json`, under an OS lock.

/// The fleet as an HTML dashboard.
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::audit::git_lines;
use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::repo::{CommitInfo, Oid, Repo};
use crate::trailers::{GoalAction, GoalTrailers};

/// Where a row's goal was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Worktree,
    Branch,
    Remote,
}

/// The `goal run` of a row: the one active in a worktree (its marker), else the one that made
/// the tip (its `Goal-Run` trailer).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    pub agent: String,
    pub id: String,
    /// When the active run started (empty for a run read from a trailer).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub since: String,
    /// Whether it is running now (a marker is read only while its run holds it).
    #[serde(default = "running")]
    pub live: bool,
}

fn running() -> bool {
    true
}

impl RunInfo {
    /// The run that made a tip, from its `Goal-Run` trailer.
    fn of_tip(trailers: &GoalTrailers) -> Option<RunInfo> {
        Some(RunInfo {
            agent: trailers.run_agent.clone().unwrap_or_default(),
            id: trailers.run.clone()?,
            since: String::new(),
            live: false,
        })
    }

    /// As a row shows it: `agent id since …`, or `agent id (made the tip)`.
    pub fn describe(&self) -> String {
        let agent = if self.agent.is_empty() {
            "?"
        } else {
            &self.agent
        };
        if self.live {
            format!("{agent} {} since {}", self.id, self.since)
        } else {
            format!("{agent} {} (made the tip)", self.id)
        }
    }
}

/// One row of `goal fleet`.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    #[serde(rename = "where")]
    pub place: String,
    pub kind: Kind,
    pub branch: Option<String>,
    pub goal: Option<String>,
    /// in-progress, blocked, complete, abandoned; `none` where no goal was ever found;
    /// `unparseable` for a GOAL.md that does not parse.
    pub status: String,
    pub iteration: Option<u64>,
    pub proven: Option<usize>,
    pub total: Option<usize>,
    /// Seconds since the last goal commit (the tip, or the worktree's HEAD).
    pub age_s: Option<i64>,
    pub flags: Vec<&'static str>,
    pub run: Option<RunInfo>,
}

/// A worktree as `git worktree list --porcelain` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    pub path: PathBuf,
    pub head: Option<String>,
    /// The checked-out branch's full ref name; None when detached.
    pub branch: Option<String>,
}

/// Parse `git worktree list --porcelain` (bare entries left out, and the worktrees kept for red
/// runs under the cache folder: they hold no goal of their own). Pure.
pub fn parse_worktrees(lines: &[String]) -> Vec<Worktree> {
    let mut out: Vec<Worktree> = Vec::new();
    let mut bare = false;
    for line in lines {
        if let Some(path) = line.strip_prefix("worktree ") {
            if bare {
                out.pop();
            }
            bare = false;
            out.push(Worktree {
                path: PathBuf::from(path),
                head: None,
                branch: None,
            });
        } else if line == "bare" {
            bare = true;
        } else if let Some(last) = out.last_mut() {
            if let Some(head) = line.strip_prefix("HEAD ") {
                last.head = Some(head.to_string());
            } else if let Some(branch) = line.strip_prefix("branch ") {
                last.branch = Some(branch.to_string());
            }
        }
    }
    if bare {
        out.pop();
    }
    out.retain(|w| !crate::repo::is_kept_path(&w.path));
    out
}

/// A branch name as people write it: `refs/heads/x` → `x`, `refs/remotes/o/x` → `o/x`.
pub fn short_ref(name: &str) -> &str {
    name.strip_prefix("refs/heads/")
        .or_else(|| name.strip_prefix("refs/remotes/"))
        .unwrap_or(name)
}

/// What a tip commit says about its goal.
struct Tip {
    trailers: Option<GoalTrailers>,
    time: i64,
}

impl Tip {
    fn of(info: &CommitInfo) -> Tip {
        Tip {
            trailers: GoalTrailers::read(info),
            time: info.time,
        }
    }
}

/// The flags a row gets from its tip's trailers and its goal's status. Pure.
fn flags(trailers: Option<&GoalTrailers>, status: &str, has_goal: bool) -> Vec<&'static str> {
    let mut flags = Vec::new();
    if let Some(t) = trailers {
        match t.verdict.as_deref() {
            Some("stagnant") => flags.push("stagnant"),
            Some("escalated") => flags.push("escalated"),
            _ if t.action == Some(GoalAction::Escalate) => flags.push("escalated"),
            _ => {}
        }
    }
    if status == "blocked" {
        flags.push("blocked");
    }
    if trailers.is_none() && has_goal {
        flags.push("hand-made");
    }
    flags
}

/// Fill a row from a tip commit and the goal file found for it.
#[allow(clippy::too_many_arguments)]
fn row(
    place: String,
    kind: Kind,
    branch: Option<String>,
    tip: Option<&Tip>,
    goal: Option<std::result::Result<GoalFile, ()>>,
    proven: Option<usize>,
    finished: Option<(&str, GoalFile)>,
    now: i64,
) -> Row {
    let trailers = tip.and_then(|t| t.trailers.as_ref());
    let age_s = tip.map(|t| (now - t.time).max(0));
    let mut r = Row {
        place,
        kind,
        branch,
        goal: None,
        status: "none".into(),
        iteration: None,
        proven: None,
        total: None,
        age_s,
        flags: Vec::new(),
        run: trailers.and_then(RunInfo::of_tip),
    };
    match goal {
        Some(Ok(g)) => {
            r.status = g.status.as_str().to_string();
            r.goal = Some(g.goal.clone());
            r.iteration = Some(g.iteration);
            r.total = Some(g.criteria.len());
            // Proven: judged here (a worktree), else what the tip's commit counted.
            r.proven = proven.or(match trailers {
                Some(t) if t.total == g.criteria.len() => Some(t.passing),
                _ => None,
            });
            r.flags = flags(trailers, &r.status, true);
        }
        Some(Err(())) => {
            r.status = "unparseable".into();
            r.flags = flags(trailers, &r.status, true);
        }
        None => {
            // A finished goal: the tip ended it (done or abandon); its last state is the parent's.
            if let Some((status, g)) = finished {
                r.status = status.to_string();
                r.goal = Some(g.goal.clone());
                r.iteration = Some(g.iteration);
                r.total = Some(g.criteria.len());
                r.proven = trailers.map(|t| t.passing);
            }
            r.flags = flags(trailers, &r.status, false);
        }
    }
    // The age is the last goal commit's: a row with no goal has none.
    if r.goal.is_none() {
        r.age_s = None;
    }
    r
}

/// Every row of `goal fleet`: the worktrees first (the main one first), then local branches,
/// then (with `remote`) remote-tracking branches, each in ref order.
///
/// `proven_in` judges a worktree's live goal (None: count from its trailers), `run_in` reads a
/// worktree's active run.
pub fn rows(
    repo: &Repo,
    goal_rel: &Path,
    remote: bool,
    now: i64,
    proven_in: &dyn Fn(&Path, &GoalFile) -> Option<usize>,
    run_in: &dyn Fn(&Path) -> Option<RunInfo>,
) -> Result<Vec<Row>> {
    let root = repo.common_dir();
    let worktrees = parse_worktrees(
        &git_lines(root, &["worktree", "list", "--porcelain"])?.unwrap_or_default(),
    );
    let mut out = Vec::new();
    for wt in &worktrees {
        out.push(worktree_row(repo, goal_rel, wt, now, proven_in, run_in));
    }
    let checked_out: Vec<&str> = worktrees
        .iter()
        .filter_map(|w| w.branch.as_deref())
        .collect();
    let mut patterns = vec!["refs/heads"];
    if remote {
        patterns.push("refs/remotes");
    }
    let mut args = vec![
        "for-each-ref",
        "--format=%(objectname) %(refname) %(objecttype)",
    ];
    args.extend(patterns);
    for line in git_lines(root, &args)?.unwrap_or_default() {
        if let Some(r) = branch_row(repo, goal_rel, &line, &checked_out, now)? {
            out.push(r);
        }
    }
    Ok(out)
}

/// A worktree's row: its working GOAL.md (live progress, judged by `proven_in`), or the goal
/// its HEAD finished, and its active run.
fn worktree_row(
    repo: &Repo,
    goal_rel: &Path,
    wt: &Worktree,
    now: i64,
    proven_in: &dyn Fn(&Path, &GoalFile) -> Option<usize>,
    run_in: &dyn Fn(&Path) -> Option<RunInfo>,
) -> Row {
    let tip = match &wt.head {
        Some(h) => Oid::from_str(h)
            .ok()
            .and_then(|oid| repo.commit_info(oid).ok())
            .map(|i| Tip::of(&i)),
        None => None,
    };
    let goal = match std::fs::read(wt.path.join(goal_rel)) {
        Ok(bytes) => Some(GoalFile::parse_vec(bytes).map_err(|_| ())),
        Err(_) => None,
    };
    let proven = match &goal {
        Some(Ok(g)) => proven_in(&wt.path, g),
        _ => None,
    };
    let finished = match (&goal, &wt.head) {
        (None, Some(h)) => finished_at(repo, goal_rel, h, tip.as_ref()),
        _ => None,
    };
    let mut r = row(
        wt.path.display().to_string(),
        Kind::Worktree,
        wt.branch.as_deref().map(|b| short_ref(b).to_string()),
        tip.as_ref(),
        goal,
        proven,
        finished.as_ref().map(|(s, g)| (*s, g.clone())),
        now,
    );
    if let Some(active) = run_in(&wt.path) {
        r.run = Some(active);
    }
    r
}

/// The row of a branch tip from a `for-each-ref` line (id, ref name, object type): its GOAL.md
/// blob, or the goal the tip finished. None for a ref that is no commit, is checked out in a
/// worktree (that row has it), or is a remote's HEAD.
fn branch_row(
    repo: &Repo,
    goal_rel: &Path,
    line: &str,
    checked_out: &[&str],
    now: i64,
) -> Result<Option<Row>> {
    let mut parts = line.splitn(3, ' ');
    let (Some(id), Some(name), Some("commit")) = (parts.next(), parts.next(), parts.next()) else {
        return Ok(None);
    };
    if checked_out.contains(&name) || (name.starts_with("refs/remotes/") && name.ends_with("/HEAD"))
    {
        return Ok(None);
    }
    let kind = if name.starts_with("refs/remotes/") {
        Kind::Remote
    } else {
        Kind::Branch
    };
    let Ok(oid) = Oid::from_str(id) else {
        return Ok(None);
    };
    let (info, _) = repo.commit_and_parent(oid)?;
    let tip = Tip::of(&info);
    let goal = repo
        .file_in_tree(info.tree, goal_rel)?
        .map(|bytes| GoalFile::parse_head(&bytes).map_err(|_| ()));
    let finished = match goal {
        None => finished_at(repo, goal_rel, id, Some(&tip)),
        Some(_) => None,
    };
    let short = short_ref(name).to_string();
    Ok(Some(row(
        short.clone(),
        kind,
        Some(short),
        Some(&tip),
        goal,
        None,
        finished,
        now,
    )))
}

/// The goal a `done` or `abandon` tip ended, as its first parent committed it: one step back,
/// not a walk. None when the tip did not end a goal.
fn finished_at(
    repo: &Repo,
    goal_rel: &Path,
    tip_id: &str,
    tip: Option<&Tip>,
) -> Option<(&'static str, GoalFile)> {
    let action = tip?.trailers.as_ref()?.action?;
    let status = match action {
        GoalAction::Done => "complete",
        GoalAction::Abandon => "abandoned",
        _ => return None,
    };
    let (_, parent) = repo.commit_and_parent(Oid::from_str(tip_id).ok()?).ok()?;
    let info = repo.commit_info(parent?).ok()?;
    let bytes = repo.file_in_tree(info.tree, goal_rel).ok()??;
    GoalFile::parse_head(&bytes).ok().map(|g| (status, g))
}

/// Where a worktree's `goal run` keeps its marker.
pub fn run_marker_path(git_dir: &Path) -> PathBuf {
    git_dir.join("goal").join(crate::store::RUN_MARKER_FILE)
}

/// The marker a running `goal run` holds: the file stays locked while the run lives, and the
/// lock dies with the process, so a marker left by a killed run reads as no run.
pub struct RunMarker {
    file: File,
    path: PathBuf,
    id: String,
    since: String,
}

#[derive(Serialize)]
struct MarkerBody<'a> {
    agent: &'a str,
    id: &'a str,
    since: &'a str,
    pid: u32,
}

impl RunMarker {
    /// Take the marker for this run; None (after a short wait) when another run holds it or it
    /// cannot be written — the run goes on, only `goal fleet` does not see it.
    pub fn hold(git_dir: &Path, agent: &str, id: &str, since: &str) -> Option<RunMarker> {
        let path = run_marker_path(git_dir);
        std::fs::create_dir_all(path.parent()?).ok()?;
        let file = File::options()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .ok()?;
        let mut tries = 0;
        while file.try_lock().is_err() {
            tries += 1;
            if tries > 20 {
                return None;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let mut marker = RunMarker {
            file,
            path,
            id: id.to_string(),
            since: since.to_string(),
        };
        marker.set_agent(agent)?;
        Some(marker)
    }

    /// Say which agent the run is on now (a run that fails over changes it).
    pub fn set_agent(&mut self, agent: &str) -> Option<()> {
        use std::io::Seek;
        let body = serde_json::to_string(&MarkerBody {
            agent,
            id: &self.id,
            since: &self.since,
            pid: std::process::id(),
        })
        .ok()?;
        self.file.set_len(0).ok()?;
        self.file.rewind().ok()?;
        self.file.write_all(body.as_bytes()).ok()?;
        self.file.flush().ok()
    }
}

impl Drop for RunMarker {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// The run whose marker is held in `git_dir`; None when no live process holds it.
pub fn active_run(git_dir: &Path) -> Option<RunInfo> {
    let path = run_marker_path(git_dir);
    let file = File::open(&path).ok()?;
    match file.try_lock_shared() {
        // Nobody holds it: a marker left behind by a run that was killed.
        Ok(()) => {
            let _ = file.unlock();
            None
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            let text = std::fs::read_to_string(&path).ok()?;
            serde_json::from_str(&text).ok()
        }
        Err(std::fs::TryLockError::Error(_)) => None,
    }
}

/// An age as people read it: 45s, 12m, 3h, 2d. Pure.
pub fn age_text(seconds: i64) -> String {
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worktree_list() {
        let text = "worktree /r\nHEAD aaaa\nbranch refs/heads/main\n\nworktree /r/wt\nHEAD bbbb\ndetached\n\nworktree /bare\nbare\n";
        let lines: Vec<String> = text
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        assert_eq!(
            parse_worktrees(&lines),
            vec![
                Worktree {
                    path: "/r".into(),
                    head: Some("aaaa".into()),
                    branch: Some("refs/heads/main".into())
                },
                Worktree {
                    path: "/r/wt".into(),
                    head: Some("bbbb".into()),
                    branch: None
                },
            ]
        );
    }

    #[test]
    fn ages_and_refs() {
        for (s, want) in [
            (0, "0s"),
            (59, "59s"),
            (60, "1m"),
            (7200, "2h"),
            (86_400 * 3, "3d"),
        ] {
            assert_eq!(age_text(s), want);
        }
        assert_eq!(short_ref("refs/heads/a/b"), "a/b");
        assert_eq!(short_ref("refs/remotes/origin/a"), "origin/a");
    }

    #[test]
    fn a_row_without_a_goal_has_no_age() {
        let tip = Tip {
            trailers: None,
            time: 1_000,
        };
        let goal = GoalFile::parse_bytes(
            b"---\ngoal: \"g\"\niteration: 1\nstatus: in-progress\n---\n\n# Goal: g\n\n## Acceptance Criteria\n- [ ] one\n",
        )
        .unwrap();
        let none = row(
            "/r".into(),
            Kind::Worktree,
            None,
            Some(&tip),
            None,
            None,
            None,
            1_060,
        );
        assert_eq!((none.goal, none.age_s), (None, None));
        let live = row(
            "/r".into(),
            Kind::Worktree,
            None,
            Some(&tip),
            Some(Ok(goal)),
            None,
            None,
            1_060,
        );
        assert_eq!(live.age_s, Some(60));
    }

    #[test]
    fn flags_from_the_tip() {
        let mut t = GoalTrailers {
            action: Some(GoalAction::Iterate),
            iteration: 3,
            status: "in-progress".into(),
            passing: 0,
            total: 2,
            evidence: Vec::new(),
            material_change: None,
            run: None,
            run_agent: None,
            usage: None,
            hooks_skipped: false,
            tests_weakened: Vec::new(),
            tests_changed: Vec::new(),
            guards_only: false,
            mutants_confirmed: Vec::new(),
            verdict: Some("stagnant".into()),
            budget: None,
            base: None,
            assisted_by: None,
        };
        assert_eq!(flags(Some(&t), "in-progress", true), vec!["stagnant"]);
        t.verdict = Some("progress".into());
        assert!(flags(Some(&t), "in-progress", true).is_empty());
        t.action = Some(GoalAction::Escalate);
        t.verdict = None;
        assert_eq!(
            flags(Some(&t), "blocked", true),
            vec!["escalated", "blocked"]
        );
        assert_eq!(flags(None, "in-progress", true), vec!["hand-made"]);
        assert!(flags(None, "none", false).is_empty());
    }
}
