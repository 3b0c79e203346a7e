//! `goal check` / `goal uncheck`: tick a criterion by hand (only with fresh evidence) or untick it.

use serde_json::json;

use crate::context::Ctx;
use crate::error::Result;
use crate::ops::check::{self, Ticked};
use crate::workspace::Workspace;

/// Tick criterion N by hand. Refused (exit 1) unless passing evidence naming N exists for the
/// working tree as it is now (`goal verify -c N -- <test command>` makes it).
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    pub number: usize,
    /// Use this evidence record (it must name N, pass, and be fresh).
    #[arg(long, value_name = "ID")]
    pub evidence: Option<String>,
}

/// Untick criterion N (always allowed).
#[derive(Debug, clap::Args)]
pub struct UncheckArgs {
    pub number: usize,
}

pub fn run_check(ctx: &Ctx, args: CheckArgs) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let Ticked {
        number: n,
        text,
        evidence: id,
    } = check::tick(&ws, args.number, args.evidence.as_deref())?;
    if ctx.json {
        ctx.emit_json(&json!({"number": n, "passed": true, "evidence": id}))?;
    } else {
        ctx.say(format!("[x] {n}. {text} (evidence {id})"));
    }
    Ok(0)
}

pub fn run_uncheck(ctx: &Ctx, args: UncheckArgs) -> Result<u8> {
    let ws = Workspace::open(ctx)?;
    let (n, text) = check::untick(&ws, args.number)?;
    if ctx.json {
        ctx.emit_json(&json!({"number": n, "passed": false}))?;
    } else {
        ctx.say(format!("[ ] {n}. {text}"));
    }
    Ok(0)
}
