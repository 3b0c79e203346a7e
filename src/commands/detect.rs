//! `goal detect`: is this user message setting a goal, abandoning one, or neither?

use std::io::Read;

use crate::context::Ctx;
use crate::detect::{self, Kind};
use crate::error::{Error, Result};

/// Read a user message (an argument, or `-` / nothing for stdin) and report whether it sets a
/// goal (a trigger phrase such as "my goal is …" / "我的目标是…"), abandons one, or neither, with
/// the anti-trigger that rejected it and the goal's granularity. Exit 0 on a trigger, 1 otherwise.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The message; `-` or nothing reads stdin.
    pub text: Option<String>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let text = match args.text.as_deref() {
        Some("-") | None => {
            let mut buf = String::new();
            std::io::stdin()
                .read_to_string(&mut buf)
                .map_err(Error::io("cannot read", "stdin"))?;
            buf
        }
        Some(t) => t.to_string(),
    };
    let d = detect::detect(&text);
    if ctx.json {
        ctx.emit_json(&d)?;
    } else {
        let label = |v: serde_json::Result<serde_json::Value>| {
            v.ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        };
        let what = match d.kind {
            Kind::Goal => format!(
                "goal: \"{}\" ({} granularity)",
                d.goal.as_deref().unwrap_or(""),
                label(serde_json::to_value(d.granularity))
            ),
            Kind::Abandon => "abandon the active goal".to_string(),
            Kind::None => match d.rejected {
                Some(r) => format!("no trigger (rejected: {})", label(serde_json::to_value(r))),
                None => "no trigger".to_string(),
            },
        };
        ctx.say(what);
    }
    Ok(if d.trigger { 0 } else { 1 })
}
