use super::*;

/// `mutmut results --all true` then `mutmut show` of the survivor, as mutmut 3.8.1 prints them.
const MUTMUT: &str = "    calc.x_add__mutmut_1: killed
    calc.x_sub__mutmut_1: survived
    calc.xǁKǁm__mutmut_1: no tests
    calc.x_mul__mutmut_1: timeout
    calc.x_mul__mutmut_2: skipped
# calc.x_sub__mutmut_1: survived
--- src/calc/__init__.py
+++ src/calc/__init__.py
@@ -1,3 +1,3 @@
 def sub(a, b):
     c = 1
-    return a - b
+    return a + b
";

const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    c = 1\n    return a - b\n\n\nclass K:\n    def m(self):\n        return 1\n";

/// A StrykerJS 9.6.1 JSON report, cut to the keys read.
const STRYKER: &str = r#"{"schemaVersion": "1.0", "files": {"src/calc.js": {"language": "javascript", "mutants": [{"id": "1", "mutatorName": "ArithmeticOperator", "replacement": "a - b", "status": "Killed", "location": {"end": {"column": 15, "line": 2}, "start": {"column": 10, "line": 2}}}, {"id": "0", "mutatorName": "BlockStatement", "replacement": "{}", "status": "Killed", "location": {"end": {"column": 2, "line": 3}, "start": {"column": 20, "line": 1}}}, {"id": "3", "mutatorName": "ArithmeticOperator", "replacement": "a + b", "status": "Survived", "location": {"end": {"column": 15, "line": 5}, "start": {"column": 10, "line": 5}}}, {"id": "2", "mutatorName": "BlockStatement", "replacement": "{}", "status": "NoCoverage", "location": {"end": {"column": 2, "line": 6}, "start": {"column": 20, "line": 4}}}, {"id": "4", "mutatorName": "StringLiteral", "replacement": "\"\"", "status": "Timeout", "location": {"end": {"column": 2, "line": 7}, "start": {"column": 1, "line": 7}}}, {"id": "5", "mutatorName": "StringLiteral", "replacement": "\"\"", "status": "CompileError", "location": {"end": {"column": 2, "line": 7}, "start": {"column": 1, "line": 7}}}]}}}"#;

fn totals(killed: u64, survived: u64, timeout: u64, unviable: u64) -> Totals {
    Totals {
        killed,
        survived,
        timeout,
        unviable,
    }
}

#[test]
fn cargo_mutants_exit_codes_read_as_documented() {
    let cases: &[(i32, bool)] = &[
        (0, true),
        (2, true),
        (3, true),
        (1, false),
        (4, false),
        (5, false),
        (6, false),
        (70, false),
    ];
    for (code, ok) in cases {
        assert_eq!(cargo_mutants_exit(*code).is_ok(), *ok, "{code}");
    }
}

/// `outcomes.json` of a real cargo-mutants 27.1.0 run (`--in-diff`, `--in-place`,
/// `--baseline=skip`) on a crate whose one test checks `add(2, 2)` and `sub(2, 0)`, cut to the
/// keys read.
#[test]
fn cargo_mutants_outcomes_count_each_summary() {
    let json = include_str!("outcomes_cargo_mutants.json");
    let read = cargo_mutants(json).unwrap();
    assert_eq!(read.totals, totals(8, 2, 0, 0), "{read:?}");
    let names: Vec<String> = read.survivors.iter().map(Survivor::describe).collect();
    assert_eq!(
        names,
        [
            "src/lib.rs:2: replace + with * in add",
            "src/lib.rs:6: replace - with + in sub"
        ]
    );
    // Every summary word: a timeout and an unviable mutant count apart; the baseline not at all.
    let words = r#"{"outcomes":[{"scenario":"Baseline","summary":"Success"},
        {"scenario":{"Mutant":{"name":"src/a.rs:1:1: replace f with ()","file":"src/a.rs","span":{"start":{"line":1}}}},"summary":"Timeout"},
        {"scenario":{"Mutant":{"file":"src/a.rs","replacement":"0","function":{"function_name":"f"},"span":{"start":{"line":3}}}},"summary":"Unviable"},
        {"scenario":{"Mutant":{"file":"src/a.rs","replacement":"1","function":{"function_name":"g"},"span":{"start":{"line":9}}}},"summary":"MissedMutant"}]}"#;
    let read = cargo_mutants(words).unwrap();
    assert_eq!(read.totals, totals(0, 1, 1, 1), "{read:?}");
    assert_eq!(read.survivors[0].describe(), "src/a.rs:9: replace 1 in g");
    assert!(cargo_mutants("{}").is_err());
    assert!(cargo_mutants("not json").is_err());
}

