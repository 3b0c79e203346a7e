//! The structure of `src/`, read with `syn`: every top-level module has a rank and every arrow
//! between them points down the ranks (and never round a circle), only the command line calls the
//! commands, git is run only in `repo/`, printing happens only at the top, the agent names are
//! listed once, exit codes are compared nowhere but in the error module, files stay under 800
//! lines, and every module says what it is for. Each rule has a test that it can fail.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use syn::visit::Visit;

use crate::common::source::{files, is_cfg_test, is_test_file, is_test_item, src, top_module};

/// The longest a source file may be (test files and the tables named here aside).
const MAX_LINES: usize = 800;

/// The longest a function may be, from `fn` to its closing brace as rustfmt lays it out (nested
/// closures and items included), outside tests. There is no allow-list.
const MAX_FN_LINES: usize = 80;

/// Files that may be longer: pure tables with their tests.
const LONG_TABLES: &[&str] = &[];

/// What one file's non-test code names: the `crate::<module>` it uses, where it calls
/// `.exit_code()`, runs git (the CLI or git2), prints, and lists agent names.
#[derive(Default, Clone)]
struct Uses {
    modules: BTreeSet<String>,
    exit_code_calls: usize,
    /// Lines that run the git CLI (`Command::new("git")`) or name git2.
    git: Vec<usize>,
    /// Lines that print (`print!`, `println!`, `eprint!`, `eprintln!`, `io::stdout`, `io::stderr`).
    prints: Vec<usize>,
    /// Lines of an array literal holding three or more agent preset names.
    agent_lists: Vec<usize>,
}

/// The agent preset names, read from the presets table itself.
fn preset_names() -> Vec<String> {
    let text = std::fs::read_to_string(src().join("runner/presets.rs")).unwrap();
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("name: \""))
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The line a syntax node starts on.
fn line_of(span: proc_macro2::Span) -> usize {
    span.start().line
}

impl<'ast> Visit<'ast> for Uses {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if !is_test_item(item) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if names.first().is_some_and(|n| n == "git2") {
            self.git.push(line_of(path.segments[0].ident.span()));
        }
        if let [.., io, stream] = names.as_slice()
            && io == "io"
            && (stream == "stdout" || stream == "stderr")
        {
            self.prints.push(line_of(path.segments[0].ident.span()));
        }
        let mut segments = path.segments.iter();
        if segments.next().is_some_and(|s| s.ident == "crate")
            && let Some(next) = segments.next()
        {
            self.modules.insert(next.ident.to_string());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        fn names(tree: &syn::UseTree, out: &mut BTreeSet<String>) {
            match tree {
                syn::UseTree::Name(n) => {
                    out.insert(n.ident.to_string());
                }
                syn::UseTree::Rename(r) => {
                    out.insert(r.ident.to_string());
                }
                syn::UseTree::Path(p) => {
                    out.insert(p.ident.to_string());
                }
                syn::UseTree::Group(g) => g.items.iter().for_each(|t| names(t, out)),
                syn::UseTree::Glob(_) => {}
            }
        }
        if let syn::UseTree::Path(p) = &item.tree
            && p.ident == "crate"
        {
            names(&p.tree, &mut self.modules);
        }
        if let syn::UseTree::Path(p) = &item.tree
            && p.ident == "git2"
        {
            self.git.push(line_of(p.ident.span()));
        }
        if use_names_io_stream(&item.tree, false) {
            self.prints.push(line_of(item.use_token.span));
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(name) = mac.path.segments.last()
            && ["print", "println", "eprint", "eprintln"].contains(&name.ident.to_string().as_str())
        {
            self.prints.push(line_of(name.ident.span()));
        }
        syn::visit::visit_macro(self, mac);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(func) = &*call.func
            && func.path.segments.last().is_some_and(|s| s.ident == "new")
            && func.path.segments.iter().any(|s| s.ident == "Command")
            && let Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(program),
                ..
            })) = call.args.first()
            && program.value() == "git"
        {
            self.git.push(line_of(program.span()));
        }
        syn::visit::visit_expr_call(self, call);
    }

    /// An attribute's arguments (`#[arg(value_parser = …)]`) are read as code too.
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        use syn::punctuated::Punctuated;
        if let syn::Meta::List(_) = &attr.meta
            && let Ok(args) =
                attr.parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
        {
            for arg in &args {
                self.visit_meta(arg);
            }
        }
        syn::visit::visit_attribute(self, attr);
    }

    fn visit_expr_array(&mut self, array: &'ast syn::ExprArray) {
        let presets = preset_names();
        let named = array
            .elems
            .iter()
            .filter(|e| {
                matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) if presets.contains(&s.value()))
            })
            .count();
        if named >= 3 {
            self.agent_lists
                .push(line_of(array.bracket_token.span.open()));
        }
        syn::visit::visit_expr_array(self, array);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        if call.method == "exit_code" {
            self.exit_code_calls += 1;
        }
        syn::visit::visit_expr_method_call(self, call);
    }
}

