//! `Authentication-Results` (RFC 8601): what the receiving MTA found out
//! about a mail's `From`, read so that commands without a password are
//! only taken from mail whose `From` is authenticated (see `[security]
//! authserv_id` and [`super::Envelope::authenticated`]).
//!
//! Rulings:
//!
//! - The header is read by the grammar of RFC 8601 §2.2: `authserv-id
//!   [version]`, then `; none` or one `; method[/version]=result [reason=
//!   value] [ptype.property=pvalue ...]` per result, with quoted strings
//!   (a `;` or `=` in them is text) and `(comments)` (nested, dropped)
//!   anywhere between the parts. A header that does not read cleanly to
//!   its end (an unterminated quote or comment, a word where a `;` or a
//!   property belongs, a property without its value, a header over 8 KiB)
//!   authenticates nothing. Property values may hold `/`, `+`, `:` and
//!   `@` unquoted (base64 signatures, IPv6 addresses, `@domain`), which
//!   MTAs write so.
//! - Only the *topmost* header whose authserv-id equals the configured one
//!   gives the verdict: the receiving MTA adds its header on top (and is
//!   expected to remove older ones carrying its name). Every header below
//!   it may be the sender's, so none of them counts; one of them with our
//!   name that carries a `dmarc` result, or that cannot be read, is an
//!   ambiguity and the mail is not authenticated.
//! - Authenticated means exactly one `dmarc` result in that header, `pass`,
//!   with exactly one `header.from` equal to the From domain (ASCII case
//!   folded; a subdomain or a parent is another domain). Two `dmarc`
//!   results (whatever they say) authenticate nothing: an MTA that writes
//!   a sender's text unquoted (rspamd's `smtp.mailfrom`) lets that text
//!   add results, but never removes the MTA's own `dmarc` result, so a
//!   forged one always shows as a second.
//! - DKIM or SPF alone never authenticates: a sender can add a `dkim=pass`
//!   through such unquoted text that is indistinguishable from a second
//!   signature; DMARC already counts an aligned DKIM signature or SPF
//!   pass. The MTA must therefore write a `dmarc` result for every mail
//!   (OpenDMARC, rspamd's DMARC module: `dmarc=none` for a domain without
//!   a policy, which authenticates nothing).

/// One `method=result` with its properties (`header.from=example.org`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthMethod {
    /// `dkim`, `dmarc`, `spf` ... in lower case, without its version.
    pub method: String,
    /// `pass`, `fail`, `none` ... in lower case.
    pub result: String,
    /// `(ptype.property, value)`, the property in lower case.
    pub props: Vec<(String, String)>,
}

impl AuthMethod {
    /// The values of the property `name` (`header.from`).
    fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.props
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One `Authentication-Results` header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthResults {
    /// The host that wrote it, in lower case.
    pub authserv_id: String,
    pub methods: Vec<AuthMethod>,
    /// Whether the whole header read cleanly; one that did not has no
    /// `methods` and authenticates nothing.
    pub readable: bool,
}

/// Headers are at most this long to be read (a real one is a few hundred
/// bytes; an attacker's may be anything). A longer one keeps its
/// authserv-id and is unreadable.
const MAX_HEADER: usize = 8 * 1024;
/// At most this many headers are kept, topmost first.
pub(crate) const MAX_HEADERS: usize = 20;

/// One lexical part of a header value, comments and white space dropped.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    /// A run of printable ASCII without `;`, `=`, quotes or parentheses.
    Word(String),
    /// A quoted string, unquoted.
    Quoted(String),
    Semicolon,
    Equals,
}

/// The parts of `value`, and whether it was read to its end (false at an
/// unterminated quote or comment, a stray `)` or `\`, a control or
/// non-ASCII character outside quotes and comments).
fn parts(value: &str) -> (Vec<Part>, bool) {
    let mut out = Vec::new();
    let mut chars = value.chars().peekable();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Part>| {
        if !word.is_empty() {
            out.push(Part::Word(std::mem::take(word)));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\r' | '\n' => flush(&mut word, &mut out),
            ';' | '=' => {
                flush(&mut word, &mut out);
                out.push(if c == ';' {
                    Part::Semicolon
                } else {
                    Part::Equals
                });
            }
            '"' => {
                flush(&mut word, &mut out);
                match quoted(&mut chars) {
                    Some(text) => out.push(Part::Quoted(text)),
                    None => return (out, false),
                }
            }
            '(' => {
                flush(&mut word, &mut out);
                if !comment(&mut chars) {
                    return (out, false);
                }
            }
            c if c.is_ascii_graphic() && c != ')' && c != '\\' => word.push(c),
            _ => {
                flush(&mut word, &mut out);
                return (out, false);
            }
        }
    }
    flush(&mut word, &mut out);
    (out, true)
}

/// The rest of a quoted string after its `"`, unquoted; `None` when it
/// does not end.
fn quoted(chars: &mut impl Iterator<Item = char>) -> Option<String> {
    let mut text = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(text),
            '\\' => text.push(chars.next()?),
            '\r' | '\n' | '\0' => return None,
            c => text.push(c),
        }
    }
    None
}

/// Skips the rest of a comment after its `(` (nested comments and quoted
/// pairs in it); false when it does not end.
fn comment(chars: &mut impl Iterator<Item = char>) -> bool {
    let mut depth = 1usize;
    while let Some(c) = chars.next() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return true;
                }
            }
            '\\' if chars.next().is_none() => return false,
            _ => {}
        }
    }
    false
}

