//! The GitHub Actions workflows `goal ci init` writes, as text: the audit of a pull request's
//! goals, and the race of agents across runners (a matrix of `goal run --claim origin`, then a
//! check of the claimed commit). Pure: the agents' install lines and keys are read from the presets
//! table.

/// Which workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workflow {
    /// `goal audit --rerun` of a pull request's goals.
    Audit,
    /// Agents racing on one goal, one runner each.
    Race,
}

impl Workflow {
    /// Where it goes in the repository.
    pub fn path(self) -> &'static str {
        match self {
            Workflow::Audit => ".github/workflows/goal-audit.yml",
            Workflow::Race => ".github/workflows/goal-race.yml",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Workflow::Audit => "audit",
            Workflow::Race => "race",
        }
    }
}

/// An agent preset's name, program, install line and key: read from the presets table.
pub struct AgentSetup {
    pub agent: &'static str,
    pub program: &'static str,
    pub install: &'static str,
    pub key: &'static str,
}

/// One row per preset, in the presets table's order.
pub fn agent_setups() -> Vec<AgentSetup> {
    crate::runner::presets::PRESETS
        .iter()
        .map(|p| AgentSetup {
            agent: p.name,
            program: p.argv.first().copied().unwrap_or(p.name),
            install: p.install,
            key: p.key,
        })
        .collect()
}

/// The secrets the race job passes on, each once, in the table's order. Pure.
pub fn keys() -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = Vec::new();
    for a in agent_setups() {
        if !keys.contains(&a.key) {
            keys.push(a.key);
        }
    }
    keys
}

/// The agents a race offers when `goal ci init --race` names none.
pub const DEFAULT_RACERS: [&str; 2] = ["claude", "codex"];

/// The git repository `goal` installs from in CI: Cargo.toml's `repository` when the build
/// names one (else the workflow's `GOAL_GIT` repository variable must).
const GOAL_GIT: &str = env!("CARGO_PKG_REPOSITORY");

/// How a runner gets `goal` until a package is published: built from its git repository by
/// cargo (`cargo install --locked --git`), the binary and cargo's downloads cached between runs
/// (kept when one is on PATH already). Steps at the indentation of a job's `steps:` items.
fn install_goal() -> String {
    let version = env!("CARGO_PKG_VERSION");
    format!(
        r#"      - name: Cache goal
        uses: actions/cache@v5
        with:
          path: |
            ~/.cargo/bin/goal
            ~/.cargo/registry/index
            ~/.cargo/registry/cache
            ~/.cargo/git/db
          key: goal-{version}-${{{{ runner.os }}}}-${{{{ vars.GOAL_GIT || '{GOAL_GIT}' }}}}
      - name: Install goal
        env:
          GOAL_GIT: ${{{{ vars.GOAL_GIT || '{GOAL_GIT}' }}}}
        run: |
          if ! command -v goal >/dev/null; then
            if [ -z "$GOAL_GIT" ]; then
              echo "::error::no repository to install goal from: set the repository variable GOAL_GIT to goal's git URL (gh variable set GOAL_GIT --body <url>)"
              exit 1
            fi
            cargo install --locked --git "$GOAL_GIT" goal
          fi
"#
    )
}

/// Whether the workflow needs the `GOAL_GIT` repository variable (no repository built in).
pub fn needs_goal_git() -> bool {
    GOAL_GIT.is_empty()
}

/// The workflow's text. `agents`: the default of the race's `agents` input. Pure.
pub fn render(workflow: Workflow, agents: &[String]) -> String {
    match workflow {
        Workflow::Audit => audit(),
        Workflow::Race => race(agents),
    }
}

fn audit() -> String {
    let install = install_goal();
    format!(
        r#"# Written by `goal ci init`: replay the evidence of a pull request's goals.
name: goal audit
on: pull_request

permissions:
  contents: read

jobs:
  audit:
    runs-on: ubuntu-latest
    env:
      BASE_REF: ${{{{ github.base_ref }}}}
    steps:
      - uses: actions/checkout@v5
        with:
          fetch-depth: 0          # replay needs the commits the evidence ran on
          ref: ${{{{ github.event.pull_request.head.sha }}}}
      # Add here what the pinned test commands need (a toolchain, services).
{install}      - name: Audit the goal's evidence
        run: goal audit "origin/$BASE_REF..HEAD" --rerun --format github
"#
    )
}

fn race(agents: &[String]) -> String {
    let default = serde_json::to_string(agents).unwrap_or_else(|_| "[]".into());
    let keys: String = keys()
        .iter()
        .map(|k| format!("      {k}: ${{{{ secrets.{k} }}}}\n"))
        .collect();
    let cases: String = agent_setups()
        .iter()
        .map(|a| {
            format!(
                "            {}) program={}; install='{}' ;;\n",
                a.agent, a.program, a.install
            )
        })
        .collect();
    format!(
        "{}{}{}",
        race_head(&default),
        race_job(&keys, &cases),
        check_job()
    )
}

