//! Weakening findings: how a goal's diff over the test surface can make tests prove less
//! (a test removed, a skip added, an assertion removed or weakened, the selection changed, a test
//! that asserts nothing), found per language with a real parser.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{Role, Surface};

mod annotations;
mod config;
mod go;
pub mod imports;
mod js;
mod pins;
mod python;
mod tree;

pub use pins::pin_runs;

#[cfg(test)]
mod tests;

/// The kind of a finding, as `Goal-Tests-Weakened` trailers and JSON name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// A test function, case or file gone or renamed.
    TestRemoved,
    /// A skip marker added (`#[ignore]`, `@pytest.mark.skip`, `it.skip`, `.only`, `t.Skip(`, …).
    SkipAdded,
    /// A test lost an assertion.
    AssertionRemoved,
    /// An assertion's expected value or comparison changed.
    AssertionWeakened,
    /// Test configuration that selects, deselects or filters tests changed.
    SelectionChanged,
    /// A test added or changed by the goal asserts nothing, or only constants.
    AssertionFree,
    /// A name the tests imported on the base is imported from other code at the end (`from calc
    /// import add` → `from calc_impl import add`, `use super::add_v2 as add;`).
    ImportRedirected,
}

impl FindingKind {
    /// The kebab-case name (`test-removed`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::TestRemoved => "test-removed",
            FindingKind::SkipAdded => "skip-added",
            FindingKind::AssertionRemoved => "assertion-removed",
            FindingKind::AssertionWeakened => "assertion-weakened",
            FindingKind::SelectionChanged => "selection-changed",
            FindingKind::AssertionFree => "assertion-free",
            FindingKind::ImportRedirected => "import-redirected",
        }
    }

    /// Whether the kind refuses `goal done` without `--confirm` (all but assertion-removed and
    /// assertion-weakened, which a red/green pair judges).
    pub fn refuses(self) -> bool {
        !matches!(
            self,
            FindingKind::AssertionRemoved | FindingKind::AssertionWeakened
        )
    }
}

impl std::fmt::Display for FindingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding: kind, file, line (1-based: in the final file, or in the base file for a removal)
/// and the test's name (`tests::adds`, `TestCalc::test_add`, `calc > adds`, `TestAdd`; for a
/// configuration change, the key or target that changed).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub file: String,
    pub line: usize,
    pub test: String,
}

impl Finding {
    /// The value of its `Goal-Tests-Weakened` trailer: `<kind> <file>:<line> <test>`.
    pub fn trailer_value(&self) -> String {
        format!("{} {}:{} {}", self.kind, self.file, self.line, self.test)
    }
}

/// One file of the test surface the goal changed: its text on the base and at the end (None where
/// it does not exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub base: Option<String>,
    pub last: Option<String>,
}

/// A file the findings could not read (it does not parse): its findings are unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unreadable {
    pub file: String,
    pub reason: String,
}

/// The findings over a goal's changes, and the files that could not be parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Findings {
    pub findings: Vec<Finding>,
    pub unreadable: Vec<Unreadable>,
}

/// An assertion in a test, reduced to what the comparison needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assertion {
    /// 1-based line in its file.
    pub line: usize,
    /// The value under test (`add(2, 2)`), as normalized text.
    pub subject: String,
    /// What it is compared with, comparison included (`== 4`, `assert_eq 4`, `toBe 4`).
    pub expected: String,
    /// Whether it checks only constants (`assert True`, `assert!(true)`, `expect(1).toBe(1)`).
    pub constant: bool,
}

/// A test function or case as one language's parser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCase {
    /// The test's name, qualified as its runner would (module path, class, describe blocks).
    pub name: String,
    /// 1-based line of its name.
    pub line: usize,
    /// The line of the first skip marker that applies to it, if any.
    pub skip_line: Option<usize>,
    /// Its body as normalized text: a test whose body differs from the base's was changed.
    pub body: String,
    pub assertions: Vec<Assertion>,
    /// How many non-constant checks it makes (assertions, `?`/`unwrap`, t.Error calls, helpers
    /// named `check_…`/`assert…`, `pytest.raises`, …): zero means it asserts nothing real.
    pub checks: usize,
    /// Its body is empty (`pass`, `{}`, only comments or a docstring).
    pub empty: bool,
}

