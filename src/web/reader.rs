//! The web site's reads of the database: read-only connections beside the
//! daemon, each page read in one read transaction on a blocking thread.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rusqlite::Connection;

use super::page::PageError;
use crate::server::{Ctx, Handled, Server, ServerError};
use crate::store::{self, StoreError};

/// Connections kept for the next reads (more are opened while busy).
const POOLED: usize = 16;

/// Tries of a read the database answered busy before the page says so.
const TRIES: u32 = 4;

/// What the pages read through: the server (config, templates, clock),
/// the database's path and its idle read-only connections.
pub(super) struct Reader {
    pub server: Server<'static>,
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// The read-write connection, held open for the site's lifetime (the
    /// database's write-ahead log and its index stay in place, which a
    /// read-only connection needs to open): the move form's one writer.
    writer: Mutex<Connection>,
}

impl Reader {
    pub(super) fn new(server: Server<'static>, path: PathBuf, keeper: Connection) -> Reader {
        Reader {
            server,
            path,
            idle: Mutex::new(Vec::new()),
            writer: Mutex::new(keeper),
        }
    }

    /// `f` on a read-only view of the database, on a blocking thread.
    /// A refusal (no such board) is a page of its own ([`PageError::NotFound`]);
    /// a busy database is tried again, then answered 503, never 500.
    pub(super) async fn read<T, F>(self: &Arc<Self>, f: F) -> Result<T, PageError>
    where
        T: Send + 'static,
        F: Fn(&Ctx<'_>) -> Handled<T> + Send + 'static,
    {
        let me = Arc::clone(self);
        tokio::task::spawn_blocking(move || me.read_now(&f))
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "a page's read panicked");
                PageError::Internal
            })?
    }

    /// `f` with the read-write connection, on a blocking thread (one at a
    /// time).
    pub(super) async fn write<T, F>(self: &Arc<Self>, f: F) -> Result<T, PageError>
    where
        T: Send + 'static,
        F: FnOnce(&Server<'static>, &mut Connection) -> Result<T, PageError> + Send + 'static,
    {
        let me = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let mut conn = me.writer.lock().map_err(|_| PageError::Internal)?;
            f(&me.server, &mut conn)
        })
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "a form's work panicked");
            PageError::Internal
        })?
    }

    fn read_now<T>(&self, f: &dyn Fn(&Ctx<'_>) -> Handled<T>) -> Result<T, PageError> {
        let conn = self.connection()?;
        let mut tries = 0;
        let result = loop {
            tries += 1;
            match self.server.reading(&conn, f) {
                Err(e) if is_busy(&e) && tries < TRIES => {
                    std::thread::sleep(std::time::Duration::from_millis(25 << tries));
                }
                other => break other,
            }
        };
        match result {
            Ok(Ok(value)) => {
                self.put_back(conn);
                Ok(value)
            }
            Ok(Err(refusal)) => {
                self.put_back(conn);
                Err(PageError::NotFound(refusal.sentence))
            }
            Err(e) if is_busy(&e) => {
                tracing::warn!("the database stayed busy for a page; answered 503");
                Err(PageError::Busy)
            }
            Err(e) => {
                tracing::error!(error = %e, "a page could not be read");
                Err(PageError::Internal)
            }
        }
    }

    fn connection(&self) -> Result<Connection, PageError> {
        if let Some(conn) = self.idle.lock().ok().and_then(|mut idle| idle.pop()) {
            return Ok(conn);
        }
        store::open_read_only(&self.path).map_err(|e| {
            if matches!(&e, StoreError::Sqlite(s) if store::is_busy(s)) {
                PageError::Busy
            } else {
                tracing::error!(error = %e, "the database could not be opened for reading");
                PageError::Internal
            }
        })
    }

    fn put_back(&self, conn: Connection) {
        if let Ok(mut idle) = self.idle.lock() {
            if idle.len() < POOLED {
                idle.push(conn);
            }
        }
    }
}

fn is_busy(e: &ServerError) -> bool {
    matches!(e, ServerError::Store(StoreError::Sqlite(s)) if store::is_busy(s))
}
