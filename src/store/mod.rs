//! SQLite access: the only place that writes SQL.
//!
//! Every function takes a `&Connection`; a `rusqlite::Transaction` derefs to
//! one, so the server runs a whole mail's work inside one transaction. Times
//! are stored as RFC 3339 text in UTC
//! ([`StoredTime`]).

mod boards;
mod bounces;
mod computer;
mod conditional;
mod held;
mod mail_form;
mod mailbox;
mod pending;
mod quarantine;
mod reply_tokens;
mod savepoint;
mod service;
mod settings;
mod stats;
mod throttles;
mod time;
mod tournaments;
mod users;

pub use boards::*;
pub use bounces::*;
pub(crate) use computer::*;
pub use conditional::*;
pub(crate) use held::*;
pub(crate) use mail_form::*;
pub use mailbox::*;
pub use pending::*;
pub(crate) use quarantine::*;
pub(crate) use reply_tokens::*;
pub(crate) use savepoint::savepoint;
pub(crate) use service::*;
pub(crate) use settings::*;
pub(crate) use stats::*;
pub(crate) use throttles::*;
#[cfg(test)]
pub(crate) use time::time_text;
pub(crate) use time::StoredTime;
pub use tournaments::*;
pub use users::*;

use std::path::Path;

use rusqlite::Connection;
use rusqlite_migration::{Migrations, M};

/// A database failure. Never a player's fault: the mail in hand is left in
/// the inbox and tried again.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlite(#[source] rusqlite::Error),
    #[error("database migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error("cannot create the database folder {path}: {source}")]
    Folder {
        path: String,
        source: std::io::Error,
    },
    #[error("the database holds a malformed value: {0}")]
    Corrupt(String),
    /// The file at the database path is not a pbmchess database: it is
    /// never written to (see [`open`]). The sentence says what to do.
    #[error("{0}")]
    NotOurs(String),
    /// A file beside the database (a backup) could not be written: the
    /// sentence names it and why.
    #[error("{0}")]
    File(String),
}

/// A time column that does not hold a time is corrupt data, as a
/// malformed value read by hand is.
impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        if let rusqlite::Error::FromSqlConversionFailure(_, _, source) = &e {
            if let Some(time) = source.downcast_ref::<time::MalformedTime>() {
                return StoreError::Corrupt(time.0.clone());
            }
        }
        StoreError::Sqlite(e)
    }
}

pub(crate) type Result<T> = std::result::Result<T, StoreError>;

/// `execute` and `query_row` through the connection's cache of prepared
/// statements: the store's statements are fixed texts, run many times a
/// pass.
pub(crate) trait Cached {
    fn exec<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize>;
    fn row<T, P, F>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T>
    where
        P: rusqlite::Params,
        F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn exec<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    fn row<T, P, F>(&self, sql: &str, params: P, f: F) -> rusqlite::Result<T>
    where
        P: rusqlite::Params,
        F: FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    {
        self.prepare_cached(sql)?.query_row(params, f)
    }
}

