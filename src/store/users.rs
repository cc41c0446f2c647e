//! Users, their addresses, preferences and ratings.

use super::Cached;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

use super::{Result, StoreError, StoredTime};
use game::command::BoardSize;

/// A signed-up player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub userid: String,
    pub password_hash: String,
    /// In order; the first is where board mail goes. Pending addresses
    /// (extra or changed ones not yet confirmed) are not among them: they
    /// get nothing but their confirmation mail.
    pub addresses: Vec<String>,
    /// Those of `addresses` that have not proved they are read (the
    /// address a signup came from, until confirmed): they get no mail of
    /// the account at all (see `server::confirm`).
    pub unconfirmed: Vec<String>,
    pub created_at: DateTime<Utc>,
    pub signed_off_at: Option<DateTime<Utc>>,
}

impl User {
    /// Where this user's mail goes.
    pub(crate) fn address(&self) -> &str {
        self.addresses.first().map(String::as_str).unwrap_or("")
    }

    /// The addresses that may get text a player wrote (confirmed ones).
    pub fn confirmed_addresses(&self) -> impl Iterator<Item = &String> {
        self.addresses
            .iter()
            .filter(|a| !self.unconfirmed.contains(a))
    }
}

/// Whether an address has proved that it is read (see migration 0022).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AddressStatus {
    /// Gets everything.
    Confirmed,
    /// The address a signup came from: nothing but its welcome mail
    /// until confirmed.
    Unconfirmed,
    /// An extra or changed address: nothing but its confirmation mail.
    Pending,
}

impl AddressStatus {
    fn text(self) -> &'static str {
        match self {
            AddressStatus::Confirmed => "confirmed",
            AddressStatus::Unconfirmed => "unconfirmed",
            AddressStatus::Pending => "pending",
        }
    }

    fn from_text(text: &str) -> Result<AddressStatus> {
        match text {
            "confirmed" => Ok(AddressStatus::Confirmed),
            "unconfirmed" => Ok(AddressStatus::Unconfirmed),
            "pending" => Ok(AddressStatus::Pending),
            other => Err(StoreError::Corrupt(format!("address status {other:?}"))),
        }
    }
}

/// One address of a user with its confirmation state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AddressRecord {
    pub address: String,
    pub status: AddressStatus,
    /// SHA-256 (hex) of the code mailed to it, while one is outstanding.
    pub code_hash: Option<String>,
    pub code_expires_at: Option<DateTime<Utc>>,
}

/// Every address of `userid` (pending ones too), in order.
pub(crate) fn address_records(conn: &Connection, userid: &str) -> Result<Vec<AddressRecord>> {
    let mut stmt = conn.prepare_cached(
        "SELECT address, status, code_hash, code_expires_at FROM user_addresses
         WHERE userid = ?1 ORDER BY position",
    )?;
    let rows = stmt.query_map(params![userid], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
            r.get::<_, Option<StoredTime>>(3)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (address, status, code_hash, expires) = row?;
        out.push(AddressRecord {
            address,
            status: AddressStatus::from_text(&status)?,
            code_hash,
            code_expires_at: expires.map(|t| t.0),
        });
    }
    Ok(out)
}

/// Set the confirmation state of one address of `userid`.
pub(crate) fn set_address_status(
    conn: &Connection,
    userid: &str,
    address: &str,
    status: AddressStatus,
    code: Option<(&str, DateTime<Utc>)>,
) -> Result<()> {
    conn.exec(
        "UPDATE user_addresses SET status = ?3, code_hash = ?4, code_expires_at = ?5
         WHERE userid = ?1 AND address = ?2",
        params![
            userid,
            address.to_ascii_lowercase(),
            status.text(),
            code.map(|c| c.0),
            code.map(|c| StoredTime(c.1))
        ],
    )?;
    Ok(())
}

pub fn insert_user(
    conn: &Connection,
    userid: &str,
    password_hash: &str,
    addresses: &[String],
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "INSERT INTO users (userid, password_hash, created_at) VALUES (?1, ?2, ?3)",
        params![userid, password_hash, StoredTime(now)],
    )?;
    set_addresses(conn, userid, addresses)
}

