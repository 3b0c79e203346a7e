//! The spend budgets of a run and what a turn's reported usage lets them hold. Pure.

use crate::usage::Usage;

/// The spend budgets of a run (`--max-cost`, `--max-tokens`), over the usage the agent CLI reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Budget {
    pub max_cost_usd: Option<f64>,
    pub max_tokens: Option<u64>,
}

impl Budget {
    /// Why the running `total` has spent this budget (it reached it: ≥), or None.
    pub fn spent(&self, total: &Usage) -> Option<String> {
        if let (Some(max), Some(cost)) = (self.max_cost_usd, total.cost_usd)
            && cost >= max
        {
            return Some(format!(
                "--max-cost {max} reached (${cost:.4} spent) and the goal is not proven done"
            ));
        }
        if let (Some(max), Some(tokens)) = (self.max_tokens, total.tokens())
            && tokens >= max
        {
            return Some(format!(
                "--max-tokens {max} reached ({tokens} tokens used) and the goal is not proven done"
            ));
        }
        None
    }

    /// The budget flag a turn's usage cannot be held to, and what it left out: `--max-cost`
    /// when the turn reported no cost, `--max-tokens` when it reported no token counts (a
    /// reported 0 is reported). None when every budget given can count the turn.
    pub fn unreported(&self, turn: &Usage) -> Option<(&'static str, &'static str)> {
        if self.max_cost_usd.is_some() && turn.cost_usd.is_none() {
            return Some(("--max-cost", "cost"));
        }
        if self.max_tokens.is_some() && turn.tokens().is_none() {
            return Some(("--max-tokens", "token counts"));
        }
        None
    }
}
