//! Weakening findings: how a goal's diff over the test surface can make tests prove less
//! (a test removed, a skip added, an assertion removed or weakened, the selection changed, a test
//! that asserts nothing), found per language with a real parser.

use std::collections::BTreeSet;

use serde::Serialize;

use super::{Role, Surface};

mod annotations;
pub mod code;
mod go;
pub mod imports;
mod js;
mod meaning;
mod pins;
mod python;
pub mod renames;
mod selection;
pub mod special_case;
pub mod test_detected;
mod tree;

pub use code::same_code;
pub use pins::pin_runs;
pub use renames::Renames;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_detect;
#[cfg(test)]
mod tests_detect_meaning;
#[cfg(test)]
mod tests_python;
#[cfg(test)]
mod tests_real;
#[cfg(test)]
mod tests_rules;
#[cfg(test)]
mod tests_selection;
#[cfg(test)]
mod tests_special_case;

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
    /// A test the goal removed whose body, with the identifiers the goal renamed in the code mapped
    /// back, is the body of a test it added (`eq_version_ok -> exactly_version_ok`): shown only.
    TestRenamed,
    /// A changed assertion that, with the identifiers the goal renamed in the code mapped back, is
    /// the base's assertion (same constants, comparison and expected value): shown only.
    AssertionChanged,
    /// Code (or a test's condition) the goal added that tells a test run from another run:
    /// `cfg!(test)`, `#[cfg(not(test))]`, `"pytest" in sys.modules`, `JEST_WORKER_ID`,
    /// `testing.Testing()`, a look at its own path, working directory or temporary folder.
    TestDetected,
    /// Code the goal added that switches on a configuration naming tests (`NODE_ENV === "test"`):
    /// shown only.
    TestAware,
    /// Code the goal added that answers a distinctive literal the tests write with a constant
    /// (`if year == 1900: return False` beside a test of `is_leap(1900)`): shown only.
    SpecialCasedInput,
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
            FindingKind::TestRenamed => "test-renamed",
            FindingKind::AssertionChanged => "assertion-changed",
            FindingKind::TestDetected => "test-detected",
            FindingKind::TestAware => "test-aware",
            FindingKind::SpecialCasedInput => "special-cased-input",
        }
    }

    /// Whether the kind refuses `goal done` without `--confirm` on its own.
    ///
    /// A finding on the tests' text refuses only when a run confirms it (the old and support
    /// exams, the red run): of the kinds, only test-detected refuses on its pattern, since no
    /// run under a test runner can see code that behaves otherwise under one, and assertion-free
    /// waits for a red run to show the test failing by name.
    pub fn refuses(self) -> bool {
        matches!(self, FindingKind::TestDetected | FindingKind::AssertionFree)
    }

    /// Whether the kind is about code or configuration as a whole rather than a test a pin may
    /// or may not run (selection-changed, test-detected): it refuses whatever the pins name.
    pub fn whole_goal(self) -> bool {
        matches!(
            self,
            FindingKind::SelectionChanged | FindingKind::TestDetected
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
    /// The cases of a parametrised table it runs (`@pytest.mark.parametrize`, `test.each`, a
    /// Rust `for (a, want) in [...]` loop, a Go `for _, tc := range cases`): empty for a plain test.
    pub params: Vec<Param>,
    /// The conditions it is compiled under within its file (Rust: the `cfg`s on it and on the
    /// modules around it that may or may not hold, a platform or a feature; not `cfg(test)`,
    /// which always does, nor a skip that never does): two tests of one name under different conditions
    /// (`#[cfg(windows)]`, `#[cfg(not(windows))]`) are different tests. Empty where none.
    pub scope: String,
}

impl TestCase {
    /// Whether `other` is this test: the same name under the same conditions.
    pub fn same_test(&self, other: &TestCase) -> bool {
        self.name == other.name && self.scope == other.scope
    }
}

/// One case of a parametrised test: the source text each parameter takes (`a` → `2`, `tc.want`
/// → `4`), and the line of a skip or xfail mark on the case alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Param {
    pub values: Vec<(String, String)>,
    pub skip_line: Option<usize>,
}

