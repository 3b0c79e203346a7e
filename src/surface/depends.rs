//! What the tests depend on that their paths do not say: the goal's **test data** (a file that is
//! no source code, named by a string literal of a test file or helper and by no other code) and
//! its **test helpers** (a Python module only the tests import that imports a test framework or
//! mocking API, or assigns attributes of the modules it imports: monkeypatching). Both are part
//! of the test surface: the red tree takes them from the working tree, so that a data file
//! changed to what the bug gives, or a helper that patches the code under test, changes the red
//! run as it changes the green one.
//!
//! Pure: file texts in, paths out. [`super::red`] reads the trees.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use tree_sitter::{Node, Parser};

/// File extensions of source code (a file with one is code, never test data).
const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "pyi", "rs", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "go", "java", "kt",
    "cs", "rb", "c", "h", "cc", "cpp", "hpp", "swift", "php", "scala", "sh",
];

/// Modules whose import makes a module a test helper (their first component).
const TEST_MODULES: &[&str] = &["pytest", "unittest", "mock", "_pytest", "hypothesis"];

/// Whether `path` is source code by its extension.
pub fn is_source(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| SOURCE_EXTENSIONS.contains(&ext))
}

/// Whether `text` holds a string literal naming `path`: the path, or a suffix of it of two or
/// more components, as a whole literal (`"data/expected.json"`) or as the end of one
/// (`"../fixtures/data/expected.json"`).
pub fn names_path(text: &[u8], path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let least = 2.min(parts.len());
    (0..=parts.len() - least).any(|start| {
        let suffix = parts[start..].join("/");
        literal_ends_with(text, suffix.as_bytes())
    })
}

fn is_quote(b: u8) -> bool {
    matches!(b, b'"' | b'\'' | b'`')
}

/// Whether some occurrence of `needle` in `text` ends a string literal: a quote follows, and a
/// quote or a `/` within the same literal (no space, no line break) comes before.
fn literal_ends_with(text: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find_iter(text, needle).any(|at| {
        let end = at + needle.len();
        if !text.get(end).is_some_and(|b| is_quote(*b)) || at == 0 {
            return false;
        }
        let before = text[at - 1];
        if is_quote(before) {
            return true;
        }
        before == b'/'
            && text[..at - 1]
                .iter()
                .rev()
                .take_while(|b| !b.is_ascii_whitespace())
                .any(|b| is_quote(*b))
    })
}

/// What a Python file imports and does with its imports.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PyModule {
    /// The modules it imports, absolute and dotted (`calc`, `tests.helpers`, and for `from a
    /// import b` also `a.b`, which may be a module).
    pub imports: Vec<String>,
    /// It imports a test framework or mocking API.
    pub framework: bool,
    /// It assigns an attribute of a name it imports (`calc.add = …`, `setattr(calc, …)`).
    pub patches: bool,
}

/// The dotted package of a Python file at `path` (`tests/unit/test_a.py` → `tests.unit`).
fn package_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split('/').map(str::to_string).collect();
    parts.pop();
    parts
}

/// Read a Python file: None when it does not parse.
pub fn python_module(path: &str, text: &str) -> Option<PyModule> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(text, None)?;
    let root = tree.root_node();
    let src = text.as_bytes();
    let word = |n: Node| n.utf8_text(src).unwrap_or("").to_string();
    let mut out = PyModule::default();
    let mut bound: BTreeSet<String> = BTreeSet::new();
    let mut stack = vec![root];
    // Targets of assignments, and of setattr/delattr (whose first argument is the object).
    let mut assigned: Vec<(Node, bool)> = Vec::new();
    while let Some(node) = stack.pop() {
        match node.kind() {
            "import_statement" => {
                for i in 0..node.named_child_count() {
                    let Some(child) = node.named_child(i as u32) else {
                        continue;
                    };
                    let (name, alias) = name_alias(child, &word);
                    let Some(name) = name else { continue };
                    let first = name.split('.').next().unwrap_or("").to_string();
                    bound.insert(alias.unwrap_or(first));
                    out.imports.push(name);
                }
            }
            "import_from_statement" => {
                let module = node
                    .child_by_field_name("module_name")
                    .map(|m| absolute(path, &word(m)))
                    .unwrap_or_default();
                out.imports.push(module.clone());
                let mut cursor = node.walk();
                for name in node.children_by_field_name("name", &mut cursor) {
                    let (name, alias) = name_alias(name, &word);
                    let Some(name) = name else { continue };
                    bound.insert(alias.unwrap_or_else(|| name.clone()));
                    let joined = if module.is_empty() || module.ends_with('.') {
                        format!("{module}{name}")
                    } else {
                        format!("{module}.{name}")
                    };
                    out.imports.push(joined);
                }
            }
            "assignment" | "augmented_assignment" => {
                if let Some(left) = node.child_by_field_name("left") {
                    assigned.push((left, false));
                }
            }
            "call" => {
                let callee = node.child_by_field_name("function").map(word);
                if matches!(callee.as_deref(), Some("setattr" | "delattr"))
                    && let Some(first) = node
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                {
                    assigned.push((first, true));
                }
            }
            _ => {}
        }
        for i in (0..node.child_count()).rev() {
            if let Some(child) = node.child(i) {
                stack.push(child);
            }
        }
    }
    out.framework = out.imports.iter().any(|m| {
        let first = m.split('.').next().unwrap_or("");
        TEST_MODULES.contains(&first)
    });
    out.patches = assigned.iter().any(|(n, of_object)| {
        let mut object = *n;
        while object.kind() == "attribute" {
            match object.child_by_field_name("object") {
                Some(o) => object = o,
                None => break,
            }
        }
        object.kind() == "identifier"
            && (*of_object || n.kind() == "attribute")
            && bound.contains(&word(object))
    });
    Some(out)
}

