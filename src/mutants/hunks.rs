//! Every change is needed: the hunks of the goal's code change (the red tree, which holds
//! the base's code and the final tests, against the final tree), which of them to revert one by
//! one (at most 20 hunks, else one reversion per file, at most 20 files), and the file a
//! reversion leaves. Comment-only hunks, other files than source code, renamed files and code
//! moved from one place to another are left out. Pure.

use similar::{DiffOp, TextDiff};

/// The most hunks reverted one by one; past it, one reversion per file.
pub const MAX_HUNKS: usize = 20;
/// The most files reverted (one reversion each) when there are more hunks than [`MAX_HUNKS`].
pub const MAX_FILES: usize = 20;

/// Source files of the languages a project is written in, by the end of their names.
const SOURCE_ENDINGS: &[&str] = &[
    ".rs", ".py", ".pyi", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".go",
    ".java", ".kt", ".kts", ".scala", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs",
    ".rb", ".php", ".swift", ".m", ".mm", ".ex", ".exs", ".erl", ".hs", ".ml", ".lua", ".sh",
    ".bash", ".zig", ".dart", ".vue", ".svelte",
];

/// Whether `path` is source code (of any language: the project's are the ones it holds).
pub fn is_source(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    SOURCE_ENDINGS.iter().any(|e| lower.ends_with(e))
}

/// One file the goal's code change touches: its path, and its text on each side (None: absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// One hunk of a file's change: where it starts on the final side (1-based; for a deletion, the
/// line it was deleted before) and the lines it spans on each side (0-based, end exclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub line: usize,
    pub before: (usize, usize),
    pub after: (usize, usize),
}

/// What one reversion puts back: a hunk of a file, or a whole file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reversion {
    pub path: String,
    /// The line an `unneeded-change` names (the hunk's, or the file's first changed line).
    pub line: usize,
    /// The file's text with the reversion made (None: the file is absent).
    pub text: Option<String>,
}

/// The hunks of the change `before` → `after`, each change separated from the next by at least
/// one unchanged line.
pub fn hunks(before: &str, after: &str) -> Vec<Hunk> {
    let diff = TextDiff::from_lines(before, after);
    diff.grouped_ops(0)
        .iter()
        .filter_map(|group| {
            let changes: Vec<&DiffOp> = group
                .iter()
                .filter(|op| !matches!(op, DiffOp::Equal { .. }))
                .collect();
            let (first, last) = (changes.first()?, changes.last()?);
            let before = (first.old_range().start, last.old_range().end);
            let after = (first.new_range().start, last.new_range().end);
            Some(Hunk {
                line: after.0 + 1,
                before,
                after,
            })
        })
        .collect()
}

fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// `after` with `hunk` put back as it was in `before`.
pub fn revert(before: &str, after: &str, hunk: &Hunk) -> String {
    let (old, new) = (lines(before), lines(after));
    let mut out = String::with_capacity(after.len());
    new[..hunk.after.0].iter().for_each(|l| out.push_str(l));
    old[hunk.before.0..hunk.before.1]
        .iter()
        .for_each(|l| out.push_str(l));
    new[hunk.after.1..].iter().for_each(|l| out.push_str(l));
    out
}

/// Whether a line is blank or a comment in the language of `path` (a line of a block comment
/// counts when it starts like one).
fn is_comment(path: &str, line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return true;
    }
    let hash = [".py", ".pyi", ".rb", ".sh", ".bash", ".ex", ".exs"];
    let lower = path.to_ascii_lowercase();
    if hash.iter().any(|e| lower.ends_with(e)) {
        return t.starts_with('#');
    }
    if lower.ends_with(".lua") || lower.ends_with(".hs") {
        return t.starts_with("--");
    }
    t.starts_with("//") || t.starts_with("/*") || t.starts_with('*') || t.ends_with("*/")
}

/// Whether every line the hunk removes or adds is blank or a comment.
fn comment_only(path: &str, before: &str, after: &str, hunk: &Hunk) -> bool {
    let (old, new) = (lines(before), lines(after));
    old[hunk.before.0..hunk.before.1]
        .iter()
        .chain(&new[hunk.after.0..hunk.after.1])
        .all(|l| is_comment(path, l))
}

