//! The admin: everything `pbmchess admin …` does, in one place.
//!
//! - Here: the tools for a live server that are more than one call into
//!   the server: users listed and signed off, boards started (`admin
//!   challenge`), listings as lines of text, replays, backups, the numbers
//!   of `admin stats`, and how the CLI reads a password or a number of
//!   vacation days.
//! - `server::admin` (`Server::admin_*`): the changes a player would see
//!   (users added, passwords set, boards deleted, adjudicated or shown,
//!   vacations, broadcasts), each in one transaction with the mails it
//!   causes; it needs the server's insides, so it is a module of the
//!   server. Each returns one flat error,
//!   [`AdminError`](crate::server::AdminError): refused (the admin's
//!   mistake, exit 1) or failed (exit 2).
//! - The arguments are parsed in the binary (`src/cli/`), which calls these
//!   and prints what they did. The quarantine is `crate::quarantine`.

use std::path::Path;

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;

use crate::app::{App, AppError};
use crate::quarantine::{self, ReplayError};
use crate::server::{MailOutcome, Refusal};
use crate::store::{self, BoardStatus};
use game::command::{
    self, Command, GameCommand, Timers, TournamentAction, TournamentCommand, TournamentPlan,
};

/// Days of mail counts `admin stats` shows.
pub(crate) const STATS_DAYS: i64 = 14;

fn when(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M").to_string()
}

/// `admin user vacation USERID DAYS`: the days (a positive number), or
/// `None` for `off` (the vacation ends).
pub(crate) fn vacation_days(days: &str) -> Result<Option<u32>, Refusal> {
    match days.to_lowercase().as_str() {
        "off" => Ok(None),
        text => Ok(Some(
            text.parse::<u32>().ok().filter(|d| *d > 0).ok_or_else(|| {
                Refusal::new(format!(
                    "{days:?} is no number of days; give e.g. 14, or off"
                ))
            })?,
        )),
    }
}

impl App {
    /// `admin user remove`: sign the user off (their history stays), as
    /// `signoff` by mail does: their reply tokens end and they leave every
    /// open tournament (see `Server::admin_remove_user`). Returns the
    /// userid as stored (lower case).
    pub(crate) fn remove_user(
        &self,
        conn: &mut Connection,
        userid: &str,
    ) -> Result<String, AppError> {
        let userid = self.server().admin_remove_user(conn, userid)?;
        self.send_now(conn)?;
        Ok(userid)
    }

    /// `admin challenge GAME WORDS...`: start a board of `game` (the players
    /// get their board mails); returns its number. The words are read as
    /// the mail command reads them: players, `-options`, `--timers`.
    pub(crate) fn challenge(
        &self,
        conn: &mut Connection,
        game: &str,
        words: &[String],
    ) -> Result<u32, AppError> {
        let (players, options, timers) = challenge_words(words)?;
        let number = self
            .server()
            .admin_challenge(conn, game, &players, &options, &timers)?;
        // The board mails go out at once, as `process` sends its replies.
        self.send_now(conn)?;
        Ok(number)
    }
}

/// `admin user list`: one line per user, their addresses and whether they
/// signed off.
pub(crate) fn user_list(conn: &Connection) -> Result<Vec<String>, AppError> {
    Ok(store::users(conn)?
        .into_iter()
        .map(|u| {
            let state = if u.signed_off_at.is_some() {
                "  (signed off)"
            } else {
                ""
            };
            format!("{:<20} {}{state}", u.userid, u.addresses.join(", "))
        })
        .collect())
}

