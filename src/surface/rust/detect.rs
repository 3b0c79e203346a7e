//! Rust code that behaves differently under a test runner, for `test-detected` and `test-aware`.
//!
//! The signals are found by category, after following names, not by spelling:
//!
//! - build-time configuration that differs under test: `cfg!(test)`, and `cfg!(debug_assertions)`
//!   (the test profile builds with debug assertions, a release build without: code that chooses
//!   on them is tested in one build and shipped in another, so they count as a test switch);
//!   `env!`/`option_env!` of what cargo sets only when building tests (`CARGO_TARGET_TMPDIR`,
//!   `CARGO_BIN_EXE_*`); in a build script (a file printing `cargo:` lines), the profile it is
//!   built for (`PROFILE`, `OPT_LEVEL`, `DEBUG`, `CARGO_CFG_DEBUG_ASSERTIONS`);
//! - state the runner sets, read at run time: `std::env::var`/`var_os` of `RUST_TEST_*`,
//!   `NEXTEST*`, goal's own `GOAL_*` (its pin runs remove them), and what cargo sets when it runs
//!   a test but an installed program never sees (`CARGO`, `CARGO_MANIFEST_DIR`, `CARGO_PKG_*`,
//!   `CARGO_CRATE_NAME`, …), also as a name `std::env::vars()` is searched for; libtest's own
//!   flags (`--nocapture`, `--test-threads`, `--exact`, …) looked for in `std::env::args()`;
//! - code only compiled under test that changes what the code does: a `cfg`/`cfg_attr` naming
//!   `test` (or `debug_assertions`) on an item, statement or expression of code (a `cfg_attr`
//!   only when it sets a module's `path`, a `cfg` or a symbol's name, not a derive), and an item
//!   only compiled under test (`#[cfg(test)] fn`, `static`, `use`, an inherent `impl`'s methods)
//!   that code outside the tests names;
//! - once inspected (compared, searched, matched against a literal): the thread
//!   (`std::thread::current()`, which libtest names after the test), the program's name and place
//!   (`std::env::current_exe()`, `args().next()`, `args[0]`, `std::env::current_dir()`,
//!   `temp_dir()`, `PWD`, `env!("CARGO_MANIFEST_DIR")`, `file!()`), the host (`HOSTNAME`,
//!   `gethostname()`, `hostname::get()`); and a relative path probed for existence
//!   (`Path::new("tests/data").exists()`, `fs::metadata("Cargo.toml")`), which asks what the
//!   working directory is. A path read to be used (`current_dir()?.join("out")`) is no signal.
//!
//! Names are followed to a fixed point: `use` aliases (`use std::env as e`, `use
//! std::env::current_exe as me`), `let` bindings in order (a shadowing binding replaces the old
//! one), assignments, `if let`/`match`/`for` bindings, closure parameters over the receiver's
//! items (`args().any(|a| a == "--nocapture")`), `const`/`static` items, the values functions
//! and methods of the file return (`fn under_test() -> bool {…}` then `if under_test()`), their
//! parameters when they hand them on or inspect them, and constant strings (`const K: &str =
//! "RUST_TEST_THREADS"`, `concat!`, `format!`, `+`, `[…].join(…)`). A value given to another
//! function (`pool::start(threads)`) is not that function's result.
//!
//! The use decides. A signal in a choosing position is `test-detected`: the condition of an
//! `if`, `if let`, `while` or match guard, a `match` scrutinee, the left side of `&&`/`||`, and in
//! code the receiver of a method that picks a value or a closure (`.then(…)`, `unwrap_or_else`,
//! `map_or`, …, for build configuration and runner state). So is a runner signal a `pub`
//! flag hands to other files (a `bool` function, `const` or `static`: its uses are out of
//! sight). Build configuration or runner state only read in code (logged, formatted, handed to a
//! function) is `test-aware`, shown; so is the thread's name written by a formatting macro. The
//! thread, the program's name and place and the host read for any other purpose are neither: a
//! usage message naming the program, a CLI matching `args().nth(1)` to choose its subcommand.
//!
//! In tests (a test file, or a test item of a code file) only the conditions count: a test whose
//! assertion runs only in some folders, on some hosts or outside goal's runs (every signal but
//! `cfg!(test)`, always true there).

use std::collections::{HashMap, HashSet};

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{
    BinOp, Expr, ImplItem, Item, Lit, Macro, Meta, Pat, ReturnType, Stmt, UseTree, Visibility,
};

use super::items::is_test_item;
use super::{RustParseError, parse, with_spans_dropped};
use crate::surface::weaken::FindingKind;
use crate::surface::weaken::detect::Detection;

type Bits = u16;

/// `cfg!(test)`.
const CFG: Bits = 1;
/// A build profile: `debug_assertions`, a build script's `PROFILE`.
const PROFILE: Bits = 1 << 1;
/// State a runner or cargo sets when it runs tests, libtest's flags.
const RUNNER: Bits = 1 << 2;
const THREAD: Bits = 1 << 3;
/// The program's own name: `current_exe()`, argv[0].
const PROGRAM: Bits = 1 << 4;
/// The working directory, the crate's folder, the temporary folder, a relative path.
const PLACE: Bits = 1 << 5;
const HOST: Bits = 1 << 6;
/// The thread written by a formatting macro.
const SHOWN_THREAD: Bits = 1 << 7;
/// Carriers and marks: no signal alone, one together.
const ARGS: Bits = 1 << 8;
const VARS: Bits = 1 << 9;
const REL_PATH: Bits = 1 << 10;
const FLAG_MARK: Bits = 1 << 11;
const VAR_MARK: Bits = 1 << 12;
/// The thread, the program's name or place, or the host inspected: compared, searched, probed
/// for existence (`exe.to_string_lossy().contains("deps")`, `Path::new("Cargo.toml").exists()`).
const PROBE: Bits = 1 << 13;

const STRONG: Bits = CFG | PROFILE | RUNNER;
/// Values that tell nothing until inspected (a path read to be used is the program's business).
const RAW: Bits = THREAD | PROGRAM | PLACE | HOST;
const SIGNALS: Bits = STRONG | PROBE;
/// A function's parameter, while what a function does with its parameters is learnt: handed on
/// to its value (`PASS`), inspected (`PROBE_PASS`).
const PASS: Bits = 1 << 14;
const PROBE_PASS: Bits = 1 << 15;

/// Calls whose value is their argument's, wrapped (`Some(x)`, `PathBuf::from(x)`).
const WRAPPERS: &[&str] = &[
    "Some",
    "Ok",
    "Err",
    "from",
    "from_utf8",
    "from_utf8_lossy",
    "to_string",
    "to_owned",
    "into",
];

/// Types whose `new` wraps its argument.
const WRAPPING_TYPES: &[&str] = &[
    "Path", "PathBuf", "OsStr", "OsString", "String", "Box", "Rc", "Arc", "Cell", "RefCell",
    "Mutex", "RwLock", "LazyLock", "LazyCell", "Lazy", "OnceLock", "OnceCell",
];

