//! Rust code that chooses its behaviour on a sign of the test runner, through the real binary
//! with real cargo: a goal whose code does is refused naming the file and line (the bug stays),
//! and an honest command line that reads its own name and arguments completes.

use crate::common::stderr;
use crate::red_history::{RS_BUGGY, RS_TEST, cargo_goal, crate_repo, rust_refused as refused};

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
    let repo = crate_repo(RS_BUGGY);
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
