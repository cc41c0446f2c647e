//! The `pbmchess` command line: its arguments (clap), the subcommands they
//! run (`run.rs` the plain ones, `admin.rs` the `admin …` ones), the exit
//! codes, the log's set-up and standard output. `main.rs` only calls
//! [`main`]; the work is in `app`, `admin` and below.

/// `println!` of this binary: [`out`], which ends the command quietly when
/// the reader went away (`pbmchess admin … | head`) where std's would panic.
macro_rules! println {
    ($($arg:tt)*) => {
        crate::cli::out(&format!("{}\n", format_args!($($arg)*)))
    };
}

mod admin;
mod run;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::config::LogFormat;

pub(crate) use run::run;

/// A play-by-email turn server for chess variants.
///
/// Without --config (or PBMCHESS_CONFIG) it reads
/// /etc/pbmchess/pbmchess.toml when that file exists (and
/// --no-system-config is not given), else runs on built-in defaults:
/// database var/pbmchess.sqlite, inbox Maildir var/inbox, outbox Maildir
/// var/outbox.
#[derive(Parser)]
#[command(name = "pbmchess", version, about)]
pub(crate) struct Cli {
    /// The config file (TOML); see config.example.toml.
    #[arg(long, global = true, env = "PBMCHESS_CONFIG")]
    pub(crate) config: Option<PathBuf>,
    /// Without --config, run on the built-in defaults even when
    /// /etc/pbmchess/pbmchess.toml exists (PBMCHESS_NO_SYSTEM_CONFIG=1 in
    /// the environment does the same).
    #[arg(
        long,
        global = true,
        env = "PBMCHESS_NO_SYSTEM_CONFIG",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub(crate) no_system_config: bool,
    /// How log lines are written to standard error: text, or json (one
    /// object per line); overrides [log] format.
    // The doc comment is the --help text: "[log]" is the config's section.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, global = true, env = "PBMCHESS_LOG_FORMAT", value_enum)]
    pub(crate) log_format: Option<LogFormat>,
    #[command(subcommand)]
    pub(crate) command: Cmd,
}

