//! Whole functions under mutation: the lines of each function the goal changed (Rust `fn`,
//! Python `def`, JavaScript and TypeScript functions, methods and arrow functions, Go `func`),
//! so that code the change kept but bypasses under test is mutated too; and which of the
//! mutants of those functions run: those on changed lines first, then the rest of the changed
//! functions sampled evenly, at most [`SAMPLE_MAX`] in all. Pure.

use syn::spanned::Spanned;
use tree_sitter::{Language, Node, Parser};

use super::hunks::FileChange;
use super::tools::changed_ranges;

/// The most mutants run per check: past it, a sample.
pub const SAMPLE_MAX: usize = 200;

/// A 1-based, inclusive line range.
pub type Lines = (usize, usize);

/// The line ranges of the outermost functions of `text` (a file at `path`; its language by the
/// end of its name): a function nested in another (a closure, a callback) is part of the outer
/// one. Empty for another language, or a text that does not parse.
pub fn extents(path: &str, text: &str) -> Vec<Lines> {
    let lower = path.to_ascii_lowercase();
    let ends = |es: &[&str]| es.iter().any(|e| lower.ends_with(e));
    let (language, kinds): (Language, &[&str]) = if ends(&[".rs"]) {
        return rust_extents(text);
    } else if ends(&[".py", ".pyi"]) {
        (tree_sitter_python::LANGUAGE.into(), PYTHON)
    } else if ends(&[".js", ".mjs", ".cjs", ".jsx"]) {
        (tree_sitter_javascript::LANGUAGE.into(), JS)
    } else if ends(&[".tsx"]) {
        (tree_sitter_typescript::LANGUAGE_TSX.into(), JS)
    } else if ends(&[".ts", ".mts", ".cts"]) {
        (tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), JS)
    } else if ends(&[".go"]) {
        (tree_sitter_go::LANGUAGE.into(), GO)
    } else {
        return Vec::new();
    };
    let mut parser = Parser::new();
    if parser.set_language(&language).is_err() {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else {
        return Vec::new();
    };
    if tree.root_node().has_error() {
        return Vec::new();
    }
    let mut out = Vec::new();
    outermost(tree.root_node(), kinds, &mut out);
    out
}

const PYTHON: &[&str] = &["function_definition"];
const JS: &[&str] = &[
    "function_declaration",
    "function_expression",
    "function",
    "generator_function_declaration",
    "generator_function",
    "arrow_function",
    "method_definition",
];
const GO: &[&str] = &["function_declaration", "method_declaration", "func_literal"];

fn outermost(node: Node, kinds: &[&str], out: &mut Vec<Lines>) {
    if kinds.contains(&node.kind()) {
        out.push((node.start_position().row + 1, node.end_position().row + 1));
        return;
    }
    let mut cursor = node.walk();
    for kid in node.children(&mut cursor) {
        outermost(kid, kinds, out);
    }
}

/// Rust's functions with a body: free functions, methods, trait methods with a default body,
/// in modules and impls at any depth; their attributes included.
fn rust_extents(text: &str) -> Vec<Lines> {
    struct Fns(Vec<Lines>);
    impl Fns {
        fn add(&mut self, span: proc_macro2::Span) {
            self.0.push((span.start().line, span.end().line));
        }
    }
    impl<'ast> syn::visit::Visit<'ast> for Fns {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.add(f.span());
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.add(f.span());
        }
        fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
            if f.default.is_some() {
                self.add(f.span());
            }
        }
    }
    let Ok(file) = syn::parse_file(text) else {
        return Vec::new();
    };
    let mut fns = Fns(Vec::new());
    syn::visit::Visit::visit_file(&mut fns, &file);
    fns.0
}

/// The lines of the final side a change's mutants cover: its changed lines and the whole of
/// each function holding one, merged and in order.
pub fn widened(f: &FileChange) -> Vec<Lines> {
    let changed = changed_ranges(f);
    let after = f.after.as_deref().unwrap_or("");
    let mut out: Vec<Lines> = changed.clone();
    out.extend(
        extents(&f.path, after)
            .into_iter()
            .filter(|e| changed.iter().any(|c| overlaps(*c, *e))),
    );
    merge(out)
}

