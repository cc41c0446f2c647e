//! The config's secrets, kept out of everything printed or logged.

use std::path::PathBuf;

use super::Config;
use crate::mail::{InboxConfig, OutboxConfig};

/// The secrets of the config loaded last (see [`remember_secrets`]).
static SECRETS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Secrets shorter than this are not scrubbed (they would mangle text);
/// no mail server takes a password that short.
pub(super) const SHORTEST_SCRUBBED: usize = 4;

/// Remember the secrets of `config` (the IMAP and SMTP passwords, the
/// SMTP url, the contents of the password files) so that [`scrub`] can
/// take them out of anything printed or logged: the last guard behind
/// [`crate::mail::Secret`], which keeps them out of `Debug` and `Display`.
pub(crate) fn remember_secrets(config: &Config) {
    let values = secrets_of(config);
    if let Ok(mut secrets) = SECRETS.lock() {
        *secrets = values;
    }
}

/// The secrets of `config` (see [`remember_secrets`]), longest first.
pub(crate) fn secrets_of(config: &Config) -> Vec<String> {
    let mut found = Vec::new();
    let mut file = |path: &Option<PathBuf>| {
        if let Some(text) = path.as_ref().and_then(|p| std::fs::read_to_string(p).ok()) {
            found.push(text.trim().to_string());
            found.extend(text.lines().map(|l| l.trim().to_string()));
        }
    };
    let mut values = Vec::new();
    if let InboxConfig::Imap(imap) = &config.inbox {
        values.extend(imap.password.as_ref().map(|p| p.expose().to_string()));
        file(&imap.password_file);
    }
    if let OutboxConfig::Smtp(smtp) = &config.outbox {
        values.extend(smtp.password.as_ref().map(|p| p.expose().to_string()));
        values.extend(smtp.url.as_ref().map(|u| u.expose().to_string()));
        file(&smtp.password_file);
    }
    values.extend(found);
    values.retain(|v| v.chars().count() >= SHORTEST_SCRUBBED);
    // Longest first, so a secret inside another is not left half shown.
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values.dedup();
    values
}

/// The remembered secrets (see [`remember_secrets`]).
pub(crate) fn secrets() -> Vec<String> {
    SECRETS.lock().map(|s| s.clone()).unwrap_or_default()
}

/// `text` with every remembered secret replaced by `*****`. Every error
/// the binary prints and every log line pass through it.
pub(crate) fn scrub(text: &str) -> String {
    let Ok(secrets) = SECRETS.lock() else {
        return text.to_string();
    };
    scrub_with(text, &secrets)
}

/// `text` with each of `secrets` replaced by `*****`.
pub(crate) fn scrub_with(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_string();
    for secret in secrets {
        if out.contains(secret.as_str()) {
            out = out.replace(secret.as_str(), "*****");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A secret planted in the config, and text that must not leak it.
    const PLANTED: &str = "Pl4nted-S3cret-42";

    #[test]
    fn the_configs_passwords_urls_and_password_files_are_scrubbed_from_text() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("smtp-password");
        std::fs::write(&file, "From-The-File-91\n").unwrap();
        let c = Config::parse(&format!(
            "[inbox]\nkind = \"imap\"\nhost = \"h\"\nusername = \"u\"\npassword = \"{PLANTED}\"\n\
             [outbox]\nkind = \"smtp\"\nhost = \"h\"\nusername = \"u\"\npassword_file = \"{}\"\n",
            file.display()
        ))
        .unwrap();
        let secrets = secrets_of(&c);
        let text = format!("login {PLANTED} failed; file said From-The-File-91.");
        let scrubbed = scrub_with(&text, &secrets);
        assert_eq!(scrubbed, "login ***** failed; file said *****.");
        // Too short to scrub without mangling every text: not taken.
        let short = Config::parse(
            "[inbox]\nkind = \"imap\"\nhost = \"h\"\nusername = \"u\"\npassword = \"abc\"\n",
        )
        .unwrap();
        assert!(secrets_of(&short).is_empty());
        assert!(secrets_of(&Config::default()).is_empty());
    }
}