/// Flags only libtest takes (a test binary's arguments).
const LIBTEST_FLAGS: &[&str] = &[
    "--nocapture",
    "--no-capture",
    "--test-threads",
    "--exact",
    "--include-ignored",
    "--ignored",
    "--show-output",
    "--report-time",
    "--ensure-time",
    "--shuffle-seed",
];

/// Variables cargo sets for the crates it runs (tests among them) that an installed program
/// never sees, beside the `CARGO_PKG_*` and `CARGO_BIN_EXE_*` families.
const CARGO_RUN_VARS: &[&str] = &[
    "CARGO",
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_TARGET_TMPDIR",
    "CARGO_RUSTC_CURRENT_DIR",
];

/// Methods whose receiver chooses what runs or which value is taken.
const CHOOSING_METHODS: &[&str] = &[
    "then",
    "then_some",
    "unwrap_or",
    "unwrap_or_else",
    "unwrap_or_default",
    "map_or",
    "map_or_else",
    "or",
    "or_else",
    "and",
    "and_then",
    "ok_or_else",
    "is_some_and",
    "is_ok_and",
    "is_none_or",
];

/// Macros that format their arguments into text.
const FORMATTING: &[&str] = &[
    "print",
    "println",
    "eprint",
    "eprintln",
    "format",
    "format_args",
    "write",
    "writeln",
    "panic",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
    "log",
    "dbg",
];

/// The detections of a Rust file: in code (`code`, outside its test items) the runner signals in
/// a choosing position, the ones only read, and the items compiled only under test that code
/// uses; in tests (and test items), the conditions that read a signal (see the module's
/// documentation).
pub fn detections(source: &str, code: bool) -> Result<Vec<Detection>, RustParseError> {
    with_spans_dropped(|| {
        let parsed = parse(source)?;
        let file = &parsed.file;
        let env = Env::of(file, source);
        let lines: Vec<&str> = source.lines().collect();
        let mut globals: HashMap<String, Bits> = HashMap::new();
        // What names carry, to a fixed point (a function calling a function …).
        for _ in 0..8 {
            let mut pass = Finder::new(&env, &globals, &lines, code, false);
            pass.visit_file(file);
            if pass.found == globals {
                break;
            }
            globals = pass.found;
        }
        let mut finder = Finder::new(&env, &globals, &lines, code, true);
        finder.visit_file(file);
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let detected: HashSet<usize> = finder
            .out
            .iter()
            .filter(|d| d.0 == FindingKind::TestDetected)
            .map(|d| d.1)
            .collect();
        for d in finder.out {
            if d.0 == FindingKind::TestAware && detected.contains(&d.1) {
                continue;
            }
            if seen.insert((d.0, d.1)) {
                out.push(d);
            }
        }
        out.sort_by_key(|d| d.1);
        Ok(out)
    })
}

/// What the whole file tells before its code is walked.
struct Env<'f> {
    /// Local names `use` gives paths: `e` for `std::env`, `me` for `std::env::current_exe`.
    aliases: HashMap<String, Vec<String>>,
    /// `const` and `static` initializers, for constant strings.
    consts: HashMap<String, &'f Expr>,
    /// A build script: it prints `cargo:` lines.
    build_script: bool,
    /// Names only items compiled under test define, with where and what they are.
    test_only: HashMap<String, (usize, String)>,
    /// Methods of an inherent `impl` compiled only under test that share a trait method's name:
    /// under test they are called instead of the trait's.
    test_only_methods: HashMap<String, (usize, String)>,
}

impl<'f> Env<'f> {
    fn of(file: &'f syn::File, source: &str) -> Env<'f> {
        let mut collect = Collect::default();
        collect.visit_file(file);
        let mut test_only = HashMap::new();
        let mut test_only_methods = HashMap::new();
        for (name, at, method) in collect.test_defined {
            if method {
                if collect.trait_methods.contains(&name) {
                    test_only_methods.entry(name).or_insert(at);
                }
            } else if !collect.defined.contains(&name) {
                test_only.entry(name).or_insert(at);
            }
        }
        Env {
            aliases: collect.aliases,
            consts: collect.consts,
            build_script: source.contains("\"cargo:"),
            test_only,
            test_only_methods,
        }
    }

    /// A path with its first segment's alias spelled out.
    fn canon(&self, path: &syn::Path) -> Vec<String> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        match segs.first().and_then(|f| self.aliases.get(f)) {
            Some(full) if path.leading_colon.is_none() => full
                .iter()
                .cloned()
                .chain(segs[1..].iter().cloned())
                .collect(),
            _ => segs,
        }
    }
}

fn ends(segs: &[String], tail: &[&str]) -> bool {
    segs.len() >= tail.len()
        && segs[segs.len() - tail.len()..]
            .iter()
            .zip(tail)
            .all(|(a, b)| a == b)
}

/// Aliases, constants and the names test-only items define, from every item of the file.
#[derive(Default)]
struct Collect<'f> {
    aliases: HashMap<String, Vec<String>>,
    consts: HashMap<String, &'f Expr>,
    defined: HashSet<String>,
    /// Names test-only items define: where, what, whether an inherent method.
    test_defined: Vec<(String, (usize, String), bool)>,
    /// The methods of the traits the file's code defines or implements.
    trait_methods: HashSet<String>,
}

