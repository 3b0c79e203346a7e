//! Merging the goal files of two branches that worked on the same goal: GOAL.md (criteria three-way
//! by text, ticks cleared until re-verified, both sides' Progress Log entries), evidence.jsonl (the
//! common records, each side's own byte for byte, then a merge line chaining both) and retry.json
//! (fresh). Pure: bytes in, bytes out; two different goals are a conflict.

use std::sync::LazyLock;

use regex::Regex;

use crate::evidence::{Ledger, line_hash, merge_line};
use crate::goal_file::GoalFile;

/// Why a merge needs a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict(pub String);

/// A criterion line with its box: indent, list marker, box, text.
static ITEM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*(?:[-*+]|\d+[.)])\s+)\[[^\]]?\](\s.*)$").expect("the item pattern compiles")
});

/// The body of the Acceptance Criteria section (after its heading), one entry per non-blank
/// line, every box unticked: what criteria merge over.
fn criteria_lines(goal: Option<&GoalFile>) -> Vec<String> {
    let Some(goal) = goal else {
        return Vec::new();
    };
    let text = goal.render();
    let Some(section) = GoalFile::criteria_section(text.as_bytes()) else {
        return Vec::new();
    };
    String::from_utf8_lossy(section)
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let l = l.trim_end();
            match ITEM.captures(l) {
                Some(c) => format!("{}[ ]{}", &c[1], &c[2]),
                None => l.to_string(),
            }
        })
        .collect()
}

/// Three-way merge of two lists of distinct lines by text: what one side removed goes (where
/// the other kept it unchanged), an edit (a removed line whose place the side filled with a new
/// one) replaces the line in place, and each side's new lines are kept, after the line they
/// follow. Pure.
pub fn merge_lists(base: &[String], ours: &[String], theirs: &[String]) -> Vec<String> {
    let mut out: Vec<String> = ours.to_vec();
    for (i, b) in base.iter().enumerate() {
        if theirs.contains(b) {
            continue;
        }
        let Some(pos) = out.iter().position(|o| o == b) else {
            continue;
        };
        // Theirs dropped `b`: an edit when theirs holds a new line at its place.
        match theirs
            .get(i)
            .filter(|t| !base.contains(t) && !out.contains(t))
        {
            Some(edited) => out[pos] = edited.clone(),
            None => {
                out.remove(pos);
            }
        }
    }
    for (j, t) in theirs.iter().enumerate() {
        if base.contains(t) || out.contains(t) {
            continue;
        }
        let after = theirs[..j]
            .iter()
            .rev()
            .find_map(|p| out.iter().position(|o| o == p));
        let mut at = match after {
            Some(p) => p + 1,
            None if j == 0 => 0,
            None => out.len(),
        };
        // After our own new lines there: ours first, then theirs.
        while after.is_some()
            && at < out.len()
            && !base.contains(&out[at])
            && !theirs.contains(&out[at])
        {
            at += 1;
        }
        out.insert(at, t.clone());
    }
    out
}

fn parse(bytes: &[u8], side: &str) -> Result<Option<GoalFile>, Conflict> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    GoalFile::parse_bytes(bytes)
        .map(Some)
        .map_err(|e| Conflict(format!("{side}'s GOAL.md does not parse: {e}")))
}

