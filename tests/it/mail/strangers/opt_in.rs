//! Mail to addresses not yet confirmed: one mail naming many addresses, the
//! hourly limit, and the double opt-in.

use super::*;

// ------------------------------------------------- one mail, many addresses

#[test]
fn a_multiple_of_signups_naming_many_addresses_mails_only_its_sender() {
    let mut w = confirming();
    let mut body = String::new();
    for i in 0..50 {
        let extras: Vec<String> = (0..20).map(|j| format!("v{i}x{j}@victims.org")).collect();
        body.push_str(&format!("signup user{i} pw{i} {}\n", extras.join(" ")));
    }
    w.mail(MALLORY, "multiple", &body);
    let mails = w.replies();
    assert!(mails.iter().all(|m| m.to == MALLORY), "{mails:#?}");
    assert!(
        mails[0]
            .body
            .contains("A signup names at most one address besides"),
        "{}",
        mails[0].body
    );
}

#[test]
fn a_signup_with_one_extra_address_mails_it_one_confirmation() {
    let mut w = confirming();
    w.mail(MALLORY, "signup mal mpw friend@friends.org", "");
    let mails = w.replies();
    let extra = only(&mails, "friend@friends.org");
    assert!(extra.subject.starts_with("confirm address mal "));
    assert!(common::joined(&extra.body).contains("If that was not you, ignore this mail"));
    assert_eq!(mails.len(), 2, "{mails:#?}");
}

#[test]
fn change_address_back_and_forth_mails_each_address_once_a_day() {
    let mut w = two_players();
    // One address besides alice's own per line: `change address` names
    // at most two, and one mail mails at most two strangers.
    let a: Vec<String> = (0..1).map(|i| format!("a{i}@lista.org")).collect();
    let b: Vec<String> = (0..1).map(|i| format!("b{i}@listb.org")).collect();
    let mut body = String::new();
    for round in 0..5 {
        let list = if round % 2 == 0 { &a } else { &b };
        body.push_str(&format!(
            "change address alice apw {ALICE} {}\n",
            list.join(" ")
        ));
    }
    w.mail(ALICE, "multiple", &body);
    let mails = w.replies();
    for addr in a.iter().chain(&b) {
        assert_eq!(to(&mails, addr).len(), 1, "{addr}: {mails:#?}");
    }
    // The code of the first mail still confirms, after the list came back.
    let code = code_of(only(&mails, &a[0]));
    w.mail(ALICE, &format!("confirm address alice {code}"), "");
    let mails = w.replies();
    assert!(
        only(&mails, &a[0]).body.contains("is confirmed"),
        "{mails:#?}"
    );

    // Another account may not have the same address mailed within the day.
    w.mail(BOB, &format!("change address bob bpw {BOB} {}", b[0]), "");
    let mails = w.replies();
    assert!(to(&mails, &b[0]).is_empty(), "{mails:#?}");
    assert!(
        only(&mails, BOB)
            .body
            .contains("got a confirmation mail less than a day ago"),
        "{mails:#?}"
    );
    // A day later it may.
    w.advance(Duration::hours(25));
    w.mail(BOB, &format!("change address bob bpw {BOB} {}", b[0]), "");
    let mails = w.replies();
    assert!(only(&mails, &b[0])
        .subject
        .starts_with("confirm address bob "));
}

#[test]
fn a_second_signup_from_one_address_within_a_day_gets_its_own_code() {
    // The sender's own address is never refused its own code (the first
    // signup may have been forged "from" it).
    let mut w = confirming();
    w.mail(VICTIM, "signup first pw", "");
    assert!(only(&w.replies(), VICTIM)
        .subject
        .starts_with("confirm address first "));
    w.mail(VICTIM, "signup second pw", "");
    let mails = w.replies();
    assert!(
        only(&mails, VICTIM)
            .subject
            .starts_with("confirm address second "),
        "{mails:#?}"
    );
    assert!(pbmchess::store::user(&w.conn, "second").unwrap().is_some());
}

#[test]
fn mails_to_unconfirmed_addresses_stop_at_the_hourly_limit_and_the_sender_is_told() {
    let mut w = confirming();
    w.config.limits.unconfirmed_mails_per_hour = 3;
    for i in 0..5 {
        w.mail(
            &format!("s{i}@senders.org"),
            &format!("signup user{i} pw x{i}@extras.org"),
            "",
        );
    }
    let mails = w.replies();
    for i in 0..3 {
        assert_eq!(
            to(&mails, &format!("x{i}@extras.org")).len(),
            1,
            "{mails:#?}"
        );
    }
    for i in 3..5 {
        let extra = format!("x{i}@extras.org");
        assert!(to(&mails, &extra).is_empty(), "{mails:#?}");
        let told: Vec<_> = to(&mails, &format!("s{i}@senders.org"))
            .into_iter()
            .filter(|m| m.subject == "Not sent")
            .collect();
        assert_eq!(told.len(), 1, "{mails:#?}");
        assert!(told[0].body.contains(&extra), "{}", told[0].body);
        assert!(told[0].body.contains("at most 3 mails an hour"));
    }
    // The next hour the address that was not mailed may be asked for again.
    w.advance(Duration::hours(1));
    w.mail(
        "s3@senders.org",
        "change address user3 pw s3@senders.org x3@extras.org",
        "",
    );
    let mails = w.replies();
    assert!(only(&mails, "x3@extras.org")
        .subject
        .starts_with("confirm address user3 "));
}

