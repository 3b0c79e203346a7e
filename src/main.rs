//! The `goal` binary: everything happens in the library (`goal::main`).

use std::process::ExitCode;

fn main() -> ExitCode {
    goal::main()
}
