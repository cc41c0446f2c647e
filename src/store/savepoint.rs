//! Savepoints: a part of a transaction that can be undone alone.

use rusqlite::Connection;

/// Run `work` inside the savepoint `name` (an SQL identifier the caller
/// writes, never input): released when it returns `Ok`, rolled back to
/// and released when it returns `Err`, so nothing it wrote stays and the
/// transaction around it goes on. The error of `work` is returned; a
/// failure of the rollback itself takes its place. Savepoints nest (an
/// inner one of the same name is the innermost).
///
/// The one place the server writes `SAVEPOINT`: charges that a rollback
/// must not undo are written again by `server::guard::Session::savepoint`,
/// which wraps this.
pub(crate) fn savepoint<T, E: From<rusqlite::Error>>(
    conn: &Connection,
    name: &'static str,
    work: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    debug_assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    conn.execute_batch(&format!("SAVEPOINT {name}"))?;
    match work() {
        Ok(value) => {
            conn.execute_batch(&format!("RELEASE {name}"))?;
            Ok(value)
        }
        Err(e) => {
            conn.execute_batch(&format!("ROLLBACK TO {name}; RELEASE {name}"))?;
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
        conn
    }

    fn rows(conn: &Connection) -> Vec<i64> {
        let mut st = conn.prepare("SELECT x FROM t ORDER BY x").unwrap();
        st.query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    #[test]
    fn a_savepoint_keeps_what_succeeded_and_undoes_what_failed() {
        let conn = db();
        let tx = conn.unchecked_transaction().unwrap();
        let kept: Result<(), rusqlite::Error> = savepoint(&tx, "kept", || {
            tx.execute("INSERT INTO t VALUES (1)", [])?;
            Ok(())
        });
        kept.unwrap();
        let undone: Result<(), rusqlite::Error> = savepoint(&tx, "undone", || {
            tx.execute("INSERT INTO t VALUES (2)", [])?;
            Err(rusqlite::Error::InvalidQuery)
        });
        assert!(undone.is_err());
        tx.execute("INSERT INTO t VALUES (3)", []).unwrap();
        tx.commit().unwrap();
        assert_eq!(rows(&conn), vec![1, 3]);
    }

    #[test]
    fn an_inner_savepoint_rolled_back_leaves_the_outer_one_whole() {
        let conn = db();
        let tx = conn.unchecked_transaction().unwrap();
        let outer: Result<(), rusqlite::Error> = savepoint(&tx, "outer", || {
            tx.execute("INSERT INTO t VALUES (1)", [])?;
            let inner: Result<(), rusqlite::Error> = savepoint(&tx, "outer", || {
                tx.execute("INSERT INTO t VALUES (2)", [])?;
                Err(rusqlite::Error::InvalidQuery)
            });
            assert!(inner.is_err());
            tx.execute("INSERT INTO t VALUES (3)", [])?;
            Ok(())
        });
        outer.unwrap();
        tx.commit().unwrap();
        assert_eq!(rows(&conn), vec![1, 3]);
    }
}