#[test]
fn a_mail_rolled_back_for_its_size_mails_no_stranger_and_later_mails_are_charged() {
    let mut w = confirming();
    w.config.limits.unconfirmed_mails_per_hour = 1;
    w.config.limits.max_reply_bytes = 3000;
    // A signup with an extra address, then help pages too large to send:
    // the whole mail is rolled back, nothing goes to the extra address.
    w.mail(
        MALLORY,
        "multiple",
        "signup mal mpw one@extras.org\nhelp commands\nhelp chess\n",
    );
    let mails = w.replies();
    assert!(to(&mails, "one@extras.org").is_empty(), "{mails:#?}");
    // Nothing was charged for it, and a mail that did go is charged: the
    // second extra address, in the same hour, is not mailed.
    w.mail("a@senders.org", "signup first pw two@extras.org", "");
    assert_eq!(to(&w.replies(), "two@extras.org").len(), 1);
    w.mail("b@senders.org", "signup second pw three@extras.org", "");
    let mails = w.replies();
    assert!(to(&mails, "three@extras.org").is_empty(), "{mails:#?}");
}

// ---------------------------------------------------------- double opt-in

#[test]
fn a_signup_forged_from_a_victim_gets_the_victim_only_the_welcome_mail() {
    let mut w = two_players();
    // Forged "from" the victim: the welcome mail with its code goes there.
    w.mail(VICTIM, "signup vic vpw", "");
    let mails = w.replies();
    assert!(common::joined(&only(&mails, VICTIM).body)
        .contains("No mail of it reaches victim@victim.org until confirmed"));
    // From the attacker's own address, with the password they chose.
    for subject in [
        "chess subscribe all vic vpw",
        "chess notify vic vpw",
        "chess subscribe 101 vic vpw",
    ] {
        w.mail(MALLORY, subject, "");
        let mails = w.replies();
        assert!(to(&mails, VICTIM).is_empty(), "{subject}: {mails:#?}");
        assert!(
            only(&mails, MALLORY)
                .body
                .contains("vic has no confirmed address yet"),
            "{subject}: {mails:#?}"
        );
    }
    // Boards of the victim's account: no board mail, no reminder.
    w.mail(ALICE, "chess challenge vic alice --nagtime=1", "");
    let mails = w.replies();
    assert!(to(&mails, VICTIM).is_empty(), "{mails:#?}");
    assert_eq!(to(&mails, ALICE).len(), 1, "{mails:#?}");
    w.mail(ALICE, "chess challenge alice vic", "");
    assert!(to(&w.replies(), VICTIM).is_empty());
    for _ in 0..5 {
        w.advance(Duration::days(1));
        w.ticks();
        let mails = w.replies();
        assert!(to(&mails, VICTIM).is_empty(), "{mails:#?}");
    }
}

#[test]
fn confirming_an_address_brings_the_boards_of_the_account_at_once() {
    let mut w = two_players();
    w.mail("carol@players.org", "signup carol cpw", "");
    let code = code_of(only(&w.replies(), "carol@players.org"));
    w.mail(ALICE, "chess challenge alice carol", "");
    w.mail(ALICE, "chess move 101 alice apw e4", "");
    let mails = w.replies();
    assert!(to(&mails, "carol@players.org").is_empty(), "{mails:#?}");

    // The code comes back from another address (a forwarding alias): the
    // confirmed address gets its board mails as mails of their own.
    w.mail(
        "carol@alias.org",
        &format!("Re: confirm address carol {code}"),
        "",
    );
    let mails = w.replies();
    assert!(only(&mails, "carol@alias.org")
        .body
        .contains("is confirmed"));
    let carol = to(&mails, "carol@players.org");
    assert_eq!(carol.len(), 2, "{mails:#?}");
    assert!(carol.iter().any(|m| m.body.contains("is confirmed")));
    let board = carol
        .iter()
        .find(|m| m.subject == "Chess Board 101 carol")
        .expect("the board mail of board 101");
    assert!(board.body.contains("It is carol's turn."), "{}", board.body);
    // Answerable by reply, like any board mail to its player.
    assert!(board.body.contains("To play, reply with your move"));
}

#[test]
fn confirming_from_the_address_itself_brings_the_boards_in_the_answer() {
    let mut w = two_players();
    w.mail("carol@players.org", "signup carol cpw", "");
    let code = code_of(only(&w.replies(), "carol@players.org"));
    w.mail(ALICE, "chess challenge alice carol", "");
    w.mail(ALICE, "chess challenge carol alice", "");
    w.replies();
    w.mail(
        "carol@players.org",
        &format!("Re: confirm address carol {code}"),
        "",
    );
    let mails = w.replies();
    let answer = only(&mails, "carol@players.org");
    assert!(answer.body.contains("is confirmed"), "{}", answer.body);
    assert!(answer.body.contains("=== Chess Board 101 alice ==="));
    assert!(answer.body.contains("=== Chess Board 102 carol ==="));
}

#[test]
fn an_address_the_admin_gives_is_confirmed() {
    let mut w = two_players();
    admin_add(&mut w, "dave", "dpw", "dave@players.org");
    w.mail(ALICE, "chess challenge alice dave", "");
    let mails = w.replies();
    assert_eq!(
        only(&mails, "dave@players.org").subject,
        "New Chess Board 101 alice"
    );
    w.mail("dave@players.org", "chess subscribe 101 dave dpw", "");
    assert!(only(&w.replies(), "dave@players.org")
        .body
        .contains("dave now observes Chess board 101"));
}