impl Collect<'_> {
    fn uses(&mut self, prefix: &mut Vec<String>, tree: &UseTree, out: &mut Vec<String>) {
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.uses(prefix, &p.tree, out);
                prefix.pop();
            }
            UseTree::Name(n) => {
                let name = n.ident.to_string();
                let (local, full) = if name == "self" {
                    let mut full = prefix.clone();
                    (
                        full.last().cloned().unwrap_or_default(),
                        std::mem::take(&mut full),
                    )
                } else {
                    let mut full = prefix.clone();
                    full.push(name.clone());
                    (name, full)
                };
                out.push(local.clone());
                self.aliases.insert(local, full);
            }
            UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                out.push(r.rename.to_string());
                self.aliases.insert(r.rename.to_string(), full);
            }
            UseTree::Group(g) => {
                for t in &g.items {
                    self.uses(prefix, t, out);
                }
            }
            UseTree::Glob(_) => {}
        }
    }

    /// The names an item defines (an inherent `impl`: its methods).
    fn names(&mut self, item: &Item) -> Vec<String> {
        match item {
            Item::Fn(f) => vec![f.sig.ident.to_string()],
            Item::Const(c) => vec![c.ident.to_string()],
            Item::Static(s) => vec![s.ident.to_string()],
            Item::Struct(s) => vec![s.ident.to_string()],
            Item::Enum(e) => vec![e.ident.to_string()],
            Item::Type(t) => vec![t.ident.to_string()],
            Item::Macro(m) => m.ident.iter().map(|i| i.to_string()).collect(),
            Item::Use(u) => {
                let mut out = Vec::new();
                self.uses(&mut Vec::new(), &u.tree, &mut out);
                out
            }
            Item::Impl(i) if i.trait_.is_none() => i
                .items
                .iter()
                .filter_map(|it| match it {
                    ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
                    ImplItem::Const(c) => Some(c.ident.to_string()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

impl<'f> Visit<'f> for Collect<'f> {
    fn visit_item(&mut self, item: &'f Item) {
        if is_test_item(item) {
            if !matches!(item, Item::Mod(_)) {
                let attr = super::items::item_attrs(item)
                    .iter()
                    .find(|a| super::items::is_cfg_test(a));
                if let Some(attr) = attr {
                    let line = attr.span().start().line;
                    let shown = attr.to_token_stream().to_string().replace(' ', "");
                    let method = matches!(item, Item::Impl(_));
                    for name in self.names(item) {
                        let what = format!("{shown} {name} used outside tests");
                        self.test_defined.push((name, (line, what), method));
                    }
                }
            }
            return;
        }
        for name in self.names(item) {
            self.defined.insert(name);
        }
        match item {
            Item::Impl(i) if i.trait_.is_some() => {
                for it in &i.items {
                    if let ImplItem::Fn(f) = it {
                        self.trait_methods.insert(f.sig.ident.to_string());
                    }
                }
            }
            Item::Trait(t) => {
                for it in &t.items {
                    if let syn::TraitItem::Fn(f) = it {
                        self.trait_methods.insert(f.sig.ident.to_string());
                    }
                }
            }
            Item::Const(c) => {
                self.consts.insert(c.ident.to_string(), &c.expr);
            }
            Item::Static(s) => {
                self.consts.insert(s.ident.to_string(), &s.expr);
            }
            _ => {}
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_impl_item(&mut self, item: &'f ImplItem) {
        if let ImplItem::Const(c) = item {
            self.consts.insert(c.ident.to_string(), &c.expr);
        }
        syn::visit::visit_impl_item(self, item);
    }
}

/// A local name: what it carries and its value when a constant string.
#[derive(Clone, Default)]
struct Local {
    bits: Bits,
    text: Option<String>,
}

type Locals = HashMap<String, Local>;

struct Finder<'a, 'f> {
    env: &'a Env<'f>,
    globals: &'a HashMap<String, Bits>,
    lines: &'a [&'a str],
    code: bool,
    /// Report (the last walk) or only learn what names carry (the walks before).
    report: bool,
    in_test: bool,
    locals: Locals,
    /// The expression being walked flows into a name (a `let`, a return value): its uses decide.
    consumed: bool,
    /// An expression around this one was already looked at as a whole for a read signal.
    read_seen: bool,
    /// What the current function returns, when it returns a value (None in closures).
    ret: Option<Bits>,
    /// Whether the current function is visible to other files.
    exported: bool,
    found: HashMap<String, Bits>,
    out: Vec<Detection>,
}

impl<'a, 'f> Finder<'a, 'f> {
    fn new(
        env: &'a Env<'f>,
        globals: &'a HashMap<String, Bits>,
        lines: &'a [&'a str],
        code: bool,
        report: bool,
    ) -> Self {
        Finder {
            env,
            globals,
            lines,
            code,
            report,
            in_test: false,
            locals: Locals::new(),
            consumed: false,
            read_seen: false,
            ret: None,
            exported: false,
            found: globals.clone(),
            out: Vec::new(),
        }
    }

    fn in_code(&self) -> bool {
        self.code && !self.in_test
    }

    /// The signals that count in a condition here: in tests every one but `cfg!(test)`.
    fn counted(&self) -> Bits {
        if self.in_code() {
            SIGNALS
        } else {
            SIGNALS & !CFG
        }
    }

    fn push(&mut self, kind: FindingKind, line: usize, what: String) {
        if self.report {
            self.out.push((kind, line, what));
        }
    }

    fn learn(&mut self, name: String, bits: Bits) {
        if bits != 0 {
            *self.found.entry(name).or_default() |= bits;
        }
    }

    /// The source text a span covers (its tokens where the span cannot be read).
    fn source(&self, span: proc_macro2::Span, tokens: &impl ToTokens) -> String {
        let (start, end) = (span.start(), span.end());
        let text: Option<String> = (start.line..=end.line)
            .map(|l| {
                let line = self.lines.get(l.checked_sub(1)?)?;
                let chars: Vec<char> = line.chars().collect();
                let from = if l == start.line { start.column } else { 0 };
                let to = if l == end.line {
                    end.column
                } else {
                    chars.len()
                };
                chars.get(from..to).map(|c| c.iter().collect::<String>())
            })
            .collect::<Option<Vec<String>>>()
            .map(|parts| parts.join(" "));
        text.filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| tokens.to_token_stream().to_string())
    }

    /// A choosing position: `test-detected` when `e` carries a signal that counts here (`only`:
    /// the signals that count in this position). Shown as the `cfg!` inside when there is one,
    /// else `keyword` and the expression (`if std::env::current_dir()…`).
    fn choose(&mut self, e: &Expr, keyword: &str, only: Bits) {
        if !self.report {
            return;
        }
        let bits = self.taint(e, &self.locals);
        if bits & self.counted() & only == 0 {
            return;
        }
        if bits & (CFG | PROFILE) != 0
            && let Some(mac) = cfg_macro(e)
        {
            let what = self.source(mac.span(), mac);
            self.push(
                FindingKind::TestDetected,
                mac.path.span().start().line,
                what,
            );
            return;
        }
        let what = format!("{keyword}{}", self.source(e.span(), e));
        self.push(FindingKind::TestDetected, e.span().start().line, what);
    }

    /// A value leaving the function: followed through its callers, or, from a function other
    /// files see, `test-detected` when it carries a runner signal.
    fn returned(&mut self, e: &Expr) {
        let bits = self.taint(e, &self.locals);
        if let Some(r) = self.ret.as_mut() {
            *r |= bits;
        }
        if self.exported && self.in_code() && bits & STRONG != 0 {
            self.choose(e, "", STRONG);
        }
    }

    /// A `cfg`/`cfg_attr` naming `test` (or `debug_assertions`) in code.
    fn attribute(&mut self, attr: &syn::Attribute) {
        if !self.in_code() {
            return;
        }
        let Meta::List(list) = &attr.meta else {
            return;
        };
        let hit = if list.path.is_ident("cfg") {
            list.parse_args::<Meta>()
                .is_ok_and(|m| cfg_bits(&m.to_token_stream().to_string()) != 0)
        } else if list.path.is_ident("cfg_attr") {
            // Only attributes that change what runs: a module's file, a cfg, a symbol's name.
            list.parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
                .is_ok_and(|args| {
                    args.first()
                        .is_some_and(|p| cfg_bits(&p.to_token_stream().to_string()) != 0)
                        && args.iter().skip(1).any(|a| {
                            ["path", "cfg", "export_name", "link_name"]
                                .iter()
                                .any(|n| a.path().is_ident(n))
                        })
                })
        } else {
            false
        };
        if hit {
            let what = self.source(attr.span(), attr);
            self.push(FindingKind::TestDetected, attr.span().start().line, what);
        }
    }

    /// Arguments handing a runner signal to a function whose value does not carry it on: a
    /// read (`pool::start(std::env::var("RUST_TEST_THREADS"))`), `test-aware`.
    fn handed_on<'e>(&mut self, args: impl Iterator<Item = &'e Expr>, whole: Bits) {
        for a in args {
            if matches!(a, Expr::Closure(_)) {
                continue;
            }
            let bits = self.taint(a, &self.locals);
            if bits & STRONG & !whole != 0 {
                let what = self.source(a.span(), a);
                self.push(FindingKind::TestAware, a.span().start().line, what);
            }
        }
    }

    /// A read in code: `test-aware` when `e` carries a runner signal or shows the thread.
    fn read(&mut self, e: &dyn Spanned, tokens: &dyn ToTokensDyn, bits: Bits) {
        if bits & (STRONG | SHOWN_THREAD) != 0 {
            let what = self.source(e.span(), &tokens.tokens());
            self.push(FindingKind::TestAware, e.span().start().line, what);
        }
    }

    fn bind(&mut self, pat: &Pat, bits: Bits, text: Option<String>) {
        for name in pat_names(pat) {
            self.locals.insert(
                name,
                Local {
                    bits,
                    text: text.clone(),
                },
            );
        }
    }

    fn fn_body(
        &mut self,
        name: String,
        vis: &Visibility,
        sig: &syn::Signature,
        block: &syn::Block,
    ) {
        let (output, params) = (&sig.output, &sig.inputs);
        let saved = (
            std::mem::take(&mut self.locals),
            self.ret,
            self.exported,
            self.consumed,
            self.read_seen,
        );
        let value = matches!(output, ReturnType::Type(..));
        for name in params.iter().flat_map(|a| match a {
            syn::FnArg::Typed(t) => pat_names(&t.pat),
            syn::FnArg::Receiver(_) => Vec::new(),
        }) {
            self.locals.insert(
                name,
                Local {
                    bits: PASS,
                    text: None,
                },
            );
        }
        self.ret = value.then_some(0);
        self.exported =
            is_exported(vis) && matches!(output, ReturnType::Type(_, ty) if is_bool(ty));
        let last = block.stmts.len().saturating_sub(1);
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                Stmt::Expr(e, None) if i == last && value => {
                    self.consumed = true;
                    self.read_seen = false;
                    self.visit_expr(e);
                    self.returned(e);
                }
                _ => self.visit_stmt(stmt),
            }
        }
        if let Some(bits) = self.ret {
            self.learn(name, bits);
        }
        (
            self.locals,
            self.ret,
            self.exported,
            self.consumed,
            self.read_seen,
        ) = saved;
    }

    /// What an expression carries (see the module's documentation), with `locals` in scope.
    fn taint(&self, e: &Expr, locals: &Locals) -> Bits {
        let t = |x: &Expr| self.taint(x, locals);
        let bits = match e {
            Expr::Lit(l) => lit_marks(&l.lit),
            Expr::Path(p) => self.path_taint(&p.path, locals),
            Expr::Call(c) => self.call_taint(c, locals),
            Expr::MethodCall(m) => self.method_taint(m, locals),
            Expr::Macro(m) => self.macro_taint(&m.mac, locals),
            Expr::If(i) => {
                self.block_taint(&i.then_branch, locals)
                    | i.else_branch.as_ref().map_or(0, |(_, e)| t(e))
            }
            Expr::Match(m) => m.arms.iter().fold(0, |b, a| b | t(&a.body)),
            Expr::Block(b) => self.block_taint(&b.block, locals),
            Expr::Unsafe(b) => self.block_taint(&b.block, locals),
            Expr::Closure(c) => t(&c.body),
            Expr::Index(i) => {
                let base = t(&i.expr);
                let mut b = base | t(&i.index);
                if base & ARGS != 0 && is_int(&i.index, 0) {
                    b |= PROGRAM;
                }
                b
            }
            Expr::Binary(b) => {
                let both = t(&b.left) | t(&b.right);
                let compares = matches!(
                    b.op,
                    BinOp::Eq(_)
                        | BinOp::Ne(_)
                        | BinOp::Lt(_)
                        | BinOp::Le(_)
                        | BinOp::Gt(_)
                        | BinOp::Ge(_)
                );
                match (compares, both & RAW != 0, both & PASS != 0) {
                    (true, true, _) => both | PROBE,
                    (true, _, true) => both | PROBE_PASS,
                    _ => both,
                }
            }
            Expr::Let(l) => t(&l.expr),
            Expr::Field(f) => t(&f.base),
            Expr::Unary(u) => t(&u.expr),
            Expr::Paren(p) => t(&p.expr),
            Expr::Group(g) => t(&g.expr),
            Expr::Reference(r) => t(&r.expr),
            Expr::Cast(c) => t(&c.expr),
            Expr::Try(x) => t(&x.expr),
            Expr::Await(a) => t(&a.base),
            Expr::Array(a) => a.elems.iter().fold(0, |b, x| b | t(x)),
            Expr::Tuple(a) => a.elems.iter().fold(0, |b, x| b | t(x)),
            Expr::Struct(s) => s.fields.iter().fold(0, |b, f| b | t(&f.expr)),
            Expr::Repeat(r) => t(&r.expr),
            Expr::Assign(a) => t(&a.right),
            Expr::Range(r) => {
                r.start.as_ref().map_or(0, |x| t(x)) | r.end.as_ref().map_or(0, |x| t(x))
            }
            _ => 0,
        };
        combine(bits)
    }

    /// A call's value: the arguments' signals go into it only through a wrapper, or a function of
    /// the file that hands its parameter on or inspects it.
    fn call_taint(&self, c: &syn::ExprCall, locals: &Locals) -> Bits {
        let callee = self.taint(&c.func, locals);
        let args = c.args.iter().fold(0, |b, a| b | self.taint(a, locals));
        let mut b = callee & !(PASS | PROBE_PASS);
        if callee & PASS != 0 || self.wraps(&c.func) {
            b |= args;
        }
        if callee & PROBE_PASS != 0 && args & RAW != 0 {
            b |= PROBE;
        }
        if let Expr::Path(p) = &*c.func {
            b |= self.call_source(&p.path, &c.args, locals);
        }
        combine(b | (args & (FLAG_MARK | VAR_MARK)))
    }

    fn block_taint(&self, block: &syn::Block, locals: &Locals) -> Bits {
        let Some(Stmt::Expr(tail, None)) = block.stmts.last() else {
            return 0;
        };
        if !block.stmts.iter().any(|s| matches!(s, Stmt::Local(_))) {
            return self.taint(tail, locals);
        }
        let mut inner = locals.clone();
        for stmt in &block.stmts {
            if let Stmt::Local(l) = stmt
                && let Some(init) = &l.init
            {
                let bits = self.taint(&init.expr, &inner);
                let text = self.eval(&init.expr, &inner, 0);
                for name in pat_names(&l.pat) {
                    inner.insert(
                        name,
                        Local {
                            bits,
                            text: text.clone(),
                        },
                    );
                }
            }
        }
        self.taint(tail, &inner)
    }

    fn path_taint(&self, path: &syn::Path, locals: &Locals) -> Bits {
        if let Some(id) = path.get_ident()
            && let Some(l) = locals.get(&id.to_string())
        {
            return l.bits;
        }
        let segs = self.env.canon(path);
        if segs.first().is_some_and(|f| f == "std" || f == "core") {
            return 0;
        }
        segs.last()
            .and_then(|l| self.globals.get(l))
            .copied()
            .unwrap_or(0)
    }

    /// What calling `path(args)` reads.
    fn call_source(
        &self,
        path: &syn::Path,
        args: &Punctuated<Expr, syn::Token![,]>,
        locals: &Locals,
    ) -> Bits {
        let segs = self.env.canon(path);
        let first = || args.first().and_then(|a| self.eval(a, locals, 0));
        let last = segs.last().map(String::as_str).unwrap_or_default();
        if ends(&segs, &["env", "var"]) || ends(&segs, &["env", "var_os"]) {
            return first().map_or(0, |name| self.var_bits(&name));
        }
        if ends(&segs, &["env", "vars"]) || ends(&segs, &["env", "vars_os"]) {
            return VARS;
        }
        if ends(&segs, &["env", "args"]) || ends(&segs, &["env", "args_os"]) {
            return ARGS;
        }
        if ends(&segs, &["thread", "current"]) {
            return THREAD;
        }
        if ends(&segs, &["fs", "metadata"]) || ends(&segs, &["fs", "symlink_metadata"]) {
            return if first().is_some_and(|p| relative(&p)) {
                PROBE
            } else {
                0
            };
        }
        if ends(&segs, &["Path", "new"]) || ends(&segs, &["PathBuf", "from"]) {
            return if first().is_some_and(|p| relative(&p)) {
                REL_PATH
            } else {
                0
            };
        }
        match last {
            "current_exe" => PROGRAM,
            "current_dir" | "temp_dir" => PLACE,
            "gethostname" | "host_name" => HOST,
            _ if segs.iter().any(|s| s == "hostname") => HOST,
            _ => 0,
        }
    }

    fn method_taint(&self, m: &syn::ExprMethodCall, locals: &Locals) -> Bits {
        let recv = self.taint(&m.receiver, locals);
        let mut bits = recv;
        // An argument's signals go into the value through a closure over the receiver's items
        // (`args().any(|a| a == …)`); other arguments only lend their marks, or are inspected.
        let mut args = 0;
        for a in &m.args {
            match a {
                Expr::Closure(c) => {
                    let mut inner = locals.clone();
                    for name in c.inputs.iter().flat_map(pat_names) {
                        inner.insert(
                            name,
                            Local {
                                bits: recv,
                                text: None,
                            },
                        );
                    }
                    bits |= self.taint(&c.body, &inner);
                }
                _ => args |= self.taint(a, locals),
            }
        }
        bits |= args & (FLAG_MARK | VAR_MARK);
        let method = m.method.to_string();
        let direct_args = matches!(&*m.receiver, Expr::Call(c) if matches!(&*c.func, Expr::Path(p)
            if { let s = self.env.canon(&p.path); ends(&s, &["env", "args"]) || ends(&s, &["env", "args_os"]) }));
        match method.as_str() {
            "next" if direct_args => bits |= PROGRAM,
            "nth" | "get" if recv & ARGS != 0 && m.args.first().is_some_and(|a| is_int(a, 0)) => {
                bits |= PROGRAM
            }
            "first" if recv & ARGS != 0 => bits |= PROGRAM,
            "exists" | "is_file" | "is_dir" | "try_exists" | "metadata" | "symlink_metadata"
                if recv & REL_PATH != 0 =>
            {
                bits |= PROBE
            }
            "contains"
            | "starts_with"
            | "ends_with"
            | "eq"
            | "ne"
            | "matches"
            | "find"
            | "strip_prefix"
            | "strip_suffix"
            | "eq_ignore_ascii_case"
            | "cmp"
            | "partial_cmp" => {
                if (recv | args) & RAW != 0 {
                    bits |= PROBE;
                }
                if (recv | args) & PASS != 0 {
                    bits |= PROBE_PASS;
                }
            }
            "join" | "push" | "with_file_name" | "with_extension" => bits |= args & REL_PATH,
            _ => {}
        }
        bits | (self.globals.get(&method).copied().unwrap_or(0) & !(PASS | PROBE_PASS))
    }

    /// Whether a call's value is its argument's, wrapped.
    fn wraps(&self, func: &Expr) -> bool {
        let Expr::Path(p) = func else {
            return false;
        };
        let segs = self.env.canon(&p.path);
        let Some(last) = segs.last() else {
            return false;
        };
        WRAPPERS.contains(&last.as_str())
            || (last == "new"
                && segs.len() >= 2
                && WRAPPING_TYPES.contains(&segs[segs.len() - 2].as_str()))
    }

    fn macro_taint(&self, mac: &Macro, locals: &Locals) -> Bits {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        match name.as_str() {
            "cfg" => cfg_bits(&mac.tokens.to_string()),
            "env" | "option_env" => {
                let arg = macro_exprs(mac).into_iter().next();
                match arg.and_then(|a| self.eval(&a, locals, 0)).as_deref() {
                    Some("CARGO_MANIFEST_DIR" | "OUT_DIR") => PLACE,
                    Some("CARGO_TARGET_TMPDIR") => RUNNER,
                    Some(v) if v.starts_with("CARGO_BIN_EXE_") => RUNNER,
                    _ => 0,
                }
            }
            "file" => PLACE,
            "concat" => self
                .eval_macro(mac, locals, 0)
                .map_or(0, |s| string_marks(&s)),
            _ => {
                let exprs = macro_exprs(mac);
                let mut bits = exprs.iter().fold(0, |b, e| b | self.taint(e, locals));
                if name == "matches" && bits & RAW != 0 {
                    bits |= PROBE;
                }
                if FORMATTING.contains(&name.as_str()) {
                    // Names captured by the format string (`"{name}"`).
                    for e in &exprs {
                        if let Expr::Lit(l) = e
                            && let Lit::Str(s) = &l.lit
                        {
                            for captured in captured_names(&s.value()) {
                                bits |= locals.get(&captured).map_or_else(
                                    || self.globals.get(&captured).copied().unwrap_or(0),
                                    |l| l.bits,
                                );
                            }
                        }
                    }
                    if bits & THREAD != 0 {
                        bits |= SHOWN_THREAD;
                    }
                    if name == "format" {
                        bits |= self
                            .eval_macro(mac, locals, 0)
                            .map_or(0, |s| string_marks(&s));
                    }
                }
                bits
            }
        }
    }

    fn var_bits(&self, name: &str) -> Bits {
        if self.env.build_script {
            return match name {
                "PROFILE" | "OPT_LEVEL" | "DEBUG" | "CARGO_CFG_DEBUG_ASSERTIONS" => PROFILE,
                _ if runner_var(name) && !name.starts_with("CARGO") => RUNNER,
                _ => 0,
            };
        }
        match name {
            _ if runner_var(name) => RUNNER,
            "HOSTNAME" | "HOST" | "COMPUTERNAME" => HOST,
            "PWD" => PLACE,
            _ => 0,
        }
    }

    /// The constant string `e` is, if it is one.
    fn eval(&self, e: &Expr, locals: &Locals, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        let ev = |x: &Expr| self.eval(x, locals, depth + 1);
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Str(s) => Some(s.value()),
                Lit::Int(i) => Some(i.base10_digits().to_string()),
                Lit::Char(c) => Some(c.value().to_string()),
                Lit::Bool(b) => Some(b.value.to_string()),
                _ => None,
            },
            Expr::Path(p) => {
                let id = p.path.segments.last()?.ident.to_string();
                if p.path.segments.len() == 1
                    && let Some(l) = locals.get(&id)
                {
                    return l.text.clone();
                }
                self.env.consts.get(&id).and_then(|c| ev(c))
            }
            Expr::Paren(p) => ev(&p.expr),
            Expr::Group(g) => ev(&g.expr),
            Expr::Reference(r) => ev(&r.expr),
            Expr::Binary(b) if matches!(b.op, BinOp::Add(_)) => Some(ev(&b.left)? + &ev(&b.right)?),
            Expr::MethodCall(m) => match m.method.to_string().as_str() {
                "to_string" | "to_owned" | "into" | "as_str" | "as_ref" | "borrow" => {
                    ev(&m.receiver)
                }
                "to_uppercase" | "to_ascii_uppercase" => ev(&m.receiver).map(|s| s.to_uppercase()),
                "concat" | "join" => {
                    let Expr::Array(a) = &*m.receiver else {
                        return None;
                    };
                    let sep = match m.args.first() {
                        Some(s) => ev(s)?,
                        None => String::new(),
                    };
                    let parts: Option<Vec<String>> = a.elems.iter().map(ev).collect();
                    Some(parts?.join(&sep))
                }
                _ => None,
            },
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return None };
                let last = p.path.segments.last()?.ident.to_string();
                matches!(last.as_str(), "from" | "new" | "to_string" | "to_owned")
                    .then(|| c.args.first().and_then(ev))
                    .flatten()
            }
            Expr::Macro(m) => self.eval_macro(&m.mac, locals, depth + 1),
            _ => None,
        }
    }

    /// `concat!(…)`, `format!(…)`, `stringify!(…)` of constants.
    fn eval_macro(&self, mac: &Macro, locals: &Locals, depth: usize) -> Option<String> {
        let name = mac.path.segments.last()?.ident.to_string();
        match name.as_str() {
            "concat" => {
                let parts: Option<Vec<String>> = macro_exprs(mac)
                    .iter()
                    .map(|e| self.eval(e, locals, depth + 1))
                    .collect();
                Some(parts?.concat())
            }
            "stringify" => Some(mac.tokens.to_string()),
            "format" => {
                let exprs = macro_exprs(mac);
                let (fmt, rest) = exprs.split_first()?;
                let fmt = self.eval(fmt, locals, depth + 1)?;
                let mut positional = Vec::new();
                let mut named = HashMap::new();
                for e in rest {
                    match e {
                        Expr::Assign(a) => {
                            let Expr::Path(p) = &*a.left else { return None };
                            named.insert(
                                p.path.get_ident()?.to_string(),
                                self.eval(&a.right, locals, depth + 1)?,
                            );
                        }
                        _ => positional.push(self.eval(e, locals, depth + 1)?),
                    }
                }
                let mut out = String::new();
                let mut next = 0;
                let mut chars = fmt.chars().peekable();
                while let Some(c) = chars.next() {
                    match c {
                        '{' if chars.peek() == Some(&'{') => {
                            chars.next();
                            out.push('{');
                        }
                        '}' if chars.peek() == Some(&'}') => {
                            chars.next();
                            out.push('}');
                        }
                        '{' => {
                            let spec: String = chars.by_ref().take_while(|c| *c != '}').collect();
                            let arg = spec.split(':').next().unwrap_or_default().trim();
                            let value = if arg.is_empty() {
                                next += 1;
                                positional.get(next - 1).cloned()
                            } else if let Ok(i) = arg.parse::<usize>() {
                                positional.get(i).cloned()
                            } else {
                                named.get(arg).cloned().or_else(|| {
                                    let path: Expr = syn::parse_str(arg).ok()?;
                                    self.eval(&path, locals, depth + 1)
                                })
                            };
                            out.push_str(&value?);
                        }
                        c => out.push(c),
                    }
                }
                Some(out)
            }
            _ => None,
        }
    }
}

