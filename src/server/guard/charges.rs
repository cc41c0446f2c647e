//! Charges no rollback undoes: each written at once, and written again
//! after a rollback of the mail's savepoints that undid it.

use rusqlite::Connection;

use super::super::ServerError;
use super::Session;
use crate::store;

/// A charge written again after a rollback undid it.
pub(super) type Replay = Box<dyn Fn(&Connection) -> Result<(), ServerError>>;

impl Session {
    /// Write a charge that no rollback undoes ("charge this,
    /// rollback-proof"): `charge` runs now, and again after a rollback of
    /// this mail's `command` or `answers` savepoint that undid it (see
    /// [`Session::replay_since`]), in the order the charges were made.
    /// It must give the same result when run again on the same state: take
    /// the time as an argument (`ctx.now`), not from the clock. Still in
    /// the mail's transaction: a crash charges nothing (the mail is
    /// handled, and charged, again).
    pub(crate) fn lasting<T: 'static>(
        &self,
        conn: &Connection,
        charge: impl Fn(&Connection) -> Result<T, ServerError> + 'static,
    ) -> Result<T, ServerError> {
        let value = charge(conn)?;
        self.ledger
            .borrow_mut()
            .push(Box::new(move |c| charge(c).map(drop)));
        Ok(value)
    }

    /// Where the charges stand: take it when a savepoint opens.
    pub(crate) fn mark(&self) -> usize {
        self.ledger.borrow().len()
    }

    /// After `ROLLBACK TO` a savepoint opened at `mark`: write again the
    /// charges made since.
    pub(crate) fn replay_since(&self, conn: &Connection, mark: usize) -> Result<(), ServerError> {
        let ledger = self.ledger.borrow();
        for charge in ledger.iter().skip(mark) {
            charge(conn)?;
        }
        Ok(())
    }

    /// Run `work` in the savepoint `name` (see [`store::savepoint`]): kept
    /// when it returns `Ok`; when it returns `Err` everything it wrote is
    /// rolled back, and then every charge it made is written again (see
    /// [`Session::lasting`]): no rollback undoes a charge.
    pub(crate) fn savepoint<T, E>(
        &self,
        conn: &Connection,
        name: &'static str,
        work: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E>
    where
        E: From<rusqlite::Error> + From<ServerError>,
    {
        let mark = self.mark();
        let done = store::savepoint(conn, name, work);
        if done.is_err() {
            self.replay_since(conn, mark)?;
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::CountScope;
    use chrono::Utc;

    fn count_of(conn: &Connection) -> u32 {
        store::commands_this_hour(conn, CountScope::Address, "a@x", Utc::now()).unwrap()
    }

    #[test]
    fn a_lasting_charge_is_written_again_after_each_rollback_that_undid_it() {
        let conn = store::open_in_memory().unwrap();
        let session = Session::default();
        let now = Utc::now();
        let count =
            move |c: &Connection| Ok(store::count_command(c, CountScope::Address, "a@x", now)?);
        // Before the mail's savepoints: no rollback of theirs undoes it.
        session.lasting(&conn, count).unwrap();
        conn.execute_batch("SAVEPOINT answers").unwrap();
        let answers = session.mark();
        assert_eq!(session.lasting(&conn, count).unwrap(), 2);
        conn.execute_batch("SAVEPOINT command").unwrap();
        let command = session.mark();
        assert_eq!(session.lasting(&conn, count).unwrap(), 3);
        conn.execute_batch("ROLLBACK TO command; RELEASE command")
            .unwrap();
        assert_eq!(count_of(&conn), 2);
        session.replay_since(&conn, command).unwrap();
        assert_eq!(count_of(&conn), 3);
        conn.execute_batch("ROLLBACK TO answers; RELEASE answers")
            .unwrap();
        assert_eq!(count_of(&conn), 1);
        session.replay_since(&conn, answers).unwrap();
        assert_eq!(count_of(&conn), 3);
    }

    #[test]
    fn a_savepoint_that_fails_undoes_its_writes_but_not_its_charges() {
        let conn = store::open_in_memory().unwrap();
        let session = Session::default();
        let now = Utc::now();
        let count =
            move |c: &Connection| Ok(store::count_command(c, CountScope::Address, "a@x", now)?);
        let other = |c: &Connection| store::count_command(c, CountScope::Address, "b@x", now);
        let failed: Result<(), ServerError> = session.savepoint(&conn, "answers", || {
            session.lasting(&conn, count)?;
            other(&conn)?;
            let inner: Result<(), ServerError> = session.savepoint(&conn, "command", || {
                session.lasting(&conn, count)?;
                other(&conn)?;
                Err(ServerError::Stopped)
            });
            assert!(inner.is_err());
            assert_eq!(count_of(&conn), 2, "the inner charge is written again");
            Err(ServerError::Stopped)
        });
        assert!(failed.is_err());
        assert_eq!(count_of(&conn), 2, "both charges outlive the rollbacks");
        let others = store::commands_this_hour(&conn, CountScope::Address, "b@x", now).unwrap();
        assert_eq!(others, 0, "what was not a charge is undone");
        let kept: Result<u32, ServerError> =
            session.savepoint(&conn, "answers", || session.lasting(&conn, count));
        assert_eq!(kept.unwrap(), 3);
        assert_eq!(count_of(&conn), 3, "a released savepoint charges once");
    }
}
