//! Test configuration spliced from the working file into the base file: the `[tool.pytest…]`
//! tables of pyproject.toml, package.json's `test*` scripts and `jest` key, Cargo.toml's `[[test]]`,
//! `[lib] test` and `harness`, and Makefile/justfile rules of targets named `test*`. TOML is edited
//! with `toml_edit` (the base's formatting kept), JSON keeps its key order.

use std::ops::Range;

use toml_edit::{DocumentMut, Item, Table};

use super::PartialConfig;

/// A configuration file that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file} does not parse: {message}")]
pub struct ConfigError {
    /// `pyproject.toml`, `package.json`, `Cargo.toml`.
    pub file: &'static str,
    pub message: String,
}

/// The TOML paths that are test configuration in a file of `kind` (empty for non-TOML kinds).
pub fn toml_paths(kind: PartialConfig) -> &'static [&'static [&'static str]] {
    match kind {
        PartialConfig::Pyproject => &[&["tool", "pytest"]],
        PartialConfig::CargoToml => &[&["test"], &["lib", "test"], &["lib", "harness"]],
        _ => &[],
    }
}

/// `base` with the test configuration of `work` in place of its own (a key the working file lacks
/// is removed from the base). Everything else in `base` keeps its bytes (TOML, rules) or its key
/// order (package.json). With `base` empty it is the test configuration of `work` alone.
pub fn splice(kind: PartialConfig, base: &str, work: &str) -> Result<String, ConfigError> {
    match kind {
        PartialConfig::Pyproject => splice_toml("pyproject.toml", toml_paths(kind), base, work),
        PartialConfig::CargoToml => splice_toml("Cargo.toml", toml_paths(kind), base, work),
        PartialConfig::PackageJson => splice_package_json(base, work),
        PartialConfig::Makefile | PartialConfig::Justfile => Ok(splice_rules(base, work)),
    }
}

fn parse_toml(file: &'static str, text: &str) -> Result<DocumentMut, ConfigError> {
    text.parse::<DocumentMut>().map_err(|e| ConfigError {
        file,
        message: e.to_string().trim().to_string(),
    })
}

/// The item at `path` of a TOML document, if there is one.
pub fn toml_get<'a>(doc: &'a DocumentMut, path: &[&str]) -> Option<&'a Item> {
    let mut item = doc.as_item();
    for key in path {
        item = item.as_table_like()?.get(key)?;
    }
    Some(item)
}

fn toml_set(doc: &mut DocumentMut, path: &[&str], value: Option<Item>) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut table = doc.as_table_mut() as &mut dyn toml_edit::TableLike;
    for key in parents {
        if table.get(key).is_none() {
            if value.is_none() {
                return;
            }
            let mut implicit = Table::new();
            implicit.set_implicit(true);
            table.insert(key, Item::Table(implicit));
        }
        let Some(next) = table.get_mut(key).and_then(|i| i.as_table_like_mut()) else {
            return;
        };
        table = next;
    }
    match value {
        Some(value) => {
            table.insert(last, value);
        }
        None => {
            table.remove(last);
        }
    }
}

fn splice_toml(
    file: &'static str,
    paths: &[&[&str]],
    base: &str,
    work: &str,
) -> Result<String, ConfigError> {
    let mut base_doc = parse_toml(file, base)?;
    let before = base_doc.to_string();
    let work_doc = parse_toml(file, work)?;
    for path in paths {
        let theirs = toml_get(&work_doc, path).cloned();
        if theirs.is_none() && toml_get(&base_doc, path).is_none() {
            continue;
        }
        toml_set(&mut base_doc, path, theirs);
    }
    let after = base_doc.to_string();
    if after == before {
        return Ok(base.to_string());
    }
    if base.trim().is_empty() {
        // The test configuration alone: no blank line before its first table.
        return Ok(after.trim_start().to_string());
    }
    Ok(after)
}

