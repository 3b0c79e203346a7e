//! Files an agent CLI writes for itself in the worktree (aider's `.aider*` chat and input history
//! and tag cache) are kept out of the commits `goal run` makes: their patterns go to the
//! repository's `info/exclude` (local to the clone, never committed, shared by its worktrees), so
//! `git add -A` in `goal iterate` passes them by. Not .gitignore: that is the user's file, and a
//! change to it would be committed with the iteration.

use std::io::Write;
use std::path::Path;

/// Append each of `patterns` that `info/exclude` under `common_dir` does not hold yet, under a
/// comment naming `agent`. Returns the patterns added.
pub fn exclude(common_dir: &Path, agent: &str, patterns: &[&str]) -> std::io::Result<Vec<String>> {
    if patterns.is_empty() {
        return Ok(Vec::new());
    }
    let path = common_dir.join("info").join("exclude");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let missing: Vec<String> = patterns
        .iter()
        .filter(|p| !text.lines().any(|l| l.trim() == **p))
        .map(|p| p.to_string())
        .collect();
    if missing.is_empty() {
        return Ok(missing);
    }
    std::fs::create_dir_all(common_dir.join("info"))?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    let mut add = String::new();
    if !text.is_empty() && !text.ends_with('\n') {
        add.push('\n');
    }
    add.push_str(&format!(
        "# goal run --agent {agent}: files the agent CLI writes for itself\n"
    ));
    for p in &missing {
        add.push_str(p);
        add.push('\n');
    }
    file.write_all(add.as_bytes())?;
    Ok(missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_added_once() {
        let dir = tempfile::TempDir::new().unwrap();
        assert_eq!(
            exclude(dir.path(), "aider", &["/.aider*"]).unwrap(),
            vec!["/.aider*".to_string()]
        );
        assert!(
            exclude(dir.path(), "aider", &["/.aider*"])
                .unwrap()
                .is_empty()
        );
        let text = std::fs::read_to_string(dir.path().join("info/exclude")).unwrap();
        assert_eq!(
            text,
            "# goal run --agent aider: files the agent CLI writes for itself\n/.aider*\n"
        );
        // An existing file without a last newline keeps its lines apart.
        std::fs::write(dir.path().join("info/exclude"), "*.o").unwrap();
        exclude(dir.path(), "aider", &["/.aider*"]).unwrap();
        let text = std::fs::read_to_string(dir.path().join("info/exclude")).unwrap();
        assert!(text.starts_with("*.o\n# goal run"), "{text}");
        assert!(exclude(dir.path(), "x", &[]).unwrap().is_empty());
    }
}
