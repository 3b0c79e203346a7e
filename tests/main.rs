//! Integration tests: the real `goal` binary in hermetic temporary git repositories, with the
//! real git CLI as the referee.

#![allow(clippy::unwrap_used)]

mod common;

mod agent_aider;
mod agent_cli;
mod agent_codex;
mod agent_gemini;
mod agent_opencode;
mod agent_qwen;
mod agents;
mod audit;
mod baseline;
mod bounds;
mod ci;
mod claim;
mod claude_goal;
mod cli;
mod commit_policy;
mod complete;
mod confirmations;
mod criteria;
mod demo;
mod docs;
mod evidence;
mod failover;
mod faults;
mod fleet;
mod fleet_fetch;
mod generative;
mod goal_file;
mod history;
mod hook_shims;
mod hooks;
mod html;
mod init;
mod install;
mod iterate;
mod layers;
mod ledger;
mod lifecycle;
mod mutants;
mod pins;
mod precision;
mod race;
mod red;
mod red_ecosystems;
mod red_history;
mod red_names;
mod red_runs;
mod red_surfaces;
mod red_tricks;
mod redteam;
mod repo_states;
mod run;
mod run_claude;
mod run_ends;
mod short_ids;
mod speed;
mod status;
mod terminal;
mod verify;
