//! With `authserv_id`, a reply needs an authenticated From.

use super::*;

const AUTHSERV: &str = "[security]\nauthserv_id = \"mx.games.test\"\n";

#[test]
fn with_authserv_id_a_reply_needs_an_authenticated_from_and_the_player_is_told_once() {
    let mut s = signed_up(AUTHSERV);
    let mails = round(&mut s, ALICE, "chess challenge alice bob", "");
    // The stranger's challenge was refused; alice's own (password-less
    // too) needs authentication as well: send it authenticated.
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    assert!(
        only_one(&mails, ALICE).body.contains("could not confirm"),
        "{mails:#?}"
    );
    let pass = "Authentication-Results: mx.games.test; dmarc=pass header.from=a.example\r\n";
    let raw = common::raw_mail(ALICE, "chess challenge alice bob", "", "c1@a.example").replacen(
        "\r\n",
        &format!("\r\n{pass}"),
        1,
    );
    let mails = deliver(&mut s, &raw);
    let to_alice = only_one(&mails, ALICE).clone();
    assert!(mid(&to_alice).starts_with("<t."), "{}", to_alice.raw);

    // Forged: no header, another host's pass, or our host's pass below
    // our host's fail (only the topmost counts).
    let forged = [
        String::new(),
        "Authentication-Results: evil.example; dmarc=pass header.from=a.example\r\n".into(),
        "Authentication-Results: mx.games.test; dmarc=fail header.from=a.example\r\n\
         Authentication-Results: mx.games.test; dmarc=pass header.from=a.example\r\n"
            .into(),
        "Authentication-Results: mx.games.test; dkim=pass header.d=evil.example\r\n".into(),
    ];
    for (i, headers) in forged.iter().enumerate() {
        let mails = deliver(
            &mut s,
            &reply(
                ALICE,
                &mid(&to_alice),
                &format!("f{i}@evil.example"),
                headers,
                "e4\r\n\r\nSECRET-TEXT of the attacker",
            ),
        );
        assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
        if i == 0 {
            // Told once, without the attacker's text.
            let notice = only_one(&mails, ALICE);
            assert_eq!(notice.subject, "Reply not played");
            assert!(notice.raw.lines().all(|l| l.len() <= 78), "{}", notice.raw);
            assert!(!notice.raw.contains("SECRET-TEXT"), "{}", notice.raw);
            assert!(!notice.body.contains("e4"), "{}", notice.body);
        } else {
            assert!(mails.is_empty(), "told once a day: {mails:#?}");
        }
    }
    let board = board_now_authenticated(&mut s, pass);
    assert!(!board.contains("1. e4"), "{board}");
    // Nothing above the quote, unauthenticated: still not a word back.
    let mails = deliver(
        &mut s,
        &reply(
            ALICE,
            &mid(&to_alice),
            "f9@evil.example",
            "",
            "> quoted only",
        ),
    );
    assert!(mails.is_empty(), "{mails:#?}");
    // A whole command on the first line runs as that command, as ever.
    let mails = deliver(
        &mut s,
        &reply(ALICE, &mid(&to_alice), "w1@a.example", "", "chess show 101"),
    );
    assert!(
        only_one(&mails, ALICE)
            .body
            .starts_with("It is alice's turn."),
        "{mails:#?}"
    );

    // DKIM alone, even aligned, authenticates nothing (see `mail::auth`).
    let dkim =
        "Authentication-Results: mx.games.test; dkim=pass header.d=a.example header.s=s1\r\n";
    let mails = deliver(
        &mut s,
        &reply(ALICE, &mid(&to_alice), "dk1@a.example", dkim, "e4"),
    );
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    // Authenticated by our host's DMARC (another host's header aside): played.
    let ok = "Authentication-Results: mx.games.test; dkim=pass header.d=a.example header.s=s1; \
              dmarc=pass (policy=none) header.from=a.example\r\n\
              Authentication-Results: evil.example; dmarc=fail\r\n";
    let mails = deliver(
        &mut s,
        &reply(ALICE, &mid(&to_alice), "ok1@a.example", ok, "e4"),
    );
    assert!(only_one(&mails, BOB).body.contains("1. e4"), "{mails:#?}");
}

fn board_now_authenticated(s: &mut Install, header: &str) -> String {
    let raw = common::raw_mail(ALICE, "chess show 101", "", "show@a.example").replacen(
        "\r\n",
        &format!("\r\n{header}"),
        1,
    );
    let mails = deliver(s, &raw);
    only_one(&mails, ALICE).body.clone()
}

#[test]
fn with_authserv_id_commands_with_a_password_still_run_unauthenticated() {
    let mut s = signed_up(AUTHSERV);
    let mails = round(
        &mut s,
        ALICE,
        &format!("chess set alice {ALICE_PW} small"),
        "",
    );
    assert!(
        !only_one(&mails, ALICE).subject.contains("Error"),
        "{mails:#?}"
    );
}