pub(crate) fn set_addresses(conn: &Connection, userid: &str, addresses: &[String]) -> Result<()> {
    conn.exec(
        "DELETE FROM user_addresses WHERE userid = ?1",
        params![userid],
    )?;
    for (i, a) in addresses.iter().enumerate() {
        conn.exec(
            "INSERT INTO user_addresses (userid, position, address) VALUES (?1, ?2, ?3)",
            params![userid, i as i64, a.to_ascii_lowercase()],
        )?;
    }
    Ok(())
}

pub(crate) fn set_password_hash(conn: &Connection, userid: &str, hash: &str) -> Result<()> {
    conn.exec(
        "UPDATE users SET password_hash = ?2 WHERE userid = ?1",
        params![userid, hash],
    )?;
    Ok(())
}

/// Mark a user as gone (history is kept). Returns false when there is no such user.
pub(crate) fn sign_off(conn: &Connection, userid: &str, now: DateTime<Utc>) -> Result<bool> {
    let n = conn.exec(
        "UPDATE users SET signed_off_at = ?2 WHERE userid = ?1 AND signed_off_at IS NULL",
        params![userid, StoredTime(now)],
    )?;
    Ok(n == 1)
}

/// The addresses of `userid` that get mail (not the pending ones), and
/// those of them not yet confirmed.
fn addresses_of(conn: &Connection, userid: &str) -> Result<(Vec<String>, Vec<String>)> {
    let mut stmt = conn.prepare_cached(
        "SELECT address, status FROM user_addresses
         WHERE userid = ?1 AND status != 'pending' ORDER BY position",
    )?;
    let rows = stmt.query_map(params![userid], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
    })?;
    let mut all = Vec::new();
    let mut unconfirmed = Vec::new();
    for row in rows {
        let (address, status) = row?;
        if status == "unconfirmed" {
            unconfirmed.push(address.clone());
        }
        all.push(address);
    }
    Ok((all, unconfirmed))
}

/// Whether `address` is a confirmed address of some user (who may get
/// any mail of their account; see `server::confirm`).
pub(crate) fn is_confirmed_address(conn: &Connection, address: &str) -> Result<bool> {
    let found: Option<i64> = conn
        .row(
            "SELECT 1 FROM user_addresses WHERE address = ?1 AND status = 'confirmed' LIMIT 1",
            params![address.to_ascii_lowercase()],
            |r| r.get(0),
        )
        .optional()?;
    Ok(found.is_some())
}

/// The last confirmation mail sent to an address (see migration 0033).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConfirmationMail {
    pub userid: String,
    pub code_hash: String,
    pub code_expires_at: DateTime<Utc>,
    pub sent_at: DateTime<Utc>,
}

/// The last confirmation mail sent to `address`, if any.
pub(crate) fn confirmation_mail(
    conn: &Connection,
    address: &str,
) -> Result<Option<ConfirmationMail>> {
    let row = conn
        .row(
            "SELECT userid, code_hash, code_expires_at, sent_at FROM confirmation_mails
             WHERE address = ?1",
            params![address.to_ascii_lowercase()],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, StoredTime>(2)?,
                    r.get::<_, StoredTime>(3)?,
                ))
            },
        )
        .optional()?;
    let Some((userid, code_hash, expires, sent)) = row else {
        return Ok(None);
    };
    Ok(Some(ConfirmationMail {
        userid,
        code_hash,
        code_expires_at: expires.0,
        sent_at: sent.0,
    }))
}

/// Record the confirmation mail sent to `address` now.
pub(crate) fn record_confirmation_mail(
    conn: &Connection,
    address: &str,
    mail: &ConfirmationMail,
) -> Result<()> {
    conn.exec(
        "INSERT INTO confirmation_mails (address, userid, code_hash, code_expires_at, sent_at)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (address) DO UPDATE SET userid = excluded.userid,
             code_hash = excluded.code_hash, code_expires_at = excluded.code_expires_at,
             sent_at = excluded.sent_at",
        params![
            address.to_ascii_lowercase(),
            mail.userid,
            mail.code_hash,
            StoredTime(mail.code_expires_at),
            StoredTime(mail.sent_at)
        ],
    )?;
    Ok(())
}

