//! `goal log`: the audit of a goal, read back from git history and streamed out.

use std::io::{BufWriter, Write};

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::history::{self, Row, Sink};
use crate::workspace::Workspace;

/// One row per iteration from the commits with Goal-* trailers (first parent from HEAD): date,
/// passing X/Y, the iteration diff, the first log line, evidence ids and flags (stagnant,
/// material-change with the old and new text, unverified-check, blocked, broken-evidence-chain,
/// hand-made: a change of GOAL.md committed without `goal`, tests-weakened: a commit whose change
/// refuses on its own (code that detects its tests, a test asserting nothing) or a weakening a
/// person confirmed, tests-changed: a change to the tests that `done`'s runs judge (a test removed,
/// renamed, skipped or rewritten, the selection changed) and what `done`'s exams showed,
/// special-cased-input: code that answers a literal the tests write with a constant, mutants and
/// mutants-survived: the completion's mutation record, mutation-unchecked: code of a language no
/// mutation tool reads). After a goal's rows, a line per `goal run`
/// that worked on it: its iterations, the agent that made each, what its agents reported using.
/// Without --all: the most recent goal.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Every goal found in history, finished and abandoned ones included.
    #[arg(long)]
    pub all: bool,
}

fn write_err(e: std::io::Error) -> Error {
    Error::io("cannot write", "stdout")(e)
}

/// `--json`: one array of rows, oldest first, written as the rows are found.
struct JsonSink<W: Write> {
    out: W,
    first: bool,
}

impl<W: Write> Sink for JsonSink<W> {
    fn goal_start(&mut self, _goal: &str) -> Result<()> {
        Ok(())
    }

    fn row(&mut self, row: &Row) -> Result<()> {
        let sep = if self.first { "[\n" } else { ",\n" };
        self.first = false;
        crate::context::json_written();
        self.out.write_all(sep.as_bytes()).map_err(write_err)?;
        serde_json::to_writer(&mut self.out, row).map_err(|e| write_err(e.into()))
    }

    fn goal_end(&mut self, _status: &str, _unmarked: &[String]) -> Result<()> {
        Ok(())
    }
}

/// Human output: a header per goal, a line per row, flags, and a sparkline.
struct TextSink<'a, W: Write> {
    ctx: &'a Ctx,
    out: W,
    goals: usize,
    passing: Vec<(usize, usize)>,
    /// This goal's rows made by a `goal run`, for its run lines.
    run_rows: Vec<Row>,
}

impl<W: Write> TextSink<'_, W> {
    /// A row's changes to the tests that `done`'s runs judge, what its exams showed, and the
    /// goal's change under mutation on its code (the line `goal report` shows).
    fn changed(&mut self, r: &Row) -> Result<()> {
        if let Some(m) = &r.mutation {
            writeln!(self.out, "      {}", m.line()).map_err(write_err)?;
        }
        for w in &r.tests_changed {
            let line = format!(
                "      tests changed in {}: {}",
                crate::repo::short_id(&w.commit),
                w.finding.trailer_value()
            );
            writeln!(self.out, "{line}").map_err(write_err)?;
        }
        for value in &r.exams_shown {
            writeln!(self.out, "      exam: {value}").map_err(write_err)?;
        }
        Ok(())
    }
}

