//! `cargo xtask <task>`: builds the native library for this machine and assembles the
//! hosts' installable packages from it, or runs the whole test suite. One file per task.

mod godot;
mod test;
mod unity;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("unity") => unity::run(&args[1..]),
        Some("godot") => godot::run(&args[1..]),
        Some("test") => test::run(&args[1..]),
        _ => Err("usage: cargo xtask <test|unity|godot> [options]; `cargo xtask test --help`".to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}
