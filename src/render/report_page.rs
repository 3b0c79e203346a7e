//! `goal report --html`: the goal's report as one self-contained page — each criterion red → green
//! over the iterations, proven criteria per iteration, what the agents used against the run's
//! budget, the agents and failovers, the weakening findings. Pure.

use std::fmt::Write as _;

use super::page::{column_width, escape, num, table};
use crate::ops::report::{Budget, Point, Report};
use crate::pin;

const LEFT: f64 = 44.0;
const TOP: f64 = 18.0;

/// The report as a page.
pub fn page(r: &Report) -> String {
    let mut body = header(r);
    if r.timeline.iter().all(|p| p.iteration == 0) {
        body.push_str("<p class=\"note\">This goal has no iteration yet: nothing to draw.</p>\n");
    } else {
        body.push_str(&criteria_grid(r));
        body.push_str(&proven_chart(r));
        body.push_str(&usage_chart(r, Measure::Cost));
        body.push_str(&usage_chart(r, Measure::Tokens));
        body.push_str(&agents(r));
    }
    body.push_str(&criteria_table(r));
    body.push_str(&findings(r));
    super::page::page(&format!("goal: {}", r.goal), &body)
}

fn header(r: &Report) -> String {
    let budget = r.budget.map_or(String::new(), |b| {
        let mut parts = Vec::new();
        if let Some(c) = b.cost_usd {
            parts.push(format!("${c}"));
        }
        if let Some(t) = b.tokens {
            parts.push(format!("{t} tokens"));
        }
        if let Some(i) = b.iterations {
            parts.push(format!("{i} iterations"));
        }
        format!(" · budget of its run: {}", parts.join(", "))
    });
    format!(
        "<h1>Goal: {}</h1>\n<p class=\"meta\"><span class=\"status {}\">{}</span> · {} iterations · \
         {} files changed (+{} −{}) · commits <code>{}</code>…<code>{}</code>{}</p>\n",
        escape(&r.goal),
        escape(&r.status),
        escape(&crate::history::status_text(&r.status, r.hand_made_status)),
        r.iterations,
        r.files_changed,
        r.insertions,
        r.deletions,
        escape(&crate::audit::short_id(&r.first_commit)),
        escape(&crate::audit::short_id(&r.last_commit)),
        escape(&budget),
    )
}

/// A criterion's cell in one iteration: proven (ticked on that tree), open, or not yet written.
fn cell_class(point: &Point, number: usize) -> &'static str {
    if point.ticked.contains(&number) {
        "cell-proven"
    } else if number > point.total {
        "cell-none"
    } else {
        "cell-open"
    }
}

/// Each criterion (a row) red → green over the iterations (the columns).
fn criteria_grid(r: &Report) -> String {
    let w = column_width(r.timeline.len());
    let rows = r.criteria.len().max(1);
    let width = LEFT + w * r.timeline.len() as f64 + 8.0;
    let height = TOP + 18.0 * rows as f64 + 16.0;
    let mut svg = format!(
        "<h2>Criteria over the iterations</h2>\n<svg class=\"criteria\" width=\"{}\" height=\"{}\" \
         role=\"img\" aria-label=\"criteria over iterations\">\n",
        num(width),
        num(height)
    );
    for (i, c) in r.criteria.iter().enumerate() {
        let y = TOP + 18.0 * i as f64;
        let _ = writeln!(
            svg,
            "<text x=\"4\" y=\"{}\">#{}</text>",
            num(y + 12.0),
            c.number
        );
        for (j, p) in r.timeline.iter().enumerate() {
            let class = cell_class(p, c.number);
            let state = match class {
                "cell-proven" => "proven",
                "cell-open" => "not proven",
                _ => "not written yet",
            };
            let _ = writeln!(
                svg,
                "<rect class=\"cell {class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\">\
                 <title>criterion {}, iteration {}: {state}</title></rect>",
                num(LEFT + w * j as f64),
                num(y),
                num((w - 1.0).max(1.0)),
                c.number,
                p.iteration,
            );
        }
    }
    svg.push_str(&iteration_labels(r, w, height - 2.0));
    svg.push_str("</svg>\n<p class=\"note\">Green: ticked and proven on that iteration's tree; red: not proven; grey: not written yet.</p>\n");
    svg
}

/// Iteration numbers under a chart, thinned so they never overlap.
fn iteration_labels(r: &Report, w: f64, y: f64) -> String {
    let every = (24.0 / w).ceil().max(1.0) as usize;
    let mut out = String::new();
    for (j, p) in r.timeline.iter().enumerate() {
        if j % every == 0 {
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\">{}</text>",
                num(LEFT + w * j as f64),
                num(y),
                p.iteration
            );
        }
    }
    out
}

