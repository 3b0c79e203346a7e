use std::process::ExitCode;

fn main() -> ExitCode {
    goal::main()
}
