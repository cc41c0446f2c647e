//! What one mail learnt while its commands ran, and the masking of the
//! passwords it showed.

use std::cell::{Cell, RefCell};

use rusqlite::Connection;

use super::super::{masking, Reply, ServerError};
use super::Kind;
use crate::store;

#[derive(Default)]
pub(crate) struct Session {
    /// Passwords verified right: masked in the answers to the sender and in
    /// the log line.
    pub(super) secrets: RefCell<masking::Hidden>,
    /// Words that may be a password (a nonexistent userid, the words after
    /// a wrong password): masked in the quotes of commands, the comment
    /// quoted back and the log line.
    pub(super) hidden: RefCell<masking::Hidden>,
    /// Userids given a wrong password (or code) by the command in hand,
    /// counted after its savepoint.
    pub(super) failures: RefCell<Vec<(String, Kind)>>,
    /// Userids whose password was right in the command in hand.
    pub(super) verified: RefCell<Vec<String>>,
    /// Buckets whose lockout this mail has already told.
    pub(super) told_locked: RefCell<Vec<String>>,
    /// Limits this mail has already told of (`server`, `address`,
    /// `checks`, or a userid).
    pub(super) told_limits: RefCell<Vec<String>>,
    /// The command in hand as quoted (password masked).
    pub(super) quote: RefCell<String>,
    /// The command in hand was refused with a sentence this mail already
    /// sent: no answer.
    pub(super) quiet: Cell<bool>,
    /// Argon2id verifications this mail made.
    pub(super) checks: Cell<u32>,
    /// Every charge this mail wrote, in order (see [`Session::lasting`]).
    pub(super) ledger: RefCell<Vec<super::charges::Replay>>,
    /// Lockout notices this mail made: sent even when its answers are
    /// rolled back.
    pub(super) notices: RefCell<Vec<Reply>>,
    /// Whether the sender's address is confirmed, once read (see
    /// [`Session::sender_confirmed`]).
    pub(super) sender_confirmed: Cell<Option<bool>>,
    /// The mail is a reply to a board mail (see [`quote`](super::quote)).
    pub(super) reply: Cell<bool>,
    /// The receiving MTA did not authenticate the mail's From while
    /// `[security] authserv_id` is set: no address of it is on file.
    pub(super) from_unproved: Cell<bool>,
    /// The mail is the web site's move form (see
    /// [`Session::came_by_web_form`]).
    pub(super) web_form: Cell<bool>,
    /// The passwords this mail's checks answered: userid, stored hash,
    /// password (lower-cased), right or not (see
    /// [`checked_before`](super::throttle::checked_before)).
    pub(super) checked: RefCell<Vec<(String, String, String, bool)>>,
    /// Userids whose password (or reply token) this mail proved.
    pub(super) proved: RefCell<Vec<String>>,
    /// New passwords hashed before the mail's transaction (see
    /// [`new_password_hash`](super::new_password_hash)).
    pub(super) prepared: RefCell<Vec<crate::server::credentials::PreparedHash>>,
    /// Passwords checked before the mail's transaction (see
    /// [`check_password`](super::throttle::check_password)).
    pub(super) prechecks: Vec<crate::server::credentials::PreparedCheck>,
    /// The mail's argon2id work was done before its transaction: a check
    /// not made then is not made in it (see
    /// [`check_password`](super::throttle::check_password)).
    pub(super) prepared_ahead: bool,
}

impl Session {
    /// The session of a mail; `reply` when it is a reply to a board mail.
    pub(crate) fn for_reply(reply: bool) -> Session {
        let session = Session::default();
        session.reply.set(reply);
        session
    }

    /// A mail whose From the receiving MTA did not authenticate
    /// (`[security] authserv_id` set): no address of it counts as on file.
    pub(crate) fn sent_unauthenticated(&self) {
        self.from_unproved.set(true);
    }

    /// The mail is the web site's move form, its sender the client's own
    /// web address: no address of it is on file for any account, and a
    /// password it gives is refused while any bucket of its account, or
    /// the client's own, is locked (see [`throttle`](super::throttle)).
    pub(crate) fn came_by_web_form(&self) {
        self.from_unproved.set(true);
        self.web_form.set(true);
    }

    /// Whether the mail's From is unauthenticated (see
    /// [`Session::sent_unauthenticated`]).
    pub(crate) fn sender_unproved(&self) -> bool {
        self.from_unproved.get()
    }

    /// The argon2id work done for this mail before its transaction: the
    /// new passwords' hashes are charged to its budget now, the checks
    /// when a command asks for them (see
    /// [`check_password`](super::throttle::check_password)).
    pub(crate) fn prepared(&mut self, prepared: crate::server::credentials::Prepared) {
        let n = u32::try_from(prepared.hashes.len()).unwrap_or(u32::MAX);
        self.checks.set(self.checks.get().saturating_add(n));
        *self.prepared.borrow_mut() = prepared.hashes;
        self.prechecks = prepared.checks;
        self.prepared_ahead = prepared.made;
    }

