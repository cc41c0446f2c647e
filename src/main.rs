//! The `pbmchess` command line: parse arguments, load the config, call the library.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};

use pbmchess::clock::{Clock, FixedClock, SystemClock};
use pbmchess::command::{BoardSize, Timers};
use pbmchess::config::Config;
use pbmchess::daemon::{self, Daemon};
use pbmchess::server::templates::Templates;
use pbmchess::server::{Refusal, Server};
use pbmchess::{mail, rules, store};

/// A play-by-email turn server for chess variants.
///
/// Without --config it runs on built-in defaults: database
/// var/pbmchess.sqlite, inbox Maildir var/inbox, outbox Maildir var/outbox.
#[derive(Parser)]
#[command(name = "pbmchess", version, about)]
struct Cli {
    /// The config file (TOML); see config.example.toml.
    #[arg(long, global = true, env = "PBMCHESS_CONFIG")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
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
    },
}

#[derive(Subcommand)]
enum AdminCmd {
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
}

#[derive(Subcommand)]
enum UserCmd {
    /// Create a user: USERID PASSWORD EMAIL...
    Add {
        userid: String,
        password: String,
        #[arg(required = true)]
        emails: Vec<String>,
    },
    /// List the users.
    List,
    /// Sign a user off (history is kept).
    Remove { userid: String },
    /// Set a user's password.
    Passwd { userid: String, password: String },
}

#[derive(Clone, Copy, ValueEnum)]
enum Size {
    Small,
    Large,
}

/// Exit codes: 0 done, 1 refused (the request was wrong), 2 failure (config,
/// database, mail system).
fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("pbmchess: {message}");
            ExitCode::from(2)
        }
    }
}