impl Param {
    /// `text` with each parameter replaced by this case's value (dotted names such as `tc.want`
    /// first), whitespace dropped.
    pub fn apply(&self, text: &str) -> String {
        // Words stay apart until the names are replaced (`assert_eq want`); `tc . want` joins.
        let mut text = text
            .replace(" . ", ".")
            .replace(" .", ".")
            .replace(". ", ".");
        let mut dotted: Vec<&(String, String)> = self
            .values
            .iter()
            .filter(|(k, _)| k.contains('.'))
            .collect();
        dotted.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        for (key, value) in dotted {
            text = replace_word(&text, &key.replace(' ', ""), &squash(value));
        }
        squash(&renames::map_words(&text, &|w| {
            self.values
                .iter()
                .find(|(k, _)| k == w)
                .map(|(_, v)| squash(v))
        }))
    }
}

/// `text` with each occurrence of `key` not inside a longer word replaced by `value`.
fn replace_word(text: &str, key: &str, value: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + key.len()..].chars().next();
        out.push_str(&rest[..at]);
        if word(before) || word(after) || before == Some('.') {
            out.push_str(key);
        } else {
            out.push_str(value);
        }
        rest = &rest[at + key.len()..];
    }
    out.push_str(rest);
    out
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
    findings_in(surface, changes, &[], elsewhere)
}

/// [`findings_with`] knowing the goal's changes to code files too (`code`: files off the test
/// surface, and Rust sources): the identifiers it renamed there map the tests back
/// (`test-renamed`, `assertion-changed`), and the lines it added there are read for code that
/// detects its tests (`test-detected`, `test-aware`).
pub fn findings_in(
    surface: &Surface,
    changes: &[FileChange],
    code: &[FileChange],
    elsewhere: &mut Elsewhere,
) -> Findings {
    let mut out = Findings::default();
    let renames = Renames::of(code);
    for change in changes {
        let role = surface.classify(&change.path);
        let found = file_findings_in(role, change, &renames, elsewhere, &mut out.findings);
        if let Err(reason) = found {
            out.unreadable.push(Unreadable {
                file: change.path.clone(),
                reason,
            });
        }
        let is_code = code.iter().any(|c| c.path == change.path);
        if !is_code && change.base != change.last && matches!(role, Role::Test | Role::WholeConfig)
        {
            // Tests and conftests: only their conditions that read a path of the run.
            let _ = test_detected::detected(
                &change.path,
                change.base.as_deref(),
                change.last.as_deref(),
                false,
                &mut out.findings,
            );
        }
    }
    // Modules the goal's files under a tests folder make importable, only under the runner.
    let test_only = test_detected::test_modules(
        changes
            .iter()
            .chain(code)
            .filter(|c| c.last.is_some())
            .map(|c| c.path.as_str()),
    );
    for change in code.iter().filter(|c| c.base != c.last) {
        let _ = test_detected::detected_beside(
            &change.path,
            change.base.as_deref(),
            change.last.as_deref(),
            true,
            &test_only,
            &mut out.findings,
        );
    }
    out.findings.sort_by(|a, b| {
        (&a.file, a.line, a.kind, &a.test).cmp(&(&b.file, b.line, b.kind, &b.test))
    });
    out.findings.dedup();
    out
}

/// The findings of one changed file of role `role`, appended to `out`, with the identifiers the
/// goal renamed in the code; Err names why the file could not be read.
pub fn file_findings_in(
    role: Role,
    change: &FileChange,
    renames: &Renames,
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
        Role::PartialConfig(kind) => selection::partial(
            kind,
            path,
            change.base.as_deref(),
            change.last.as_deref(),
            out,
        ),
        Role::WholeConfig if name != "conftest.py" => {
            selection::whole(path, change.base.as_deref(), change.last.as_deref(), out)
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
                selection::conftest(path, change.base.as_deref(), change.last.as_deref(), out);
            }
            let parse = |text: Option<&str>| -> Result<Vec<TestCase>, String> {
                match text {
                    None => Ok(Vec::new()),
                    Some(text) => language.tests(text),
                }
            };
            let base = parse(change.base.as_deref())?;
            let last = parse(change.last.as_deref())?;
            compare_with(path, &base, &last, renames, out);
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
    compare_with(path, base, last, &Renames::default(), out);
}

