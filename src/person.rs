//! A confirmation is the person's. `goal run` marks its agent's environment with `GOAL_AGENT`
//! (beside `GOAL_RUN_AGENT`), and the adapters do the same where the harness lets them; with the
//! mark set, `--confirm` is refused and no hint offers it. The mark is advisory: an agent that
//! unsets it has cheated in a way the confirmation trailers and `goal audit --strict` show.

/// The mark `goal mcp` gives every command it runs for its client.
pub const MCP_AGENT: &str = "mcp";

/// The variables that mark an agent's environment.
pub const MARKS: [&str; 2] = ["GOAL_AGENT", "GOAL_RUN_AGENT"];

/// The variables a host sets in its agent's shell commands, read as the mark where goal cannot
/// set `GOAL_AGENT` through the host's configuration: (variable, its value, the host).
pub const HOST_MARKS: [(&str, &str, &str); 2] =
    [("GEMINI_CLI", "1", "gemini"), ("CLAUDECODE", "1", "claude")];

/// The agent this process runs for, when its environment is marked (a non-empty `GOAL_AGENT`
/// or `GOAL_RUN_AGENT`, else a host's own marker variable).
pub fn agent() -> Option<String> {
    marked_by(|key| std::env::var(key).ok())
}

/// The mark, read through `var` (a table test gives its own environment).
pub fn marked_by(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    let goals = MARKS
        .iter()
        .filter_map(|key| var(key))
        .map(|v| v.trim().to_string())
        .find(|v| !v.is_empty());
    goals.or_else(|| {
        HOST_MARKS
            .iter()
            .find(|(key, value, _)| var(key).is_some_and(|v| v.trim() == *value))
            .map(|(_, _, host)| host.to_string())
    })
}

/// The part of a hint that offers a confirmation: "`<what>` with `<command>`" for a person, or,
/// in an agent's environment, the request to ask the person for it.
pub fn offer(what: &str, command: &str) -> String {
    offer_to(agent().is_some(), what, command)
}

/// [`offer`], for an environment marked or not.
pub fn offer_to(marked: bool, what: &str, command: &str) -> String {
    if marked {
        format!("ask the person to {what}: a confirmation is the person's (they run `{command}`)")
    } else {
        format!("{what} with `{command}`")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An environment, and the mark it should give.
    type Case<'a> = (&'a [(&'a str, &'a str)], Option<&'a str>);

    #[test]
    fn the_mark_is_either_variable_non_empty() {
        let cases: &[Case] = &[
            (&[], None),
            (&[("GOAL_AGENT", "")], None),
            (&[("GOAL_AGENT", "  ")], None),
            (&[("GOAL_AGENT", "claude")], Some("claude")),
            (&[("GOAL_RUN_AGENT", "pi")], Some("pi")),
            (&[("GOAL_AGENT", ""), ("GOAL_RUN_AGENT", "pi")], Some("pi")),
            (
                &[("GOAL_AGENT", "codex"), ("GOAL_RUN_AGENT", "pi")],
                Some("codex"),
            ),
            (&[("GEMINI_CLI", "1")], Some("gemini")),
            (&[("GEMINI_CLI", "0")], None),
            (&[("CLAUDECODE", "1")], Some("claude")),
            (
                &[("CLAUDECODE", "1"), ("GOAL_AGENT", "cursor")],
                Some("cursor"),
            ),
        ];
        for (env, want) in cases {
            let got = marked_by(|key| {
                env.iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| v.to_string())
            });
            assert_eq!(got.as_deref(), *want, "{env:?}");
        }
    }

    #[test]
    fn an_agent_is_never_offered_the_confirmation() {
        let person = offer_to(false, "accept it", "goal done --confirm");
        assert_eq!(person, "accept it with `goal done --confirm`");
        let agent = offer_to(true, "accept it", "goal done --confirm");
        assert!(agent.starts_with("ask the person to accept it"), "{agent}");
        assert!(agent.contains("they run `goal done --confirm`"), "{agent}");
    }
}
