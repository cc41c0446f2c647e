//! The `pbmchess` command line: a thin dispatcher. The arguments and the
//! subcommands they run are in `cli` (part of this binary); the work is in
//! the library (`pbmchess::app`, `pbmchess::admin` and below). Here: the
//! exit codes, the log's set-up and standard output.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use pbmchess::config::LogFormat;

/// `println!` of this binary: [`out`], which ends the command quietly when
/// the reader went away (`pbmchess admin … | head`) where std's would panic.
macro_rules! println {
    ($($arg:tt)*) => {
        crate::out(&format!("{}\n", format_args!($($arg)*)))
    };
}

mod cli;

/// Exit codes: 0 done, 1 refused (the request was wrong), 2 failure (config,
/// database, mail system). `process` speaks to an MTA instead: 0 done
/// (also a mail quarantined), 75 try again later, 78 broken config.
fn main() -> ExitCode {
    pbmchess::server::credentials::return_large_blocks_at_once();
    let cli = cli::Cli::parse();
    let for_mta = matches!(cli.command, cli::Cmd::Process { .. });
    match cli::run(cli) {
        Ok(code) => code,
        Err(e) => {
            // No secret of the config in any error (the MTA quotes this in
            // its bounce): see `config::scrub`.
            eprintln!("pbmchess: {}", pbmchess::config::scrub(&e.to_string()));
            ExitCode::from(if for_mta {
                e.mta_exit_code()
            } else {
                e.exit_code()
            })
        }
    }
}

/// Log to standard error: `RUST_LOG` filters (default info); colours only
/// on a terminal; text or one JSON object per line.
fn init_logging(format: LogFormat) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| ScrubbedStderr);
    match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).init(),
        LogFormat::Json => builder.json().with_ansi(false).init(),
    }
}

/// Standard error, with the config's secrets taken out of every line
/// ([`pbmchess::config::scrub`]): the log's last guard against a secret
/// that some error message quoted. The log formatter hands over each
/// event whole, in one write.
struct ScrubbedStderr;

impl std::io::Write for ScrubbedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr().write_all(pbmchess::config::scrub(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// Print one line on standard output. A reader that went away (`pbmchess
/// admin … | head`) ends the command quietly with status 0: what it did is
/// committed already, and there is no one left to tell.
fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("pbmchess: cannot write to standard output: {e}");
        std::process::exit(2);
    }
}
