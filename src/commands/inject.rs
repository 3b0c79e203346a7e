//! `goal inject` and `goal continuation`.
#[derive(Debug, clap::Args)]
pub struct Args {}
#[derive(Debug, clap::Args)]
pub struct ContinuationArgs {}
pub fn run(_ctx: &crate::context::Ctx, _args: Args) -> crate::error::Result<u8> {
    Ok(0)
}
pub fn run_continuation(
    _ctx: &crate::context::Ctx,
    _args: ContinuationArgs,
) -> crate::error::Result<u8> {
    Ok(0)
}
