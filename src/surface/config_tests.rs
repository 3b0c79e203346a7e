use super::PartialConfig::*;
use super::*;

#[test]
fn splicing() {
    // (kind, base, work, red)
    let cases: &[(PartialConfig, &str, &str, &str)] = &[
        (
            Pyproject,
            "# keep me\n[project]\nname = \"c\"  # a comment\n",
            "[project]\nname = \"d\"\n\n[tool.pytest.ini_options]\naddopts = \"-k mul\"\n",
            "# keep me\n[project]\nname = \"c\"  # a comment\n\n[tool.pytest.ini_options]\naddopts = \"-k mul\"\n",
        ),
        (
            Pyproject,
            "[tool.pytest.ini_options]\naddopts = \"-q\"\n\n[tool.black]\nline-length = 99\n",
            "[tool.black]\nline-length = 80\n",
            "\n[tool.black]\nline-length = 99\n",
        ),
        (
            Pyproject,
            "[project]\nname = \"c\"\n",
            "[project]\nname = \"c\"\nversion = \"2\"\n",
            "[project]\nname = \"c\"\n",
        ),
        (
            CargoToml,
            "[package]\nname = \"c\"\n\n[lib]\npath = \"src/lib.rs\"\n",
            "[package]\nname = \"c\"\n\n[lib]\npath = \"src/lib.rs\"\ntest = false\nharness = false\n\n[dependencies]\nx = \"1\"\n",
            "[package]\nname = \"c\"\n\n[lib]\npath = \"src/lib.rs\"\ntest = false\nharness = false\n",
        ),
        (
            CargoToml,
            "[package]\nname = \"c\"\n\n[[test]]\nname = \"a\"\n",
            "[package]\nname = \"c\"\n",
            "[package]\nname = \"c\"\n",
        ),
        (
            PackageJson,
            "{\n    \"name\": \"c\",\n    \"scripts\": {\n        \"build\": \"tsc\",\n        \"test\": \"jest\"\n    }\n}\n",
            "{\n  \"name\": \"d\",\n  \"scripts\": {\n    \"build\": \"tsc -b\",\n    \"test\": \"jest -t mul\"\n  },\n  \"jest\": {\"testMatch\": [\"x\"]}\n}\n",
            "{\n    \"name\": \"c\",\n    \"scripts\": {\n        \"build\": \"tsc\",\n        \"test\": \"jest -t mul\"\n    },\n    \"jest\": {\n        \"testMatch\": [\n            \"x\"\n        ]\n    }\n}\n",
        ),
        (
            PackageJson,
            "{\"name\": \"c\", \"scripts\": {\"test\": \"jest\"}}",
            "{\"name\": \"c\", \"scripts\": {\"test\": \"jest\"}, \"version\": \"2\"}",
            "{\"name\": \"c\", \"scripts\": {\"test\": \"jest\"}}",
        ),
        (
            PackageJson,
            "",
            "{\"name\": \"c\", \"scripts\": {\"build\": \"b\", \"test\": \"node --test\"}}",
            "{\n  \"scripts\": {\n    \"test\": \"node --test\"\n  }\n}\n",
        ),
        (
            // Every `test*` script is test configuration; other scripts stay the base's.
            PackageJson,
            "{\"scripts\": {\"build\": \"b\", \"test\": \"tap\", \"test:old\": \"x\"}}",
            "{\"scripts\": {\"build\": \"b2\", \"test\": \"tap\", \"test:unit\": \"tap unit\"}}",
            "{\n  \"scripts\": {\n    \"build\": \"b\",\n    \"test\": \"tap\",\n    \"test:unit\": \"tap unit\"\n  }\n}",
        ),
        (
            Makefile,
            "build:\n\tcc a.c\n\ntest: build\n\tpytest\n\nlint:\n\truff .\n",
            "build:\n\tcc -O2 a.c\n\ntest: build\n\tpytest -k mul\n\tpytest --doctest\n\ntest-fast:\n\tpytest -x\n",
            "build:\n\tcc a.c\n\ntest: build\n\tpytest -k mul\n\tpytest --doctest\n\nlint:\n\truff .\n\ntest-fast:\n\tpytest -x\n",
        ),
        (
            Justfile,
            "@test *args:\n    cargo test {{args}}\n\nbuild:\n    cargo build\n",
            "build:\n    cargo build --release\n",
            "\nbuild:\n    cargo build\n",
        ),
    ];
    for (kind, base, work, want) in cases {
        assert_eq!(
            splice(*kind, base, work).unwrap(),
            *want,
            "{kind:?}\nbase: {base}\nwork: {work}"
        );
    }
}

#[test]
fn test_rules_of_makefiles_and_justfiles() {
    let text = "test := 1\nCC = cc\n\ntest: a\n\tone\n\n\ttwo\n# comment\ntestall:\n\tthree\nnot-test:\n\tx\n@test-q arg:\n  y\n";
    let rules: Vec<(String, usize, &str)> = test_rules(text)
        .into_iter()
        .map(|r| (r.name, r.line, &text[r.range]))
        .collect();
    assert_eq!(
        rules,
        vec![
            ("test".to_string(), 4, "test: a\n\tone\n\n\ttwo\n"),
            ("testall".to_string(), 9, "testall:\n\tthree\n"),
            ("test-q".to_string(), 13, "@test-q arg:\n  y\n"),
        ]
    );
}

#[test]
fn unparsable_configuration_is_an_error() {
    let err = splice(Pyproject, "[project\n", "").unwrap_err();
    assert_eq!(err.file, "pyproject.toml");
    assert!(splice(PackageJson, "{", "{}").is_err());
    assert!(splice(CargoToml, "", "x = = 1").is_err());
}
