//! `selection-changed`: test configuration that selects, deselects or filters tests, compared
//! between the base and the final version of each configuration file.

use std::collections::BTreeMap;

use super::super::PartialConfig;
use super::super::test_config::{json_get, package_json_keys, test_rules, toml_get};
use super::tree::{descendants, named, parse, text};
use super::{Finding, FindingKind};

/// pytest options that choose which tests run (`addopts` is compared by its selecting arguments).
const PYTEST_KEYS: &[&str] = &[
    "addopts",
    "testpaths",
    "python_files",
    "python_classes",
    "python_functions",
    "norecursedirs",
    "collect_ignore",
    "xfail_strict",
    "minversion",
];

/// jest, vitest and mocha configuration keys that choose which tests run.
const JS_KEYS: &[&str] = &[
    "testPathIgnorePatterns",
    "testMatch",
    "testRegex",
    "testNamePattern",
    "roots",
    "modulePathIgnorePatterns",
    "projects",
    "include",
    "exclude",
    "dir",
    "spec",
    "grep",
    "fgrep",
    "invert",
    "ignore",
    "extension",
    "file",
];

/// The line of the first line of `text` that starts (after indentation and quotes) with `key`.
fn line_of(text: Option<&str>, key: &str) -> usize {
    text.and_then(|t| {
        t.lines().position(|l| {
            let l = l.trim_start().trim_start_matches(['"', '\'']);
            l.strip_prefix(key).is_some_and(|rest| {
                let rest = rest.trim_start_matches(['"', '\'']).trim_start();
                rest.starts_with('=') || rest.starts_with(':') || rest.is_empty()
            })
        })
    })
    .map_or(1, |i| i + 1)
}

fn selection(path: &str, key: &str, base: Option<&str>, last: Option<&str>) -> Finding {
    let short = key.rsplit('.').next().unwrap_or(key);
    // A TOML table (`[[test]]`) is found by its header, a key by its name.
    let header = |text: Option<&str>| {
        text.and_then(|t| {
            t.lines().position(|l| {
                let l = l.trim();
                l == format!("[[{key}]]") || l == format!("[{key}]")
            })
        })
    };
    if let Some(i) = header(last).or_else(|| header(base)) {
        return Finding {
            kind: FindingKind::SelectionChanged,
            file: path.to_string(),
            line: i + 1,
            test: key.to_string(),
        };
    }
    let line = match last {
        Some(_) if line_of(last, short) > 1 || base.is_none() => line_of(last, short),
        _ => line_of(base, short),
    };
    Finding {
        kind: FindingKind::SelectionChanged,
        file: path.to_string(),
        line,
        test: key.to_string(),
    }
}

/// pytest options that take a value and only change what is reported or how tests run, not
/// which run (`--tb short`, `-W error`, `-n 4`, `--cov src`): their value is no path.
const REPORTING_WITH_VALUE: &[&str] = &[
    "-r",
    "--tb",
    "--color",
    "--code-highlight",
    "--show-capture",
    "--capture",
    "--verbosity",
    "-W",
    "--pythonwarnings",
    "--junitxml",
    "--junit-xml",
    "--junit-prefix",
    "--html",
    "--result-log",
    "--durations",
    "--durations-min",
    "--basetemp",
    "--log-level",
    "--log-format",
    "--log-date-format",
    "--log-cli-level",
    "--log-cli-format",
    "--log-cli-date-format",
    "--log-file",
    "--log-file-level",
    "--log-file-format",
    "--log-file-date-format",
    "-n",
    "--numprocesses",
    "--dist",
    "--cov",
    "--cov-report",
    "--cov-config",
    "--cov-fail-under",
    "--timeout",
    "--reruns",
    "--reruns-delay",
];

/// Plugins whose disabling (`-p no:NAME`) changes no test selection: caches, output, warnings,
/// coverage, ordering. (`no:doctest`, `no:unittest`, `no:python`, … do deselect.)
const HARMLESS_TO_DISABLE: &[&str] = &[
    "cacheprovider",
    "warnings",
    "faulthandler",
    "pastebin",
    "junitxml",
    "logging",
    "legacypath",
    "stepwise",
    "randomly",
    "random_order",
    "cov",
    "sugar",
    "html",
    "metadata",
    "timeout",
    "xdist",
    "rerunfailures",
];

