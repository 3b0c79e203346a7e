//! `goal detect`: trigger, anti-trigger, abandon and granularity detection.
#[derive(Debug, clap::Args)]
pub struct Args {}
pub fn run(_ctx: &crate::context::Ctx, _args: Args) -> crate::error::Result<u8> {
    Ok(1)
}
