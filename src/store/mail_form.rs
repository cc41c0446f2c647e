//! The form of a player's mail: the text part alone (`set …
//! plain`) or with an HTML part (`set … html`, the default), the board's
//! picture in it or not (`set … picture|nopicture`), and the form each
//! outbox mail was queued with.

use rusqlite::{params, Connection};

use super::{Cached, Result};

/// Whether `userid` asked for text-only mail (`<game> set <userid> <pw>
/// plain`). The choice holds for every game.
pub(crate) fn plain_mail(conn: &Connection, userid: &str) -> Result<bool> {
    Ok(conn.row(
        "SELECT EXISTS (SELECT 1 FROM plain_mail_users WHERE userid = ?1)",
        params![userid],
        |r| r.get(0),
    )?)
}

/// `set … plain` (true) or `set … html` (false).
pub(crate) fn set_plain_mail(conn: &Connection, userid: &str, plain: bool) -> Result<()> {
    if plain {
        conn.exec(
            "INSERT OR IGNORE INTO plain_mail_users (userid) VALUES (?1)",
            params![userid],
        )?;
    } else {
        conn.exec(
            "DELETE FROM plain_mail_users WHERE userid = ?1",
            params![userid],
        )?;
    }
    Ok(())
}

/// Whether mail to `address` goes out as text only: some player with this
/// address on file asked for it. Ruling: an address two players share
/// gets text only when either asked (text alone is readable everywhere);
/// an address of no player (a stranger's, a confirmation mail's) gets the
/// default, both parts.
pub(crate) fn address_wants_plain(conn: &Connection, address: &str) -> Result<bool> {
    Ok(conn.row(
        "SELECT EXISTS (SELECT 1 FROM user_addresses a JOIN plain_mail_users p
                        ON p.userid = a.userid WHERE a.address = ?1)",
        params![address.trim().to_ascii_lowercase()],
        |r| r.get(0),
    )?)
}

/// Whether `userid`'s board mails show the board's picture in their HTML
/// part (`<game> set <userid> <pw> picture`, for every game). Ruling: new
/// accounts start with it; accounts made before it existed keep the mail
/// they had, without it (migration 0053). An unknown userid has none.
pub(crate) fn picture_mail(conn: &Connection, userid: &str) -> Result<bool> {
    Ok(conn.row(
        "SELECT EXISTS (SELECT 1 FROM users WHERE userid = ?1 AND picture <> 0)",
        params![userid],
        |r| r.get(0),
    )?)
}

/// `set … picture` (true) or `set … nopicture` (false).
pub(crate) fn set_picture_mail(conn: &Connection, userid: &str, picture: bool) -> Result<()> {
    conn.exec(
        "UPDATE users SET picture = ?2 WHERE userid = ?1",
        params![userid, picture],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::Outgoing;

    fn with_users() -> Connection {
        let conn = super::super::open_in_memory().unwrap();
        let now = chrono::Utc::now();
        let both = ["shared@x.test".to_string()];
        super::super::insert_user(&conn, "alice", "h", &["Alice@X.test".into()], now).unwrap();
        super::super::insert_user(&conn, "bob", "h", &both, now).unwrap();
        super::super::insert_user(&conn, "carol", "h", &both, now).unwrap();
        conn
    }

    #[test]
    fn players_get_both_parts_until_they_ask_for_plain() {
        let conn = with_users();
        assert!(!plain_mail(&conn, "alice").unwrap());
        assert!(!address_wants_plain(&conn, "alice@x.test").unwrap());
        set_plain_mail(&conn, "alice", true).unwrap();
        set_plain_mail(&conn, "alice", true).unwrap();
        assert!(plain_mail(&conn, "alice").unwrap());
        assert!(address_wants_plain(&conn, "ALICE@x.test").unwrap());
        set_plain_mail(&conn, "alice", false).unwrap();
        assert!(!address_wants_plain(&conn, "alice@x.test").unwrap());
        assert!(!plain_mail(&conn, "nobody").unwrap());
        assert!(!address_wants_plain(&conn, "stranger@x.test").unwrap());
    }

    #[test]
    fn new_accounts_get_the_picture_until_they_ask_for_nopicture() {
        let conn = with_users();
        assert!(picture_mail(&conn, "alice").unwrap());
        set_picture_mail(&conn, "alice", false).unwrap();
        assert!(!picture_mail(&conn, "alice").unwrap());
        assert!(picture_mail(&conn, "bob").unwrap());
        set_picture_mail(&conn, "alice", true).unwrap();
        assert!(picture_mail(&conn, "alice").unwrap());
        assert!(!picture_mail(&conn, "nobody").unwrap());
    }

    #[test]
    fn accounts_made_before_the_picture_keep_their_mail_without_it() {
        let mut conn = Connection::open_in_memory().unwrap();
        let migrations = super::super::migrations::migrations();
        // The migrations listed before this one (the count includes its
        // own path's prefix).
        let source = include_str!("migrations.rs");
        let before = source[..source.find("0053_picture_mail.sql").unwrap()]
            .matches("../../migrations/")
            .count()
            - 1;
        migrations.to_version(&mut conn, before).unwrap();
        conn.execute_batch(
            "INSERT INTO users (userid, password_hash, created_at)
             VALUES ('old', 'h', '2026-01-01T00:00:00Z');",
        )
        .unwrap();
        migrations.to_latest(&mut conn).unwrap();
        assert!(!picture_mail(&conn, "old").unwrap());
        let now = chrono::Utc::now();
        super::super::insert_user(&conn, "new", "h", &["n@x.test".into()], now).unwrap();
        assert!(picture_mail(&conn, "new").unwrap());
    }

    #[test]
    fn a_shared_address_gets_text_only_when_either_player_asked() {
        let conn = with_users();
        assert!(!address_wants_plain(&conn, "shared@x.test").unwrap());
        set_plain_mail(&conn, "carol", true).unwrap();
        assert!(address_wants_plain(&conn, "shared@x.test").unwrap());
    }

    #[test]
    fn an_outbox_mail_keeps_the_form_it_was_queued_with() {
        let conn = with_users();
        let now = chrono::Utc::now();
        let mail = Outgoing {
            to: "alice@x.test".into(),
            subject: "s".into(),
            body: "b".into(),
            in_reply_to: None,
        };
        let plain = super::super::enqueue(&conn, &mail, now).unwrap();
        let html = super::super::next_outbox_id(&conn).unwrap();
        let new = super::super::NewOutboxMail {
            mail,
            html: true,
            picture: None,
            message_id: None,
            secrets: Vec::new(),
        };
        super::super::queue_mail(&conn, html, &new, now).unwrap();
        let due = super::super::due_mail(&conn, now).unwrap();
        let form: Vec<(i64, bool)> = due.iter().map(|r| (r.id, r.html)).collect();
        assert_eq!(form, [(plain, false), (html, true)]);
    }
}
