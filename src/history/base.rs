//! The commit a goal started from, pinned at `goal init` in three places a rewrite of the history
//! under the init commit does not move together: the init commit's `Goal-Base` trailer, the ref
//! `refs/goal/base/<goal id>`, and a witness file outside the work tree (under the user's cache
//! folder). `done`, `log` and `audit` check the init commit still sits on it.

use std::path::Path;

use crate::error::Result;
use crate::goal_file::GoalFile;
use crate::repo::{CommitInfo, Oid, Repo};
use crate::trailers::{GoalAction, GoalTrailers};

/// The goal's id for its base ref and witness: 16 hex digits of the SHA-256 of its creation time
/// and text, which the init commit's GOAL.md holds.
pub fn goal_id(goal: &GoalFile) -> String {
    let key = format!("{}\n{}", goal.created.as_deref().unwrap_or(""), goal.goal);
    crate::repo::short_sha256(key.as_bytes())
}

/// The ref that keeps a goal's base reachable (`goal run --claim` pushes it).
pub fn base_ref(goal: &GoalFile) -> String {
    format!("refs/goal/base/{}", goal_id(goal))
}

/// Record `base` as the start of `goal` (its init commit made): the ref and the witness. The
/// trailer is written with the commit.
pub fn record(repo: &Repo, work_root: &Path, goal: &GoalFile, base: Oid) -> Result<()> {
    repo.set_ref(&base_ref(goal), base, "goal init: the goal's base")?;
    let witness = crate::repo::base_witness(work_root, &goal_id(goal));
    if let Some(dir) = witness.parent() {
        // The witness is a second copy: the ref and the trailer stand without it.
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = std::fs::write(&witness, format!("{base}\n"));
    Ok(())
}

/// The `base-rewritten` verdict when the goal's init commit (`init`) no longer sits on the base
/// recorded for it; None when it does, or when nothing was recorded (a goal started before bases
/// were pinned, a root init).
pub fn rewritten(
    repo: &Repo,
    work_root: &Path,
    goal_rel: &Path,
    init: &CommitInfo,
) -> Result<Option<String>> {
    let (_, parent) = repo.commit_and_parent(init.id)?;
    let Some(parent) = parent else {
        return Ok(None);
    };
    let goal = repo
        .file_in_tree(init.tree, goal_rel)?
        .and_then(|b| GoalFile::parse_head(&b).ok());
    let trailer = GoalTrailers::read(init).and_then(|t| t.base);
    let mut recorded: Vec<(String, &str)> = Vec::new();
    if let Some(goal) = &goal {
        if let Some(oid) = repo.ref_commit(&base_ref(goal)) {
            recorded.push((oid.to_string(), "its ref"));
        }
        let witness = crate::repo::base_witness(work_root, &goal_id(goal));
        if let Ok(text) = std::fs::read_to_string(witness) {
            recorded.push((text.trim().to_string(), "the witness outside the work tree"));
        }
    }
    if let Some(t) = trailer {
        recorded.push((t, "the init commit's Goal-Base trailer"));
    }
    if recorded.is_empty() {
        return Ok(None);
    }
    // A goal that replaced another sits on the replaced goal's abandon commit, made by the same
    // `goal init`: the base is that commit's parent.
    let mut sits_on = vec![parent];
    let (under, grand) = repo.commit_and_parent(parent)?;
    if GoalTrailers::read(&under).and_then(|t| t.action) == Some(GoalAction::Abandon)
        && let Some(grand) = grand
    {
        sits_on.push(grand);
    }
    let wrong: Vec<&(String, &str)> = recorded
        .iter()
        .filter(|(base, _)| !sits_on.iter().any(|o| o.to_string() == *base))
        .collect();
    Ok(wrong.first().map(|(base, _)| {
        let places: Vec<&str> = wrong
            .iter()
            .filter(|(b, _)| b == base)
            .map(|(_, p)| *p)
            .collect();
        verdict(init.id, parent, base, &places)
    }))
}

/// The `base-rewritten` line: where the init commit sits, and what was recorded where. Pure.
pub fn verdict(init: Oid, parent: Oid, recorded: &str, places: &[&str]) -> String {
    let short = |s: &str| s.chars().take(12).collect::<String>();
    let (names, verb) = match places {
        [one] => (one.to_string(), "records"),
        [rest @ .., last] => (format!("{} and {last}", rest.join(", ")), "record"),
        [] => ("nothing".to_string(), "records"),
    };
    format!(
        "base-rewritten: the goal's init commit {} sits on {}, but {names} {verb} its base as {}: the history under the goal was rewritten",
        short(&init.to_string()),
        short(&parent.to_string()),
        short(recorded)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_names_every_place_that_disagrees() {
        let (a, b) = (
            Oid::from_bytes(&[1; 20]).unwrap(),
            Oid::from_bytes(&[2; 20]).unwrap(),
        );
        let cases: [(&[&str], &str); 3] = [
            (
                &["its ref"],
                "but its ref records its base as 030303030303:",
            ),
            (
                &["its ref", "the trailer"],
                "but its ref and the trailer record its base as 030303030303:",
            ),
            (
                &["x", "y", "z"],
                "but x, y and z record its base as 030303030303:",
            ),
        ];
        for (places, want) in cases {
            let v = verdict(a, b, &"03".repeat(20), places);
            assert!(
                v.starts_with(
                    "base-rewritten: the goal's init commit 010101010101 sits on 020202020202, "
                ),
                "{v}"
            );
            assert!(v.contains(want), "{v}");
        }
    }
}