fn refused(r: Refusal) -> ExitCode {
    eprintln!("pbmchess: {}", r.sentence);
    ExitCode::from(1)
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    if let Cmd::Perft {
        game,
        depth,
        position,
        options,
    } = &cli.command
    {
        return perft(game, *depth, position.as_deref(), options);
    }
    let config = Config::load(cli.config.as_deref()).map_err(|e| e.to_string())?;
    let templates = Templates::load(config.templates.dir.as_deref()).map_err(|e| e.to_string())?;
    let system = SystemClock;
    let fixed;
    let clock: &dyn Clock = match &cli.command {
        Cmd::Tick { now: Some(text) } => {
            let t = chrono::DateTime::parse_from_rfc3339(text).map_err(|e| {
                format!(
                    "--now {text:?} is not an RFC 3339 time ({e}); write e.g. 2026-12-24T12:00:00Z"
                )
            })?;
            fixed = FixedClock(t.with_timezone(&chrono::Utc));
            &fixed
        }
        _ => &system,
    };
    let server = Server::new(&config, clock, &templates);
    let mut conn = store::open(&config.database.path).map_err(|e| e.to_string())?;
    let err = |e: pbmchess::server::ServerError| e.to_string();

    match cli.command {
        Cmd::Perft { .. } => unreachable!("handled above"),
        Cmd::Init => {
            println!("database: {}", config.database.path.display());
            match &config.inbox {
                mail::InboxConfig::Maildir { path } => {
                    mail::MaildirInbox::open(path).map_err(|e| e.to_string())?;
                    println!("inbox: Maildir {}", path.display());
                }
                mail::InboxConfig::Imap(imap) => println!(
                    "inbox: IMAP {}@{}:{} mailbox {}",
                    imap.username,
                    imap.host,
                    imap.port(),
                    imap.mailbox
                ),
            }
            mail::open_sender(&config.outbox).map_err(|e| e.to_string())?;
            match &config.outbox {
                mail::OutboxConfig::Maildir { path } => {
                    println!("outbox: Maildir {}", path.display())
                }
                mail::OutboxConfig::Smtp(_) => println!("outbox: SMTP"),
                mail::OutboxConfig::Sendmail { command } => {
                    println!("outbox: sendmail {}", command.display())
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Serve | Cmd::Poll => {
            let mut daemon = Daemon::open(server, conn).map_err(|e| e.to_string())?;
            let stop = Arc::new(AtomicBool::new(false));
            if matches!(cli.command, Cmd::Serve) {
                for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                    register_stop(signal, stop.clone())?;
                }
                daemon.serve(&stop);
            } else {
                let report = daemon.pass(&stop).map_err(err)?;
                tracing::info!(report = ?report, "pass done");
                if report.failed() {
                    return Ok(ExitCode::from(2));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Process { file } => {
            let mut raw = Vec::new();
            match &file {
                Some(path) => {
                    raw = std::fs::read(path)
                        .map_err(|e| format!("cannot read {}: {e}", path.display()))?
                }
                None => {
                    std::io::stdin()
                        .read_to_end(&mut raw)
                        .map_err(|e| format!("cannot read standard input: {e}"))?;
                }
            }
            daemon::process_raw(&server, &mut conn, &raw).map_err(err)?;
            daemon::send_outbox_now(&config, clock, &conn).map_err(err)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Tick { .. } => {
            let n = server.run_timers(&mut conn).map_err(err)?;
            println!("{n} timer mails queued");
            daemon::send_outbox_now(&config, clock, &conn).map_err(err)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Admin(AdminCmd::User(UserCmd::Add {
            userid,
            password,
            emails,
        })) => match server
            .admin_add_user(&mut conn, &userid, &password, &emails)
            .map_err(err)?
        {
            Ok(()) => {
                println!("user {} added", userid.to_lowercase());
                Ok(ExitCode::SUCCESS)
            }
            Err(r) => Ok(refused(r)),
        },
        Cmd::Admin(AdminCmd::User(UserCmd::List)) => {
            for u in store::users(&conn).map_err(|e| e.to_string())? {
                let state = if u.signed_off_at.is_some() {
                    "  (signed off)"
                } else {
                    ""
                };
                println!("{:<20} {}{state}", u.userid, u.addresses.join(", "));
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Admin(AdminCmd::User(UserCmd::Remove { userid })) => {
            let userid = userid.to_lowercase();
            if store::sign_off(&conn, &userid, clock.now()).map_err(|e| e.to_string())? {
                println!("user {userid} signed off");
                Ok(ExitCode::SUCCESS)
            } else {
                Ok(refused(Refusal::new(format!(
                    "there is no active user called {userid}"
                ))))
            }
        }
        Cmd::Admin(AdminCmd::User(UserCmd::Passwd { userid, password })) => {
            match server
                .admin_set_password(&mut conn, &userid, &password)
                .map_err(err)?
            {
                Ok(()) => {
                    println!("password of {} changed", userid.to_lowercase());
                    Ok(ExitCode::SUCCESS)
                }
                Err(r) => Ok(refused(r)),
            }
        }
        Cmd::Admin(AdminCmd::Challenge { game, words }) => {
            let (players, options, timers) = match challenge_words(&words) {
                Ok(parts) => parts,
                Err(r) => return Ok(refused(r)),
            };
            match server
                .admin_challenge(&mut conn, &game, &players, &options, &timers)
                .map_err(err)?
            {
                Ok(number) => {
                    println!("{number}");
                    Ok(ExitCode::SUCCESS)
                }
                Err(r) => Ok(refused(r)),
            }
        }
        Cmd::Admin(AdminCmd::Show { game, board, size }) => {
            let size = match size {
                Size::Small => BoardSize::Small,
                Size::Large => BoardSize::Large,
            };
            match server
                .admin_show(&mut conn, &game, board, size)
                .map_err(err)?
            {
                Ok(text) => {
                    print!("{text}");
                    Ok(ExitCode::SUCCESS)
                }
                Err(r) => Ok(refused(r)),
            }
        }
    }
}

/// Split `admin challenge` words into players, `-options` and `--timers`,
/// with the same reading as the mail command.
fn challenge_words(words: &[String]) -> Result<(Vec<String>, Vec<String>, Timers), Refusal> {
    let line = format!("chess challenge {}", words.join(" "));
    match pbmchess::command::parse_line(&line) {
        Ok(parsed) => match parsed.command {
            pbmchess::command::Command::Game {
                command:
                    pbmchess::command::GameCommand::Challenge {
                        players,
                        options,
                        timers,
                    },
                ..
            } => Ok((players, options, timers)),
            _ => Err(Refusal::new("give the players, then any -options")),
        },
        Err(e) => Err(Refusal::new(e.message)),
    }
}

fn perft(
    game: &str,
    depth: u32,
    position: Option<&str>,
    options: &[String],
) -> Result<ExitCode, String> {
    let Some(rules) = rules::game(game) else {
        let names: Vec<_> = rules::registry().iter().map(|g| g.name()).collect();
        return Ok(refused(Refusal::new(format!(
            "there is no game called {game}; the games are {}",
            names.join(", ")
        ))));
    };
    let position = match position {
        Some(text) => rules.position(text, options),
        None => rules.start(options),
    };
    match position {
        Ok(p) => {
            println!("{}", p.perft(depth));
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Ok(refused(Refusal::new(e.to_string()))),
    }
}

fn register_stop(signal: i32, stop: Arc<AtomicBool>) -> Result<(), String> {
    signal_hook::flag::register(signal, stop)
        .map(|_| ())
        .map_err(|e| format!("cannot install the handler for signal {signal}: {e}"))
}
