//! Smaller things found while playing, through the real binary (Maildir in,
//! `poll`, Maildir out): a message to a player whose address is not
//! confirmed, a comment held back from an unconfirmed address,
//! Doppelganger's promotion refusal, the `queue` suggestion out of turn,
//! Zelig powers told only when they change, wrong check marks corrected
//! aloud, singular and plural in listings, help page underlines.

use crate::common;

use common::{only_one, to, Install, SentMail, SERVER_ADDRESS};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";
const CAROL: &str = "carol@c.example";

/// Send one mail, poll, and return what the server sent; every line of
/// every mail sent stays within 78 columns.
fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    let mails = s.take_outbox();
    for m in &mails {
        for line in m.body.lines() {
            assert!(line.chars().count() <= 78, "{line:?} in {m:#?}");
        }
    }
    mails
}

/// The code in a confirmation mail's Subject (`confirm address alice K7Q2P9`).
fn code_of(mail: &SentMail) -> String {
    let words: Vec<&str> = mail.subject.split_whitespace().collect();
    assert_eq!(&words[..2], ["confirm", "address"], "{}", mail.subject);
    words[3].to_string()
}

/// alice and bob signed up with confirmed addresses; carol signed up and
/// has not confirmed hers. Returns carol's welcome mail code too.
fn alice_bob_and_unconfirmed_carol() -> (Install, String) {
    let mut s = Install::confirming("");
    for (addr, user, pw) in [(ALICE, "alice", "apw"), (BOB, "bob", "bpw")] {
        let mails = round(&mut s, addr, &format!("signup {user} {pw}"), "");
        let code = code_of(only_one(&mails, addr));
        let mails = round(&mut s, addr, &format!("confirm address {user} {code}"), "");
        assert!(only_one(&mails, addr).body.contains("is confirmed"));
    }
    let mails = round(&mut s, CAROL, "signup carol cpw", "");
    let code = code_of(only_one(&mails, CAROL));
    (s, code)
}

/// alice (apw) and bob (bpw), addresses counted as confirmed, and a board
/// 101 of `game` with alice as White; the outbox emptied.
fn board(game: &str) -> Install {
    let mut s = Install::new();
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, BOB, "signup bob bpw", "");
    round(&mut s, ALICE, &format!("{game} challenge alice bob"), "");
    s
}

/// Play `moves` alternately from alice and bob on board 101 of `game`,
/// each accepted (no error mail).
fn play(s: &mut Install, game: &str, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let (from, who) = if i % 2 == 0 {
            (ALICE, "alice apw")
        } else {
            (BOB, "bob bpw")
        };
        let mails = round(s, from, &format!("{game} move 101 {who} {m}"), "");
        assert!(
            mails.iter().all(|m| !m.subject.ends_with("Error")),
            "{m}: {mails:#?}"
        );
    }
}

/// The error mail `from` gets for `subject`.
fn refused(s: &mut Install, from: &str, subject: &str) -> String {
    let mails = round(s, from, subject, "");
    let m = only_one(&mails, from);
    assert!(m.subject.ends_with("Error"), "{m:#?}");
    common::joined(&m.body)
}

// ------------------------------------------------------------ messages

