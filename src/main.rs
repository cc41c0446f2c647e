//! The `pbmchess` binary: everything is in the library's command line,
//! [`pbmchess::cli`].

fn main() -> std::process::ExitCode {
    pbmchess::cli::main()
}
