//! Times as the database stores them: RFC 3339 text in UTC to the second
//! (`2026-11-22T10:00:00Z`). Every time column holds this one form, of one
//! width and one zone, so SQL compares and orders times as text.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// A time going into or coming out of a time column: bind it as a
/// parameter (`params![StoredTime(now)]`), read it with
/// `row.get::<_, StoredTime>(i)?.0` (`Option<StoredTime>` where the
/// column may be NULL).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct StoredTime(pub(crate) DateTime<Utc>);

impl From<StoredTime> for DateTime<Utc> {
    fn from(t: StoredTime) -> Self {
        t.0
    }
}

/// The stored text of `t` (a fraction of a second is dropped).
pub(crate) fn time_text(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

impl ToSql for StoredTime {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(time_text(self.0)))
    }
}

impl FromSql for StoredTime {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        DateTime::parse_from_rfc3339(text)
            .map(|t| StoredTime(t.with_timezone(&Utc)))
            .map_err(|e| {
                FromSqlError::Other(Box::new(MalformedTime(format!("time {text:?}: {e}"))))
            })
    }
}

/// A time column holding text that is not an RFC 3339 time: the store
/// reports it as [`super::StoreError::Corrupt`].
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct MalformedTime(pub(crate) String);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreError;
    use rusqlite::Connection;

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn a_time_is_stored_as_rfc3339_text_in_utc_to_the_second() {
        let conn = Connection::open_in_memory().unwrap();
        let t = at("2026-11-22T10:00:07.654Z");
        let (kind, text): (String, String) = conn
            .query_row("SELECT typeof(?1), ?1", [StoredTime(t)], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(kind, "text");
        assert_eq!(text, "2026-11-22T10:00:07Z");
    }

    #[test]
    fn a_stored_time_reads_back_as_the_same_second() {
        let conn = Connection::open_in_memory().unwrap();
        let t = at("2031-02-03T04:05:06Z");
        let back: StoredTime = conn
            .query_row("SELECT ?1", [StoredTime(t)], |r| r.get(0))
            .unwrap();
        assert_eq!(back.0, t);
        let none: Option<StoredTime> = conn.query_row("SELECT NULL", [], |r| r.get(0)).unwrap();
        assert_eq!(none, None);
    }

    #[test]
    fn text_written_with_an_offset_reads_as_the_same_instant() {
        let conn = Connection::open_in_memory().unwrap();
        let back: StoredTime = conn
            .query_row("SELECT '2026-11-22T12:00:00+02:00'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(back.0, at("2026-11-22T10:00:00Z"));
    }

    #[test]
    fn stored_times_compare_in_sql_as_the_times_do() {
        let conn = Connection::open_in_memory().unwrap();
        let times = [
            "1999-12-31T23:59:59Z",
            "2026-01-09T10:00:00Z",
            "2026-01-10T09:00:00Z",
            "2026-11-22T10:00:00Z",
        ]
        .map(at);
        for a in times {
            for b in times {
                let less: bool = conn
                    .query_row("SELECT ?1 < ?2", [StoredTime(a), StoredTime(b)], |r| {
                        r.get(0)
                    })
                    .unwrap();
                assert_eq!(less, a < b, "{a} < {b}");
            }
        }
    }

    #[test]
    fn a_malformed_time_is_corrupt_data() {
        let conn = Connection::open_in_memory().unwrap();
        let read = conn.query_row("SELECT 'yesterday'", [], |r| r.get::<_, StoredTime>(0));
        let e = StoreError::from(read.unwrap_err());
        assert!(
            matches!(&e, StoreError::Corrupt(m) if m.contains("\"yesterday\"")),
            "{e:?}"
        );
        let number = conn.query_row("SELECT 12", [], |r| r.get::<_, StoredTime>(0));
        assert!(number.is_err());
    }
}
