//! What the `pbmchess` subcommands run, as library code: loading the config,
//! the templates and the clock, opening the database and the mail folders,
//! and the few steps a subcommand takes around the server. `main.rs` parses
//! the arguments, calls one small function per subcommand, prints, and turns
//! an [`AppError`] into the exit code.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use rusqlite::Connection;

use crate::clock::{Clock, FixedClock, SystemClock};
use crate::config::{Config, ConfigError};
use crate::daemon::{self, Daemon};
use crate::mail::{self, InboxConfig, MailError, OutboxConfig};
use crate::quarantine::Verdict;
use crate::server::templates::{TemplateError, Templates};
use crate::server::{AdminError, Refusal, Server, ServerError};
use crate::store::{self, StoreError};

/// Why a subcommand did not do what it was asked. Its `Display` is the
/// message for the user; [`AppError::exit_code`] is the process's exit code.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AppError {
    /// The request was wrong (exit 1); the sentence says why.
    #[error("{}", .0.sentence)]
    Refused(Refusal),
    /// The config could not be read (exit 2).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A template override could not be read or compiled (exit 2).
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The database failed (exit 2).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A mail folder or transport could not be opened (exit 2).
    #[error(transparent)]
    Mail(#[from] MailError),
    /// The server failed (the database or a template; exit 2).
    #[error(transparent)]
    Server(#[from] ServerError),
    /// Anything else that failed (exit 2), said in a sentence.
    #[error("{0}")]
    Failed(String),
    /// A mail failed inside the server and is left to be tried again
    /// (exit 2; `process` exits 75 so that the MTA delivers it again).
    #[error("the mail could not be processed and is left to be tried again: {0}")]
    MailFailed(ServerError),
}

impl From<Refusal> for AppError {
    fn from(r: Refusal) -> Self {
        AppError::Refused(r)
    }
}

impl From<AdminError> for AppError {
    fn from(e: AdminError) -> Self {
        match e {
            AdminError::Refused(r) => AppError::Refused(r),
            AdminError::Failed(e) => AppError::Server(e),
        }
    }
}

/// `EX_TEMPFAIL` of sysexits.h: an MTA defers the mail and delivers it again later.
pub(crate) const EX_TEMPFAIL: u8 = 75;
/// `EX_CONFIG` of sysexits.h: a local configuration error.
pub(crate) const EX_CONFIG: u8 = 78;

impl AppError {
    /// 1 when the request was refused, 2 when something failed.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            AppError::Refused(_) => 1,
            _ => 2,
        }
    }

    /// The exit code of `process`, for the MTA that pipes mail into it
    /// (sysexits.h): [`EX_CONFIG`] when the config or a template override
    /// is broken, [`EX_TEMPFAIL`] for everything else that failed (a locked
    /// or unreachable database, a failure inside the server below the
    /// quarantine limit, standard input unreadable), so the MTA defers and
    /// retries rather than bouncing a player's move.
    ///
    /// A config file (or template override) that is missing or cannot be
    /// read is [`EX_TEMPFAIL`]: a permission change or a file system not
    /// yet mounted passes, and the MTA keeps the mail for days; only a file
    /// that was read and is invalid is [`EX_CONFIG`] (Postfix bounces it).
    pub(crate) fn mta_exit_code(&self) -> u8 {
        match self {
            AppError::Config(ConfigError::Read { .. })
            | AppError::Template(TemplateError::Read { .. }) => EX_TEMPFAIL,
            AppError::Config(_) | AppError::Template(_) => EX_CONFIG,
            _ => EX_TEMPFAIL,
        }
    }
}

/// What every subcommand but `perft` runs with: the config, the templates
/// and the clock. The database is opened apart ([`App::open_database`]),
/// as the daemon owns its connection.
pub(crate) struct App {
    /// The config file loaded (`None`: the built-in defaults).
    pub config_path: Option<std::path::PathBuf>,
    pub config: Config,
    pub templates: Templates,
    clock: Box<dyn Clock>,
}