/// The arguments of an `addopts` value that choose tests: `-k`/`-m`/`--deselect`/`--ignore…`/
/// `-p PLUGIN`/`-o`/`--lf`/`-x`/`--maxfail`/… with their values, and bare paths; sorted, so
/// reordering is no change. Reporting options (`-ra`, `-q`, `--tb short`, `-W error`, …) and
/// disabling a harmless plugin (`-p no:cacheprovider`) are not chosen.
pub(super) fn addopts_selection(value: &str) -> Vec<String> {
    let words = shell_words::split(value)
        .unwrap_or_else(|_| value.split_whitespace().map(str::to_string).collect());
    let mut out = Vec::new();
    let mut words = words.into_iter();
    while let Some(word) = words.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (word.clone(), None),
        };
        if REPORTING_WITH_VALUE.contains(&flag.as_str()) {
            if inline.is_none() {
                words.next();
            }
            continue;
        }
        // `-p NAME` / `-pNAME`: loading a plugin may deselect; disabling a harmless one does not.
        if let Some(attached) = flag.strip_prefix("-p")
            && !flag.starts_with("--")
        {
            out.extend(plugin_choice(attached, &mut words));
            continue;
        }
        if selects(&flag) {
            let value = if takes_value(&flag) && inline.is_none() {
                words.next()
            } else {
                inline
            };
            out.push(
                format!("{flag} {}", value.unwrap_or_default())
                    .trim()
                    .to_string(),
            );
        } else if !word.starts_with('-') {
            out.push(word);
        }
    }
    out.sort();
    out
}

/// What a `-p` chooses (`-p NAME`, the plugin attached as in `-pNAME` or else the next word):
/// None when it disables a harmless plugin (`-p no:cacheprovider`).
fn plugin_choice(attached: &str, words: &mut impl Iterator<Item = String>) -> Option<String> {
    let plugin = if attached.is_empty() {
        words.next().unwrap_or_default()
    } else {
        attached.to_string()
    };
    if plugin
        .strip_prefix("no:")
        .is_some_and(|p| HARMLESS_TO_DISABLE.contains(&p))
    {
        return None;
    }
    Some(format!("-p {plugin}").trim().to_string())
}

/// Whether a pytest flag that chooses tests takes the next word as its value (`-k mul`).
fn takes_value(flag: &str) -> bool {
    matches!(
        flag,
        "-k" | "-m"
            | "--deselect"
            | "--ignore"
            | "--ignore-glob"
            | "--rootdir"
            | "--confcutdir"
            | "-c"
            | "-o"
            | "--override-ini"
            | "--maxfail"
    )
}

/// Whether a pytest flag chooses which tests run or how many (`-k`, `--lf`, `-x`, `-omarkers`, …).
fn selects(flag: &str) -> bool {
    takes_value(flag)
        || matches!(
            flag,
            "--lf"
                | "--last-failed"
                | "--ff"
                | "--sw"
                | "--stepwise"
                | "--nf"
                | "--co"
                | "--collect-only"
                | "-x"
                | "--exitfirst"
                | "--runxfail"
        )
        || flag.starts_with("-k")
        || flag.starts_with("-m")
        || flag.starts_with("-o")
        || flag.starts_with("--maxfail")
}

/// What a pytest key's value chooses, as compared between base and end: None for an `addopts`
/// that chooses nothing (reporting options only), the same as no `addopts` at all.
fn pytest_value(key: &str, value: &str) -> Option<String> {
    if key == "addopts" {
        let chosen = addopts_selection(value);
        (!chosen.is_empty()).then(|| chosen.join("\n"))
    } else {
        Some(value.split_whitespace().collect::<Vec<_>>().join(" "))
    }
}

/// A TOML value as plain text: strings bare, arrays of strings space-joined.
fn toml_text(item: &toml_edit::Item) -> String {
    if let Some(s) = item.as_str() {
        return s.to_string();
    }
    if let Some(a) = item.as_array() {
        return a
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(" ");
    }
    item.to_string().trim().to_string()
}

/// Selection changes in a partially-test configuration file.
pub(super) fn partial(
    kind: PartialConfig,
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
    out: &mut Vec<Finding>,
) -> Result<(), String> {
    match kind {
        PartialConfig::Pyproject | PartialConfig::CargoToml => {
            toml_changes(kind, path, base, last, out)
        }
        PartialConfig::PackageJson => package_json(path, base, last, out),
        PartialConfig::Makefile | PartialConfig::Justfile => {
            rules(path, base, last, out);
            Ok(())
        }
    }
}

