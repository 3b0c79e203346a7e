//! `goal mcp`: a Model Context Protocol server on stdio, for agents without a shell. Each tool
//! runs one `goal` command with `--json` and the agent's mark; its document is the result. The
//! server's single-threaded runtime starts here and nowhere else.

mod approval;
mod call;
mod tool_list;

use std::path::PathBuf;

use rmcp::ServiceExt;

use crate::error::{Error, Result};

pub use call::Runner;
pub use tool_list::Goal;

/// What the server tells its client at the handshake.
pub const INSTRUCTIONS: &str = "goal keeps you on one goal until it is proven done. Call goal_status first. Add each acceptance criterion with the test that proves it (goal_criteria_add with `verify`); a person approves each pinned test before goal runs it. Then work, goal_verify, goal_iterate, and goal_done when every criterion is proven. What only a person may do (--confirm, abandoning or replacing the goal) is not offered: ask them.";

/// Serve on stdin/stdout until the client closes the connection.
pub fn serve(dir: PathBuf, file: Option<PathBuf>) -> Result<u8> {
    let runner = Runner {
        bin: crate::self_path::current_goal().unwrap_or_else(|| PathBuf::from("goal")),
        dir,
        file,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::internal("start the MCP server's runtime", e))?;
    runtime.block_on(async move {
        let service = Goal::new(runner)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::refused(
                format!("goal mcp: the client's handshake failed: {e}"),
                "start goal mcp from an MCP client (its configuration names `goal mcp` as a stdio server); docs/mcp.md shows how",
            ))?;
        service
            .waiting()
            .await
            .map_err(|e| Error::internal("serve the MCP client", e))?;
        Ok(0)
    })
}