/// Forget the confirmation mail recorded for `address` at `sent_at` (it
/// was not sent after all: see `server::Server::charge_strangers`).
pub(crate) fn forget_confirmation_mail(
    conn: &Connection,
    address: &str,
    sent_at: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "DELETE FROM confirmation_mails WHERE address = ?1 AND sent_at = ?2",
        params![address.to_ascii_lowercase(), StoredTime(sent_at)],
    )?;
    Ok(())
}

/// The users (signed off or not) who have `address` among theirs, by userid.
pub(crate) fn userids_with_address(conn: &Connection, address: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT DISTINCT userid FROM user_addresses WHERE address = ?1 ORDER BY userid",
    )?;
    let rows = stmt.query_map(params![address.to_ascii_lowercase()], |r| {
        r.get::<_, String>(0)
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The user called `userid` (lower-case), signed off or not.
pub fn user(conn: &Connection, userid: &str) -> Result<Option<User>> {
    let row = conn
        .row(
            "SELECT userid, password_hash, created_at, signed_off_at FROM users WHERE userid = ?1",
            params![userid],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, StoredTime>(2)?,
                    r.get::<_, Option<StoredTime>>(3)?,
                ))
            },
        )
        .optional()?;
    let Some((userid, password_hash, created, signed_off)) = row else {
        return Ok(None);
    };
    let (addresses, unconfirmed) = addresses_of(conn, &userid)?;
    Ok(Some(User {
        addresses,
        unconfirmed,
        userid,
        password_hash,
        created_at: created.0,
        signed_off_at: signed_off.map(|t| t.0),
    }))
}

/// Every userid (signed off too), in order.
pub(crate) fn all_userids(conn: &Connection) -> Result<Vec<String>> {
    let mut stmt = conn.prepare_cached("SELECT userid FROM users ORDER BY userid")?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every user, by userid.
pub(crate) fn users(conn: &Connection) -> Result<Vec<User>> {
    let mut stmt = conn.prepare_cached("SELECT userid FROM users ORDER BY userid")?;
    let ids = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    ids.iter()
        .map(|id| user(conn, id)?.ok_or_else(|| StoreError::Corrupt(format!("user {id} vanished"))))
        .collect()
}

/// The board drawing `userid` chose for `game` (large unless set).
pub(crate) fn board_size(conn: &Connection, userid: &str, game: &str) -> Result<BoardSize> {
    let size: Option<String> = conn
        .row(
            "SELECT board_size FROM preferences WHERE userid = ?1 AND game = ?2",
            params![userid, game],
            |r| r.get(0),
        )
        .optional()?;
    Ok(match size.as_deref() {
        Some("small") => BoardSize::Small,
        _ => BoardSize::Large,
    })
}

pub(crate) fn set_board_size(
    conn: &Connection,
    userid: &str,
    game: &str,
    size: BoardSize,
) -> Result<()> {
    let text = match size {
        BoardSize::Small => "small",
        BoardSize::Large => "large",
    };
    conn.exec(
        "INSERT INTO preferences (userid, game, board_size) VALUES (?1, ?2, ?3)
         ON CONFLICT (userid, game) DO UPDATE SET board_size = excluded.board_size",
        params![userid, game, text],
    )?;
    Ok(())
}

/// Whether a player wants the boards of `game` drawn from Black's side.
pub(crate) fn from_black(conn: &Connection, userid: &str, game: &str) -> Result<bool> {
    let flipped: Option<bool> = conn
        .row(
            "SELECT from_black FROM preferences WHERE userid = ?1 AND game = ?2",
            params![userid, game],
            |r| r.get(0),
        )
        .optional()?;
    Ok(flipped.unwrap_or(false))
}

pub(crate) fn set_from_black(
    conn: &Connection,
    userid: &str,
    game: &str,
    flipped: bool,
) -> Result<()> {
    conn.exec(
        "INSERT INTO preferences (userid, game, board_size, from_black) VALUES (?1, ?2, 'large', ?3)
         ON CONFLICT (userid, game) DO UPDATE SET from_black = excluded.from_black",
        params![userid, game, flipped],
    )?;
    Ok(())
}

/// A player's rating in one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rating {
    pub rating: i64,
    /// Rated games finished.
    pub games: i64,
}

