//! `Authentication-Results` (RFC 8601): what the receiving MTA found out
//! about a mail's `From`, read so that commands without a password are
//! only taken from mail whose `From` is authenticated (see `[security]
//! authserv_id` and [`super::Envelope::authenticated`]).
//!
//! Rulings:
//!
//! - Only the *topmost* header whose authserv-id equals the configured one
//!   counts: the receiving MTA adds its header on top (and is expected to
//!   remove older ones carrying its own id); every other header, and every
//!   one below it, may have been written by the sender.
//! - Authenticated means `dmarc=pass`, or `dkim=pass` whose `header.d` is
//!   aligned with the From domain. Alignment is relaxed (RFC 7489 §3.1.1
//!   in spirit): the signing domain equals the From domain or is a parent
//!   of it on a dot boundary (`mail.example.org` is aligned with a
//!   signature by `example.org`, and the other way round). No public suffix
//!   list is consulted: a signing domain without a dot (`org`) never
//!   aligns.
//! - The parser is small and forgiving: `(comments)` are dropped, quoted
//!   values are unquoted, and a header it cannot read authenticates
//!   nothing.

/// One `method=result` with its properties (`header.d=example.org`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthMethod {
    /// `dkim`, `dmarc`, `spf` ... in lower case.
    pub method: String,
    /// `pass`, `fail`, `none` ... in lower case.
    pub result: String,
    /// `(ptype.property, value)`, the property in lower case.
    pub props: Vec<(String, String)>,
}

