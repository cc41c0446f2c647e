//! What is refused or withheld: text from strangers, observers beyond the
//! limit, reserved userids, timer options out of range, and addresses that
//! route elsewhere.

use super::*;

// --------------------------------------------------- text from strangers

#[test]
fn an_error_mail_to_a_stranger_quotes_the_command_and_never_the_body() {
    let mut w = two_players();
    let spam = "Your account is suspended, log in at http://evil.org/login now";
    w.mail(VICTIM, "chess move 101 alice wrong e4", spam);
    let mails = w.replies();
    let error = only(&mails, VICTIM);
    assert!(
        error.body.contains("chess move 101 alice"),
        "{}",
        error.body
    );
    assert!(!error.body.contains("evil.org"), "{}", error.body);
    // A confirmed player's own comment is still given back.
    w.mail(ALICE, "chess move 999 alice apw e4", "my note to keep");
    let mails = w.replies();
    assert!(only(&mails, ALICE).body.contains("my note to keep"));
}

#[test]
fn a_strangers_challenge_relays_no_comment() {
    let mut w = two_players();
    let spam = "alice here: my new address is http://evil.org";
    w.mail(MALLORY, "chess challenge alice bob", spam);
    let mails = w.replies();
    // A stranger starts no board at all.
    assert!(to(&mails, ALICE).is_empty(), "{mails:#?}");
    for m in &mails {
        assert!(!m.body.contains("http://evil.org"), "{m:#?}");
    }
    // From alice's confirmed address the comment is hers and is relayed.
    w.mail(ALICE, "chess challenge alice bob", "good luck, bob");
    let mails = w.replies();
    assert!(
        only(&mails, BOB).body.contains("good luck, bob"),
        "{mails:#?}"
    );
}

#[test]
fn text_from_an_account_without_a_confirmed_address_is_not_relayed() {
    let mut w = two_players();
    w.mail(MALLORY, "signup mal mpw", "");
    w.replies();
    w.mail(
        MALLORY,
        "message mal mpw alice bob",
        "send your password to me",
    );
    let mails = w.replies();
    assert!(
        to(&mails, ALICE).is_empty() && to(&mails, BOB).is_empty(),
        "{mails:#?}"
    );
    assert!(only(&mails, MALLORY)
        .body
        .contains("mal has no confirmed address yet"));
    // A move's comment from such a player does not reach the opponent.
    w.mail(ALICE, "chess challenge alice mal", "");
    w.mail(ALICE, "chess move 101 alice apw e4", "");
    w.replies();
    w.mail(
        MALLORY,
        "chess move 101 mal mpw e5",
        "visit http://evil.org",
    );
    let mails = w.replies();
    let alice = only(&mails, ALICE);
    assert!(!alice.body.contains("evil.org"), "{}", alice.body);
    assert!(alice.body.contains("It is alice's turn."));
}

// --------------------------------------------------------------- observers

#[test]
fn a_board_takes_at_most_observers_per_board_observers() {
    let mut w = two_players();
    w.config.limits.observers_per_board = 2;
    for (addr, user) in [
        ("c@players.org", "carol"),
        ("d@players.org", "dave"),
        ("e@players.org", "erin"),
    ] {
        confirmed(&mut w, addr, user, "pw");
    }
    w.mail(ALICE, "chess challenge alice bob", "");
    w.mail(ALICE, "chess challenge bob alice", "");
    w.replies();
    w.mail("c@players.org", "chess subscribe 101 carol pw", "");
    w.mail("d@players.org", "chess subscribe 101 dave pw", "");
    w.replies();
    w.mail("e@players.org", "chess subscribe 101 erin pw", "");
    let mails = w.replies();
    assert!(
        only(&mails, "e@players.org")
            .body
            .contains("Chess board 101 has 2 observers, the most this server allows"),
        "{mails:#?}"
    );
    w.mail("e@players.org", "chess subscribe all erin pw", "");
    let mails = w.replies();
    let body = &only(&mails, "e@players.org").body;
    assert!(body.contains("erin now observes Chess board 102"), "{body}");
    assert!(
        body.contains("Not observed, as they have 2 observers"),
        "{body}"
    );
    let observers =
        pbmchess::store::observers(&w.conn, pbmchess::store::BoardId::new("chess", 101)).unwrap();
    assert_eq!(observers.len(), 2);
}