#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Create the database and the mail folders.
    Init,
    /// Run as a daemon: read mail, send mail, run timers; repeat until SIGINT/SIGTERM.
    Serve,
    /// One pass of the daemon's work, then exit (for cron).
    Poll,
    /// Process one RFC 5322 message from FILE or standard input (MTA pipe), then send the replies.
    Process { file: Option<PathBuf> },
    /// Send reminders and apply forfeits that are due.
    Tick {
        /// Pretend it is this time (RFC 3339), e.g. 2026-12-24T12:00:00Z.
        #[arg(long)]
        now: Option<String>,
    },
    /// Manage users and boards.
    #[command(subcommand)]
    Admin(AdminCmd),
    /// Try the config, the database (integrity_check), the inbox and the
    /// outbox (IMAP/SMTP login, sendmail -bv); one line each; exit 0 when
    /// all work, else 2.
    Check {
        /// Also send a probe mail through the outbox to the server's own
        /// address and wait for it in the inbox (never answered).
        #[arg(long)]
        probe: bool,
        /// How long --probe waits for its mail, in seconds.
        #[arg(long, default_value_t = 60, value_name = "SECONDS")]
        probe_seconds: u64,
    },
    /// Last pass, inbox and outbox waiting, quarantine, last errors,
    /// stopped addresses (from the database; no server is contacted).
    Status {
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Serve the read-only web site on `[web] listen` (plain HTTP; put a TLS
    /// proxy in front), beside `serve`, until SIGINT/SIGTERM; prints
    /// `listening on http://ADDRESS` once it listens.
    Web,
    /// Count the move sequences of DEPTH plies (a rules check; no config needed).
    Perft {
        game: String,
        depth: u32,
        /// The position text (FEN for the chess-like games); the start when absent.
        #[arg(long)]
        position: Option<String>,
        /// Game options, without the dash (e.g. --option lenient).
        #[arg(long = "option")]
        options: Vec<String>,
        /// Print the count after each first action (one line each, `name: count`),
        /// then the total: how to find where two move generators disagree.
        #[arg(long)]
        divide: bool,
    },
}

#[derive(Subcommand)]
pub(crate) enum AdminCmd {
    /// Manage users.
    #[command(subcommand)]
    User(UserCmd),
    /// Start a board: GAME USER1 USER2 [-option ...] [--nagtime=N] [--forfeittime=N].
    Challenge {
        game: String,
        #[arg(num_args = 2.., allow_hyphen_values = true, trailing_var_arg = true)]
        words: Vec<String>,
    },
    /// Print the board mail of a board.
    Show {
        game: String,
        board: u32,
        #[arg(long, value_enum, default_value_t = Size::Large)]
        size: Size,
    },
    /// List, delete or adjudicate boards.
    #[command(subcommand)]
    Board(BoardCmd),
    /// Outgoing mail not yet sent: list it, send it again, or drop it.
    #[command(subcommand)]
    Outbox(OutboxCmd),
    /// Inbound mail that failed inside the server: list it, replay it.
    #[command(subcommand)]
    Inbox(InboxCmd),
    /// Mail a message to every user (the text from FILE or standard input).
    Broadcast {
        /// The subject (after the server's name).
        #[arg(long)]
        subject: String,
        file: Option<PathBuf>,
    },
    /// Users, boards per game, mail per day, queue sizes.
    Stats,
    /// Copy the database to FILE (safe while the daemon runs).
    Backup { file: PathBuf },
    /// Tournaments: open, list, show, start, join, withdraw, cancel.
    #[command(subcommand)]
    Tournament(TournamentCmd),
}

#[derive(Subcommand)]
pub(crate) enum TournamentCmd {
    /// Open a tournament NAME of GAME (no one entered; players join by
    /// mail): --kind roundrobin|swiss --players N [--double] [--rounds N]
    /// [--nagtime=D --forfeittime=D --totaltime=D] [--tiebreaks=LIST]
    /// [-option ...].
    Create {
        name: String,
        game: String,
        /// `roundrobin` or `swiss`.
        #[arg(long, value_parser = ["roundrobin", "swiss"])]
        kind: String,
        #[arg(long)]
        players: u32,
        /// Round robin: every pair twice, colours swapped.
        #[arg(long)]
        double: bool,
        /// Swiss: the number of rounds.
        #[arg(long)]
        rounds: Option<u32>,
        /// Days between reminders on its boards.
        #[arg(long)]
        nagtime: Option<u32>,
        /// Days without acting before a forfeit on its boards.
        #[arg(long)]
        forfeittime: Option<u32>,
        /// Days of total time per player on its boards.
        #[arg(long)]
        totaltime: Option<u32>,
        /// The tiebreaks in order, FIDE codes separated by commas
        /// (DE, WIN, WON, SB, BH, BH-C1, BH-M1); default per system.
        #[arg(long)]
        tiebreaks: Option<String>,
        /// Game options as a challenge takes them (-lenient, -level=3).
        #[arg(allow_hyphen_values = true, trailing_var_arg = true)]
        options: Vec<String>,
    },
    /// Every tournament (of GAME): open, running, finished.
    List { game: Option<String> },
    /// Print the crosstable and boards in play of NAME.
    Show {
        name: String,
        /// The game, when several have a tournament called NAME.
        #[arg(long)]
        game: Option<String>,
    },
    /// Start NAME before it is full.
    Start {
        name: String,
        #[arg(long)]
        game: Option<String>,
    },
    /// Enter USERID into open NAME (the computer player, say).
    Join {
        name: String,
        userid: String,
        #[arg(long)]
        game: Option<String>,
    },
    /// Withdraw USERID from running NAME: their games in play are lost by
    /// forfeit, unrated.
    Withdraw {
        name: String,
        userid: String,
        #[arg(long)]
        game: Option<String>,
    },
    /// Cancel NAME: an open one is removed; a running one ends at once,
    /// its boards in play deleted (no result, unrated).
    Cancel {
        name: String,
        #[arg(long)]
        game: Option<String>,
    },
}

#[derive(Subcommand)]
pub(crate) enum BoardCmd {
    /// The active boards (every board with --all), of GAME or of all games.
    List {
        game: Option<String>,
        #[arg(long)]
        all: bool,
    },
    /// Remove a board with its moves; its players are told.
    Delete { game: String, board: u32 },
    /// End an active board: RESULT is the winner's userid, or draw. Rated;
    /// the final board is mailed.
    Adjudicate {
        game: String,
        board: u32,
        result: String,
    },
}

#[derive(Subcommand)]
pub(crate) enum OutboxCmd {
    /// Mail waiting to be sent and mail given up, with the last error.
    List,
    /// Make mail ID due now (also one given up); it is sent by the next pass.
    Retry { id: i64 },
    /// Remove mail ID from the outbox unsent.
    Drop { id: i64 },
}

#[derive(Subcommand)]
pub(crate) enum InboxCmd {
    /// Failing and quarantined mail, with the last error.
    List,
    /// Replay quarantined mail ID (after fixing the fault) and send its replies.
    Retry { id: i64 },
    /// Print quarantined mail ID as it was received.
    Show { id: i64 },
    /// Forget quarantined mail ID.
    Drop { id: i64 },
}

#[derive(Subcommand)]
pub(crate) enum UserCmd {
    /// Create a user: USERID [PASSWORD] EMAIL... The password is asked for
    /// on the terminal when left out, or read from standard input with
    /// --password-stdin; given as an argument, it is visible to other users.
    // The doc comments are the --help text: "[PASSWORD]" is usage notation.
    #[allow(rustdoc::broken_intra_doc_links)]
    Add {
        userid: String,
        /// [PASSWORD] EMAIL...: a first word without '@' is the password.
        #[arg(required = true, value_name = "EMAIL")]
        emails: Vec<String>,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
    /// List the users.
    List,
    /// Sign a user off (history is kept).
    Remove { userid: String },
    /// Set a user's password: asked for on the terminal when left out, or
    /// read from standard input with --password-stdin.
    Passwd {
        userid: String,
        /// Visible to other users (ps); better left out.
        password: Option<String>,
        /// Read the password from the first line of standard input.
        #[arg(long)]
        password_stdin: bool,
    },
    /// Put a user on vacation for DAYS (beyond the yearly allowance), or
    /// end it with off.
    Vacation { userid: String, days: String },
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum Size {
    Small,
    Large,
}

/// Exit codes: 0 done, 1 refused (the request was wrong), 2 failure (config,
/// database, mail system). `process` speaks to an MTA instead: 0 done
/// (also a mail quarantined), 75 try again later, 78 broken config.
pub fn main() -> ExitCode {
    crate::server::credentials::return_large_blocks_at_once();
    let cli = Cli::parse();
    let for_mta = matches!(cli.command, Cmd::Process { .. });
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            // No secret of the config in any error (the MTA quotes this in
            // its bounce): see `config::scrub`.
            eprintln!("pbmchess: {}", crate::config::scrub(&e.to_string()));
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
pub(crate) fn init_logging(format: LogFormat) {
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
/// ([`crate::config::scrub`]): the log's last guard against a secret
/// that some error message quoted. The log formatter hands over each
/// event whole, in one write.
struct ScrubbedStderr;

impl std::io::Write for ScrubbedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        std::io::stderr().write_all(crate::config::scrub(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// Print one line on standard output. A reader that went away (`pbmchess
/// admin … | head`) ends the command quietly with status 0: what it did is
/// committed already, and there is no one left to tell.
pub(crate) fn out(text: &str) {
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
