//! Where this `goal` binary is, for what `goal` writes that calls it back: the git hook shims
//! run the native binary that installed them by its absolute path (so a package manager's
//! launcher — npm's node script — never sits on a commit's path), and fall back to `goal` on
//! PATH when that file is gone.

use std::path::{Path, PathBuf};

/// The placeholder in hooks/ that `goal hooks install` replaces.
pub const PLACEHOLDER: &str = "@GOAL_BIN@";

/// This process's executable, when the OS can say and the file is still there.
pub fn current_goal() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.is_file().then_some(exe)
}

/// `path` quoted for a POSIX shell (single quotes; a `'` inside becomes `'\''`).
pub fn shell_quoted(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', r"'\''"))
}

/// A shim with [`PLACEHOLDER`] replaced by `goal` (quoted), or by plain `goal` (PATH) without one.
pub fn shim(script: &str, goal: Option<&Path>) -> String {
    let value = goal.map_or_else(|| "goal".to_string(), shell_quoted);
    script.replace(PLACEHOLDER, &value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shims_name_the_binary_quoted_or_fall_back_to_path() {
        let cases: &[(&str, Option<&str>, &str)] = &[
            ("x=@GOAL_BIN@", Some("/usr/bin/goal"), "x='/usr/bin/goal'"),
            (
                "x=@GOAL_BIN@",
                Some("/opt/it's here/goal"),
                r"x='/opt/it'\''s here/goal'",
            ),
            ("x=@GOAL_BIN@", None, "x=goal"),
            ("no placeholder", Some("/g"), "no placeholder"),
        ];
        for (script, goal, want) in cases {
            assert_eq!(
                shim(script, goal.map(Path::new)),
                *want,
                "{script} {goal:?}"
            );
        }
    }

    /// The quoted path survives `sh` word splitting and quote removal.
    #[test]
    fn a_quoted_path_reads_back_in_sh() {
        let path = Path::new("/tmp/a b/it's $HOME `x`/goal");
        let out = std::process::Command::new("/bin/sh")
            .args(["-c", &format!("printf %s {}", shell_quoted(path))])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(String::from_utf8_lossy(&out.stdout), path.to_string_lossy());
    }
}