/// Whether a `use` tree brings in `io::stdout`/`io::stderr` (`use std::io::{stderr, …}`).
fn use_names_io_stream(tree: &syn::UseTree, after_io: bool) -> bool {
    match tree {
        syn::UseTree::Path(p) => use_names_io_stream(&p.tree, p.ident == "io"),
        syn::UseTree::Name(n) => after_io && (n.ident == "stdout" || n.ident == "stderr"),
        syn::UseTree::Rename(r) => after_io && (r.ident == "stdout" || r.ident == "stderr"),
        syn::UseTree::Group(g) => g.items.iter().any(|t| use_names_io_stream(t, after_io)),
        syn::UseTree::Glob(_) => false,
    }
}

/// What one file's non-test code uses.
fn uses_of(rel: &str, text: &str) -> Uses {
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let mut uses = Uses::default();
    uses.visit_file(&file);
    uses
}

/// Per file: what it uses (src/ parsed once for all the tests of this file).
fn uses() -> Vec<(String, Uses)> {
    static USES: std::sync::OnceLock<Vec<(String, Uses)>> = std::sync::OnceLock::new();
    USES.get_or_init(|| {
        files()
            .into_iter()
            .filter(|(rel, _)| !is_test_file(rel))
            .map(|(rel, text)| {
                let uses = uses_of(&rel, &text);
                (rel, uses)
            })
            .collect()
    })
    .clone()
}

/// The arrows between top-level modules, with one file that draws each.
fn graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let modules: BTreeSet<String> = files().iter().map(|(rel, _)| top_module(rel)).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (rel, uses) in uses() {
        let from = top_module(&rel);
        if from == "lib" || from == "main" {
            continue;
        }
        let edges = graph.entry(from.clone()).or_default();
        for to in uses.modules {
            if to != from && modules.contains(&to) {
                edges.entry(to).or_insert_with(|| rel.clone());
            }
        }
    }
    graph
}

/// The strongly connected components of more than one module (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn connect<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        if let Some(edges) = s.graph.get(v) {
            for w in edges.keys() {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    connect(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.stack.contains(&w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.out.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            connect(&mut s, v);
        }
    }
    s.out
}

#[test]
fn no_circle_among_the_modules() {
    let graph = graph();
    let found = circles(&graph);
    let explain: Vec<String> = found
        .iter()
        .map(|c| {
            let arrows: Vec<String> = c
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|(to, _)| c.contains(to))
                        .map(move |(to, file)| format!("{from} → {to} ({file})"))
                })
                .collect();
            arrows.join(", ")
        })
        .collect();
    assert!(found.is_empty(), "circles: {explain:#?}");
}

#[test]
fn the_circle_finder_finds_a_circle() {
    // The rule above must be able to fail: a → b → c → a is one circle, d hangs off it.
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        graph
            .entry(from.into())
            .or_default()
            .insert(to.into(), String::new());
    }
    assert_eq!(circles(&graph), vec![vec!["a", "b", "c"]]);
}

#[test]
fn only_the_command_line_calls_the_commands() {
    let callers: Vec<String> = uses()
        .into_iter()
        .filter(|(rel, u)| {
            u.modules.contains("commands")
                && !rel.starts_with("commands/")
                && rel != "cli.rs"
                && rel != "lib.rs"
        })
        .map(|(rel, _)| rel)
        .collect();
    assert!(callers.is_empty(), "use crate::commands: {callers:?}");
}

