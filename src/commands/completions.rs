//! `goal completions` and `goal man`: shell completion scripts and the manual page, from clap.

use crate::context::Ctx;
use crate::error::{Error, Result};

/// Print a shell completion script for goal on stdout.
///
/// bash: `goal completions bash > ~/.local/share/bash-completion/completions/goal`;
/// zsh: `goal completions zsh > "${fpath[1]}/_goal"`;
/// fish: `goal completions fish > ~/.config/fish/completions/goal.fish`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Print goal's manual page (roff) on stdout.
///
/// Install it with `goal man > ~/.local/share/man/man1/goal.1`, then read it with `man goal`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {}

/// `command`: goal's whole command line, as clap describes it.
pub fn run(_ctx: &Ctx, args: Args, mut command: clap::Command) -> Result<u8> {
    clap_complete::generate(args.shell, &mut command, "goal", &mut std::io::stdout());
    Ok(0)
}

pub fn run_man(_ctx: &Ctx, _args: ManArgs, command: clap::Command) -> Result<u8> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut page)
        .map_err(Error::io("cannot render", "the manual page"))?;
    use std::io::Write;
    std::io::stdout()
        .write_all(&page)
        .map_err(Error::io("cannot write", "stdout"))?;
    Ok(0)
}