#[test]
fn mutmut_results_and_show_blocks_name_survivors() {
    let read = mutmut(MUTMUT, &|file, class, func| match file {
        "src/calc/__init__.py" => python_def_line(CALC, class, func),
        _ => 1,
    });
    assert_eq!(read.totals, totals(1, 2, 1, 0), "{read:?}");
    let names: Vec<String> = read.survivors.iter().map(Survivor::describe).collect();
    assert_eq!(
        names,
        [
            "src/calc/__init__.py:7: sub: return a + b",
            ":1: calc.xǁKǁm__mutmut_1"
        ]
    );
    assert_eq!(mutmut("", &|_, _, _| 1), Read::default());
}

#[test]
fn python_definitions_are_found_by_class_and_name() {
    let cases: &[(Option<&str>, &str, usize)] = &[
        (None, "add", 1),
        (None, "sub", 5),
        (Some("K"), "m", 11),
        (None, "missing", 1),
    ];
    for (class, func, want) in cases {
        assert_eq!(
            python_def_line(CALC, *class, func),
            *want,
            "{class:?} {func}"
        );
    }
}

#[test]
fn stryker_reports_count_each_status() {
    let read = stryker(STRYKER).unwrap();
    assert_eq!(read.totals, totals(2, 2, 1, 1), "{read:?}");
    let names: Vec<String> = read.survivors.iter().map(Survivor::describe).collect();
    assert_eq!(
        names,
        [
            "src/calc.js:4: BlockStatement: {}",
            "src/calc.js:5: ArithmeticOperator: a + b"
        ]
    );
    assert!(stryker("{\"schemaVersion\":\"1.0\"}").is_err());
}

/// Mutants made and none run say nothing: the tool `failed` (the gate fails closed); a tool that
/// made no mutant, or ran some, is not that.
#[test]
fn mutants_made_and_none_run_are_a_failure() {
    let unchecked = "    calc.x_add__mutmut_1: not checked\n    calc.x_add__mutmut_2: not checked\n    calc.x_sub__mutmut_1: skipped\n";
    let read = mutmut(unchecked, &|_, _, _| 1);
    assert_eq!(read.made, 3);
    assert_eq!(
        read.ran_none("mutmut").as_deref(),
        Some("mutmut made 3 mutant(s) of the change and ran the pins on none of them")
    );
    let read = mutmut(MUTMUT, &|_, _, _| 1);
    assert_eq!(read.made, 5);
    assert_eq!(read.ran_none("mutmut"), None);
    assert_eq!(mutmut("", &|_, _, _| 1).ran_none("mutmut"), None);
    // Every judged kind counts as run, an unviable one included.
    let cases: &[(Totals, Option<()>)] = &[
        (totals(0, 0, 0, 0), Some(())),
        (totals(1, 0, 0, 0), None),
        (totals(0, 1, 0, 0), None),
        (totals(0, 0, 1, 0), None),
        (totals(0, 0, 0, 1), None),
    ];
    for (t, none) in cases {
        let read = Read {
            totals: *t,
            survivors: Vec::new(),
            made: 2,
        };
        assert_eq!(read.ran_none("x").map(|_| ()), *none, "{t:?}");
    }
    let read = stryker(STRYKER).unwrap();
    assert_eq!((read.made, read.ran_none("stryker")), (6, None));
    let read = cargo_mutants(include_str!("outcomes_cargo_mutants.json")).unwrap();
    assert_eq!((read.made, read.ran_none("cargo-mutants")), (10, None));
}
