//! The command reference (docs/reference.md), generated from the clap definitions so it cannot drift.

use std::fmt::Write;

use clap::{Arg, Command, CommandFactory};

use crate::cli::Cli;

/// The whole reference as Markdown: every visible command and subcommand, its about text, its usage
/// and every visible argument and flag with its help. Hidden commands and flags are left out.
pub fn markdown() -> String {
    let mut root = Cli::command();
    // Building sets each subcommand's full name ("goal criteria add") for its usage line.
    root.build();
    let mut out = String::new();
    out.push_str("# Command reference\n\n");
    out.push_str(
        "<!-- Generated from goal's command-line definitions; do not edit by hand. After a change of a \
         command or a flag, regenerate it with `GOAL_UPDATE_DOCS=1 cargo test --locked --test main \
         docs::reference` (the test fails while this file differs). -->\n\n",
    );
    out.push_str(
        "This is what `goal <command> --help` prints, for every command, on one page.\n\n",
    );
    out.push_str("Every command also takes `-h` (a summary) and `--help` (the whole text).\n\n");
    section(&mut out, &[], &root);
    for (path, command) in &visible_commands(&root, &[]) {
        section(&mut out, path, command);
    }
    out
}

/// Every visible subcommand below `command`, depth first, with its path of names.
fn visible_commands<'a>(
    command: &'a Command,
    prefix: &[String],
) -> Vec<(Vec<String>, &'a Command)> {
    let mut out = Vec::new();
    for sub in command.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        let mut path = prefix.to_vec();
        path.push(sub.get_name().to_string());
        out.push((path.clone(), sub));
        out.extend(visible_commands(sub, &path));
    }
    out
}

/// The GitHub anchor of a heading `goal <name>`.
fn anchor(name: &str) -> String {
    let heading = format!("goal {name}");
    heading
        .trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

/// One command's section: heading, about, usage, its subcommands, arguments and options.
fn section(out: &mut String, path: &[String], command: &Command) {
    let name = path.join(" ");
    let heading = format!("goal {name}");
    let _ = writeln!(out, "## `{}`\n", heading.trim());
    if let Some(about) = command.get_long_about().or(command.get_about()) {
        let _ = writeln!(out, "{}\n", prose(about.to_string().trim_end()));
    }
    let usage = command.clone().render_usage().to_string();
    let usage = usage.trim().trim_start_matches("Usage:").trim();
    let _ = writeln!(out, "**Usage:** `{usage}`\n");
    let subcommands: Vec<&Command> = command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .collect();
    if !subcommands.is_empty() {
        out.push_str("**Commands:**\n\n");
        for sub in subcommands {
            let full = format!("{name} {}", sub.get_name());
            let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
            let _ = writeln!(
                out,
                "- [`{}`](#{}): {}",
                sub.get_name(),
                anchor(full.trim()),
                prose(about.trim())
            );
        }
        out.push('\n');
    }
    // Global options belong to the top section only (subcommands receive copies of them), and
    // --help is on every command.
    let own = |a: &&Arg| {
        !a.is_hide_set() && a.get_id() != "help" && (path.is_empty() || !a.is_global_set())
    };
    let positionals: Vec<&Arg> = command.get_positionals().filter(own).collect();
    let options: Vec<&Arg> = command
        .get_arguments()
        .filter(|a| !a.is_positional())
        .filter(own)
        .collect();
    arguments(out, "Arguments", &positionals);
    let title = if path.is_empty() {
        "Global options (every command takes them)"
    } else {
        "Options"
    };
    arguments(out, title, &options);
}

/// A list of arguments under a bold title, each with its help and, as --help shows them, its
/// default, its possible values and its environment variable.
fn arguments(out: &mut String, title: &str, args: &[&Arg]) {
    if args.is_empty() {
        return;
    }
    let _ = writeln!(out, "**{title}:**\n");
    for arg in args {
        let help = arg
            .get_long_help()
            .or(arg.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default();
        let mut line = format!("- `{}`", spelling(arg));
        let help = help.trim();
        if !help.is_empty() {
            let _ = write!(line, ": {}", prose(help).replace('\n', "\n  "));
        }
        for fact in facts(arg) {
            let _ = write!(line, " [{fact}]");
        }
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
}

/// How an argument is written: `-c, --criterion <CRITERION>`, `<GOAL>`, `[CMD]...`.
fn spelling(arg: &Arg) -> String {
    let values: Vec<String> = arg
        .get_value_names()
        .map(|names| names.iter().map(|n| n.to_string()).collect())
        .unwrap_or_else(|| vec![arg.get_id().to_string().to_uppercase()]);
    let repeats = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
    let dots = if repeats { "..." } else { "" };
    if arg.is_positional() {
        let value = values.join(" ");
        if arg.is_last_set() {
            return format!("-- <{value}>{dots}");
        }
        return if arg.is_required_set() {
            format!("<{value}>{dots}")
        } else {
            format!("[{value}]{dots}")
        };
    }
    let mut names = Vec::new();
    if let Some(short) = arg.get_short() {
        names.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        names.push(format!("--{long}"));
    }
    let mut text = names.join(", ");
    if arg.get_action().takes_values() {
        for value in &values {
            let _ = write!(text, " <{value}>");
        }
        text.push_str(dots);
    }
    text
}

/// What else the help shows of an argument: its default, its possible values, its variable.
fn facts(arg: &Arg) -> Vec<String> {
    let mut facts = Vec::new();
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| format!("`{}`", v.to_string_lossy()))
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        facts.push(format!("default: {}", defaults.join(", ")));
    }
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| match v.get_help() {
            Some(help) => format!("`{}` ({help})", v.get_name()),
            None => format!("`{}`", v.get_name()),
        })
        .collect();
    if !values.is_empty() && arg.get_action().takes_values() {
        facts.push(format!("possible values: {}", values.join(", ")));
    }
    if let Some(env) = arg.get_env() {
        facts.push(format!("env: `{}`", env.to_string_lossy()));
    }
    facts
}

/// Help text as Markdown prose: `<`, `>` and `*` outside code spans are escaped, so `<cmd>` and
/// `Goal-*` show as written. A backtick opens or closes a code span, as Markdown reads them.
fn prose(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for c in text.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                out.push(c);
            }
            '<' if !in_code => out.push_str("&lt;"),
            '>' if !in_code => out.push_str("&gt;"),
            '*' if !in_code => out.push_str("\\*"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn prose_escapes_only_outside_code() {
        let cases = [
            ("plain", "plain"),
            ("`<cmd>` stays", "`<cmd>` stays"),
            ("a <hook> here", "a &lt;hook&gt; here"),
            ("`(verify: `<cmd>`)`", "`(verify: `&lt;cmd&gt;`)`"),
            ("Goal-* trailers", "Goal-\\* trailers"),
            ("`a*b`", "`a*b`"),
        ];
        for (text, want) in cases {
            assert_eq!(super::prose(text), want, "{text}");
        }
    }
}
