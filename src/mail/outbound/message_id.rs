//! The Message-ID of an outgoing mail: keyed from its outbox row, with
//! a shape of its own for error mails so that an answer to one is known.

use sha2::{Digest, Sha256};

use crate::hex::encode as hex;
use crate::mail::Outgoing;

/// The Message-ID (without angle brackets)
/// [`build_message`](super::build_message) gives the outbox row
/// `outbox_id`: `pbmchess.<id>.<16 hex>@<domain of from>`, the hex being
/// a hash of the row keyed with `key` (the server's secret,
/// `store::message_id_key`): stable for the row, so a resend after a crash
/// carries the same Message-ID, and unpredictable to anyone without the
/// key, so that no one can quote the id of a mail sent to someone else in
/// a forged bounce (see `server::bounces`). The hash is SHA-256 over the
/// key and the row's parts, each prefixed with its length; only 64 bits
/// of it are shown.
///
/// Ruling: this stays SHA-256 over the length-prefixed key and parts, not
/// HMAC. The id is worked out again from the row long after the mail went
/// (a bounce quoting it, a resend after a crash, the outbox Maildir's file
/// key), across restarts and upgrades; HMAC-SHA256 gives other bytes, so a
/// switch would leave every mail sent before it unrecognised. The
/// construction is sound for this use: the key comes first with its
/// length, and only 64 of the 256 bits are shown, so the length extension
/// HMAC guards against has no state to start from.
pub fn outgoing_message_id(
    out: &Outgoing,
    outbox_id: i64,
    from_domain: &str,
    key: &[u8],
) -> String {
    let mut h = Sha256::new();
    let row = outbox_id.to_string();
    for part in [
        key,
        row.as_bytes(),
        out.to.as_bytes(),
        out.subject.as_bytes(),
        out.body.as_bytes(),
        out.in_reply_to.as_deref().unwrap_or("").as_bytes(),
    ] {
        h.update((part.len() as u64).to_be_bytes());
        h.update(part);
    }
    let digest = hex(&h.finalize());
    let kind = if is_error_subject(&out.subject) {
        ERROR_ID_SUFFIX
    } else {
        ""
    };
    format!("pbmchess.{outbox_id}.{}{kind}@{from_domain}", &digest[..16])
}

/// What ends the local part of an error mail's Message-ID
/// (`pbmchess.<id>.<hash>.error@<domain>`), so that a mail answering one
/// is recognised: it is never answered with another error (two servers
/// must not ping-pong errors).
const ERROR_ID_SUFFIX: &str = ".error";

/// Whether a mail with this Subject is an error mail: the server's error
/// mails are titled `Error`, `<Game> Error` or `<Game> Board <n> Error`.
pub(crate) fn is_error_subject(subject: &str) -> bool {
    subject == "Error" || subject.ends_with(" Error")
}

/// Whether `id` (without brackets) is the Message-ID of one of our error
/// mails: our shape, in the domain of our `address` (which may be
/// `Name <address>`).
pub(crate) fn is_error_message_id(id: &str, address: &str) -> bool {
    let address = address.trim().trim_end_matches('>');
    let Some((_, domain)) = address.rsplit_once('@') else {
        return false;
    };
    match id.rsplit_once('@') {
        Some((local, d)) => {
            d.eq_ignore_ascii_case(domain)
                && local.starts_with("pbmchess.")
                && local.ends_with(ERROR_ID_SUFFIX)
        }
        None => false,
    }
}

/// A Message-ID (without brackets) safe to put in a header.
pub(super) fn is_message_id(id: &str) -> bool {
    id.contains('@')
        && !id.starts_with("hash:")
        && id.len() <= 900
        && id
            .bytes()
            .all(|b| b.is_ascii_graphic() && b != b'<' && b != b'>')
}

#[cfg(test)]
mod tests {
    use super::super::message::tests::{row, FROM, KEY};
    use super::*;

    #[test]
    fn message_id_is_keyed_with_the_servers_secret() {
        // The same row under another key: another id, so that without the
        // key no one can work out the id of a mail sent to someone else.
        let a = outgoing_message_id(&row(), 7, "chess.example", KEY);
        let b = outgoing_message_id(&row(), 7, "chess.example", b"another key");
        assert_ne!(a, b);
        assert_eq!(a, outgoing_message_id(&row(), 7, "chess.example", KEY));
        // Nothing of the unkeyed hash of the row shows.
        let mut h = Sha256::new();
        for part in [&row().to, &row().subject, &row().body, "abc@example.org"] {
            h.update((part.len() as u64).to_be_bytes());
            h.update(part.as_bytes());
        }
        let unkeyed = hex(&h.finalize());
        assert!(!a.contains(&unkeyed[..16]), "{a}");
    }

    #[test]
    fn error_mails_have_a_message_id_of_their_own_shape() {
        let mut out = row();
        for subject in ["Error", "Chess Error", "Chess Board 101 Error"] {
            out.subject = subject.into();
            let id = outgoing_message_id(&out, 9, "chess.example", KEY);
            assert!(is_error_message_id(&id, FROM), "{id}");
            assert!(!is_error_message_id(&id, "pbm@other.example"), "{id}");
        }
        for subject in ["Chess Board 101 bob", "Errors of mine", "Password changed"] {
            out.subject = subject.into();
            let id = outgoing_message_id(&out, 9, "chess.example", KEY);
            assert!(!is_error_message_id(&id, FROM), "{id}");
            assert!(id.starts_with("pbmchess.9."), "{id}");
        }
        assert!(!is_error_message_id("t.abc@chess.example", FROM));
        assert!(!is_error_message_id("x.error@chess.example", FROM));
    }
}