/// Whether assertion `x` of the final test is assertion `a` of the base once the goal's renames
/// are mapped back and (`param`) a case of its table is put in.
fn same_assertion(a: &Assertion, x: &Assertion, renames: &Renames, param: Option<&Param>) -> bool {
    let put = |t: &str| match param {
        Some(p) => p.apply(&renames.back(t)),
        None => squash(&renames.back(t)),
    };
    put(&x.subject) == squash(&a.subject) && put(&x.expected) == squash(&a.expected)
}

/// Whether `x` checks what `a` checked through a call of another shape: the same expectation,
/// and a subject that is not `a`'s but passes the same constants (`Clamp(15, 0, 10)` and
/// `(Range{0, 10}).Clamp(15)`, or `clamp(15, 0..=10)`). An API the goal restructured moves its
/// tests' constants around; a weakening changes a constant or the expectation, or gives the same
/// call its constants in another order (`Clamp(10, 0, 15)`).
fn same_values(a: &Assertion, x: &Assertion) -> bool {
    if squash(&a.expected) != squash(&x.expected) || squash(&a.subject) == squash(&x.subject) {
        return false;
    }
    let (before, after) = (literals(&a.subject), literals(&x.subject));
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    if before.is_empty() || sorted(&before) != sorted(&after) {
        return false;
    }
    before == after || callee(&a.subject) != callee(&x.subject)
}

/// The constants of an expression, in order: numbers (a sign kept where it is one) and quoted
/// strings.
fn literals(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let word_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '"' || c == '\'' || c == '`' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            out.push(chars[start..(i + 1).min(chars.len())].iter().collect());
            i += 1;
        } else if c.is_ascii_digit() && !word_before {
            let signed = chars[..i]
                .iter()
                .rev()
                .find(|c| !c.is_whitespace())
                .is_some_and(|&m| m == '-')
                && chars[..i]
                    .iter()
                    .rev()
                    .filter(|c| !c.is_whitespace())
                    .nth(1)
                    .is_none_or(|p| "([{,=:".contains(*p));
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            out.push(if signed { format!("-{number}") } else { number });
        } else {
            i += 1;
        }
    }
    out
}

/// What an expression calls with its last argument list: the text before the `(` that the
/// closing `)` at its end matches (`Clamp` in `Clamp(15, f(0), 10)`, `(Range{0,10}).Clamp` in
/// `(Range{0, 10}).Clamp(15)`); the whole text when it does not end in a call.
fn callee(text: &str) -> String {
    let s = squash(text);
    if !s.ends_with(')') {
        return s;
    }
    let mut depth = 0usize;
    for (at, c) in s.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 1 => return s[..at].to_string(),
            '(' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    s
}

/// The case of `l`'s table under which one of its assertions is `a`, if any.
fn covering_case<'a>(a: &Assertion, l: &'a TestCase, renames: &Renames) -> Option<&'a Param> {
    l.params.iter().find(|p| {
        l.assertions
            .iter()
            .any(|x| same_assertion(a, x, renames, Some(p)))
    })
}

/// Whether the added test `l` is the removed test `b` renamed: its body, the goal's renames
/// mapped back, is `b`'s; or it is a table whose cases hold each of `b`'s assertions.
fn is_renamed(b: &TestCase, l: &TestCase, renames: &Renames) -> bool {
    if squash(&renames.back(&l.body)) == squash(&b.body) {
        return true;
    }
    !l.params.is_empty()
        && !b.assertions.is_empty()
        && b.assertions
            .iter()
            .all(|a| covering_case(a, l, renames).is_some())
}

/// The test of `other` that `t` (one of `mine`) is: the same name under the same conditions, or,
/// when the name is unique on both sides, the one of that name (a test that gained or lost a
/// platform gate is still itself). Two of one name under different conditions are never paired.
fn paired<'a>(t: &TestCase, mine: &[TestCase], other: &'a [TestCase]) -> Option<&'a TestCase> {
    if let Some(same) = other.iter().find(|o| o.same_test(t)) {
        return Some(same);
    }
    let unique_here = mine.iter().filter(|c| c.name == t.name).count() == 1;
    let mut there = other.iter().filter(|c| c.name == t.name);
    match (there.next(), there.next()) {
        (Some(one), None) if unique_here => Some(one),
        _ => None,
    }
}