/// The schema's migrations, applied by position: `rusqlite_migration`
/// records in the database (`user_version`) how many of this list it has
/// applied, not which files. So the list must never be reordered, nor an
/// entry removed or inserted before the end: an existing database would
/// skip a migration or run one twice. New migrations are only appended
/// (whatever their file number; the numbers are names, not the order).
/// `tests::migrations_keep_their_pinned_order` pins the order.
fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(include_str!("../../migrations/0001_initial.sql")),
        M::up(include_str!("../../migrations/0002_observers.sql")),
        M::up(include_str!("../../migrations/0003_pending_moves.sql")),
        M::up(include_str!("../../migrations/0004_player_settings.sql")),
        M::up(include_str!("../../migrations/0005_board_counters.sql")),
        M::up(include_str!("../../migrations/0006_board_mail.sql")),
        M::up(include_str!("../../migrations/0007_seeks.sql")),
        M::up(include_str!("../../migrations/0010_computer.sql")),
        M::up(include_str!("../../migrations/0012_inbound_failures.sql")),
        M::up(include_str!("../../migrations/0014_board_resume_point.sql")),
        M::up(include_str!("../../migrations/0024_reply_tokens.sql")),
        M::up(include_str!("../../migrations/0025_reply_setting.sql")),
        M::up(include_str!("../../migrations/0020_retention.sql")),
        M::up(include_str!(
            "../../migrations/0022_address_confirmation.sql"
        )),
        M::up(include_str!("../../migrations/0023_throttles.sql")),
        M::up(include_str!("../../migrations/0026_ply_keys.sql")),
        M::up(include_str!(
            "../../migrations/0027_reply_token_retention.sql"
        )),
        M::up(include_str!(
            "../../migrations/0030_service_state.sql"
        )),
        M::up(include_str!("../../migrations/0031_outbox_claims.sql")),
        M::up(include_str!("../../migrations/0032_secrets_at_rest.sql")),
        M::up(include_str!(
            "../../migrations/0033_confirmation_mails.sql"
        )),
        M::up(include_str!("../../migrations/0034_throttle_key_and_board_starts.sql")),
        M::up(include_str!(
            "../../migrations/0035_inbound_attempts.sql"
        )),
        M::up(include_str!(
            "../../migrations/0036_clear_old_position_keys.sql"
        )),
        M::up(include_str!("../../migrations/0037_html_mail_form.sql")),
        M::up(include_str!(
            "../../migrations/0038_recount_reveal_lines.sql"
        )),
        M::up(include_str!("../../migrations/0039_held_back.sql")),
        M::up(include_str!(
            "../../migrations/0040_conditional_lines.sql"
        )),
        M::up(include_str!(
            "../../migrations/0041_tournaments.sql"
        )),
        M::up(include_str!("../../migrations/0044_bounces_once_per_mail.sql")),
        M::up(include_str!("../../migrations/0045_duplicates_by_fingerprint.sql")),
        M::up(include_str!(
            "../../migrations/0046_board_start_opponents.sql"
        )),
        M::up(include_str!(
            "../../migrations/0048_application_id.sql"
        )),
    ])
}

/// The `application_id` in the header of a pbmchess database ("PBMC"),
/// set by migration 0048.
pub(crate) const APPLICATION_ID: i64 = 0x5042_4D43;

/// Tables every pbmchess database has had since its first migration: a
/// database made before [`APPLICATION_ID`] was written is known by them.
const FIRST_TABLES: [&str; 5] = [
    "users",
    "user_addresses",
    "boards",
    "processed_mail",
    "outbox",
];

/// Open the database at `path` and bring its schema up to date, for every
/// subcommand but `init` (see [`open_for_init`]).
///
/// Rulings: a file that does not exist is created (the first use of a
/// fresh install: `serve` on the built-in defaults makes its database, as
/// it makes its mail folders), whole or not at all (see
/// `create_whole`). A file that exists must be a pbmchess
/// database: an empty one (0 bytes, or SQLite without a table) or a
/// foreign one (not SQLite, another application's `application_id`, or
/// tables of another application) is refused with a sentence naming
/// `pbmchess init`, and nothing is written to it. An empty file is never
/// taken as a new server: the file is there, so a database was meant to
/// be (a failed restore, a full disk, a wrong path), and taking it as new
/// would lose every user and board and free their userids and numbers.
pub fn open(path: &Path) -> Result<Connection> {
    open_as(path, Opening::Use)
}

/// [`open`] for `pbmchess init`: also makes the database in an empty file
/// (0 bytes, or SQLite without a table). A foreign file is refused too.
pub(crate) fn open_for_init(path: &Path) -> Result<Connection> {
    open_as(path, Opening::Init)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Opening {
    Init,
    Use,
}

fn open_as(path: &Path, opening: Opening) -> Result<Connection> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        // A state folder made here is the owner's only (0700).
        crate::mail::create_dir_owner_only(parent).map_err(|source| StoreError::Folder {
            path: parent.display().to_string(),
            source,
        })?;
    }
    refuse_a_log_without_its_database(path)?;
    if std::fs::symlink_metadata(path).is_err() {
        create_whole(path)?;
    }
    let mut conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    match found_in(&conn)? {
        Found::Ours => refuse_a_newer_schema(&conn, path)?,
        Found::Empty if opening == Opening::Init => {}
        Found::Empty => {
            return Err(StoreError::NotOurs(format!(
                "the database file {} is empty: it holds no users and no boards, and is not taken as a new server; if this is a new server, run `pbmchess init` to make the database, otherwise restore the database from a backup (`pbmchess admin backup` makes one)",
                path.display()
            )))
        }
        Found::Foreign(what) => {
            return Err(StoreError::NotOurs(format!(
                "{} is not a pbmchess database ({what}) and is left as it is: set [database] path to the pbmchess database, or to a file that does not exist yet and run `pbmchess init` to make one there",
                path.display()
            )))
        }
    }
    prepare(&mut conn)?;
    Ok(conn)
}

