//! The one JUnit XML reader (its test cases, named, and their counts), and reading the reports a
//! run wrote.

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::summary::TestCounts;

/// What a `<testcase>` came to, from its children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    Ignored,
    Failed,
}

/// One `<testcase>`: named `classname::name` (or `name` without a class), and what it came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub name: String,
    pub outcome: Outcome,
}

/// A testcase's `classname::name`.
fn case_name(e: &quick_xml::events::BytesStart) -> String {
    let attr = |key: &str| {
        e.attributes()
            .flatten()
            .find(|a| a.key.as_ref() == key)
            .and_then(|a| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(|v| v.into_owned())
            })
            .unwrap_or_default()
    };
    let (class, name) = (attr("classname"), attr("name"));
    if class.is_empty() {
        name
    } else {
        format!("{class}::{name}")
    }
}

/// The one JUnit reader: the `<testcase>` elements of a report, at any depth of `<testsuites>` /
/// `<testsuite>`, in order. One with a `<failure>` or `<error>` child failed, one with
/// `<skipped>` (and no failure) was ignored, any other passed. Malformed XML, or a document that
/// is not a JUnit report, is an error.
pub fn cases(xml: &[u8]) -> Result<Vec<Case>, String> {
    let mut reader = Reader::from_reader(xml);
    let mut buf = Vec::new();
    let mut cases = Vec::new();
    let mut depth = 0usize;
    let mut root_seen = false;
    // The depth at which the open testcase sits, and what its children said so far.
    let mut open: Option<(usize, Case)> = None;
    loop {
        let position = reader.buffer_position();
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|e| format!("malformed XML at byte {position}: {e}"))?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                let local = e.local_name();
                let name: &str = local.as_ref();
                if !root_seen {
                    root_seen = true;
                    check_root(name)?;
                }
                match (name, open.as_mut()) {
                    ("testcase", None) => {
                        let case = Case {
                            name: case_name(e),
                            outcome: Outcome::Passed,
                        };
                        if empty {
                            cases.push(case);
                        } else {
                            open = Some((depth, case));
                        }
                    }
                    ("failure" | "error", Some((at, case))) if *at + 1 == depth => {
                        case.outcome = Outcome::Failed;
                    }
                    ("skipped", Some((at, case)))
                        if *at + 1 == depth && case.outcome != Outcome::Failed =>
                    {
                        case.outcome = Outcome::Ignored;
                    }
                    _ => {}
                }
                if !empty {
                    depth += 1;
                }
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if open.as_ref().is_some_and(|(at, _)| *at == depth)
                    && let Some((_, case)) = open.take()
                {
                    cases.push(case);
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if !root_seen {
        return Err("not a JUnit report: no XML element in it".to_string());
    }
    if depth != 0 {
        return Err(format!(
            "malformed XML: the document ends with {depth} element(s) still open"
        ));
    }
    Ok(cases)
}

/// A JUnit report's root is `<testsuites>` or `<testsuite>`.
fn check_root(name: &str) -> Result<(), String> {
    if name == "testsuites" || name == "testsuite" {
        return Ok(());
    }
    Err(format!(
        "not a JUnit report: the root element is <{name}>, not <testsuites> or <testsuite>"
    ))
}

/// The counts of a JUnit XML report's test cases ([`cases`]).
pub fn counts(xml: &[u8]) -> Result<TestCounts, String> {
    let mut counts = TestCounts::default();
    for case in cases(xml)? {
        match case.outcome {
            Outcome::Passed => counts.passed += 1,
            Outcome::Ignored => counts.ignored += 1,
            Outcome::Failed => counts.failed += 1,
        }
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(passed: u64, failed: u64, ignored: u64) -> TestCounts {
        TestCounts {
            passed,
            failed,
            ignored,
        }
    }

    // surefire's format: a <testsuite> root, <failure>/<error> with text, <skipped/> empty.
    const SUREFIRE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="3.0" name="example.WordsTest" time="0.05" tests="5" errors="1" skipped="1" failures="1">
  <properties>
    <property name="java.version" value="17.0.15"/>
  </properties>
  <testcase name="upper" classname="example.WordsTest" time="0.001"/>
  <testcase name="lower" classname="example.WordsTest" time="0.001">
    <system-out><![CDATA[<failure> in a CDATA is only text]]></system-out>
  </testcase>
  <testcase name="wrong" classname="example.WordsTest" time="0">
    <failure message="expected:&lt;A[b]&gt; but was:&lt;A[B]&gt;" type="org.junit.ComparisonFailure">org.junit.ComparisonFailure: expected
	at example.WordsTest.wrong(WordsTest.java:6)</failure>
  </testcase>
  <testcase name="broken" classname="example.WordsTest" time="0.008">
    <error message="boom" type="java.lang.IllegalStateException">java.lang.IllegalStateException: boom</error>
  </testcase>
  <testcase name="later" classname="example.WordsTest" time="0">
    <skipped message="not today"/>
  </testcase>
</testsuite>
"#;

    #[test]
    fn counts_testcases() {
        let cases: &[(&str, &[u8], TestCounts)] = &[
            (
                "pytest --junit-xml (real)",
                include_bytes!("../tests/fixtures/junit/pytest.xml"),
                t(3, 1, 2),
            ),
            ("surefire", SUREFIRE.as_bytes(), t(2, 2, 1)),
            (
                "nested suites",
                b"<testsuites><testsuite name='a'><testsuite name='b'><testcase name='x'/></testsuite>\
                  <testcase name='y'><skipped/></testcase></testsuite>\
                  <testsuite name='c'><testcase name='z'><failure/></testcase></testsuite></testsuites>",
                t(1, 1, 1),
            ),
            (
                "failure outranks skipped",
                b"<testsuite><testcase><skipped/><failure/></testcase><testcase><error/><skipped/></testcase></testsuite>",
                t(0, 2, 0),
            ),
            (
                "a rerun's flaky failure is not a failure",
                b"<testsuite><testcase><flakyFailure/><system-out>ok</system-out></testcase></testsuite>",
                t(1, 0, 0),
            ),
            (
                "no testcase",
                b"<?xml version='1.0'?><testsuites/>",
                t(0, 0, 0),
            ),
        ];
        for (name, xml, want) in cases {
            assert_eq!(counts(xml), Ok(*want), "{name}");
        }
    }

    /// The names `goal` matches red and green by and the counts come from one reading.
    #[test]
    fn cases_are_named_by_class_and_name_and_counted_from_the_same_reading() {
        let xml = br#"<testsuites><testsuite name="s">
            <testcase classname="pkg.T" name="a"/>
            <testcase name="b"><failure message="x"/><skipped/></testcase>
            <testsuite name="inner"><testcase classname="C" name="c"><skipped/></testcase></testsuite>
        </testsuite></testsuites>"#;
        let got = cases(xml).unwrap();
        let want = [
            ("pkg.T::a", Outcome::Passed),
            ("b", Outcome::Failed),
            ("C::c", Outcome::Ignored),
        ];
        let got: Vec<(&str, Outcome)> = got.iter().map(|c| (c.name.as_str(), c.outcome)).collect();
        assert_eq!(got, want);
        let c = counts(xml).unwrap();
        assert_eq!((c.passed, c.failed, c.ignored), (1, 1, 1));
        let names = crate::test_names::from_junit(xml).unwrap();
        assert_eq!(
            names.outcome("b"),
            Some(crate::test_names::TestOutcome::Failed)
        );
        assert!(crate::test_names::from_junit(b"<report><testcase name=\"x\"/></report>").is_err());
    }

    #[test]
    fn malformed_reports_are_errors() {
        let cases: &[(&str, &[u8], &str)] = &[
            ("unclosed", b"<testsuite><testcase>", "still open"),
            (
                "mismatched",
                b"<testsuite><testcase></testsuite>",
                "malformed XML",
            ),
            ("empty", b"", "no XML element"),
            ("plain text", b"3 passed, 0 failed", "no XML element"),
            (
                "other XML",
                b"<html><body/></html>",
                "root element is <html>",
            ),
        ];
        for (name, xml, want) in cases {
            match counts(xml) {
                Err(e) => assert!(e.contains(want), "{name}: {e}"),
                Ok(c) => panic!("{name}: expected an error, got {c:?}"),
            }
        }
    }
}