/// The name an import names and the alias it binds it to (`a.b as c` → `a.b`, `c`).
fn name_alias(node: Node, word: &dyn Fn(Node) -> String) -> (Option<String>, Option<String>) {
    match node.kind() {
        "aliased_import" => (
            node.child_by_field_name("name").map(word),
            node.child_by_field_name("alias").map(word),
        ),
        _ => (Some(word(node)), None),
    }
}

/// A module name as written in `from X import …` made absolute from the file at `path`
/// (`.helpers` in `tests/test_a.py` → `tests.helpers`; `.` → `tests.`).
fn absolute(path: &str, module: &str) -> String {
    let dots = module.bytes().take_while(|b| *b == b'.').count();
    if dots == 0 {
        return module.to_string();
    }
    let mut package = package_of(path);
    for _ in 1..dots {
        package.pop();
    }
    let rest = &module[dots..];
    let mut out = package.join(".");
    if rest.is_empty() {
        out.push('.');
        return out;
    }
    if !out.is_empty() {
        out.push('.');
    }
    out.push_str(rest);
    out
}

/// Every dotted name a Python file at `path` may be imported by: its module path and each
/// suffix of it (`src/pkg/mod.py` → `mod`, `pkg.mod`, `src.pkg.mod`; `pkg/__init__.py` → `pkg`).
fn module_names(path: &str) -> Vec<String> {
    let Some(stem) = path.strip_suffix(".py") else {
        return Vec::new();
    };
    let mut parts: Vec<&str> = stem.split('/').collect();
    if parts.last() == Some(&"__init__") {
        parts.pop();
    }
    (0..parts.len()).map(|i| parts[i..].join(".")).collect()
}

/// The Python files of a tree, read as needed.
pub trait PySource {
    /// The paths of the tree's Python files.
    fn paths(&self) -> Vec<String>;
    /// The text of one (None: unreadable).
    fn text(&mut self, path: &str) -> Option<String>;
}

/// The test helpers among `candidates` (Python files the goal added or changed that are not
/// test files): each imported by the tests (`tests`: the test files' paths), directly or through
/// other modules of the tree, imported by no other non-test module, and importing a test
/// framework or assigning attributes of what it imports.
pub fn test_helpers(
    source: &mut dyn PySource,
    tests: &BTreeSet<String>,
    candidates: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    if candidates.is_empty() {
        return found;
    }
    let paths = source.paths();
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in &paths {
        for name in module_names(p) {
            by_name.entry(name).or_default().push(p.clone());
        }
    }
    let mut read: BTreeMap<String, Option<PyModule>> = BTreeMap::new();
    let mut module = |source: &mut dyn PySource, p: &str| -> Option<PyModule> {
        read.entry(p.to_string())
            .or_insert_with(|| python_module(p, &source.text(p)?))
            .clone()
    };
    let resolve = |m: &PyModule| -> Vec<String> {
        let mut out: Vec<String> = m
            .imports
            .iter()
            .flat_map(|i| {
                by_name
                    .get(i.trim_end_matches('.'))
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        out.sort();
        out.dedup();
        out
    };
    // What the tests reach, file by file.
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut queue: VecDeque<String> = tests
        .iter()
        .filter(|t| t.ends_with(".py"))
        .cloned()
        .collect();
    while let Some(p) = queue.pop_front() {
        let Some(m) = module(source, &p) else {
            continue;
        };
        for next in resolve(&m) {
            if !tests.contains(&next) && reached.insert(next.clone()) {
                queue.push_back(next);
            }
        }
    }
    // The goal's modules the tests reach, less those other code imports (again and again: a
    // module imported by such a module is code too). Modules of that set may import each other.
    let mut only_tests: BTreeSet<String> = candidates
        .iter()
        .filter(|c| reached.contains(*c))
        .cloned()
        .collect();
    if !only_tests
        .iter()
        .any(|c| module(source, c).is_some_and(|m| m.framework || m.patches))
    {
        return found;
    }
    let stems: Vec<String> = only_tests
        .iter()
        .filter_map(|h| module_names(h).into_iter().next())
        .collect();
    let mut importers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in paths.iter().filter(|p| !tests.contains(*p)) {
        let Some(text) = source.text(p) else { continue };
        if !stems.iter().any(|s| text.contains(s.as_str())) {
            continue;
        }
        if let Some(m) = python_module(p, &text) {
            for imported in resolve(&m) {
                importers.entry(imported).or_default().insert(p.clone());
            }
        }
    }
    loop {
        let code: Vec<String> = only_tests
            .iter()
            .filter(|c| {
                importers
                    .get(*c)
                    .is_some_and(|by| by.iter().any(|i| !only_tests.contains(i)))
            })
            .cloned()
            .collect();
        if code.is_empty() {
            break;
        }
        for c in code {
            only_tests.remove(&c);
        }
    }
    found.extend(
        only_tests
            .into_iter()
            .filter(|c| module(source, c).is_some_and(|m| m.framework || m.patches)),
    );
    found
}

#[cfg(test)]
#[path = "depends_tests.rs"]
mod tests;
