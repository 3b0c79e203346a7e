//! `goal run --claim <remote>`: a racer on a machine of its own, racing others through a shared
//! git remote. Its branch is pushed after each iteration; the first whose `goal done` succeeds
//! claims the win with one atomic push of its branch and a create-only `refs/goal/won/<race id>`;
//! the others read the claim between turns and stop once the claimed commit verifies. The names
//! and the backoff are pure; [`Claimant`] is the edge (the remote, through `repo`).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use super::agent::INTERRUPTS;
use crate::error::Result;
use crate::repo::Pushed;
use crate::repo::{Oid, Repo};
use crate::workspace::Workspace;

/// Set by `goal run --race --claim` in each racer: its worktree's branch is new, made for it.
pub const SEAT_ENV: &str = "GOAL_RACE_SEAT";

/// Tries of one push when no `--max-time` bounds them.
pub const PUSH_TRIES: u32 = 8;

/// `<start commit, 12 hex>-<12 hex of a hash of the goal text and criteria>`: the race id when
/// neither `--race-id` nor `GOAL_RACE_ID` gives one. Pure.
pub fn default_race_id(start: Oid, goal: &str, criteria: &[String]) -> String {
    let mut hash = Sha256::new();
    hash.update(goal.as_bytes());
    for c in criteria {
        hash.update(b"\n");
        hash.update(c.as_bytes());
    }
    let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let start = start.to_string();
    format!("{}-{}", &start[..12], &digest[..12])
}

/// Why `id` cannot name a race (it becomes part of a ref name), if it cannot. Pure.
pub fn bad_race_id(id: &str) -> Option<String> {
    if id.is_empty() {
        return Some("a race id cannot be empty".into());
    }
    if let Some(c) = id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Some(format!(
            "`{id}` holds `{c}`: a race id is letters, digits, `-`, `_` and `.`"
        ));
    }
    if id.starts_with(['.', '-']) || id.contains("..") || id.ends_with(".lock") {
        return Some(format!(
            "`{id}` is not a ref name git accepts (no leading `.` or `-`, no `..`, no `.lock` at the end)"
        ));
    }
    None
}

/// `refs/goal/won/<race id>`: the ref whose creation is the win. Pure.
pub fn claim_ref(race_id: &str) -> String {
    format!("refs/goal/won/{race_id}")
}

/// `goal/<slug>-<agent>-<run id>`: a claiming racer's own new branch. Pure.
pub fn racer_branch(slug: &str, agent: &str, run_id: &str) -> String {
    let agent = super::race::slug(agent);
    format!("goal/{slug}-{agent}-{run_id}")
}

/// The nominal wait before try `n + 1` of a push (n ≥ 1): 1, 2, 4 … s, at most 60. Pure.
pub fn push_delay_s(n: u32) -> u64 {
    2u64.saturating_pow(n.saturating_sub(1)).min(60)
}

/// The winner's claim as the remote shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub commit: String,
    /// The remote's branch at that commit (the winner's), if one is.
    pub branch: Option<String>,
}

/// The claim among a remote's refs (`git ls-remote`), with the branch at its commit. Pure.
pub fn claim_among(refs: &[(String, String)], claim_ref: &str) -> Option<Claim> {
    let (_, commit) = refs.iter().find(|(name, _)| name == claim_ref)?;
    let branch = refs
        .iter()
        .filter(|(_, id)| id == commit)
        .find_map(|(name, _)| name.strip_prefix("refs/heads/"))
        .map(str::to_string);
    Some(Claim {
        commit: commit.clone(),
        branch,
    })
}

/// How often the claim is read while a turn runs: `GOAL_CLAIM_POLL` seconds, default 30.
pub fn poll_every() -> Duration {
    let seconds = std::env::var("GOAL_CLAIM_POLL")
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .unwrap_or(30.0);
    Duration::from_secs_f64(seconds)
}

/// The claim read from the remote on a thread of its own while a turn runs, every
/// [`poll_every`], until the watch is dropped (its thread then ends after its current read).
pub struct Watch {
    found: Arc<Mutex<Option<Claim>>>,
    stop: Arc<AtomicBool>,
}