impl<W: Write> Sink for TextSink<'_, W> {
    fn goal_start(&mut self, goal: &str) -> Result<()> {
        if self.goals > 0 {
            writeln!(self.out).map_err(write_err)?;
        }
        self.goals += 1;
        self.passing.clear();
        self.run_rows.clear();
        if !goal.is_empty() {
            writeln!(self.out, "{} {goal}", self.ctx.bold("Goal:")).map_err(write_err)?;
        }
        Ok(())
    }

    fn row(&mut self, r: &Row) -> Result<()> {
        self.passing.push((r.passing, r.total));
        let flags = if r.flags.is_empty() {
            String::new()
        } else {
            let text = format!("  [{}]", r.flags.join(", "));
            if r.flags
                .iter()
                .any(|f| f == "unverified-check" || f == "broken-evidence-chain")
            {
                self.ctx.red(&text)
            } else {
                self.ctx.yellow(&text)
            }
        };
        let run = match (&r.run, &r.agent) {
            (Some(id), Some(agent)) => format!("  run {id} ({agent})"),
            (Some(id), None) => format!("  run {id}"),
            _ => String::new(),
        };
        if r.run.is_some() {
            self.run_rows.push(r.clone());
        }
        let evidence = if r.evidence.is_empty() {
            String::new()
        } else {
            format!("  evidence {}", r.evidence.join(","))
        };
        writeln!(
            self.out,
            "{:>4}  {}  {}  {}/{}  {} files +{} -{}  {}{evidence}{run}{flags}",
            r.iteration,
            crate::repo::short_id(&r.commit),
            &r.date[..10.min(r.date.len())],
            r.passing,
            r.total,
            r.files_changed,
            r.insertions,
            r.deletions,
            r.summary,
        )
        .map_err(write_err)?;
        for m in &r.material {
            let new = match &m.new {
                Some(new) => format!("→ \"{new}\""),
                None => "→ removed".to_string(),
            };
            let what = match m.number {
                // Not a criterion: the settings that judge the goal.
                0 => format!("settings {} {}", m.old, new.replace('"', "")),
                n => format!("criterion {n} \"{}\" {new}", m.old),
            };
            let line = format!(
                "      material change in {}: {what} ({}){}",
                crate::repo::short_id(&m.commit),
                m.reason,
                if m.recorded.is_some() {
                    ""
                } else {
                    " — not recorded with --confirm"
                }
            );
            writeln!(self.out, "{}", self.ctx.yellow(&line)).map_err(write_err)?;
        }
        for w in &r.tests_weakened {
            let line = format!(
                "      tests weakened in {}: {}",
                crate::repo::short_id(&w.commit),
                w.finding.trailer_value()
            );
            writeln!(self.out, "{}", self.ctx.yellow(&line)).map_err(write_err)?;
        }
        for value in &r.tests_weakened_confirmed {
            let line = format!("      tests weakened, recorded with --confirm: {value}");
            writeln!(self.out, "{}", self.ctx.yellow(&line)).map_err(write_err)?;
        }
        self.changed(r)
    }

    fn goal_end(&mut self, status: &str, unmarked: &[String]) -> Result<()> {
        for id in unmarked {
            let line = format!(
                "      {}  deleted the goal files without a Goal-Status: complete|abandoned trailer",
                crate::repo::short_id(id)
            );
            writeln!(self.out, "{}", self.ctx.red(&line)).map_err(write_err)?;
        }
        for run in history::runs(&self.run_rows) {
            writeln!(self.out, "{}", run.line()).map_err(write_err)?;
        }
        if !self.passing.is_empty() {
            writeln!(
                self.out,
                "status: {status}  passing: {}",
                history::sparkline(&self.passing)
            )
            .map_err(write_err)?;
        }
        Ok(())
    }
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let ws = Workspace::open_history(ctx)?;
    if ctx.quiet() && !ctx.json {
        return Ok(0);
    }
    let stdout = std::io::stdout();
    let out = BufWriter::new(stdout.lock());
    let walk = |sink: &mut dyn Sink| {
        history::walk_goals(
            &ws.repo,
            &ws.goal_dir,
            &ws.goal_rel,
            &ws.config,
            args.all,
            sink,
        )
    };
    if ctx.json {
        let mut sink = JsonSink { out, first: true };
        walk(&mut sink)?;
        let end: &[u8] = if sink.first { b"[]\n" } else { b"\n]\n" };
        crate::context::json_written();
        sink.out.write_all(end).map_err(write_err)?;
        sink.out.flush().map_err(write_err)?;
        return Ok(0);
    }
    let mut sink = TextSink {
        ctx,
        out,
        goals: 0,
        passing: Vec::new(),
        run_rows: Vec::new(),
    };
    walk(&mut sink)?;
    if sink.goals == 0 {
        writeln!(
            sink.out,
            "No goal commits in this history. Start one with `goal init \"<goal>\" -c \"<criterion>\"`."
        )
        .map_err(write_err)?;
    }
    sink.out.flush().map_err(write_err)?;
    Ok(0)
}