/// The `package.json` keys that are test configuration: every `scripts.test*` script
/// (`test`, `test:unit`, `testonly`) that `base` or `work` defines, and `jest`.
pub fn package_json_keys(base: &serde_json::Value, work: &serde_json::Value) -> Vec<Vec<String>> {
    let mut keys: Vec<Vec<String>> = Vec::new();
    for doc in [base, work] {
        let Some(scripts) = doc.get("scripts").and_then(|s| s.as_object()) else {
            continue;
        };
        for name in scripts.keys().filter(|k| k.starts_with("test")) {
            let key = vec!["scripts".to_string(), name.clone()];
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys.push(vec!["jest".to_string()]);
    keys
}

fn parse_json(text: &str) -> Result<serde_json::Value, ConfigError> {
    if text.trim().is_empty() {
        return Ok(serde_json::Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|e| ConfigError {
        file: "package.json",
        message: e.to_string(),
    })
}

/// The value at `path` of a JSON document.
pub fn json_get<'a>(value: &'a serde_json::Value, path: &[&str]) -> Option<&'a serde_json::Value> {
    path.iter().try_fold(value, |v, k| v.get(k))
}

fn json_set(value: &mut serde_json::Value, path: &[&str], new: Option<serde_json::Value>) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let Some(map) = value.as_object_mut() else {
        return;
    };
    if rest.is_empty() {
        match new {
            Some(v) => {
                map.insert(first.to_string(), v);
            }
            None => {
                map.shift_remove(*first);
            }
        }
        return;
    }
    if new.is_none() && !map.contains_key(*first) {
        return;
    }
    let child = map
        .entry(first.to_string())
        .or_insert_with(|| serde_json::Value::Object(Default::default()));
    json_set(child, rest, new);
}

fn splice_package_json(base: &str, work: &str) -> Result<String, ConfigError> {
    let mut base_value = parse_json(base)?;
    let work_value = parse_json(work)?;
    let mut changed = false;
    for key in package_json_keys(&base_value, &work_value) {
        let path: Vec<&str> = key.iter().map(String::as_str).collect();
        let theirs = json_get(&work_value, &path).cloned();
        if json_get(&base_value, &path) == theirs.as_ref() {
            continue;
        }
        changed = true;
        json_set(&mut base_value, &path, theirs);
    }
    if !changed {
        return Ok(base.to_string());
    }
    // Indent as the base does (two spaces when it does not say).
    let indent: String = base
        .lines()
        .nth(1)
        .map(|l| l.chars().take_while(|c| *c == ' ' || *c == '\t').collect())
        .filter(|s: &String| !s.is_empty())
        .unwrap_or_else(|| "  ".to_string());
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    serde::Serialize::serialize(&base_value, &mut serializer).map_err(|e| ConfigError {
        file: "package.json",
        message: e.to_string(),
    })?;
    let mut text = String::from_utf8_lossy(&out).into_owned();
    if base.ends_with('\n') || base.trim().is_empty() {
        text.push('\n');
    }
    Ok(text)
}

/// A Makefile or justfile rule of a target named `test*`: its name, its bytes (header and recipe
/// lines) and the 1-based line of its header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRule {
    pub name: String,
    pub range: Range<usize>,
    pub line: usize,
}

/// The name a rule header line declares (`test:`, `test-unit: build`, `@test *args:`), if the line
/// is one (not a `test := …` variable, not indented, not a comment).
fn rule_name(line: &str) -> Option<&str> {
    let trimmed = line.strip_prefix('@').unwrap_or(line);
    let end = trimmed
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '%' | '/')))
        .unwrap_or(trimmed.len());
    let name = &trimmed[..end];
    let colon = trimmed.find(':')?;
    let before = &trimmed[..colon];
    if name.is_empty() || before.contains('=') || trimmed[colon + 1..].starts_with('=') {
        return None;
    }
    Some(name)
}

/// The rules of targets named `test*` in a Makefile or justfile, in order.
pub fn test_rules(text: &str) -> Vec<TestRule> {
    let mut lines = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        lines.push((at, line));
        at += line.len();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (start, line) = lines[i];
        let header = !line.starts_with([' ', '\t', '#']) && !line.trim().is_empty();
        match rule_name(line).filter(|n| header && n.starts_with("test")) {
            Some(name) => {
                let mut end = start + line.len();
                let mut j = i + 1;
                // The recipe: indented lines, blank lines between them.
                let mut k = j;
                while k < lines.len() {
                    let (s, l) = lines[k];
                    if l.starts_with([' ', '\t']) && !l.trim().is_empty() {
                        end = s + l.len();
                        j = k + 1;
                    } else if !l.trim().is_empty() {
                        break;
                    }
                    k += 1;
                }
                out.push(TestRule {
                    name: name.to_string(),
                    range: start..end,
                    line: i + 1,
                });
                i = j;
            }
            None => i += 1,
        }
    }
    out
}

fn splice_rules(base: &str, work: &str) -> String {
    let ours = test_rules(base);
    let theirs = test_rules(work);
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for rule in &ours {
        let replacement = theirs
            .iter()
            .find(|t| t.name == rule.name)
            .map(|t| work[t.range.clone()].to_string())
            .unwrap_or_default();
        edits.push((rule.range.clone(), replacement));
    }
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    let mut out = base.to_string();
    for (range, text) in edits {
        out.replace_range(range, &text);
    }
    for rule in theirs
        .iter()
        .filter(|t| !ours.iter().any(|o| o.name == t.name))
    {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(&work[rule.range.clone()]);
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
