//! `cargo xtask interop`: see `webgate_conformance::interop`.

#![forbid(unsafe_code)]

use std::process::ExitCode;

fn main() -> ExitCode {
    match webgate_conformance::interop::main() {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
