//! Reply tokens (playing by reply): which player and board a board mail's
//! Message-ID stands for, the Message-ID an outbox mail is sent with, and
//! the per-game `noreply` setting.

use super::{BoardId, Cached};
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};
use sha2::Digest;

use super::{Result, StoredTime};

/// What a reply token stands for: a board mail sent to `userid` about
/// board `board` of `game` when `ply` plies had been played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ReplyToken {
    pub game: String,
    pub board: u32,
    pub userid: String,
    pub ply: u32,
    /// The game ended since: the token no longer plays.
    pub expired: bool,
}

/// Remember a token by its hash (`token_hash`: hex SHA-256 of the token).
pub(crate) fn insert_reply_token(
    conn: &Connection,
    token_hash: &str,
    token: &ReplyToken,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "INSERT INTO reply_tokens (token_hash, game, board, userid, ply, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            token_hash,
            token.game,
            token.board,
            token.userid,
            token.ply,
            StoredTime(now)
        ],
    )?;
    Ok(())
}

/// The token with this hash, if the server issued it.
pub(crate) fn reply_token(conn: &Connection, token_hash: &str) -> Result<Option<ReplyToken>> {
    Ok(conn
        .row(
            "SELECT game, board, userid, ply, expired_at IS NOT NULL FROM reply_tokens
             WHERE token_hash = ?1",
            params![token_hash],
            |r| {
                Ok(ReplyToken {
                    game: r.get(0)?,
                    board: r.get(1)?,
                    userid: r.get(2)?,
                    ply: r.get(3)?,
                    expired: r.get(4)?,
                })
            },
        )
        .optional()?)
}

/// The game on this board ended: none of its tokens plays any more.
pub(crate) fn expire_reply_tokens(
    conn: &Connection,
    id: BoardId<'_>,
    now: DateTime<Utc>,
) -> Result<()> {
    let (game, board) = (id.game, id.number);
    conn.exec(
        "UPDATE reply_tokens SET expired_at = ?3
         WHERE game = ?1 AND board = ?2 AND expired_at IS NULL",
        params![game, board, StoredTime(now)],
    )?;
    Ok(())
}

/// Every token `userid` holds, on every board, plays no more (`set ...
/// noreply`, a new password or address, signoff).
pub(crate) fn expire_user_reply_tokens(
    conn: &Connection,
    userid: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    conn.exec(
        "UPDATE reply_tokens SET expired_at = ?2 WHERE userid = ?1 AND expired_at IS NULL",
        params![userid, StoredTime(now)],
    )?;
    Ok(())
}

/// The form in which a sent mail's Message-ID `id` is kept (see
/// [`forget_secrets`]): a token's Message-ID (`t.TOKEN@domain`) with the
/// token replaced by its SHA-256, so a bounce that quotes the id as it was
/// sent still finds its row. `None` for an id that carried no token.
pub(crate) fn message_id_at_rest(id: &str) -> Option<String> {
    let (local, domain) = id.rsplit_once('@')?;
    let token = local.strip_prefix("t.").filter(|t| !t.is_empty())?;
    Some(format!("t.{}@{domain}", hex_sha256(token)))
}

fn hex_sha256(word: &str) -> String {
    crate::hex::encode(&sha2::Sha256::digest(word.as_bytes()))
}

/// Outbox mail `id` was sent: each secret it carried is
/// blanked in its Subject and body, and replaced by its SHA-256 in its
/// Message-ID (which then names the mail without being a token: a reply
/// to it, or a forged one made from a backup, finds no token). Until now
/// they stayed in clear, so that a resend after a crash is the same mail.
pub(crate) fn forget_secrets(conn: &Connection, id: i64) -> Result<()> {
    let secrets: Option<Option<String>> = conn
        .row(
            "SELECT secrets FROM outbox WHERE id = ?1",
            params![id],
            |r| r.get(0),
        )
        .optional()?;
    let Some(secrets) = secrets.flatten() else {
        return Ok(());
    };
    for word in secrets.split_whitespace() {
        let hashed = hex_sha256(word);
        conn.exec(
            "UPDATE outbox SET subject = replace(subject, ?2, '******'),
                body = replace(body, ?2, '******'),
                message_id = replace(message_id, ?2, ?3)
             WHERE id = ?1",
            params![id, word, hashed],
        )?;
    }
    conn.exec(
        "UPDATE outbox SET secrets = NULL WHERE id = ?1",
        params![id],
    )?;
    Ok(())
}