impl App {
    /// Load the config file (the built-in defaults when `None`) and the
    /// templates it names. The clock is the real time, or stopped at `now`
    /// (RFC 3339, as `tick --now` gives it).
    pub(crate) fn load(config: Option<&Path>, now: Option<&str>) -> Result<App, AppError> {
        let config_path = config.map(Path::to_path_buf);
        let config = Config::load(config)?;
        crate::config::remember_secrets(&config);
        let templates = Templates::load(config.templates.dir.as_deref())?;
        let clock: Box<dyn Clock> = match now {
            Some(text) => Box::new(parse_now(text)?),
            None => Box::new(SystemClock),
        };
        Ok(App {
            config_path,
            config,
            templates,
            clock,
        })
    }

    /// One line saying which config and which database are in use (`serve`,
    /// `poll` and `process` log it at their start).
    pub(crate) fn in_use(&self) -> String {
        format!(
            "config {}, database {}",
            match &self.config_path {
                Some(path) => path.display().to_string(),
                None => format!(
                    "none (built-in defaults; no --config, no PBMCHESS_CONFIG, {} absent or ignored)",
                    crate::config::SYSTEM_CONFIG
                ),
            },
            self.config.database.path.display()
        )
    }

    pub(crate) fn clock(&self) -> &dyn Clock {
        self.clock.as_ref()
    }

    /// The server on this config, templates and clock.
    pub(crate) fn server(&self) -> Server<'_> {
        Server::new(&self.config, self.clock(), &self.templates)
    }

    /// Open the database, creating it and its folder when missing, with
    /// its schema brought up to date. An existing file that is empty or
    /// not a pbmchess database is refused (see [`store::open`]).
    pub(crate) fn open_database(&self) -> Result<Connection, AppError> {
        self.with_busy_timeout(store::open(&self.config.database.path)?)
    }

    /// [`App::open_database`] for `init`: an empty file is made a
    /// database too (see [`store::open_for_init`]).
    pub(crate) fn open_database_for_init(&self) -> Result<Connection, AppError> {
        self.with_busy_timeout(store::open_for_init(&self.config.database.path)?)
    }

    fn with_busy_timeout(&self, conn: Connection) -> Result<Connection, AppError> {
        conn.busy_timeout(std::time::Duration::from_secs(
            self.config.database.busy_timeout_seconds,
        ))
        .map_err(StoreError::from)?;
        Ok(conn)
    }

    /// What in the config is likely a mistake, one sentence each (`init`
    /// prints them as warnings).
    pub(crate) fn config_warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.config.server.address == crate::config::EXAMPLE_ADDRESS {
            warnings.push(format!(
                "[server] address is still the example's {}: set it to the address players write to, or replies go nowhere and your own mail is not recognised",
                crate::config::EXAMPLE_ADDRESS
            ));
        }
        warnings
    }

    /// `init`: create the Maildir inbox and the Maildir outbox when those
    /// are configured (an IMAP or SMTP server is not contacted), and say
    /// where the database and the mail are, one line each to `say`.
    pub(crate) fn init(&self, mut say: impl FnMut(String)) -> Result<(), AppError> {
        say(format!("database: {}", self.config.database.path.display()));
        match &self.config.inbox {
            InboxConfig::Maildir { path } => {
                mail::MaildirInbox::open(path)?;
                say(format!("inbox: Maildir {}", path.display()));
            }
            InboxConfig::Imap(imap) => say(format!(
                "inbox: IMAP {}@{}:{} mailbox {}",
                imap.username,
                imap.host,
                imap.port(),
                imap.mailbox
            )),
        }
        mail::open_sender(&self.config.outbox)?;
        say(match &self.config.outbox {
            OutboxConfig::Maildir { path } => format!("outbox: Maildir {}", path.display()),
            OutboxConfig::Smtp(_) => "outbox: SMTP".to_string(),
            OutboxConfig::Sendmail { command, .. } => {
                format!("outbox: sendmail {}", command.display())
            }
        });
        Ok(())
    }

    /// The daemon (`serve`, `poll`) on `conn`, its inbox and outbox opened.
    pub(crate) fn daemon(&self, conn: Connection) -> Result<Daemon<'_>, AppError> {
        Ok(Daemon::open(self.server(), conn)?)
    }

    /// `process`: answer one raw RFC 5322 message `size` bytes long of
    /// which `raw` was read (only its header when it is over `[limits]
    /// max_message_bytes`; see [`read_inbound`]), then send the replies at
    /// once when the transport takes them. A mail that fails inside the
    /// server is [`AppError::MailFailed`] until it has failed `[limits]
    /// failures_before_quarantine` times; then it is quarantined (kept in
    /// the database for `admin inbox retry`) and this returns Ok.
    pub(crate) fn process_sized(
        &self,
        conn: &mut Connection,
        raw: &[u8],
        size: usize,
    ) -> Result<(), AppError> {
        match daemon::take_mail(&self.server(), conn, raw, size) {
            daemon::Taken::Done => self.send_now(conn),
            daemon::Taken::Failed {
                verdict: Some(Verdict::Quarantined { .. }),
                ..
            } => Ok(()),
            daemon::Taken::Failed { error, .. } => Err(AppError::MailFailed(error)),
        }
    }

    /// Send the due outbox mail now (see [`daemon::send_outbox_now`]).
    pub(crate) fn send_now(&self, conn: &Connection) -> Result<(), AppError> {
        Ok(daemon::send_outbox_now(&self.config, self.clock(), conn)?)
    }
}