/// A dyn-friendly [`ToTokens`].
trait ToTokensDyn {
    fn tokens(&self) -> proc_macro2::TokenStream;
}

impl<T: ToTokens> ToTokensDyn for T {
    fn tokens(&self) -> proc_macro2::TokenStream {
        self.to_token_stream()
    }
}

/// Whether a cfg's tokens name `test` (`CFG`) or `debug_assertions` (`PROFILE`).
fn cfg_bits(tokens: &str) -> Bits {
    tokens
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .fold(0, |b, w| match w {
            "test" => b | CFG,
            "debug_assertions" => b | PROFILE,
            _ => b,
        })
}

/// The first `cfg!(…)` naming `test` or `debug_assertions` inside `e`.
fn cfg_macro(e: &Expr) -> Option<&Macro> {
    struct Find<'e>(Option<&'e Macro>);
    impl<'e> Visit<'e> for Find<'e> {
        fn visit_macro(&mut self, mac: &'e Macro) {
            if self.0.is_none()
                && mac.path.is_ident("cfg")
                && cfg_bits(&mac.tokens.to_string()) != 0
            {
                self.0 = Some(mac);
            }
        }
    }
    let mut find = Find(None);
    find.visit_expr(e);
    find.0
}

/// Variables a test runner, cargo running a test, or goal sets (see the module's documentation).
fn runner_var(name: &str) -> bool {
    name.starts_with("RUST_TEST")
        || name.starts_with("NEXTEST")
        || name.starts_with("GOAL_")
        || name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_BIN_EXE_")
        || CARGO_RUN_VARS.contains(&name)
}

