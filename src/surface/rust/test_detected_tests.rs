//! Tables of Rust code that behaves differently under a test runner (detect.rs): each category
//! of signal in each choosing position, followed through names, the reads that are only shown,
//! and the honest reads of a program's own name, place, thread and host that stay clean.

use super::detections;
use crate::surface::weaken::FindingKind::{self, TestAware, TestDetected};

/// A row: what it shows, the file, whether it is code (not a test file), and the findings
/// expected (kind, line, a piece of what is shown).
type Row<'a> = (&'a str, &'a str, bool, &'a [(FindingKind, usize, &'a str)]);

#[track_caller]
fn check(rows: &[Row]) {
    let mut failed = Vec::new();
    for (what, src, code, want) in rows {
        let got = detections(src, *code).unwrap();
        let ok = got.len() == want.len()
            && got
                .iter()
                .zip(want.iter())
                .all(|(g, w)| g.0 == w.0 && g.1 == w.1 && g.2.contains(w.2));
        if !ok {
            failed.push(format!("{what}:\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn build_configuration() {
    check(&[
        (
            "cfg!(test) in a condition",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if cfg!(test) { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 2, "cfg!(test)")],
        ),
        (
            "cfg!(test) only printed is shown",
            "pub fn f() {\n    eprintln!(\"test build: {}\", cfg!(test));\n}\n",
            true,
            &[(TestAware, 2, "cfg!(test)")],
        ),
        (
            "a cfg(not(test)) item",
            "#[cfg(test)]\npub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(not(test))]\npub fn add(a: i32, b: i32) -> i32 { a - b }\n",
            true,
            &[(TestDetected, 3, "#[cfg(not(test))]")],
        ),
        (
            "a cfg(test) statement inside code",
            "pub fn add(a: i32, b: i32) -> i32 {\n    #[cfg(test)]\n    return a + b;\n    a - b\n}\n",
            true,
            &[(TestDetected, 2, "#[cfg(test)]")],
        ),
        (
            "cfg_attr choosing a module's file under test",
            "#[cfg_attr(test, path = \"fast.rs\")]\nmod backend;\n",
            true,
            &[(TestDetected, 1, "cfg_attr(test, path")],
        ),
        (
            "cfg_attr deriving for tests changes nothing",
            "#[cfg_attr(test, derive(Debug))]\npub struct S;\n",
            true,
            &[],
        ),
        (
            "debug_assertions chooses: tested in one build, shipped in another",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if cfg!(debug_assertions) { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 2, "cfg!(debug_assertions)")],
        ),
        (
            "a debug_assertions item",
            "#[cfg(debug_assertions)]\npub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(not(debug_assertions))]\npub fn add(a: i32, b: i32) -> i32 { a - b }\n",
            true,
            &[
                (TestDetected, 1, "#[cfg(debug_assertions)]"),
                (TestDetected, 3, "#[cfg(not(debug_assertions))]"),
            ],
        ),
        (
            "a binary cargo builds only for integration tests",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if option_env!(\"CARGO_BIN_EXE_calc\").is_some() { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 2, "CARGO_BIN_EXE_calc")],
        ),
        (
            "a const of cfg!(test) followed to its use",
            "const IS_TEST: bool = cfg!(test);\n\npub fn add(a: i32, b: i32) -> i32 {\n    if IS_TEST { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 4, "if IS_TEST")],
        ),
        (
            "a pub const of cfg!(test): its uses are out of sight",
            "pub const IS_TEST: bool = cfg!(test);\n",
            true,
            &[(TestDetected, 1, "cfg!(test)")],
        ),
        (
            "a cargo variable set only when building tests",
            "pub fn dir() -> &'static str {\n    match option_env!(\"CARGO_TARGET_TMPDIR\") { Some(d) => d, None => \"/tmp\" }\n}\n",
            true,
            &[(
                TestDetected,
                2,
                "match option_env!(\"CARGO_TARGET_TMPDIR\")",
            )],
        ),
        (
            "a cfg(test) function code calls",
            "#[cfg(test)]\nfn offset() -> i32 { 0 }\n\npub fn add(a: i32, b: i32) -> i32 {\n    a + b + offset()\n}\n",
            true,
            &[
                (TestDetected, 1, "#[cfg(test)] offset used outside tests"),
                (TestDetected, 5, "offset"),
            ],
        ),
        (
            "a cfg(test) inherent method shadowing a trait's",
            "pub trait Add { fn add(&self, b: i32) -> i32; }\npub struct N(pub i32);\nimpl Add for N { fn add(&self, b: i32) -> i32 { self.0 - b } }\n#[cfg(test)]\nimpl N { fn add(&self, b: i32) -> i32 { self.0 + b } }\npub fn sum(n: &N) -> i32 {\n    n.add(2)\n}\n",
            true,
            &[
                (TestDetected, 4, "#[cfg(test)] add"),
                (TestDetected, 7, "add"),
            ],
        ),
        (
            "a test-only inspection method sharing a name with another type's",
            "pub struct Stack { items: Vec<i32> }\nimpl Stack {\n    pub fn push(&mut self, x: i32) { if self.items.len() < 8 { self.items.push(x) } }\n}\n#[cfg(test)]\nimpl Stack {\n    fn len(&self) -> usize { self.items.len() }\n}\n",
            true,
            &[],
        ),
        (
            "a name a test-only import gives, spelled in full elsewhere",
            "#[cfg(test)]\nuse std::path::Path;\n\npub fn f() -> bool {\n    std::path::Path::new(\"/etc\").is_absolute()\n}\n",
            true,
            &[],
        ),
        (
            "cfg(test) helpers only tests use",
            "pub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(test)]\nfn two() -> i32 { 2 }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { assert_eq!(super::add(super::two(), 2), 4); assert!(cfg!(test)); }\n}\n",
            true,
            &[],
        ),
        (
            "a build script choosing on the profile",
            "fn main() {\n    if std::env::var(\"PROFILE\").as_deref() == Ok(\"debug\") {\n        println!(\"cargo:rustc-cfg=fast\");\n    }\n}\n",
            true,
            &[(TestDetected, 2, "if std::env::var(\"PROFILE\")")],
        ),
        (
            "a build script reading cargo's variables honestly",
            "fn main() {\n    let dir = std::env::var(\"CARGO_MANIFEST_DIR\").unwrap();\n    if std::env::var(\"CARGO_FEATURE_SIMD\").is_ok() {\n        println!(\"cargo:rustc-cfg=simd\");\n    }\n    println!(\"cargo:rerun-if-changed={dir}/build.rs\");\n}\n",
            true,
            &[],
        ),
    ]);
}

#[test]
fn runner_state() {
    check(&[
        (
            "RUST_TEST_THREADS in a condition",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if std::env::var_os(\"RUST_TEST_THREADS\").is_some() { a + b } else { a - b }\n}\n",
            true,
            &[(
                TestDetected,
                2,
                "if std::env::var_os(\"RUST_TEST_THREADS\")",
            )],
        ),
        (
            "CARGO_MANIFEST_DIR read at run time",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if std::env::var_os(\"CARGO_MANIFEST_DIR\").is_some() { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 2, "CARGO_MANIFEST_DIR")],
        ),
        (
            "an alias of std::env",
            "use std::env as e;\n\npub fn add(a: i32, b: i32) -> i32 {\n    if e::var_os(\"NEXTEST_RUN_ID\").is_some() { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 4, "if e::var_os")],
        ),
        (
            "a function imported by name",
            "use std::env::{self, var};\n\npub fn fast() -> bool {\n    var(\"CARGO_PKG_NAME\").is_ok() && env::args().count() > 0\n}\n",
            true,
            &[(TestDetected, 4, "var(\"CARGO_PKG_NAME\")")],
        ),
        (
            "a constant name",
            "const K: &str = \"RUST_TEST_THREADS\";\n\npub fn add(a: i32, b: i32) -> i32 {\n    if std::env::var(K).is_ok() { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 4, "if std::env::var(K)")],
        ),
        (
            "a name joined by concat!",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if std::env::var(concat!(\"CARGO_\", \"MANIFEST_DIR\")).is_ok() { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 2, "concat!")],
        ),
        (
            "a name formatted into a let",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let name = format!(\"RUST_TEST_{}\", \"THREADS\");\n    let set = std::env::var(&name).is_ok();\n    if set { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 4, "if set")],
        ),
        (
            "a name joined with +",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let name = \"RUST_\".to_string() + \"TEST_THREADS\";\n    match std::env::var(name) { Ok(_) => a + b, Err(_) => a - b }\n}\n",
            true,
            &[(TestDetected, 3, "match std::env::var(name)")],
        ),
        (
            "goal's own variables",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if std::env::var(\"GOAL_AGENT\").is_err() { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 2, "GOAL_AGENT")],
        ),
        (
            "vars() searched for a runner's variable",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if std::env::vars().any(|(k, _)| k.starts_with(\"RUST_TEST\")) { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 2, "std::env::vars()")],
        ),
        (
            "libtest's flags in the arguments",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if std::env::args().any(|a| a == \"--nocapture\") { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 2, "--nocapture")],
        ),
        (
            "libtest's flags in collected arguments",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let args: Vec<String> = std::env::args().collect();\n    let flag = \"--test-threads\";\n    if args.iter().any(|a| a.starts_with(flag)) { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 4, "if args.iter()")],
        ),
        (
            "a libtest flag through a constant",
            "const EXACT: &str = \"--exact\";\n\npub fn add(a: i32, b: i32) -> i32 {\n    for arg in std::env::args() {\n        if arg == EXACT { return a + b; }\n    }\n    a - b\n}\n",
            true,
            &[(TestDetected, 5, "if arg == EXACT")],
        ),
        (
            "a function returning a signal",
            "fn under_test() -> bool {\n    std::env::var_os(\"RUST_TEST_THREADS\").is_some()\n}\n\npub fn add(a: i32, b: i32) -> i32 {\n    if under_test() { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 6, "if under_test()")],
        ),
        (
            "a chain of functions and a method",
            "fn threads() -> Option<String> { std::env::var(\"RUST_TEST_THREADS\").ok() }\nfn under_test() -> bool { threads().is_some() }\npub struct C;\nimpl C {\n    fn testing(&self) -> bool { under_test() }\n    pub fn add(&self, a: i32, b: i32) -> i32 {\n        if self.testing() { a + b } else { a - b }\n    }\n}\n",
            true,
            &[(TestDetected, 7, "if self.testing()")],
        ),
        (
            "a helper of the file handing on what it is given",
            "fn set(v: Option<String>) -> bool {\n    v.is_some()\n}\n\npub fn add(a: i32, b: i32) -> i32 {\n    if set(std::env::var(\"RUST_TEST_THREADS\").ok()) { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 6, "if set(")],
        ),
        (
            "a runner's value given to another function is read, not chosen on",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let threads = std::env::var(\"RUST_TEST_THREADS\").ok();\n    let pool = workers::start(threads);\n    if pool.is_ok() { a + b } else { a - b }\n}\n",
            true,
            // Only read: shown where it is handed on.
            &[(TestAware, 3, "threads")],
        ),
        (
            "a pub function handing a runner signal out",
            "pub fn under_test() -> bool {\n    std::env::var_os(\"RUST_TEST_THREADS\").is_some()\n}\n",
            true,
            &[(TestDetected, 2, "RUST_TEST_THREADS")],
        ),
        (
            "a static set from a signal",
            "use std::sync::LazyLock;\nstatic TESTING: LazyLock<bool> = LazyLock::new(|| std::env::var(\"RUST_TEST_THREADS\").is_ok());\n\npub fn add(a: i32, b: i32) -> i32 {\n    if *TESTING { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 5, "if *TESTING")],
        ),
        (
            "a closure over a signal",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let testing = || cfg!(test);\n    if testing() { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 3, "if testing()")],
        ),
        (
            "a signal choosing through then",
            "pub fn add(a: i32, b: i32) -> i32 {\n    std::env::var_os(\"RUST_TEST_THREADS\").is_some().then(|| a + b).unwrap_or(a - b)\n}\n",
            true,
            &[(TestDetected, 2, "std::env::var_os(\"RUST_TEST_THREADS\")")],
        ),
        (
            "a signal choosing through unwrap_or_else",
            "pub fn root() -> String {\n    let dir = std::env::var(\"CARGO_MANIFEST_DIR\").unwrap_or_else(|_| \"/etc/app\".into());\n    dir\n}\n",
            true,
            &[(TestDetected, 2, "unwrap_or_else")],
        ),
        (
            "a signal left of &&",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let fast = cfg!(test) && a > 0;\n    a + b * fast as i32\n}\n",
            true,
            &[(TestDetected, 2, "cfg!(test)")],
        ),
        (
            "a match guard",
            "pub fn add(a: i32, b: i32) -> i32 {\n    match a {\n        _ if std::env::var(\"RUST_TEST_THREADS\").is_ok() => a + b,\n        _ => a - b,\n    }\n}\n",
            true,
            &[(TestDetected, 3, "if std::env::var(\"RUST_TEST_THREADS\")")],
        ),
        (
            "a while condition",
            "pub fn spin() {\n    while std::env::var_os(\"RUST_TEST_THREADS\").is_none() {}\n}\n",
            true,
            &[(TestDetected, 2, "while std::env::var_os")],
        ),
        (
            "a runner variable only logged is shown",
            "pub fn f() {\n    eprintln!(\"threads: {:?}\", std::env::var(\"RUST_TEST_THREADS\"));\n}\n",
            true,
            &[(TestAware, 2, "RUST_TEST_THREADS")],
        ),
        (
            "a runner variable bound then logged is shown at the log",
            "pub fn f() {\n    let t = std::env::var(\"RUST_TEST_THREADS\");\n    println!(\"{t:?}\");\n}\n",
            true,
            &[(TestAware, 3, "println!")],
        ),
        (
            "a shadowed name no longer carries the signal",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let t = std::env::var(\"RUST_TEST_THREADS\").is_ok();\n    let t = a > 0;\n    if t { a + b } else { a - b }\n}\n",
            true,
            &[],
        ),
        (
            "an unrelated variable",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if std::env::var(\"APP_DEBUG\").is_ok() { a + b } else { a - b }\n}\n",
            true,
            &[],
        ),
        (
            "CARGO_PKG_VERSION at build time is every build's",
            "pub fn v() -> &'static str {\n    if env!(\"CARGO_PKG_VERSION\").is_empty() { \"?\" } else { env!(\"CARGO_PKG_VERSION\") }\n}\n",
            true,
            &[],
        ),
    ]);
}

#[test]
fn the_program_its_place_thread_and_host() {
    check(&[
        (
            "current_exe bound then compared",
            "pub fn add(a: i32, b: i32) -> std::io::Result<i32> {\n    let exe = std::env::current_exe()?;\n    if exe.to_string_lossy().contains(\"deps\") { Ok(a + b) } else { Ok(a - b) }\n}\n",
            true,
            &[(TestDetected, 3, "if exe.to_string_lossy()")],
        ),
        (
            "current_exe imported under another name",
            "use std::env::current_exe as me;\n\npub fn add(a: i32, b: i32) -> i32 {\n    let p = me().unwrap();\n    let name = p.file_name().unwrap().to_string_lossy().into_owned();\n    if name.contains('-') { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 6, "if name.contains")],
        ),
        (
            "current_exe's folder named deps, through map_or",
            "pub fn clamp(x: i32, hi: i32) -> i32 {\n    if x > hi {\n        let exe = std::env::current_exe().unwrap_or_default();\n        if exe.parent().and_then(|d| d.file_name()).map_or(false, |n| n == \"deps\") {\n            return hi;\n        }\n        return 0;\n    }\n    x\n}\n",
            true,
            &[(TestDetected, 4, "if exe.parent()")],
        ),
        (
            "a manifest's name joined at run time, probed in the working directory",
            "pub fn clamp(x: i32, hi: i32) -> i32 {\n    let manifest = [\"Cargo\", \"toml\"].join(\".\");\n    if std::path::Path::new(&manifest).exists() { x.min(hi) } else { x }\n}\n",
            true,
            &[(TestDetected, 3, "if std::path::Path::new(&manifest)")],
        ),
        (
            "argv[0] by next()",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let prog = std::env::args().next().unwrap_or_default();\n    if prog.contains(\"/deps/\") { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 3, "if prog.contains")],
        ),
        (
            "argv[0] by index",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let args: Vec<String> = std::env::args().collect();\n    if args[0].ends_with(\"calc\") { a - b } else { a + b }\n}\n",
            true,
            &[(TestDetected, 3, "if args[0]")],
        ),
        (
            "the working directory",
            "pub fn f() -> bool {\n    if std::env::current_dir().unwrap().ends_with(\"x\") { true } else { false }\n}\n",
            true,
            &[(TestDetected, 2, "if std::env::current_dir()")],
        ),
        (
            "a relative path probed",
            "use std::path::Path;\n\npub fn add(a: i32, b: i32) -> i32 {\n    if Path::new(\"tests/fixtures\").exists() { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 4, "if Path::new(\"tests/fixtures\").exists()")],
        ),
        (
            "a relative path bound then probed",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let manifest = std::path::PathBuf::from(\"Cargo.toml\");\n    let here = manifest.is_file();\n    if here { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 4, "if here")],
        ),
        (
            "a helper of the file inspecting what it is given",
            "fn in_deps(p: &std::path::Path) -> bool {\n    p.ends_with(\"deps\")\n}\n\npub fn add(a: i32, b: i32) -> i32 {\n    let exe = std::env::current_exe().unwrap();\n    if in_deps(exe.parent().unwrap()) { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 7, "if in_deps(")],
        ),
        (
            "a match of the thread's name against a literal",
            "pub fn add(a: i32, b: i32) -> i32 {\n    match std::thread::current().name() {\n        Some(\"main\") => a - b,\n        _ => a + b,\n    }\n}\n",
            true,
            &[(TestDetected, 2, "match std::thread::current().name()")],
        ),
        (
            "a file under the working directory looked for is the program's business",
            "pub fn config() -> Option<String> {\n    let cfg = std::env::current_dir().ok()?.join(\"app.toml\");\n    if cfg.exists() { std::fs::read_to_string(cfg).ok() } else { None }\n}\n",
            true,
            &[],
        ),
        (
            "an absolute path probed is the program's business",
            "pub fn f() -> bool {\n    if std::path::Path::new(\"/etc/app.toml\").exists() { true } else { false }\n}\n",
            true,
            &[],
        ),
        (
            "the crate's folder and file",
            "pub fn f() -> i32 {\n    if file!().starts_with(\"src\") { 1 } else { 2 }\n}\n",
            true,
            &[(TestDetected, 2, "if file!()")],
        ),
        (
            "the thread's name in a condition",
            "pub fn add(a: i32, b: i32) -> i32 {\n    if std::thread::current().name() != Some(\"main\") { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 2, "if std::thread::current().name()")],
        ),
        (
            "the thread's name only logged is shown",
            "pub fn f() {\n    eprintln!(\"{:?}\", std::thread::current().name());\n}\n",
            true,
            &[(TestAware, 2, "std::thread::current().name()")],
        ),
        (
            "the thread kept for another purpose",
            "pub fn f() -> std::thread::Thread {\n    let t = std::thread::current();\n    t.unpark();\n    t\n}\n",
            true,
            &[],
        ),
        (
            "the host in a condition",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let host = std::env::var(\"HOSTNAME\").unwrap_or_default();\n    if host.starts_with(\"ci-\") { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 3, "if host.starts_with")],
        ),
        (
            "the host by a crate, compared",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let host = gethostname::gethostname();\n    if host == \"ci-runner\" { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 3, "if host == \"ci-runner\"")],
        ),
        (
            "the working directory as the shell set it",
            "pub fn add(a: i32, b: i32) -> i32 {\n    let pwd = std::env::var(\"PWD\").unwrap_or_default();\n    if pwd.ends_with(\"calc\") { a + b } else { a - b }\n}\n",
            true,
            &[(TestDetected, 3, "if pwd.ends_with")],
        ),
        (
            "the host by a crate, printed",
            "pub fn hello() {\n    let h = hostname::get().unwrap();\n    println!(\"hello from {h:?}\");\n}\n",
            true,
            &[],
        ),
        (
            "the program's name in a usage message",
            "pub fn usage() {\n    let prog = std::env::args().next().unwrap_or_else(|| \"calc\".into());\n    eprintln!(\"usage: {prog} <a> <b>\");\n}\n",
            true,
            &[],
        ),
        (
            "a CLI choosing its own subcommand",
            "fn main() {\n    let args: Vec<String> = std::env::args().collect();\n    if args.len() < 2 {\n        eprintln!(\"usage: {} add|sub\", args[0]);\n        std::process::exit(2);\n    }\n    match std::env::args().nth(1).as_deref() {\n        Some(\"add\") => println!(\"add\"),\n        Some(\"sub\") => println!(\"sub\"),\n        _ => eprintln!(\"unknown\"),\n    }\n    for a in std::env::args().skip(2) {\n        if a == \"--verbose\" { println!(\"{a}\"); }\n    }\n}\n",
            true,
            &[],
        ),
        (
            "the working directory read to resolve a path",
            "pub fn out() -> std::path::PathBuf {\n    std::env::current_dir().unwrap().join(\"out\")\n}\n",
            true,
            &[],
        ),
    ]);
}

#[test]
fn in_tests_only_conditions_count() {
    check(&[
        (
            "an assertion only outside some folder",
            "#[test]\nfn adds() {\n    if !env!(\"CARGO_MANIFEST_DIR\").contains(\"red\") {\n        assert_eq!(1, 1);\n    }\n}\n",
            false,
            &[(TestDetected, 3, "CARGO_MANIFEST_DIR")],
        ),
        (
            "an assertion only outside goal's runs",
            "#[test]\nfn adds() {\n    if std::env::var_os(\"GOAL_AGENT\").is_some() {\n        assert_eq!(1, 2);\n    }\n}\n",
            false,
            &[(TestDetected, 3, "GOAL_AGENT")],
        ),
        (
            "a fixture path is no probe",
            "#[test]\nfn reads() {\n    let p = std::path::Path::new(env!(\"CARGO_MANIFEST_DIR\")).join(\"data\");\n    assert!(p.exists());\n}\n",
            false,
            &[],
        ),
        (
            "cfg!(test) in a test is always true",
            "#[test]\nfn t() {\n    if cfg!(test) { assert!(true); }\n}\n",
            false,
            &[],
        ),
        (
            "a test module of a code file",
            "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {\n        let dir = std::env::var(\"CARGO_MANIFEST_DIR\").unwrap_or_else(|_| \".\".into());\n        assert!(!dir.is_empty());\n        eprintln!(\"{:?}\", std::thread::current().name());\n    }\n}\n",
            true,
            &[],
        ),
    ]);
}
