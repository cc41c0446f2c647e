//! What the IMAP inbox and the SMTP transport both need before they
//! connect: the password (from `password` or `password_file`), the extra
//! trusted certificates of `tls_ca_file`, and whether a host is the
//! loopback interface (where a connection without TLS is to be expected);
//! and the host's addresses, looked up within a bound.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use super::config::Secret;
use super::MailError;

/// The addresses of `host`, looked up within `timeout`.
///
/// The system's resolver has no timeout of its own that a caller can set
/// (a dead DNS server holds `getaddrinfo` for its configured retries), so
/// the lookup runs on a thread of its own and is given up after
/// `timeout`, as a connection would be. A lookup given up finishes on its
/// thread later and is dropped; the resolver's own retries bound how long
/// that thread lives.
pub(crate) fn lookup(host: &str, port: u16, timeout: Duration) -> std::io::Result<Vec<SocketAddr>> {
    let (tx, rx) = mpsc::channel();
    let name = host.to_string();
    std::thread::Builder::new()
        .name("dns lookup".into())
        .spawn(move || {
            let found = (name.as_str(), port)
                .to_socket_addrs()
                .map(|a| a.collect::<Vec<_>>());
            let _ = tx.send(found);
        })?;
    rx.recv_timeout(timeout).unwrap_or_else(|_| {
        Err(std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!(
                "no answer from the name service within {} s",
                timeout.as_secs()
            ),
        ))
    })
}

/// Reads a PEM certificate file named by `tls_ca_file`.
pub(crate) fn read_ca_file(
    path: Option<&Path>,
    section: &str,
) -> Result<Option<Vec<u8>>, MailError> {
    path.map(|p| {
        std::fs::read(p)
            .map_err(|e| MailError::Config(format!("[{section}] tls_ca_file {}: {e}", p.display())))
    })
    .transpose()
}

/// The password from `password` or `password_file` (first line, without
/// its line end); an error when both are given or the file is unreadable.
pub(crate) fn resolve_password(
    password: Option<&Secret>,
    password_file: Option<&Path>,
    section: &str,
) -> Result<Option<Secret>, MailError> {
    match (password, password_file) {
        (Some(_), Some(_)) => Err(MailError::Config(format!(
            "[{section}] has both password and password_file: keep one"
        ))),
        (Some(p), None) => Ok(Some(p.clone())),
        (None, Some(file)) => {
            let text = std::fs::read_to_string(file).map_err(|e| {
                MailError::Config(format!("[{section}] password_file {}: {e}", file.display()))
            })?;
            let line = text.lines().next().unwrap_or("");
            Ok(Some(Secret::new(line)))
        }
        (None, None) => Ok(None),
    }
}

/// Whether `host` names the loopback interface (`localhost`, `127.x.x.x`,
/// `::1`, with or without brackets).
pub(crate) fn is_loopback(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.eq_ignore_ascii_case("localhost")
        || h.parse::<std::net::IpAddr>()
            .map(|ip| ip.is_loopback())
            .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_file_is_read_and_both_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("pw");
        std::fs::write(&file, "from-file\nignored\n").unwrap();
        let got = resolve_password(None, Some(&file), "inbox")
            .unwrap()
            .unwrap();
        assert_eq!(got.expose(), "from-file");
        let p = Secret::new("x");
        assert!(resolve_password(Some(&p), Some(&file), "inbox").is_err());
        let err = resolve_password(None, Some(&tmp.path().join("missing")), "inbox").unwrap_err();
        assert!(err.to_string().contains("password_file"));
        assert!(resolve_password(None, None, "inbox").unwrap().is_none());
    }

    #[test]
    fn a_lookup_gives_addresses_and_an_unknown_name_fails() {
        let found = lookup("127.0.0.1", 25, Duration::from_secs(5)).unwrap();
        assert_eq!(found, vec![SocketAddr::from(([127, 0, 0, 1], 25))]);
        assert!(lookup("no-such-host.invalid", 25, Duration::from_secs(5)).is_err());
    }

    #[test]
    fn loopback_hosts() {
        assert!(is_loopback("localhost"));
        assert!(is_loopback("127.0.0.2"));
        assert!(is_loopback("[::1]"));
        assert!(!is_loopback("mail.example.org"));
    }
}
