//! `goal fleet --html`: the fleet as a dashboard page, a row per goal in flight (then the
//! finished ones) with its progress drawn. Pure.

use super::page::{escape, progress_bar, table};
use crate::fleet::{Kind, Row, age_text};

/// Goals still being worked on: in progress or blocked.
fn in_flight(row: &Row) -> bool {
    row.goal.is_some() && matches!(row.status.as_str(), "in-progress" | "blocked")
}

/// The dashboard; `generated` is when it was made (RFC 3339), shown in its header.
pub fn page(rows: &[Row], generated: &str) -> String {
    let flying: Vec<&Row> = rows.iter().filter(|r| in_flight(r)).collect();
    let rest: Vec<&Row> = rows
        .iter()
        .filter(|r| r.goal.is_some() && !in_flight(r))
        .collect();
    let mut body = format!(
        "<h1>Goals in flight</h1>\n<p class=\"meta\">{} in flight, {} finished or unreadable · made {}</p>\n",
        flying.len(),
        rest.len(),
        escape(generated)
    );
    if flying.is_empty() {
        body.push_str("<p class=\"note\">No goal is in flight in this repository.</p>\n");
    } else {
        body.push_str(&rows_table(&flying));
    }
    if !rest.is_empty() {
        body.push_str("<h2>Finished</h2>\n");
        body.push_str(&rows_table(&rest));
    }
    super::page::page("goal fleet", &body)
}

fn rows_table(rows: &[&Row]) -> String {
    let cells: Vec<Vec<String>> = rows.iter().map(|r| cells(r)).collect();
    table(
        &[
            "Where",
            "Goal",
            "Status",
            "Iteration",
            "Proven",
            "Age",
            "Flags",
            "Run",
        ],
        &cells,
    )
}

fn cells(r: &Row) -> Vec<String> {
    let place = match (&r.kind, &r.branch) {
        (Kind::Worktree, Some(b)) => format!("{} <code>{}</code>", escape(&r.place), escape(b)),
        _ => format!("<code>{}</code>", escape(&r.place)),
    };
    let proven = match (r.proven, r.total) {
        (Some(p), Some(t)) => format!("{} {p}/{t}", progress_bar(p, t, 80.0)),
        (None, Some(t)) => format!("?/{t}"),
        _ => "—".into(),
    };
    vec![
        place,
        escape(r.goal.as_deref().unwrap_or("—")),
        format!(
            "<span class=\"status {}\">{}</span>",
            escape(&r.status),
            escape(&r.status)
        ),
        r.iteration.map_or("—".into(), |i| i.to_string()),
        proven,
        r.age_s.map_or("—".into(), age_text),
        r.flags
            .iter()
            .map(|f| format!("<span class=\"flag\">{}</span>", escape(f)))
            .collect::<String>(),
        r.run
            .as_ref()
            .map_or("—".into(), |run| escape(&run.describe())),
    ]
}
