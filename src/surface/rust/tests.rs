use super::*;

const BASE: &str = "\
/// Adds.
pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

#[cfg(test)]
mod tests {
    #[test]
    fn old() {
        assert_eq!(super::add(1, 1), 0);
    }
}
";

const WORK: &str = "\
/// Adds.
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

pub fn mul(a: i32, b: i32) -> i32 {
    a * b
}

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(super::add(2, 2), 4);
    }
}
";

#[test]
fn red_has_the_base_code_and_the_working_tests() {
    let red = red_rust(Some(BASE), WORK).unwrap();
    assert!(
        red.starts_with("/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"),
        "{red}"
    );
    assert!(red.contains("fn adds()"), "{red}");
    assert!(!red.contains("fn old()"), "{red}");
    assert!(!red.contains("fn mul"), "{red}");
    assert!(syn::parse_file(&red).is_ok(), "{red}");
}

#[test]
fn red_rust_cases() {
    // (base, work, expected red text)
    let cases: &[(Option<&str>, &str, &str)] = &[
        // A file new in the goal: only its tests.
        (
            None,
            "fn f() {}\n#[test]\nfn t() { f(); }\n",
            "#[test]\nfn t() { f(); }\n",
        ),
        // No tests anywhere: the base as it is.
        (Some("fn f() {}\n"), "fn g() {}\n", "fn f() {}\n"),
        // Tests removed in the goal: the base without its old tests.
        (
            Some("fn f() {}\n#[test]\nfn t() {}\n"),
            "fn f() {}\n",
            "fn f() {}\n",
        ),
        // cfg(all(test, …)) items are tests; cfg(not(test)) and cfg(any(test, feature)) are code.
        (
            Some("#[cfg(not(test))]\nfn a() {}\n#[cfg(any(test, feature = \"x\"))]\nfn b() {}\n"),
            "#[cfg(all(test, unix))]\nuse std::fs;\n",
            "#[cfg(not(test))]\nfn a() {}\n#[cfg(any(test, feature = \"x\"))]\nfn b() {}\n\n#[cfg(all(test, unix))]\nuse std::fs;\n",
        ),
        // A test in an inline module goes back into the base's module.
        (
            Some("mod m {\n    pub fn f() {}\n}\n"),
            "mod m {\n    pub fn f() {}\n    #[tokio::test]\n    async fn t() {}\n}\n",
            "mod m {\n    pub fn f() {}\n    #[tokio::test]\n    async fn t() {}\n}\n",
        ),
        // … or into a new module of the same name when the base has none.
        (
            Some("fn f() {}\n"),
            "mod m {\n    #[test]\n    fn t() {}\n}\n",
            "fn f() {}\n\nmod m {\n    #[test]\n    fn t() {}\n}\n",
        ),
        // A shebang-less inner attribute and doc comments stay; #[ignore] tests are tests.
        (
            Some("#![allow(dead_code)]\nfn f() {}\n"),
            "#![allow(dead_code)]\n/// doc\n#[test]\n#[ignore]\nfn t() {}\n",
            "#![allow(dead_code)]\nfn f() {}\n\n/// doc\n#[test]\n#[ignore]\nfn t() {}\n",
        ),
    ];
    for (base, work, want) in cases {
        let red = red_rust(*base, work).unwrap();
        assert_eq!(red, *want, "base {base:?} work {work:?}");
    }
}

/// The base of a crate whose `add` subtracts, with one inline test.
const CRATE_BASE: &str = "\
//! Calc.

pub fn add(a: i32, b: i32) -> i32 {
    a - b
}

pub fn mul(a: i32, b: i32) -> i32 {
    a * b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn muls() {
        assert_eq!(mul(2, 3), 6);
    }
}
";

#[test]
fn where_the_goal_changed_only_tests_the_red_file_is_the_working_file() {
    // (base, work): each work changes only tests (added, edited, removed, moved, nested).
    let nested_base = "mod m {\n    pub fn f() {}\n}\n\npub fn g() {}\n";
    let cases: Vec<(&str, String)> = vec![
        // A test added to the test module.
        (
            CRATE_BASE,
            CRATE_BASE.replace(
                "        assert_eq!(mul(2, 3), 6);\n    }\n",
                "        assert_eq!(mul(2, 3), 6);\n    }\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n",
            ),
        ),
        // The first test module of a file, after a blank line.
        (
            "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n".to_string(),
        ),
        // The tests removed (and the blank lines around them with them).
        (CRATE_BASE, CRATE_BASE[..CRATE_BASE.find("#[cfg(test)]").unwrap()].trim_end().to_string() + "\n"),
        // A test moved between code items, one in a nested module, comments between items.
        (
            nested_base,
            "mod m {\n    pub fn f() {}\n\n    #[test]\n    fn t() {}\n}\n\n// between\n#[test]\nfn top() {}\n\npub fn g() {}\n".to_string(),
        ),
    ];
    for (base, work) in &cases {
        assert_eq!(red_rust(Some(base), work).unwrap(), *work, "base {base:?}");
    }
}