/// The rating of `userid` in `game`, or `None` before their first rated game.
pub fn rating(conn: &Connection, game: &str, userid: &str) -> Result<Option<Rating>> {
    Ok(conn
        .row(
            "SELECT rating, games FROM ratings WHERE game = ?1 AND userid = ?2",
            params![game, userid],
            |r| {
                Ok(Rating {
                    rating: r.get(0)?,
                    games: r.get(1)?,
                })
            },
        )
        .optional()?)
}

pub fn set_rating(conn: &Connection, game: &str, userid: &str, rating: Rating) -> Result<()> {
    conn.exec(
        "INSERT INTO ratings (game, userid, rating, games) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (game, userid) DO UPDATE SET rating = excluded.rating, games = excluded.games",
        params![game, userid, rating.rating, rating.games],
    )?;
    Ok(())
}

/// One point of a player's rating history: the rating they got when the
/// rated board `board` of `game` finished at `at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RatingPoint {
    pub game: String,
    pub board: u32,
    pub at: DateTime<Utc>,
    pub rating: i64,
}

/// Record the rating `userid` got in `game` when `board` finished at `at`
/// (beside [`set_rating`], which keeps the current one).
pub(crate) fn record_rating(
    conn: &Connection,
    game: &str,
    userid: &str,
    board: u32,
    at: DateTime<Utc>,
    rating: i64,
) -> Result<()> {
    conn.exec(
        "INSERT INTO rating_history (game, userid, board, rated_at, rating)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (game, userid, board) DO UPDATE SET
             rated_at = excluded.rated_at, rating = excluded.rating",
        params![game, userid, board, StoredTime(at), rating],
    )?;
    Ok(())
}