/// [`compare`] with the identifiers the goal renamed in the code (`renames`): a removed test
/// whose body is an added test's is `test-renamed`; a changed assertion that maps back to the
/// base's is `assertion-changed`; a base assertion that a case of the final test's table makes
/// again is kept (a case marked skip or xfail that the base did not skip is `skip-added`).
pub fn compare_with(
    path: &str,
    base: &[TestCase],
    last: &[TestCase],
    renames: &Renames,
    out: &mut Vec<Finding>,
) {
    let finding = |kind, line, test: &str| Finding {
        kind,
        file: path.to_string(),
        line,
        test: test.to_string(),
    };
    let mut taken: Vec<&str> = Vec::new();
    for b in base {
        if paired(b, base, last).is_some() {
            continue;
        }
        let renamed = last.iter().find(|l| {
            paired(l, last, base).is_none()
                && !taken.contains(&l.name.as_str())
                && is_renamed(b, l, renames)
        });
        match renamed {
            Some(l) => {
                taken.push(&l.name);
                let test = format!("{} -> {}", b.name, l.name);
                out.push(finding(FindingKind::TestRenamed, l.line, &test));
            }
            None => out.push(finding(FindingKind::TestRemoved, b.line, &b.name)),
        }
    }
    for l in last {
        let before = paired(l, last, base);
        if let Some(skip) = l.skip_line
            && before.is_none_or(|b| b.skip_line.is_none())
        {
            out.push(finding(FindingKind::SkipAdded, skip, &l.name));
        }
        for p in &l.params {
            if let Some(skip) = p.skip_line
                && before.is_none_or(|b| !b.params.iter().any(|q| q == p))
            {
                out.push(finding(FindingKind::SkipAdded, skip, &l.name));
            }
        }
        let changed = before.is_none_or(|b| squash(&b.body) != squash(&l.body));
        if changed && l.checks == 0 {
            out.push(finding(FindingKind::AssertionFree, l.line, &l.name));
        }
        let Some(before) = before else { continue };
        compare_assertions(before, l, renames, &mut |kind, line| {
            out.push(finding(kind, line, &l.name))
        });
    }
}

/// The assertion findings of a test kept by name. Same assertions on both sides cancel out; a
/// base assertion a case of the final table makes again is kept; what is left pairs up with an
/// assertion that maps back to it (changed), then by subject (weakened), then in order (changed,
/// so weakened); the rest of the base's were removed.
fn compare_assertions(
    before: &TestCase,
    l: &TestCase,
    renames: &Renames,
    push: &mut dyn FnMut(FindingKind, usize),
) {
    let key = |a: &Assertion| (squash(&a.subject), squash(&a.expected));
    let mut left: Vec<&Assertion> = l.assertions.iter().collect();
    let mut gone: Vec<&Assertion> = Vec::new();
    for a in &before.assertions {
        match left.iter().position(|x| key(x) == key(a)) {
            Some(i) => {
                left.remove(i);
            }
            None if covering_case(a, l, renames).is_some() => {}
            None => gone.push(a),
        }
    }
    let mut removed = Vec::new();
    for a in gone {
        if let Some(i) = left
            .iter()
            .position(|x| same_assertion(a, x, renames, None))
        {
            let x = left.remove(i);
            push(FindingKind::AssertionChanged, x.line);
            continue;
        }
        if let Some(i) = left.iter().position(|x| same_values(a, x)) {
            let x = left.remove(i);
            push(FindingKind::AssertionChanged, x.line);
            continue;
        }
        let same_subject = left
            .iter()
            .position(|x| squash(&x.subject) == squash(&a.subject));
        match same_subject.or((!left.is_empty()).then_some(0)) {
            Some(i) => {
                let x = left.remove(i);
                push(FindingKind::AssertionWeakened, x.line);
            }
            None => removed.push(a),
        }
    }
    for a in removed {
        push(FindingKind::AssertionRemoved, a.line);
    }
}
