//! Issue #31, "Mailing strangers" and the account items: each attack
//! replayed with the mail that carried it, through the server (a clock the
//! test moves) or the real binary; the server mails nobody who did not ask
//! for it.

use crate::common;

use chrono::Duration;
use common::world::World;
use common::Install;
use pbmchess::mail::Outgoing;
use pbmchess::server::Server;

const ALICE: &str = "alice@players.org";
const BOB: &str = "bob@players.org";
const MALLORY: &str = "mallory@evil.org";
const VICTIM: &str = "victim@victim.org";

/// A world with address confirmation on, as in production.
fn confirming() -> World {
    let mut w = World::new();
    w.config.accounts.confirm_addresses = true;
    w
}

fn to<'a>(mails: &'a [Outgoing], addr: &str) -> Vec<&'a Outgoing> {
    mails.iter().filter(|m| m.to == addr).collect()
}

fn only<'a>(mails: &'a [Outgoing], addr: &str) -> &'a Outgoing {
    let mine = to(mails, addr);
    assert_eq!(mine.len(), 1, "one mail to {addr}: {mails:#?}");
    mine[0]
}

/// The code in a confirmation mail's Subject (`confirm address alice K7Q2P9`).
fn code_of(mail: &Outgoing) -> String {
    let words: Vec<&str> = mail.subject.split_whitespace().collect();
    assert_eq!(&words[..2], ["confirm", "address"], "{}", mail.subject);
    words[3].to_string()
}

/// `userid` signs up from `addr` and confirms it.
fn confirmed(w: &mut World, addr: &str, userid: &str, pw: &str) {
    w.mail(addr, &format!("signup {userid} {pw}"), "");
    let code = code_of(only(&w.replies(), addr));
    w.mail(addr, &format!("confirm address {userid} {code}"), "");
    let mails = w.replies();
    assert!(
        only(&mails, addr).body.contains("is confirmed"),
        "{mails:#?}"
    );
}

/// alice and bob, confirmed.
fn two_players() -> World {
    let mut w = confirming();
    confirmed(&mut w, ALICE, "alice", "apw");
    confirmed(&mut w, BOB, "bob", "bpw");
    w
}

/// `admin user add`, as the admin CLI runs it.
fn admin_add(w: &mut World, userid: &str, password: &str, address: &str) {
    let server = Server::new(&w.config, &w.clock, &w.templates);
    server
        .admin_add_user(&mut w.conn, userid, password, &[address.to_string()])
        .unwrap();
}

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
    // at most two, and one mail mails at most two strangers (issue #37).
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
    // The sender's own address is never refused its own code (issue #37:
    // the first signup may have been forged "from" it).
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
    // A stranger starts no board at all (issue #37).
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

// --------------------------------------------------- the admin CLI's password

#[test]
fn admin_user_add_and_passwd_read_the_password_from_stdin() {
    use std::io::Write;
    let s = Install::new();
    let run = |args: &[&str], input: &str| {
        let mut child = common::pbmchess()
            .arg("--config")
            .arg(&s.config)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run(
        &[
            "admin",
            "user",
            "add",
            "alice",
            "alice@players.org",
            "--password-stdin",
        ],
        "s3cret@home\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
    let out = run(
        &["admin", "user", "passwd", "alice", "--password-stdin"],
        "newer\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(
        &["admin", "user", "passwd", "alice", "--password-stdin"],
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("standard input holds no password"));
    let db = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let user = pbmchess::store::user(&db, "alice").unwrap().unwrap();
    assert_eq!(user.addresses, vec!["alice@players.org"]);
    assert!(user.password_hash.starts_with("$argon2id$"));
}

#[test]
fn a_password_given_as_an_argument_still_works_and_warns_that_it_is_visible() {
    let s = Install::new();
    let out = s.run(&["admin", "user", "add", "bob", "bpw", "bob@players.org"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("visible to other users"), "{stderr}");
    let out = s.run(&["admin", "user", "passwd", "bob", "other"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("visible to other users"));
}

#[test]
fn a_stranger_signup_by_mail_through_the_binary_mails_only_its_sender() {
    let mut s = Install::confirming("");
    let extras: Vec<String> = (0..20).map(|j| format!("v{j}@victims.org")).collect();
    s.send(MALLORY, &format!("signup mal mpw {}", extras.join(" ")), "");
    s.poll();
    let mails = s.take_outbox();
    assert_eq!(mails.len(), 1, "{mails:#?}");
    assert_eq!(mails[0].to, MALLORY);
}