/// A pbmchess database with more migrations than this release knows
/// (written by a newer pbmchess) is refused, and not written to.
///
/// Ruling: an older release cannot know what the newer schema means, so
/// it neither runs on it nor touches it; the sentence says to run the
/// newer release again or restore a backup this release made.
fn refuse_a_newer_schema(conn: &Connection, path: &Path) -> Result<()> {
    let version = migrations().current_version(conn)?;
    if !matches!(version, rusqlite_migration::SchemaVersion::Outside(_)) {
        return Ok(());
    }
    Err(StoreError::NotOurs(format!(
        "the database {} was written by a newer pbmchess (schema version {}; this one knows up to {}) and is left as it is: run that newer pbmchess, or restore a backup made by this one",
        path.display(),
        usize::from(&version),
        migrations().pending_migrations(&Connection::open_in_memory()?)?
    )))
}

/// A write-ahead log (`NAME-wal`, not empty) beside a database file that
/// is missing or 0 bytes is refused, by every subcommand and `init`.
///
/// Ruling: the log holds pages of a database that was moved or deleted
/// without it (or restored without its log). SQLite would replay those
/// pages into whatever database is at `path`, a new one included: part
/// of the old server inside a new one. So nothing is made or opened;
/// the sentence says to put the database back beside its log, or to
/// remove the log to start anew.
fn refuse_a_log_without_its_database(path: &Path) -> Result<()> {
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).ok();
    let wal = std::path::PathBuf::from(format!("{}-wal", path.display()));
    if size(path).unwrap_or(0) > 0 || size(&wal).unwrap_or(0) == 0 {
        return Ok(());
    }
    Err(StoreError::NotOurs(format!(
        "{} is a write-ahead log without its database (the database file {} is missing or empty) and is left as it is: put the database back beside it (or restore it from a backup), or remove {} and its -shm file to start a new server with `pbmchess init`",
        wal.display(),
        path.display(),
        wal.display()
    )))
}

/// Make the database at `path`, which does not exist, whole or not at
/// all: it is made and migrated under a temporary name beside it
/// (`.NAME.new-PID`), synced, and linked to `path` (never replacing a
/// file another process made meanwhile). So no process ever finds an
/// empty file made here, even when this one is cut off (a full disk).
fn create_whole(path: &Path) -> Result<()> {
    let name = path.file_name().map_or_else(
        || "pbmchess.sqlite".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    let fresh = path.with_file_name(format!(".{name}.new-{}", std::process::id()));
    let remove_fresh = || {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", fresh.display()));
        }
    };
    remove_fresh();
    let made = (|| -> Result<()> {
        create_owner_only(&fresh)?;
        let mut conn = Connection::open(&fresh)?;
        prepare(&mut conn)?;
        conn.close().map_err(|(_, e)| e)?;
        std::fs::File::open(&fresh)
            .and_then(|f| f.sync_all())
            .map_err(|source| StoreError::Folder {
                path: fresh.display().to_string(),
                source,
            })?;
        match std::fs::hard_link(&fresh, path) {
            Ok(()) => Ok(()),
            // Another process made it first: that one is used.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            // A file system without hard links.
            Err(_) if std::fs::symlink_metadata(path).is_err() => std::fs::rename(&fresh, path)
                .map_err(|source| StoreError::Folder {
                    path: path.display().to_string(),
                    source,
                }),
            Err(source) => Err(StoreError::Folder {
                path: path.display().to_string(),
                source,
            }),
        }
    })();
    remove_fresh();
    made
}

