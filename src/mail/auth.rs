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
mod tests {
    use super::*;

    const OURS: &str = "mx.games.test";
    const ALICE: &str = "alice@alice.org";

    fn results(values: &[&str]) -> Vec<AuthResults> {
        values
            .iter()
            .filter_map(|v| parse_auth_results(v))
            .collect()
    }

    /// Whether one header alone authenticates alice.
    fn passes(value: &str) -> bool {
        authenticated(&results(&[value]), OURS, ALICE)
    }

    #[test]
    fn an_opendmarc_header_is_read() {
        let r =
            parse_auth_results("mx.games.test; dmarc=pass (p=none dis=none) header.from=alice.org")
                .unwrap();
        assert!(r.readable);
        assert_eq!(r.authserv_id, "mx.games.test");
        assert_eq!(r.methods.len(), 1);
        assert_eq!(r.methods[0].method, "dmarc");
        assert_eq!(r.methods[0].result, "pass");
        assert_eq!(
            r.methods[0].props,
            [("header.from".into(), "alice.org".into())]
        );
        assert!(passes(
            "mx.games.test; dmarc=pass (p=none dis=none) header.from=alice.org"
        ));
        assert!(passes(
            "mx.games.test 1; dmarc=pass (p=reject sp=reject dis=none) header.from=alice.org"
        ));
    }

    #[test]
    fn opendkim_and_opendmarc_spf_headers_are_read() {
        // As OpenDKIM and OpenDMARC's SPF check write them (folded, then
        // unfolded: the line break is gone, the tab stays).
        for value in [
            "mx.games.test;\tdkim=pass (1024-bit key; secure) header.d=alice.org \
             header.i=@alice.org header.b=\"mj+deT/Q\";\tdkim-atps=neutral",
            "mx.games.test; dkim=pass (2048-bit key; unprotected) header.d=alice.org \
             header.i=@alice.org header.a=rsa-sha256 header.s=s1 header.b=Ab+/c9Zy",
            "mx.games.test; spf=fail smtp.mailfrom=bartek@alice.org",
            "mx.games.test; none",
            // RFC 8601, appendix B.
            "example.com; none",
            "example.com; spf=pass smtp.mailfrom=example.net",
            "example.com; auth=pass (cram-md5) smtp.auth=sender@example.net; \
             spf=pass smtp.mailfrom=example.net",
            "example.com; sender-id=pass header.from=example.net",
            "example.com; iprev=pass policy.iprev=192.0.2.200",
            "example.com; dkim=pass (good signature) header.d=mail-router.example.net; \
             dkim=fail (bad signature) header.d=newyork.example.com",
            "example.net; dkim=pass (good signature) header.i=@mail-router.example.net",
            "\"mx.games.test\" (the relay) 1; dkim/1=pass header.d=alice.org",
        ] {
            let r = parse_auth_results(value).unwrap();
            assert!(r.readable, "{value}");
            // No dmarc result: nothing authenticated.
            assert!(!passes(value), "{value}");
        }
    }

    #[test]
    fn rspamd_headers_are_read() {
        let pass = "mx.games.test; dkim=pass header.d=alice.org header.s=s1 header.b=abc12345; \
             spf=pass (mx.games.test: domain of a@alice.org designates 192.0.2.1 as permitted \
             sender) smtp.mailfrom=a@alice.org; dmarc=pass (policy=reject) header.from=alice.org";
        let r = parse_auth_results(pass).unwrap();
        let names: Vec<_> = r
            .methods
            .iter()
            .map(|m| format!("{}={}", m.method, m.result))
            .collect();
        assert_eq!(names, ["dkim=pass", "spf=pass", "dmarc=pass"]);
        assert!(passes(pass));
        let fail = "mx.games.test; dkim=none; spf=pass (mx.games.test: domain of m@evil.org \
             designates 192.0.2.9 as permitted sender) smtp.mailfrom=m@evil.org; dmarc=fail \
             reason=\"No valid SPF, No valid DKIM\" header.from=alice.org (policy=reject)";
        assert!(parse_auth_results(fail).unwrap().readable);
        assert!(!passes(fail));
        // A domain without a policy, and a mail with no other result.
        assert!(!passes("mx.games.test; dkim=none; dmarc=none"));
        // IPv6 and quoted local parts in property values.
        let v6 = "mx.games.test; iprev=pass smtp.remote-ip=2001:db8::1; spf=pass \
             smtp.mailfrom=\"a b\"@alice.org; dmarc=pass header.from=alice.org";
        assert!(passes(v6));
    }

