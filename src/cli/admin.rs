//! `pbmchess admin …`: each admin subcommand to its function in the
//! library's one admin module (`crate::admin`, with the server-side
//! changes in `server::admin`), then what it did printed in one line.

use std::io::Write;
use std::process::ExitCode;

use rusqlite::Connection;

use crate::admin;
use crate::app::{self, App, AppError};
use crate::server::{AdminTournamentAct, Refusal, Ruling};
use game::command::{BoardSize, Timers};

use super::run::{lines, say};
use super::{AdminCmd, BoardCmd, InboxCmd, OutboxCmd, Size, TournamentCmd, UserCmd};

/// Run one `admin …` subcommand.
pub(super) fn run(
    app: &App,
    mut conn: Connection,
    command: AdminCmd,
) -> Result<ExitCode, AppError> {
    match command {
        AdminCmd::User(command) => user(app, conn, command),
        AdminCmd::Challenge { game, words } => admin_challenge(app, conn, &game, &words),
        AdminCmd::Show { game, board, size } => admin_show(app, conn, &game, board, size),
        AdminCmd::Board(command) => board(app, conn, command),
        AdminCmd::Outbox(command) => outbox(app, &conn, command),
        AdminCmd::Inbox(command) => inbox(app, conn, command),
        AdminCmd::Broadcast { subject, file } => {
            let text = String::from_utf8(app::read_message(file.as_deref())?)
                .map_err(|_| Refusal::new("the broadcast text is not UTF-8"))?;
            let n = app.server().admin_broadcast(&mut conn, &subject, &text)?;
            app.send_now(&conn)?;
            say(format!("broadcast queued for {n} users"))
        }
        AdminCmd::Stats => lines(admin::stats(app, &conn)?),
        AdminCmd::Backup { file } => {
            admin::backup(&conn, &file, app.clock().now())?;
            say(format!("database copied to {}", file.display()))
        }
        AdminCmd::Tournament(command) => tournament(app, conn, command),
    }
}

/// `admin tournament …`.
fn tournament(
    app: &App,
    mut conn: Connection,
    command: TournamentCmd,
) -> Result<ExitCode, AppError> {
    let server = app.server();
    let (game, name, act) = match command {
        TournamentCmd::Create {
            name,
            game,
            kind,
            players,
            double,
            rounds,
            nagtime,
            forfeittime,
            totaltime,
            tiebreaks,
            options,
        } => {
            let plan = admin::tournament_plan(
                kind == "swiss",
                players,
                double,
                rounds,
                tiebreaks.as_deref(),
                Timers {
                    nag_days: nagtime,
                    forfeit_days: forfeittime,
                    total_days: totaltime,
                },
                &options,
            )?;
            return say(server.admin_tournament_create(&mut conn, &game, &name, &plan)?);
        }
        TournamentCmd::List { game } => {
            return lines(server.admin_tournament_list(&mut conn, game.as_deref())?)
        }
        TournamentCmd::Show { name, game } => {
            let text = server.admin_tournament(
                &mut conn,
                game.as_deref(),
                &name,
                AdminTournamentAct::Show,
            )?;
            crate::cli::out(&text);
            return Ok(ExitCode::SUCCESS);
        }
        TournamentCmd::Cancel { name, game } => {
            let said = server.admin_tournament(
                &mut conn,
                game.as_deref(),
                &name,
                AdminTournamentAct::Cancel,
            )?;
            app.send_now(&conn)?;
            return say(said);
        }
        TournamentCmd::Start { name, game } => (game, name, None),
        TournamentCmd::Join { name, userid, game } => (game, name, Some((true, userid))),
        TournamentCmd::Withdraw { name, userid, game } => (game, name, Some((false, userid))),
    };
    let act = match &act {
        None => AdminTournamentAct::Start,
        Some((true, userid)) => AdminTournamentAct::Join(userid),
        Some((false, userid)) => AdminTournamentAct::Withdraw(userid),
    };
    let said = server.admin_tournament(&mut conn, game.as_deref(), &name, act)?;
    app.send_now(&conn)?;
    say(said)
}