/// Merge three versions of GOAL.md.
pub fn merge_goal(base: &[u8], ours: &[u8], theirs: &[u8]) -> Result<Vec<u8>, Conflict> {
    if ours == theirs || theirs == base {
        return Ok(ours.to_vec());
    }
    if ours == base {
        return Ok(theirs.to_vec());
    }
    let o = parse(base, "the common ancestor")?;
    let (Some(a), Some(b)) = (parse(ours, "our")?, parse(theirs, "their")?) else {
        return Err(Conflict(
            "one side deleted the goal the other changed".into(),
        ));
    };
    if a.goal != b.goal {
        return Err(Conflict(format!(
            "two different goals: \"{}\" and \"{}\"",
            a.goal, b.goal
        )));
    }
    let base_iteration = o.as_ref().map_or(0, |g| g.iteration);
    // The side further along keeps its file; the other side's own entries follow.
    let (mut merged, other) = if b.iteration > a.iteration {
        (b.clone(), &a)
    } else {
        (a.clone(), &b)
    };
    let top = merged.iteration;
    let criteria = merge_lists(
        &criteria_lines(o.as_ref()),
        &criteria_lines(Some(&a)),
        &criteria_lines(Some(&b)),
    );
    merged = with_criteria(&merged, &criteria)?;
    let mut next = top;
    let kept: Vec<String> = merged
        .log()
        .iter()
        .map(|e| merged.entry_text(e).trim().to_string())
        .collect();
    for e in other.log().iter().filter(|e| e.number > base_iteration) {
        let body = other.entry_text(e);
        if kept.contains(&body.trim().to_string()) {
            continue;
        }
        next += 1;
        merged.append_entry(next, body);
    }
    merged.set_iteration(top);
    let updated = [a.updated.clone(), b.updated.clone()]
        .into_iter()
        .flatten()
        .max();
    if let Some(updated) = updated {
        merged.set_updated(&updated);
    }
    Ok(merged.render().into_bytes())
}

/// `goal` with its Acceptance Criteria section's body replaced by `lines`.
fn with_criteria(goal: &GoalFile, lines: &[String]) -> Result<GoalFile, Conflict> {
    let text = goal.render();
    let Some(section) = GoalFile::criteria_section(text.as_bytes()) else {
        return Ok(goal.clone());
    };
    let start = section.as_ptr() as usize - text.as_ptr() as usize;
    let end = start + section.len();
    let heading = String::from_utf8_lossy(section)
        .lines()
        .next()
        .unwrap_or("## Acceptance Criteria")
        .to_string();
    let mut body = format!("{heading}\n");
    for l in lines {
        body.push_str(l);
        body.push('\n');
    }
    if end < text.len() {
        body.push('\n');
    }
    let new = format!("{}{body}{}", &text[..start], &text[end..]);
    GoalFile::parse(&new).map_err(|e| Conflict(format!("the merged GOAL.md does not parse: {e}")))
}

/// The non-blank lines of a ledger.
fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .collect()
}

