//! The documentation: docs/reference.md is generated from the command line (and checked equal
//! here), the README stays short, and every page a README links to is there.

use std::path::{Path, PathBuf};

use crate::common::source::files;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// docs/reference.md is what the clap definitions say. `GOAL_UPDATE_DOCS=1` rewrites it.
#[test]
fn reference_is_generated_from_the_command_line() {
    let generated = goal::cli::reference::markdown();
    let path = root().join("docs/reference.md");
    if std::env::var_os("GOAL_UPDATE_DOCS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).unwrap();
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    if written != generated {
        let first = written
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(written.lines().count().min(generated.lines().count()));
        panic!(
            "docs/reference.md differs from the command line from line {}:\n  file:      {:?}\n  generated: {:?}\n\
             regenerate it with `GOAL_UPDATE_DOCS=1 cargo test --locked --test main docs::reference`",
            first + 1,
            written.lines().nth(first).unwrap_or(""),
            generated.lines().nth(first).unwrap_or(""),
        );
    }
}

/// The reference names every visible command and flag, and no hidden one.
#[test]
fn reference_covers_every_visible_command_and_no_hidden_one() {
    let text = goal::cli::reference::markdown();
    for heading in [
        "## `goal`",
        "## `goal criteria add`",
        "## `goal hooks install`",
        "## `goal run`",
        "## `goal attempt judge`",
    ] {
        assert!(text.contains(&format!("{heading}\n")), "{heading}");
    }
    assert!(!text.contains("merge-driver"), "a hidden command is listed");
    // A global flag is told once, in the top section.
    assert_eq!(text.matches("`--file <PATH>`").count(), 1);
    // Defaults, values and variables are shown as --help shows them.
    assert!(text.contains("`--idle-timeout <DUR>`"));
    assert!(text.contains("[default: `15m`]"));
    assert!(text.contains("[env: `GOAL_FILE`]"));
    assert!(text.contains("`-- <CMD>...`"));
    // --help is said once, not listed under every command.
    assert!(!text.contains("`-h, --help`"));
}

/// The README is the front door: at most 300 lines, the rest is under docs/.
#[test]
fn readme_is_at_most_300_lines() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; move the detail into docs/"
    );
}

/// Pages written on other branches, linked before they are merged. Remove a name once its page is in.
const PAGES_COMING: &[&str] = &[];

/// Every relative link in the README, CONTRIBUTING.md and docs/ names a file that is there.
#[test]
fn every_relative_link_names_a_file() {
    let mut pages = vec!["README.md".to_string(), "CONTRIBUTING.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let mut missing = Vec::new();
    for page in &pages {
        let text = read(page);
        let folder = Path::new(page).parent().unwrap_or(Path::new(""));
        for target in relative_links(&text) {
            let file = target.split('#').next().unwrap_or("");
            if file.is_empty() {
                continue;
            }
            let rel = normal(&folder.join(file));
            if !root().join(&rel).exists() && !PAGES_COMING.contains(&rel.as_str()) {
                missing.push(format!("{page}: {target}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "links to no file:\n{}",
        missing.join("\n")
    );
    // The checker itself finds a link.
    assert_eq!(
        relative_links("see [x](docs/x.md#a) and [y](https://e.com)"),
        ["docs/x.md#a"]
    );
}

/// The targets of Markdown links `](target)` that are not URLs.
fn relative_links(text: &str) -> Vec<&str> {
    text.match_indices("](")
        .filter_map(|(at, _)| {
            let rest = &text[at + 2..];
            let end = rest.find(')')?;
            let target = &rest[..end];
            let url = target.contains("://") || target.starts_with("mailto:");
            (!url && !target.starts_with('#') && !target.contains(' ')).then_some(target)
        })
        .collect()
}

/// `docs/../README.md` → `README.md`.
fn normal(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

/// The docs speak words a user knows, as the README and --help do.
#[test]
fn docs_speak_words_a_user_knows() {
    let mut problems = Vec::new();
    let mut pages = vec!["CONTRIBUTING.md".to_string()];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    for page in pages {
        for word in crate::terminal::in_house_words(&read(&page)) {
            problems.push(format!("{page}: {word}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// docs/commands.md, written by hand, names every visible command the command line has: each
/// `goal <command>` heading of the generated reference is in one of its rows, a subcommand by its
/// parent and its own name in the same row (`goal hooks install | uninstall | status`).
#[test]
fn the_commands_page_names_every_visible_command() {
    let page = read("docs/commands.md");
    let reference = goal::cli::reference::markdown();
    let missing: Vec<String> = reference
        .lines()
        .filter_map(|l| l.strip_prefix("## `")?.strip_suffix('`'))
        .filter(|c| *c != "goal")
        .filter(|c| {
            let words: Vec<&str> = c.split(' ').collect();
            let parent = words[..2].join(" ");
            let leaf = words.get(2);
            !page.lines().any(|row| {
                row.contains(&format!("`{parent}"))
                    && leaf.is_none_or(|leaf| {
                        row.split(|ch: char| !ch.is_alphanumeric() && ch != '-')
                            .any(|w| w == *leaf)
                    })
            })
        })
        .map(str::to_string)
        .collect();
    assert!(missing.is_empty(), "docs/commands.md lacks {missing:?}");
}

/// The words of a source that point at documents a reader of the repository cannot open (the
/// team's contract and the original design): `§`, `SPEC` as a word, `seeds`.
fn cites_the_unseen(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            l.contains('§')
                || l.contains("seeds")
                || l.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|w| w == "SPEC")
        })
        .map(|(i, _)| i + 1)
        .collect()
}

#[test]
fn no_source_cites_a_document_the_reader_cannot_open() {
    assert_eq!(
        cites_the_unseen("// as §20 says\nlet RSPEC = 1;\n// the seeds'\n// SPEC §9"),
        [1, 3, 4]
    );
    let cited: Vec<String> = files()
        .into_iter()
        .flat_map(|(rel, text)| {
            cites_the_unseen(&text)
                .into_iter()
                .map(move |line| format!("{rel}:{line}"))
        })
        .collect();
    assert!(
        cited.is_empty(),
        "cites what a reader cannot open: {cited:?}"
    );
}