/// The raw message `process` answers: the file, or standard input.
pub(crate) fn read_message(file: Option<&Path>) -> Result<Vec<u8>, AppError> {
    let mut raw = Vec::new();
    match file {
        Some(path) => {
            raw = std::fs::read(path)
                .map_err(|e| AppError::Failed(format!("cannot read {}: {e}", path.display())))?
        }
        None => {
            std::io::stdin()
                .read_to_end(&mut raw)
                .map_err(|e| AppError::Failed(format!("cannot read standard input: {e}")))?;
        }
    }
    Ok(raw)
}

/// The raw message `process` answers, from the file or standard input,
/// and its size: read whole when it is at most `max_bytes` long, else only
/// its header is kept (the rest is read and dropped, so the MTA's pipe is
/// drained) and the server refuses it by its size.
pub(crate) fn read_inbound(
    file: Option<&Path>,
    max_bytes: usize,
) -> Result<(Vec<u8>, usize), AppError> {
    let (mut input, name): (Box<dyn Read>, String) =
        match file {
            Some(path) => (
                Box::new(std::fs::File::open(path).map_err(|e| {
                    AppError::Failed(format!("cannot read {}: {e}", path.display()))
                })?),
                path.display().to_string(),
            ),
            None => (Box::new(std::io::stdin()), "standard input".to_string()),
        };
    let fail = |e: std::io::Error| AppError::Failed(format!("cannot read {name}: {e}"));
    let mut raw = Vec::new();
    (&mut input)
        .take(max_bytes as u64 + 1)
        .read_to_end(&mut raw)
        .map_err(fail)?;
    if raw.len() <= max_bytes {
        let size = raw.len();
        return Ok((raw, size));
    }
    let rest = std::io::copy(&mut input, &mut std::io::sink()).map_err(fail)?;
    let size = raw
        .len()
        .saturating_add(usize::try_from(rest).unwrap_or(usize::MAX));
    let head = crate::limits::header_of(&raw).len();
    raw.truncate(head);
    raw.shrink_to_fit();
    Ok((raw, size))
}

/// The flags `serve` watches: `stop` (SIGTERM, SIGINT) and `reload`
/// (SIGHUP).
pub(crate) struct Signals {
    pub stop: Arc<AtomicBool>,
    pub reload: Arc<AtomicBool>,
    /// Set with `stop` and with `reload`: the send in hand is abandoned
    /// (see `daemon::Pace::abandon`). Cleared with `reload`.
    pub abandon: Arc<AtomicBool>,
}

