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

/// The placeholder in hooks/ for the comment saying where the shim finds the binary.
pub const PLACEHOLDER_FROM: &str = "@GOAL_BIN_FROM@";

/// The git config key `goal hooks install` sets to this binary's path, read by the shims of a
/// hooks folder kept in the repository.
pub const CONFIG_KEY: &str = "goal.bin";

/// Where a shim finds the goal binary.
#[derive(Debug, Clone, Copy)]
pub enum ShimBin<'a> {
    /// By this path (None: plain `goal` on PATH), written into the shim.
    Path(Option<&'a Path>),
    /// By `git config goal.bin`: a hooks folder that git tracks holds no path of one machine.
    Config,
}

/// A shim with [`PLACEHOLDER`] replaced by where it finds the binary: `goal`'s path (quoted),
/// plain `goal` (PATH), or the value of `git config goal.bin`; and the comment to match.
pub fn shim(script: &str, bin: ShimBin) -> String {
    let (value, from) = match bin {
        ShimBin::Path(goal) => (
            goal.map_or_else(|| "goal".to_string(), shell_quoted),
            "the goal binary that installed it, by its path".to_string(),
        ),
        ShimBin::Config => (
            format!("$(git config --get {CONFIG_KEY})"),
            format!(
                "the goal binary `git config {CONFIG_KEY}` names (this hooks folder is kept in the\n# repository, so no machine's path is written here)"
            ),
        ),
    };
    script
        .replace(PLACEHOLDER_FROM, &from)
        .replace(PLACEHOLDER, &value)
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
            (
                "# @GOAL_BIN_FROM@",
                Some("/g"),
                "# the goal binary that installed it, by its path",
            ),
        ];
        for (script, goal, want) in cases {
            assert_eq!(
                shim(script, ShimBin::Path(goal.map(Path::new))),
                *want,
                "{script} {goal:?}"
            );
        }
        // A tracked hooks folder: no path at all, the value read from git config.
        let tracked = shim("x=@GOAL_BIN@ # @GOAL_BIN_FROM@", ShimBin::Config);
        assert!(
            tracked.starts_with("x=$(git config --get goal.bin) # "),
            "{tracked}"
        );
        assert!(!tracked.contains('@'), "{tracked}");
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
