//! Which tool mutates which code, for which pins: cargo-mutants for Rust with pins that are
//! `cargo test`/`cargo nextest` calls, mutmut for Python with pytest pins, StrykerJS for
//! JavaScript and TypeScript with any pin (its command runner runs them); and what each is given:
//! the mutants of the changed functions (a sample of cargo-mutants' list, those on changed lines
//! first), the functions the diff touches, the line ranges of the changed functions. Pure.

use super::functions::{Lines, SAMPLE_MAX, sample, widened, within};
use super::hunks::{FileChange, hunks};

/// The pinned versions this project tests with (and installs in CI).
pub const CARGO_MUTANTS_VERSION: &str = "27.1.0";
pub const MUTMUT_VERSION: &str = "3.8.1";
pub const STRYKER_VERSION: &str = "9.6.1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tool {
    CargoMutants,
    Mutmut,
    Stryker,
}

impl Tool {
    pub const ALL: [Tool; 3] = [Tool::CargoMutants, Tool::Mutmut, Tool::Stryker];

    /// The tool of a name as [`Tool::name`] gives it.
    pub fn named(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Tool::CargoMutants => "cargo-mutants",
            Tool::Mutmut => "mutmut",
            Tool::Stryker => "stryker",
        }
    }

    /// The command that installs it, at the version this project tests with.
    pub fn install(self) -> String {
        match self {
            Tool::CargoMutants => {
                format!("cargo install --locked cargo-mutants@{CARGO_MUTANTS_VERSION}")
            }
            Tool::Mutmut => format!("pip install mutmut=={MUTMUT_VERSION}"),
            Tool::Stryker => {
                format!("npm install --save-dev @stryker-mutator/core@{STRYKER_VERSION}")
            }
        }
    }

    /// The program whose presence says it is installed.
    pub fn program(self) -> &'static str {
        match self {
            Tool::CargoMutants => "cargo-mutants",
            Tool::Mutmut => "mutmut",
            Tool::Stryker => "stryker",
        }
    }

    /// The language family of the files it mutates.
    pub fn of_path(path: &str) -> Option<Tool> {
        let lower = path.to_ascii_lowercase();
        let ends = |es: &[&str]| es.iter().any(|e| lower.ends_with(e));
        if ends(&[".rs"]) {
            Some(Tool::CargoMutants)
        } else if ends(&[".py"]) {
            Some(Tool::Mutmut)
        } else if ends(&[".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"]) {
            Some(Tool::Stryker)
        } else {
            None
        }
    }

    /// Whether `pin` is this tool's own runner (Stryker's command runner runs any pin).
    pub fn runs(self, pin: &[String]) -> bool {
        match self {
            Tool::CargoMutants => cargo_test(pin).is_some(),
            Tool::Mutmut => pytest_args(pin).is_some(),
            Tool::Stryker => !pin.is_empty(),
        }
    }
}

/// A `cargo test`/`cargo nextest run` pin: whether it is nextest, and the arguments after the
/// subcommand (passed through to cargo-mutants' test command).
pub fn cargo_test(pin: &[String]) -> Option<(bool, Vec<String>)> {
    let program = pin.first()?;
    let base = program.rsplit('/').next().unwrap_or(program);
    if base != "cargo" {
        return None;
    }
    let mut rest = pin[1..].iter().skip_while(|w| w.starts_with('+'));
    match rest.next().map(String::as_str) {
        Some("test") => Some((false, rest.cloned().collect())),
        Some("nextest") => {
            let mut rest = rest.peekable();
            if rest.peek().map(|w| w.as_str()) == Some("run") {
                rest.next();
            }
            Some((true, rest.cloned().collect()))
        }
        _ => None,
    }
}

/// A pytest pin's arguments (`pytest …`, `py.test …`, `python -m pytest …`).
pub fn pytest_args(pin: &[String]) -> Option<Vec<String>> {
    let program = pin.first()?;
    let base = program.rsplit('/').next().unwrap_or(program);
    if base == "pytest" || base == "py.test" {
        return Some(pin[1..].to_vec());
    }
    let python = base == "python" || base.starts_with("python3");
    if python && pin.get(1).map(String::as_str) == Some("-m") {
        let module = pin.get(2).map(String::as_str);
        if module == Some("pytest") {
            return Some(pin[3..].to_vec());
        }
    }
    None
}

