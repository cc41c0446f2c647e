//! Authentication-Results as OpenDMARC, OpenDKIM and rspamd write them,
//! and headers forged to look like them.

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
    let r = parse_auth_results("mx.games.test; dmarc=pass (p=none dis=none) header.from=alice.org")
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