#[test]
fn the_red_file_of_the_final_tree_is_the_test_first_file() {
    // Test first: the test written on the old code; then the fix, which also adds a helper,
    // removes a function and rewrites a comment between items.
    let test_first = CRATE_BASE.replace(
        "        assert_eq!(mul(2, 3), 6);\n    }\n",
        "        assert_eq!(mul(2, 3), 6);\n    }\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 2), 4);\n    }\n",
    );
    let fixed = test_first.replace("    a - b\n", "    a + b\n").replace(
        "pub fn mul",
        "/// Helps.\nfn helper() -> i32 {\n    1\n}\n\npub fn mul",
    );
    assert_eq!(red_rust(Some(CRATE_BASE), &fixed).unwrap(), test_first);
    // A function the goal removed comes back where it was.
    let removed = fixed.replace("pub fn mul(a: i32, b: i32) -> i32 {\n    a * b\n}\n\n", "");
    assert_eq!(red_rust(Some(CRATE_BASE), &removed).unwrap(), test_first);
    // A module the goal added that holds tests keeps only its tests.
    let added = format!(
        "{fixed}\nmod extra {{\n    pub fn e() {{}}\n\n    #[test]\n    fn e_works() {{}}\n}}\n"
    );
    assert_eq!(
        red_rust(Some(CRATE_BASE), &added).unwrap(),
        format!("{test_first}\nmod extra {{\n    #[test]\n    fn e_works() {{}}\n}}\n")
    );
}

#[test]
fn mod_declarations_reaching_tests_are_kept() {
    let base = "pub mod a;\n";
    let work = "pub mod a;\npub mod b;\nmod c;\n";
    let red = red_rust_keeping(Some(base), work, &|name| name == "b").unwrap();
    assert_eq!(red, "pub mod a;\npub mod b;\n");
    assert_eq!(red_rust(Some(base), work).unwrap(), base);
}

#[test]
fn unparsable_is_an_error_not_a_panic() {
    let err = red_rust(Some("fn f() {}\n"), "fn ok() {}\nfn broken() -> {}\n").unwrap_err();
    assert_eq!(err.line, 2, "{err}");
    assert!(red_rust(Some("fn ("), "fn f() {}").is_err());
    assert!(has_test_items("struct").is_err());
    assert!(test_cases("#[test] fn").is_err());
}

#[test]
fn which_items_are_tests() {
    let cases: &[(&str, bool)] = &[
        ("#[test]\nfn t() {}", true),
        ("#[tokio::test]\nasync fn t() {}", true),
        ("#[rstest]\nfn t() {}", true),
        ("#[cfg(test)]\nmod tests {}", true),
        ("#[cfg(test)]\nmod tests;", true),
        ("#[cfg(test)]\nimpl S {}", true),
        ("#[cfg(all(test, feature = \"x\"))]\nfn f() {}", true),
        ("#[cfg(any(test, test))]\nfn f() {}", true),
        ("#[cfg(any(test, feature = \"x\"))]\nfn f() {}", false),
        ("#[cfg(not(test))]\nfn f() {}", false),
        ("#[cfg(unix)]\nfn f() {}", false),
        ("fn test() {}", false),
        ("#[inline]\nfn f() {}", false),
        ("mod tests {}", false),
    ];
    for (source, want) in cases {
        assert_eq!(has_test_items(source).unwrap(), *want, "{source}");
    }
    assert_eq!(
        test_module_files("#[cfg(test)]\nmod tests;\nmod code;\n#[cfg(test)]\nmod inline {}\n")
            .unwrap(),
        vec!["tests".to_string()]
    );
}

#[test]
fn test_functions_with_their_assertions() {
    let source = "\
fn helper() {}

#[cfg(test)]
mod tests {
    #[test]
    fn adds() {
        assert_eq!(super::add(2, 2), 4);
        assert!(add(1, 1) > 1, \"message\");
    }

    #[test]
    #[ignore]
    fn skipped() {
        assert!(true);
    }

    #[test]
    fn empty() {}

    #[test]
    #[should_panic]
    fn panics() {
        add(0, 0);
    }

    #[test]
    fn unwraps() {
        parse(\"1\").unwrap();
    }
}
";
    let cases = test_cases(source).unwrap();
    type Row<'a> = (&'a str, usize, Option<usize>, usize, usize, bool);
    let summary: Vec<Row> = cases
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.line,
                c.skip_line,
                c.assertions.len(),
                c.checks,
                c.empty,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            // name, line, skip line, assertions, non-constant checks, empty
            ("tests::adds", 6, None, 2, 2, false),
            ("tests::skipped", 13, Some(12), 1, 0, false),
            ("tests::empty", 18, None, 0, 0, true),
            ("tests::panics", 22, None, 0, 1, false),
            ("tests::unwraps", 27, None, 0, 1, false),
        ]
    );
    let adds = &cases[0].assertions;
    assert_eq!(
        (
            adds[0].line,
            adds[0].subject.as_str(),
            adds[0].expected.as_str(),
            adds[0].constant
        ),
        (7, "super :: add (2 , 2)", "assert_eq 4", false)
    );
    assert_eq!(
        (adds[1].subject.as_str(), adds[1].expected.as_str()),
        ("add (1 , 1)", "> 1")
    );
    assert!(cases[1].assertions[0].constant);
}

#[test]
fn non_ascii_text_a_bom_and_a_shebang_keep_their_bytes() {
    let base = "\u{feff}#!/usr/bin/env rust-script\n// café → ünïcode\nfn f() -> &'static str { \"é\" }\n#[test]\nfn old() {}\n";
    let work = "// ✓ ünïcode\nfn f() -> &'static str { \"ü\" }\n/// Prüfung\n#[test]\nfn neu() { assert_eq!(f(), \"é\"); }\n";
    let red = red_rust(Some(base), work).unwrap();
    assert_eq!(
        red,
        "\u{feff}#!/usr/bin/env rust-script\n// café → ünïcode\nfn f() -> &'static str { \"é\" }\n/// Prüfung\n#[test]\nfn neu() { assert_eq!(f(), \"é\"); }\n"
    );
}