/// Proven criteria per iteration: a line with a mark per iteration.
fn proven_chart(r: &Report) -> String {
    let w = column_width(r.timeline.len());
    let h = 120.0;
    let max = r.timeline.iter().map(|p| p.total).max().unwrap_or(0).max(1) as f64;
    let x = |j: usize| LEFT + w * j as f64 + w / 2.0;
    let y = |v: usize| TOP + h - h * v as f64 / max;
    let points: Vec<String> = r
        .timeline
        .iter()
        .enumerate()
        .map(|(j, p)| format!("{},{}", num(x(j)), num(y(p.proven))))
        .collect();
    let mut svg = format!(
        "<h2>Proven criteria per iteration</h2>\n<svg class=\"proven\" width=\"{}\" height=\"{}\" \
         role=\"img\" aria-label=\"proven criteria per iteration\">\n\
         <line class=\"axis\" x1=\"{LEFT}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n\
         <text x=\"4\" y=\"{}\">{}</text><text x=\"4\" y=\"{}\">0</text>\n\
         <polyline class=\"line\" points=\"{}\"/>\n",
        num(LEFT + w * r.timeline.len() as f64 + 8.0),
        num(TOP + h + 22.0),
        num(TOP + h),
        num(LEFT + w * r.timeline.len() as f64),
        num(TOP + h),
        num(TOP + 4.0),
        max as usize,
        num(TOP + h),
        points.join(" ")
    );
    for (j, p) in r.timeline.iter().enumerate() {
        let _ = writeln!(
            svg,
            "<circle class=\"mark\" data-iteration=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\">\
             <title>iteration {}: {}/{} proven</title></circle>",
            p.iteration,
            num(x(j)),
            num(y(p.proven)),
            num((w / 3.0).clamp(1.5, 4.0)),
            p.iteration,
            p.proven,
            p.total
        );
    }
    svg.push_str(&iteration_labels(r, w, TOP + h + 16.0));
    svg.push_str("</svg>\n");
    svg
}

#[derive(Clone, Copy, PartialEq)]
enum Measure {
    Cost,
    Tokens,
}

impl Measure {
    fn of(self, p: &Point) -> Option<f64> {
        let u = p.usage.as_ref()?;
        match self {
            Measure::Cost => u.cost_usd,
            Measure::Tokens => u.tokens().map(|t| t as f64),
        }
    }
    fn budget(self, b: Option<&Budget>) -> Option<f64> {
        match self {
            Measure::Cost => b?.cost_usd,
            Measure::Tokens => b?.tokens.map(|t| t as f64),
        }
    }
    fn title(self) -> &'static str {
        match self {
            Measure::Cost => "Cost per iteration (USD)",
            Measure::Tokens => "Tokens per iteration",
        }
    }
    fn show(self, v: f64) -> String {
        match self {
            Measure::Cost => format!("${v:.4}"),
            Measure::Tokens => format!("{}", v as u64),
        }
    }
}

/// What each iteration used, as bars, with the running total as a line and the budget as a
/// dashed rule; an iteration with nothing recorded is an empty dashed box, never a bar of 0.
fn usage_chart(r: &Report, m: Measure) -> String {
    let values: Vec<Option<f64>> = r.timeline.iter().map(|p| m.of(p)).collect();
    let budget = m.budget(r.budget.as_ref());
    let mut heading = format!("<h2>{}</h2>\n", m.title());
    if values.iter().all(Option::is_none) {
        let _ = writeln!(
            heading,
            "<p class=\"note\">Not recorded: no agent reported it for this goal's iterations.{}</p>",
            budget.map_or(String::new(), |b| format!(" Budget: {}.", m.show(b)))
        );
        return heading;
    }
    let total: f64 = values.iter().flatten().sum();
    let scale = Scale {
        w: column_width(values.len()),
        h: 120.0,
        top: total.max(budget.unwrap_or(0.0)).max(f64::MIN_POSITIVE),
    };
    let (w, h) = (scale.w, scale.h);
    let mut svg = format!(
        "{heading}<svg class=\"usage\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\">\n\
         <text x=\"4\" y=\"{}\">{}</text>\n",
        num(LEFT + w * values.len() as f64 + 90.0),
        num(TOP + h + 22.0),
        escape(m.title()),
        num(TOP + 4.0),
        escape(&m.show(scale.top))
    );
    usage_bars(&mut svg, r, m, &values, &scale);
    if let Some(b) = budget {
        budget_rule(&mut svg, m, b, &scale, values.len());
    }
    svg.push_str(&iteration_labels(r, w, TOP + h + 16.0));
    let _ = writeln!(
        svg,
        "</svg>\n<p class=\"note\">Total {}{}; the line is the running total, dashed boxes are iterations with nothing recorded.</p>",
        escape(&m.show(total)),
        budget.map_or(String::new(), |b| format!(
            " of a budget of {}",
            escape(&m.show(b))
        ))
    );
    svg
}