/// Whether a notice keyed `key` may be sent now: not sent within a day
/// before `now`. When it may, it is recorded as sent now.
pub(crate) fn notice_due_daily(conn: &Connection, key: &str, now: DateTime<Utc>) -> Result<bool> {
    let last: Option<StoredTime> = conn
        .row(
            "SELECT sent_at FROM notices_sent WHERE key = ?1",
            params![key],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(last) = last {
        if last.0 + chrono::Duration::days(1) > now {
            return Ok(false);
        }
    }
    conn.exec(
        "INSERT INTO notices_sent (key, sent_at) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET sent_at = excluded.sent_at",
        params![key, StoredTime(now)],
    )?;
    Ok(true)
}

/// Whether `userid` switched playing by reply off for `game` (`set ... noreply`).
pub(crate) fn no_reply(conn: &Connection, userid: &str, game: &str) -> Result<bool> {
    let off: Option<bool> = conn
        .row(
            "SELECT no_reply FROM preferences WHERE userid = ?1 AND game = ?2",
            params![userid, game],
            |r| r.get(0),
        )
        .optional()?;
    Ok(off.unwrap_or(false))
}

pub(crate) fn set_no_reply(conn: &Connection, userid: &str, game: &str, off: bool) -> Result<()> {
    conn.exec(
        "INSERT INTO preferences (userid, game, board_size, no_reply) VALUES (?1, ?2, 'large', ?3)
         ON CONFLICT (userid, game) DO UPDATE SET no_reply = excluded.no_reply",
        params![userid, game, off],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::Outgoing;
    use crate::store::{
        due_mail_first, enqueue, insert_board, insert_user, next_outbox_id, open_in_memory,
        queue_mail, NewBoard, NewOutboxMail,
    };

    fn board(conn: &Connection, now: DateTime<Utc>) -> u32 {
        insert_user(conn, "alice", "h", &["a@x".to_string()], now).unwrap();
        insert_user(conn, "bob", "h", &["b@x".to_string()], now).unwrap();
        insert_board(
            conn,
            &NewBoard {
                game: "chess",
                options: &[],
                start_position: "s",
                players: &["alice".to_string(), "bob".to_string()],
                nag_days: None,
                forfeit_days: None,
                total_days: None,
                now,
            },
        )
        .unwrap()
    }

    #[test]
    fn tokens_are_found_by_hash_expire_with_the_game_and_go_with_the_board() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        let number = board(&conn, now);
        let token = ReplyToken {
            game: "chess".into(),
            board: number,
            userid: "bob".into(),
            ply: 3,
            expired: false,
        };
        insert_reply_token(&conn, "h1", &token, now).unwrap();
        assert_eq!(reply_token(&conn, "h1").unwrap(), Some(token.clone()));
        assert_eq!(reply_token(&conn, "h2").unwrap(), None);
        expire_reply_tokens(&conn, BoardId::new("chess", number), now).unwrap();
        assert!(reply_token(&conn, "h1").unwrap().unwrap().expired);
        crate::store::delete_board(&conn, BoardId::new("chess", number)).unwrap();
        assert_eq!(reply_token(&conn, "h1").unwrap(), None);
    }

    #[test]
    fn old_tokens_of_past_plies_and_ended_games_are_pruned_the_current_one_stays() {
        use crate::store::{append_ply, prune, Ply};
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        let old = now - chrono::Duration::days(100);
        let number = board(&conn, old);
        for (ply, notation) in [(1, "e4"), (2, "e5")] {
            let ply = Ply {
                ply,
                seat: rules::Color::from_index((ply as usize + 1) % 2).unwrap(),
                notation: notation.into(),
                events: vec![],
                comment: String::new(),
                played_at: old,
                auto: false,
                conditional: false,
            };
            append_ply(&conn, BoardId::new("chess", number), &ply, None).unwrap();
        }
        let token = |ply: u32| ReplyToken {
            game: "chess".into(),
            board: number,
            userid: "alice".into(),
            ply,
            expired: false,
        };
        insert_reply_token(&conn, "past-old", &token(1), old).unwrap();
        insert_reply_token(&conn, "current-old", &token(2), old).unwrap();
        insert_reply_token(&conn, "past-new", &token(1), now).unwrap();
        let prune_now = || {
            prune(
                &conn,
                now - chrono::Duration::days(90),
                now - chrono::Duration::days(30),
                now,
                100,
            )
            .unwrap()
            .reply_tokens
        };
        assert_eq!(prune_now(), 1);
        let kept = |hash: &str| reply_token(&conn, hash).unwrap().is_some();
        assert!(!kept("past-old"));
        assert!(kept("current-old") && kept("past-new"));
        // The game ends: its old current token goes too, the new one stays.
        expire_reply_tokens(&conn, BoardId::new("chess", number), now).unwrap();
        assert_eq!(prune_now(), 1);
        assert!(!kept("current-old") && kept("past-new"));
    }

    #[test]
    fn an_outbox_mail_keeps_its_own_message_id() {
        let conn = open_in_memory().unwrap();
        let out = Outgoing {
            to: "a@x".into(),
            subject: "s".into(),
            body: "b".into(),
            in_reply_to: None,
        };
        enqueue(&conn, &out, Utc::now()).unwrap();
        let id = next_outbox_id(&conn).unwrap();
        let own = NewOutboxMail {
            mail: out,
            html: false,
            picture: None,
            message_id: Some("t.abc@x".into()),
            secrets: Vec::new(),
        };
        queue_mail(&conn, id, &own, Utc::now()).unwrap();
        let due = due_mail_first(&conn, Utc::now(), 10).unwrap();
        let ids: Vec<_> = due.iter().map(|r| r.message_id.as_deref()).collect();
        assert_eq!(ids, [None, Some("t.abc@x")]);
        assert_eq!(due[1].id, id);
    }

    #[test]
    fn a_players_tokens_end_together_on_every_board() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        let number = board(&conn, now);
        let token = |userid: &str| ReplyToken {
            game: "chess".into(),
            board: number,
            userid: userid.into(),
            ply: 0,
            expired: false,
        };
        insert_reply_token(&conn, "a", &token("alice"), now).unwrap();
        insert_reply_token(&conn, "b", &token("bob"), now).unwrap();
        expire_user_reply_tokens(&conn, "alice", now).unwrap();
        assert!(reply_token(&conn, "a").unwrap().unwrap().expired);
        assert!(!reply_token(&conn, "b").unwrap().unwrap().expired);
    }

    #[test]
    fn secrets_stay_until_sent_then_are_blanked_and_hashed() {
        let conn = open_in_memory().unwrap();
        let out = Outgoing {
            to: "a@x".into(),
            subject: "confirm address alice K7Q3P9".into(),
            body: "Subject: confirm address alice K7Q3P9\n".into(),
            in_reply_to: None,
        };
        let id = next_outbox_id(&conn).unwrap();
        let carrying = NewOutboxMail {
            mail: out.clone(),
            html: false,
            picture: None,
            message_id: Some("t.0a1b2c@x".into()),
            secrets: vec!["K7Q3P9".into(), "0a1b2c".into()],
        };
        queue_mail(&conn, id, &carrying, Utc::now()).unwrap();
        // Before sending: in clear, so a resend is the same mail.
        let due = due_mail_first(&conn, Utc::now(), 10).unwrap();
        assert_eq!(due[0].message_id.as_deref(), Some("t.0a1b2c@x"));
        assert_eq!(due[0].mail.subject, out.subject);
        crate::store::mark_sent(&conn, id, Utc::now()).unwrap();
        let (subject, body, mid, secrets): (String, String, String, Option<String>) = conn
            .query_row(
                "SELECT subject, body, message_id, secrets FROM outbox WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(subject, "confirm address alice ******");
        assert!(
            !body.contains("K7Q3P9") && body.contains("******"),
            "{body}"
        );
        let hashed = crate::hex::encode(&sha2::Sha256::digest(b"0a1b2c"));
        assert_eq!(mid, format!("t.{hashed}@x"));
        assert_eq!(secrets, None);
        // A bounce quoting the id as it was sent still finds the row.
        assert_eq!(message_id_at_rest("t.0a1b2c@x"), Some(mid));
        let found = crate::store::outbox_mail_for_id(&conn, "t.0a1b2c@x").unwrap();
        assert_eq!(found.map(|(row, ..)| row), Some(id));
        assert!(crate::store::outbox_mail_for_id(&conn, "t.0a1b2d@x")
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_daily_notice_is_due_once_a_day() {
        let conn = open_in_memory().unwrap();
        let now = Utc::now();
        assert!(notice_due_daily(&conn, "k", now).unwrap());
        assert!(!notice_due_daily(&conn, "k", now + chrono::Duration::hours(23)).unwrap());
        assert!(notice_due_daily(&conn, "other", now).unwrap());
        assert!(notice_due_daily(&conn, "k", now + chrono::Duration::hours(25)).unwrap());
    }

    #[test]
    fn noreply_is_a_setting_per_game() {
        let conn = open_in_memory().unwrap();
        board(&conn, Utc::now());
        assert!(!no_reply(&conn, "alice", "chess").unwrap());
        set_no_reply(&conn, "alice", "chess", true).unwrap();
        assert!(no_reply(&conn, "alice", "chess").unwrap());
        assert!(!no_reply(&conn, "alice", "zelig").unwrap());
        set_no_reply(&conn, "alice", "chess", false).unwrap();
        assert!(!no_reply(&conn, "alice", "chess").unwrap());
    }
}