impl Watch {
    pub fn start(root: PathBuf, remote: String, claim_ref: String, every: Duration) -> Watch {
        let found = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let (found_here, stop_here) = (found.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop_here.load(Ordering::SeqCst) {
                let started = Instant::now();
                if let Ok(Ok(refs)) = crate::repo::remote_refs_at(&root, &remote)
                    && let Some(claim) = claim_among(&refs, &claim_ref)
                    && let Ok(mut slot) = found_here.lock()
                {
                    *slot = Some(claim);
                }
                while started.elapsed() < every && !stop_here.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20).min(every));
                }
            }
        });
        Watch { found, stop }
    }

    /// The claim, once the remote showed one.
    pub fn found(&self) -> Option<Claim> {
        self.found.lock().ok().and_then(|c| c.clone())
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// A claiming racer's dealings with the remote.
pub struct Claimant {
    pub remote: String,
    pub race_id: String,
    /// Its own branch (local and on the remote alike).
    pub branch: String,
    /// The commit the race started from.
    pub start: Oid,
    /// GOAL_TIME_SCALE: the backoff's waits are scaled by it.
    pub scale: f64,
    /// Where `--max-time` runs out: pushes are retried until then.
    pub deadline: Option<Instant>,
}

impl Claimant {
    pub fn claim_ref(&self) -> String {
        claim_ref(&self.race_id)
    }

    /// Watch the remote for the claim while a turn runs.
    pub fn watch(&self, root: &std::path::Path) -> Watch {
        Watch::start(
            root.to_path_buf(),
            self.remote.clone(),
            self.claim_ref(),
            poll_every(),
        )
    }

    fn branch_spec(&self) -> String {
        format!("refs/heads/{0}:refs/heads/{0}", self.branch)
    }

    /// Push the branch (after an iteration, and at the end), retried while the remote cannot be
    /// reached.
    pub fn push_branch(&self, repo: &Repo) -> Result<Pushed> {
        self.retried(|| repo.push(&self.remote, &[self.branch_spec()], false, &[]))
    }

    /// Claim the win: the branch and `refs/goal/won/<race id>` at its tip in one atomic push,
    /// the claim ref leased as absent; retried while the remote cannot be reached.
    pub fn claim(&self, repo: &Repo) -> Result<Pushed> {
        let claim = self.claim_ref();
        let specs = [
            self.branch_spec(),
            format!("refs/heads/{}:{claim}", self.branch),
        ];
        self.retried(|| repo.push(&self.remote, &specs, true, std::slice::from_ref(&claim)))
    }

    /// Try `push` until it is done or refused; a remote out of reach is tried again after
    /// [`push_delay_s`] (scaled by GOAL_TIME_SCALE), until `--max-time` runs out or, without it,
    /// after [`PUSH_TRIES`]. A scaled wait counts its nominal length against `--max-time`, as the
    /// run's clock counts it. A Ctrl-C (another one, after those that ended the run) stops the
    /// retries.
    fn retried(&self, mut push: impl FnMut() -> Result<Pushed>) -> Result<Pushed> {
        let interrupts = INTERRUPTS.load(Ordering::SeqCst);
        let mut n = 0;
        let mut skew = Duration::ZERO;
        loop {
            n += 1;
            let answer = push()?;
            let Pushed::Unreachable(_) = &answer else {
                return Ok(answer);
            };
            let nominal = Duration::from_secs(push_delay_s(n));
            let out_of_time = match self.deadline {
                Some(deadline) => Instant::now() + skew + nominal >= deadline,
                None => n >= PUSH_TRIES,
            };
            if out_of_time || INTERRUPTS.load(Ordering::SeqCst) > interrupts {
                return Ok(answer);
            }
            let wait = nominal.mul_f64(self.scale);
            skew += nominal.saturating_sub(wait);
            std::thread::sleep(wait);
        }
    }

    /// The claim on the remote, if any (Err(why): the remote could not be reached).
    pub fn read(&self, repo: &Repo) -> Result<std::result::Result<Option<Claim>, String>> {
        Ok(repo
            .remote_refs(&self.remote)?
            .map(|refs| claim_among(&refs, &self.claim_ref())))
    }

    /// Whether the claimed commit is a verifying complete commit: fetched (into the same ref
    /// here), its last `Goal-Status` is `complete`, and `goal audit` of the race's span passes.
    /// Err(why) when it is not.
    pub fn verify(&self, ws: &Workspace, claim: &Claim) -> Result<std::result::Result<(), String>> {
        if let Err(why) = ws.repo.fetch_ref(&self.remote, &self.claim_ref())? {
            return Ok(Err(format!("cannot fetch {}: {why}", self.claim_ref())));
        }
        let Ok(commit) = Oid::from_str(&claim.commit) else {
            return Ok(Err(format!("`{}` is not a commit id", claim.commit)));
        };
        let complete = ws
            .repo
            .commit_info(commit)
            .ok()
            .and_then(|c| c.trailer("Goal-Status").map(|s| s.trim() == "complete"))
            .unwrap_or(false);
        if !complete {
            return Ok(Err(format!(
                "{} is not a goal's complete commit (no `Goal-Status: complete`)",
                crate::repo::short_id(&claim.commit)
            )));
        }
        let range = format!("{}..{}", self.start, claim.commit);
        let options = crate::audit::review::Options {
            range: Some(&range),
            ..Default::default()
        };
        let goals = match crate::audit::review::audit(ws, &options) {
            Ok(goals) => goals,
            Err(e) => return Ok(Err(format!("`goal audit {range}` failed: {e}"))),
        };
        if goals.is_empty() || !crate::audit::review::verdict(&goals, &options) {
            return Ok(Err(format!(
                "`goal audit {range}` does not pass (run it to see why)"
            )));
        }
        Ok(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_race_id_is_the_start_and_the_goal_s_hash() {
        let start = Oid::from_str("0123456789abcdef0123456789abcdef01234567").unwrap();
        let a = default_race_id(start, "Say hello", &["it says hello".into()]);
        assert!(a.starts_with("0123456789ab-"), "{a}");
        assert_eq!(a.len(), 12 + 1 + 12);
        // The same goal and criteria give the same id; another criterion another.
        assert_eq!(
            a,
            default_race_id(start, "Say hello", &["it says hello".into()])
        );
        assert_ne!(
            a,
            default_race_id(start, "Say hello", &["it says hi".into()])
        );
        assert_eq!(bad_race_id(&a), None);
    }

    #[test]
    fn a_race_id_must_fit_in_a_ref_name() {
        let cases: &[(&str, bool)] = &[
            ("12345", true),
            ("run-7.2_a", true),
            ("", false),
            ("a b", false),
            ("a/b", false),
            ("-x", false),
            (".x", false),
            ("a..b", false),
            ("x.lock", false),
            ("a~1", false),
        ];
        for (id, ok) in cases {
            assert_eq!(bad_race_id(id).is_none(), *ok, "{id}");
        }
    }

    #[test]
    fn names_and_backoff() {
        assert_eq!(claim_ref("42"), "refs/goal/won/42");
        assert_eq!(
            racer_branch("say-hello", "claude", "20260101T120000Z-3f2a"),
            "goal/say-hello-claude-20260101T120000Z-3f2a"
        );
        let delays: Vec<u64> = (1..=8).map(push_delay_s).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 60, 60]);
    }

    #[test]
    fn the_claim_names_the_branch_at_its_commit() {
        let refs = vec![
            ("refs/heads/main".to_string(), "aaa".to_string()),
            ("refs/heads/goal/x-sh-1".to_string(), "bbb".to_string()),
            ("refs/goal/won/r".to_string(), "bbb".to_string()),
        ];
        assert_eq!(
            claim_among(&refs, "refs/goal/won/r"),
            Some(Claim {
                commit: "bbb".into(),
                branch: Some("goal/x-sh-1".into())
            })
        );
        assert_eq!(claim_among(&refs, "refs/goal/won/other"), None);
    }
}