#[test]
fn exit_codes_are_read_only_by_the_error_module_and_lib() {
    let readers: Vec<String> = uses()
        .into_iter()
        .filter(|(rel, u)| u.exit_code_calls > 0 && rel != "error.rs" && rel != "lib.rs")
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        readers.is_empty(),
        ".exit_code() outside error.rs and lib.rs: {readers:?}"
    );
}

#[test]
fn no_source_file_is_over_800_lines() {
    let long: Vec<String> = files()
        .into_iter()
        .filter(|(rel, _)| !is_test_file(rel) && !LONG_TABLES.contains(&rel.as_str()))
        .filter_map(|(rel, text)| {
            let lines = text.lines().count();
            (lines > MAX_LINES).then(|| format!("{rel}: {lines}"))
        })
        .collect();
    assert!(long.is_empty(), "over {MAX_LINES} lines: {long:?}");
}

/// The functions of one file's non-test code longer than [`MAX_FN_LINES`], as `name: lines`
/// (methods as `Type::name`), longest first.
fn long_functions(rel: &str, text: &str) -> Vec<(String, usize)> {
    #[derive(Default)]
    struct Lengths {
        owner: Vec<String>,
        found: Vec<(String, usize)>,
    }
    impl Lengths {
        fn measure(&mut self, name: &syn::Ident, from: proc_macro2::Span, to: proc_macro2::Span) {
            let lines = to.end().line - from.start().line + 1;
            if lines > MAX_FN_LINES {
                let name = match self.owner.last() {
                    Some(owner) => format!("{owner}::{name}"),
                    None => name.to_string(),
                };
                self.found.push((name, lines));
            }
        }
    }
    impl<'ast> Visit<'ast> for Lengths {
        fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
            if !is_cfg_test(&m.attrs) {
                syn::visit::visit_item_mod(self, m);
            }
        }
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            if is_cfg_test(&f.attrs) {
                return;
            }
            let close = f.block.brace_token.span.close();
            self.measure(&f.sig.ident, f.sig.fn_token.span, close);
            syn::visit::visit_item_fn(self, f);
        }
        fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
            if is_cfg_test(&i.attrs) {
                return;
            }
            let ty = &i.self_ty;
            self.owner
                .push(quote::quote!(#ty).to_string().replace(' ', ""));
            syn::visit::visit_item_impl(self, i);
            self.owner.pop();
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            if is_cfg_test(&f.attrs) {
                return;
            }
            let close = f.block.brace_token.span.close();
            self.measure(&f.sig.ident, f.sig.fn_token.span, close);
            syn::visit::visit_impl_item_fn(self, f);
        }
        fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
            if let Some(block) = &f.default {
                let close = block.brace_token.span.close();
                self.measure(&f.sig.ident, f.sig.fn_token.span, close);
            }
            syn::visit::visit_trait_item_fn(self, f);
        }
    }
    let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let mut lengths = Lengths::default();
    lengths.visit_file(&file);
    lengths.found.sort_by_key(|f| std::cmp::Reverse(f.1));
    lengths.found
}

#[test]
fn no_function_is_over_80_lines() {
    let mut long: Vec<(usize, String)> = files()
        .into_iter()
        .filter(|(rel, _)| !is_test_file(rel))
        .flat_map(|(rel, text)| {
            long_functions(&rel, &text)
                .into_iter()
                .map(move |(name, lines)| (lines, format!("{rel}: {name} {lines}")))
        })
        .collect();
    long.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let long: Vec<String> = long.into_iter().map(|(_, line)| line).collect();
    assert!(
        long.is_empty(),
        "{} functions over {MAX_FN_LINES} lines (split them into steps): {long:#?}",
        long.len()
    );
}

#[test]
fn the_function_check_finds_a_long_function_a_long_method_and_skips_tests() {
    let body = |n: usize| "    let _ = 1;\n".repeat(n);
    let text = format!(
        "fn short() {{\n{}}}\nfn long() {{\n{}}}\nstruct S;\nimpl S {{\n    fn long_method(&self) {{\n{}    }}\n}}\n\
         trait T {{\n    fn provided(&self) {{\n{}    }}\n}}\n\
         #[cfg(test)]\nmod tests {{\n    fn long_test() {{\n{}    }}\n}}\n",
        body(78),
        body(79),
        body(90),
        body(81),
        body(200),
    );
    assert_eq!(
        long_functions("ops/fake.rs", &text),
        [
            ("S::long_method".to_string(), 92),
            ("provided".to_string(), 83),
            ("long".to_string(), 81),
        ]
    );
}