    #[test]
    fn an_unquoted_semicolon_in_the_envelope_sender_forges_nothing() {
        // rspamd writing MAIL FROM:<"x;dmarc=pass;"@evil.org> unquoted.
        assert!(!passes(
            "mx.games.test; spf=pass (mx.games.test: domain of x;dmarc=pass;@evil.org) \
             smtp.mailfrom=x;dmarc=pass;@evil.org; dmarc=fail (policy=reject) header.from=alice.org"
        ));
        assert!(!passes(
            "mx.games.test; spf=pass smtp.mailfrom=x;dmarc=pass;@evil.org; \
             dmarc=fail reason=\"x\" header.from=alice.org (policy=reject)"
        ));
        // Injected so that every part reads: a second dmarc result.
        let clean = "mx.games.test; spf=pass smtp.mailfrom=a@b;dmarc=pass \
             header.from=alice.org; foo=none x.y=a@evil.org; dmarc=fail header.from=alice.org";
        assert!(parse_auth_results(clean).unwrap().readable);
        assert!(!passes(clean));
        // Whichever comes first.
        assert!(!passes(
            "mx.games.test; dmarc=fail header.from=alice.org; spf=pass \
             smtp.mailfrom=a@b;dmarc=pass header.from=alice.org; x=none x.y=a@evil.org"
        ));
        // A forged dkim=pass counts for nothing on its own.
        assert!(!passes(
            "mx.games.test; spf=pass smtp.mailfrom=a@b;dkim=pass header.d=alice.org; \
             x=none x.y=a@evil.org; dmarc=none"
        ));
    }

    #[test]
    fn quoted_strings_and_comments_are_text() {
        assert!(!passes(
            "mx.games.test; dkim=fail (dmarc=pass; dkim=pass) header.d=alice.org"
        ));
        assert!(!passes(
            "mx.games.test; dmarc=fail reason=\"; dmarc=pass header.from=alice.org\" \
             header.from=alice.org"
        ));
        assert!(!passes(
            "mx.games.test; dmarc=fail (nested (dmarc=pass) \\) still) header.from=alice.org"
        ));
        // A comment or a quote that does not end, a stray parenthesis.
        for broken in [
            "mx.games.test; dmarc=pass header.from=alice.org (unended",
            "mx.games.test; dmarc=pass header.from=alice.org reason=\"unended",
            "mx.games.test; dmarc=pass header.from=alice.org )",
            "mx.games.test; dmarc=pass header.from=alice.org \\",
        ] {
            let r = parse_auth_results(broken).unwrap();
            assert!(!r.readable, "{broken}");
            assert!(!passes(broken), "{broken}");
        }
    }

    #[test]
    fn a_header_that_does_not_read_cleanly_authenticates_nothing() {
        for bad in [
            "mx.games.test; dmarc=pass header.from=alice.org stray",
            "mx.games.test; dmarc=pass header.from=alice.org;",
            "mx.games.test; dmarc=pass header.from=",
            "mx.games.test; dmarc=pass header.from=alice.org; @evil.org",
            "mx.games.test; dmarc=pass from=alice.org",
            "mx.games.test; dmarc/x=pass header.from=alice.org",
            "mx.games.test; dmarc=pass header.from=alice.org; none",
            "mx.games.test dmarc=pass header.from=alice.org",
            "mx.games.test; dmarc=pass header.from=alice.org\u{7}",
        ] {
            let r = parse_auth_results(bad).unwrap();
            assert_eq!(r.authserv_id, "mx.games.test", "{bad}");
            assert!(!r.readable, "{bad}");
            assert!(!passes(bad), "{bad}");
        }
        assert!(parse_auth_results("").is_none());
        assert!(parse_auth_results("; dmarc=pass").is_none());
        // Over 8 KiB: its id is kept, its results are not read.
        let long = format!(
            "mx.games.test; dmarc=pass header.from=alice.org; {}",
            "dkim=pass header.d=x.org; ".repeat(400)
        );
        let r = parse_auth_results(&long).unwrap();
        assert_eq!(r.authserv_id, "mx.games.test");
        assert!(!r.readable);
    }

