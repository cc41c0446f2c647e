//! Accounts, through real mails and `poll` (the real
//! binary, Maildir in and out): passwords never echoed, wrong passwords
//! throttled, addresses confirmed before they get what players wrote,
//! commands counted, boards capped, flood forfeits unrated.

use crate::common;

use chrono::Duration;
use common::world::World;
use common::{only_one, to, Install, SentMail};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

/// `poll` with the log at info level; returns what it logged.
fn poll_logged(s: &Install) -> String {
    let out = common::pbmchess()
        .arg("--config")
        .arg(&s.config)
        .arg("poll")
        .env("RUST_LOG", "info")
        .output()
        .expect("the binary runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// The code in a confirmation mail's Subject (`confirm address alice K7Q2P9`).
fn code_of(mail: &SentMail) -> String {
    let words: Vec<&str> = mail.subject.split_whitespace().collect();
    assert_eq!(&words[..2], ["confirm", "address"], "{}", mail.subject);
    words[3].to_string()
}

/// alice and bob signed up, their addresses confirmed, a board between them.
fn two_players() -> Install {
    let mut s = Install::confirming("");
    for (addr, user, pw) in [(ALICE, "alice", "apw"), (BOB, "bob", "bpw")] {
        let mails = round(&mut s, addr, &format!("signup {user} {pw}"), "");
        let code = code_of(only_one(&mails, addr));
        let mails = round(
            &mut s,
            addr,
            &format!("Re: confirm address {user} {code}"),
            "",
        );
        assert!(
            only_one(&mails, addr).body.contains("is confirmed"),
            "{mails:#?}"
        );
    }
    round(&mut s, ALICE, "chess challenge alice bob", "");
    s
}

fn assert_nowhere(mails: &[SentMail], secret: &str) {
    for m in mails {
        assert!(!m.subject.contains(secret), "{secret} in {m:#?}");
        assert!(!m.body.contains(secret), "{secret} in {m:#?}");
    }
}

// ------------------------------------------------------------ masking

#[test]
fn a_password_typed_after_the_move_is_masked_in_the_reply_and_the_log() {
    let mut s = two_players();
    s.send(ALICE, "chess move 101 alice e4 apw", "");
    let log = poll_logged(&s);
    let mails = s.take_outbox();
    let reply = only_one(&mails, ALICE);
    // Its own password in a wrong place, from its own address: told so
    // ("out of order"), never repeated.
    assert!(
        reply.body.contains("The words are out of order"),
        "{}",
        reply.body
    );
    assert!(
        reply.body.contains("chess move 101 alice ***** *****"),
        "{}",
        reply.body
    );
    assert_nowhere(&mails, "apw");
    assert!(log.contains("mail processed"), "{log}");
    assert!(!log.contains("apw"), "{log}");
}

#[test]
fn a_password_in_a_chat_or_message_body_is_masked() {
    let mut s = two_players();
    let mails = round(
        &mut s,
        ALICE,
        "chess chat 101 alice apw",
        "my password is APW, do not tell",
    );
    let chat = only_one(&mails, BOB);
    assert!(
        chat.body.contains("my password is *****, do not tell"),
        "{}",
        chat.body
    );
    assert_nowhere(&mails, "APW");
    let mails = round(&mut s, BOB, "message bob bpw alice", "bpw is mine");
    assert!(only_one(&mails, ALICE).body.contains("***** is mine"));
    assert_nowhere(&mails, "bpw");
}

// ------------------------------------------------------------ throttle

fn guesses(userid: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("chess move 101 {userid} guess{i} e4\n"))
        .collect()
}

#[test]
fn fifty_guesses_in_one_mail_get_a_bounded_answer_and_lock_the_account() {
    let mut s = two_players();
    let mails = round(
        &mut s,
        "mallory@m.example",
        "multiple",
        &guesses("alice", 50),
    );
    let answer = only_one(&mails, "mallory@m.example");
    assert_eq!(
        answer
            .body
            .matches("The password for alice is wrong")
            .count(),
        5
    );
    assert_eq!(
        answer
            .body
            .matches("alice takes no password from addresses not on file for it until")
            .count(),
        1
    );
    // The owner is told once.
    let notice = only_one(&mails, ALICE);
    assert_eq!(notice.subject, "Account locked for a while");
    // Locked for strangers: the right password is refused too, without a
    // new notice.
    let mails = round(&mut s, "eve@e.example", "chess move 101 alice apw e4", "");
    assert!(only_one(&mails, "eve@e.example")
        .body
        .contains("alice takes no password from addresses not on file"));
    assert!(to(&mails, BOB).is_empty());
    assert!(to(&mails, ALICE).is_empty());
    // The admin's new password ends the lockout.
    s.ok(&["admin", "user", "passwd", "alice", "newpw"]);
    let mails = round(&mut s, "eve@e.example", "chess move 101 alice newpw e4", "");
    assert_eq!(only_one(&mails, BOB).subject, "Chess Board 101 bob");
}

#[test]
fn the_right_password_works_again_once_the_lockout_is_over() {
    // The binary's clock is the real one: the library with a test clock.
    // Guesses forged with alice's own address lock her own addresses out
    // (a stranger's lock only strangers: see mail::charges).
    let mut w = World::with_board();
    w.mail("a@x", "multiple", &guesses("alice", 7));
    w.replies();
    w.advance(Duration::minutes(14));
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    assert!(
        r[0].body.contains("alice takes no password until"),
        "{r:#?}"
    );
    w.advance(Duration::minutes(2));
    w.mail("a@x", "chess move 101 alice pa e4", "");
    let r = w.replies();
    assert!(
        r.iter().any(|m| m.subject == "Chess Board 101 bob"),
        "{r:#?}"
    );
}

#[test]
fn a_nonexistent_userid_gets_the_same_answers() {
    let mut s = two_players();
    let mails = round(
        &mut s,
        "mallory@m.example",
        "multiple",
        &guesses("nobody", 50),
    );
    assert_eq!(mails.len(), 1, "{mails:#?}");
    let answer = &mails[0].body;
    assert_eq!(answer.matches("There is no user by the userid").count(), 5);
    assert_eq!(
        answer
            .matches("The userid this command gives takes no password until")
            .count(),
        1
    );
    // Never repeated: a userid that does not exist may be a password.
    assert!(!answer.contains("nobody"), "{answer}");
}

// ------------------------------------------------------------ confirmation

const STRANGER: &str = "victim@v.example";

#[test]
fn a_stranger_address_gets_no_player_text_until_it_confirms() {
    let mut s = two_players();
    // Someone signs up with a stranger's address (a forged From).
    let mails = round(&mut s, STRANGER, "signup carol cpw", "");
    let welcome = only_one(&mails, STRANGER);
    let code = code_of(welcome);
    assert!(
        welcome.body.contains("Welcome to Test PBM, carol"),
        "{}",
        welcome.body
    );
    // The account may be challenged at once, but no board mail goes to
    // an address not confirmed (double opt-in).
    let mails = round(
        &mut s,
        ALICE,
        "chess challenge alice carol",
        "BUY CHEAP PILLS",
    );
    assert!(to(&mails, STRANGER).is_empty(), "{mails:#?}");
    // Chat and message bodies do not go there at all.
    let mails = round(&mut s, ALICE, "message alice apw carol", "BUY CHEAP PILLS");
    assert!(to(&mails, STRANGER).is_empty(), "{mails:#?}");
    let mails = round(&mut s, ALICE, "chess chat 102 alice apw", "BUY CHEAP PILLS");
    assert!(to(&mails, STRANGER).is_empty(), "{mails:#?}");
    // A wrong code is refused plainly.
    let mails = round(&mut s, STRANGER, "confirm address carol AAAAAA", "");
    assert!(
        only_one(&mails, STRANGER)
            .body
            .contains("That is not the code of any address of carol"),
        "{mails:#?}"
    );
    // The right one confirms; from then on player text arrives.
    let mails = round(
        &mut s,
        STRANGER,
        &format!("Re: confirm address carol {code}"),
        "",
    );
    // The answer brings the board, as it stands, without the comment.
    let answer = only_one(&mails, STRANGER);
    assert!(answer.body.contains("is confirmed"), "{}", answer.body);
    assert!(answer.body.contains("=== Chess Board 102 alice ==="));
    assert!(!answer.body.contains("PILLS"), "{}", answer.body);
    let mails = round(&mut s, ALICE, "message alice apw carol", "Hello carol");
    assert!(only_one(&mails, STRANGER).body.contains("Hello carol"));
    let mails = round(&mut s, ALICE, "chess chat 102 alice apw", "Good game");
    assert!(only_one(&mails, STRANGER).body.contains("Good game"));
}

#[test]
fn an_extra_or_changed_address_gets_only_its_confirmation_mail_until_confirmed() {
    let mut s = two_players();
    let extra = "extra@e-mail.org";
    let mails = round(
        &mut s,
        ALICE,
        &format!("change address alice apw {ALICE} {extra}"),
        "",
    );
    let confirmation = only_one(&mails, extra);
    let code = code_of(confirmation);
    assert!(common::joined(&confirmation.body).contains("If that was not you, ignore this mail"));
    // Nothing else reaches it: not board mails, not messages.
    let mails = round(&mut s, ALICE, "chess move 101 alice apw e4", "hi");
    assert!(to(&mails, extra).is_empty(), "{mails:#?}");
    assert_eq!(to(&mails, ALICE).len(), 1);
    let mails = round(&mut s, BOB, "message bob bpw alice", "hello");
    assert!(to(&mails, extra).is_empty(), "{mails:#?}");
    // Confirmed (the code may come from anywhere): it gets all.
    let mails = round(&mut s, ALICE, &format!("confirm address alice {code}"), "");
    let extras = to(&mails, extra);
    assert_eq!(extras.len(), 2, "{mails:#?}");
    assert!(extras
        .iter()
        .any(|m| m.body.contains("extra@e-mail.org of alice is confirmed")));
    // The confirmation brings the board of the account at once.
    assert!(extras.iter().any(|m| m.subject == "Chess Board 101 bob"));
    let mails = round(&mut s, BOB, "chess move 101 bob bpw e5", "your move");
    assert!(
        only_one(&mails, extra).body.contains("your move"),
        "{mails:#?}"
    );
    // The first address kept its confirmation through the change.
    assert!(only_one(&mails, ALICE).body.contains("your move"));
}

// ------------------------------------------------------------ limits

#[test]
fn a_multiple_of_fifty_challenges_counts_fifty_commands() {
    let mut s = Install::with_config("\n[limits]\ncommands_per_hour = 10\n");
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    let flood = "chess challenge alice bob\n".repeat(50);
    let mails = round(&mut s, "mallory@m.example", "multiple", &flood);
    // A stranger starts no board, and ten commands ran, not fifty: each was
    // refused, and counted.
    assert!(to(&mails, ALICE).is_empty(), "{mails:#?}");
    let refusals = only_one(&mails, "mallory@m.example")
        .body
        .matches("A challenge comes from one of its two players")
        .count();
    assert_eq!(refusals, 10, "{mails:#?}");
    let answer = only_one(&mails, "mallory@m.example");
    assert_eq!(answer.body.matches("more than 10 commands").count(), 1);
    // Further mail from that address is dropped unanswered.
    let mails = round(&mut s, "mallory@m.example", "help", "");
    assert!(mails.is_empty(), "{mails:#?}");
}

#[test]
fn mail_forged_from_a_players_address_does_not_stop_the_player() {
    let mut s = Install::with_config("\n[limits]\ncommands_per_hour = 5\n");
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    round(&mut s, BOB, "chess challenge alice bob", "");
    // Commands "from alice" without her password use up her address's
    // hour (seven different ones: a reading command repeated in one mail
    // is answered once and costs nothing again); her own move, with her
    // password, still runs.
    let body = format!(
        "{}chess move 101 alice apw e4\nchess show 101\n",
        [
            "help",
            "help chess",
            "chess games",
            "chess standings",
            "chess history",
            "chess players",
            "chess list",
        ]
        .map(|c| format!("{c}\n"))
        .concat()
    );
    let mails = round(&mut s, ALICE, "multiple", &body);
    assert_eq!(only_one(&mails, BOB).subject, "Chess Board 101 bob");
    let answer = only_one(&mails, ALICE);
    assert!(
        answer.body.contains("more than 5 commands"),
        "{}",
        answer.body
    );
    // The show after the move is dropped: it carries no password.
    assert!(
        !answer.body.contains("Chess Board 101 bob\n"),
        "{}",
        answer.body
    );
}

#[test]
fn an_account_has_its_own_hourly_limit() {
    let mut s = Install::with_config("\n[limits]\ncommands_per_hour_per_account = 3\n");
    round(&mut s, ALICE, "signup alice apw", "");
    let mails = round(
        &mut s,
        ALICE,
        "multiple",
        &"chess set alice apw small\n".repeat(6),
    );
    let body = &only_one(&mails, ALICE).body;
    assert_eq!(
        body.matches("From now on your Chess boards").count(),
        3,
        "{body}"
    );
    assert_eq!(
        body.matches("alice has sent the 3 commands").count(),
        1,
        "{body}"
    );
}

#[test]
fn the_servers_limit_stops_strangers_but_not_players_proving_their_password() {
    let mut s = Install::with_config("\n[limits]\ncommands_per_hour_total = 4\n");
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    // Two signups and a challenge (no password) counted; a stranger's
    // command more fills the hour.
    round(&mut s, BOB, "chess challenge alice bob", "");
    round(&mut s, "dave@d.example", "help", "");
    let mails = round(
        &mut s,
        "erin@e.example",
        "multiple",
        "help
help chess
",
    );
    let answer = &only_one(&mails, "erin@e.example").body;
    assert_eq!(
        answer.matches("taken all the 4 commands").count(),
        1,
        "{answer}"
    );
    // The players' moves, proved by their passwords, still run that hour.
    let moves = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"];
    for (i, m) in moves.iter().enumerate() {
        let (from, who, pw) = if i % 2 == 0 {
            (ALICE, "alice", "apw")
        } else {
            (BOB, "bob", "bpw")
        };
        let mails = round(&mut s, from, &format!("chess move 101 {who} {pw} {m}"), "");
        assert!(
            mails.iter().all(|m| !m.subject.contains("Error")),
            "{mails:#?}"
        );
    }
    let mails = round(&mut s, ALICE, "chess move 101 alice apw O-O", "");
    assert_eq!(only_one(&mails, BOB).subject, "Chess Board 101 bob");
    // A wrong password from the player's quiet address is still checked
    // (and counts as a stranger's command); a stranger's command is not.
    let mails = round(&mut s, BOB, "chess move 101 bob guess Nf6", "");
    let answer = &only_one(&mails, BOB).body;
    assert!(answer.contains("password"), "{answer}");
    assert!(!answer.contains("taken all the"), "{answer}");
    let mails = round(&mut s, "carol@c.example", "help", "");
    assert!(
        only_one(&mails, "carol@c.example")
            .body
            .contains("taken all the 4 commands"),
        "{mails:#?}"
    );
}

#[test]
fn a_player_is_put_on_a_limited_number_of_boards_a_day() {
    let mut s = Install::with_config("\n[limits]\nboards_per_player_per_day = 3\n");
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    let mails = round(
        &mut s,
        BOB,
        "multiple",
        &"chess challenge bob alice\n".repeat(5),
    );
    assert_eq!(to(&mails, ALICE).len(), 3, "{mails:#?}");
    let body = &only_one(&mails, BOB).body;
    assert_eq!(
        body.matches("bob has been put on 3 new boards in the last 24 hours")
            .count(),
        2,
        "{body}"
    );
    // The admin is not limited.
    s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
}

// ------------------------------------------------------------ flood forfeits

#[test]
fn a_forfeit_of_a_board_the_absent_player_never_moved_on_is_unrated() {
    let mut s = Install::new();
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    // 101: both moved, alice is absent. 102: bob never moved.
    round(&mut s, ALICE, "chess challenge alice bob", "");
    round(&mut s, ALICE, "chess challenge alice bob", "");
    round(&mut s, ALICE, "chess move 101 alice apw e4", "");
    round(&mut s, BOB, "chess move 101 bob bpw e5", "");
    round(&mut s, ALICE, "chess move 102 alice apw e4", "");
    let later = (chrono::Utc::now() + Duration::days(30)).to_rfc3339();
    s.ok(&["tick", "--now", &later]);
    let mails = s.take_outbox();
    let of = |board: &str| -> &SentMail {
        mails
            .iter()
            .find(|m| m.to == BOB && m.body.contains(&format!("Chess Board {board}:")))
            .unwrap_or_else(|| panic!("no mail of board {board}: {mails:#?}"))
    };
    assert!(of("101").body.contains("rating went"), "{}", of("101").body);
    let unrated = &of("102").body;
    assert!(
        common::joined(unrated).contains("unrated, as bob never moved"),
        "{unrated}"
    );
    assert!(!unrated.contains("rating went"), "{unrated}");
    let mails = round(&mut s, BOB, "chess standings", "");
    let table = &only_one(&mails, BOB).body;
    assert!(table.contains("1616") || table.contains("1584"), "{table}");
}

// ------------------------------------------------------------ lookalikes

#[test]
fn a_userid_that_looks_like_a_players_is_refused() {
    let mut s = Install::new();
    round(&mut s, ALICE, "signup alice apw", "");
    for lookalike in ["a1ice", "aIice", "a.lice"] {
        let mails = round(
            &mut s,
            "mallory@m.example",
            &format!("signup {lookalike} mpw"),
            "",
        );
        let body = &only_one(&mails, "mallory@m.example").body;
        assert!(body.contains("looks too much like alice"), "{body}");
    }
    let mails = round(&mut s, "mallory@m.example", "signup alicia mpw", "");
    assert!(only_one(&mails, "mallory@m.example")
        .subject
        .contains("Welcome"));
}

#[test]
fn a_nonexistent_userid_costs_the_same_password_checks_as_a_wrong_password() {
    use pbmchess::mail::Envelope;
    use pbmchess::server::Server;
    let mut w = World::with_board();
    let mut checks = |subject: &str| {
        let server = Server::new(&w.config, &w.clock, &w.templates);
        let env = Envelope {
            message_id: format!("{subject}@t"),
            sender: Some("m@x".into()),
            subject: subject.into(),
            body: String::new(),
            comment: String::new(),
            never_answer: None,
            replied_to: Vec::new(),
            auth_results: Vec::new(),
        };
        server.handle_mail(&mut w.conn, &env, 100).unwrap();
        server.credentials.stats().verifications
    };
    let wrong = checks("chess move 101 alice nope e4");
    let unknown = checks("chess move 101 nobody nope e4");
    assert_eq!(wrong, unknown);
    // The words after a wrong password are masked, not checked (see
    // `server::guard`).
    assert_eq!(wrong, 1, "the password only");
}

#[test]
fn mails_without_a_command_count_against_the_address_too() {
    let mut s = Install::with_config("\n[limits]\ncommands_per_hour = 3\n");
    for _ in 0..3 {
        let mails = round(&mut s, "mallory@m.example", "buy cheap pills", "");
        assert_eq!(mails.len(), 1, "{mails:#?}");
    }
    // The fourth is told the limit, once; after it nothing is answered.
    let mails = round(&mut s, "mallory@m.example", "", "");
    assert!(only_one(&mails, "mallory@m.example")
        .body
        .contains("more than 3 commands"));
    for subject in ["", "buy cheap pills", "help"] {
        let mails = round(&mut s, "mallory@m.example", subject, "");
        assert!(mails.is_empty(), "{mails:#?}");
    }
}

#[test]
fn the_comment_of_a_queued_move_does_not_reach_an_unconfirmed_address() {
    let mut s = two_players();
    round(&mut s, STRANGER, "signup carol cpw", "");
    round(&mut s, ALICE, "chess challenge alice carol", "");
    round(&mut s, ALICE, "chess move 102 alice apw e4", "");
    round(
        &mut s,
        ALICE,
        "chess queue 102 alice apw Nf3",
        "BUY CHEAP PILLS",
    );
    let mails = round(&mut s, STRANGER, "chess move 102 carol cpw e5", "");
    let alices: Vec<SentMail> = to(&mails, ALICE).into_iter().cloned().collect();
    assert!(
        alices
            .iter()
            .any(|m| m.body.contains("alice wrote with it: BUY CHEAP PILLS")),
        "{alices:#?}"
    );
    let carols: Vec<SentMail> = to(&mails, STRANGER).into_iter().cloned().collect();
    assert!(carols.iter().any(|m| m.body.contains("Nf3")), "{carols:#?}");
    assert_nowhere(&carols, "PILLS");
}