/// The race workflow's opening: what it is, its inputs (`default`: the agents'), its permissions.
fn race_head(default: &str) -> String {
    format!(
        r#"# Written by `goal ci init --race`: race agents on one goal, a runner each, through this
# repository (`goal run --claim origin`); the first proven one claims refs/goal/won/<run id>, the
# others stop with their branches pushed. Then the claimed commit is checked.
name: goal race
on:
  workflow_dispatch:
    inputs:
      goal:
        description: The goal, as `goal run "<goal>"` takes it
        required: true
        type: string
      criteria:
        description: "The acceptance criteria, one per line, each with its proof: it works (verify: `cargo test it_works`)"
        required: true
        type: string
      agents:
        description: The agents as a JSON list, a racer each
        required: true
        type: string
        default: '{default}'

permissions:
  contents: write

"#
    )
}

/// The matrix of racers, each `goal run --claim origin` with its agent installed and its key.
fn race_job(keys: &str, cases: &str) -> String {
    let install = install_goal();
    format!(
        r#"jobs:
  race:
    name: race (${{{{ matrix.agent }}}})
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        agent: ${{{{ fromJSON(inputs.agents) }}}}
    env:
      GOAL_TEXT: ${{{{ inputs.goal }}}}
      GOAL_CRITERIA: ${{{{ inputs.criteria }}}}
      AGENT: ${{{{ matrix.agent }}}}
{keys}    steps:
      - uses: actions/checkout@v5
        with:
          fetch-depth: 0
          ref: ${{{{ github.ref_name }}}}
      # Add here what the pinned test commands need (a toolchain, services).
{install}      - name: Install the agent
        run: |
          case "$AGENT" in
{cases}            *) echo "::error::no agent preset '$AGENT' (goal run --help lists them)"; exit 2 ;;
          esac
          command -v "$program" >/dev/null || bash -c "$install"
      - name: Commit as the racer
        run: |
          git config user.name "goal race ($AGENT)"
          git config user.email "41898282+github-actions[bot]@users.noreply.github.com"
      - name: Race
        run: |
          criteria=()
          while IFS= read -r line; do
            if [ -n "$line" ]; then criteria+=(-c "$line"); fi
          done <<< "$GOAL_CRITERIA"
          goal run "$GOAL_TEXT" "${{criteria[@]}}" --agent "$AGENT" --claim origin --race-id ${{{{ github.run_id }}}}

"#
    )
}

/// The job that checks the claimed commit: `goal recheck` and `goal audit --rerun --strict`.
fn check_job() -> String {
    let install = install_goal();
    format!(
        r#"  check:
    name: check the claimed commit
    needs: race
    if: always()
    runs-on: ubuntu-latest
    env:
      CLAIM: refs/goal/won/${{{{ github.run_id }}}}
    steps:
      - uses: actions/checkout@v5
        with:
          fetch-depth: 0
          ref: ${{{{ github.ref_name }}}}
      # Add here what the pinned test commands need (a toolchain, services).
{install}      - name: Check out the claimed commit
        run: |
          if ! git fetch --quiet origin "+$CLAIM:$CLAIM"; then
            echo "::error::no racer claimed the race: $CLAIM is not on origin"
            exit 1
          fi
          git checkout --quiet --detach "$CLAIM"
      - name: The finished goals still hold
        run: goal recheck
      - name: Replay the winner's evidence
        run: goal audit --rerun --strict
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_has_an_install_line_and_a_key() {
        let presets = crate::runner::presets::names();
        let rows: Vec<&str> = agent_setups().iter().map(|a| a.agent).collect();
        assert_eq!(rows, presets);
        assert_eq!(
            keys(),
            [
                "ANTHROPIC_API_KEY",
                "CODEX_API_KEY",
                "GEMINI_API_KEY",
                "OPENAI_API_KEY",
                "CURSOR_API_KEY"
            ]
        );
    }

    #[test]
    fn the_race_names_its_default_agents_and_claims_on_the_run_id() {
        let text = render(Workflow::Race, &["claude".into(), "codex".into()]);
        assert!(text.contains("default: '[\"claude\",\"codex\"]'"), "{text}");
        assert!(text.contains("--claim origin --race-id ${{ github.run_id }}"));
        assert!(text.contains("ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}"));
        let parsed: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
        assert_eq!(parsed["jobs"]["check"]["needs"], "race");
        let parsed: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(&render(Workflow::Audit, &[])).unwrap();
        assert_eq!(parsed["on"], "pull_request");
    }
}
