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
/// (`"../fixtures/data/expected.json"`); or the last two components as literals of their own, as
/// a path is joined (`filepath.Join("testdata", "cases.json")`, `os.path.join("data", "a.json")`).
pub fn names_path(text: &[u8], path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let least = 2.min(parts.len());
    (0..=parts.len() - least).any(|start| {
        let suffix = parts[start..].join("/");
        literal_ends_with(text, suffix.as_bytes())
    }) || (parts.len() >= 2
        && parts[parts.len() - 2..]
            .iter()
            .all(|part| whole_literal(text, part.as_bytes())))
}

/// Whether `needle` is a whole string literal of `text` (`"cases.json"`).
fn whole_literal(text: &[u8], needle: &[u8]) -> bool {
    memchr::memmem::find_iter(text, needle).any(|at| {
        let end = at + needle.len();
        at > 0 && is_quote(text[at - 1]) && text.get(end).is_some_and(|b| *b == text[at - 1])
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
    let mut read = PyRead {
        path,
        src: text.as_bytes(),
        out: PyModule::default(),
        bound: BTreeSet::new(),
        assigned: Vec::new(),
    };
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        read.visit(node);
        for i in (0..node.child_count()).rev() {
            if let Some(child) = node.child(i) {
                stack.push(child);
            }
        }
    }
    Some(read.finish())
}

/// The text of a node of the file `src`.
fn node_text(src: &[u8], node: Node) -> String {
    node.utf8_text(src).unwrap_or("").to_string()
}

/// A Python file being read node by node: what it imports, the names its imports bind, and the
/// targets it assigns to.
struct PyRead<'a> {
    path: &'a str,
    src: &'a [u8],
    out: PyModule,
    bound: BTreeSet<String>,
    /// Targets of assignments, and of setattr/delattr (whose first argument is the object).
    assigned: Vec<(Node<'a>, bool)>,
}

impl<'a> PyRead<'a> {
    /// One node: an import, an assignment or a `setattr`/`delattr` call is noted.
    fn visit(&mut self, node: Node<'a>) {
        match node.kind() {
            "import_statement" => self.import(node),
            "import_from_statement" => self.import_from(node),
            "assignment" | "augmented_assignment" => {
                if let Some(left) = node.child_by_field_name("left") {
                    self.assigned.push((left, false));
                }
            }
            "call" => {
                let callee = node
                    .child_by_field_name("function")
                    .map(|n| node_text(self.src, n));
                if matches!(callee.as_deref(), Some("setattr" | "delattr"))
                    && let Some(first) = node
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                {
                    self.assigned.push((first, true));
                }
            }
            _ => {}
        }
    }

    /// `import a.b, c as d`: the modules imported, and the names bound (`a`, `d`).
    fn import(&mut self, node: Node<'a>) {
        let src = self.src;
        let word = move |n: Node| node_text(src, n);
        for i in 0..node.named_child_count() {
            let Some(child) = node.named_child(i as u32) else {
                continue;
            };
            let (name, alias) = name_alias(child, &word);
            let Some(name) = name else { continue };
            let first = name.split('.').next().unwrap_or("").to_string();
            self.bound.insert(alias.unwrap_or(first));
            self.out.imports.push(name);
        }
    }

    /// `from a import b as c`: the module imported made absolute, each name as a module of it
    /// (`a.b`), and the names bound (`c`).
    fn import_from(&mut self, node: Node<'a>) {
        let src = self.src;
        let word = move |n: Node| node_text(src, n);
        let module = node
            .child_by_field_name("module_name")
            .map(|m| absolute(self.path, &word(m)))
            .unwrap_or_default();
        self.out.imports.push(module.clone());
        let mut cursor = node.walk();
        for name in node.children_by_field_name("name", &mut cursor) {
            let (name, alias) = name_alias(name, &word);
            let Some(name) = name else { continue };
            self.bound.insert(alias.unwrap_or_else(|| name.clone()));
            let joined = if module.is_empty() || module.ends_with('.') {
                format!("{module}{name}")
            } else {
                format!("{module}.{name}")
            };
            self.out.imports.push(joined);
        }
    }

    /// The module read: whether it imports a test framework, and whether it patches what it
    /// imports.
    fn finish(self) -> PyModule {
        let mut out = self.out;
        out.framework = out.imports.iter().any(|m| {
            let first = m.split('.').next().unwrap_or("");
            TEST_MODULES.contains(&first)
        });
        out.patches = self
            .assigned
            .iter()
            .any(|(n, of_object)| patches_import(self.src, &self.bound, *n, *of_object));
        out
    }
}

/// Whether assigning to `target` (`of_object`: the object a `setattr`/`delattr` sets an
/// attribute of) sets an attribute of a name bound by an import (`bound`).
fn patches_import(src: &[u8], bound: &BTreeSet<String>, target: Node, of_object: bool) -> bool {
    let mut object = target;
    while object.kind() == "attribute" {
        match object.child_by_field_name("object") {
            Some(o) => object = o,
            None => break,
        }
    }
    object.kind() == "identifier"
        && (of_object || target.kind() == "attribute")
        && bound.contains(&node_text(src, object))
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
    if candidates.is_empty() {
        return BTreeSet::new();
    }
    let paths = source.paths();
    let mut modules = Modules {
        by_name: modules_by_name(&paths),
        source,
        read: BTreeMap::new(),
    };
    let reached = modules.reached_by(tests);
    // The goal's modules the tests reach, less those other code imports (again and again: a
    // module imported by such a module is code too). Modules of that set may import each other.
    let mut only_tests: BTreeSet<String> = candidates
        .iter()
        .filter(|c| reached.contains(*c))
        .cloned()
        .collect();
    if !only_tests.iter().any(|c| modules.is_helper(c)) {
        return BTreeSet::new();
    }
    let importers = modules.importers(&paths, tests, &only_tests);
    drop_imported_by_code(&mut only_tests, &importers);
    only_tests
        .into_iter()
        .filter(|c| modules.is_helper(c))
        .collect()
}

/// The Python files of `paths` by each dotted name they may be imported by.
fn modules_by_name(paths: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for p in paths {
        for name in module_names(p) {
            by_name.entry(name).or_default().push(p.clone());
        }
    }
    by_name
}

/// A tree's Python modules, each read once when first asked for, and the files an import names.
struct Modules<'s> {
    source: &'s mut dyn PySource,
    by_name: BTreeMap<String, Vec<String>>,
    read: BTreeMap<String, Option<PyModule>>,
}

