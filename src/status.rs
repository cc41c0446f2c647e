//! `pbmchess status`: what a monitoring check needs to know, from the
//! database and the inbox folder only (no mail server is contacted; that
//! is `pbmchess check`). Text for people, `--json` for machines.
//!
//! Shown: when the last pass of `serve`/`poll` ended (and how long ago),
//! when the last inbound mail was handled (a busy server handles mail
//! though its pass is not over; a stuck one does neither),
//! mail waiting in the inbox (a Maildir's `new/`; an IMAP inbox is not
//! counted), the outbox (waiting, the oldest's age, given up), the
//! quarantine (and mail failing below its limit), the last error of each
//! transport (the inbox's as recorded by the last failing pass; the
//! outbox's is the last error of the newest unsent mail), and the
//! addresses stopped by their bounces.

use chrono::{DateTime, Utc};
use rusqlite::Connection;

use crate::app::{App, AppError};
use crate::mail::InboxConfig;
use crate::store;

/// Everything `status` shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Status {
    pub now: DateTime<Utc>,
    pub state: store::ServiceState,
    /// Mails waiting in a Maildir inbox's `new/`; `None` for IMAP.
    pub inbox_waiting: Option<usize>,
    pub inbox_failing: u32,
    pub quarantined: u32,
    pub bounced: Vec<store::Bounced>,
}

/// Gather the status.
pub(crate) fn status(app: &App, conn: &Connection) -> Result<Status, AppError> {
    let now = app.clock().now();
    let stats = store::stats(conn, now)?;
    let inbox_waiting = match &app.config.inbox {
        InboxConfig::Maildir { path } => Some(
            std::fs::read_dir(path.join("new"))
                .map(|dir| dir.filter(|e| e.is_ok()).count())
                .unwrap_or(0),
        ),
        InboxConfig::Imap(_) => None,
    };
    let mut state = store::service_state(conn)?;
    // Errors were recorded as the transports said them: no secret of the
    // config is shown all the same (see `config::scrub`).
    if let Some((_, e)) = state.inbox_error.as_mut() {
        *e = crate::config::scrub(e);
    }
    if let Some((_, e)) = state.outbox_error.as_mut() {
        *e = crate::config::scrub(e);
    }
    Ok(Status {
        now,
        state,
        inbox_waiting,
        inbox_failing: stats.inbox_failing,
        quarantined: stats.quarantined,
        bounced: store::bounced_addresses(conn)?,
    })
}

fn age_seconds(now: DateTime<Utc>, then: DateTime<Utc>) -> i64 {
    (now - then).num_seconds().max(0)
}

/// `3 h 12 min`, `45 s`, `2 d 4 h`.
fn age_text(seconds: i64) -> String {
    let (d, h, m, s) = (
        seconds / 86_400,
        seconds / 3600 % 24,
        seconds / 60 % 60,
        seconds % 60,
    );
    match (d, h, m) {
        (0, 0, 0) => format!("{s} s"),
        (0, 0, _) => format!("{m} min"),
        (0, _, _) => format!("{h} h {m} min"),
        _ => format!("{d} d {h} h"),
    }
}

