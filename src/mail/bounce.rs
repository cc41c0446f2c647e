//! Reading a delivery status notification (RFC 3464): which recipient of
//! which mail of ours failed for good.
//!
//! Pure text work on the raw bounce; whether it counts is decided by the
//! caller (`server::bounces::note`), which believes a bounce only when the
//! original Message-ID it quotes is one the server sent to that very
//! recipient: anyone can mail the server a forged DSN, but only the
//! recipient's mail system saw the Message-ID of the mail to them.

/// A hard bounce read from a DSN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bounce {
    /// The `Final-Recipient` whose `Action` is `failed`, ASCII lower case.
    pub recipient: String,
    /// The `Message-ID` (without brackets) of the mail that bounced, from
    /// the returned headers after the status part; `None` when not returned.
    pub original_message_id: Option<String>,
}

/// The failed recipient of a DSN: the first per-recipient block of its
/// `message/delivery-status` part with `Action: failed` and a
/// `Final-Recipient` (`rfc822; address`), and the original Message-ID
/// from the returned message or headers that follow. `None` for anything
/// else (no such part, only delayed/delivered/relayed actions).
pub(crate) fn hard_bounce(raw: &[u8]) -> Option<Bounce> {
    let text = String::from_utf8_lossy(raw);
    let lower = text.to_ascii_lowercase();
    let start = lower.find("message/delivery-status")?;
    // The status part's fields begin after the part's own header (a blank line).
    let after_type = &text[start..];
    let body_at = after_type
        .find("\r\n\r\n")
        .map(|i| i + 4)
        .into_iter()
        .chain(after_type.find("\n\n").map(|i| i + 2))
        .min()?;
    let status = &after_type[body_at..];
    let mut recipient: Option<String> = None;
    let mut failed = false;
    let mut found = None;
    let mut consumed = 0;
    for line in status.split_inclusive('\n') {
        consumed += line.len();
        let line = line.trim_end_matches(['\r', '\n']);
        if line.starts_with("--") {
            break; // the next MIME part
        }
        if line.trim().is_empty() {
            if failed && recipient.is_some() {
                found = recipient.take();
                break;
            }
            recipient = None;
            failed = false;
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "final-recipient" => {
                let address = value.split_once(';').map_or(value, |(_, a)| a);
                let address = address.trim().trim_matches(['<', '>']).to_ascii_lowercase();
                if address.contains('@') && !address.contains(char::is_whitespace) {
                    recipient = Some(address);
                }
            }
            "action" => failed = value.trim().eq_ignore_ascii_case("failed"),
            _ => {}
        }
    }
    let recipient = match found {
        Some(r) => r,
        None if failed => recipient?,
        None => return None,
    };
    let rest = &status[consumed.min(status.len())..];
    let original_message_id = rest.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        if !name.trim().eq_ignore_ascii_case("message-id") {
            return None;
        }
        let value = value.trim();
        let id = value.strip_prefix('<')?.split('>').next()?;
        (!id.is_empty()).then(|| id.to_string())
    });
    Some(Bounce {
        recipient,
        original_message_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DSN as Postfix writes it, for `to` with `action`, returning the
    /// headers of the mail `id`.
    pub(crate) fn dsn(to: &str, action: &str, id: &str) -> String {
        format!(
            "From: MAILER-DAEMON@mx.test (Mail Delivery System)\r\n\
             To: pbm@games.test\r\n\
             Subject: Undelivered Mail Returned to Sender\r\n\
             Message-ID: <dsn1@mx.test>\r\n\
             Auto-Submitted: auto-replied\r\n\
             MIME-Version: 1.0\r\n\
             Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\
             \r\n\
             --B\r\n\
             Content-Type: text/plain\r\n\
             \r\n\
             I'm sorry to have to inform you that your message could not be delivered.\r\n\
             \r\n\
             --B\r\n\
             Content-Type: message/delivery-status\r\n\
             \r\n\
             Reporting-MTA: dns; mx.test\r\n\
             \r\n\
             Final-Recipient: rfc822; {to}\r\n\
             Original-Recipient: rfc822;{to}\r\n\
             Action: {action}\r\n\
             Status: 5.1.1\r\n\
             Diagnostic-Code: smtp; 550 5.1.1 no such user\r\n\
             \r\n\
             --B\r\n\
             Content-Type: text/rfc822-headers\r\n\
             \r\n\
             From: pbmchess <pbm@games.test>\r\n\
             To: {to}\r\n\
             Message-ID: <{id}>\r\n\
             \r\n\
             --B--\r\n"
        )
    }

    #[test]
    fn a_failed_recipient_and_the_original_message_id_are_read() {
        let b = hard_bounce(
            dsn("Alice@Players.test", "failed", "pbmchess.7.abc@games.test").as_bytes(),
        )
        .unwrap();
        assert_eq!(b.recipient, "alice@players.test");
        assert_eq!(
            b.original_message_id.as_deref(),
            Some("pbmchess.7.abc@games.test")
        );
    }

    #[test]
    fn delays_and_plain_mail_are_no_hard_bounce() {
        assert_eq!(
            hard_bounce(dsn("a@p.test", "delayed", "x@y").as_bytes()),
            None
        );
        assert_eq!(
            hard_bounce(dsn("a@p.test", "delivered", "x@y").as_bytes()),
            None
        );
        assert_eq!(hard_bounce(b"From: a@p.test\r\nSubject: hi\r\n\r\nFinal-Recipient: rfc822; b@p.test\r\nAction: failed\r\n"), None);
        assert_eq!(hard_bounce(b""), None);
    }

    #[test]
    fn a_dsn_without_returned_headers_has_no_original_id() {
        let raw = dsn("a@p.test", "failed", "x@y");
        let cut = &raw[..raw
            .find("--B\r\nContent-Type: text/rfc822-headers")
            .unwrap()];
        let b = hard_bounce(cut.as_bytes()).unwrap();
        assert_eq!(b.original_message_id, None);
    }
}
