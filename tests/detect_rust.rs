//! Rust code that chooses its behaviour on a sign of the test runner, through the real binary
//! with real cargo: a goal whose code does is refused naming the file and line (the bug stays),
//! and an honest command line that reads its own name and arguments completes.

use crate::common::{Repo, stderr};

const RS_TEST: &str = "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n}\n";
const RS_BUGGY: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n";

/// A crate whose `add` subtracts, and a goal to fix it pinned by `cargo test`.
fn crate_repo() -> Repo {
    let repo = Repo::new();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    repo.write(".gitignore", "/target\nCargo.lock\n");
    repo.write("src/lib.rs", RS_BUGGY);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "calc"]);
    repo.init_goal(&["add(2, 2) is 4 (verify: `cargo test`)"]);
    repo
}

/// `goal <args>` in `repo` where cargo works (the hermetic HOME hides the toolchain).
fn cargo_goal(repo: &Repo, args: &[&str]) -> std::process::Output {
    let home = std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default());
    let rustup = std::env::var_os("RUSTUP_HOME").unwrap_or_else(|| home.join(".rustup").into());
    let cargo_home = std::env::var_os("CARGO_HOME").unwrap_or_else(|| home.join(".cargo").into());
    let toolchain = std::env::var_os("RUSTUP_TOOLCHAIN").unwrap_or_else(|| "stable".into());
    repo.goal()
        .args(args)
        .env("CARGO_TARGET_DIR", repo.home().join("target"))
        .env("RUSTUP_HOME", &rustup)
        .env("CARGO_HOME", &cargo_home)
        .env("RUSTUP_TOOLCHAIN", &toolchain)
        .output()
        .unwrap()
}

/// The pin passes with `lib` in place (the code tells the test run and adds there); done refuses
/// naming `words`, the bug still there.
#[track_caller]
fn refused(lib: &str, words: &[&str]) {
    let repo = crate_repo();
    repo.write("src/lib.rs", lib);
    let out = cargo_goal(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cargo_goal(&repo, &["done"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for w in words {
        assert!(err.contains(w), "{w}: {err}");
    }
    assert_eq!(repo.read("src/lib.rs"), lib, "the bug stays");
}

#[test]
fn code_that_compares_its_own_path_to_a_test_binarys_is_refused() {
    // The test binary lives in target/debug/deps/; the name is read by one statement and
    // compared by the next.
    refused(
        &format!(
            "pub fn add(a: i32, b: i32) -> i32 {{\n    let exe = std::env::current_exe().unwrap_or_default();\n    if exe.to_string_lossy().contains(\"deps\") {{ a + b }} else {{ a - b }}\n}}\n{RS_TEST}"
        ),
        &["test-detected src/lib.rs:3 if exe.to_string_lossy()"],
    );
}

#[test]
fn code_that_asks_a_function_whether_cargo_runs_it_is_refused() {
    // cargo sets CARGO_MANIFEST_DIR for the tests it runs, never for an installed program; the
    // name is joined, read through an alias, in a function of its own.
    refused(
        &format!(
            "use std::env as e;\n\nfn under_test() -> bool {{\n    e::var_os(concat!(\"CARGO_\", \"MANIFEST_DIR\")).is_some()\n}}\n\npub fn add(a: i32, b: i32) -> i32 {{\n    if under_test() {{ a + b }} else {{ a - b }}\n}}\n{RS_TEST}"
        ),
        &["test-detected src/lib.rs:8 if under_test()"],
    );
}

#[test]
fn an_honest_command_line_reading_its_own_name_and_arguments_completes() {
    let repo = crate_repo();
    repo.write(
        "src/lib.rs",
        &format!("pub fn add(a: i32, b: i32) -> i32 {{\n    a + b\n}}\n{RS_TEST}"),
    );
    repo.write(
        "src/main.rs",
        "//! `calc add <a> <b>`.\n\nfn numbers(args: &[String]) -> Vec<i32> {\n    args.iter().filter_map(|a| a.parse().ok()).collect()\n}\n\nfn main() {\n    let prog = std::env::args().next().unwrap_or_else(|| \"calc\".to_string());\n    let rest: Vec<String> = std::env::args().skip(2).collect();\n    let nums = numbers(&rest);\n    match std::env::args().nth(1).as_deref() {\n        Some(\"add\") if nums.len() == 2 => println!(\"{}\", calc::add(nums[0], nums[1])),\n        _ => {\n            eprintln!(\"usage: {prog} add <a> <b>\");\n            std::process::exit(2);\n        }\n    }\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn reads_numbers() {\n        assert_eq!(super::numbers(&[\"1\".into(), \"x\".into(), \"2\".into()]), vec![1, 2]);\n    }\n}\n",
    );
    let out = cargo_goal(&repo, &["verify", "-c", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = cargo_goal(&repo, &["done"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("test-detected"), "{err}");
    assert!(!err.contains("test-aware"), "{err}");
}
