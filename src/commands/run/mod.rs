//! `goal run`: drive an agent CLI turn after turn until the goal is proven done, blocked, or out
//! of budget. The loop's rules live in `runner::machine`; this folder is its edge: the process,
//! the clock, git and the terminal. Here the run is set up; [`edge`] carries out the machine's
//! steps, [`turn`] runs one turn of the agent and records it.

mod agents;
mod args;
mod claim;
mod display;
mod edge;
mod goal_state;
mod turn;

use std::sync::atomic::Ordering;

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::runner::agent::{self, INTERRUPTS};
use crate::runner::clock::{Clock, time_scale};
use crate::runner::display::Display;
use crate::runner::machine::{Event, Machine};
use crate::usage::Usage;
use crate::workspace::Workspace;
use edge::Edge;

pub(crate) use agents::no_agent;
pub use args::Args;
pub(crate) use goal_state::check_goal;

/// `app`: goal's whole command line as clap describes it (a race reads its own again).
pub fn run(ctx: &Ctx, args: Args, app: fn() -> clap::Command) -> Result<u8> {
    // A budget no listed agent can be held to is refused before anything is made (each racer
    // would refuse it too).
    args::check_budgets(&args)?;
    if let Some(racers) = args.race {
        return super::race::run(ctx, args, racers, app());
    }
    let ws = Workspace::open(ctx)?;
    refuse_detached(&ws, &args)?;
    let agents = agents::agents(&args)?;
    let run_id = run_id();
    let claim = start_in_repo(&ws, &args, &agents[0].name, &run_id)?;
    let mut edge = ready_edge(ctx, &ws, &args, agents, run_id, claim)?;
    edge.drive()
}

/// Whether the run's commits would hang off nothing: an unattended run asks for a branch first
/// (a claiming racer makes a branch of its own).
fn refuse_detached(ws: &Workspace, args: &Args) -> Result<()> {
    if ws.repo.head_detached() && !args.detached_ok && args.claim.is_none() {
        return Err(Error::usage(
            "HEAD is detached: the run's commits would be on no branch",
            "create a branch first with `git switch -c <name>`, or run anyway with `goal run --detached-ok`",
        ));
    }
    Ok(())
}

/// The run started in the repository: a claiming racer's branch made, the goal started (or the
/// active one continued), the agents' own files kept out of git, and the claimant once the goal
/// is there (with `--claim`).
fn start_in_repo(
    ws: &Workspace,
    args: &Args,
    agent: &str,
    run_id: &str,
) -> Result<Option<claim::ClaimRun>> {
    let start = match &args.claim {
        Some(remote) => Some(claim::prepare(ws, args, remote, agent, run_id)?),
        None => None,
    };
    goal_state::start_goal(ws, args)?;
    ws.repo.ensure_idle()?;
    agents::exclude_own_files(ws, &args.agent)?;
    Ok(match (&args.claim, start) {
        (Some(remote), Some(start)) => {
            Some(claim::claimant(ws, args, remote, start, time_scale())?)
        }
        _ => None,
    })
}

/// The run's edge, ready to drive: its folder made, its marker held for `goal fleet`, its
/// machine started on the goal's state, and the start announced.
fn ready_edge<'a>(
    ctx: &'a Ctx,
    ws: &'a Workspace,
    args: &'a Args,
    mut agents: Vec<agents::AgentSpec>,
    run_id: String,
    claim: Option<claim::ClaimRun>,
) -> Result<Edge<'a>> {
    let run_dir = ws.repo.git_dir().join("goal").join("runs").join(&run_id);
    std::fs::create_dir_all(&run_dir)
        .map_err(Error::io("cannot create the run folder", run_dir.clone()))?;
    // Held (an OS lock) until the run ends, so `goal fleet` sees this run.
    let marker = crate::fleet::RunMarker::hold(
        ws.repo.git_dir(),
        &agents[0].name,
        &run_id,
        &crate::context::now_rfc3339(),
    );
    agent::count_interrupts();
    let display = Display::new(ctx.json);
    let unverified = agents::unverified(&args.agent);
    let mut machine = machine_for(args, ws, &mut agents);
    let clock = Clock::new();
    let seen_interrupts = INTERRUPTS.load(Ordering::SeqCst);
    let scale = time_scale();
    let (state, summary) = goal_state::goal_state(ws)?;
    display::announce_start(&display, &run_id, &agents, &unverified, &run_dir, &summary);
    let pending = machine.handle(Event::Start {
        now_ms: clock.now_ms(),
        state,
        retries: ws.retry_state().failures(),
    });
    Ok(Edge {
        ctx,
        ws,
        args,
        agents,
        marker,
        unrecorded: Usage::default(),
        budget: crate::ops::report::Budget {
            cost_usd: args.max_cost,
            tokens: args.max_tokens,
            iterations: args.max_iterations,
        }
        .value(),
        run_id,
        run_dir,
        display,
        machine,
        clock,
        seen_interrupts,
        scale,
        summary,
        spend: String::new(),
        pending,
        head_before_turn: None,
        claim,
    })
}

/// The run's machine: the budgets' limits, each agent's failure patterns (taken from its spec)
/// and the agents' names.
fn machine_for(args: &Args, ws: &Workspace, agents: &mut [agents::AgentSpec]) -> Machine {
    let names: Vec<String> = agents.iter().map(|a| a.name.clone()).collect();
    Machine::with_agents(
        args::limits(args, &ws.config),
        agents
            .iter_mut()
            .filter_map(|a| a.patterns.take())
            .collect(),
    )
    .named(&names)
}

/// `20260101T120000Z-3f2a`: when the run started and which process it was.
pub(crate) fn run_id() -> String {
    format!(
        "{}-{:04x}",
        chrono::Utc::now().format("%Y%m%dT%H%M%SZ"),
        std::process::id() & 0xffff
    )
}
