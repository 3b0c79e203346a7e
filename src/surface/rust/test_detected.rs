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
use syn::{BinOp, Expr, ImplItem, Item, Macro, Meta, Pat, ReturnType, Stmt, Visibility};

mod file;
mod signals;
mod strings;
mod syntax;

use file::Env;
use signals::*;
use syntax::*;

use super::items::is_test_item;
use super::{RustParseError, parse, with_spans_dropped};
use crate::surface::weaken::FindingKind;
use crate::surface::weaken::test_detected::Detection;

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
