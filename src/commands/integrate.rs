//! `goal integrate`.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    Claude,
    Pi,
}
pub fn run(_ctx: &crate::context::Ctx, _c: Command) -> crate::error::Result<u8> {
    Ok(0)
}
