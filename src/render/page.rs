//! Self-contained HTML pages (`goal report --html`, `goal fleet --html`): escaping, the page
//! shell with its Content-Security-Policy and CSS, and small inline-SVG pieces. Pure.
//!
//! The pages load nothing: no script, no font, no image, no network. Every text that comes from a
//! goal (its wording, criteria, test names, agent names) goes through [`escape`], so a criterion
//! holding `<script>` is shown as text.

use std::fmt::Write as _;

/// The policy every page carries: nothing may load, inline styles only.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'";

const CSS: &str = "
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1f2328;
       margin: 2em auto; max-width: 1100px; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 1.8em; }
.meta { color: #59636e; } .note { color: #59636e; font-style: italic; }
table { border-collapse: collapse; width: 100%; margin-top: .5em; }
th, td { text-align: left; padding: .3em .6em; border-bottom: 1px solid #d1d9e0; vertical-align: top; }
th { background: #f6f8fa; } code { font: 12px ui-monospace, monospace; background: #f6f8fa; padding: 0 .2em; }
.status { font-weight: 600; } .complete { color: #1a7f37; } .blocked { color: #cf222e; }
.in-progress { color: #9a6700; } .flag { background: #fff1e5; color: #953800; padding: 0 .4em;
       border-radius: 3px; margin-right: .3em; font-size: 12px; }
svg { display: block; margin-top: .5em; } svg text { font: 11px system-ui, sans-serif; fill: #59636e; }
.cell-proven { fill: #2da44e; } .cell-open { fill: #e5534b; } .cell-none { fill: #eaeef2; }
.line { fill: none; stroke: #0969da; stroke-width: 2; } .mark { fill: #0969da; }
.bar { fill: #8250df; } .unrecorded { fill: none; stroke: #afb8c1; stroke-dasharray: 3 2; }
.budget { stroke: #cf222e; stroke-width: 1.5; stroke-dasharray: 6 3; }
.axis { stroke: #d1d9e0; } .switch { stroke: #bf8700; stroke-width: 2; }
";

/// `text` with `& < > " '` escaped, for element content and attribute values alike.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A markdown line's text as HTML: escaped, its code spans (`` `x` ``, ``` `` x `` ```) as
/// `<code>`. An unclosed backtick is text.
pub fn inline_code(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find('`') {
        out.push_str(&escape(&rest[..at]));
        let after = &rest[at..];
        let (open, close) = if after.starts_with("`` ") {
            ("`` ", " ``")
        } else {
            ("`", "`")
        };
        match after[open.len()..].find(close) {
            Some(end) => {
                let code = &after[open.len()..open.len() + end];
                let _ = write!(out, "<code>{}</code>", escape(code));
                rest = &after[open.len() + end + close.len()..];
            }
            None => {
                out.push_str(&escape(after));
                rest = "";
            }
        }
    }
    out.push_str(&escape(rest));
    out
}

/// A whole page: the doctype, the policy, the CSS and `body` (already escaped HTML).
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// A table: a header row and rows of cells (already escaped HTML).
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = String::from("<table>\n<tr>");
    for h in header {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let _ = write!(out, "<td>{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    out
}

/// A number for an SVG attribute: at most two decimals, no trailing zeros.
pub fn num(x: f64) -> String {
    let text = format!("{x:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The width of one iteration's column in a chart of `n` iterations (narrower as they grow, so a
/// long goal still fits a page).
pub fn column_width(n: usize) -> f64 {
    (720.0 / n.max(1) as f64).clamp(3.0, 28.0)
}

/// A horizontal bar of `done` out of `total` (the fleet's proven/total), `width` pixels wide.
pub fn progress_bar(done: usize, total: usize, width: f64) -> String {
    let filled = if total == 0 {
        0.0
    } else {
        width * done.min(total) as f64 / total as f64
    };
    format!(
        "<svg width=\"{w}\" height=\"10\" role=\"img\" aria-label=\"{done} of {total}\">\
         <rect class=\"cell-none\" width=\"{w}\" height=\"10\"/>\
         <rect class=\"cell-proven\" width=\"{f}\" height=\"10\"/></svg>",
        w = num(width),
        f = num(filled),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_code_spans() {
        let cases = [
            ("plain <b>", "plain &lt;b&gt;"),
            ("`a.py:3` x", "<code>a.py:3</code> x"),
            ("`` a`b `` and `c`", "<code>a`b</code> and <code>c</code>"),
            ("open ` only", "open ` only"),
        ];
        for (line, want) in cases {
            assert_eq!(inline_code(line), want, "{line}");
        }
    }

    #[test]
    fn escape_table() {
        for (input, want) in [
            ("plain", "plain"),
            (
                "<script>alert(1)</script>",
                "&lt;script&gt;alert(1)&lt;/script&gt;",
            ),
            ("a & b", "a &amp; b"),
            ("\"q\" 'a'", "&quot;q&quot; &#39;a&#39;"),
            ("", ""),
        ] {
            assert_eq!(escape(input), want, "{input}");
        }
    }

    #[test]
    fn page_carries_the_policy_and_no_script() {
        let p = page("<t>", "<p>x</p>\n");
        assert!(p.contains(&format!("content=\"{CSP}\"")));
        assert!(p.contains("<title>&lt;t&gt;</title>"));
        assert!(!p.contains("<script"));
    }

    #[test]
    fn numbers_and_widths() {
        for (x, want) in [(1.0, "1"), (1.5, "1.5"), (2.345, "2.35"), (0.0, "0")] {
            assert_eq!(num(x), want);
        }
        assert_eq!(column_width(1), 28.0);
        assert_eq!(column_width(720), 3.0);
        assert_eq!(column_width(36), 20.0);
        assert!(progress_bar(1, 2, 100.0).contains("width=\"50\""));
        assert!(progress_bar(0, 0, 100.0).contains("width=\"0\""));
    }
}
