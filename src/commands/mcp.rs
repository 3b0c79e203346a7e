//! `goal mcp`: serve goal's tools to an MCP client on stdio.

use crate::context::Ctx;
use crate::error::Result;

/// Serve goal as a Model Context Protocol server on stdin/stdout, for agents without a shell.
/// Its tools (goal_status, goal_init, goal_criteria_add, goal_verify, goal_iterate, goal_done,
/// goal_log, goal_report) each run the matching command with --json and return its document;
/// a failure carries its kind. Every call carries the agent's mark (GOAL_AGENT=mcp), so what is
/// the person's (--confirm, abandon, replace) is not offered, and a pin runs only once a person
/// approved it (`goal criteria approve N` in their own terminal, or the client's question).
/// Configure it in the client as a stdio server: command `goal`, argument `mcp`.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(ctx: &Ctx, _args: Args) -> Result<u8> {
    crate::mcp::serve(ctx.cwd.clone(), ctx.file.clone())
}