/// Whether two line ranges share a line.
pub fn overlaps(a: Lines, b: Lines) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

/// Whether `range` shares a line with one of `ranges`.
pub fn within(range: Lines, ranges: &[Lines]) -> bool {
    ranges.iter().any(|r| overlaps(range, *r))
}

fn merge(mut ranges: Vec<Lines>) -> Vec<Lines> {
    ranges.sort();
    let mut out: Vec<Lines> = Vec::new();
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.0 <= last.1 + 1 => last.1 = last.1.max(r.1),
            _ => out.push(r),
        }
    }
    out
}

/// `k` of the positions `0..n`, evenly spaced (the middle of each of `k` equal parts); all of
/// them when `k >= n`.
pub fn evenly(n: usize, k: usize) -> Vec<usize> {
    if k >= n {
        return (0..n).collect();
    }
    (0..k).map(|i| (2 * i + 1) * n / (2 * k)).collect()
}

/// Which of the mutants of the changed functions run, by position in `on_changed_line` (one
/// flag a mutant: whether it is on a changed line): those on changed lines first, then the
/// others evenly spaced, at most `max` in all (when the changed lines alone have more, `max` of
/// them evenly spaced).
pub fn sample(on_changed_line: &[bool], max: usize) -> Vec<usize> {
    let (first, rest): (Vec<usize>, Vec<usize>) =
        (0..on_changed_line.len()).partition(|&i| on_changed_line[i]);
    let mut out: Vec<usize> = evenly(first.len(), max)
        .into_iter()
        .map(|i| first[i])
        .collect();
    let room = max - out.len();
    out.extend(evenly(rest.len(), room).into_iter().map(|i| rest[i]));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_s_functions_are_found_outermost() {
        let cases: &[(&str, &str, &[Lines])] = &[
            (
                "src/lib.rs",
                "use x;\n\npub fn a() -> i32 {\n    let f = |x| x + 1;\n    f(1)\n}\n\nimpl S {\n    #[inline]\n    fn m(&self) {\n        fn inner() {}\n    }\n}\n\ntrait T {\n    fn d(&self) -> u8 {\n        1\n    }\n    fn r(&self);\n}\n",
                &[(3, 6), (9, 12), (16, 18)],
            ),
            (
                "calc/__init__.py",
                "X = 1\n\n\ndef add(a, b):\n    def inner():\n        return 1\n    return a + b\n\n\nclass K:\n    async def m(self):\n        return 2\n",
                &[(4, 7), (11, 12)],
            ),
            (
                "src/calc.js",
                "const k = 1;\nfunction add(a, b) {\n  return [a].map((x) => x + b)[0];\n}\nconst sub = (a, b) =>\n  a - b;\nclass K {\n  m() {\n    return 1;\n  }\n}\nmodule.exports = { add, f: function () { return 2; } };\n",
                &[(2, 4), (5, 6), (8, 10), (12, 12)],
            ),
            (
                "src/calc.ts",
                "export function add(a: number, b: number): number {\n  return a + b;\n}\nexport const neg = (a: number): number => -a;\n",
                &[(1, 3), (4, 4)],
            ),
            (
                "src/view.tsx",
                "export const V = (p: { n: number }) => <b>{p.n}</b>;\n",
                &[(1, 1)],
            ),
            (
                "calc.go",
                "package calc\n\nfunc Add(a, b int) int {\n\tf := func() int { return b }\n\treturn a + f()\n}\n\nfunc (k K) M() int {\n\treturn 1\n}\n",
                &[(3, 6), (8, 10)],
            ),
            ("README.md", "fn a() {}\n", &[]),
            ("src/broken.rs", "fn a( {\n", &[]),
            ("broken.py", "def a(:\n", &[]),
        ];
        for (path, text, want) in cases {
            assert_eq!(extents(path, text), *want, "{path}");
        }
    }

    #[test]
    fn a_change_widens_to_the_functions_holding_it() {
        let change = |path: &str, before: &str, after: &str| FileChange {
            path: path.into(),
            before: Some(before.into()),
            after: Some(after.into()),
        };
        let cases: &[(FileChange, &[Lines])] = &[
            // A guard added at the top of a function kept whole: the function, not the guard.
            (
                change(
                    "src/lib.rs",
                    "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n",
                    "pub fn add(a: i32, b: i32) -> i32 {\n    if a == 2 {\n        return 4;\n    }\n    a - b\n}\n\npub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n",
                ),
                &[(1, 6)],
            ),
            (
                change(
                    "calc.py",
                    "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
                    "def add(a, b):\n    if a == 2:\n        return 4\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
                ),
                &[(1, 4)],
            ),
            (
                change(
                    "src/calc.js",
                    "const add = (a, b) => {\n  return a - b;\n};\nconst k = 1;\n",
                    "const add = (a, b) => {\n  if (a === 2) return 4;\n  return a - b;\n};\nconst k = 2;\n",
                ),
                &[(1, 5)],
            ),
            // A change outside any function stays its lines; two functions changed: both.
            (
                change(
                    "calc.go",
                    "package calc\n\nconst K = 1\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 2\n}\n\nfunc C() int {\n\treturn 3\n}\n",
                    "package calc\n\nconst K = 2\n\nfunc A() int {\n\treturn 1\n}\n\nfunc B() int {\n\treturn 20\n}\n\nfunc C() int {\n\treturn 30\n}\n",
                ),
                &[(3, 3), (9, 11), (13, 15)],
            ),
            // A text that does not parse: the changed lines alone.
            (
                change("src/x.rs", "fn a() {\n", "fn a() {\n  1\n"),
                &[(2, 2)],
            ),
        ];
        for (f, want) in cases {
            assert_eq!(widened(f), *want, "{}", f.path);
        }
    }

    #[test]
    fn samples_are_even_and_changed_lines_come_first() {
        let cases: &[(usize, usize, &[usize])] = &[
            (5, 10, &[0, 1, 2, 3, 4]),
            (10, 5, &[1, 3, 5, 7, 9]),
            (10, 1, &[5]),
            (3, 0, &[]),
            (0, 4, &[]),
            (7, 3, &[1, 3, 5]),
        ];
        for (n, k, want) in cases {
            assert_eq!(evenly(*n, *k), *want, "{n} {k}");
        }
        let flags = |s: &str| s.chars().map(|c| c == 'c').collect::<Vec<_>>();
        let cases: &[(&str, usize, &[usize])] = &[
            // Under the cap: all, changed lines first.
            ("rcrrc", 200, &[1, 4, 0, 2, 3]),
            // Over it: the changed lines kept, the rest evenly spaced.
            ("rrrrrrcc", 4, &[6, 7, 1, 4]),
            // The changed lines alone over it: evenly spaced among them.
            ("ccccrr", 2, &[1, 3]),
            ("", 200, &[]),
        ];
        for (s, max, want) in cases {
            assert_eq!(sample(&flags(s), *max), *want, "{s} {max}");
        }
        // The cap holds over many mutants, and the spread reaches both ends.
        let many: Vec<bool> = (0..1000).map(|i| i % 100 == 0).collect();
        let picked = sample(&many, SAMPLE_MAX);
        assert_eq!(picked.len(), SAMPLE_MAX);
        assert_eq!(
            &picked[..10],
            &[0, 100, 200, 300, 400, 500, 600, 700, 800, 900]
        );
        let rest = &picked[10..];
        assert!(rest.windows(2).all(|w| w[0] < w[1]), "{rest:?}");
        assert!(
            *rest.first().unwrap() < 10 && *rest.last().unwrap() > 990,
            "{rest:?}"
        );
    }
}