fn time(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

impl Status {
    /// The text form, one fact a line.
    pub(crate) fn lines(&self) -> Vec<String> {
        let s = &self.state;
        let mut lines = vec![match s.last_pass_at {
            Some(t) => format!(
                "last pass: {} ({} ago)",
                time(t),
                age_text(age_seconds(self.now, t))
            ),
            None => "last pass: never".to_string(),
        }];
        lines.push(match s.last_mail_at {
            Some(t) => format!(
                "last mail handled: {} ({} ago)",
                time(t),
                age_text(age_seconds(self.now, t))
            ),
            None => "last mail handled: never".to_string(),
        });
        lines.push(match self.inbox_waiting {
            Some(n) => format!("inbox: {n} waiting"),
            None => "inbox: not counted (IMAP; `pbmchess check` logs in)".to_string(),
        });
        lines.push(match &s.inbox_error {
            Some((at, e)) => format!("inbox last error: {} {}", time(*at), one_line(e)),
            None => "inbox last error: none".to_string(),
        });
        lines.push(format!(
            "outbox: {} waiting{}, {} given up",
            s.outbox_waiting,
            match s.outbox_oldest_at {
                Some(t) => format!(" (the oldest for {})", age_text(age_seconds(self.now, t))),
                None => String::new(),
            },
            s.outbox_given_up
        ));
        lines.push(match &s.outbox_error {
            Some((id, e)) => format!("outbox last error: mail {id}: {}", one_line(e)),
            None => "outbox last error: none".to_string(),
        });
        lines.push(format!(
            "quarantine: {} quarantined, {} failing",
            self.quarantined, self.inbox_failing
        ));
        let stopped: Vec<_> = self
            .bounced
            .iter()
            .filter(|b| b.stopped_at.is_some())
            .collect();
        if stopped.is_empty() {
            lines.push("stopped addresses: none".to_string());
        } else {
            lines.push(format!("stopped addresses (bounced): {}", stopped.len()));
            for b in stopped {
                lines.push(format!(
                    "  {} ({} bounces, last {})",
                    crate::limits::log_field(&b.address),
                    b.bounces,
                    time(b.last_at)
                ));
            }
        }
        lines
    }

    /// The JSON form: one object, plain strings and numbers (`null` when
    /// unknown or never); times are RFC 3339, ages in seconds.
    pub(crate) fn json(&self) -> String {
        let s = &self.state;
        let opt_time =
            |t: Option<DateTime<Utc>>| t.map_or("null".to_string(), |t| json_str(&t.to_rfc3339()));
        let opt_age = |t: Option<DateTime<Utc>>| {
            t.map_or("null".to_string(), |t| age_seconds(self.now, t).to_string())
        };
        let stopped: Vec<String> = self
            .bounced
            .iter()
            .filter(|b| b.stopped_at.is_some())
            .map(|b| {
                format!(
                    "{{\"address\":{},\"bounces\":{},\"last_bounce_at\":{}}}",
                    json_str(&b.address),
                    b.bounces,
                    json_str(&b.last_at.to_rfc3339())
                )
            })
            .collect();
        format!(
            "{{\"now\":{},\"last_pass_at\":{},\"last_pass_age_seconds\":{},\
             \"last_mail_at\":{},\"last_mail_age_seconds\":{},\
             \"inbox_waiting\":{},\"inbox_last_error\":{},\"inbox_last_error_at\":{},\
             \"outbox_waiting\":{},\"outbox_oldest_age_seconds\":{},\"outbox_given_up\":{},\
             \"outbox_last_error\":{},\"quarantined\":{},\"inbox_failing\":{},\
             \"stopped_addresses\":[{}]}}",
            json_str(&self.now.to_rfc3339()),
            opt_time(s.last_pass_at),
            opt_age(s.last_pass_at),
            opt_time(s.last_mail_at),
            opt_age(s.last_mail_at),
            self.inbox_waiting
                .map_or("null".to_string(), |n| n.to_string()),
            s.inbox_error
                .as_ref()
                .map_or("null".to_string(), |(_, e)| json_str(e)),
            opt_time(s.inbox_error.as_ref().map(|(t, _)| *t)),
            s.outbox_waiting,
            opt_age(s.outbox_oldest_at),
            s.outbox_given_up,
            s.outbox_error
                .as_ref()
                .map_or("null".to_string(), |(_, e)| json_str(e)),
            self.quarantined,
            self.inbox_failing,
            stopped.join(",")
        )
    }
}

/// An error on one line (a transport's message may span several).
fn one_line(text: &str) -> String {
    crate::limits::log_field(&text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `text` as a JSON string.
pub(crate) fn json_str(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_people_say_them() {
        assert_eq!(age_text(45), "45 s");
        assert_eq!(age_text(600), "10 min");
        assert_eq!(age_text(3 * 3600 + 12 * 60), "3 h 12 min");
        assert_eq!(age_text(2 * 86_400 + 4 * 3600), "2 d 4 h");
    }

    #[test]
    fn json_strings_escape_quotes_and_controls() {
        assert_eq!(json_str("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }
}
