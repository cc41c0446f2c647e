//! The outbox: the mails a unit of work (an inbound mail, a timers pass,
//! an admin command) causes, grouped per recipient, charged when they go
//! to strangers, and queued, each mail one outbox row written once in the
//! unit's transaction.
//!
//! Rulings:
//! - Only the mail to the `sender` answers the mail `cause`: the
//!   opponent's and observers' mails do not name it in `In-Reply-To` or
//!   `References` (it would tell them the mover's mail domain).
//! - A board mail carries a reply token only when its recipient is an
//!   address on file of the token's player: no mail ever carries a token
//!   of anyone but its recipient (a copy to a sender who is not the
//!   player goes without, and without the line saying how to reply).
//! - The secrets a mail carries (its token, the confirmation codes it
//!   shows) are kept with the row and blanked once it is sent
//!   (`store::forget_secrets`).

use chrono::{DateTime, Utc};
use minijinja::context;
use rusqlite::Connection;

use super::{bounces, confirm, reply, Reply, Server, ServerError};
use crate::mail::Outgoing;
use crate::store::{self, NewOutboxMail};

impl Server<'_> {
    /// Queue replies; those to the `sender` of a command are joined into
    /// one mail, every other reply is a mail of its own (a board mail
    /// stays one board's mail, whatever else the sender's mail did).
    /// Returns how many mails.
    pub(super) fn queue(
        &self,
        conn: &Connection,
        replies: Vec<Reply>,
        sender: Option<&str>,
        cause: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<usize, ServerError> {
        let mails = self.group(replies, sender)?;
        self.queue_grouped(conn, mails, sender, cause, now)
    }

    /// Queue mails as [`Server::group`] made them, in reply to the mail
    /// `cause` (its Message-ID; content-hash ids are no Message-IDs and
    /// are left out) where they go to its `sender`. Returns how many.
    pub(super) fn queue_grouped(
        &self,
        conn: &Connection,
        mails: Vec<Reply>,
        sender: Option<&str>,
        cause: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<usize, ServerError> {
        let n = mails.len();
        for mail in mails {
            let answers = sender.is_some_and(|s| s.eq_ignore_ascii_case(&mail.to));
            self.queue_mail(conn, mail, cause.filter(|_| answers), now)?;
        }
        Ok(n)
    }

    /// A plain notice to `to` (the short `Error` of a mail, or of
    /// answers, too large), queued as the answer to the mail `cause`.
    pub(super) fn queue_notice(
        &self,
        conn: &Connection,
        to: &str,
        subject: &str,
        body: String,
        cause: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(), ServerError> {
        let notice = Reply {
            to: to.to_string(),
            subject: subject.to_string(),
            body,
            reply_key: None,
            codes: Vec::new(),
            board: None,
            picture: None,
        };
        self.queue_mail(conn, notice, cause, now)?;
        Ok(())
    }

    /// Queue one mail, answering the mail `cause`: its row is written
    /// once, with everything it holds.
    fn queue_mail(
        &self,
        conn: &Connection,
        mail: Reply,
        cause: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<i64, ServerError> {
        let Reply {
            to,
            subject,
            mut body,
            reply_key,
            codes,
            picture,
            ..
        } = mail;
        let key = match reply_key {
            Some(key) if reply::owns_address(conn, &key.userid, &to)? => Some(key),
            _ => None,
        };
        // A board mail to a player goes out with a reply token and says
        // how to answer it.
        let token_id = match &key {
            Some(key) => {
                body = format!("{}\n\n{}\n", body.trim_end(), reply::how_to_answer(key));
                Some(reply::issue(conn, self, key, now)?)
            }
            None => None,
        };
        // A board mail goes out with an HTML part too, unless its
        // recipient asked for text only (see `mail::html`); with the
        // board's picture when its reader chose it and the mail stays
        // within the limit with it (else without it, else text alone).
        let max = self.config.limits.max_reply_bytes;
        let html =
            crate::mail::wants_html_part(&body, max) && !store::address_wants_plain(conn, &to)?;
        let picture = picture
            .filter(|png| html && crate::mail::fits_with_picture(&body, png.0.len(), max))
            .map(|png| png.0.to_vec());
        let shown = Outgoing {
            to,
            subject,
            body,
            in_reply_to: cause
                .filter(|id| !id.starts_with("hash:"))
                .map(String::from),
        };
        let id = store::next_outbox_id(conn)?;
        let message_id = match token_id {
            Some(token_id) => Some(token_id),
            // A mail that shows codes gets its Message-ID fixed now, while
            // they are in it: once sent they are blanked, and a bounce must
            // still name the row (see `bounces::note`). It is made from the
            // text before any stop notice.
            None if !codes.is_empty() => {
                let key = store::message_id_key(conn)?;
                let domain = self.config.server.domain();
                Some(crate::mail::outgoing_message_id(&shown, id, domain, &key))
            }
            None => None,
        };
        let mail = Outgoing {
            body: bounces::with_stop_notice(conn, &shown.to, shown.body)?,
            ..shown
        };
        let mut secrets = codes;
        if let Some(token) = message_id.as_deref().and_then(reply::token_of) {
            secrets.push(token.to_string());
        }
        let new = NewOutboxMail {
            mail,
            html,
            picture,
            message_id,
            secrets,
        };
        store::queue_mail(conn, id, &new, now)?;
        Ok(id)
    }

    /// The mails to send, in the order of first mention: the replies to
    /// `sender` joined under their subjects (when there are several), each
    /// other reply as it is (a reply identical to one before is sent once).
    /// A joined mail answers no single board: it has no reply key, and
    /// shows the codes of its parts.
    pub(super) fn group(
        &self,
        replies: Vec<Reply>,
        sender: Option<&str>,
    ) -> Result<Vec<Reply>, ServerError> {
        let mut out = Vec::new();
        let mut sender_done = false;
        for (i, r) in replies.iter().enumerate() {
            if Some(r.to.as_str()) != sender {
                if !replies[..i].contains(r) {
                    out.push(r.clone());
                }
                continue;
            }
            if sender_done {
                continue;
            }
            sender_done = true;
            let mine: Vec<&Reply> = replies.iter().filter(|m| m.to == r.to).collect();
            if let [one] = mine.as_slice() {
                out.push((*one).clone());
                continue;
            }
            let parts: Vec<_> = mine
                .iter()
                .map(|r| context! { subject => &r.subject, body => r.body.trim_end() })
                .collect();
            let mut codes: Vec<String> = Vec::new();
            for code in mine.iter().flat_map(|m| &m.codes) {
                if !codes.contains(code) {
                    codes.push(code.clone());
                }
            }
            out.push(Reply {
                to: r.to.clone(),
                subject: format!("{} answers ({} parts)", self.config.server.name, mine.len()),
                body: self
                    .templates
                    .render("multiple.txt", context! { parts => parts })?,
                reply_key: None,
                codes,
                board: None,
                picture: None,
            });
        }
        Ok(out)
    }

    /// Ruling: the mails one inbound mail causes to addresses other than
    /// its sender's and the players' confirmed ones (in practice,
    /// confirmation mails to addresses a signup or `change address`
    /// names) count against `[limits] unconfirmed_mails_per_hour`,
    /// server-wide. They are charged here, at the last step before the
    /// outbox, after every savepoint of the mail is released: only mails
    /// that are queued count, and no rollback of the mail's commands can
    /// undo a charge. Beyond the limit they are not sent (an address whose
    /// confirmation mail was not sent may be asked for again at once), and
    /// the sender is told in a mail of their own: which addresses, and
    /// when to ask again.
    ///
    /// Ruling: one inbound mail causes at most
    /// [`confirm::STRANGER_MAILS_PER_MAIL`] such mails (the rest are not
    /// sent, and the sender is told so), and a mail an account asked for
    /// from one of its confirmed addresses (by password: `change
    /// address`) is charged to that account's own hourly allowance
    /// ([`confirm::STRANGER_MAILS_PER_ACCOUNT_PER_HOUR`]) instead of the
    /// server's, so that signups and strangers cannot spend what a
    /// player's change of address needs (see [`confirm::asking_account`]).
    /// Those account-charged mails have a server-wide hour of their own,
    /// `[limits] unconfirmed_mails_per_hour` as well
    /// ([`confirm::ACCOUNTS_BUCKET`]): accounts made for the purpose
    /// cannot each spend their allowance on third parties without bound,
    /// so all mails of this kind stay within twice that limit an hour.
    pub(super) fn charge_strangers(
        &self,
        conn: &Connection,
        mails: Vec<Reply>,
        sender: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<Reply>, ServerError> {
        let limit = self.config.limits.unconfirmed_mails_per_hour;
        let mut kept = Vec::with_capacity(mails.len());
        // Not sent: past the mail's count, the server's hour, the account's.
        let mut unsent: [Vec<String>; 3] = Default::default();
        let mut strangers = 0;
        for mail in mails {
            if mail.to.eq_ignore_ascii_case(sender) || store::is_confirmed_address(conn, &mail.to)?
            {
                kept.push(mail);
                continue;
            }
            strangers += 1;
            let over = if strangers > confirm::STRANGER_MAILS_PER_MAIL {
                Some(0)
            } else {
                stranger_bucket_over(conn, &mail.to, sender, limit, now)?
            };
            match over {
                None => kept.push(mail),
                Some(which) => {
                    store::forget_confirmation_mail(conn, &mail.to, now)?;
                    if !unsent[which].contains(&mail.to) {
                        unsent[which].push(mail.to);
                    }
                }
            }
        }
        if let Some(text) = confirm::not_sent_text(&unsent, limit, now) {
            kept.push(Reply {
                to: sender.to_string(),
                subject: "Not sent".to_string(),
                body: self.notice_body(&text)?,
                reply_key: None,
                codes: Vec::new(),
                board: None,
                picture: None,
            });
        }
        Ok(kept)
    }
}

/// Charge a mail to the stranger `to` caused by `sender`'s mail to its
/// hourly buckets; `None` when it was charged, else the bucket it is over
/// (1: the server's hour, 2: the asking account's allowance), uncharged.
fn stranger_bucket_over(
    conn: &Connection,
    to: &str,
    sender: &str,
    limit: u32,
    now: DateTime<Utc>,
) -> Result<Option<usize>, ServerError> {
    // Each bucket: its key, its hourly limit, and the list of those not
    // sent past it.
    let buckets = match confirm::asking_account(conn, to, sender, now)? {
        Some(userid) => vec![
            (
                format!("unconfirmed-mails:{userid}"),
                confirm::STRANGER_MAILS_PER_ACCOUNT_PER_HOUR,
                2,
            ),
            (confirm::ACCOUNTS_BUCKET.to_string(), limit, 1),
        ],
        None => vec![("unconfirmed-mails".to_string(), limit, 1)],
    };
    for (key, limit, which) in &buckets {
        let used = store::commands_this_hour(conn, store::CountScope::Server, key, now)?;
        if used >= *limit {
            return Ok(Some(*which));
        }
    }
    for (key, _, _) in &buckets {
        store::count_command(conn, store::CountScope::Server, key, now)?;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SystemClock;
    use crate::config::Config;
    use crate::server::templates::Templates;

    fn with_server(f: impl FnOnce(&Server<'_>, &Connection)) {
        let conn = store::open_in_memory().unwrap();
        let config = Config::default();
        let templates = Templates::load(None).unwrap();
        let server = Server::new(&config, &SystemClock, &templates);
        f(&server, &conn);
    }

    fn reply(to: &str, subject: &str, body: &str) -> Reply {
        Reply {
            to: to.into(),
            subject: subject.into(),
            body: body.into(),
            reply_key: None,
            codes: Vec::new(),
            board: None,
            picture: None,
        }
    }

    #[test]
    fn a_mail_showing_a_code_is_one_row_with_the_code_and_a_fixed_message_id() {
        with_server(|server, conn| {
            let now = Utc::now();
            let subject = confirm::subject("carol", "K7Q3P9");
            let body = format!("Reply keeping the Subject:\n  {subject}\n");
            let mail = reply("c@x.test", &subject, &body).showing_code("K7Q3P9");
            let cause = Some("m1@players.test");
            server
                .queue_grouped(conn, vec![mail], Some("c@x.test"), cause, now)
                .unwrap();
            let due = store::due_mail(conn, now).unwrap();
            let [row] = due.as_slice() else {
                panic!("{due:?}")
            };
            assert_eq!(row.secrets, ["K7Q3P9"]);
            assert_eq!(row.mail.in_reply_to.as_deref(), Some("m1@players.test"));
            let key = store::message_id_key(conn).unwrap();
            let domain = server.config.server.domain();
            let made = crate::mail::outgoing_message_id(&row.mail, row.id, domain, &key);
            assert_eq!(row.message_id.as_deref(), Some(made.as_str()));
            assert_eq!(row.log_subject(), "confirm address carol ******");
            // Sent: the code is blanked, the Message-ID still names the row.
            store::mark_sent(conn, row.id, now).unwrap();
            let (subject, message_id): (String, String) = conn
                .query_row(
                    "SELECT subject, message_id FROM outbox WHERE id = ?1",
                    [row.id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            assert_eq!(subject, "confirm address carol ******");
            assert_eq!(message_id, made);
        });
    }

    #[test]
    fn a_mail_without_codes_keeps_no_secret_and_no_message_id_of_its_own() {
        with_server(|server, conn| {
            let now = Utc::now();
            let mail = reply("bob@x.test", "Chess Board 101", "Your move.\n");
            server
                .queue_grouped(conn, vec![mail], Some("a@x.test"), Some("m1@p"), now)
                .unwrap();
            let due = store::due_mail(conn, now).unwrap();
            assert_eq!(due.len(), 1);
            assert!(due[0].secrets.is_empty());
            assert_eq!(due[0].message_id, None);
            // Not the sender's: it answers no mail.
            assert_eq!(due[0].mail.in_reply_to, None);
        });
    }

    #[test]
    fn a_joined_answer_shows_the_codes_of_its_parts_once() {
        with_server(|server, _| {
            let sender = "c@x.test";
            let replies = vec![
                reply(sender, "Welcome", "confirm address carol K7Q3P9").showing_code("K7Q3P9"),
                reply(sender, "Settings", "Noted.").showing_code("K7Q3P9"),
                reply("d@x.test", "confirm address carol M4N6P7", "code").showing_code("M4N6P7"),
            ];
            let mails = server.group(replies, Some(sender)).unwrap();
            let codes: Vec<(&str, &[String])> = mails
                .iter()
                .map(|m| (m.to.as_str(), m.codes.as_slice()))
                .collect();
            assert_eq!(
                codes,
                [
                    (sender, &["K7Q3P9".to_string()][..]),
                    ("d@x.test", &["M4N6P7".to_string()][..])
                ]
            );
            assert!(mails[0].subject.ends_with("answers (2 parts)"));
        });
    }
}
