//! The `pbmchess` command line: parse the arguments and run one small
//! function per subcommand. The work is in the library (`pbmchess::app`
//! and below); here are the printing and the exit codes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use clap::{Parser, Subcommand, ValueEnum};
use rusqlite::Connection;

use pbmchess::admin;
use pbmchess::app::{self, App, AppError};
use pbmchess::command::BoardSize;
use pbmchess::config::LogFormat;
use pbmchess::rules;
use pbmchess::server::{Refusal, Ruling};

/// `println!` of this binary: [`out`], which ends the command quietly when
/// the reader went away (`pbmchess admin … | head`) where std's would panic.
macro_rules! println {
    ($($arg:tt)*) => {
        out(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// A play-by-email turn server for chess variants.
///
/// Without --config (or PBMCHESS_CONFIG) it reads
/// /etc/pbmchess/pbmchess.toml when that file exists, else runs on built-in
/// defaults: database var/pbmchess.sqlite, inbox Maildir var/inbox, outbox
/// Maildir var/outbox.
#[derive(Parser)]
#[command(name = "pbmchess", version, about)]
struct Cli {
    /// The config file (TOML); see config.example.toml.
    #[arg(long, global = true, env = "PBMCHESS_CONFIG")]
    config: Option<PathBuf>,
    /// How log lines are written to standard error: text, or json (one
    /// object per line); overrides [log] format.
    #[arg(long, global = true, env = "PBMCHESS_LOG_FORMAT", value_enum)]
    log_format: Option<LogFormat>,
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
    /// Try the config, the database, the inbox and the outbox (IMAP/SMTP
    /// login, sendmail -bv); one line each; exit 0 when all work, else 2.
    Check,
    /// Last pass, inbox and outbox waiting, quarantine, last errors,
    /// stopped addresses (from the database; no server is contacted).
    Status {
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
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
}

#[derive(Subcommand)]
enum BoardCmd {
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
enum OutboxCmd {
    /// Mail waiting to be sent and mail given up, with the last error.
    List,
    /// Make mail ID due now (also one given up); it is sent by the next pass.
    Retry { id: i64 },
    /// Remove mail ID from the outbox unsent.
    Drop { id: i64 },
}

#[derive(Subcommand)]
enum InboxCmd {
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
enum UserCmd {
    /// Create a user: USERID [PASSWORD] EMAIL... The password is asked for
    /// on the terminal when left out, or read from standard input with
    /// --password-stdin; given as an argument, it is visible to other users.
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
enum Size {
    Small,
    Large,
}

/// Exit codes: 0 done, 1 refused (the request was wrong), 2 failure (config,
/// database, mail system). `process` speaks to an MTA instead: 0 done
/// (also a mail quarantined), 75 try again later, 78 broken config.
fn main() -> ExitCode {
    pbmchess::server::credentials::return_large_blocks_at_once();
    let cli = Cli::parse();
    let for_mta = matches!(cli.command, Cmd::Process { .. });
    match run(cli) {
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

fn run(cli: Cli) -> Result<ExitCode, AppError> {
    let now = match &cli.command {
        Cmd::Perft {
            game,
            depth,
            position,
            options,
            divide,
        } => {
            init_logging(cli.log_format.unwrap_or_default());
            return perft(game, *depth, position.as_deref(), options, *divide);
        }
        Cmd::Tick { now } => now.as_deref(),
        _ => None,
    };
    let config_path = pbmchess::config::chosen_path(
        cli.config.as_deref(),
        Path::new(pbmchess::config::SYSTEM_CONFIG),
    );
    let app = App::load(config_path.as_deref(), now)?;
    init_logging(cli.log_format.unwrap_or(app.config.log.format));
    if let Cmd::Check = cli.command {
        return check(&app);
    }
    let mut conn = app.open_database()?;
    match cli.command {
        Cmd::Init => init(&app),
        Cmd::Serve => serve(app, conn),
        Cmd::Poll => poll(&app, conn),
        Cmd::Process { file } => process(&app, conn, file.as_deref()),
        Cmd::Tick { .. } => tick(&app, conn),
        Cmd::Admin(AdminCmd::User(UserCmd::Add {
            userid,
            emails,
            password_stdin,
        })) => {
            let (password, emails) = admin::split_user_add_words(&emails, password_stdin);
            if emails.is_empty() {
                Err(Refusal::new("give at least one mail address for the user").into())
            } else {
                let (password, _) = admin::read_password(password, password_stdin, &userid)?;
                user_add(&app, conn, &userid, &password, &emails)
            }
        }
        Cmd::Admin(AdminCmd::User(UserCmd::List)) => user_list(conn),
        Cmd::Admin(AdminCmd::User(UserCmd::Remove { userid })) => user_remove(&app, conn, &userid),
        Cmd::Admin(AdminCmd::User(UserCmd::Passwd {
            userid,
            password,
            password_stdin,
        })) => {
            let (password, _) = admin::read_password(password, password_stdin, &userid)?;
            user_passwd(&app, conn, &userid, &password)
        }
        Cmd::Admin(AdminCmd::Challenge { game, words }) => {
            admin_challenge(&app, conn, &game, &words)
        }
        Cmd::Admin(AdminCmd::Show { game, board, size }) => {
            admin_show(&app, conn, &game, board, size)
        }
        Cmd::Admin(AdminCmd::User(UserCmd::Vacation { userid, days })) => {
            let days = match days.to_lowercase().as_str() {
                "off" => None,
                text => Some(text.parse::<u32>().ok().filter(|d| *d > 0).ok_or_else(|| {
                    Refusal::new(format!(
                        "{days:?} is no number of days; give e.g. 14, or off"
                    ))
                })?),
            };
            let said = app.server().admin_vacation(&mut conn, &userid, days)??;
            app.send_now(&conn)?;
            say(said)
        }
        Cmd::Admin(AdminCmd::Board(BoardCmd::List { game, all })) => {
            lines(admin::board_list(&conn, game.as_deref(), all)?)
        }
        Cmd::Admin(AdminCmd::Board(BoardCmd::Delete { game, board })) => {
            let told = app.server().admin_delete_board(&mut conn, &game, board)??;
            app.send_now(&conn)?;
            say(format!(
                "{game} board {board} deleted; told {}",
                told.join(", ")
            ))
        }
        Cmd::Admin(AdminCmd::Board(BoardCmd::Adjudicate {
            game,
            board,
            result,
        })) => {
            let ruling = Ruling::parse(&result);
            app.server()
                .admin_adjudicate(&mut conn, &game, board, &ruling)??;
            app.send_now(&conn)?;
            say(format!("{game} board {board} adjudicated: {result}"))
        }
        Cmd::Admin(AdminCmd::Outbox(OutboxCmd::List)) => lines(admin::outbox_list(&conn)?),
        Cmd::Admin(AdminCmd::Outbox(OutboxCmd::Retry { id })) => {
            admin::outbox_retry(&app, &conn, id)?;
            say(format!("outbox mail {id} is due now"))
        }
        Cmd::Admin(AdminCmd::Outbox(OutboxCmd::Drop { id })) => {
            admin::outbox_drop(&conn, id)?;
            say(format!("outbox mail {id} dropped"))
        }
        Cmd::Admin(AdminCmd::Inbox(InboxCmd::List)) => lines(admin::inbox_list(&conn)?),
        Cmd::Admin(AdminCmd::Inbox(InboxCmd::Retry { id })) => {
            say(admin::inbox_retry(&app, &mut conn, id)?)
        }
        Cmd::Admin(AdminCmd::Inbox(InboxCmd::Show { id })) => {
            let raw = admin::inbox_show(&conn, id)?;
            if let Err(e) = std::io::stdout().write_all(&raw) {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    return Ok(ExitCode::SUCCESS);
                }
                return Err(AppError::Failed(format!("cannot write: {e}")));
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Admin(AdminCmd::Inbox(InboxCmd::Drop { id })) => {
            admin::inbox_drop(&conn, id)?;
            say(format!("quarantined mail {id} dropped"))
        }
        Cmd::Admin(AdminCmd::Broadcast { subject, file }) => {
            let text = String::from_utf8(app::read_message(file.as_deref())?)
                .map_err(|_| Refusal::new("the broadcast text is not UTF-8"))?;
            let n = app.server().admin_broadcast(&mut conn, &subject, &text)??;
            app.send_now(&conn)?;
            say(format!("broadcast queued for {n} users"))
        }
        Cmd::Admin(AdminCmd::Stats) => lines(admin::stats(&app, &conn)?),
        Cmd::Status { json } => {
            let status = pbmchess::status::status(&app, &conn)?;
            if json {
                say(status.json())
            } else {
                lines(status.lines())
            }
        }
        Cmd::Check => unreachable!("check opens the database itself and returned above"),
        Cmd::Admin(AdminCmd::Backup { file }) => {
            admin::backup(&conn, &file)?;
            say(format!("database copied to {}", file.display()))
        }
        Cmd::Perft { .. } => unreachable!("perft needs no config and returned above"),
    }
}

fn init(app: &App) -> Result<ExitCode, AppError> {
    app.init(|line| println!("{line}"))?;
    for warning in app.config_warnings() {
        eprintln!("pbmchess: warning: {warning}");
    }
    Ok(ExitCode::SUCCESS)
}

fn say(line: String) -> Result<ExitCode, AppError> {
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

fn lines(lines: Vec<String>) -> Result<ExitCode, AppError> {
    for line in lines {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `check`: one line per item; exit 2 when one failed.
fn check(app: &App) -> Result<ExitCode, AppError> {
    let items = pbmchess::check::check(app);
    for item in &items {
        println!("{}", item.line());
    }
    Ok(if items.iter().all(|i| i.ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

/// `serve`: passes until SIGTERM/SIGINT. SIGHUP reads the config file
/// again (and its templates) after the pass in hand and serves on with it;
/// a config that no longer loads is logged (without its values) and the
/// one in use is kept. Ruling: the log goes to standard error only (the
/// journal, or a file the caller's shell opened), so SIGHUP has no log
/// file to reopen; and the log format stays as it was at the start.
fn serve(mut app: App, conn: Connection) -> Result<ExitCode, AppError> {
    let signals = app::serve_signals()?;
    let mut conn = conn;
    loop {
        tracing::info!(in_use = %app.in_use(), "starting");
        let served = {
            let mut daemon = app.daemon(conn)?;
            let served = daemon.serve_until(&signals.stop, &signals.reload);
            conn = daemon.conn;
            served
        };
        if served == pbmchess::daemon::Served::Stopped {
            return Ok(ExitCode::SUCCESS);
        }
        signals
            .reload
            .store(false, std::sync::atomic::Ordering::SeqCst);
        match App::load(app.config_path.as_deref(), None) {
            Ok(new) => {
                if new.config.database.path != app.config.database.path {
                    conn = new.open_database()?;
                }
                app = new;
                tracing::info!("config read again");
            }
            Err(e) => {
                // The secrets of the config in use stay remembered.
                pbmchess::config::remember_secrets(&app.config);
                tracing::error!(error = %e, "the config was not read again; serving on with the one in use");
            }
        }
    }
}

/// One pass. Exit 2 when the inbox could not be read or a mail not
/// processed (replies that wait for the SMTP server are no failure).
fn poll(app: &App, conn: Connection) -> Result<ExitCode, AppError> {
    tracing::info!(in_use = %app.in_use(), "starting");
    let mut daemon = app.daemon(conn)?;
    let report = daemon.pass(&AtomicBool::new(false))?;
    report.log();
    if report.failed() {
        return Ok(ExitCode::from(2));
    }
    Ok(ExitCode::SUCCESS)
}

fn process(app: &App, mut conn: Connection, file: Option<&Path>) -> Result<ExitCode, AppError> {
    let (raw, size) = app::read_inbound(file, app.config.limits.max_message_bytes)?;
    app.process_sized(&mut conn, &raw, size)?;
    Ok(ExitCode::SUCCESS)
}

fn tick(app: &App, mut conn: Connection) -> Result<ExitCode, AppError> {
    let n = app.server().run_timers(&mut conn)?;
    pbmchess::daemon::prune(&app.config, app.clock(), &conn)?;
    println!("{n} timer mails queued");
    app.send_now(&conn)?;
    Ok(ExitCode::SUCCESS)
}

fn user_add(
    app: &App,
    mut conn: Connection,
    userid: &str,
    password: &str,
    emails: &[String],
) -> Result<ExitCode, AppError> {
    app.server()
        .admin_add_user(&mut conn, userid, password, emails)??;
    println!("user {} added", userid.to_lowercase());
    Ok(ExitCode::SUCCESS)
}

fn user_list(conn: Connection) -> Result<ExitCode, AppError> {
    for line in app::user_list(&conn)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

fn user_remove(app: &App, conn: Connection, userid: &str) -> Result<ExitCode, AppError> {
    let userid = app.remove_user(&conn, userid)?;
    println!("user {userid} signed off");
    Ok(ExitCode::SUCCESS)
}

fn user_passwd(
    app: &App,
    mut conn: Connection,
    userid: &str,
    password: &str,
) -> Result<ExitCode, AppError> {
    app.server()
        .admin_set_password(&mut conn, userid, password)??;
    println!("password of {} changed", userid.to_lowercase());
    Ok(ExitCode::SUCCESS)
}

fn admin_challenge(
    app: &App,
    mut conn: Connection,
    game: &str,
    words: &[String],
) -> Result<ExitCode, AppError> {
    let number = app.challenge(&mut conn, game, words)?;
    println!("{number}");
    Ok(ExitCode::SUCCESS)
}

fn admin_show(
    app: &App,
    mut conn: Connection,
    game: &str,
    board: u32,
    size: Size,
) -> Result<ExitCode, AppError> {
    let size = match size {
        Size::Small => BoardSize::Small,
        Size::Large => BoardSize::Large,
    };
    let text = app.server().admin_show(&mut conn, game, board, size)??;
    out(&text);
    Ok(ExitCode::SUCCESS)
}

/// `perft`: count the move sequences of `depth` plies from the start or
/// from `position`; needs no config.
fn perft(
    game: &str,
    depth: u32,
    position: Option<&str>,
    options: &[String],
    divide: bool,
) -> Result<ExitCode, AppError> {
    let Some(rules) = rules::game(game) else {
        let names: Vec<_> = rules::registry().iter().map(|g| g.name()).collect();
        return Err(Refusal::new(format!(
            "there is no game called {game}; the games are {}",
            names.join(", ")
        ))
        .into());
    };
    if divide && depth == 0 {
        return Err(Refusal::new("--divide needs a depth of 1 or more").into());
    }
    let p =
        rules::perft_position(rules, position, options).map_err(|e| Refusal::new(e.to_string()))?;
    if divide {
        let parts = p.divide(depth);
        for (action, count) in &parts {
            println!("{action}: {count}");
        }
        println!("total: {}", parts.iter().map(|(_, n)| n).sum::<u64>());
    } else {
        println!("{}", p.perft(depth));
    }
    Ok(ExitCode::SUCCESS)
}