/// The usage chart's scale: a column's width, the plot's height, and the value at its top.
struct Scale {
    w: f64,
    h: f64,
    top: f64,
}

impl Scale {
    /// Where value `v` sits on the plot.
    fn y(&self, v: f64) -> f64 {
        TOP + self.h - self.h * v / self.top
    }
}

/// Each iteration's bar (or dashed box when nothing was recorded), then the running total's line.
fn usage_bars(svg: &mut String, r: &Report, m: Measure, values: &[Option<f64>], scale: &Scale) {
    let (w, h) = (scale.w, scale.h);
    let y = |v: f64| scale.y(v);
    let mut running = 0.0;
    let mut line = Vec::new();
    for (j, (v, p)) in values.iter().zip(&r.timeline).enumerate() {
        let x = LEFT + w * j as f64;
        match v {
            Some(v) => {
                running += v;
                let _ = writeln!(
                    svg,
                    "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>iteration {}: {}</title></rect>",
                    num(x),
                    num(y(*v)),
                    num((w - 1.0).max(1.0)),
                    num(TOP + h - y(*v)),
                    p.iteration,
                    escape(&m.show(*v))
                );
            }
            None => {
                let _ = writeln!(
                    svg,
                    "<rect class=\"unrecorded\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>iteration {}: not recorded</title></rect>",
                    num(x),
                    num(TOP),
                    num((w - 1.0).max(1.0)),
                    num(h),
                    p.iteration
                );
            }
        }
        line.push(format!("{},{}", num(x + w / 2.0), num(y(running))));
    }
    let _ = writeln!(
        svg,
        "<polyline class=\"line\" points=\"{}\"/>",
        line.join(" ")
    );
}

/// The budget as a dashed rule across the `columns` iterations, labelled at its end.
fn budget_rule(svg: &mut String, m: Measure, b: f64, scale: &Scale, columns: usize) {
    let (w, y) = (scale.w, |v: f64| scale.y(v));
    let _ = writeln!(
        svg,
        "<line class=\"budget\" x1=\"{LEFT}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\
         <text x=\"{}\" y=\"{}\">budget {}</text>",
        num(y(b)),
        num(LEFT + w * columns as f64),
        num(y(b)),
        num(LEFT + w * columns as f64 + 4.0),
        num(y(b) + 4.0),
        escape(&m.show(b))
    );
}

/// Which agent made each iteration, and where the run switched agents (a failover).
fn agents(r: &Report) -> String {
    let mut out = String::from("<h2>Agents</h2>\n");
    if r.timeline.iter().all(|p| p.agent.is_none()) {
        out.push_str("<p class=\"note\">No iteration was made by <code>goal run</code>.</p>\n");
        return out;
    }
    let mut rows = Vec::new();
    let mut last: Option<&str> = None;
    for p in &r.timeline {
        let agent = p.agent.as_deref();
        let switch = match (last, agent) {
            (Some(a), Some(b)) if a != b => format!("failover {} → {}", escape(a), escape(b)),
            _ => String::new(),
        };
        if agent.is_some() {
            last = agent;
        }
        rows.push(vec![
            p.iteration.to_string(),
            escape(agent.unwrap_or("—")),
            switch,
        ]);
    }
    out.push_str(&table(&["Iteration", "Agent", "Switch"], &rows));
    out
}

fn criteria_table(r: &Report) -> String {
    let rows: Vec<Vec<String>> = r
        .criteria
        .iter()
        .map(|c| {
            vec![
                c.number.to_string(),
                escape(&c.text),
                escape(c.kind),
                c.command.as_ref().map_or("—".into(), |a| {
                    format!("<code>{}</code>", escape(&pin::render(a)))
                }),
                escape(&super::report_text::red_green(c)),
            ]
        })
        .collect();
    format!(
        "<h2>Criteria</h2>\n{}",
        table(&["#", "Criterion", "Kind", "Command", "Red → green"], &rows)
    )
}

/// The sections after the criteria, the same ones and the same lines as the text and markdown
/// reports give (their one source), a list each.
fn findings(r: &Report) -> String {
    let mut out = String::new();
    for (title, lines) in super::report_text::sections(r) {
        let _ = writeln!(out, "<h2>{}</h2>", escape(title));
        if lines.is_empty() {
            out.push_str("<p class=\"note\">None.</p>\n");
            continue;
        }
        out.push_str("<ul>\n");
        for line in lines {
            let _ = writeln!(out, "<li>{}</li>", super::page::inline_code(&line));
        }
        out.push_str("</ul>\n");
    }
    out
}