/// A TOML file's document, an absent file an empty one; Err says why it does not parse.
fn toml_doc(t: Option<&str>) -> Result<toml_edit::DocumentMut, String> {
    t.unwrap_or("")
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("not valid TOML: {}", e.to_string().trim()))
}

/// The keys that choose tests in pyproject.toml (pytest's options, under
/// `tool.pytest.ini_options` or `tool.pytest`) or Cargo.toml (test targets, the library's test,
/// harness and doctest, autotests): each as its path and the name its value compares by.
fn toml_selecting_keys(kind: PartialConfig) -> Vec<(Vec<&'static str>, String)> {
    if kind == PartialConfig::Pyproject {
        PYTEST_KEYS
            .iter()
            .flat_map(|k| {
                [
                    (vec!["tool", "pytest", "ini_options", *k], (*k).to_string()),
                    (vec!["tool", "pytest", *k], (*k).to_string()),
                ]
            })
            .collect()
    } else {
        [
            vec!["test"],
            vec!["lib", "test"],
            vec!["lib", "harness"],
            vec!["lib", "doctest"],
            vec!["package", "autotests"],
        ]
        .into_iter()
        .map(|p| (p.clone(), p.join(".")))
        .collect()
    }
}

/// pyproject.toml's or Cargo.toml's selecting keys whose values (what they choose) changed.
fn toml_changes(
    kind: PartialConfig,
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
    out: &mut Vec<Finding>,
) -> Result<(), String> {
    let (b, l) = (toml_doc(base)?, toml_doc(last)?);
    for (key_path, short) in toml_selecting_keys(kind) {
        let value = |d: &toml_edit::DocumentMut| {
            toml_get(d, &key_path).and_then(|i| pytest_value(&short, &toml_text(i)))
        };
        if value(&b) != value(&l) {
            out.push(selection(path, &key_path.join("."), base, last));
        }
    }
    Ok(())
}

/// A package.json's value, an absent or blank file null; Err says why it does not parse.
pub(super) fn json_doc(t: Option<&str>) -> Result<serde_json::Value, String> {
    match t {
        Some(t) if !t.trim().is_empty() => {
            serde_json::from_str(t).map_err(|e| format!("not valid JSON: {e}"))
        }
        _ => Ok(serde_json::Value::Null),
    }
}

/// package.json's changed scripts, then its changed jest keys.
fn package_json(
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
    out: &mut Vec<Finding>,
) -> Result<(), String> {
    let (b, l) = (json_doc(base)?, json_doc(last)?);
    for key in package_json_keys(&b, &l)
        .iter()
        .filter(|k| k[0] == "scripts")
    {
        let key: Vec<&str> = key.iter().map(String::as_str).collect();
        if json_get(&b, &key) != json_get(&l, &key) {
            out.push(selection(path, &key.join("."), base, last));
        }
    }
    for key in JS_KEYS {
        if json_get(&b, &["jest", key]) != json_get(&l, &["jest", key]) {
            out.push(selection(path, &format!("jest.{key}"), base, last));
        }
    }
    Ok(())
}

fn rules(path: &str, base: Option<&str>, last: Option<&str>, out: &mut Vec<Finding>) {
    let read = |t: Option<&str>| -> BTreeMap<String, (String, usize)> {
        let t = t.unwrap_or("");
        test_rules(t)
            .into_iter()
            .map(|r| (r.name, (t[r.range].trim_end().to_string(), r.line)))
            .collect()
    };
    let (b, l) = (read(base), read(last));
    for name in b.keys().chain(l.keys().filter(|k| !b.contains_key(*k))) {
        match (b.get(name), l.get(name)) {
            (Some(x), Some(y)) if x.0 == y.0 => {}
            (_, Some((_, line))) | (Some((_, line)), None) => out.push(Finding {
                kind: FindingKind::SelectionChanged,
                file: path.to_string(),
                line: *line,
                test: name.clone(),
            }),
            (None, None) => {}
        }
    }
}

/// An INI file's `section.key` values (continuation lines joined), for pytest.ini, tox.ini and
/// setup.cfg.
pub(super) fn ini(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut section = String::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(key) = &current
                && let Some(v) = out.get_mut(key)
            {
                let v: &mut String = v;
                v.push(' ');
                v.push_str(trimmed);
            }
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            section = name.trim().to_string();
            current = None;
            continue;
        }
        if let Some((k, v)) = trimmed.split_once(['=', ':']) {
            let key = format!("{section}.{}", k.trim());
            out.insert(key.clone(), v.trim().to_string());
            current = Some(key);
        }
    }
    out
}

