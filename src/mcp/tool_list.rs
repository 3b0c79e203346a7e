//! The tools `goal mcp` offers, each a `goal` command run with `--json`: their parameters (JSON
//! schemas through schemars), the command line each stands for, and the pins a person is asked to
//! approve after a call that wrote one. What is the person's (`--confirm`, abandon, replace, the
//! settings that judge the goal, running a command that is not an approved pin) is no tool and
//! no parameter.

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use super::call::{Progress, Runner};

/// `goal_init`'s parameters.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct InitParams {
    /// The goal: what done looks like, in one sentence.
    pub goal: String,
    /// The acceptance criteria, each an observable outcome; one may end with its pinned test
    /// as (verify: `<test command>`), which runs only once a person approved it.
    #[serde(default)]
    pub criteria: Vec<String>,
}

/// `goal_criteria_add`'s parameters.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct CriteriaAddParams {
    /// The criterion: an observable outcome.
    pub text: String,
    /// The test command that proves it (pinned; red on the code before the goal, then green).
    /// It runs only once a person approved it.
    #[serde(default)]
    pub verify: Option<String>,
    /// A command that must keep passing (a regression suite, a linter) instead of `verify`.
    /// It runs only once a person approved it.
    #[serde(default)]
    pub guard: Option<String>,
    /// The phase (1-based) of a multi-stage goal.
    #[serde(default)]
    pub phase: Option<usize>,
}

/// `goal_verify`'s parameters.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct VerifyParams {
    /// The criteria whose pins to run (none: every pin once).
    #[serde(default)]
    pub criteria: Vec<usize>,
}

/// `goal_iterate`'s parameters.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct IterateParams {
    /// What this iteration did, one line each (the first is the summary).
    pub messages: Vec<String>,
}

/// `goal_log`'s parameters.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct LogParams {
    /// Every goal of the branch's history, not only the last.
    #[serde(default)]
    pub all: bool,
}

/// A tool call as the `goal` command line it stands for (after `goal -C <dir> --json`). Flags
/// take their values with `=` and texts follow `--`, so no text is read as a flag.
pub fn init_args(p: &InitParams) -> Vec<String> {
    let mut args = vec!["init".to_string()];
    args.extend(p.criteria.iter().map(|c| format!("--criterion={c}")));
    args.extend(["--".to_string(), p.goal.clone()]);
    args
}

pub fn criteria_add_args(p: &CriteriaAddParams) -> Vec<String> {
    let mut args = vec!["criteria".to_string(), "add".to_string()];
    if let Some(v) = &p.verify {
        args.push(format!("--verify={v}"));
    }
    if let Some(g) = &p.guard {
        args.push(format!("--guard={g}"));
    }
    if let Some(n) = p.phase {
        args.push(format!("--phase={n}"));
    }
    args.extend(["--".to_string(), p.text.clone()]);
    args
}

pub fn verify_args(p: &VerifyParams) -> Vec<String> {
    let mut args = vec!["verify".to_string()];
    args.extend(p.criteria.iter().map(|n| format!("--criterion={n}")));
    args
}

pub fn iterate_args(p: &IterateParams) -> Vec<String> {
    let mut args = vec!["iterate".to_string()];
    args.extend(p.messages.iter().map(|m| format!("--message={m}")));
    args
}

pub fn log_args(p: &LogParams) -> Vec<String> {
    let mut args = vec!["log".to_string()];
    if p.all {
        args.push("--all".into());
    }
    args
}

/// The server: the runner of `goal` commands and the tools.
#[derive(Clone)]
pub struct Goal {
    runner: Runner,
    tool_router: ToolRouter<Goal>,
}

impl Goal {
    pub fn new(runner: Runner) -> Goal {
        Goal {
            runner,
            tool_router: Goal::tool_router(),
        }
    }

    /// Run `args`, with progress when the client sent a token.
    async fn run(&self, args: Vec<String>, context: &RequestContext<RoleServer>) -> CallToolResult {
        let progress = context
            .meta
            .get_progress_token()
            .map(|token| Progress::new(context.peer.clone(), token));
        self.runner.call(args, progress).await
    }