/// What an existing database file holds, told by reading it only.
enum Found {
    Ours,
    /// 0 bytes, or SQLite with no table and no schema version.
    Empty,
    /// Not pbmchess's: what it is, in a few words.
    Foreign(String),
}

fn found_in(conn: &Connection) -> Result<Found> {
    let not_sqlite = |e: &rusqlite::Error| {
        matches!(
            e.sqlite_error_code(),
            Some(rusqlite::ErrorCode::NotADatabase)
        )
    };
    let application_id: i64 = match conn.query_row("PRAGMA application_id", [], |r| r.get(0)) {
        Ok(id) => id,
        Err(e) if not_sqlite(&e) => return Ok(Found::Foreign("not an SQLite database".into())),
        Err(e) => return Err(e.into()),
    };
    if application_id == APPLICATION_ID {
        return Ok(Found::Ours);
    }
    if application_id != 0 {
        return Ok(Found::Foreign(format!(
            "an SQLite database of another application, application_id {application_id}"
        )));
    }
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             ORDER BY name",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if tables.is_empty() && version == 0 {
        return Ok(Found::Empty);
    }
    let ours = FIRST_TABLES.iter().all(|t| tables.iter().any(|n| n == t));
    if ours && version >= 1 {
        return Ok(Found::Ours);
    }
    let mut named: Vec<&str> = tables.iter().take(5).map(String::as_str).collect();
    if tables.len() > named.len() {
        named.push("...");
    }
    Ok(Found::Foreign(if tables.is_empty() {
        format!("an SQLite database with schema version {version} and no table")
    } else {
        format!("an SQLite database with other tables: {}", named.join(", "))
    }))
}

/// SQLite's `integrity_check` of the whole database (every page, every
/// index against its table): its first `max` complaints, none when the
/// database is sound. `quick_check` does not compare indexes with their
/// tables, so it passes a database whose index lost or changed a row.
pub(crate) fn integrity_problems(conn: &Connection, max: u32) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA integrity_check({})", max.max(1)))?;
    let lines: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(if lines.len() == 1 && lines[0] == "ok" {
        Vec::new()
    } else {
        lines
    })
}

/// Create `path` empty, readable and writable by its owner only (0600),
/// unless it exists: the database holds password hashes and addresses.
/// SQLite gives its `-wal` and `-shm` files the database file's mode.
pub(crate) fn create_owner_only(path: &Path) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(source) => Err(StoreError::Folder {
            path: path.display().to_string(),
            source,
        }),
    }
}

/// A fresh in-memory database (tests).
pub fn open_in_memory() -> Result<Connection> {
    let mut conn = Connection::open_in_memory()?;
    prepare(&mut conn)?;
    Ok(conn)
}

/// Statements kept prepared per connection: every statement text of the
/// store fits, so a mail's few dozen statements are parsed once per
/// process, not once per mail.
const CACHED_STATEMENTS: usize = 256;

/// Pages of the database kept in memory (negative: KiB), 8 MiB: the
/// boards, plies and users a busy pass touches stay read.
const PAGE_CACHE_KIB: i64 = 8 * 1024;