/// The marks a constant string carries: a libtest flag, a runner variable's name or prefix.
fn string_marks(s: &str) -> Bits {
    let mut bits = 0;
    if LIBTEST_FLAGS.contains(&s) || s.starts_with("--test-threads") {
        bits |= FLAG_MARK;
    }
    let prefix = s.len() >= 5
        && [
            "RUST_TEST_",
            "NEXTEST_",
            "CARGO_PKG_",
            "CARGO_MANIFEST_DIR",
            "GOAL_",
        ]
        .iter()
        .any(|p| p.starts_with(s));
    if runner_var(s) || prefix || s == "CARGO_" {
        bits |= VAR_MARK;
    }
    bits
}

fn lit_marks(lit: &Lit) -> Bits {
    match lit {
        Lit::Str(s) => string_marks(&s.value()),
        _ => 0,
    }
}

/// A carrier meeting its mark: `args()` beside a libtest flag, `vars()` beside a runner variable.
fn combine(mut bits: Bits) -> Bits {
    if bits & ARGS != 0 && bits & FLAG_MARK != 0 {
        bits |= RUNNER;
    }
    if bits & VARS != 0 && bits & VAR_MARK != 0 {
        bits |= RUNNER;
    }
    bits
}

fn relative(path: &str) -> bool {
    !path.is_empty() && !path.starts_with(['/', '\\', '~']) && path.as_bytes().get(1) != Some(&b':')
}