    /// Run a call that may have written a pin, then ask the person about each pin still to
    /// approve (where the client can ask), and say in the result which pins wait.
    async fn run_pinning(
        &self,
        args: Vec<String>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let mut result = self.run(args, context).await;
        if result.is_error != Some(true) {
            let pins = super::approval::ask(&self.runner, &context.peer).await;
            if let Some(object) = result
                .structured_content
                .as_mut()
                .and_then(|v| v.as_object_mut())
            {
                object.insert("pins".into(), pins);
            }
            if let Some(doc) = &result.structured_content {
                result.content = vec![rmcp::model::ContentBlock::text(doc.to_string())];
            }
        }
        result
    }
}

#[tool_router]
impl Goal {
    #[tool(
        description = "The active goal: its criteria, each with its proof (proven, open, failing, stale), passing X/Y, stagnation, retries and the next step (`goal status --json`)."
    )]
    async fn goal_status(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(vec!["status".into()], &context).await)
    }

    #[tool(
        description = "Start a goal with its acceptance criteria (`goal init --json`; a commit). Refused while a goal is active: replacing or abandoning one is the person's."
    )]
    async fn goal_init(
        &self,
        Parameters(p): Parameters<InitParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run_pinning(init_args(&p), &context).await)
    }

    #[tool(
        description = "Add an acceptance criterion, with the test command that proves it as `verify` (`goal criteria add --json`; a commit). A pin added here is not run until a person approves it: the result's `pins` says which wait."
    )]
    async fn goal_criteria_add(
        &self,
        Parameters(p): Parameters<CriteriaAddParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run_pinning(criteria_add_args(&p), &context).await)
    }

    #[tool(
        description = "Run the criteria's approved pins and record evidence bound to the working tree (`goal verify --json`); ticks each criterion whose run passes. Long: progress is sent."
    )]
    async fn goal_verify(
        &self,
        Parameters(p): Parameters<VerifyParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(verify_args(&p), &context).await)
    }

    #[tool(
        description = "Record an iteration: commit the work with what it did (`goal iterate --json`)."
    )]
    async fn goal_iterate(
        &self,
        Parameters(p): Parameters<IterateParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(iterate_args(&p), &context).await)
    }

    #[tool(
        description = "Complete the goal when every criterion is proven (`goal done --json`): its red runs, a clean run of the final tree, then the completion commit. Refusals say why and what next. Long: progress is sent."
    )]
    async fn goal_done(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(vec!["done".into()], &context).await)
    }

    #[tool(
        description = "The goal's history from git: one row per goal commit, with flags (`goal log --json`, rows under `rows`)."
    )]
    async fn goal_log(
        &self,
        Parameters(p): Parameters<LogParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(log_args(&p), &context).await)
    }

    #[tool(
        description = "The goal's report: what was claimed and what proves it (`goal report --json`)."
    )]
    async fn goal_report(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self.run(vec!["report".into()], &context).await)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Goal {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("goal", env!("CARGO_PKG_VERSION")))
            .with_instructions(super::INSTRUCTIONS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_is_its_command_line_with_texts_after_the_options() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let cases: Vec<(Vec<String>, Vec<String>)> = vec![
            (
                init_args(&InitParams {
                    goal: "--replace".into(),
                    criteria: vec!["a (verify: `sh t.sh`)".into()],
                }),
                s(&[
                    "init",
                    "--criterion=a (verify: `sh t.sh`)",
                    "--",
                    "--replace",
                ]),
            ),
            (
                criteria_add_args(&CriteriaAddParams {
                    text: "-x".into(),
                    verify: Some("sh -c 'x'".into()),
                    guard: None,
                    phase: Some(2),
                }),
                s(&[
                    "criteria",
                    "add",
                    "--verify=sh -c 'x'",
                    "--phase=2",
                    "--",
                    "-x",
                ]),
            ),
            (
                verify_args(&VerifyParams {
                    criteria: vec![1, 3],
                }),
                s(&["verify", "--criterion=1", "--criterion=3"]),
            ),
            (
                iterate_args(&IterateParams {
                    messages: vec!["--confirm".into()],
                }),
                s(&["iterate", "--message=--confirm"]),
            ),
            (log_args(&LogParams { all: true }), s(&["log", "--all"])),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}
