//! The database file: refused when empty or not pbmchess's (only `init`
//! makes a database), created on first use, and `check`'s integrity check.

use super::*;

#[test]
fn an_empty_database_file_is_refused_and_only_init_makes_a_database_of_it() {
    let install = Install::new();
    install.ok(&["admin", "user", "add", "alice", "pw", "alice@players.test"]);
    let db = db_path(&install);
    // A restore or a copy cut off by a full disk: the file is there, empty.
    std::fs::write(&db, b"").unwrap();
    assert_every_command_refuses(&install, &db, "is empty");
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0);
    // `check` says so too.
    let out = install.run(&["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).contains("pbmchess init"), "{}", stdout(&out));

    // init makes the database there; then the server runs on it.
    install.ok(&["init"]);
    install.ok(&["poll"]);
    assert_eq!(install.ok(&["admin", "user", "list"]).trim(), "");
}

#[test]
fn a_file_that_is_not_a_pbmchess_database_is_refused_even_by_init() {
    let install = Install::new();
    let db = db_path(&install);
    std::fs::remove_file(&db).unwrap();
    // Another application's SQLite database.
    {
        let other = rusqlite::Connection::open(&db).unwrap();
        other
            .execute_batch("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
            .unwrap();
    }
    assert_every_command_refuses(&install, &db, "not a pbmchess database");
    let out = install.run(&["init"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("other tables: notes"),
        "{}",
        stderr(&out)
    );
    let other = rusqlite::Connection::open(&db).unwrap();
    let tables: i64 = other
        .query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tables, 1, "init wrote into another application's database");
    drop(other);

    // Not SQLite at all.
    let _ = std::fs::remove_file(format!("{}-journal", db.display()));
    std::fs::write(&db, "a text file, not a database\n".repeat(200)).unwrap();
    assert_every_command_refuses(&install, &db, "not an SQLite database");
    assert!(!install.run(&["init"]).status.success());
}

#[test]
fn a_missing_database_is_created_on_first_use() {
    let install = Install::new();
    let db = db_path(&install);
    std::fs::remove_file(&db).unwrap();
    install.ok(&["poll"]);
    install.ok(&["admin", "user", "add", "alice", "pw", "alice@players.test"]);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let id: i64 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        id, 0x5042_4D43,
        "\"PBMC\": the database says it is pbmchess's"
    );
}

/// Flip the bytes of `needle` in the page `page` (1-based) of the
/// database file at `db`.
fn damage_page(db: &Path, page: i64, page_size: i64, needle: &[u8]) {
    let mut bytes = std::fs::read(db).unwrap();
    let start = usize::try_from((page - 1) * page_size).unwrap();
    let end = start + usize::try_from(page_size).unwrap();
    let at = bytes[start..end]
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the value is on its page")
        + start;
    // Same length, sorted the same: the page stays well-formed.
    bytes[at + needle.len() - 1] = b'~';
    std::fs::write(db, bytes).unwrap();
}

#[test]
fn check_runs_integrity_check_and_fails_on_a_damaged_index() {
    let install = Install::new();
    install.ok(&["admin", "user", "add", "alice", "pw", "alice@players.test"]);
    let out = install.run(&["check"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("integrity_check ok"),
        "{}",
        stdout(&out)
    );

    let db = db_path(&install);
    let (root, page_size) = {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .unwrap();
        let root: i64 = conn
            .query_row(
                "SELECT rootpage FROM sqlite_schema WHERE name = 'user_addresses_by_address'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let size: i64 = conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        let quick: String = conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(quick, "ok");
        (root, size)
    };
    db_path(&install);
    // The index's entry no longer matches its row: quick_check does not
    // compare them.
    damage_page(&db, root, page_size, b"alice@players.test");
    let quick: String = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(quick, "ok", "the damage is one quick_check passes");

    let out = install.run(&["check"]);
    let said = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    let line = said
        .lines()
        .find(|l| l.contains("database:"))
        .expect("a database line");
    assert!(
        line.starts_with("FAILED")
            && line.contains("integrity_check says")
            && line.contains("user_addresses_by_address"),
        "{line}"
    );
}