fn is_int(e: &Expr, value: u64) -> bool {
    matches!(e, Expr::Lit(l) if matches!(&l.lit, Lit::Int(i) if i.base10_parse::<u64>().ok() == Some(value)))
}

/// A macro's body as comma-separated expressions (the first one alone when the rest are not).
fn macro_exprs(mac: &Macro) -> Vec<Expr> {
    if let Ok(args) = mac.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated) {
        return args.into_iter().collect();
    }
    mac.parse_body_with(|input: syn::parse::ParseStream| {
        let first: Expr = input.parse()?;
        input.parse::<proc_macro2::TokenStream>()?;
        Ok(vec![first])
    })
    .unwrap_or_default()
}

/// The names a format string captures (`{name}`, `{name:?}`).
fn captured_names(fmt: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = fmt;
    while let Some(at) = rest.find('{') {
        rest = &rest[at + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let end = rest.find('}').unwrap_or(rest.len());
        let arg = rest[..end].split(':').next().unwrap_or_default().trim();
        if arg.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            out.push(arg.to_string());
        }
        rest = &rest[end..];
    }
    out
}

/// Whether a pattern compares with a literal (`Some("main")`, `"deps"`), a guard aside.
fn pat_has_literal(pat: &Pat) -> bool {
    struct Find(bool);
    impl<'p> Visit<'p> for Find {
        fn visit_pat_guard(&mut self, g: &'p syn::PatGuard) {
            self.visit_pat(&g.pat);
        }
        fn visit_lit(&mut self, _: &'p Lit) {
            self.0 = true;
        }
    }
    let mut find = Find(false);
    find.visit_pat(pat);
    find.0
}