impl AuthMethod {
    fn prop(&self, name: &str) -> Option<&str> {
        self.props
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One `Authentication-Results` header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuthResults {
    /// The host that wrote it, in lower case.
    pub authserv_id: String,
    pub methods: Vec<AuthMethod>,
}

/// Headers are at most this long to be read (a real one is a few hundred
/// bytes; an attacker's may be anything).
const MAX_HEADER: usize = 8 * 1024;
/// At most this many headers are kept, topmost first.
pub(crate) const MAX_HEADERS: usize = 20;

/// `text` without `(comments)` (nested), with quoted strings kept whole.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    let mut quoted = false;
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            if depth == 0 {
                out.push(c);
            }
            escaped = false;
            continue;
        }
        match c {
            '\\' => {
                escaped = true;
                if depth == 0 {
                    out.push(c);
                }
            }
            '"' if depth == 0 => {
                quoted = !quoted;
                out.push(c);
            }
            '(' if !quoted => {
                depth += 1;
                out.push(' ');
            }
            ')' if !quoted && depth > 0 => depth -= 1,
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Parse one header value; `None` when it has no authserv-id.
pub fn parse_auth_results(value: &str) -> Option<AuthResults> {
    if value.len() > MAX_HEADER {
        return None;
    }
    let text = strip_comments(value);
    let mut clauses = text.split(';');
    // `authserv-id [version]`
    let authserv_id = clauses
        .next()?
        .split_whitespace()
        .next()?
        .trim_matches('"')
        .to_ascii_lowercase();
    if authserv_id.is_empty() {
        return None;
    }
    let mut methods = Vec::new();
    for clause in clauses {
        let mut words = clause.split_whitespace();
        let Some(first) = words.next() else { continue };
        let Some((method, result)) = first.split_once('=') else {
            // `none`: no method was run.
            continue;
        };
        // `dkim/1=pass`: a method version.
        let method = method.split('/').next().unwrap_or(method);
        let mut props = Vec::new();
        for word in words {
            if let Some((name, value)) = word.split_once('=') {
                if name.contains('.') {
                    props.push((
                        name.to_ascii_lowercase(),
                        value.trim_matches('"').to_string(),
                    ));
                }
            }
        }
        methods.push(AuthMethod {
            method: method.to_ascii_lowercase(),
            result: result.trim_matches('"').to_ascii_lowercase(),
            props,
        });
    }
    Some(AuthResults {
        authserv_id,
        methods,
    })
}

/// Whether a signature by `signer` is aligned with `from_domain`
/// (relaxed; module doc).
pub fn aligned(signer: &str, from_domain: &str) -> bool {
    let signer = signer.trim().trim_end_matches('.').to_ascii_lowercase();
    let from = from_domain
        .trim()
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if signer.is_empty() || from.is_empty() {
        return false;
    }
    let parent = |child: &str, parent: &str| {
        parent.contains('.')
            && child
                .strip_suffix(parent)
                .is_some_and(|rest| rest.ends_with('.'))
    };
    signer == from || parent(&from, &signer) || parent(&signer, &from)
}

/// Whether `results` (topmost first) say that a mail from `from` is
/// authenticated by the host `authserv_id` (module doc).
pub fn authenticated(results: &[AuthResults], authserv_id: &str, from: &str) -> bool {
    let wanted = authserv_id.trim().to_ascii_lowercase();
    let Some(ours) = results.iter().find(|r| r.authserv_id == wanted) else {
        return false;
    };
    let Some((_, from_domain)) = from.rsplit_once('@') else {
        return false;
    };
    ours.methods.iter().any(|m| {
        m.result == "pass"
            && match m.method.as_str() {
                "dmarc" => m
                    .prop("header.from")
                    .is_none_or(|d| d.eq_ignore_ascii_case(from_domain)),
                "dkim" => m.prop("header.d").is_some_and(|d| aligned(d, from_domain)),
                _ => false,
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(values: &[&str]) -> Vec<AuthResults> {
        values
            .iter()
            .filter_map(|v| parse_auth_results(v))
            .collect()
    }

    #[test]
    fn an_opendmarc_header_is_read() {
        let r =
            parse_auth_results("mx.games.test; dmarc=pass (p=none dis=none) header.from=a.example")
                .unwrap();
        assert_eq!(r.authserv_id, "mx.games.test");
        assert_eq!(r.methods.len(), 1);
        assert_eq!(r.methods[0].method, "dmarc");
        assert_eq!(r.methods[0].result, "pass");
        assert_eq!(r.methods[0].prop("header.from"), Some("a.example"));
    }

    #[test]
    fn an_rspamd_header_with_several_methods_is_read() {
        let r = parse_auth_results(
            "mx.games.test;\tdkim=pass header.d=a.example header.s=s1 header.b=\"abc\";\
             \tspf=pass (mx.games.test: domain of a@a.example) smtp.mailfrom=a@a.example;\
             \tdmarc=fail reason=\"x\" (policy=reject) header.from=a.example",
        )
        .unwrap();
        let names: Vec<_> = r
            .methods
            .iter()
            .map(|m| format!("{}={}", m.method, m.result))
            .collect();
        assert_eq!(names, ["dkim=pass", "spf=pass", "dmarc=fail"]);
        assert_eq!(r.methods[0].prop("header.d"), Some("a.example"));
    }

    #[test]
    fn comments_cannot_hide_or_forge_results() {
        let r = parse_auth_results(
            "mx.games.test 1; dkim=fail (dmarc=pass; dkim=pass) header.d=a.example",
        )
        .unwrap();
        assert_eq!(r.methods.len(), 1);
        assert_eq!(r.methods[0].result, "fail");
        assert!(parse_auth_results("").is_none());
        assert!(parse_auth_results("; dmarc=pass").is_none());
        assert!(parse_auth_results(&"x".repeat(MAX_HEADER + 1)).is_none());
    }

    #[test]
    fn alignment_is_relaxed_on_dot_boundaries() {
        assert!(aligned("a.example", "a.example"));
        assert!(aligned("A.Example.", "mail.a.example"));
        assert!(aligned("mail.a.example", "a.example"));
        assert!(!aligned("evil-a.example", "a.example"));
        assert!(!aligned("example", "a.example"));
        assert!(!aligned("b.example", "a.example"));
        assert!(!aligned("", "a.example"));
    }

    #[test]
    fn only_the_topmost_header_of_our_host_counts() {
        let ours = "mx.games.test";
        let pass = "mx.games.test; dmarc=pass header.from=a.example";
        let fail = "mx.games.test; dmarc=fail header.from=a.example";
        let other = "evil.test; dmarc=pass header.from=a.example";
        assert!(authenticated(&results(&[pass]), ours, "x@a.example"));
        assert!(!authenticated(&results(&[fail, pass]), ours, "x@a.example"));
        assert!(!authenticated(&results(&[other]), ours, "x@a.example"));
        assert!(!authenticated(&results(&[]), ours, "x@a.example"));
        assert!(authenticated(
            &results(&[other, pass]),
            "MX.Games.Test",
            "x@a.example"
        ));
    }

    #[test]
    fn dkim_counts_only_when_aligned_and_dmarc_only_for_the_from_domain() {
        let ours = "mx.games.test";
        let dkim = |d: &str| format!("mx.games.test; dkim=pass header.d={d}");
        assert!(authenticated(
            &results(&[&dkim("a.example")]),
            ours,
            "x@a.example"
        ));
        assert!(!authenticated(
            &results(&[&dkim("evil.test")]),
            ours,
            "x@a.example"
        ));
        let other_from = "mx.games.test; dmarc=pass header.from=evil.test";
        assert!(!authenticated(&results(&[other_from]), ours, "x@a.example"));
        let spf_only = "mx.games.test; spf=pass smtp.mailfrom=x@a.example";
        assert!(!authenticated(&results(&[spf_only]), ours, "x@a.example"));
    }
}