/// cargo-mutants' arguments (after `cargo mutants`): the mutants named by `examine` (a
/// `--re` of [`examine_re`]) in `files`, in place (the kept worktree is disposable, and its
/// `target/` is reused), no baseline (the green is known), bounded, with the pins' own test
/// arguments when they all agree (else the whole `cargo test`). `timeout_s`: the seconds a
/// mutant's tests may take before it is a timeout (the time bound of a pin's run).
pub fn cargo_mutants_args(
    examine: &str,
    files: &[&str],
    output: &str,
    pins: &[Vec<String>],
    timeout_s: u64,
) -> Vec<String> {
    let tests: Vec<(bool, Vec<String>)> = pins.iter().filter_map(|p| cargo_test(p)).collect();
    let mut args: Vec<String> = vec!["mutants".into(), "--re".into(), examine.into()];
    for f in files {
        args.extend(["--file".into(), f.to_string()]);
    }
    args.extend(
        [
            "--in-place",
            "--baseline=skip",
            "--no-shuffle",
            "--output",
            output,
            "--timeout",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    args.push(timeout_s.to_string());
    if tests.iter().any(|(nextest, _)| *nextest) {
        args.extend(["--test-tool".into(), "nextest".into()]);
    }
    if let Some((_, first)) = tests.first()
        && tests.iter().all(|(_, a)| a == first)
        && !first.is_empty()
    {
        args.push("--".into());
        args.extend(first.iter().cloned());
    }
    let mut argv = vec!["cargo".to_string()];
    argv.extend(args);
    argv
}

/// cargo-mutants' arguments listing the mutants of `files` as JSON (nothing is built or run).
pub fn cargo_mutants_list_args(files: &[&str]) -> Vec<String> {
    let mut argv: Vec<String> = ["cargo", "mutants", "--list", "--json"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for f in files {
        argv.extend(["--file".into(), f.to_string()]);
    }
    argv
}

/// One mutant as `cargo mutants --list --json` lists it: its name (what `--re` matches), its
/// file and the lines it spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub name: String,
    pub file: String,
    pub lines: Lines,
}

/// `cargo mutants --list --json`: the list of mutants.
pub fn cargo_mutants_listed(json: &str) -> Result<Vec<Listed>, String> {
    let v: serde_json::Value = serde_json::from_str(json)
        .map_err(|e| format!("cargo-mutants' list of mutants is not JSON: {e}"))?;
    let list = v
        .as_array()
        .ok_or("cargo-mutants' list of mutants is not a list")?;
    let line = |m: &serde_json::Value, at: &str| {
        m.pointer(&format!("/span/{at}/line"))
            .and_then(|l| l.as_u64())
            .unwrap_or(0) as usize
    };
    Ok(list
        .iter()
        .map(|m| {
            let text = |k: &str| m.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
            Listed {
                name: text("name"),
                file: text("file"),
                lines: (line(m, "start"), line(m, "end")),
            }
        })
        .collect())
}

/// Which listed mutants run: those in the changed functions of `files` (the others are not the
/// goal's), the ones on changed lines first, the rest sampled evenly, at most
/// [`SAMPLE_MAX`]: their names (in list order) and how many the changed functions have.
pub fn cargo_mutants_selection(listed: &[Listed], files: &[&FileChange]) -> (Vec<String>, u64) {
    let ranges: Vec<(&str, Vec<Lines>, Vec<Lines>)> = files
        .iter()
        .map(|f| (f.path.as_str(), widened(f), changed_ranges(f)))
        .collect();
    let mut candidates: Vec<&Listed> = Vec::new();
    let mut on_changed: Vec<bool> = Vec::new();
    for m in listed {
        let Some((_, wide, changed)) = ranges.iter().find(|(p, _, _)| *p == m.file) else {
            continue;
        };
        if within(m.lines, wide) {
            candidates.push(m);
            on_changed.push(within(m.lines, changed));
        }
    }
    let mut picked = sample(&on_changed, SAMPLE_MAX);
    picked.sort_unstable();
    let names = picked
        .into_iter()
        .map(|i| candidates[i].name.clone())
        .collect();
    (names, candidates.len() as u64)
}

/// A `--re` matching exactly the mutants named.
pub fn examine_re(names: &[String]) -> String {
    let alternatives: Vec<String> = names.iter().map(|n| regex::escape(n)).collect();
    format!("^(?:{})$", alternatives.join("|"))
}

/// The 1-based line ranges of the final side that the change adds or changes (pure deletions
/// left out): StrykerJS's `--mutate file:start-end`.
pub fn changed_ranges(f: &FileChange) -> Vec<(usize, usize)> {
    let (before, after) = (
        f.before.as_deref().unwrap_or(""),
        f.after.as_deref().unwrap_or(""),
    );
    hunks(before, after)
        .into_iter()
        .filter(|h| h.after.1 > h.after.0)
        .map(|h| (h.after.0 + 1, h.after.1))
        .collect()
}

/// StrykerJS's configuration: the command runner running the pins (one after the other), the
/// changed functions mutated whole (and changed lines outside any function), the JSON report
/// written to `report`, a mutant's run a timeout past `timeout_s` seconds (the time bound of a
/// pin's run) beyond what the pins take unmutated.
pub fn stryker_config(
    files: &[&FileChange],
    pins: &[Vec<String>],
    report: &str,
    timeout_s: u64,
) -> String {
    let mutate: Vec<String> = files
        .iter()
        .flat_map(|f| {
            widened(f)
                .into_iter()
                .map(move |(a, b)| format!("{}:{a}-{b}", f.path))
        })
        .collect();
    let command = pins
        .iter()
        .map(shell_words::join)
        .collect::<Vec<_>>()
        .join(" && ");
    serde_json::json!({
        "testRunner": "command",
        "commandRunner": { "command": command },
        "mutate": mutate,
        "reporters": ["json"],
        "jsonReporter": { "fileName": report },
        "concurrency": 2,
        "timeoutMS": timeout_s.saturating_mul(1000),
        "cleanTempDir": "always",
        "incremental": false,
    })
    .to_string()
}

/// `pyproject.toml` with its `[tool.mutmut]` table set for the goal's change: the folders to
/// copy (`source_paths`), the files to mutate (`only_mutate`), the pins' pytest arguments
/// (`pytest_add_cli_args_test_selection`); the user's other keys kept. A file that does not
/// parse gets the table appended.
pub fn mutmut_pyproject(
    old: &str,
    sources: &[String],
    only: &[String],
    selection: &[String],
) -> String {
    let array = |items: &[String]| {
        let mut a = toml_edit::Array::new();
        items.iter().for_each(|i| a.push(i.as_str()));
        toml_edit::value(a)
    };
    let Ok(mut doc) = old.parse::<toml_edit::DocumentMut>() else {
        return format!(
            "{old}\n{}",
            mutmut_setup_cfg("", sources, only, selection).replace("[mutmut]", "[tool.mutmut]")
        );
    };
    let tool = doc.entry("tool").or_insert_with(|| {
        let mut t = toml_edit::Table::new();
        t.set_implicit(true);
        toml_edit::Item::Table(t)
    });
    if let Some(tool) = tool.as_table_like_mut() {
        let mutmut = tool
            .entry("mutmut")
            .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
        if let Some(t) = mutmut.as_table_like_mut() {
            t.insert("source_paths", array(sources));
            t.insert("only_mutate", array(only));
            t.insert("pytest_add_cli_args_test_selection", array(selection));
        }
    }
    doc.to_string()
}

/// `setup.cfg` with a `[mutmut]` section for the goal's change (any old one replaced).
pub fn mutmut_setup_cfg(
    old: &str,
    sources: &[String],
    only: &[String],
    selection: &[String],
) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in old.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            skipping = t == "[mutmut]";
        }
        if !skipping {
            out.push_str(line);
            out.push('\n');
        }
    }
    let list = |items: &[String]| {
        items
            .iter()
            .map(|i| format!("\n    {i}"))
            .collect::<String>()
    };
    out.push_str(&format!(
        "\n[mutmut]\nsource_paths ={}\nonly_mutate ={}\npytest_add_cli_args_test_selection ={}\n",
        list(sources),
        list(only),
        list(selection)
    ));
    out
}