/// An RFC 5321 `Keyword` (letters, digits, inner hyphens).
fn is_keyword(w: &str) -> bool {
    !w.is_empty()
        && !w.starts_with('-')
        && !w.ends_with('-')
        && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// An RFC 2045 `token` (no tspecials).
fn is_token(w: &str) -> bool {
    !w.is_empty()
        && !w.contains([
            '(', ')', '<', '>', '@', ',', ';', ':', '\\', '"', '/', '[', ']', '?', '=',
        ])
}

/// A property value written unquoted: a token, an address or `@domain`,
/// or a base64 or IPv6 text (module doc).
fn is_bare_pvalue(w: &str) -> bool {
    !w.is_empty() && !w.contains(['(', ')', '<', '>', ',', ';', '\\', '"', '[', ']', '='])
}

/// The readable tail of a header after its authserv-id (and version):
/// `; none`, or its results; `None` when it does not read cleanly.
fn results(parts: &[Part]) -> Option<Vec<AuthMethod>> {
    if let [Part::Semicolon, Part::Word(none)] = parts {
        if none.eq_ignore_ascii_case("none") {
            return Some(Vec::new());
        }
    }
    let mut methods = Vec::new();
    let mut rest = parts;
    while !rest.is_empty() {
        let (method, after) = resinfo(rest)?;
        methods.push(method);
        rest = after;
    }
    (!methods.is_empty()).then_some(methods)
}

/// One `; method[/version]=result [reason=value] [ptype.property=pvalue
/// ...]` at the start of `parts`, and what follows it.
fn resinfo(parts: &[Part]) -> Option<(AuthMethod, &[Part])> {
    let [Part::Semicolon, Part::Word(method), Part::Equals, Part::Word(result), rest @ ..] = parts
    else {
        return None;
    };
    let method = match method.split_once('/') {
        Some((m, version))
            if !version.is_empty() && version.bytes().all(|b| b.is_ascii_digit()) =>
        {
            m
        }
        Some(_) => return None,
        None => method,
    };
    if !is_keyword(method) || !is_keyword(result) {
        return None;
    }
    let mut rest = rest;
    if let [Part::Word(reason), Part::Equals, value, after @ ..] = rest {
        if reason.eq_ignore_ascii_case("reason") {
            match value {
                Part::Quoted(_) => {}
                Part::Word(w) if is_token(w) => {}
                _ => return None,
            }
            rest = after;
        }
    }
    let mut props = Vec::new();
    while let [Part::Word(name), Part::Equals, after @ ..] = rest {
        let (ptype, property) = name.split_once('.')?;
        if !is_keyword(ptype) || !is_keyword(property) {
            return None;
        }
        let (value, after) = match after {
            // `"local part"@domain`.
            [Part::Quoted(local), Part::Word(at), after @ ..] if at.starts_with('@') => {
                (format!("{local}{at}"), after)
            }
            [Part::Quoted(v), after @ ..] => (v.clone(), after),
            [Part::Word(v), after @ ..] if is_bare_pvalue(v) => (v.clone(), after),
            _ => return None,
        };
        props.push((name.to_ascii_lowercase(), value));
        rest = after;
    }
    if !matches!(rest, [] | [Part::Semicolon, ..]) {
        return None;
    }
    Some((
        AuthMethod {
            method: method.to_ascii_lowercase(),
            result: result.to_ascii_lowercase(),
            props,
        },
        rest,
    ))
}

/// Parse one header value (unfolded); `None` when not even its
/// authserv-id can be read. A header that does not read cleanly to its
/// end keeps its authserv-id and is not `readable` (module doc).
pub(crate) fn parse_auth_results(value: &str) -> Option<AuthResults> {
    let too_long = value.len() > MAX_HEADER;
    let head = if too_long {
        let mut end = MAX_HEADER;
        while !value.is_char_boundary(end) {
            end -= 1;
        }
        &value[..end]
    } else {
        value
    };
    let (parts, lexed) = parts(head);
    let authserv_id = match parts.first()? {
        Part::Word(w) if is_token(w) => w.to_ascii_lowercase(),
        Part::Quoted(q) if !q.is_empty() => q.to_ascii_lowercase(),
        _ => return None,
    };
    let mut rest = &parts[1..];
    if let [Part::Word(version), after @ ..] = rest {
        if version.bytes().all(|b| b.is_ascii_digit()) {
            rest = after;
        }
    }
    let methods = if lexed && !too_long {
        results(rest)
    } else {
        None
    };
    Some(AuthResults {
        authserv_id,
        readable: methods.is_some(),
        methods: methods.unwrap_or_default(),
    })
}

/// Whether `results` (topmost first) say that a mail from `from` is
/// authenticated by the host `authserv_id` (module doc).
pub(super) fn authenticated(results: &[AuthResults], authserv_id: &str, from: &str) -> bool {
    let wanted = authserv_id.trim().to_ascii_lowercase();
    let mut ours = results.iter().filter(|r| r.authserv_id == wanted);
    let Some(top) = ours.next() else {
        return false;
    };
    let ambiguous_below =
        ours.any(|r| !r.readable || r.methods.iter().any(|m| m.method == "dmarc"));
    let Some((_, from_domain)) = from.rsplit_once('@') else {
        return false;
    };
    let dmarc: Vec<&AuthMethod> = top.methods.iter().filter(|m| m.method == "dmarc").collect();
    let [verdict] = dmarc.as_slice() else {
        return false;
    };
    let header_from: Vec<&str> = verdict.values("header.from").collect();
    top.readable
        && !ambiguous_below
        && verdict.result == "pass"
        && matches!(header_from.as_slice(), [d] if d.eq_ignore_ascii_case(from_domain))
}

#[cfg(test)]
mod tests;