/// How long `serve` may take to finish the work in hand after SIGTERM or
/// SIGINT before it exits anyway. The loop notices the flag within
/// seconds at every wait and between mails; a step that blocks longer (a
/// mail server that answers slowly within its timeout) is cut off here.
/// Exiting mid-step is safe by design: a mail is filed away only after its
/// transaction committed, an outbox row is marked sent only after the
/// transport took it, so what is cut off is done again at the next start.
pub(crate) const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(6);

/// Install the handlers of `serve`: SIGTERM and SIGINT set `stop` (and, if
/// the loop has not returned [`STOP_GRACE`] later, the process exits with
/// status 0); SIGHUP sets `reload` (the config is read again after the
/// pass in hand; see `main.rs`).
pub(crate) fn serve_signals() -> Result<Signals, AppError> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    let reload = Arc::new(AtomicBool::new(false));
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(|e| AppError::Failed(format!("cannot install the signal handlers: {e}")))?;
    let abandon = Arc::new(AtomicBool::new(false));
    let (stop_flag, reload_flag, abandon_flag) = (stop.clone(), reload.clone(), abandon.clone());
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if signal == SIGHUP {
                    tracing::info!("SIGHUP: the config is read again after the pass in hand");
                    reload_flag.store(true, std::sync::atomic::Ordering::SeqCst);
                    abandon_flag.store(true, std::sync::atomic::Ordering::SeqCst);
                    continue;
                }
                abandon_flag.store(true, std::sync::atomic::Ordering::SeqCst);
                if stop_flag.swap(true, std::sync::atomic::Ordering::SeqCst) {
                    continue;
                }
                tracing::info!(signal, "stopping after the mail in hand");
                std::thread::spawn(|| {
                    std::thread::sleep(STOP_GRACE);
                    tracing::warn!(
                        grace_seconds = STOP_GRACE.as_secs(),
                        "not stopped within the grace time; exiting now (the step in hand is done again at the next start)"
                    );
                    std::process::exit(0);
                });
            }
        })
        .map_err(|e| AppError::Failed(format!("cannot start the signal thread: {e}")))?;
    Ok(Signals {
        stop,
        reload,
        abandon,
    })
}

