//! SQLite access: the only place that writes SQL.
//!
//! Every function takes a `&Connection`; a `rusqlite::Transaction` derefs to
//! one, so the server runs a whole mail's work inside one transaction. Times
//! are stored as RFC 3339 text in UTC (`StoredTime`).

mod boards;
mod bounces;
mod computer;
mod conditional;
mod endings;
mod held;
mod mail_form;
mod mailbox;
mod migrations;
mod open;
mod pending;
mod plies;
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
pub use endings::*;
pub(crate) use held::*;
pub(crate) use mail_form::*;
pub use mailbox::*;
pub(crate) use open::{integrity_problems, open_for_init};
pub use open::{open, open_in_memory, open_read_only};
pub use pending::*;
pub use plies::*;
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

use rusqlite::Connection;

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
    /// never written to (see [`open()`]). The sentence says what to do.
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