fn pat_names(pat: &Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'p> Visit<'p> for Names {
        fn visit_pat_ident(&mut self, p: &'p syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut names = Names(Vec::new());
    names.visit_pat(pat);
    names.0
}

/// A flag's type: `bool`, `LazyLock<bool>`, `AtomicBool`, ….
fn is_bool(ty: &syn::Type) -> bool {
    let tokens = ty.to_token_stream().to_string();
    tokens
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|w| w == "bool" || w == "AtomicBool")
}

fn is_exported(vis: &Visibility) -> bool {
    !matches!(vis, Visibility::Inherited)
}

/// The attributes of the expressions whose walk below skips them.
fn expr_attrs(e: &Expr) -> &[syn::Attribute] {
    match e {
        Expr::Return(x) => &x.attrs,
        Expr::If(x) => &x.attrs,
        Expr::While(x) => &x.attrs,
        Expr::Match(x) => &x.attrs,
        Expr::Assign(x) => &x.attrs,
        Expr::ForLoop(x) => &x.attrs,
        Expr::Let(x) => &x.attrs,
        _ => &[],
    }
}

/// Expressions looked at whole for a read signal: not the ones that only hold others.
fn holds_statements(e: &Expr) -> bool {
    matches!(
        e,
        Expr::If(_)
            | Expr::Match(_)
            | Expr::Block(_)
            | Expr::Unsafe(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
            | Expr::Closure(_)
            | Expr::Async(_)
            | Expr::TryBlock(_)
            | Expr::Const(_)
    )
}

impl<'ast> Visit<'ast> for Finder<'_, '_> {
    fn visit_item(&mut self, item: &'ast Item) {
        let was = self.in_test;
        self.in_test |= is_test_item(item);
        match item {
            Item::Fn(f) => {
                for attr in &f.attrs {
                    self.visit_attribute(attr);
                }
                self.fn_body(f.sig.ident.to_string(), &f.vis, &f.sig, &f.block);
            }
            Item::Const(c) => {
                self.item_value(&c.attrs, c.ident.to_string(), &c.vis, &c.ty, &c.expr)
            }
            Item::Static(s) => {
                self.item_value(&s.attrs, s.ident.to_string(), &s.vis, &s.ty, &s.expr)
            }
            _ => syn::visit::visit_item(self, item),
        }
        self.in_test = was;
    }

    fn visit_impl_item(&mut self, item: &'ast ImplItem) {
        match item {
            ImplItem::Fn(f) => {
                for attr in &f.attrs {
                    self.visit_attribute(attr);
                }
                self.fn_body(f.sig.ident.to_string(), &f.vis, &f.sig, &f.block);
            }
            ImplItem::Const(c) => {
                self.item_value(&c.attrs, c.ident.to_string(), &c.vis, &c.ty, &c.expr)
            }
            _ => syn::visit::visit_impl_item(self, item),
        }
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        self.attribute(attr);
    }

    fn visit_field(&mut self, field: &'ast syn::Field) {
        // A field kept for tests' bookkeeping changes nothing by itself; the code using it does.
        self.visit_type(&field.ty);
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        let saved = (self.consumed, self.read_seen);
        self.consumed = false;
        self.read_seen = false;
        match stmt {
            Stmt::Macro(m) => {
                for attr in &m.attrs {
                    self.visit_attribute(attr);
                }
                if self.report && self.in_code() && !self.read_seen {
                    self.read_seen = true;
                    let bits = self.macro_taint(&m.mac, &self.locals);
                    self.read(&m.mac, &m.mac, bits);
                }
                self.visit_macro(&m.mac);
            }
            Stmt::Expr(e, _) => {
                // The overrides below walk their parts, not their attributes.
                for attr in expr_attrs(e) {
                    self.visit_attribute(attr);
                }
                self.visit_expr(e);
            }
            _ => syn::visit::visit_stmt(self, stmt),
        }
        (self.consumed, self.read_seen) = saved;
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        for attr in &local.attrs {
            self.visit_attribute(attr);
        }
        let Some(init) = &local.init else {
            for name in pat_names(&local.pat) {
                self.locals.remove(&name);
            }
            return;
        };
        let names = pat_names(&local.pat);
        self.consumed = !names.is_empty();
        self.visit_expr(&init.expr);
        if let Some((_, diverge)) = &init.diverge {
            self.consumed = false;
            self.read_seen = false;
            self.visit_expr(diverge);
        }
        let bits = self.taint(&init.expr, &self.locals);
        let text = self.eval(&init.expr, &self.locals, 0);
        self.bind(&local.pat, bits, text);
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        if self.report
            && self.in_code()
            && !self.consumed
            && !self.read_seen
            && !holds_statements(e)
        {
            self.read_seen = true;
            let bits = self.taint(e, &self.locals);
            self.read(e, e, bits);
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.choose(&e.cond, "if ", SIGNALS);
        let saved = (self.consumed, self.read_seen);
        self.consumed = true;
        self.visit_expr(&e.cond);
        self.consumed = saved.0;
        self.visit_block(&e.then_branch);
        if let Some((_, other)) = &e.else_branch {
            self.visit_expr(other);
        }
        (self.consumed, self.read_seen) = saved;
    }

    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.choose(&e.cond, "while ", SIGNALS);
        let saved = self.consumed;
        self.consumed = true;
        self.visit_expr(&e.cond);
        self.consumed = saved;
        self.visit_block(&e.body);
    }

    fn visit_expr_let(&mut self, e: &'ast syn::ExprLet) {
        self.visit_expr(&e.expr);
        let bits = self.taint(&e.expr, &self.locals);
        self.bind(&e.pat, bits, None);
    }

    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        self.choose(&e.expr, "match ", SIGNALS);
        let saved = (self.consumed, self.read_seen);
        self.consumed = true;
        self.visit_expr(&e.expr);
        self.consumed = saved.0;
        let bits = self.taint(&e.expr, &self.locals);
        if bits & RAW != 0
            && bits & self.counted() == 0
            && e.arms.iter().any(|a| pat_has_literal(&a.pat))
        {
            // `match thread::current().name() { Some("main") => …, _ => … }`: an inspection.
            let what = format!("match {}", self.source(e.expr.span(), &e.expr));
            self.push(FindingKind::TestDetected, e.expr.span().start().line, what);
        }
        for arm in &e.arms {
            for attr in &arm.attrs {
                self.visit_attribute(attr);
            }
            self.bind(&arm.pat, bits, None);
            self.visit_pat(&arm.pat);
            self.read_seen = saved.1;
            self.visit_expr(&arm.body);
        }
        (self.consumed, self.read_seen) = saved;
    }

    fn visit_pat_guard(&mut self, g: &'ast syn::PatGuard) {
        self.choose(&g.guard, "if ", SIGNALS);
        let saved = (self.consumed, self.read_seen);
        self.consumed = true;
        self.visit_expr(&g.guard);
        (self.consumed, self.read_seen) = saved;
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if self.report && matches!(e.op, BinOp::And(_) | BinOp::Or(_)) {
            let bits = self.taint(&e.left, &self.locals);
            if bits & self.counted() != 0 {
                let what = self.source(e.span(), e);
                if bits & (CFG | PROFILE) != 0
                    && let Some(mac) = cfg_macro(&e.left)
                {
                    let shown = self.source(mac.span(), mac);
                    self.push(
                        FindingKind::TestDetected,
                        mac.path.span().start().line,
                        shown,
                    );
                } else {
                    self.push(FindingKind::TestDetected, e.span().start().line, what);
                }
            }
        }
        syn::visit::visit_expr_binary(self, e);
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        if self.in_code() && self.report {
            let whole = self.call_taint(e, &self.locals);
            self.handed_on(e.args.iter(), whole);
        }
        syn::visit::visit_expr_call(self, e);
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        if self.in_code() && self.report {
            let whole = combine(self.method_taint(e, &self.locals));
            self.handed_on(e.args.iter(), whole);
        }
        if self.report
            && self.in_code()
            && CHOOSING_METHODS.contains(&e.method.to_string().as_str())
        {
            let bits = self.taint(&e.receiver, &self.locals);
            if bits & STRONG != 0 {
                let expr = Expr::MethodCall(e.clone());
                self.choose(&expr, "", STRONG);
            }
        }
        if self.in_code()
            && let Some((line, what)) = self
                .env
                .test_only_methods
                .get(&e.method.to_string())
                .cloned()
        {
            self.push(FindingKind::TestDetected, line, what.clone());
            let at = e.method.span().start().line;
            self.push(FindingKind::TestDetected, at, what);
        }
        syn::visit::visit_expr_method_call(self, e);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        // A name the file's own items give: alone, or under `self`, `super`, `crate`, `Self`.
        let own = p.segments.len() == 1
            || p.segments.first().is_some_and(|s| {
                ["self", "super", "crate", "Self"]
                    .iter()
                    .any(|w| s.ident == w)
            });
        if self.in_code()
            && own
            && let Some(last) = p.segments.last()
            && let Some((line, what)) = self.env.test_only.get(&last.ident.to_string()).cloned()
        {
            self.push(FindingKind::TestDetected, line, what.clone());
            self.push(
                FindingKind::TestDetected,
                last.ident.span().start().line,
                what,
            );
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_expr_return(&mut self, e: &'ast syn::ExprReturn) {
        if let Some(value) = &e.expr {
            let saved = self.consumed;
            self.consumed = self.ret.is_some();
            self.visit_expr(value);
            self.returned(value);
            self.consumed = saved;
        }
    }

    fn visit_expr_closure(&mut self, e: &'ast syn::ExprClosure) {
        let saved = self.ret.take();
        syn::visit::visit_expr_closure(self, e);
        self.ret = saved;
    }

    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        let saved = self.consumed;
        self.consumed = true;
        self.visit_expr(&e.right);
        self.consumed = saved;
        if let Expr::Path(p) = &*e.left
            && let Some(id) = p.path.get_ident()
        {
            let bits = self.taint(&e.right, &self.locals);
            let entry = self.locals.entry(id.to_string()).or_default();
            entry.bits |= bits;
        } else {
            self.visit_expr(&e.left);
        }
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        self.visit_expr(&e.expr);
        let bits = self.taint(&e.expr, &self.locals);
        self.bind(&e.pat, bits, None);
        self.visit_block(&e.body);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        // Macro bodies are tokens: read as expressions where they parse, so a choice hidden in
        // one (`assert!(if …)`, `println!("{}", if …)`) is seen.
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        if matches!(
            name.as_deref(),
            Some("cfg" | "env" | "option_env" | "concat" | "stringify" | "file")
        ) {
            return;
        }
        let exprs = macro_exprs(mac);
        for e in &exprs {
            Visit::visit_expr(self, e);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let saved = std::mem::take(&mut self.locals);
        syn::visit::visit_item_mod(self, m);
        self.locals = saved;
    }
}

impl Finder<'_, '_> {
    /// A `const` or `static`: what its name carries; from one other files see, a runner signal
    /// is `test-detected`.
    fn item_value(
        &mut self,
        attrs: &[syn::Attribute],
        name: String,
        vis: &Visibility,
        ty: &syn::Type,
        expr: &Expr,
    ) {
        for attr in attrs {
            self.visit_attribute(attr);
        }
        let saved = (self.consumed, self.read_seen, self.exported);
        self.consumed = true;
        self.visit_expr(expr);
        let bits = self.taint(expr, &Locals::new());
        self.learn(name, bits);
        if is_exported(vis) && is_bool(ty) && self.in_code() && bits & STRONG != 0 {
            self.choose(expr, "", STRONG);
        }
        (self.consumed, self.read_seen, self.exported) = saved;
    }
}
