//! After a call that may have written a pin: each pin no person approved yet, asked about through
//! the client's form (MCP elicitation) where it has one — the answer is the person's, given in
//! the client's own interface, never the model's — and otherwise left waiting for `goal criteria
//! approve N` typed in a terminal.

use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::call::Runner;
use crate::ops::approve::{self, Pending};
use crate::workspace::Workspace;

/// The question's answer: whether the person lets `goal` run the pin.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PinApproval {
    /// Approve: goal may run this command as you, in this work tree, whenever the agent calls
    /// goal_verify or goal_done.
    pub approve: bool,
}

rmcp::elicit_safe!(PinApproval);

/// The pins waiting for a person, each asked about where the client can ask: `{"approved",
/// "awaiting_approval", "next"}` for the tool's result.
pub async fn ask(runner: &Runner, peer: &Peer<RoleServer>) -> Value {
    let Some((root, pending)) = pending(runner) else {
        return Value::Null;
    };
    let can_ask = peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form);
    let (mut approved, mut waiting): (Vec<Pending>, Vec<Pending>) = (Vec::new(), Vec::new());
    for pin in pending {
        if can_ask && asked(peer, &root, &pin).await && record(runner, &pin) {
            approved.push(pin);
        } else {
            waiting.push(pin);
        }
    }
    let next = match waiting.as_slice() {
        [] => None,
        pins => Some(format!(
            "a person must approve each pin before goal runs it: ask them to read the command and run {} in their own terminal",
            pins.iter()
                .map(|p| format!("`goal criteria approve {}`", p.criterion))
                .collect::<Vec<_>>()
                .join(" and ")
        )),
    };
    json!({ "approved": approved, "awaiting_approval": waiting, "next": next })
}

/// The workspace the runner's calls act on (it is not kept across an await: git's handles stay
/// on one thread).
fn workspace(runner: &Runner) -> Option<Workspace> {
    let ctx = crate::context::Ctx {
        cwd: runner.dir.clone(),
        file: runner.file.clone(),
        json: true,
        color: false,
    };
    let _hush = crate::context::hush();
    Workspace::open(&ctx).ok()
}

/// The worktree's root and the goal's pins no person approved.
fn pending(runner: &Runner) -> Option<(String, Vec<Pending>)> {
    let ws = workspace(runner)?;
    let goal = ws.goal().ok()?;
    Some((
        ws.root().display().to_string(),
        approve::pending(&ws, &goal, &[]),
    ))
}

/// The person's approval of `pin`, recorded (`elicitation`).
fn record(runner: &Runner, pin: &Pending) -> bool {
    workspace(runner)
        .is_some_and(|ws| approve::record(&ws, pin.criterion, &pin.command, "elicitation").is_ok())
}

/// Ask the person about one pin: true when they approve it.
async fn asked(peer: &Peer<RoleServer>, root: &str, pin: &Pending) -> bool {
    let message = format!(
        "goal: approve the pin of criterion {}? It runs `{}` in {root} as your user, each time the agent calls goal_verify or goal_done. Approve only a command you have read.",
        pin.criterion, pin.command
    );
    matches!(
        peer.elicit::<PinApproval>(message).await,
        Ok(Some(PinApproval { approve: true }))
    )
}