/// mutmut's module name of a Python file: its path without `.py`, `src.` and `.__init__`.
pub fn python_module(path: &str) -> String {
    let stem = path.strip_suffix(".py").unwrap_or(path).replace('/', ".");
    let stem = stem.strip_prefix("src.").unwrap_or(&stem).to_string();
    stem.strip_suffix(".__init__").unwrap_or(&stem).to_string()
}

/// The functions (and methods, with their class) of the final Python text `after` that hold a
/// line the change added or changed: mutmut's mutant names for them (globs).
pub fn mutmut_names(f: &FileChange) -> Vec<String> {
    let after = f.after.as_deref().unwrap_or("");
    let lines: Vec<&str> = after.lines().collect();
    let module = python_module(&f.path);
    let mut names: Vec<String> = Vec::new();
    for (start, end) in changed_ranges(f) {
        for line in start..=end {
            if let Some(name) = enclosing_function(&lines, line - 1) {
                let glob = match name {
                    (None, func) => format!("{module}.x_{func}__mutmut_*"),
                    (Some(class), func) => format!("{module}.xǁ{class}ǁ{func}__mutmut_*"),
                };
                if !names.contains(&glob) {
                    names.push(glob);
                }
            }
        }
    }
    names
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The name after `def`/`async def`/`class` at the start of a trimmed line.
fn defined(trimmed: &str, keyword: &str) -> Option<String> {
    let rest = trimmed
        .strip_prefix("async ")
        .unwrap_or(trimmed)
        .strip_prefix(keyword)?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The function holding line `at` (0-based) of Python `lines`, by indentation: (its class, if
/// it is a method of a top-level class, its name); None for module-level code.
fn enclosing_function(lines: &[&str], at: usize) -> Option<(Option<String>, String)> {
    let mut limit = lines.get(at).map_or(usize::MAX, |l| {
        if l.trim().is_empty() {
            usize::MAX
        } else {
            indent(l) + 1
        }
    });
    let mut func: Option<(usize, String)> = None;
    for i in (0..=at.min(lines.len().saturating_sub(1))).rev() {
        let l = lines[i];
        if l.trim().is_empty() || indent(l) >= limit {
            continue;
        }
        let t = l.trim_start();
        if func.is_none()
            && let Some(name) = defined(t, "def ")
        {
            func = Some((indent(l), name));
        } else if let Some((_, name)) = &func
            && let Some(class) = defined(t, "class ")
        {
            return (indent(l) == 0).then(|| (Some(class), name.clone()));
        }
        limit = indent(l);
        if limit == 0 {
            break;
        }
    }
    let (at_indent, name) = func?;
    (at_indent == 0).then_some((None, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn pins_are_the_tools_own_runners() {
        let cases: &[(&str, Tool, bool)] = &[
            ("cargo test --locked", Tool::CargoMutants, true),
            ("cargo +nightly test", Tool::CargoMutants, true),
            ("cargo nextest run -E x", Tool::CargoMutants, true),
            ("cargo build", Tool::CargoMutants, false),
            ("make test", Tool::CargoMutants, false),
            ("pytest tests/test_a.py -q", Tool::Mutmut, true),
            ("python3 -m pytest", Tool::Mutmut, true),
            (".venv/bin/pytest", Tool::Mutmut, true),
            ("python -m unittest", Tool::Mutmut, false),
            ("npm test", Tool::Stryker, true),
            ("make check", Tool::Stryker, true),
        ];
        for (pin, tool, want) in cases {
            assert_eq!(tool.runs(&words(pin)), *want, "{pin}");
        }
    }

    #[test]
    fn cargo_mutants_gets_the_pins_arguments_when_they_agree() {
        let one = cargo_mutants_args(
            "^x$",
            &["src/lib.rs"],
            "o",
            &[words("cargo test --test t -- --exact a")],
            37,
        );
        let tail: Vec<&str> = one.iter().map(String::as_str).skip(13).collect();
        assert_eq!(tail, ["--", "--test", "t", "--", "--exact", "a"], "{one:?}");
        assert_eq!(
            one[1..6],
            ["mutants", "--re", "^x$", "--file", "src/lib.rs"],
            "{one:?}"
        );
        let two = cargo_mutants_args(
            "x",
            &[],
            "o",
            &[words("cargo test a"), words("cargo test b")],
            900,
        );
        assert!(!two.contains(&"--".to_string()), "{two:?}");
        let nextest = cargo_mutants_args("x", &[], "o", &[words("cargo nextest run")], 900);
        // Each mutant's tests get the time bound of a pin's run.
        assert!(one.windows(2).any(|w| w == ["--timeout", "37"]), "{one:?}");
        assert!(two.windows(2).any(|w| w == ["--timeout", "900"]), "{two:?}");
        assert!(nextest.windows(2).any(|w| w == ["--test-tool", "nextest"]));
        assert!(
            one.iter().any(|w| w == "--in-place") && one.iter().any(|w| w == "--baseline=skip")
        );
        assert_eq!(
            cargo_mutants_list_args(&["src/a.rs", "src/b.rs"]).join(" "),
            "cargo mutants --list --json --file src/a.rs --file src/b.rs"
        );
    }

    /// A guard added at the top of `add`, its old body kept: the mutants of the kept body are
    /// the goal's too; `mul`'s (unchanged) and another file's are not.
    #[test]
    fn cargo_mutants_runs_the_changed_functions_mutants_changed_lines_first() {
        let f = FileChange {
            path: "src/lib.rs".into(),
            before: Some("pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n".into()),
            after: Some("pub fn add(a: i32, b: i32) -> i32 {\n    if a == 2 {\n        return 4;\n    }\n    a - b\n}\n\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n".into()),
        };
        let json = serde_json::json!([
            {"name": "src/lib.rs:2:5: replace add -> i32 with 0", "file": "src/lib.rs",
             "span": {"start": {"line": 2, "column": 5}, "end": {"line": 5, "column": 10}}},
            {"name": "src/lib.rs:2:10: replace == with != in add", "file": "src/lib.rs",
             "span": {"start": {"line": 2, "column": 10}, "end": {"line": 2, "column": 12}}},
            {"name": "src/lib.rs:5:7: replace - with + in add", "file": "src/lib.rs",
             "span": {"start": {"line": 5, "column": 7}, "end": {"line": 5, "column": 8}}},
            {"name": "src/lib.rs:9:7: replace * with + in mul", "file": "src/lib.rs",
             "span": {"start": {"line": 9, "column": 7}, "end": {"line": 9, "column": 8}}},
            {"name": "src/other.rs:5:7: replace - with + in sub", "file": "src/other.rs",
             "span": {"start": {"line": 5, "column": 7}, "end": {"line": 5, "column": 8}}}
        ])
        .to_string();
        let listed = cargo_mutants_listed(&json).unwrap();
        assert_eq!(listed[2].lines, (5, 5));
        let (names, total) = cargo_mutants_selection(&listed, &[&f]);
        assert_eq!(total, 3);
        assert_eq!(
            names,
            [
                "src/lib.rs:2:5: replace add -> i32 with 0",
                "src/lib.rs:2:10: replace == with != in add",
                "src/lib.rs:5:7: replace - with + in add",
            ]
        );
        let re = regex::Regex::new(&examine_re(&names)).unwrap();
        assert!(re.is_match("src/lib.rs:5:7: replace - with + in add"));
        assert!(!re.is_match("src/lib.rs:5:7: replace - with / in add"));
        assert!(!re.is_match("xsrc/lib.rs:2:5: replace add -> i32 with 0"));
        assert!(cargo_mutants_listed("{}").is_err());
        // Past the cap: the changed lines' mutants all kept, the others sampled.
        let many: Vec<Listed> = (0..500)
            .map(|i| Listed {
                name: format!("m{i}"),
                file: "src/lib.rs".into(),
                lines: if i % 50 == 0 { (3, 3) } else { (5, 5) },
            })
            .collect();
        let (names, total) = cargo_mutants_selection(&many, &[&f]);
        assert_eq!((names.len(), total), (SAMPLE_MAX, 500));
        for i in (0..500).step_by(50) {
            assert!(names.contains(&format!("m{i}")), "m{i}");
        }
    }

    #[test]
    fn python_modules_and_the_functions_a_diff_touches() {
        let cases: &[(&str, &str)] = &[
            ("src/calc/__init__.py", "calc"),
            ("src/calc/ops.py", "calc.ops"),
            ("calc.py", "calc"),
            ("pkg/mod.py", "pkg.mod"),
        ];
        for (path, want) in cases {
            assert_eq!(python_module(path), *want, "{path}");
        }
        let f = FileChange {
            path: "src/calc/__init__.py".into(),
            before: Some("def add(a, b):\n    return a + b\n\n\nclass K:\n    def m(self):\n        return 1\n\nX = 1\n".into()),
            after: Some("def add(a, b):\n    return a - b\n\n\nclass K:\n    def m(self):\n        return 2\n\nX = 2\n".into()),
        };
        assert_eq!(
            mutmut_names(&f),
            ["calc.x_add__mutmut_*", "calc.xǁKǁm__mutmut_*"]
        );
    }

    #[test]
    fn mutmut_is_configured_in_pyproject_or_setup_cfg() {
        let (src, only, sel) = (
            vec!["src/".to_string()],
            vec!["src/calc/__init__.py".to_string()],
            vec!["tests/test_calc.py".to_string()],
        );
        let py = mutmut_pyproject(
            "[project]\nname = \"calc\"\n\n[tool.pytest.ini_options]\npythonpath = [\"src\"]\n",
            &src,
            &only,
            &sel,
        );
        assert!(
            py.contains("[tool.mutmut]\nsource_paths = [\"src/\"]"),
            "{py}"
        );
        assert!(py.contains("pythonpath = [\"src\"]"), "{py}");
        assert!(
            py.contains("pytest_add_cli_args_test_selection = [\"tests/test_calc.py\"]"),
            "{py}"
        );
        let cfg = mutmut_setup_cfg(
            "[metadata]\nname = x\n[mutmut]\nold = 1\n",
            &src,
            &only,
            &sel,
        );
        assert!(cfg.starts_with("[metadata]\nname = x\n"), "{cfg}");
        assert!(!cfg.contains("old = 1"), "{cfg}");
        assert!(
            cfg.contains("only_mutate =\n    src/calc/__init__.py\n"),
            "{cfg}"
        );
    }

    #[test]
    fn the_ranges_name_the_changed_lines_and_stryker_the_changed_functions() {
        let f = FileChange {
            path: "src/lib.rs".into(),
            before: Some("a\nb\nc\n".into()),
            after: Some("a\nB\nc\nd\n".into()),
        };
        assert_eq!(changed_ranges(&f), [(2, 2), (4, 4)]);
        let config = stryker_config(&[&f], &[words("npm test")], "/tmp/r.json", 37);
        assert!(config.contains("\"src/lib.rs:2-2\""), "{config}");
        assert!(config.contains("\"timeoutMS\":37000"), "{config}");
        assert!(config.contains("\"command\":\"npm test\""), "{config}");
        // Stryker mutates the changed functions whole.
        let js = FileChange {
            path: "src/calc.js".into(),
            before: Some("function add(a, b) {\n  return a - b;\n}\nfunction sub(a, b) {\n  return a - b;\n}\n".into()),
            after: Some("function add(a, b) {\n  if (a === 2) return 4;\n  return a - b;\n}\nfunction sub(a, b) {\n  return a - b;\n}\n".into()),
        };
        let config = stryker_config(&[&js], &[words("npm test")], "/tmp/r.json", 900);
        assert!(
            config.contains("\"mutate\":[\"src/calc.js:1-4\"]"),
            "{config}"
        );
    }
}
