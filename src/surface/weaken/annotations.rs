//! Java and C# skip markers (`@Disabled`, `@Ignore`, `[Ignore]`, `[Fact(Skip = …)]`), found in the
//! lines the goal added (no grammar for these languages here: only `skip-added` is read, from the
//! attribute lines of the diff and the declaration that follows each).

use similar::{ChangeTag, TextDiff};

use super::{Finding, FindingKind};

/// Whether a line (trimmed) is a skip attribute or annotation.
fn marks_skip(line: &str) -> bool {
    if let Some(rest) = line.strip_prefix('@') {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
            .collect();
        let last = name.rsplit('.').next().unwrap_or("");
        return last.starts_with("Disabled") || last == "Ignore";
    }
    if line.starts_with('[') {
        let words: Vec<&str> = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        return words.iter().any(|w| *w == "Ignore" || *w == "Skip");
    }
    false
}

/// The name declared by the first line after `from` that is not an attribute: a method (the word
/// before its `(`) or a class.
fn declared_after(lines: &[&str], from: usize) -> String {
    for line in lines.iter().skip(from + 1) {
        let t = line.trim();
        if t.is_empty() || t.starts_with('@') || t.starts_with('[') || t.starts_with("//") {
            continue;
        }
        let words: Vec<&str> = t
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(i) = words.iter().position(|w| *w == "class") {
            return words.get(i + 1).unwrap_or(&"*").to_string();
        }
        if let Some(before) = t.split('(').next()
            && t.contains('(')
        {
            return before.split_whitespace().last().unwrap_or("*").to_string();
        }
        return "*".to_string();
    }
    "*".to_string()
}

/// `skip-added` for each skip attribute line the goal added to a Java or C# test file.
pub(super) fn skips_added(
    path: &str,
    base: Option<&str>,
    last: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let Some(last) = last else { return };
    let base = base.unwrap_or("");
    let lines: Vec<&str> = last.lines().collect();
    let diff = TextDiff::from_lines(base, last);
    for change in diff.iter_all_changes() {
        if change.tag() != ChangeTag::Insert {
            continue;
        }
        let Some(at) = change.new_index() else {
            continue;
        };
        if marks_skip(change.value().trim()) {
            out.push(Finding {
                kind: FindingKind::SkipAdded,
                file: path.to_string(),
                line: at + 1,
                test: declared_after(&lines, at),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_markers() {
        let cases = [
            ("@Disabled", true),
            ("@Disabled(\"flaky on CI\")", true),
            ("@DisabledOnOs(OS.WINDOWS)", true),
            ("@Ignore", true),
            ("@org.junit.Ignore", true),
            ("@org.junit.jupiter.api.Disabled", true),
            ("@Test", false),
            ("@Ignored", false),
            ("@org.Ignore.Test", false),
            ("[Ignore]", true),
            ("[Ignore(\"later\")]", true),
            ("[Fact(Skip = \"later\")]", true),
            ("[Test, Ignore]", true),
            ("[Fact]", false),
            ("[Test]", false),
            ("[Theory, InlineData(1)]", false),
            ("Ignore", false),
            ("// @Disabled", false),
        ];
        for (line, want) in cases {
            assert_eq!(marks_skip(line), want, "{line}");
        }
    }

    #[test]
    fn the_declaration_after_a_marker() {
        let cases: &[(&[&str], &str)] = &[
            (&["@Disabled", "void adds() {"], "adds"),
            (&["@Disabled", "", "void blank() {"], "blank"),
            (&["@Disabled", "@Test", "void annotated() {"], "annotated"),
            (
                &["[Ignore]", "[Fact]", "public void Attributed() {"],
                "Attributed",
            ),
            (
                &["@Disabled", "// flaky", "void commented() {"],
                "commented",
            ),
            (&["@Ignore", "public class CalcTest {"], "CalcTest"),
            (&["@Ignore", "class"], "*"),
            (&["@Disabled", "int field = 1;"], "*"),
            (&["@Disabled"], "*"),
        ];
        for (lines, want) in cases {
            assert_eq!(declared_after(lines, 0), *want, "{lines:?}");
        }
        // From a marker further down.
        let lines = ["void first() {", "}", "@Disabled", "void second() {"];
        assert_eq!(declared_after(&lines, 2), "second");
    }
}
