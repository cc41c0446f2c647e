//! The subcommands but `admin …`: [`run`] loads the config and opens the
//! database, then hands each subcommand to its function.

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;

use rusqlite::Connection;

use crate::app::{self, App, AppError};
use crate::server::Refusal;

use super::{Cli, Cmd};

/// Run one subcommand. `perft` needs no config; `check` opens the
/// database itself; every other subcommand runs on the config's database.
pub(crate) fn run(cli: Cli) -> Result<ExitCode, AppError> {
    if let Cmd::Perft {
        game,
        depth,
        position,
        options,
        divide,
    } = &cli.command
    {
        crate::cli::init_logging(cli.log_format.unwrap_or_default());
        return perft(game, *depth, position.as_deref(), options, *divide);
    }
    let now = match &cli.command {
        Cmd::Tick { now } => now.as_deref(),
        _ => None,
    };
    let system = (!cli.no_system_config).then(|| Path::new(crate::config::SYSTEM_CONFIG));
    let config_path = crate::config::chosen_path(cli.config.as_deref(), system);
    let app = App::load(config_path.as_deref(), now)?;
    crate::cli::init_logging(cli.log_format.unwrap_or(app.config.log.format));
    if let Cmd::Check {
        probe,
        probe_seconds,
    } = cli.command
    {
        let probe = probe.then(|| std::time::Duration::from_secs(probe_seconds));
        return check(&app, probe);
    }
    let conn = match cli.command {
        Cmd::Init => app.open_database_for_init()?,
        _ => app.open_database()?,
    };
    match cli.command {
        Cmd::Init => init(&app),
        Cmd::Serve => serve(app, conn),
        Cmd::Poll => poll(&app, conn),
        Cmd::Process { file } => process(&app, conn, file.as_deref()),
        Cmd::Tick { .. } => tick(&app, conn),
        Cmd::Admin(command) => super::admin::run(&app, conn, command),
        Cmd::Status { json } => status(&app, &conn, json),
        Cmd::Web => crate::web::run(app, conn),
        Cmd::Check { .. } => unreachable!("check opens the database itself and returned above"),
        Cmd::Perft { .. } => unreachable!("perft needs no config and returned above"),
    }
}

/// `status`: text lines, or one JSON object.
fn status(app: &App, conn: &Connection, json: bool) -> Result<ExitCode, AppError> {
    let status = crate::status::status(app, conn)?;
    if json {
        say(status.json())
    } else {
        lines(status.lines())
    }
}

fn init(app: &App) -> Result<ExitCode, AppError> {
    app.init(|line| println!("{line}"))?;
    for warning in app.config_warnings() {
        eprintln!("pbmchess: warning: {warning}");
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) fn say(line: String) -> Result<ExitCode, AppError> {
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

pub(super) fn lines(lines: Vec<String>) -> Result<ExitCode, AppError> {
    for line in lines {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `check`: one line per item (and the probe's, when asked for and the
/// rest works); exit 2 when one failed.
fn check(app: &App, probe: Option<std::time::Duration>) -> Result<ExitCode, AppError> {
    let mut items = crate::check::check(app);
    if let Some(wait) = probe.filter(|_| items.iter().all(|i| i.ok)) {
        items.push(crate::check::probe_item(app, wait));
    }
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
/// a config that no longer loads, or cannot be served on ([`serves_on`]),
/// is logged (without its values) and the one in use is kept. Ruling: the log goes to standard error only (the
/// journal, or a file the caller's shell opened), so SIGHUP has no log
/// file to reopen; and the log format stays as it was at the start.
fn serve(mut app: App, conn: Connection) -> Result<ExitCode, AppError> {
    let signals = app::serve_signals()?;
    let mut conn = conn;
    loop {
        tracing::info!(in_use = %app.in_use(), "starting");
        let served = {
            let mut daemon = app.daemon(conn)?;
            let served =
                daemon.serve_until_abandoning(&signals.stop, &signals.reload, &signals.abandon);
            conn = daemon.conn;
            served
        };
        if served == crate::daemon::Served::Stopped {
            return Ok(ExitCode::SUCCESS);
        }
        signals
            .reload
            .store(false, std::sync::atomic::Ordering::SeqCst);
        // Sends are abandoned again only for the next signal (a stop that
        // came meanwhile keeps it set).
        signals.abandon.store(
            signals.stop.load(std::sync::atomic::Ordering::SeqCst),
            std::sync::atomic::Ordering::SeqCst,
        );
        match App::load(app.config_path.as_deref(), None).and_then(|new| {
            let moved = new.config.database.path != app.config.database.path;
            let new_conn = serves_on(&new, moved)?;
            Ok((new, new_conn))
        }) {
            Ok((new, new_conn)) => {
                if let Some(new_conn) = new_conn {
                    conn = new_conn;
                }
                app = new;
                tracing::info!("config read again");
            }
            Err(e) => {
                // The secrets of the config in use stay remembered.
                crate::config::remember_secrets(&app.config);
                tracing::error!(error = %e, "the config was not read again; serving on with the one in use");
            }
        }
    }
}

/// Whether `serve` can go on with the config read again in `new`: its
/// inbox and outbox open (Maildir folders made, nothing connected), and
/// its database opens when `moved` (then its connection). Ruling: a config
/// that reads well but cannot be served on (an inbox folder under a file,
/// a database file that is empty or not pbmchess's) is refused like one
/// that does not read, and the one in use is kept: a SIGHUP never stops
/// the server.
fn serves_on(new: &App, moved: bool) -> Result<Option<Connection>, AppError> {
    crate::mail::open_inbox(&new.config.inbox)?;
    crate::mail::open_sender(&new.config.outbox)?;
    Ok(if moved {
        Some(new.open_database()?)
    } else {
        None
    })
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
    tracing::info!(in_use = %app.in_use(), "starting");
    let (raw, size) = app::read_inbound(file, app.config.limits.max_message_bytes)?;
    app.process_sized(&mut conn, &raw, size)?;
    Ok(ExitCode::SUCCESS)
}

fn tick(app: &App, mut conn: Connection) -> Result<ExitCode, AppError> {
    let n = app.server().run_timers(&mut conn)?;
    crate::daemon::prune(&app.config, app.clock(), &conn)?;
    println!("{n} timer mails queued");
    app.send_now(&conn)?;
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
