//! The identifiers the goal renamed in the code, so that a test or an assertion that only follows
//! a renamed API is not taken for a removed test or a weakened assertion.
//!
//! The rule, kept simple: per code file (not a test file) the goal changed, the names it defines
//! (functions, methods, classes, types, fields, enum variants, constants) are listed in source
//! order on the base and at the end. A name defined on the base and not at the end is paired with
//! a name defined at the end and not on the base, of the same kind, in the same file, when their
//! bodies are equal (the name aside), else when they follow the same kept definition (the same
//! place). Each pair maps the new name back to the old one.

use std::collections::BTreeMap;

use tree_sitter::Node;

use super::tree::{descendants, parse, text};
use super::{FileChange, Language};

/// One definition of a code file: its kind, its name and its body's tokens without the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Def {
    pub kind: &'static str,
    pub name: String,
    pub body: String,
}

/// New name → the base's name, for the identifiers the goal renamed in the code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Renames(pub BTreeMap<String, String>);

impl Renames {
    /// The renames of a goal's changes to code files (files that do not parse rename nothing).
    pub fn of(code: &[FileChange]) -> Renames {
        let mut out = Renames::default();
        for change in code {
            let (Some(base), Some(last)) = (&change.base, &change.last) else {
                continue;
            };
            let Some(language) = Language::of(&change.path) else {
                continue;
            };
            let (Ok(b), Ok(l)) = (defs(language, base), defs(language, last)) else {
                continue;
            };
            for (new, old) in pair(&b, &l) {
                out.0.entry(new).or_insert(old);
            }
        }
        out
    }

    /// `text` with each renamed identifier (a whole word) mapped back to its base name.
    pub fn back(&self, text: &str) -> String {
        if self.0.is_empty() {
            return text.to_string();
        }
        map_words(text, &|w| self.0.get(w).cloned())
    }
}

/// `text` with each whole word (letters, digits, `_`) that `f` maps replaced.
pub fn map_words(text: &str, f: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            match f(word) {
                Some(to) => out.push_str(&to),
                None => out.push_str(word),
            }
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The renamed pairs (new, old) between a file's base and final definitions.
pub fn pair(base: &[Def], last: &[Def]) -> Vec<(String, String)> {
    let has = |defs: &[Def], d: &Def| defs.iter().any(|x| x.kind == d.kind && x.name == d.name);
    let gone: Vec<usize> = (0..base.len()).filter(|&i| !has(last, &base[i])).collect();
    let mut new: Vec<usize> = (0..last.len()).filter(|&i| !has(base, &last[i])).collect();
    let prev = |defs: &[Def], i: usize| i.checked_sub(1).map(|p| defs[p].name.clone());
    let mut out: Vec<(String, String)> = Vec::new();
    for g in gone {
        let old = &base[g];
        let by_body = new
            .iter()
            .position(|&n| last[n].kind == old.kind && last[n].body == old.body);
        // The same place: after the same definition (itself perhaps renamed just before).
        let back = |name: Option<String>| {
            name.map(|n| {
                out.iter()
                    .find(|(new, _)| *new == n)
                    .map_or(n, |(_, old)| old.clone())
            })
        };
        let by_place = || {
            new.iter()
                .position(|&n| last[n].kind == old.kind && back(prev(last, n)) == prev(base, g))
        };
        if let Some(at) = by_body.or_else(by_place) {
            let n = new.remove(at);
            out.push((last[n].name.clone(), old.name.clone()));
        }
    }
    out
}

/// The definitions of a code file, in source order.
pub fn defs(language: Language, src: &str) -> Result<Vec<Def>, String> {
    let (lang, what): (tree_sitter::Language, &str) = match language {
        Language::Rust => return super::super::rust::definitions(src).map_err(|e| e.to_string()),
        Language::Python => (tree_sitter_python::LANGUAGE.into(), "Python"),
        Language::JavaScript => (tree_sitter_javascript::LANGUAGE.into(), "JavaScript"),
        Language::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            "TypeScript",
        ),
        Language::Tsx => (tree_sitter_typescript::LANGUAGE_TSX.into(), "TSX"),
        Language::Go => (tree_sitter_go::LANGUAGE.into(), "Go"),
    };
    let tree = parse(src, lang, what)?;
    let mut out = Vec::new();
    for node in descendants(tree.root_node()) {
        let Some(kind) = def_kind(node.kind()) else {
            continue;
        };
        let Some(name) = node
            .child_by_field_name("name")
            .or_else(|| node.child_by_field_name("property"))
        else {
            continue;
        };
        out.push(Def {
            kind,
            name: text(name, src).to_string(),
            body: tokens_except(node, name, src),
        });
    }
    Ok(out)
}

/// The kind of definition a tree-sitter node kind is (functions, methods, classes and types,
/// fields), across the Python, JavaScript/TypeScript and Go grammars.
fn def_kind(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "function_definition" | "function_declaration" | "generator_function_declaration" => "fn",
        "method_definition" | "method_declaration" | "method_signature" => "method",
        "class_definition"
        | "class_declaration"
        | "interface_declaration"
        | "type_spec"
        | "type_alias_declaration"
        | "enum_declaration" => "type",
        "field_definition"
        | "public_field_definition"
        | "property_signature"
        | "field_declaration" => "field",
        _ => return None,
    })
}

/// The leaf tokens of `node` but those of `skip`, without comments, joined by spaces.
fn tokens_except(node: Node, skip: Node, src: &str) -> String {
    descendants(node)
        .into_iter()
        .filter(|n| n.child_count() == 0 && !n.kind().contains("comment"))
        .filter(|n| !(skip.start_byte() <= n.start_byte() && n.end_byte() <= skip.end_byte()))
        .map(|n| text(n, src))
        .collect::<Vec<_>>()
        .join(" ")
}
