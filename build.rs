//! Link the `goal` binary as a position-dependent executable on Linux with glibc: a
//! position-independent one makes the loader apply some 55,000 relocations at every start (the
//! pointers of the tree-sitter grammars, clap's and the other crates' tables), which took about a
//! third of a millisecond and 350 page faults before each command did anything.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("-linux-gnu") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