#[test]
fn a_message_names_who_did_not_get_it_and_the_recipient_hears_of_it_on_confirming() {
    let (mut s, code) = alice_bob_and_unconfirmed_carol();
    let mails = round(
        &mut s,
        ALICE,
        "message alice apw bob carol",
        "See you at the club.",
    );
    // bob gets it; nothing goes to carol's unconfirmed address.
    assert!(only_one(&mails, BOB).body.contains("See you at the club."));
    assert!(to(&mails, CAROL).is_empty(), "{mails:#?}");
    let answer = common::joined(&only_one(&mails, ALICE).body);
    assert!(answer.contains("Your message went to bob."), "{answer}");
    assert!(!answer.contains("bob, carol"), "{answer}");
    assert!(
        answer.contains("It did not go to carol: carol has no confirmed mail address yet"),
        "{answer}"
    );
    // Twice more: still one line for alice, with the count.
    round(&mut s, ALICE, "message alice apw carol", "Hello?");
    let mails = round(&mut s, ALICE, "message alice apw carol", "Hello?");
    let answer = common::joined(&only_one(&mails, ALICE).body);
    assert!(answer.contains("Your message went to nobody."), "{answer}");
    assert!(to(&mails, CAROL).is_empty(), "{mails:#?}");

    // carol confirms: the answer tells her, without the text.
    let mails = round(&mut s, CAROL, &format!("confirm address carol {code}"), "");
    let confirmed = mails
        .iter()
        .find(|m| m.subject == "Address confirmed")
        .expect("the confirmation answer");
    let body = common::joined(&confirmed.body);
    assert!(
        body.contains("3 messages to carol from alice (3) were held back"),
        "{body}"
    );
    assert!(body.contains("send it again"), "{body}");
    for m in &mails {
        assert!(
            !m.body.contains("club") && !m.body.contains("Hello?"),
            "{m:#?}"
        );
    }
    // Told once.
    let mails = round(&mut s, ALICE, "message alice apw carol", "Now?");
    assert!(only_one(&mails, CAROL).body.contains("Now?"));
    assert!(only_one(&mails, ALICE)
        .body
        .contains("Your message went to carol."));
}

#[test]
fn a_chat_names_who_did_not_get_it_and_keeps_nothing_for_them() {
    let (mut s, code) = alice_bob_and_unconfirmed_carol();
    round(&mut s, ALICE, "chess challenge alice carol", "");
    round(&mut s, BOB, "chess subscribe 101 bob bpw", "");
    let mails = round(&mut s, ALICE, "chess chat 101 alice apw", "Good luck!");
    assert!(only_one(&mails, BOB).body.contains("Good luck!"));
    assert!(to(&mails, CAROL).is_empty(), "{mails:#?}");
    let own = common::joined(&only_one(&mails, ALICE).body);
    assert!(own.contains("Good luck!"), "{own}");
    assert!(
        own.contains("It did not go to carol: carol has no confirmed mail address yet"),
        "{own}"
    );
    // bob's copy says nothing of carol's address.
    assert!(!only_one(&mails, BOB).body.contains("did not go"));
    let mails = round(&mut s, CAROL, &format!("confirm address carol {code}"), "");
    // Confirming brings the board too, in one mail with the answer.
    let confirmed = only_one(&mails, CAROL);
    let body = common::joined(&confirmed.body);
    assert!(
        body.contains("1 message to carol from alice was held back"),
        "{body}"
    );
    assert!(mails.iter().all(|m| !m.body.contains("Good luck")));
}

#[test]
fn a_new_confirmation_mail_carries_the_held_back_notice_once() {
    let (mut s, _) = alice_bob_and_unconfirmed_carol();
    round(&mut s, BOB, "message bob bpw carol", "Secret plans.");
    // carol asks for a new address (a day later is not needed: another
    // address gets its own confirmation mail).
    let other = "carol@e-mail.org";
    let mails = round(
        &mut s,
        CAROL,
        &format!("change address carol cpw {other}"),
        "",
    );
    let confirmation = only_one(&mails, other);
    let body = common::joined(&confirmation.body);
    assert!(
        body.contains("1 message to carol from bob was held back"),
        "{body}"
    );
    assert!(!body.contains("Secret plans"), "{body}");
    // The code and how to confirm are in the same mail.
    assert!(body.contains("confirm address carol"), "{body}");
    let code = code_of(confirmation);
    let mails = round(&mut s, other, &format!("confirm address carol {code}"), "");
    for m in &mails {
        assert!(!m.body.contains("held back"), "told twice: {m:#?}");
    }
}

#[test]
fn a_comment_left_out_of_an_unconfirmed_players_board_mail_is_announced() {
    let (mut s, _) = alice_bob_and_unconfirmed_carol();
    round(&mut s, ALICE, "chess challenge alice carol", "");
    round(&mut s, ALICE, "chess move 101 alice apw e4", "");
    round(
        &mut s,
        ALICE,
        "chess queue 101 alice apw Nf3",
        "Nice weather.",
    );
    let mails = round(&mut s, CAROL, "chess move 101 carol cpw e5", "");
    let carols: Vec<&SentMail> = to(&mails, CAROL);
    assert!(!carols.is_empty(), "{mails:#?}");
    let body = common::joined(&carols[0].body);
    assert!(body.contains("Nf3"), "{body}");
    assert!(!body.contains("Nice weather"), "{body}");
    assert!(
        body.contains(
            "A comment from alice is held back from this mail: this address is not confirmed"
        ),
        "{body}"
    );
    assert!(body.contains("reply to its confirmation mail"), "{body}");
    // alice, confirmed, reads her own comment and no such notice.
    let alices = to(&mails, ALICE);
    assert!(alices.iter().any(|m| m.body.contains("Nice weather.")));
    assert!(alices.iter().all(|m| !m.body.contains("held back")));
}

