//! What the IMAP inbox and the SMTP transport both need before they
//! connect: the password (from `password` or `password_file`), the extra
//! trusted certificates of `tls_ca_file`, and whether a host is the
//! loopback interface (where a connection without TLS is to be expected).

use std::path::Path;

use super::config::Secret;
use super::MailError;

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
    fn loopback_hosts() {
        assert!(is_loopback("localhost"));
        assert!(is_loopback("127.0.0.2"));
        assert!(is_loopback("[::1]"));
        assert!(!is_loopback("mail.example.org"));
    }
}
