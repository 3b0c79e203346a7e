//! Whether two versions of a file are the same code: equal once comments, docstrings (the first
//! string statement of a Python module, class or function) and whitespace are dropped. A change
//! of that kind is no change of code for `goal done`'s rule that a goal must change the code its
//! tests run. Languages without a parser here compare with whitespace dropped only.

use proc_macro2::{TokenStream, TokenTree};
use tree_sitter::Node;

use super::tree::{descendants, named, parse};
use super::{Language, squash};

/// Whether `a` and `b` (two versions of the file at `path`) are the same code.
pub fn same_code(path: &str, a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (code_tokens(path, a), code_tokens(path, b)) {
        (Some(x), Some(y)) => x == y,
        // A side that does not parse: only whitespace may differ.
        _ => squash(a) == squash(b),
    }
}

/// A file's code as tokens without comments and docstrings (None: it does not parse).
fn code_tokens(path: &str, src: &str) -> Option<Vec<String>> {
    let language = Language::of(path)?;
    let (lang, what): (tree_sitter::Language, &str) = match language {
        Language::Rust => return rust_tokens(src),
        Language::Python => (tree_sitter_python::LANGUAGE.into(), "Python"),
        Language::JavaScript => (tree_sitter_javascript::LANGUAGE.into(), "JavaScript"),
        Language::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            "TypeScript",
        ),
        Language::Tsx => (tree_sitter_typescript::LANGUAGE_TSX.into(), "TSX"),
        Language::Go => (tree_sitter_go::LANGUAGE.into(), "Go"),
    };
    let tree = parse(src, lang, what).ok()?;
    let root = tree.root_node();
    let docstrings: Vec<std::ops::Range<usize>> = if language == Language::Python {
        python_docstrings(root)
    } else {
        Vec::new()
    };
    Some(
        descendants(root)
            .into_iter()
            .filter(|n| n.child_count() == 0 && !n.kind().contains("comment"))
            .filter(|n| !docstrings.iter().any(|r| r.contains(&n.start_byte())))
            // Python's layout tokens (`_newline`, `_indent`) are empty: blank lines do not count.
            .filter(|n| n.start_byte() < n.end_byte())
            .map(|n| src.get(n.byte_range()).unwrap_or("").to_string())
            .collect(),
    )
}

/// The byte ranges of a Python file's docstrings: the first statement of the module and of each
/// class and function body, when it is a lone string.
fn python_docstrings(root: Node) -> Vec<std::ops::Range<usize>> {
    let mut bodies = vec![root];
    for n in descendants(root) {
        if matches!(n.kind(), "class_definition" | "function_definition")
            && let Some(body) = n.child_by_field_name("body")
        {
            bodies.push(body);
        }
    }
    bodies
        .into_iter()
        .filter_map(|body| {
            let first = named(body).into_iter().next()?;
            let only = named(first);
            (first.kind() == "expression_statement"
                && only.len() == 1
                && only[0].kind() == "string")
                .then(|| first.byte_range())
        })
        .collect()
}

/// A Rust file's tokens without comments and doc comments (`#[doc = …]`, `#![doc = …]`).
fn rust_tokens(src: &str) -> Option<Vec<String>> {
    let stream: TokenStream = src.parse().ok()?;
    let mut out = Vec::new();
    flatten(stream, &mut out);
    Some(out)
}

fn flatten(stream: TokenStream, out: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        // `#` (`!`) `[doc = "…"]`: a doc comment.
        let bang = matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
        let at = i + 1 + usize::from(bang);
        if matches!(&tokens[i], TokenTree::Punct(p) if p.as_char() == '#')
            && let Some(TokenTree::Group(g)) = tokens.get(at)
            && g.stream()
                .into_iter()
                .next()
                .is_some_and(|t| matches!(&t, TokenTree::Ident(id) if id == "doc"))
        {
            i = at + 1;
            continue;
        }
        match &tokens[i] {
            TokenTree::Group(g) => {
                out.push(format!("{:?}", g.delimiter()));
                flatten(g.stream(), out);
                out.push("end".into());
            }
            other => out.push(other.to_string()),
        }
        i += 1;
    }
}