/// Selection changes in a whole test-configuration file (`pytest.ini`, `tox.ini`, `setup.cfg`,
/// `jest.config.*`, `vitest.config.*`, `.mocharc.*`, `.cargo/config.toml`).
pub(super) fn whole(
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
    out: &mut Vec<Finding>,
) -> Result<(), String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if matches!(name, "pytest.ini" | "tox.ini" | "setup.cfg") {
        ini_changes(path, base, last, out);
        return Ok(());
    }
    if path.ends_with(".cargo/config.toml") || path.ends_with(".cargo/config") {
        return cargo_aliases(path, base, last, out);
    }
    let ext = name.rsplit('.').next().unwrap_or("");
    let Some(values) = reader(ext) else {
        return Ok(());
    };
    let (b, l) = (values(base)?, values(last)?);
    for key in changed(&b, &l) {
        out.push(selection(path, key, base, last));
    }
    Ok(())
}

/// The keys whose values differ between `b` and `l`: `b`'s in order, then those only `l` has.
fn changed<'a>(
    b: &'a BTreeMap<String, String>,
    l: &'a BTreeMap<String, String>,
) -> Vec<&'a String> {
    b.keys()
        .chain(l.keys().filter(|k| !b.contains_key(*k)))
        .filter(|k| b.get(*k) != l.get(*k))
        .collect()
}

/// Whether an INI file's `section.key` chooses tests: a pytest option under `[pytest]` or
/// `[tool:pytest]`, or a tox environment's `commands`.
fn ini_chooses(key: &str) -> bool {
    let (section, k) = key.split_once('.').unwrap_or(("", key));
    (matches!(section, "pytest" | "tool:pytest") && PYTEST_KEYS.contains(&k))
        || (section.starts_with("testenv") && k == "commands")
}

/// pytest.ini's, tox.ini's or setup.cfg's keys that choose tests whose values (what they
/// choose) changed, each named once.
fn ini_changes(path: &str, base: Option<&str>, last: Option<&str>, out: &mut Vec<Finding>) {
    let (b, l) = (ini(base.unwrap_or("")), ini(last.unwrap_or("")));
    for key in b.keys().chain(l.keys()).filter(|k| ini_chooses(k)) {
        let short = key.split_once('.').map_or(key.as_str(), |(_, k)| k);
        let value = |m: &BTreeMap<String, String>| m.get(key).and_then(|v| pytest_value(short, v));
        if value(&b) != value(&l) && !out.iter().any(|f| f.file == path && &f.test == key) {
            out.push(selection(path, key, base, last));
        }
    }
}

