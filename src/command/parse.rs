//! The parser proper.

use super::{ParseError, Parsed, Request};

/// Read one mail: its Subject, and for `multiple` its body lines.
pub fn parse_mail(subject: &str, body: &str) -> Request {
    let _ = (subject, body);
    todo!("command::parse_mail")
}

/// Read one command line (a Subject, or one line of a `multiple` body).
pub fn parse_line(line: &str) -> Result<Parsed, ParseError> {
    let _ = line;
    todo!("command::parse_line")
}