fn prepare(conn: &mut Connection) -> Result<()> {
    conn.set_prepared_statement_cache_capacity(CACHED_STATEMENTS);
    conn.busy_timeout(std::time::Duration::from_secs(30))?;
    conn.pragma_update(None, "cache_size", -PAGE_CACHE_KIB)?;
    // Savepoint journals (a savepoint per mail in a group commit, one per
    // command) in memory: on disk SQLite made, wrote and deleted a temp
    // file per transaction, a third of a backlog pass's system time.
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "FULL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    migrations().to_latest(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order `migrations()` applies them in, as databases in use have
    /// recorded it (by count: see `migrations`). Append; never reorder.
    const PINNED_MIGRATIONS: [&str; 24] = [
        "0001_initial.sql",
        "0002_observers.sql",
        "0003_pending_moves.sql",
        "0004_player_settings.sql",
        "0005_board_counters.sql",
        "0006_board_mail.sql",
        "0007_seeks.sql",
        "0010_computer.sql",
        "0012_inbound_failures.sql",
        "0014_board_resume_point.sql",
        "0024_reply_tokens.sql",
        "0025_reply_setting.sql",
        "0020_retention.sql",
        "0022_address_confirmation.sql",
        "0023_throttles.sql",
        "0026_ply_keys.sql",
        "0027_reply_token_retention.sql",
        "0030_service_state.sql",
        "0031_outbox_claims.sql",
        "0032_secrets_at_rest.sql",
        "0033_confirmation_mails.sql",
        "0034_throttle_key_and_board_starts.sql",
        "0035_inbound_attempts.sql",
        "0036_clear_old_position_keys.sql",
    ];

    /// The file names `migrations()` lists, in its order, read from this
    /// file's source (the `include_str!` paths).
    fn listed_migrations() -> Vec<String> {
        let source = include_str!("mod.rs");
        let body = &source[source.find("fn migrations()").unwrap()..];
        let body = &body[..body.find("\n}\n").unwrap()];
        body.split("migrations/")
            .skip(1)
            .map(|s| s[..s.find('"').unwrap()].to_string())
            .collect()
    }

    #[test]
    fn migrations_keep_their_pinned_order() {
        let listed = listed_migrations();
        assert!(listed.len() >= PINNED_MIGRATIONS.len(), "{listed:?}");
        assert_eq!(listed[..PINNED_MIGRATIONS.len()], PINNED_MIGRATIONS);
        // Every listed migration runs: the count the database records is
        // the count of this list.
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(usize::try_from(version).unwrap(), listed.len());
    }

    #[test]
    fn every_migration_file_is_listed_once() {
        let mut listed = listed_migrations();
        listed.sort();
        let mut files: Vec<String> =
            std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/migrations"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".sql"))
                .collect();
        files.sort();
        assert_eq!(listed, files);
    }

    #[test]
    fn migrations_are_valid() {
        migrations().validate().unwrap();
    }

    #[test]
    fn an_older_database_keeps_its_board_numbers_after_upgrading() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "foreign_keys", "ON").unwrap();
        migrations().to_version(&mut conn, 4).unwrap();
        conn.execute_batch(
            "INSERT INTO users VALUES ('a', 'h', '2026-01-01T00:00:00Z', NULL);
             INSERT INTO boards (game, board, start_position, position, status, created_at,
                                 last_action_at)
             VALUES ('chess', 107, 's', 's', 'active', '2026-01-01T00:00:00Z',
                     '2026-01-01T00:00:00Z');",
        )
        .unwrap();
        migrations().to_latest(&mut conn).unwrap();
        let number = insert_board(
            &conn,
            &NewBoard {
                game: "chess",
                options: &[],
                start_position: "s",
                players: &["a".to_string(), "a".to_string()],
                nag_days: None,
                forfeit_days: None,
                total_days: None,
                now: chrono::Utc::now(),
            },
        )
        .unwrap();
        assert_eq!(number, 108);
    }

    #[cfg(unix)]
    #[test]
    fn the_database_and_its_wal_are_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let conn = open(&path).unwrap();
        conn.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
        let backup = dir.path().join("backup.sqlite");
        backup_into(&conn, &backup, chrono::Utc::now()).unwrap();
        for file in [
            "db.sqlite",
            "db.sqlite-wal",
            "db.sqlite-shm",
            "backup.sqlite",
        ] {
            let mode = std::fs::metadata(dir.path().join(file))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "{file}: {mode:o}");
        }
    }

    #[test]
    fn a_missing_database_is_made_whole_under_another_name_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let conn = open(&path).unwrap();
        let id: i64 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .unwrap();
        assert_eq!(id, APPLICATION_ID);
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["db.sqlite", "db.sqlite-shm", "db.sqlite-wal"]);
        // A second process opening it meanwhile finds it whole.
        let other = open(&path).unwrap();
        drop((conn, other));
        // An empty file is another matter: refused, left as it is.
        let empty = dir.path().join("empty.sqlite");
        std::fs::write(&empty, b"").unwrap();
        let e = open(&empty).unwrap_err().to_string();
        assert!(e.contains("pbmchess init"), "{e}");
        assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
        open_for_init(&empty).unwrap();
    }

    #[test]
    fn opens_on_disk_creating_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/er/db.sqlite");
        let conn = open(&path).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 0);
        drop(conn);
        // Reopening an up-to-date database is fine.
        open(&path).unwrap();
    }
}