/// The rating history of `userid` in every game, oldest first.
pub(crate) fn rating_history(conn: &Connection, userid: &str) -> Result<Vec<RatingPoint>> {
    let mut stmt = conn.prepare_cached(
        "SELECT game, board, rated_at, rating FROM rating_history
         WHERE userid = ?1 ORDER BY rated_at, game, board",
    )?;
    let rows = stmt.query_map(params![userid], |r| {
        Ok(RatingPoint {
            game: r.get(0)?,
            board: r.get(1)?,
            at: r.get::<_, StoredTime>(2)?.0,
            rating: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Every rating in `game`, best first.
pub(crate) fn standings(conn: &Connection, game: &str) -> Result<Vec<(String, Rating)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT userid, rating, games FROM ratings WHERE game = ?1 ORDER BY rating DESC, userid",
    )?;
    let rows = stmt.query_map(params![game], |r| {
        Ok((
            r.get::<_, String>(0)?,
            Rating {
                rating: r.get(1)?,
                games: r.get(2)?,
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// A player's finished games of one game: won, lost, tied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Record {
    pub won: i64,
    pub lost: i64,
    pub tied: i64,
}

/// The record of every player who finished a board of `game`, by userid.
pub(crate) fn records(conn: &Connection, game: &str) -> Result<Vec<(String, Record)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT p.userid,
                SUM(b.winner_seat = p.seat),
                SUM(b.winner_seat IS NOT NULL AND b.winner_seat != p.seat),
                SUM(b.winner_seat IS NULL)
         FROM boards b JOIN board_players p ON p.game = b.game AND p.board = b.board
         WHERE b.game = ?1 AND b.status = 'finished'
         GROUP BY p.userid ORDER BY p.userid",
    )?;
    let rows = stmt.query_map(params![game], |r| {
        Ok((
            r.get::<_, String>(0)?,
            Record {
                won: r.get(1)?,
                lost: r.get(2)?,
                tied: r.get(3)?,
            },
        ))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::open_in_memory;

    #[test]
    fn user_round_trip_keeps_address_order_and_lowercases() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        insert_user(
            &conn,
            "alice",
            "h",
            &["Alice@Example.ORG".into(), "b@x".into()],
            now,
        )
        .unwrap();
        let u = user(&conn, "alice").unwrap().unwrap();
        assert_eq!(u.addresses, vec!["alice@example.org", "b@x"]);
        assert_eq!(u.address(), "alice@example.org");
        assert!(user(&conn, "bob").unwrap().is_none());
        assert!(insert_user(&conn, "alice", "h", &[], now).is_err());
    }

    #[test]
    fn the_last_confirmation_mail_of_an_address_is_kept_until_forgotten() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        assert_eq!(confirmation_mail(&conn, "a@x.org").unwrap(), None);
        let mail = ConfirmationMail {
            userid: "alice".into(),
            code_hash: "h1".into(),
            code_expires_at: now + chrono::Duration::days(7),
            sent_at: now,
        };
        record_confirmation_mail(&conn, "A@X.org", &mail).unwrap();
        let read = confirmation_mail(&conn, "a@x.org").unwrap().unwrap();
        assert_eq!(read.userid, "alice");
        assert_eq!(read.code_hash, "h1");
        // Another mail to the address replaces it.
        let later = ConfirmationMail {
            userid: "bob".into(),
            sent_at: now + chrono::Duration::days(2),
            ..mail.clone()
        };
        record_confirmation_mail(&conn, "a@x.org", &later).unwrap();
        assert_eq!(
            confirmation_mail(&conn, "a@x.org").unwrap().unwrap().userid,
            "bob"
        );
        // Forgotten only for the mail sent at that time.
        forget_confirmation_mail(&conn, "a@x.org", now).unwrap();
        assert!(confirmation_mail(&conn, "a@x.org").unwrap().is_some());
        forget_confirmation_mail(&conn, "a@x.org", later.sent_at).unwrap();
        assert_eq!(confirmation_mail(&conn, "a@x.org").unwrap(), None);
    }

    #[test]
    fn only_confirmed_addresses_count_as_confirmed() {
        let conn = open_in_memory().unwrap();
        insert_user(
            &conn,
            "a",
            "h",
            &["a@x.org".into(), "b@x.org".into()],
            Utc::now(),
        )
        .unwrap();
        set_address_status(&conn, "a", "b@x.org", AddressStatus::Pending, None).unwrap();
        assert!(is_confirmed_address(&conn, "A@x.org").unwrap());
        assert!(!is_confirmed_address(&conn, "b@x.org").unwrap());
        assert!(!is_confirmed_address(&conn, "c@x.org").unwrap());
    }

    #[test]
    fn board_size_defaults_to_large_and_can_be_set() {
        let conn = open_in_memory().unwrap();
        insert_user(&conn, "a", "h", &["a@x".into()], Utc::now()).unwrap();
        assert_eq!(board_size(&conn, "a", "chess").unwrap(), BoardSize::Large);
        set_board_size(&conn, "a", "chess", BoardSize::Small).unwrap();
        assert_eq!(board_size(&conn, "a", "chess").unwrap(), BoardSize::Small);
        assert_eq!(
            board_size(&conn, "a", "doublechess").unwrap(),
            BoardSize::Large
        );
        assert!(!from_black(&conn, "a", "chess").unwrap());
        set_from_black(&conn, "a", "chess", true).unwrap();
        assert!(from_black(&conn, "a", "chess").unwrap());
        assert_eq!(board_size(&conn, "a", "chess").unwrap(), BoardSize::Small);
        set_from_black(&conn, "a", "shadowchess", true).unwrap();
        assert_eq!(
            board_size(&conn, "a", "shadowchess").unwrap(),
            BoardSize::Large
        );
    }
}