/// `admin user …`.
fn user(app: &App, mut conn: Connection, command: UserCmd) -> Result<ExitCode, AppError> {
    match command {
        UserCmd::Add {
            userid,
            emails,
            password_stdin,
        } => {
            let (password, emails) = admin::split_user_add_words(&emails, password_stdin);
            if emails.is_empty() {
                Err(Refusal::new("give at least one mail address for the user").into())
            } else {
                let (password, _) = admin::read_password(password, password_stdin, &userid)?;
                user_add(app, conn, &userid, &password, &emails)
            }
        }
        UserCmd::List => user_list(conn),
        UserCmd::Remove { userid } => user_remove(app, conn, &userid),
        UserCmd::Passwd {
            userid,
            password,
            password_stdin,
        } => {
            let (password, _) = admin::read_password(password, password_stdin, &userid)?;
            user_passwd(app, conn, &userid, &password)
        }
        UserCmd::Vacation { userid, days } => {
            let days = admin::vacation_days(&days)?;
            let said = app.server().admin_vacation(&mut conn, &userid, days)?;
            app.send_now(&conn)?;
            say(said)
        }
    }
}

/// `admin board …`.
fn board(app: &App, mut conn: Connection, command: BoardCmd) -> Result<ExitCode, AppError> {
    match command {
        BoardCmd::List { game, all } => lines(admin::board_list(&conn, game.as_deref(), all)?),
        BoardCmd::Delete { game, board } => {
            let told = app.server().admin_delete_board(&mut conn, &game, board)?;
            app.send_now(&conn)?;
            say(format!(
                "{game} board {board} deleted; told {}",
                told.join(", ")
            ))
        }
        BoardCmd::Adjudicate {
            game,
            board,
            result,
        } => {
            let ruling = Ruling::parse(&result);
            app.server()
                .admin_adjudicate(&mut conn, &game, board, &ruling)?;
            app.send_now(&conn)?;
            say(format!("{game} board {board} adjudicated: {result}"))
        }
    }
}

/// `admin outbox …`.
fn outbox(app: &App, conn: &Connection, command: OutboxCmd) -> Result<ExitCode, AppError> {
    match command {
        OutboxCmd::List => lines(admin::outbox_list(conn)?),
        OutboxCmd::Retry { id } => {
            admin::outbox_retry(app, conn, id)?;
            say(format!("outbox mail {id} is due now"))
        }
        OutboxCmd::Drop { id } => {
            admin::outbox_drop(conn, id)?;
            say(format!("outbox mail {id} dropped"))
        }
    }
}

/// `admin inbox …`.
fn inbox(app: &App, mut conn: Connection, command: InboxCmd) -> Result<ExitCode, AppError> {
    match command {
        InboxCmd::List => lines(admin::inbox_list(&conn)?),
        InboxCmd::Retry { id } => say(admin::inbox_retry(app, &mut conn, id)?),
        InboxCmd::Show { id } => {
            let raw = admin::inbox_show(&conn, id)?;
            if let Err(e) = std::io::stdout().write_all(&raw) {
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    return Ok(ExitCode::SUCCESS);
                }
                return Err(AppError::Failed(format!("cannot write: {e}")));
            }
            Ok(ExitCode::SUCCESS)
        }
        InboxCmd::Drop { id } => {
            admin::inbox_drop(&conn, id)?;
            say(format!("quarantined mail {id} dropped"))
        }
    }
}

fn user_add(
    app: &App,
    mut conn: Connection,
    userid: &str,
    password: &str,
    emails: &[String],
) -> Result<ExitCode, AppError> {
    app.server()
        .admin_add_user(&mut conn, userid, password, emails)?;
    println!("user {} added", userid.to_ascii_lowercase());
    Ok(ExitCode::SUCCESS)
}

fn user_list(conn: Connection) -> Result<ExitCode, AppError> {
    for line in admin::user_list(&conn)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

fn user_remove(app: &App, mut conn: Connection, userid: &str) -> Result<ExitCode, AppError> {
    let userid = app.remove_user(&mut conn, userid)?;
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
        .admin_set_password(&mut conn, userid, password)?;
    println!("password of {} changed", userid.to_ascii_lowercase());
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
    let text = app.server().admin_show(&mut conn, game, board, size)?;
    crate::cli::out(&text);
    Ok(ExitCode::SUCCESS)
}
