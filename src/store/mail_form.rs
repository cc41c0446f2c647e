//! The form of a player's mail: the text part alone (`set …
//! plain`) or with an HTML part (`set … html`, the default), and the form
//! each outbox mail was queued with.

use rusqlite::{params, Connection};

use super::{Cached, Result};

/// Whether `userid` asked for text-only mail (`<game> set <userid> <pw>
/// plain`). The choice holds for every game.
#[cfg(test)]
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
            message_id: None,
            secrets: Vec::new(),
        };
        super::super::queue_mail(&conn, html, &new, now).unwrap();
        let due = super::super::due_mail(&conn, now).unwrap();
        let form: Vec<(i64, bool)> = due.iter().map(|r| (r.id, r.html)).collect();
        assert_eq!(form, [(plain, false), (html, true)]);
    }
}