/// Merge three versions of evidence.jsonl: the common records, ours, theirs (byte for byte),
/// then a merge line whose hash chains both sides' last hashes.
pub fn merge_evidence(base: &[u8], ours: &[u8], theirs: &[u8]) -> Result<Vec<u8>, Conflict> {
    let (a, b) = (lines(ours), lines(theirs));
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let _ = base;
    let join = |ls: &[&[u8]]| {
        let mut out = Vec::new();
        for l in ls {
            out.extend_from_slice(l);
            out.push(b'\n');
        }
        out
    };
    if common == b.len() {
        return Ok(join(&a));
    }
    if common == a.len() {
        return Ok(join(&b));
    }
    for (side, ls) in [("our", &a), ("their", &b)] {
        if let Err((line, why)) = Ledger::parse(&join(ls)) {
            return Err(Conflict(format!(
                "{side} evidence.jsonl, line {line}: {why}"
            )));
        }
    }
    let head = |ls: &[&[u8]]| {
        ls.last()
            .and_then(|l| line_hash(&String::from_utf8_lossy(l)))
            .unwrap_or_default()
    };
    let (ours_head, theirs_head) = (head(&a), head(&b));
    let mut out = join(&a);
    out.extend(join(&b[common..]));
    out.extend_from_slice(merge_line(&ours_head, &theirs_head).as_bytes());
    out.push(b'\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn lists_merge_three_way_by_text() {
        // (base, ours, theirs, merged)
        type Case<'a> = (&'a [&'a str], &'a [&'a str], &'a [&'a str], &'a [&'a str]);
        let cases: &[Case] = &[
            (
                &["a", "b"],
                &["a", "b", "c"],
                &["a", "b", "d"],
                &["a", "b", "c", "d"],
            ),
            (&["a", "b"], &["a", "B"], &["a", "b"], &["a", "B"]),
            (&["a", "b"], &["a", "b"], &["a", "B"], &["a", "B"]),
            (&["a", "b", "c"], &["a", "b", "c"], &["a", "c"], &["a", "c"]),
            (
                &["a", "b"],
                &["a", "b", "x"],
                &["a", "y", "b"],
                &["a", "y", "b", "x"],
            ),
            (&["a"], &["a"], &["z", "a"], &["z", "a"]),
            (
                &["a", "b"],
                &["a", "b", "c"],
                &["a", "b", "c"],
                &["a", "b", "c"],
            ),
        ];
        for (base, ours, theirs, want) in cases {
            assert_eq!(
                merge_lists(&v(base), &v(ours), &v(theirs)),
                v(want),
                "{base:?} {ours:?} {theirs:?}"
            );
        }
    }

    fn record(n: u32, prev: &str) -> (String, String) {
        let (r, line) = crate::evidence::seal(
            crate::evidence::NewRecord {
                criteria: vec![(1, "one".into())],
                argv: vec!["sh".into(), format!("t{n}.sh")],
                cwd: String::new(),
                exit_code: 0,
                started: "2026-11-30T15:04:05Z".into(),
                duration_ms: 1,
                tree: "t".into(),
                tree_after: None,
                created: Vec::new(),
                changed: Vec::new(),
                tests: None,
                junit: Vec::new(),
                check: true,
                output: Vec::new(),
            },
            prev,
        );
        (r.hash, line.trim_end().to_string())
    }

    #[test]
    fn ledgers_join_with_a_merge_line_every_reader_accepts() {
        let (c, common) = record(0, "");
        let (a1, ours1) = record(1, &c);
        let (_, ours2) = record(2, &a1);
        let (_, theirs1) = record(3, &c);
        let base = format!("{common}\n");
        let ours = format!("{common}\n{ours1}\n{ours2}\n");
        let theirs = format!("{common}\n{theirs1}\n");
        let merged = merge_evidence(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()).unwrap();
        let text = String::from_utf8(merged.clone()).unwrap();
        assert!(text.starts_with(&format!("{ours}{theirs1}\n")), "{text}");
        let ledger = Ledger::parse(&merged).unwrap();
        assert_eq!(ledger.verify_chain(), Ok(()));
        assert_eq!(ledger.records.len(), 4);
        // A new record chains to the merge line.
        let head = ledger.head_hash();
        assert_eq!(Some(head.clone()), line_hash(text.lines().last().unwrap()));
        let (_, next) = record(4, &head);
        let more = format!("{text}{next}\n");
        assert_eq!(
            Ledger::parse(more.as_bytes()).unwrap().verify_chain(),
            Ok(())
        );
        // Without the merge line, or with one that names other parents, the chain is broken.
        let without = format!("{ours}{theirs1}\n");
        assert!(
            Ledger::parse(without.as_bytes())
                .unwrap()
                .verify_chain()
                .is_err()
        );
        let forged = text.replace(&a1, &c);
        assert!(
            Ledger::parse(forged.as_bytes())
                .unwrap()
                .verify_chain()
                .is_err()
        );
        // One side only appended: its file, no merge line.
        let fast = merge_evidence(base.as_bytes(), ours.as_bytes(), base.as_bytes()).unwrap();
        assert_eq!(fast, ours.as_bytes());
    }

    #[test]
    fn ticks_are_cleared_and_entries_renumbered() {
        let head = |it: u64, crit: &str, log: &str| {
            format!(
                "---\ngoal: \"g\"\nupdated: \"2026-01-0{it}T00:00:00Z\"\niteration: {it}\nstatus: in-progress\n---\n\n# Goal: g\n\n## Acceptance Criteria\n{crit}\n## Progress Log\n### Iteration 1\n- base work\n{log}"
            )
        };
        let base = head(1, "- [ ] one\n- [ ] two\n", "");
        let ours = head(
            3,
            "- [x] one\n- [ ] two\n- [ ] three\n",
            "### Iteration 2\n- ours a\n### Iteration 3\n- ours b\n",
        );
        let theirs = head(
            2,
            "- [ ] one\n- [x] two, reworded\n",
            "### Iteration 2\n- theirs a\n",
        );
        let merged = merge_goal(base.as_bytes(), ours.as_bytes(), theirs.as_bytes()).unwrap();
        let merged = GoalFile::parse_bytes(&merged).unwrap();
        let texts: Vec<(&str, bool)> = merged
            .criteria
            .iter()
            .map(|c| (c.text.as_str(), c.passed))
            .collect();
        assert_eq!(
            texts,
            [("one", false), ("two, reworded", false), ("three", false)]
        );
        assert_eq!(merged.iteration, 3);
        let log: Vec<(u64, String)> = merged
            .log()
            .iter()
            .map(|e| (e.number, merged.entry_text(e).trim().to_string()))
            .collect();
        assert_eq!(
            log,
            [
                (1, "- base work".to_string()),
                (2, "- ours a".to_string()),
                (3, "- ours b".to_string()),
                (4, "- theirs a".to_string()),
            ]
        );
        assert_eq!(merged.updated.as_deref(), Some("2026-01-03T00:00:00Z"));
        let other = head(1, "- [ ] one\n", "").replace("\"g\"", "\"other\"");
        assert!(merge_goal(base.as_bytes(), ours.as_bytes(), other.as_bytes()).is_err());
    }
}

/// Registering the driver: `merge.goal.*` in the repository's config and a marked block in
/// `info/attributes` (never the tracked `.gitattributes`). I/O.
pub mod install {
    use std::path::{Path, PathBuf};

    use crate::error::{Error, Result};
    use crate::workspace::write_atomic;

    const BEGIN: &str = "# >>> goal >>>";
    const END: &str = "# <<< goal <<<";

    fn git_config(common_dir: &Path, args: &[&str]) -> Result<bool> {
        crate::repo::git_cli::config_at(common_dir, args)
    }

    fn attributes_path(common_dir: &Path) -> PathBuf {
        common_dir.join("info").join("attributes")
    }

    /// `text` without goal's block.
    fn without_block(text: &str) -> String {
        let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) else {
            return text.to_string();
        };
        let mut end = end + END.len();
        if text[end..].starts_with('\n') {
            end += 1;
        }
        format!("{}{}", &text[..start], &text[end..])
    }

    /// Register the driver for the goal files in `goal_dir` (relative to the worktree root),
    /// `goal` the command that runs it (quoted for a shell). Returns the attributes file.
    pub fn register(common_dir: &Path, goal_dir: &Path, goal: &str) -> Result<PathBuf> {
        let driver = format!("{goal} merge-driver %O %A %B %P");
        for (key, value) in [
            (
                "merge.goal.name",
                "goal: merge the goal files of two branches",
            ),
            ("merge.goal.driver", driver.as_str()),
        ] {
            if !git_config(common_dir, &[key, value])? {
                return Err(Error::usage(
                    format!("cannot set {key} in the repository's git config"),
                    format!("set it yourself: `git config {key} '{value}'`"),
                ));
            }
        }
        let path = attributes_path(common_dir);
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let mut text = without_block(&old);
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let dir = goal_dir.to_string_lossy();
        text.push_str(&format!(
            "{BEGIN}\n/{dir}/GOAL.md merge=goal\n/{dir}/evidence.jsonl merge=goal\n/{dir}/retry.json merge=goal\n{END}\n"
        ));
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io("cannot create", parent))?;
        }
        write_atomic(&path, text.as_bytes())?;
        Ok(path)
    }

    /// Remove what [`register`] wrote; true when something was there.
    pub fn unregister(common_dir: &Path) -> Result<bool> {
        let had = git_config(common_dir, &["--remove-section", "merge.goal"])?;
        let path = attributes_path(common_dir);
        let Ok(old) = std::fs::read_to_string(&path) else {
            return Ok(had);
        };
        if !old.contains(BEGIN) {
            return Ok(had);
        }
        let rest = without_block(&old);
        if rest.trim().is_empty() {
            std::fs::remove_file(&path).map_err(Error::io("cannot remove", &path))?;
        } else {
            write_atomic(&path, rest.as_bytes())?;
        }
        Ok(true)
    }
}