#[test]
fn every_module_says_what_it_is_for() {
    let undocumented: Vec<String> = files()
        .into_iter()
        .filter(|(rel, text)| !is_test_file(rel) && !text.starts_with("//!"))
        .map(|(rel, _)| rel)
        .collect();
    assert!(undocumented.is_empty(), "no `//!` line: {undocumented:?}");
    // lib.rs gives each top-level module its one line too.
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let lines: Vec<&str> = lib.lines().collect();
    let bare: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("pub mod "))
        .filter(|(i, _)| *i == 0 || !lines[i - 1].starts_with("///"))
        .map(|(_, l)| *l)
        .collect();
    assert!(
        bare.is_empty(),
        "lib.rs lists modules without a doc line: {bare:?}"
    );
}

/// The ranks, bottom up: every top-level module has one, and an arrow may point only to a module
/// of its own rank (never round a circle: the test above) or of a rank below.
pub(crate) const RANKS: &[(&str, &[&str])] = &[
    (
        "pure rules",
        &[
            "deslop",
            "detect",
            "evidence",
            "goal_file",
            "hosts",
            "jsonc",
            "junit",
            "lint",
            "material",
            "mutants",
            "naming",
            "pin",
            "retry",
            "stagnation",
            "summary",
            "test_names",
            "usage",
        ],
    ),
    (
        "the system: errors, processes, the terminal, git",
        &[
            "ask",
            "child",
            "claude_hooks",
            "context",
            "error",
            "fault",
            "person",
            "repo",
            "self_path",
            "trailers",
        ],
    ),
    (
        "a goal's state: files, settings, the gate, the red trees, proof",
        &[
            "config",
            "gate",
            "proof",
            "store",
            "surface",
            "texts",
            "user_hooks",
        ],
    ),
    ("the workspace", &["workspace"]),
    (
        "goals read back and committed",
        &[
            "audit",
            "door",
            "fleet",
            "history",
            "merge_driver",
            "recheck",
        ],
    ),
    ("operations", &["ops"]),
    ("what the commands print: reports and pages", &["render"]),
    (
        "goal run, goal mcp, and the workflow that races it",
        &["mcp", "runner", "workflow"],
    ),
    ("commands", &["commands"]),
    ("the command line", &["cli"]),
];