impl Modules<'_> {
    /// The module at `p` (None: unreadable, or it does not parse).
    fn module(&mut self, p: &str) -> Option<PyModule> {
        let source = &mut *self.source;
        self.read
            .entry(p.to_string())
            .or_insert_with(|| python_module(p, &source.text(p)?))
            .clone()
    }

    /// Whether the module at `p` looks like a test helper: it imports a test framework or
    /// patches what it imports.
    fn is_helper(&mut self, p: &str) -> bool {
        self.module(p).is_some_and(|m| m.framework || m.patches)
    }

    /// The files of the tree a module's imports name, sorted, each once.
    fn resolve(&self, m: &PyModule) -> Vec<String> {
        let mut out: Vec<String> = m
            .imports
            .iter()
            .flat_map(|i| {
                self.by_name
                    .get(i.trim_end_matches('.'))
                    .cloned()
                    .unwrap_or_default()
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// What the tests reach through their imports, file by file (the test files aside).
    fn reached_by(&mut self, tests: &BTreeSet<String>) -> BTreeSet<String> {
        let mut reached: BTreeSet<String> = BTreeSet::new();
        let mut queue: VecDeque<String> = tests
            .iter()
            .filter(|t| t.ends_with(".py"))
            .cloned()
            .collect();
        while let Some(p) = queue.pop_front() {
            let Some(m) = self.module(&p) else {
                continue;
            };
            for next in self.resolve(&m) {
                if !tests.contains(&next) && reached.insert(next.clone()) {
                    queue.push_back(next);
                }
            }
        }
        reached
    }

    /// The non-test files of `paths` importing each file, looked for only in files whose text
    /// holds the name of one of `only_tests`.
    fn importers(
        &mut self,
        paths: &[String],
        tests: &BTreeSet<String>,
        only_tests: &BTreeSet<String>,
    ) -> BTreeMap<String, BTreeSet<String>> {
        let stems: Vec<String> = only_tests
            .iter()
            .filter_map(|h| module_names(h).into_iter().next())
            .collect();
        let mut importers: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for p in paths.iter().filter(|p| !tests.contains(*p)) {
            let Some(text) = self.source.text(p) else {
                continue;
            };
            if !stems.iter().any(|s| text.contains(s.as_str())) {
                continue;
            }
            if let Some(m) = python_module(p, &text) {
                for imported in self.resolve(&m) {
                    importers.entry(imported).or_default().insert(p.clone());
                }
            }
        }
        importers
    }
}

/// Leave out of `only_tests` each module a module outside it imports, until none is left: what
/// remains only the tests and each other import.
fn drop_imported_by_code(
    only_tests: &mut BTreeSet<String>,
    importers: &BTreeMap<String, BTreeSet<String>>,
) {
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
}

#[cfg(test)]
#[path = "depends_tests.rs"]
mod tests;