/// Split `admin challenge` words into players, `-options` and `--timers`,
/// with the same reading as the mail command.
fn challenge_words(words: &[String]) -> Result<(Vec<String>, Vec<String>, Timers), Refusal> {
    let line = format!("chess challenge {}", words.join(" "));
    match command::parse_line(&line) {
        Ok(parsed) => match parsed.command {
            Command::Game {
                command:
                    GameCommand::Challenge {
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

/// The plan of `admin tournament create`, its options and timers read as
/// `tournament create` by mail reads them.
pub(crate) fn tournament_plan(
    swiss: bool,
    players: u32,
    double: bool,
    rounds: Option<u32>,
    tiebreaks: Option<&str>,
    timers: Timers,
    options: &[String],
) -> Result<TournamentPlan, Refusal> {
    let mut words = vec![
        if swiss { "swiss" } else { "roundrobin" }.to_string(),
        players.to_string(),
    ];
    if double {
        words.push("double".to_string());
    }
    if let Some(rounds) = rounds {
        words.push(format!("rounds {rounds}"));
    }
    if let Some(list) = tiebreaks {
        // One word, so that a space cannot smuggle another option in.
        words.push(format!(
            "tiebreaks {}",
            list.replace(char::is_whitespace, "")
        ));
    }
    for (name, days) in [
        ("nagtime", timers.nag_days),
        ("forfeittime", timers.forfeit_days),
        ("totaltime", timers.total_days),
    ] {
        if let Some(days) = days {
            words.push(format!("--{name}={days}"));
        }
    }
    words.extend(options.iter().cloned());
    let line = format!("chess tournament create t admin pw {}", words.join(" "));
    match command::parse_line(&line) {
        Ok(parsed) => match parsed.command {
            Command::Game {
                command:
                    GameCommand::Tournament(TournamentCommand::Act {
                        action: TournamentAction::Create(plan),
                        ..
                    }),
                ..
            } => plan.map_err(Refusal::new),
            _ => Err(Refusal::new("give --kind, --players and any -options")),
        },
        Err(e) => Err(Refusal::new(e.message)),
    }
}

/// `admin outbox list`: every mail not yet sent, one line each (id,
/// state, attempts, recipient, subject), the last error under it.
pub(crate) fn outbox_list(conn: &Connection) -> Result<Vec<String>, AppError> {
    let mut lines = Vec::new();
    for e in store::unsent_mail(conn)? {
        let state = match e.failed_at {
            Some(t) => format!("failed {}", when(t)),
            None => format!("due {}", when(e.next_attempt_at)),
        };
        lines.push(format!(
            "{:>6}  {state:<22} tries {:<3} {}  {}",
            e.id, e.attempts, e.to, e.subject
        ));
        if let Some(error) = e.last_error {
            lines.push(format!("        last error: {error}"));
        }
    }
    Ok(lines)
}

/// `admin outbox retry ID`: make a waiting or given-up mail due now.
pub(crate) fn outbox_retry(app: &App, conn: &Connection, id: i64) -> Result<(), AppError> {
    if store::retry_mail(conn, id, app.clock().now())? {
        Ok(())
    } else {
        Err(no_outbox_mail(id))
    }
}

/// `admin outbox drop ID`: remove a mail that was not sent.
pub(crate) fn outbox_drop(conn: &Connection, id: i64) -> Result<(), AppError> {
    if store::drop_mail(conn, id)? {
        Ok(())
    } else {
        Err(no_outbox_mail(id))
    }
}

fn no_outbox_mail(id: i64) -> AppError {
    Refusal::new(format!(
        "there is no unsent outbox mail {id}; `pbmchess admin outbox list` shows them"
    ))
    .into()
}

/// `admin inbox list`: failing mail still in the inbox and quarantined
/// mail, one line each, the last error under it.
pub(crate) fn inbox_list(conn: &Connection) -> Result<Vec<String>, AppError> {
    let mut lines = Vec::new();
    for f in quarantine::list(conn)? {
        let state = match f.quarantined_at {
            Some(t) => format!("quarantined {}", when(t)),
            None => format!("failing since {}", when(f.first_failed_at)),
        };
        lines.push(format!(
            "{:>6}  {state:<28} tries {:<3} {}  {}",
            f.id,
            f.attempts,
            f.sender.as_deref().unwrap_or("-"),
            f.subject
        ));
        lines.push(format!("        last error: {}", f.last_error));
    }
    Ok(lines)
}

/// `admin inbox retry ID`: replay a quarantined mail, then send what it
/// caused. Returns what became of it.
pub(crate) fn inbox_retry(app: &App, conn: &mut Connection, id: i64) -> Result<String, AppError> {
    let outcome = quarantine::replay(&app.server(), conn, id).map_err(|e| match e {
        ReplayError::Store(e) => AppError::Store(e),
        ReplayError::StillFails { .. } => AppError::Failed(e.to_string()),
        ReplayError::NotQuarantined(_) | ReplayError::NoBytes(_) => {
            Refusal::new(e.to_string()).into()
        }
    })?;
    app.send_now(conn)?;
    Ok(match outcome {
        MailOutcome::Duplicate => {
            format!("mail {id} had been processed meanwhile; it leaves the quarantine")
        }
        MailOutcome::Answered { commands, refused } => {
            format!("mail {id} processed: {commands} commands, {refused} refused")
        }
        other => format!("mail {id} processed: {other:?}"),
    })
}

/// `admin inbox show ID`: the quarantined message as it was received.
pub(crate) fn inbox_show(conn: &Connection, id: i64) -> Result<Vec<u8>, AppError> {
    match store::inbound_failure(conn, id)? {
        Some((_, Some(raw))) => Ok(raw),
        _ => Err(Refusal::new(format!(
            "there is no quarantined mail {id} with its text; `pbmchess admin inbox list` shows them"
        ))
        .into()),
    }
}

/// `admin inbox drop ID`: forget a quarantined mail for good.
pub(crate) fn inbox_drop(conn: &Connection, id: i64) -> Result<(), AppError> {
    if quarantine::discard(conn, id)? {
        Ok(())
    } else {
        Err(Refusal::new(format!(
            "there is no quarantined mail {id}; `pbmchess admin inbox list` shows them"
        ))
        .into())
    }
}

/// `admin board list [GAME] [--all]`: the active boards (every board with
/// `all`), one line each: game, number, players, plies, state, last action.
pub(crate) fn board_list(
    conn: &Connection,
    game: Option<&str>,
    all: bool,
) -> Result<Vec<String>, AppError> {
    let games: Vec<&str> = match game {
        Some(name) => match rules::game(name) {
            Some(g) => vec![g.name()],
            None => return Err(Refusal::new(format!("there is no game called {name}")).into()),
        },
        None => rules::registry().iter().map(|g| g.name()).collect(),
    };
    let mut lines = Vec::new();
    for game in games {
        for row in store::boards_of_game(conn, game)? {
            let state = match &row.status {
                BoardStatus::Active => "active".to_string(),
                _ if !all => continue,
                BoardStatus::Finished {
                    winner_seat: Some(seat),
                    ending,
                } => format!("won by {} ({ending})", row.players[seat.index()]),
                BoardStatus::Finished {
                    winner_seat: None,
                    ending,
                } => format!("tie ({ending})"),
            };
            let plies = store::plies(conn, store::BoardId::new(game, row.board))?.len();
            lines.push(format!(
                "{game:<13} {:>5}  {:<24} ply {plies:<4} last {}  {state}",
                row.board,
                row.players.join("-"),
                when(row.last_action_at),
            ));
        }
    }
    Ok(lines)
}

/// `admin stats`: the numbers an admin looks at first.
pub(crate) fn stats(app: &App, conn: &Connection) -> Result<Vec<String>, AppError> {
    let now = app.clock().now();
    let since = (now - Duration::days(STATS_DAYS - 1))
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc())
        .unwrap_or(now);
    let s = store::stats(conn, since)?;
    let mut lines = vec![
        format!("users: {} active, {} signed off", s.users, s.signed_off),
        "boards:".to_string(),
    ];
    if s.boards.is_empty() {
        lines.push("  none yet".to_string());
    }
    for (game, active, finished) in &s.boards {
        lines.push(format!(
            "  {game:<13} {active:>5} active {finished:>6} finished"
        ));
    }
    lines.push(format!(
        "queues: outbox {} waiting, {} given up; inbox {} failing, {} quarantined",
        s.outbox_waiting, s.outbox_failed, s.inbox_failing, s.quarantined
    ));
    lines.push(format!("mail per day (UTC, last {STATS_DAYS} days):"));
    lines.push(format!("  {:<10} {:>6} {:>6}", "day", "in", "out"));
    for (day, inbound, outbound) in &s.days {
        lines.push(format!("  {day:<10} {inbound:>6} {outbound:>6}"));
    }
    Ok(lines)
}

/// `admin backup FILE`: a consistent copy of the database, safe while the
/// daemon runs, its live secrets scrubbed (see [`store::backup_into`]).
/// Refuses anything at `file`: a file, a folder, a symlink (dangling or
/// not).
pub(crate) fn backup(conn: &Connection, file: &Path, now: DateTime<Utc>) -> Result<(), AppError> {
    if std::fs::symlink_metadata(file).is_ok() {
        return Err(Refusal::new(format!(
            "{} exists already; give a new file name (a backup never overwrites)",
            file.display()
        ))
        .into());
    }
    store::backup_into(conn, file, now)?;
    Ok(())
}

/// Where `admin user add|passwd` take the password from: an
/// argument is visible to every user of the machine (`ps`) and kept in
/// shell history, so it is read from the terminal (asked twice, not
/// echoed) or, with `--password-stdin`, from the first line of standard
/// input (scripts). The argument still works, with a warning on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PasswordSource {
    /// Given on the command line.
    Argument,
    /// The first line of standard input.
    Stdin,
    /// Asked for on the terminal.
    Terminal,
}

/// What stderr says when the password was an argument.
pub(crate) const PASSWORD_ARGUMENT_WARNING: &str = "warning: a password given as an argument is visible to other users of this machine (ps) and stays in your shell history; leave it out to be asked for it, or use --password-stdin";

/// Split the words of `admin user add USERID [PASSWORD] EMAIL...` into the
/// password (when given as an argument) and the addresses. Ruling: with
/// `--password-stdin` every word is an address; otherwise a first word
/// without `@` is the password (a password with `@` in it is to be typed
/// at the prompt or piped in).
pub(crate) fn split_user_add_words(
    words: &[String],
    password_stdin: bool,
) -> (Option<String>, Vec<String>) {
    match words.split_first() {
        Some((first, rest)) if !password_stdin && !first.contains('@') => {
            (Some(first.clone()), rest.to_vec())
        }
        _ => (None, words.to_vec()),
    }
}

/// The password, from the argument (with the warning), standard input or
/// the terminal; `Refused` with one sentence when there is none to read.
pub(crate) fn read_password(
    argument: Option<String>,
    password_stdin: bool,
    userid: &str,
) -> Result<(String, PasswordSource), AppError> {
    use std::io::BufRead;
    if password_stdin {
        if argument.is_some() {
            return Err(Refusal::new(
                "give the password either as an argument or with --password-stdin, not both",
            )
            .into());
        }
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map_err(|e| {
            AppError::Failed(format!("cannot read the password from standard input: {e}"))
        })?;
        let password = line.trim_end_matches(['\n', '\r']).to_string();
        if password.is_empty() {
            return Err(Refusal::new(
                "standard input holds no password: write it on its first line",
            )
            .into());
        }
        return Ok((password, PasswordSource::Stdin));
    }
    if let Some(password) = argument {
        eprintln!("{PASSWORD_ARGUMENT_WARNING}");
        return Ok((password, PasswordSource::Argument));
    }
    let first = prompt_hidden(&format!("Password for {userid}: "))?;
    let again = prompt_hidden("The same password again: ")?;
    if first != again {
        return Err(Refusal::new("the two passwords differ; nothing was changed").into());
    }
    if first.is_empty() {
        return Err(Refusal::new("the password must not be empty").into());
    }
    Ok((first, PasswordSource::Terminal))
}

/// Ask on the terminal (`/dev/tty`) with echo off; refused when there is
/// no terminal (a script: use `--password-stdin`).
fn prompt_hidden(prompt: &str) -> Result<String, AppError> {
    use std::io::IsTerminal;
    let terminal = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .is_ok_and(|tty| tty.is_terminal());
    if !terminal {
        return Err(Refusal::new("no password given and no terminal to ask for it on; give --password-stdin and the password on standard input").into());
    }
    rpassword::prompt_password(prompt)
        .map_err(|e| AppError::Failed(format!("cannot read the password: {e}")))
}

#[cfg(test)]
mod password_tests {
    use super::*;

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_first_word_without_at_is_the_password_unless_read_from_stdin() {
        assert_eq!(
            split_user_add_words(&words(&["pw", "a@x.org"]), false),
            (Some("pw".into()), words(&["a@x.org"]))
        );
        assert_eq!(
            split_user_add_words(&words(&["a@x.org", "b@y.org"]), false),
            (None, words(&["a@x.org", "b@y.org"]))
        );
        assert_eq!(
            split_user_add_words(&words(&["a@x.org"]), true),
            (None, words(&["a@x.org"]))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn challenge_words_are_read_as_the_mail_command_reads_them() {
        let (players, options, timers) =
            challenge_words(&words("Alice bob -Lenient --forfeittime=3")).unwrap();
        assert_eq!(players, ["alice", "bob"]);
        assert_eq!(options, ["lenient"]);
        assert_eq!(
            timers,
            Timers {
                forfeit_days: Some(3),
                ..Timers::default()
            }
        );
        let refusal = challenge_words(&words("alice")).unwrap_err();
        assert!(refusal.sentence.contains("two players"), "{refusal:?}");
        assert!(challenge_words(&words("alice bob --sleeptime=3")).is_err());
    }
}