// ------------------------------------------------------------ moves

#[test]
fn a_doppelganger_promotion_to_a_queen_says_the_rule_and_lists_the_promotions() {
    let mut s = board("doppelganger");
    // 2. hxg5/h7 takes g5 and removes h7; the g-pawn walks to g7.
    play(
        &mut s,
        "doppelganger",
        &["h4", "g5", "hxg5/h7", "a6", "g6", "a5", "g7", "a4"],
    );
    let e = refused(&mut s, ALICE, "doppelganger move 101 alice apw gxh8=Q/b2");
    assert!(
        e.contains("gxh8=Q/b2 is not a legal move: in Doppelganger Chess a pawn promotes to a pair of rooks, knights or bishops, never to a queen"),
        "{e}"
    );
    assert!(
        e.contains("the legal promotions there are gxh8=B/b2, gxh8=N/b2 or gxh8=R/b2."),
        "{e}"
    );
    assert!(!e.contains("not a move I can read"), "{e}");
    // Without the choice, every legal promotion there is listed.
    let e = refused(&mut s, ALICE, "doppelganger move 101 alice apw gxf8=Q");
    assert!(e.contains("gxf8=R/a2"), "{e}");
    assert!(e.contains("gxf8=B/f2"), "{e}");
}

#[test]
fn a_move_out_of_turn_is_answered_with_the_queue_command() {
    let mut s = board("chess");
    let e = refused(&mut s, BOB, "chess move 101 bob bpw e5");
    assert!(
        e.contains("It is alice's turn on chess board 101, not yours."),
        "{e}"
    );
    assert!(e.contains("chess queue 101 bob <password> e5"), "{e}");
    assert!(!e.contains("bpw"), "{e}");
    // The suggestion works as written.
    let mails = round(&mut s, BOB, "chess queue 101 bob bpw e5", "");
    assert!(only_one(&mails, BOB).body.contains("queued"), "{mails:#?}");
}

#[test]
fn a_zelig_power_is_told_only_when_it_changed() {
    let mut s = board("mchess");
    // The b1 zelig (a knight) lands on c3 and becomes a bishop: told.
    let mails = round(&mut s, ALICE, "mchess move 101 alice apw b1c3", "");
    let body = &only_one(&mails, BOB).body;
    assert!(body.contains("White's zelig on c3 is a bishop."), "{body}");
    round(&mut s, BOB, "mchess move 101 bob bpw a6", "");
    round(&mut s, ALICE, "mchess move 101 alice apw d4", "");
    round(&mut s, BOB, "mchess move 101 bob bpw a5", "");
    // The d1 queen stays on the d-file: still a queen, nothing told.
    let mails = round(&mut s, ALICE, "mchess move 101 alice apw Zd3", "");
    let body = &only_one(&mails, BOB).body;
    assert!(body.contains("Zd3"), "{body}");
    assert!(!body.contains("zelig on d3 is a"), "{body}");
}