    #[test]
    fn dmarc_counts_only_for_the_very_from_domain() {
        assert!(passes("mx.games.test; dmarc=pass header.from=Alice.ORG"));
        assert!(passes("MX.Games.Test; DMARC=Pass header.from=alice.org"));
        for other in [
            "mx.games.test; dmarc=pass",
            "mx.games.test; dmarc=pass header.from=mail.alice.org",
            "mx.games.test; dmarc=pass header.from=org",
            "mx.games.test; dmarc=pass header.from=evil.org",
            "mx.games.test; dmarc=pass header.from=alice.org header.from=evil.org",
            "mx.games.test; dmarc=pass header.from=alice.org; dmarc=pass header.from=alice.org",
            "mx.games.test; dmarc=pass header.from=\u{212a}.org",
            "mx.games.test; dkim=pass header.d=alice.org",
            "mx.games.test; spf=pass smtp.mailfrom=a@alice.org",
        ] {
            assert!(!passes(other), "{other}");
        }
        assert!(!authenticated(
            &results(&["mx.games.test; dmarc=pass header.from=alice.org"]),
            OURS,
            "alice@mail.alice.org"
        ));
    }

    #[test]
    fn only_the_topmost_header_of_our_host_counts_and_a_second_verdict_is_ambiguous() {
        let pass = "mx.games.test; dmarc=pass header.from=alice.org";
        let fail = "mx.games.test; dmarc=fail header.from=alice.org";
        let other = "evil.test; dmarc=pass header.from=alice.org";
        let dkim = "mx.games.test; dkim=pass header.d=alice.org";
        let broken = "mx.games.test; dmarc=pass (";
        let ok = |hs: &[&str]| authenticated(&results(hs), OURS, ALICE);
        assert!(ok(&[pass]));
        assert!(ok(&[other, pass]));
        assert!(ok(&[pass, other]));
        // OpenDMARC on top, OpenDKIM's own header below it.
        assert!(ok(&[pass, dkim]));
        assert!(!ok(&[fail, pass]));
        assert!(!ok(&[pass, fail]));
        assert!(!ok(&[pass, pass]));
        assert!(!ok(&[pass, broken]));
        assert!(!ok(&[broken, pass]));
        assert!(!ok(&[dkim, pass]));
        assert!(!ok(&[other]));
        assert!(!ok(&[]));
        assert!(authenticated(&results(&[pass]), "MX.Games.Test", ALICE));
    }

    /// Pieces an attacker puts in the text an MTA copies into its header
    /// unquoted (an envelope sender, a From domain).
    const PIECES: &[&str] = &[
        ";",
        "=",
        "\"",
        "(",
        ")",
        "\\",
        " ",
        "\t",
        "\r\n ",
        "dmarc",
        "pass",
        "dmarc=pass",
        "header.from",
        "header.from=alice.org",
        "alice.org",
        "@",
        "a",
        ".",
        "/1",
        "mx.games.test",
        "reason",
        "policy.dmarc=reject",
        "=?utf-8?q?x?=",
        ",",
    ];

    fn injected() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..24).prop_map(|p| p.concat())
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Whatever a sender's text adds where the MTA writes it unquoted,
        /// in a result or in a comment, before or after the MTA's own
        /// failed (or absent) verdict, the mail is not authenticated.
        #[test]
        fn injected_text_never_authenticates(x in injected(), template in 0usize..6) {
            let value = match template {
                0 => format!("mx.games.test; spf=pass smtp.mailfrom={x}; \
                     dmarc=fail (p=reject dis=none) header.from=alice.org"),
                1 => format!("mx.games.test; dkim=none; spf=pass (mx.games.test: domain \
                     of {x} designates 192.0.2.9 as permitted sender) smtp.mailfrom={x}; \
                     dmarc=fail reason=\"No valid SPF, No valid DKIM\" \
                     header.from=alice.org (policy=reject)"),
                2 => format!("mx.games.test; dmarc=none header.from={x}"),
                3 => format!("mx.games.test; dmarc=fail header.from=alice.org; \
                     spf=pass smtp.mailfrom={x}"),
                4 => format!("mx.games.test; spf=pass smtp.mailfrom={x}; \
                     dmarc=none (p=none) header.from=alice.org; arc=none"),
                _ => format!("mx.games.test; dkim=pass header.d=evil.org header.s={x}; \
                     dmarc=pass header.from=evil.org"),
            };
            prop_assert!(!passes(&value), "{value}");
        }

        /// Any text reads without a panic, and a long one in bounded work
        /// (each character is looked at a bounded number of times).
        #[test]
        fn any_header_reads_without_a_panic(x in ".{0,300}", n in 0usize..40) {
            let value = x.repeat(n);
            let _ = parse_auth_results(&value);
            let _ = authenticated(&results(&[&value, &value]), OURS, &value);
        }
    }
}