/// The non-blank lines of a hunk's side, trimmed: what tells moved code.
fn code_lines<'a>(text: &'a [&'a str], range: (usize, usize)) -> Vec<&'a str> {
    text[range.0..range.1]
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The reversions to make for the goal's change `files` (already only its code: source files,
/// test items left out), in order. Renamed files (a file gone and one added with the same text)
/// and pure deletions whose lines the change adds elsewhere (moved code) are left out.
pub fn plan(files: &[FileChange]) -> Vec<Reversion> {
    let files: Vec<&FileChange> = files
        .iter()
        .filter(|f| is_source(&f.path) && !renamed(f, files))
        .collect();
    let added: std::collections::HashSet<String> = files
        .iter()
        .flat_map(|f| each_hunk(f).into_iter().map(move |h| (f, h)))
        .flat_map(|(f, h)| {
            let after = f.after.as_deref().unwrap_or("");
            code_lines(&lines(after), h.after)
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut per_hunk = Vec::new();
    for f in &files {
        let (before, after) = (
            f.before.as_deref().unwrap_or(""),
            f.after.as_deref().unwrap_or(""),
        );
        for h in each_hunk(f) {
            let old = lines(before);
            let removed = code_lines(&old, h.before);
            let moved = h.after.0 == h.after.1
                && !removed.is_empty()
                && removed.iter().all(|l| added.contains(*l));
            if comment_only(&f.path, before, after, &h) || moved {
                continue;
            }
            per_hunk.push((*f, h));
        }
    }
    if per_hunk.len() <= MAX_HUNKS {
        return per_hunk
            .into_iter()
            .map(|(f, h)| hunk_reversion(f, &h))
            .collect();
    }
    let mut out: Vec<Reversion> = Vec::new();
    for (f, h) in per_hunk {
        if out.len() < MAX_FILES && out.last().is_none_or(|r| r.path != f.path) {
            out.push(Reversion {
                path: f.path.clone(),
                line: h.line,
                text: f.before.clone(),
            });
        }
    }
    out
}

fn each_hunk(f: &FileChange) -> Vec<Hunk> {
    hunks(
        f.before.as_deref().unwrap_or(""),
        f.after.as_deref().unwrap_or(""),
    )
}

/// One hunk put back; a file that then holds exactly its old text (or nothing, for a file new
/// in the goal) is as it was: absent where it was absent.
fn hunk_reversion(f: &FileChange, h: &Hunk) -> Reversion {
    let (before, after) = (
        f.before.as_deref().unwrap_or(""),
        f.after.as_deref().unwrap_or(""),
    );
    let text = revert(before, after, h);
    let text = match (&f.before, text.is_empty()) {
        (None, true) => None,
        _ => Some(text),
    };
    Reversion {
        path: f.path.clone(),
        line: h.line,
        text,
    }
}

/// Whether `f` is one side of a rename: a file gone whose text a file the change adds holds, or
/// the other way round.
pub fn renamed(f: &FileChange, all: &[FileChange]) -> bool {
    match (&f.before, &f.after) {
        (Some(b), None) => all
            .iter()
            .any(|o| o.before.is_none() && o.after.as_ref() == Some(b)),
        (None, Some(a)) => all
            .iter()
            .any(|o| o.after.is_none() && o.before.as_ref() == Some(a)),
        _ => false,
    }
}

/// What tells a mutation tool to leave code alone: cargo-mutants' attribute, mutmut's pragma,
/// StrykerJS's comment.
const SUPPRESSIONS: &[&str] = &["mutants::skip", "pragma: no mutate", "Stryker disable"];

/// The mutation tools' own configuration files, which can exclude code from them.
const TOOL_CONFIGS: &[&str] = &[
    ".cargo/mutants.toml",
    "mutants.toml",
    "stryker.conf.js",
    "stryker.conf.mjs",
    "stryker.conf.cjs",
    "stryker.conf.json",
    "stryker.config.js",
    "stryker.config.mjs",
    "stryker.config.json",
];

/// Whether `path` is a mutation tool's configuration file.
pub fn is_tool_config(path: &str) -> bool {
    TOOL_CONFIGS
        .iter()
        .any(|c| path == *c || path.ends_with(&format!("/{c}")))
}

/// The places where the goal's change tells a mutation tool to skip code: a suppression
/// (`#[mutants::skip]`, `# pragma: no mutate`, `// Stryker disable …`) on a line it added, as
/// `file:line: `marker``. Pure.
pub fn suppressions(files: &[FileChange]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files {
        let Some(after) = &f.after else { continue };
        let before = f.before.as_deref().unwrap_or("");
        for marker in SUPPRESSIONS {
            let had = before.matches(marker).count();
            let lines: Vec<usize> = after
                .lines()
                .enumerate()
                .filter(|(_, l)| l.contains(marker))
                .map(|(i, _)| i + 1)
                .collect();
            if lines.len() > had {
                // The lines beyond those the file had: the last ones, as a diff would show.
                for line in &lines[had..] {
                    out.push(format!("{}:{line}: `{marker}`", f.path));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: &str, before: Option<&str>, after: Option<&str>) -> FileChange {
        FileChange {
            path: path.into(),
            before: before.map(str::to_string),
            after: after.map(str::to_string),
        }
    }

    #[test]
    fn hunks_are_separated_by_an_unchanged_line() {
        let cases: &[(&str, &str, &[usize])] = &[
            ("a\nb\nc\n", "a\nB\nc\n", &[2]),
            ("a\nb\nc\nd\n", "A\nb\nc\nD\n", &[1, 4]),
            ("a\nb\n", "A\nB\n", &[1]),
            ("a\nb\nc\n", "a\nc\n", &[2]),
            ("", "x\n", &[1]),
            ("a\n", "a\n", &[]),
        ];
        for (before, after, want) in cases {
            let got: Vec<usize> = hunks(before, after).iter().map(|h| h.line).collect();
            assert_eq!(&got, want, "{before:?} → {after:?}");
        }
    }

    #[test]
    fn reverting_a_hunk_puts_back_only_that_hunk() {
        let (before, after) = ("a\nb\nc\nd\n", "A\nb\nc\nD\nE\n");
        let hs = hunks(before, after);
        assert_eq!(revert(before, after, &hs[0]), "a\nb\nc\nD\nE\n");
        assert_eq!(revert(before, after, &hs[1]), "A\nb\nc\nd\n");
        let (before, after) = ("x\n", "x\ny\n");
        assert_eq!(revert(before, after, &hunks(before, after)[0]), "x\n");
    }

    #[test]
    fn the_plan_leaves_out_comments_other_files_renames_and_moves() {
        /// The goal's change → the reversions planned (file, line).
        type Case<'a> = (&'a [FileChange], &'a [(&'a str, usize)]);
        let cases: &[Case] = &[
            (
                &[change(
                    "src/lib.rs",
                    Some("fn a() {}\n"),
                    Some("fn a() { 1; }\n"),
                )],
                &[("src/lib.rs", 1)],
            ),
            (
                &[change("src/lib.rs", Some("x\n"), Some("// why\nx\n"))],
                &[],
            ),
            (&[change("README.md", Some("a\n"), Some("b\n"))], &[]),
            (
                &[
                    change("src/a.py", Some("def f():\n    pass\n"), None),
                    change("src/b.py", None, Some("def f():\n    pass\n")),
                ],
                &[],
            ),
            (
                &[change(
                    "m.py",
                    Some("def f():\n    return 1\n\nx = 2\n"),
                    Some("x = 2\n\ndef f():\n    return 1\n"),
                )],
                &[("m.py", 1)],
            ),
            (
                &[change("n.py", None, Some("def g():\n    return 2\n"))],
                &[("n.py", 1)],
            ),
        ];
        for (files, want) in cases {
            let got: Vec<(String, usize)> =
                plan(files).into_iter().map(|r| (r.path, r.line)).collect();
            let want: Vec<(String, usize)> =
                want.iter().map(|(p, l)| (p.to_string(), *l)).collect();
            assert_eq!(got, want, "{files:?}");
        }
    }

    #[test]
    fn a_new_file_reverted_is_absent_and_many_hunks_revert_by_file() {
        let r = plan(&[change("n.py", None, Some("def g():\n    return 2\n"))]);
        assert_eq!(r[0].text, None);
        let before: String = (0..50).map(|i| format!("l{i}\n")).collect();
        let after: String = (0..50)
            .map(|i| {
                if i % 2 == 0 {
                    format!("L{i}\n")
                } else {
                    format!("l{i}\n")
                }
            })
            .collect();
        let files = [
            change("a.rs", Some(&before), Some(&after)),
            change("b.rs", Some("x\n"), Some("y\n")),
        ];
        let r = plan(&files);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].text.as_deref(), Some(before.as_str()));
        assert_eq!((r[1].path.as_str(), r[1].line), ("b.rs", 1));
    }

    /// Suppressions the goal's change added (not those the file had), and the tools' config files.
    #[test]
    fn suppressions_added_by_the_change_are_found() {
        let change = |before: Option<&str>, after: Option<&str>| FileChange {
            path: "src/lib.rs".into(),
            before: before.map(str::to_string),
            after: after.map(str::to_string),
        };
        let cases: &[(Option<&str>, Option<&str>, &[&str])] = &[
            (
                Some("fn add() {}\n"),
                Some("#[mutants::skip]\nfn add() {}\n"),
                &["src/lib.rs:1: `mutants::skip`"],
            ),
            (
                Some("#[mutants::skip]\nfn old() {}\n"),
                Some("#[mutants::skip]\nfn old() {}\nfn add() {}\n"),
                &[],
            ),
            (
                None,
                Some("x = 1\ny = add(1)  # pragma: no mutate\n"),
                &["src/lib.rs:2: `pragma: no mutate`"],
            ),
            (
                Some("a\n"),
                Some("// Stryker disable all\na\n"),
                &["src/lib.rs:1: `Stryker disable`"],
            ),
            (Some("a\n"), None, &[]),
            (Some("a\n"), Some("b\n"), &[]),
        ];
        for (before, after, want) in cases {
            assert_eq!(
                suppressions(&[change(*before, *after)]),
                want.iter().map(|w| w.to_string()).collect::<Vec<_>>(),
                "{before:?} → {after:?}"
            );
        }
        for (path, want) in [
            (".cargo/mutants.toml", true),
            ("crates/a/.cargo/mutants.toml", true),
            ("stryker.conf.json", true),
            ("src/mutants.rs", false),
            ("Cargo.toml", false),
        ] {
            assert_eq!(is_tool_config(path), want, "{path}");
        }
    }
}