#[test]
fn a_wrong_check_mark_is_corrected_and_said_in_the_reply() {
    let mut s = board("chess");
    play(&mut s, "chess", &["e4", "f5"]);
    // Qh5+ is check, not mate (g6 blocks).
    let mails = round(&mut s, ALICE, "chess move 101 alice apw Qh5#", "");
    for addr in [ALICE, BOB] {
        let body = common::joined(&to(&mails, addr)[0].body);
        assert!(
            body.contains(
                "alice wrote Qh5#, but that move is check, not checkmate: it is recorded as Qh5+."
            ),
            "{body}"
        );
    }
    // A check mark on a quiet move.
    let mails = round(&mut s, BOB, "chess move 101 bob bpw g6+", "");
    let body = common::joined(&only_one(&mails, ALICE).body);
    assert!(
        body.contains("bob wrote g6+, but that move is not check: it is recorded as g6."),
        "{body}"
    );
    // A right mark, or none, says nothing.
    let mails = round(&mut s, ALICE, "chess move 101 alice apw Qxg6+", "");
    let body = &only_one(&mails, BOB).body;
    assert!(!body.contains("recorded as"), "{body}");
    let mails = round(&mut s, BOB, "chess move 101 bob bpw hxg6", "");
    let body = &only_one(&mails, ALICE).body;
    assert!(!body.contains("recorded as"), "{body}");
    // The record holds the rules' marks.
    let shown = s.ok(&["admin", "show", "chess", "101"]);
    assert!(shown.contains("Qh5+"), "{shown}");
    assert!(!shown.contains("Qh5#"), "{shown}");
}

// ------------------------------------------------------------ listings

#[test]
fn listings_say_one_game_and_two_games() {
    let mut s = board("chess");
    play(&mut s, "chess", &["e4", "e5"]);
    round(&mut s, ALICE, "chess resign 101 alice apw", "");
    let mails = round(&mut s, BOB, "chess players", "");
    let body = &only_one(&mails, BOB).body;
    assert!(body.contains("    1 game "), "{body}");
    assert!(!body.contains("1 games"), "{body}");
    // A second finished game: plural, in the same column.
    round(&mut s, ALICE, "chess challenge alice bob", "");
    let mails = round(&mut s, ALICE, "chess move 102 alice apw e4", "");
    assert!(mails.iter().all(|m| !m.subject.ends_with("Error")));
    round(&mut s, BOB, "chess move 102 bob bpw e5", "");
    round(&mut s, BOB, "chess resign 102 bob bpw", "");
    let mails = round(&mut s, BOB, "chess players", "");
    let body = &only_one(&mails, BOB).body;
    assert!(body.contains("    2 games"), "{body}");
    let one = body.lines().find(|l| l.starts_with("alice")).unwrap();
    let col = |l: &str| l.find("game").unwrap();
    assert_eq!(
        col(one),
        col(body.lines().find(|l| l.starts_with("bob")).unwrap())
    );
}

// ------------------------------------------------------------ help

/// Every `===` line under a title is exactly as long as the title.
fn assert_underlines_fit(page: &str, body: &str) {
    let lines: Vec<&str> = body.lines().collect();
    let mut seen = 0;
    for pair in lines.windows(2) {
        let under = pair[1].trim_end();
        if under.len() >= 3 && under.chars().all(|c| c == '=' || c == '-') {
            seen += 1;
            assert_eq!(
                under.chars().count(),
                pair[0].trim_end().chars().count(),
                "{page}: {:?} underlined by {under:?}",
                pair[0]
            );
        }
    }
    assert!(seen > 0, "{page} has no title: {body}");
}

#[test]
fn every_help_page_title_is_underlined_to_its_length_whatever_the_server_name() {
    for name in [
        "Test PBM",
        "The Rather Longer Chess Server Name",
        "The Correspondence Chess Club of Greater Little Snoring Server",
        "The Correspondence Chess Club of Greater Little Snoring and District Server",
    ] {
        let mut s = Install::with_whole_config(&format!(
            "[server]\naddress = \"{SERVER_ADDRESS}\"\nname = \"{name}\"\n\n[database]\npath = \"var/db.sqlite\"\n\n[inbox]\nkind = \"maildir\"\npath = \"var/inbox\"\n\n[outbox]\nkind = \"maildir\"\npath = \"var/outbox\"\n"
        ));
        let mut pages = vec![
            "help".to_string(),
            "help commands".into(),
            "help reply".into(),
            "help if".into(),
            "help tournament".into(),
        ];
        for game in game::command::GAME_NAMES {
            pages.push(format!("help {game}"));
        }
        for page in &pages {
            // `round` checks every line's width.
            let mails = round(&mut s, ALICE, page, "");
            let body = &only_one(&mails, ALICE).body;
            if page == "help" {
                let shown = name.get(..75).unwrap_or(name);
                assert!(body.starts_with(shown), "{body}");
            }
            assert_underlines_fit(page, body);
        }
    }
}