/// The sources the base's test files of a family import a name from (empty: none imports it),
/// for the `import-redirected` findings of a file new to the name.
pub type Elsewhere<'a> = dyn FnMut(imports::Family, &str) -> BTreeSet<String> + 'a;

/// [`findings_with`] with no test file of the base to compare a newly imported name with.
pub fn findings(surface: &Surface, changes: &[FileChange]) -> Findings {
    findings_with(surface, changes, &mut |_, _| BTreeSet::new())
}

/// The findings of a goal's changes over the test surface: each file by its role (test files per
/// language by extension: `.rs`, `.py`, `.js`/`.mjs`/`.cjs`/`.jsx`, `.ts`/`.tsx`/`.mts`/`.cts`,
/// `.go`; configuration files by kind). Files that are not on the surface are ignored; files that
/// do not parse are listed in `unreadable`. `elsewhere` tells the imports of the base's other
/// test files. Sorted by file, then line.
pub fn findings_with(
    surface: &Surface,
    changes: &[FileChange],
    elsewhere: &mut Elsewhere,
) -> Findings {
    let mut out = Findings::default();
    for change in changes {
        let role = surface.classify(&change.path);
        if let Err(reason) = file_findings(role, change, elsewhere, &mut out.findings) {
            out.unreadable.push(Unreadable {
                file: change.path.clone(),
                reason,
            });
        }
    }
    out.findings.sort_by(|a, b| {
        (&a.file, a.line, a.kind, &a.test).cmp(&(&b.file, b.line, b.kind, &b.test))
    });
    out.findings.dedup();
    out
}

/// The findings of one changed file of role `role`, appended to `out`; Err names why the file
/// could not be read.
pub fn file_findings(
    role: Role,
    change: &FileChange,
    elsewhere: &mut Elsewhere,
    out: &mut Vec<Finding>,
) -> Result<(), String> {
    if change.base == change.last {
        return Ok(());
    }
    let path = change.path.as_str();
    let name = path.rsplit('/').next().unwrap_or(path);
    match role {
        Role::NotTest => Ok(()),
        Role::PartialConfig(kind) => config::partial(
            kind,
            path,
            change.base.as_deref(),
            change.last.as_deref(),
            out,
        ),
        Role::WholeConfig if name != "conftest.py" => {
            config::whole(path, change.base.as_deref(), change.last.as_deref(), out)
        }
        Role::Test | Role::WholeConfig | Role::RustSource => {
            let Some(language) = Language::of(path) else {
                if path.ends_with(".java") || path.ends_with(".cs") {
                    annotations::skips_added(
                        path,
                        change.base.as_deref(),
                        change.last.as_deref(),
                        out,
                    );
                }
                // A test file in a language without a parser here: only its removal is known
                // (a file named as a test; fixtures and data under tests/ are not tests).
                let lower = name.to_ascii_lowercase();
                if change.last.is_none() && (lower.contains("test") || lower.contains("spec")) {
                    out.push(Finding {
                        kind: FindingKind::TestRemoved,
                        file: path.to_string(),
                        line: 1,
                        test: "*".to_string(),
                    });
                }
                return Ok(());
            };
            if name == "conftest.py" {
                config::conftest(path, change.base.as_deref(), change.last.as_deref(), out);
            }
            let parse = |text: Option<&str>| -> Result<Vec<TestCase>, String> {
                match text {
                    None => Ok(Vec::new()),
                    Some(text) => language.tests(text),
                }
            };
            let base = parse(change.base.as_deref())?;
            let last = parse(change.last.as_deref())?;
            compare(path, &base, &last, out);
            compare_imports(
                path,
                language,
                change.base.as_deref(),
                change.last.as_deref(),
                elsewhere,
                out,
            );
            Ok(())
        }
    }
}