fn rank_of(module: &str) -> Option<usize> {
    RANKS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

/// The arrows that point up the ranks, and the modules without a rank.
fn arrows_up(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<String> {
    let mut wrong = Vec::new();
    for (from, edges) in graph {
        let Some(from_rank) = rank_of(from) else {
            wrong.push(format!("{from} has no rank in RANKS"));
            continue;
        };
        for (to, file) in edges {
            match rank_of(to) {
                None => wrong.push(format!("{to} has no rank in RANKS")),
                Some(to_rank) if to_rank > from_rank => wrong.push(format!(
                    "{from} ({}) → {to} ({}) in {file}",
                    RANKS[from_rank].0, RANKS[to_rank].0
                )),
                Some(_) => {}
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    wrong
}

#[test]
fn every_module_has_a_rank_and_every_arrow_points_down() {
    let mut graph = graph();
    for (rel, _) in files().into_iter().filter(|(rel, _)| !is_test_file(rel)) {
        graph.entry(top_module(&rel)).or_default();
    }
    graph.remove("lib");
    graph.remove("main");
    let wrong = arrows_up(&graph);
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_rank_check_finds_an_arrow_up_and_a_module_without_a_rank() {
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (from, to) in [("repo", "ops"), ("ops", "repo"), ("newmod", "repo")] {
        graph
            .entry(from.into())
            .or_default()
            .insert(to.into(), format!("{from}.rs"));
    }
    assert_eq!(
        arrows_up(&graph),
        [
            "newmod has no rank in RANKS",
            "repo (the system: errors, processes, the terminal, git) → ops (operations) in repo.rs",
        ]
    );
}

/// Files, lines and what they do, for one rule over every file's uses.
fn offenders(pick: impl Fn(&str, &Uses) -> Vec<usize>) -> Vec<String> {
    uses()
        .into_iter()
        .flat_map(|(rel, u)| {
            pick(&rel, &u)
                .into_iter()
                .map(move |line| format!("{rel}:{line}"))
        })
        .collect()
}

/// git (the CLI and git2) is used only in `repo/` and by error.rs's conversion.
fn git_lines(rel: &str, u: &Uses) -> Vec<usize> {
    if rel == "repo.rs" || rel.starts_with("repo/") || rel == "error.rs" {
        return Vec::new();
    }
    u.git.clone()
}

/// Printing happens only in the commands, the command line, lib.rs, main.rs and the context.
fn print_lines(rel: &str, u: &Uses) -> Vec<usize> {
    let top = rel.starts_with("commands/")
        || ["cli.rs", "lib.rs", "main.rs", "context.rs"].contains(&rel);
    if top { Vec::new() } else { u.prints.clone() }
}

/// The agent names are listed only in the presets table.
fn agent_list_lines(rel: &str, u: &Uses) -> Vec<usize> {
    if rel == "runner/presets.rs" {
        return Vec::new();
    }
    u.agent_lists.clone()
}

#[test]
fn git_runs_only_in_repo() {
    let found = offenders(git_lines);
    assert!(found.is_empty(), "git outside repo/: {found:#?}");
}

#[test]
fn printing_happens_only_in_commands_and_the_context() {
    let found = offenders(print_lines);
    assert!(
        found.is_empty(),
        "printing below the commands (say it through Ctx or crate::context): {found:#?}"
    );
}

#[test]
fn the_agent_names_are_listed_only_in_the_presets_table() {
    let found = offenders(agent_list_lines);
    assert!(
        found.is_empty(),
        "a second list of agent names (read runner::presets::PRESETS): {found:#?}"
    );
}

#[test]
fn the_git_print_and_agent_list_checks_each_find_one() {
    let text = r#"
use std::io::{self, stderr};
fn f() {
    let _ = std::process::Command::new("git").arg("status").status();
    let _ = git2::Repository::open(".");
    eprintln!("hello");
    let _ = std::io::stdout();
    let _ = ["claude", "codex", "gemini"];
    let _ = ["claude", "codex"];
}
#[derive(clap::Args)]
struct A {
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(["pi", "aider", "qwen"]))]
    agent: String,
}
#[cfg(test)]
mod tests {
    fn g() { println!("only in tests"); }
}
"#;
    let u = uses_of("ops/fake.rs", text);
    assert_eq!(git_lines("ops/fake.rs", &u), [4, 5]);
    assert_eq!(print_lines("ops/fake.rs", &u), [2, 6, 7]);
    assert_eq!(agent_list_lines("ops/fake.rs", &u), [8, 13]);
    assert!(git_lines("repo/fake.rs", &u).is_empty());
    assert!(print_lines("commands/fake.rs", &u).is_empty());
}

/// The test files, under tests/ (support code in tests/common/) and src/'s `*_tests.rs`, as
/// (path from the crate root, lines).
fn test_files() -> Vec<(String, usize)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["tests", "tests/common"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((rel, std::fs::read_to_string(&path).unwrap().lines().count()));
            }
        }
    }
    for (rel, text) in files() {
        if is_test_file(&rel) {
            out.push((format!("src/{rel}"), text.lines().count()));
        }
    }
    out.sort();
    out
}

#[test]
fn no_test_file_is_over_800_lines() {
    let long: Vec<String> = test_files()
        .into_iter()
        .filter(|(_, lines)| *lines > MAX_LINES)
        .map(|(rel, lines)| format!("{rel}: {lines}"))
        .collect();
    assert!(
        long.is_empty(),
        "test files over {MAX_LINES} lines: {long:?}"
    );
    // The stand-in APIs live under tests/fixtures/agents/<cli>/, nothing of theirs at the top.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let stray: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.join("fake_api.py").exists())
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        stray.is_empty(),
        "stand-in APIs outside tests/fixtures/agents/: {stray:?}"
    );
}