/// `tick --now`: the clock stopped at an RFC 3339 time.
fn parse_now(text: &str) -> Result<FixedClock, AppError> {
    let t = chrono::DateTime::parse_from_rfc3339(text).map_err(|e| {
        AppError::Failed(format!(
            "--now {text:?} is not an RFC 3339 time ({e}); write e.g. 2026-12-24T12:00:00Z"
        ))
    })?;
    Ok(FixedClock(t.with_timezone(&chrono::Utc)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admin::user_list;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    /// An app on a config file in `dir` with the given sections, and its
    /// database opened.
    fn app_in(dir: &Path, sections: &str) -> (App, Connection) {
        let file = dir.join("pbmchess.toml");
        std::fs::write(
            &file,
            format!("[database]\npath = \"db.sqlite\"\n{sections}"),
        )
        .unwrap();
        let app = App::load(Some(&file), None).unwrap();
        let conn = app.open_database().unwrap();
        (app, conn)
    }

    const MAILDIRS: &str = "[inbox]\nkind = \"maildir\"\npath = \"in\"\n\
                            [outbox]\nkind = \"maildir\"\npath = \"out\"\n";

    #[test]
    fn now_is_an_rfc3339_time_or_a_failure_that_says_so() {
        let clock = parse_now("2026-12-24T12:00:00+01:00").unwrap();
        assert_eq!(clock.0.to_rfc3339(), "2026-12-24T11:00:00+00:00");
        let e = parse_now("tomorrow").unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("RFC 3339"), "{e}");
        let app = App::load(None, Some("2026-12-24T11:00:00Z")).unwrap();
        assert_eq!(app.clock().now(), clock.0);
    }

    #[test]
    fn refusals_exit_1_and_failures_exit_2() {
        let refused = AppError::from(Refusal::new("there is no user called x"));
        assert_eq!(refused.exit_code(), 1);
        assert_eq!(refused.to_string(), "there is no user called x");
        let missing = App::load(Some(Path::new("/nonexistent/pbmchess.toml")), None);
        let e = missing.err().unwrap();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("cannot read the config file"), "{e}");
        // For the MTA: missing is "try again later", invalid is "broken".
        assert_eq!(e.mta_exit_code(), EX_TEMPFAIL);
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pbmchess.toml");
        std::fs::write(&file, "[server]\nadress = \"x\"\n").unwrap();
        let e = App::load(Some(&file), None).err().unwrap();
        assert_eq!(e.mta_exit_code(), EX_CONFIG);
    }

    #[test]
    fn init_creates_the_maildirs_and_says_where_everything_is() {
        let dir = tempfile::tempdir().unwrap();
        let (app, _conn) = app_in(dir.path(), MAILDIRS);
        let mut lines = Vec::new();
        app.init(|line| lines.push(line)).unwrap();
        let at = |name: &str| dir.path().join(name).display().to_string();
        assert_eq!(
            lines,
            [
                format!("database: {}", at("db.sqlite")),
                format!("inbox: Maildir {}", at("in")),
                format!("outbox: Maildir {}", at("out")),
            ]
        );
        assert!(dir.path().join("db.sqlite").is_file());
        assert!(dir.path().join("in/new").is_dir());
        assert!(dir.path().join("out/new").is_dir());
    }

    #[test]
    fn init_names_mail_servers_without_contacting_them() {
        let dir = tempfile::tempdir().unwrap();
        let (app, _conn) = app_in(
            dir.path(),
            "[inbox]\nkind = \"imap\"\nhost = \"imap.example.org\"\nusername = \"chess\"\n\
             [outbox]\nkind = \"sendmail\"\n",
        );
        let mut lines = Vec::new();
        app.init(|line| lines.push(line)).unwrap();
        assert_eq!(
            lines[1],
            "inbox: IMAP chess@imap.example.org:993 mailbox INBOX"
        );
        assert_eq!(lines[2], "outbox: sendmail /usr/sbin/sendmail");
    }

    #[test]
    fn admin_challenge_list_and_remove() {
        let dir = tempfile::tempdir().unwrap();
        let (app, mut conn) = app_in(dir.path(), MAILDIRS);
        for (userid, address) in [("alice", "a@x.test"), ("Bob", "b@x.test")] {
            app.server()
                .admin_add_user(&mut conn, userid, "pw", &[address.to_string()])
                .unwrap();
        }
        assert_eq!(
            app.challenge(&mut conn, "chess", &words("alice bob"))
                .unwrap(),
            101
        );
        let e = app
            .challenge(&mut conn, "chess", &words("alice nobody"))
            .unwrap_err();
        assert_eq!(e.exit_code(), 1);
        assert!(e.to_string().contains("nobody"), "{e}");

        assert_eq!(app.remove_user(&mut conn, "BOB").unwrap(), "bob");
        let e = app.remove_user(&mut conn, "bob").unwrap_err();
        assert_eq!(e.to_string(), "there is no active user called bob");
        assert_eq!(
            user_list(&conn).unwrap(),
            [
                format!("{:<20} a@x.test", "alice"),
                format!("{:<20} b@x.test  (signed off)", "bob"),
            ]
        );
    }

    #[test]
    fn process_answers_a_message_and_sends_the_reply_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let (app, mut conn) = app_in(dir.path(), MAILDIRS);
        let file = dir.path().join("one.eml");
        std::fs::write(
            &file,
            "From: a@players.test\r\nTo: pbmchess@localhost\r\nMessage-ID: <p1@t>\r\n\
             Subject: help\r\n\r\n\r\n",
        )
        .unwrap();
        let raw = read_message(Some(&file)).unwrap();
        app.process_sized(&mut conn, &raw, raw.len()).unwrap();
        assert_eq!(store::pending_count(&conn).unwrap(), 0);
        assert_eq!(
            std::fs::read_dir(dir.path().join("out/new"))
                .unwrap()
                .count(),
            1
        );
        let e = read_message(Some(&dir.path().join("missing.eml"))).unwrap_err();
        assert!(e.to_string().starts_with("cannot read "), "{e}");
        assert_eq!(e.exit_code(), 2);
    }
}
