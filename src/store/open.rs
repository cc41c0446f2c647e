//! Opening the database: made whole when missing, refused when it is not
//! a pbmchess database (or a newer one), migrated, its connection tuned.

use std::path::Path;

use rusqlite::Connection;

use super::migrations::migrations;
use super::{Result, StoreError};

/// The `application_id` in the header of a pbmchess database ("PBMC"),
/// set by migration 0048.
const APPLICATION_ID: i64 = 0x5042_4D43;

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
/// subcommand but `init` (see `open_for_init`).
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

/// A read-only connection to the database at `path`, which [`open`] has
/// made and migrated: for readers beside the daemon (the web site). In
/// WAL mode a reader never blocks the daemon's writes nor waits for them;
/// the busy timeout covers the rare moments SQLite makes a reader wait
/// (a log being recovered or reset). It can write nothing, so a reader's
/// fault cannot touch the games.
pub fn open_read_only(path: &Path) -> Result<Connection> {
    let conn = Connection::open_with_flags(
        path,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    conn.set_prepared_statement_cache_capacity(CACHED_STATEMENTS);
    Ok(conn)
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
fn create_owner_only(path: &Path) -> Result<()> {
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
    use crate::store::backup_into;

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