// ---------------------------------------------------------------- userids

#[test]
fn admin_userids_and_lookalikes_of_reserved_names_cannot_be_signed_up() {
    let mut w = confirming();
    w.config.server.admins = vec!["Richard".into()];
    for (i, userid) in ["richard", "RICHARD", "r1chard", "c0mputer", "computer"]
        .iter()
        .enumerate()
    {
        let from = format!("m{i}@evil.org");
        w.mail(&from, &format!("signup {userid} pw"), "");
        let mails = w.replies();
        let body = &only(&mails, &from).body;
        assert!(
            body.contains("kept for an admin")
                || body.contains("a name this server keeps")
                || body.contains("computer player"),
            "{userid}: {body}"
        );
        assert!(pbmchess::store::user(&w.conn, &userid.to_lowercase())
            .unwrap()
            .is_none());
    }
    admin_add(&mut w, "richard", "rpw", "richard@games.org");
    assert!(pbmchess::store::user(&w.conn, "richard").unwrap().is_some());
}

// ----------------------------------------------------------------- timers

#[test]
fn timer_options_outside_their_ranges_are_refused() {
    let mut w = two_players();
    for (option, range) in [
        ("--forfeittime=4000000000", "1 to 60"),
        ("--forfeittime=61", "1 to 60"),
        ("--nagtime=31", "1 to 30"),
        ("--totaltime=366", "1 to 365"),
    ] {
        w.mail(ALICE, &format!("chess challenge alice bob {option}"), "");
        let mails = w.replies();
        assert!(to(&mails, BOB).is_empty(), "{option}: {mails:#?}");
        assert!(
            only(&mails, ALICE)
                .body
                .contains(&format!("give {range} days")),
            "{option}: {mails:#?}"
        );
    }
    assert!(
        pbmchess::store::board(&w.conn, pbmchess::store::BoardId::new("chess", 101))
            .unwrap()
            .is_none()
    );
    w.mail(
        ALICE,
        "chess challenge alice bob --nagtime=30 --forfeittime=60 --totaltime=365",
        "",
    );
    assert_eq!(to(&w.replies(), BOB).len(), 1);
}

// -------------------------------------------------------------- addresses

#[test]
fn addresses_that_route_elsewhere_are_refused_as_recipients() {
    let mut w = two_players();
    for bad in [
        "root@localhost",
        "a%b@relay.org",
        "a!b@c.org",
        "a@[127.0.0.1]",
        "-oQ/tmp/x@evil.org",
        "x@printer.local",
        "x@db.internal",
        "x@host.localdomain",
        "x@players.test",
        "x@a.example",
        "x@nowhere.invalid",
        "x@10.0.0.1",
        "x@intranet",
    ] {
        w.mail(MALLORY, &format!("signup mal mpw {bad}"), "");
        let mails = w.replies();
        assert_eq!(mails.len(), 1, "{bad}: {mails:#?}");
        assert!(
            only(&mails, MALLORY).subject.contains("Error"),
            "{bad}: {mails:#?}"
        );
        w.mail(
            ALICE,
            &format!("change address alice apw {ALICE} {bad}"),
            "",
        );
        let mails = w.replies();
        assert!(mails.iter().all(|m| m.to == ALICE), "{bad}: {mails:#?}");
        assert!(pbmchess::store::user(&w.conn, "mal").unwrap().is_none());
    }
    let alice = pbmchess::store::user(&w.conn, "alice").unwrap().unwrap();
    assert_eq!(alice.addresses, vec![ALICE]);
}