/// `.cargo/config.toml`'s changed aliases (`alias.t`), which may run the tests with filters.
fn cargo_aliases(
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
    out: &mut Vec<Finding>,
) -> Result<(), String> {
    let (b, l) = (toml_doc(base)?, toml_doc(last)?);
    let aliases = |d: &toml_edit::DocumentMut| -> BTreeMap<String, String> {
        toml_get(d, &["alias"])
            .and_then(|a| a.as_table_like())
            .map(|t| {
                t.iter()
                    .map(|(k, v)| (k.to_string(), toml_text(v)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (ab, al) = (aliases(&b), aliases(&l));
    for key in changed(&ab, &al) {
        out.push(selection(path, &format!("alias.{key}"), base, last));
    }
    Ok(())
}

/// Reads one configuration file's selecting keys and their values.
type Reader = Box<dyn Fn(Option<&str>) -> Result<BTreeMap<String, String>, String>>;

/// The reader of a JSON, YAML or JavaScript/TypeScript configuration file by its extension;
/// None for another file, which chooses nothing.
fn reader(ext: &str) -> Option<Reader> {
    match ext {
        "json" | "jsonc" => Some(Box::new(json_keys)),
        "yml" | "yaml" => Some(Box::new(yaml_keys)),
        "js" | "cjs" | "mjs" | "ts" | "mts" | "cts" => {
            let language: tree_sitter::Language = if ext.ends_with("ts") {
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
            } else {
                tree_sitter_javascript::LANGUAGE.into()
            };
            Some(Box::new(move |t: Option<&str>| js_keys(&language, t)))
        }
        _ => None,
    }
}

/// A JSON configuration's top-level selecting keys, each with its value as JSON.
fn json_keys(t: Option<&str>) -> Result<BTreeMap<String, String>, String> {
    let Some(t) = t else {
        return Ok(BTreeMap::new());
    };
    let v: serde_json::Value =
        serde_json::from_str(t).map_err(|e| format!("not valid JSON: {e}"))?;
    Ok(JS_KEYS
        .iter()
        .filter_map(|k| v.get(k).map(|x| (k.to_string(), x.to_string())))
        .collect())
}

/// A YAML configuration's top-level selecting keys, each with its value as YAML.
fn yaml_keys(t: Option<&str>) -> Result<BTreeMap<String, String>, String> {
    let Some(t) = t else {
        return Ok(BTreeMap::new());
    };
    let v: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(t).map_err(|e| format!("not valid YAML: {e}"))?;
    Ok(JS_KEYS
        .iter()
        .filter_map(|k| {
            v.get(k).map(|x| {
                (
                    k.to_string(),
                    serde_yaml_ng::to_string(x).unwrap_or_default(),
                )
            })
        })
        .collect())
}

/// A JavaScript configuration's selecting keys, at any depth, each with its values' text
/// without whitespace (a key set twice: both values, in order).
fn js_keys(
    language: &tree_sitter::Language,
    t: Option<&str>,
) -> Result<BTreeMap<String, String>, String> {
    let Some(t) = t else {
        return Ok(BTreeMap::new());
    };
    let tree = parse(t, language.clone(), "JavaScript")?;
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    for node in descendants(tree.root_node()) {
        if node.kind() == "pair"
            && let (Some(k), Some(v)) = (
                node.child_by_field_name("key"),
                node.child_by_field_name("value"),
            )
        {
            let key = text(k, t).trim_matches(['"', '\'']);
            if JS_KEYS.contains(&key) {
                let entry = found.entry(key.to_string()).or_default();
                entry.push_str(&text(v, t).split_whitespace().collect::<String>());
            }
        }
    }
    Ok(found)
}

/// conftest.py: the module-level names and hooks that change what pytest collects.
pub(super) fn conftest(path: &str, base: Option<&str>, last: Option<&str>, out: &mut Vec<Finding>) {
    const NAMES: &[&str] = &[
        "collect_ignore",
        "collect_ignore_glob",
        "pytestmark",
        "pytest_collection_modifyitems",
        "pytest_ignore_collect",
        "pytest_collect_file",
        "pytest_deselected",
        "pytest_runtest_setup",
        "pytest_generate_tests",
    ];
    let read = |t: Option<&str>| -> BTreeMap<String, (String, usize)> {
        let Some(t) = t else { return BTreeMap::new() };
        let Ok(tree) = parse(t, tree_sitter_python::LANGUAGE.into(), "Python") else {
            return BTreeMap::new();
        };
        let mut found = BTreeMap::new();
        for stmt in named(tree.root_node()) {
            let def = if stmt.kind() == "decorated_definition" {
                stmt.child_by_field_name("definition").unwrap_or(stmt)
            } else {
                stmt
            };
            let name = match def.kind() {
                "function_definition" => def.child_by_field_name("name").map(|n| text(n, t)),
                "expression_statement" => named(def)
                    .first()
                    .filter(|a| a.kind() == "assignment" || a.kind() == "augmented_assignment")
                    .and_then(|a| a.child_by_field_name("left"))
                    .map(|n| text(n, t)),
                _ => None,
            };
            if let Some(name) = name.filter(|n| NAMES.contains(n)) {
                let entry = found
                    .entry(name.to_string())
                    .or_insert((String::new(), super::tree::line(stmt)));
                entry
                    .0
                    .push_str(&text(stmt, t).split_whitespace().collect::<String>());
            }
        }
        found
    };
    let (b, l) = (read(base), read(last));
    for name in b.keys().chain(l.keys().filter(|k| !b.contains_key(*k))) {
        match (b.get(name), l.get(name)) {
            (Some(x), Some(y)) if x.0 == y.0 => {}
            (_, Some((_, line))) | (Some((_, line)), None) => out.push(Finding {
                kind: FindingKind::SelectionChanged,
                file: path.to_string(),
                line: *line,
                test: name.clone(),
            }),
            (None, None) => {}
        }
    }
}
