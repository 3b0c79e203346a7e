//! The hand-written list-item reader against the pattern it replaced.

use super::list_item;

/// The hand-written reader says what the pattern it replaced said, line for line.
#[test]
fn list_items_read_as_the_old_pattern_read_them() {
    let pattern = regex::Regex::new(r"^(?P<indent>[ \t]*)(?P<bullet>[-*+]|\d{1,9}[.)])(?P<gap>[ \t]+|$)(?:\[(?P<mark>[^\]\n])\](?:[ \t]+|$))?(?P<text>.*)$").unwrap();
    let old = |line: &str| {
        let line = line.trim_end_matches(['\n', '\r']);
        let caps = pattern.captures(line)?;
        let trimmed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if trimmed.len() >= 3 && trimmed.chars().all(|c| c == '-' || c == '*' || c == '_') {
            return None;
        }
        let mark = caps.name("mark");
        Some((
            mark.and_then(|m| m.as_str().chars().next()),
            caps.name("text").map(|m| m.as_str().to_string()),
            caps.name("gap").map_or(0, |m| m.end()),
            mark.map(|m| m.start()),
        ))
    };
    let mut lines: Vec<String> = [
        "- [ ] a",
        "- [x] done",
        "* [X] b",
        "+ c",
        "1. one",
        "12) twelve",
        "1234567890. ten digits",
        "123456789. nine",
        "-",
        "- ",
        "-\t[ ]",
        "- [ ]",
        "- [x]",
        "- [x]text",
        "- [xy] two",
        "- []",
        "- [✓] unicode mark",
        "  - [ ] indented",
        "\t- [ ] tab",
        "-foo",
        "1.5 kg",
        "1.",
        "1.x",
        "- - -",
        "* * *",
        "---",
        "***",
        "- _ _",
        "-- two",
        "- [ ] ",
        "- [ ]  two spaces",
        "- [\t] tab mark",
        "- [ ] a\r\n",
        "- [ ] a\n",
        "text",
        "",
        " ",
        "#",
        "- [ ]\ttab",
        "\u{a0}- nbsp",
        "- \u{a0}[ ] x",
        "99) x",
        "a. letter",
        "- [ ]x",
        "-\u{2003}x",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // Every short line over a small alphabet, too.
    let alphabet = ['-', ' ', '[', ']', 'x', '1', '.', ')', '\t', '*', '✓'];
    let mut frontier = vec![String::new()];
    for _ in 0..5 {
        let mut next = Vec::new();
        for prefix in &frontier {
            for c in alphabet {
                let mut line = prefix.clone();
                line.push(c);
                next.push(line);
            }
        }
        lines.extend(next.iter().cloned());
        frontier = next;
    }
    for line in &lines {
        let new =
            list_item(line).map(|i| (i.mark, Some(i.text.to_string()), i.after_bullet, i.mark_at));
        assert_eq!(new, old(line), "{line:?}");
    }
}
