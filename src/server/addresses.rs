//! Which addresses a command may name as recipients.
//!
//! Ruling: an address a command names (`signup`'s extra address, `change
//! address`) must be an ordinary Internet address, `local@domain.tld`:
//!
//! - it has the shape the mail reader takes from a sender at all
//!   (`mail::parse::is_plausible_address`: plain ASCII, no white space,
//!   control characters or group syntax, and the outbound mail builder
//!   takes it);
//! - the local part does not start with `-` (it could read as an option
//!   to a program that delivers mail) and holds no `%` or `!` (source
//!   routing through another host: `a%b@relay`, `a!b@c`), nor quotes or
//!   a backslash;
//! - the domain is a dotted host name of letters, digits and `-` (no
//!   address literal such as `[127.0.0.1]`, no IP address, no trailing
//!   dot), not `localhost`, and its last label is none of the local or
//!   reserved names [`LOCAL_TLDS`] (`.local`, `.localhost`, `.localdomain`,
//!   `.internal`, `.invalid`, `.test`, `.example`, `.lan`, `.home`, `.arpa`).
//!
//! The address a mail came from is taken as it is (answers go back to it
//! whatever it is; the mail reader checks it): only addresses a command
//! *names*, other than the sender's own, are checked here. The admin CLI
//! (`admin user add`) is trusted and checked only for an address's shape.

use super::Refusal;

/// Last labels of domains that do not route on the Internet (RFC 2606,
/// RFC 6761, RFC 6762, and the names of private networks).
pub(crate) const LOCAL_TLDS: &[&str] = &[
    "local",
    "localhost",
    "localdomain",
    "internal",
    "invalid",
    "test",
    "example",
    "lan",
    "home",
    "arpa",
];

/// Why `address` may not be named as a recipient, or `None` when it may.
pub(crate) fn not_routable(address: &str) -> Option<&'static str> {
    if address.starts_with('-') {
        return Some("starts with '-'");
    }
    if !address.is_ascii() {
        // Mail to it would reach an ASCII look-alike (see
        // `mail::parse::is_plausible_address`).
        return Some("is not plain ASCII");
    }
    let plausible = crate::mail::is_plausible_address(address);
    let Some((local, domain)) = address.rsplit_once('@').filter(|_| plausible) else {
        return Some("is not a mail address");
    };
    if local.contains(['%', '!', '"', '\\', '@']) {
        return Some("routes through another host");
    }
    let domain = domain.to_ascii_lowercase();
    let labels: Vec<&str> = domain.split('.').collect();
    let host_name = labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    if !host_name {
        return Some("does not end in a dotted domain name");
    }
    let last = labels[labels.len() - 1];
    if last.chars().all(|c| c.is_ascii_digit()) {
        return Some("ends in an IP address, not a domain name");
    }
    if LOCAL_TLDS.contains(&last) {
        return Some("names a local or reserved domain");
    }
    None
}

/// [`not_routable`] as the refusal a command gets.
pub(crate) fn check_named(address: &str) -> Result<(), Refusal> {
    match not_routable(address) {
        None => Ok(()),
        Some(why) => Err(Refusal::new(format!(
            "The address \"{address}\" {why}, so this server sends no mail to it; give an ordinary address like alice@example.org."
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_addresses_may_be_named() {
        for good in [
            "alice@example.org",
            "a.b+chess@mail.example.co.uk",
            "x_y@sub-domain.de",
            "1234@players.net",
        ] {
            assert_eq!(not_routable(good), None, "{good}");
        }
    }

    #[test]
    fn local_routed_and_literal_addresses_may_not() {
        for bad in [
            "root@localhost",
            "root@localhost.",
            "a%b@relay.org",
            "a!b@c.org",
            "a@[127.0.0.1]",
            "a@127.0.0.1",
            "-oQ/tmp@example.org",
            "x@host",
            "x@printer.local",
            "x@db.internal",
            "x@box.localdomain",
            "x@foo.localhost",
            "x@players.test",
            "x@a.example",
            "x@nowhere.invalid",
            "x@-bad.org",
            "x@bad..org",
            "x@example.org.",
            "\"a b\"@example.org",
            "a b@example.org",
            "nobody",
            "\u{212a}arl@example.org",
        ] {
            assert!(not_routable(bad).is_some(), "{bad}");
            assert!(check_named(bad).is_err(), "{bad}");
        }
    }
}
