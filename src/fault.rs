//! Fault injection for the crash-consistency tests: `GOAL_FAULT_AT=N` stops the process at the
//! N-th fault point it passes (`GOAL_FAULT_MODE=stop`: it says `GOAL_FAULT <name>` on stderr and
//! waits to be killed; otherwise it aborts). `GOAL_FAULT_LIST=1` names each point as it passes.
//! Without these variables a point costs one atomic increment.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

struct Plan {
    at: Option<u32>,
    stop: bool,
    list: bool,
}

static PLAN: OnceLock<Plan> = OnceLock::new();
static PASSED: AtomicU32 = AtomicU32::new(0);

fn plan() -> &'static Plan {
    PLAN.get_or_init(|| Plan {
        at: std::env::var("GOAL_FAULT_AT")
            .ok()
            .and_then(|v| v.parse().ok()),
        stop: std::env::var("GOAL_FAULT_MODE").is_ok_and(|m| m == "stop"),
        list: std::env::var_os("GOAL_FAULT_LIST").is_some(),
    })
}

/// A place where a crash must leave everything consistent.
pub fn point(name: &str) {
    let n = PASSED.fetch_add(1, Ordering::SeqCst) + 1;
    let plan = plan();
    if plan.list {
        crate::context::warn_line(format!("GOAL_FAULT_POINT {n} {name}"));
    }
    if plan.at != Some(n) {
        return;
    }
    if plan.stop {
        crate::context::warn_line(format!("GOAL_FAULT {name}"));
        loop {
            std::thread::park();
        }
    }
    std::process::abort();
}
