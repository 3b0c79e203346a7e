//! `goal report`: the summary of a goal a person pastes into a pull request.

use crate::context::Ctx;
use crate::error::Result;

/// A placeholder until the report is written.
#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_ctx: &Ctx, _args: Args) -> Result<u8> {
    Ok(0)
}
