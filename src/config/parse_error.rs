//! The sentence for config text that does not parse, never quoting a value.

use super::secrets::SHORTEST_SCRUBBED;

/// Keys whose values are secrets: a value under a key whose name contains
/// one of these is never quoted in an error (nor is any other value: see
/// [`describe_error`]; this is the second line of defence).
const SECRET_KEYS: [&str; 5] = ["password", "secret", "token", "url", "pass"];

/// The sentence for config text that does not parse: the line and column,
/// the key on that line and its section, and what is wrong, e.g.
/// ``line 7, column 12 (key `port` in [outbox]): invalid type: string,
/// expected u16``.
///
/// It never quotes the config: the toml crate's own `Display` shows the
/// failing line, which may hold a password, and that message reaches the
/// MTA's bounce to a player (exit 78 of `process`), stderr and the log.
/// Values that the parser's message quotes (`invalid type: string
/// "..."`, ``unknown variant `...` ``) are left out, and as a last guard
/// any value of a secret key (`SECRET_KEYS`) is masked should it still
/// appear. Key names are kept: they are what the admin must fix.
pub(crate) fn describe_error(e: &toml::de::Error, text: &str) -> String {
    let message = strip_values(e.message());
    let message = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    let message = mask_secret_values(&message, text);
    let Some(span) = e.span() else {
        return message;
    };
    let start = span.start.min(text.len());
    let start = (0..=start)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    let before = &text[..start];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..start].chars().count() + 1;
    let mut place = format!("line {line}, column {column}");
    let line_text = text[line_start..].lines().next().unwrap_or("");
    let key = key_of(line_text);
    // A section read as a whole (`[inbox]`, `[outbox]`: their `kind`
    // picks the fields) reports errors at its header line.
    let section = section_of(line_text.trim()).or_else(|| {
        before
            .lines()
            .rev()
            .filter_map(|l| section_of(l.trim()))
            .next()
    });
    match (key, section) {
        (Some(k), Some(s)) => place.push_str(&format!(" (key `{k}` in [{s}])")),
        (Some(k), None) => place.push_str(&format!(" (key `{k}`)")),
        (None, Some(s)) => place.push_str(&format!(" (in [{s}])")),
        (None, None) => {}
    }
    format!("{place}: {message}")
}

/// The key of a `key = value` line, when it is a plain (bare or dotted) key.
fn key_of(line: &str) -> Option<&str> {
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    plain.then_some(key)
}

/// The name of a `[section]` or `[[section]]` header line.
fn section_of(line: &str) -> Option<&str> {
    let name = line.strip_prefix('[')?.split(']').next()?;
    let name = name.trim_start_matches('[').trim();
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    plain.then_some(name)
}

/// The parser's message without the values it quotes: `"..."` strings
/// and the `` `...` `` after `invalid type:`, `invalid value:` and
/// `unknown variant` (serde's wording). Key names in `` `...` `` (unknown
/// field, expected one of) stay.
fn strip_values(message: &str) -> String {
    /// Words after which serde quotes a value in backquotes.
    const BEFORE_VALUE: [&str; 8] = [
        "invalid type:",
        "invalid value:",
        "unknown variant",
        "integer",
        "floating point",
        "boolean",
        "character",
        "string",
    ];
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                // A quoted string: skipped up to its closing quote.
                let mut escaped = false;
                for q in chars.by_ref() {
                    match q {
                        '\\' if !escaped => escaped = true,
                        '"' if !escaped => break,
                        _ => escaped = false,
                    }
                }
                out.push_str("(value left out)");
            }
            '`' if BEFORE_VALUE.iter().any(|w| out.trim_end().ends_with(w)) => {
                for q in chars.by_ref() {
                    if q == '`' {
                        break;
                    }
                }
                out.push_str("(value left out)");
            }
            c => out.push(c),
        }
    }
    out
}

/// `message` with every value of a secret key ([`SECRET_KEYS`]) in `text`
/// replaced by `*****`.
fn mask_secret_values(message: &str, text: &str) -> String {
    let mut message = message.to_string();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        if !SECRET_KEYS.iter().any(|s| key.contains(s)) {
            continue;
        }
        let value = value.trim();
        let value = value.trim_matches(|c| c == '"' || c == '\'');
        for v in [value, value.trim()] {
            if v.chars().count() >= SHORTEST_SCRUBBED && message.contains(v) {
                message = message.replace(v, "*****");
            }
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    /// A secret planted in the config, and text that must not leak it.
    const PLANTED: &str = "Pl4nted-S3cret-42";

    fn error_of(text: &str) -> String {
        let e = Config::parse(text).unwrap_err();
        assert!(!e.contains(PLANTED), "the secret leaked: {e}");
        assert!(!e.contains("Pl4nted"), "part of the secret leaked: {e}");
        e
    }

    #[test]
    fn config_errors_name_line_and_key_but_never_a_secret() {
        // A typo on the line after the password: the line number, not the text.
        let e = error_of(&format!(
            "[outbox]\nkind = \"smtp\"\npassword = \"{PLANTED}\"\nport = 58x7\n"
        ));
        assert!(e.contains("line 4"), "{e}");
        // The password's own line broken (no closing quote).
        let e = error_of(&format!(
            "[outbox]\nkind = \"smtp\"\npassword = \"{PLANTED}\nhost = \"h\"\n"
        ));
        assert!(e.contains("line 3"), "{e}");
        // A value of the wrong type under a secret key.
        let e = error_of(&format!(
            "[inbox]\nkind = \"imap\"\nhost = \"h\"\nusername = \"u\"\npassword = [\"{PLANTED}\"]\n"
        ));
        assert!(e.contains("line"), "{e}");
        // A secret where a number belongs: serde quotes the value it got.
        let e = error_of(&format!(
            "[outbox]\nkind = \"smtp\"\nhost = \"h\"\nport = \"{PLANTED}\"\n"
        ));
        assert!(e.contains("line 1") && e.contains("[outbox]"), "{e}");
        let e = error_of(&format!("[server]\nname = \"x\"\nadmins = \"{PLANTED}\"\n"));
        assert!(e.contains("line 3") && e.contains("`admins`"), "{e}");
        // A secret as a kind, a URL with credentials, a key-less line.
        error_of(&format!("[outbox]\nkind = \"{PLANTED}\"\n"));
        error_of(&format!(
            "[outbox]\nkind = \"smtp\"\nurl = \"smtps://u:{PLANTED}@h\"\nurl = \"x\"\n"
        ));
        error_of(&format!("[server]\n{PLANTED}\n"));
        error_of(&format!("[accounts]\npassword_failures = {PLANTED}\n"));
        error_of(&format!("[poll]\ninterval_seconds = -{}\n", 9_i64.pow(3)));
    }
}
