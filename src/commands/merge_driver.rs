//! `goal merge-driver %O %A %B %P`: git's merge driver for the goal files (hidden; registered
//! by `goal hooks install`).

use std::path::PathBuf;

use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::merge_driver::{Conflict, merge_evidence, merge_goal};
use crate::workspace::write_atomic;

/// Merge the goal files of two branches (git calls it; `goal hooks install` registers it).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The common ancestor's version (%O).
    pub base: PathBuf,
    /// Our version (%A): the result is written here.
    pub ours: PathBuf,
    /// Their version (%B).
    pub theirs: PathBuf,
    /// The path in the repository (%P).
    pub path: Option<String>,
}

pub fn run(ctx: &Ctx, args: Args) -> Result<u8> {
    let read = |p: &PathBuf| std::fs::read(p).map_err(Error::io("cannot read", p));
    let (base, ours, theirs) = (read(&args.base)?, read(&args.ours)?, read(&args.theirs)?);
    let path = args.path.clone().unwrap_or_default();
    let name = path.rsplit('/').next().unwrap_or_default();
    let merged: std::result::Result<Vec<u8>, Conflict> = match name {
        crate::store::EVIDENCE_FILE => merge_evidence(&base, &ours, &theirs),
        crate::store::RETRY_FILE => Ok(crate::retry::RetryState::default().render().into_bytes()),
        _ => merge_goal(&base, &ours, &theirs),
    };
    match merged {
        Ok(bytes) => {
            write_atomic(&args.ours, &bytes)?;
            Ok(0)
        }
        Err(Conflict(why)) => {
            ctx.note(format!(
                "cannot merge {path}: {why}; resolve the conflict markers by hand"
            ));
            // Standard conflict markers, as git's own merge would leave them.
            crate::repo::git_cli::merge_file_markers(&args.ours, &args.base, &args.theirs)?;
            Ok(1)
        }
    }
}