/// The `import-redirected` findings of a test file (see [`imports::redirects`]); a side whose
/// imports cannot be read counts as importing nothing.
pub fn compare_imports(
    path: &str,
    language: Language,
    base: Option<&str>,
    last: Option<&str>,
    elsewhere: &mut Elsewhere,
    out: &mut Vec<Finding>,
) {
    let Some(family) = language.family() else {
        return;
    };
    let read = |t: Option<&str>| {
        t.and_then(|t| language.imports(path, t).ok())
            .unwrap_or_default()
    };
    let (base, last) = (read(base), read(last));
    if last.bindings.is_empty() {
        return;
    }
    imports::redirects(path, &base, &last, &mut |name| elsewhere(family, name), out);
}

/// A language whose tests the findings parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
}

impl Language {
    /// The language of a path, by its extension.
    pub fn of(path: &str) -> Option<Language> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "rs" => Language::Rust,
            "py" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "go" => Language::Go,
            _ => return None,
        })
    }

    /// The test cases of a file in this language; Err says why it does not parse.
    pub fn tests(self, text: &str) -> Result<Vec<TestCase>, String> {
        match self {
            Language::Rust => super::rust::test_cases(text).map_err(|e| e.to_string()),
            Language::Python => python::test_cases(text),
            Language::JavaScript => js::test_cases(text, js::Dialect::JavaScript),
            Language::TypeScript => js::test_cases(text, js::Dialect::TypeScript),
            Language::Tsx => js::test_cases(text, js::Dialect::Tsx),
            Language::Go => go::test_cases(text),
        }
    }
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The findings between a file's base tests and its final tests (matched by name).
pub fn compare(path: &str, base: &[TestCase], last: &[TestCase], out: &mut Vec<Finding>) {
    let finding = |kind, line, test: &str| Finding {
        kind,
        file: path.to_string(),
        line,
        test: test.to_string(),
    };
    for b in base {
        if !last.iter().any(|l| l.name == b.name) {
            out.push(finding(FindingKind::TestRemoved, b.line, &b.name));
        }
    }
    for l in last {
        let before = base.iter().find(|b| b.name == l.name);
        if let Some(skip) = l.skip_line
            && before.is_none_or(|b| b.skip_line.is_none())
        {
            out.push(finding(FindingKind::SkipAdded, skip, &l.name));
        }
        let changed = before.is_none_or(|b| squash(&b.body) != squash(&l.body));
        if changed && l.checks == 0 {
            out.push(finding(FindingKind::AssertionFree, l.line, &l.name));
        }
        let Some(before) = before else { continue };
        // Same assertions on both sides cancel out; what is left pairs up by subject (weakened),
        // then in order (changed, so weakened); the rest of the base's were removed.
        let key = |a: &Assertion| (squash(&a.subject), squash(&a.expected));
        let mut left: Vec<&Assertion> = l.assertions.iter().collect();
        let mut gone: Vec<&Assertion> = Vec::new();
        for a in &before.assertions {
            match left.iter().position(|x| key(x) == key(a)) {
                Some(i) => {
                    left.remove(i);
                }
                None => gone.push(a),
            }
        }
        let mut removed = Vec::new();
        for a in gone {
            let same_subject = left
                .iter()
                .position(|x| squash(&x.subject) == squash(&a.subject));
            match same_subject.or((!left.is_empty()).then_some(0)) {
                Some(i) => {
                    let x = left.remove(i);
                    out.push(finding(FindingKind::AssertionWeakened, x.line, &l.name));
                }
                None => removed.push(a),
            }
        }
        for a in removed {
            out.push(finding(FindingKind::AssertionRemoved, a.line, &l.name));
        }
    }
}
