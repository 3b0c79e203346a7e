//! The signals an expression carries: their kinds, where they come from (a call, a macro, a
//! variable's name) and how they go through calls, methods and comparisons.

use syn::punctuated::Punctuated;
use syn::{BinOp, Expr, Lit, Macro, Stmt};

use super::file::ends;
use super::strings::captured_names;
use super::{Finder, Local, Locals, pat_names};

pub(super) type Bits = u16;

/// `cfg!(test)`.
pub(super) const CFG: Bits = 1;
/// A build profile: `debug_assertions`, a build script's `PROFILE`.
pub(super) const PROFILE: Bits = 1 << 1;
/// State a runner or cargo sets when it runs tests, libtest's flags.
pub(super) const RUNNER: Bits = 1 << 2;
pub(super) const THREAD: Bits = 1 << 3;
/// The program's own name: `current_exe()`, argv[0].
pub(super) const PROGRAM: Bits = 1 << 4;
/// The working directory, the crate's folder, the temporary folder, a relative path.
pub(super) const PLACE: Bits = 1 << 5;
pub(super) const HOST: Bits = 1 << 6;
/// The thread written by a formatting macro.
pub(super) const SHOWN_THREAD: Bits = 1 << 7;
/// Carriers and marks: no signal alone, one together.
pub(super) const ARGS: Bits = 1 << 8;
pub(super) const VARS: Bits = 1 << 9;
pub(super) const REL_PATH: Bits = 1 << 10;
pub(super) const FLAG_MARK: Bits = 1 << 11;
pub(super) const VAR_MARK: Bits = 1 << 12;
/// The thread, the program's name or place, or the host inspected: compared, searched, probed
/// for existence (`exe.to_string_lossy().contains("deps")`, `Path::new("Cargo.toml").exists()`).
pub(super) const PROBE: Bits = 1 << 13;

pub(super) const STRONG: Bits = CFG | PROFILE | RUNNER;
/// Values that tell nothing until inspected (a path read to be used is the program's business).
pub(super) const RAW: Bits = THREAD | PROGRAM | PLACE | HOST;
pub(super) const SIGNALS: Bits = STRONG | PROBE;
/// A function's parameter, while what a function does with its parameters is learnt: handed on
/// to its value (`PASS`), inspected (`PROBE_PASS`).
pub(super) const PASS: Bits = 1 << 14;
pub(super) const PROBE_PASS: Bits = 1 << 15;

/// Calls whose value is their argument's, wrapped (`Some(x)`, `PathBuf::from(x)`).
pub(super) const WRAPPERS: &[&str] = &[
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
pub(super) const WRAPPING_TYPES: &[&str] = &[
    "Path", "PathBuf", "OsStr", "OsString", "String", "Box", "Rc", "Arc", "Cell", "RefCell",
    "Mutex", "RwLock", "LazyLock", "LazyCell", "Lazy", "OnceLock", "OnceCell",
];

/// Flags only libtest takes (a test binary's arguments).
pub(super) const LIBTEST_FLAGS: &[&str] = &[
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
pub(super) const CARGO_RUN_VARS: &[&str] = &[
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
pub(super) const CHOOSING_METHODS: &[&str] = &[
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
pub(super) const FORMATTING: &[&str] = &[
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

impl Finder<'_, '_> {
    /// What an expression carries (see the module's documentation), with `locals` in scope.
    pub(super) fn taint(&self, e: &Expr, locals: &Locals) -> Bits {
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
    pub(super) fn call_taint(&self, c: &syn::ExprCall, locals: &Locals) -> Bits {
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

    pub(super) fn block_taint(&self, block: &syn::Block, locals: &Locals) -> Bits {
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

    pub(super) fn path_taint(&self, path: &syn::Path, locals: &Locals) -> Bits {
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
    pub(super) fn call_source(
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

    pub(super) fn method_taint(&self, m: &syn::ExprMethodCall, locals: &Locals) -> Bits {
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
    pub(super) fn wraps(&self, func: &Expr) -> bool {
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

    pub(super) fn macro_taint(&self, mac: &Macro, locals: &Locals) -> Bits {
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

    pub(super) fn var_bits(&self, name: &str) -> Bits {
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
}

/// Whether a cfg's tokens name `test` (`CFG`) or `debug_assertions` (`PROFILE`).
pub(super) fn cfg_bits(tokens: &str) -> Bits {
    tokens
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .fold(0, |b, w| match w {
            "test" => b | CFG,
            "debug_assertions" => b | PROFILE,
            _ => b,
        })
}

/// Variables a test runner, cargo running a test, or goal sets (see the module's documentation).
pub(super) fn runner_var(name: &str) -> bool {
    name.starts_with("RUST_TEST")
        || name.starts_with("NEXTEST")
        || name.starts_with("GOAL_")
        || name.starts_with("CARGO_PKG_")
        || name.starts_with("CARGO_BIN_EXE_")
        || CARGO_RUN_VARS.contains(&name)
}

/// The marks a constant string carries: a libtest flag, a runner variable's name or prefix.
pub(super) fn string_marks(s: &str) -> Bits {
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

pub(super) fn lit_marks(lit: &Lit) -> Bits {
    match lit {
        Lit::Str(s) => string_marks(&s.value()),
        _ => 0,
    }
}

/// A carrier meeting its mark: `args()` beside a libtest flag, `vars()` beside a runner variable.
pub(super) fn combine(mut bits: Bits) -> Bits {
    if bits & ARGS != 0 && bits & FLAG_MARK != 0 {
        bits |= RUNNER;
    }
    if bits & VARS != 0 && bits & VAR_MARK != 0 {
        bits |= RUNNER;
    }
    bits
}

pub(super) fn relative(path: &str) -> bool {
    !path.is_empty() && !path.starts_with(['/', '\\', '~']) && path.as_bytes().get(1) != Some(&b':')
}

pub(super) fn is_int(e: &Expr, value: u64) -> bool {
    matches!(e, Expr::Lit(l) if matches!(&l.lit, Lit::Int(i) if i.base10_parse::<u64>().ok() == Some(value)))
}

/// A macro's body as comma-separated expressions (the first one alone when the rest are not).
pub(super) fn macro_exprs(mac: &Macro) -> Vec<Expr> {
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