    /// Whether this mail proved an account that has `address` among its
    /// confirmed addresses (see [`answer_may_go`](super::answer_may_go)).
    pub(super) fn proved_address(
        &self,
        conn: &Connection,
        address: &str,
    ) -> Result<bool, ServerError> {
        for userid in self.proved.borrow().iter() {
            if let Some(user) = store::user(conn, userid)? {
                if user
                    .confirmed_addresses()
                    .any(|a| a.eq_ignore_ascii_case(address))
                {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Start a command: `quote` is its masked line.
    pub(crate) fn begin(&self, quote: &str) {
        *self.quote.borrow_mut() = quote.to_string();
        self.verified.borrow_mut().clear();
        self.quiet.set(false);
    }

    /// Whether the command in hand was refused with a repeated sentence.
    pub(crate) fn quiet(&self) -> bool {
        self.quiet.get()
    }

    /// Whether the command in hand proved `userid`'s password right.
    pub(crate) fn verified(&self, userid: &str) -> bool {
        self.verified
            .borrow()
            .iter()
            .any(|u| u.eq_ignore_ascii_case(userid))
    }

    /// A wrong password for `userid`: counted after the command.
    pub(crate) fn failed(&self, userid: &str) {
        self.failures
            .borrow_mut()
            .push((userid.to_string(), Kind::Password));
    }

    /// A wrong confirmation code for `userid`: counted after the command,
    /// apart from wrong passwords.
    pub(crate) fn failed_code(&self, userid: &str) {
        self.failures
            .borrow_mut()
            .push((userid.to_string(), Kind::Code));
    }

    pub(super) fn add_secret(&self, secret: &str) {
        self.secrets.borrow_mut().insert(secret);
    }

    /// Mask `word` in the quotes, the quoted comments and the log line of
    /// this mail.
    pub(super) fn hide(&self, word: &str) {
        self.hidden.borrow_mut().insert(word);
    }

    /// `text` with every password this mail showed masked.
    pub(crate) fn mask(&self, text: &str) -> String {
        self.secrets.borrow().mask(text)
    }

    /// A command's quote (or the Subject, for the log) with every password
    /// and every word that may be one masked.
    pub(crate) fn mask_quote(&self, quote: &str) -> String {
        self.mask(&self.hidden.borrow().mask(quote))
    }

    /// Every reply to `sender` with the passwords this mail showed masked;
    /// the replies to anyone else are left as they are (see the rulings:
    /// no text another receives depends on what a password is).
    pub(crate) fn mask_replies(&self, replies: &mut [Reply], sender: &str) {
        let secrets = self.secrets.borrow();
        if secrets.is_empty() {
            return;
        }
        for r in replies
            .iter_mut()
            .filter(|r| r.to.eq_ignore_ascii_case(sender))
        {
            r.subject = secrets.mask(&r.subject);
            r.body = secrets.mask(&r.body);
        }
    }

    /// Whether `sender` (the mail's) is a confirmed address; `None` (the
    /// admin CLI) counts as confirmed. Read from the store once a mail:
    /// a mail's commands cannot confirm the address of a command after
    /// them that quotes a comment (a `multiple` quotes none, every other
    /// mail holds one command).
    pub(crate) fn sender_confirmed(
        &self,
        conn: &Connection,
        sender: Option<&str>,
    ) -> Result<bool, ServerError> {
        if let Some(known) = self.sender_confirmed.get() {
            return Ok(known);
        }
        let confirmed = match sender {
            Some(sender) => store::is_confirmed_address(conn, sender)?,
            None => true,
        };
        self.sender_confirmed.set(Some(confirmed));
        Ok(confirmed)
    }

    /// The lockout notices this mail made (for a mail whose other answers
    /// were rolled back).
    pub(crate) fn notices(&self) -> Vec<Reply> {
        self.notices.borrow().clone()
    }

    pub(super) fn told(list: &RefCell<Vec<String>>, key: &str) -> bool {
        let mut list = list.borrow_mut();
        if list.iter().any(|k| k == key) {
            return true;
        }
        list.push(key.to_string());
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verified_password_is_masked_only_in_the_answers_to_the_sender() {
        let session = Session::default();
        session.add_secret("Lion7");
        let reply = |to: &str| Reply {
            to: to.to_string(),
            subject: "Chess Board 101".to_string(),
            body: "Observers: lion7, tiger99".to_string(),
            reply_key: None,
            codes: Vec::new(),
            board: None,
            picture: None,
        };
        let mut replies = vec![reply("A@x"), reply("b@x")];
        session.mask_replies(&mut replies, "a@x");
        assert_eq!(replies[0].body, "Observers: *****, tiger99");
        assert_eq!(replies[1].body, "Observers: lion7, tiger99");
    }
}
