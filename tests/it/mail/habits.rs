//! pbmserv players' habits through the real binary: Maildir in, `poll`,
//! Maildir out. Aliases and prefixes of verbs, `show board N`, `preview
//! new`, "did you mean", an empty Subject, the bracket and slash promotion
//! forms, and error mails that quote the command as sent with only the
//! password masked.

use crate::common;

use common::world::World;
use common::{only_one, Install, SentMail};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

/// alice (password apw) and bob (bpw) signed up, chess board 101 started
/// with alice as White; the outbox emptied.
fn board_101() -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    s.take_outbox();
    assert_eq!(
        s.ok(&["admin", "challenge", "chess", "alice", "bob"])
            .trim(),
        "101"
    );
    s.poll();
    s.take_outbox();
    s
}

/// Send one mail, poll, and return what the server sent.
fn exchange(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

fn shown(s: &Install) -> String {
    s.ok(&["admin", "show", "chess", "101", "--size", "small"])
}

#[test]
fn board_is_move_and_qmove_is_queue() {
    let mut s = board_101();
    let mails = exchange(&mut s, ALICE, "chess board 101 alice apw e4", "");
    let m = only_one(&mails, BOB);
    assert!(m.body.starts_with("It is bob's turn."), "{}", m.body);
    assert!(m.body.contains("e4"), "{}", m.body);
    // Queued out of turn with pbmserv's qmove, played when bob has moved.
    let mails = exchange(&mut s, ALICE, "chess qmove 101 alice apw Nf3", "");
    assert!(only_one(&mails, ALICE).body.contains("Nf3"), "{mails:#?}");
    exchange(&mut s, BOB, "chess move 101 bob bpw e5", "");
    assert!(shown(&s).starts_with("It is bob's turn."), "{}", shown(&s));
    assert!(shown(&s).contains("Nf3"), "{}", shown(&s));
}

#[test]
fn a_unique_prefix_is_the_verb_and_an_ambiguous_one_is_refused() {
    let mut s = Install::new();
    s.send(ALICE, "signu alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    assert_eq!(s.take_outbox().len(), 2);
    let mails = exchange(&mut s, ALICE, "chess chall alice bob", "");
    assert_eq!(mails.len(), 2, "{mails:#?}");
    assert!(only_one(&mails, BOB)
        .body
        .starts_with("It is alice's turn."));
    let mails = exchange(&mut s, ALICE, "chess s 101", "");
    let m = only_one(&mails, ALICE);
    assert!(m.subject.ends_with("Error"), "{}", m.subject);
    assert!(
        common::joined(&m.body).contains(
            "the second word could be submit, show, showas, subscribe, set, standings or seek"
        ),
        "{}",
        m.body
    );
    // signoff is never abbreviated.
    let mails = exchange(&mut s, ALICE, "signo alice apw", "");
    let m = only_one(&mails, ALICE);
    assert!(m.body.contains("written in full"), "{}", m.body);
    // A word the language does not know is masked (it may be a password); the
    // userid on file is not.
    assert!(m.body.contains("***** alice *****"), "{}", m.body);
}

#[test]
fn show_board_n_and_preview_new() {
    let mut s = board_101();
    let mails = exchange(&mut s, BOB, "chess show board 101", "");
    let m = only_one(&mails, BOB);
    assert!(m.subject.contains("Board 101"), "{}", m.subject);
    assert!(m.body.contains("It is alice's turn."), "{}", m.body);

    // No board needed: from the start position, sides named by colour.
    let mails = exchange(&mut s, BOB, "chess preview new e4 e5 Nf3", "");
    let m = only_one(&mails, BOB);
    assert_eq!(m.subject, "Chess preview");
    assert!(
        m.body
            .contains("Preview of a new Chess board from the start position"),
        "{}",
        m.body
    );
    assert!(m.body.contains("Nf3"), "{}", m.body);
    assert!(
        m.body
            .contains("After the previewed plies it would be Black's turn."),
        "{}",
        m.body
    );
    // Options as a challenge's; a bad move is refused by its place.
    let mails = exchange(&mut s, BOB, "doppelganger preview new -lenient e4 Ke3", "");
    let m = only_one(&mails, BOB);
    assert!(
        m.body
            .contains("Move 2 of your preview (Ke3, which would be ply 2) cannot be played"),
        "{}",
        m.body
    );
    let mails = exchange(&mut s, BOB, "chess preview new -lenient e4", "");
    let m = only_one(&mails, BOB);
    assert!(m.body.contains("no option -lenient"), "{}", m.body);
    // Nothing was stored.
    assert!(shown(&s).starts_with("It is alice's turn."));
}

#[test]
fn a_mistyped_game_or_verb_gets_did_you_mean() {
    let mut s = board_101();
    let mails = exchange(&mut s, ALICE, "chss move 101 alice apw e4", "");
    let m = only_one(&mails, ALICE);
    assert!(
        common::joined(&m.body)
            .contains("did you mean chess, as in: chess move 101 ***** ***** *****?"),
        "{}",
        m.body
    );
    assert!(!m.body.contains("apw"), "{}", m.body);
    let mails = exchange(&mut s, ALICE, "chess mvoe 101 alice apw e4", "");
    let m = only_one(&mails, ALICE);
    assert!(m.body.contains("did you mean move"), "{}", m.body);
    assert!(shown(&s).starts_with("It is alice's turn."));
}

#[test]
fn an_empty_subject_runs_the_first_body_line_and_says_so() {
    let mut s = board_101();
    let mails = exchange(
        &mut s,
        ALICE,
        "",
        "chess move 101 alice apw e4\nYour move, Bob!\n\n-- \nAlice",
    );
    let to_bob = only_one(&mails, BOB);
    assert!(
        to_bob.body.starts_with("It is bob's turn."),
        "{}",
        to_bob.body
    );
    // The rest of the body is the comment; the command line is not.
    assert!(to_bob.body.contains("Your move, Bob!"), "{}", to_bob.body);
    assert!(!to_bob.body.contains("apw"), "{}", to_bob.body);
    assert!(
        !to_bob.body.contains("Subject was empty"),
        "{}",
        to_bob.body
    );
    let to_alice = only_one(&mails, ALICE);
    assert!(
        to_alice.body.contains(
            "Your Subject was empty, so the first line of your mail was read as the command."
        ),
        "{}",
        to_alice.body
    );
    assert!(shown(&s).starts_with("It is bob's turn."));
}

#[test]
fn bracket_and_slash_promotions_are_read() {
    let mut s = board_101();
    for (from, who, pw, mv) in [
        (ALICE, "alice", "apw", "a4"),
        (BOB, "bob", "bpw", "h5"),
        (ALICE, "alice", "apw", "a5"),
        (BOB, "bob", "bpw", "h4"),
        (ALICE, "alice", "apw", "a6"),
        (BOB, "bob", "bpw", "h3"),
        (ALICE, "alice", "apw", "axb7"),
        (BOB, "bob", "bpw", "hxg2"),
        (ALICE, "alice", "apw", "bxa8(Q)"),
        (BOB, "bob", "bpw", "gxh1/Q"),
    ] {
        let mails = exchange(&mut s, from, &format!("chess move 101 {who} {pw} {mv}"), "");
        assert!(
            !only_one(&mails, from).subject.ends_with("Error"),
            "{mv}: {mails:#?}"
        );
    }
    let board = shown(&s);
    assert!(board.contains("bxa8=Q"), "{board}");
    assert!(board.contains("gxh1=Q"), "{board}");
}

#[test]
fn error_mails_quote_the_move_as_sent_and_mask_only_the_password() {
    let mut s = board_101();
    exchange(&mut s, ALICE, "chess move 101 alice apw e4", "");
    // b4 is a pawn move that Black cannot make: not the bishop move B4.
    let mails = exchange(&mut s, BOB, "chess move 101 bob bpw b4", "");
    let m = only_one(&mails, BOB);
    assert!(m.subject.ends_with("Error"), "{}", m.subject);
    assert!(
        m.body.contains("b4 is not a legal move: the pawn on b7"),
        "{}",
        m.body
    );
    assert!(!m.body.contains("B4"), "{}", m.body);
    assert!(
        m.body
            .contains("Your command was:\n  chess move 101 bob ***** b4"),
        "{}",
        m.body
    );

    // A userid on file is quoted; a word the server does not know (a new
    // userid, an address) is masked until a password is verified: it may
    // be the password in a wrong place.
    let dave = "dave@players.test";
    let mails = exchange(&mut s, dave, "signup dave", "");
    let m = only_one(&mails, dave);
    assert!(
        m.body.contains("Your command was:\n  signup *****\n"),
        "{}",
        m.body
    );
    let mails = exchange(&mut s, dave, "signup bob dpw dave@players.test", "");
    let m = only_one(&mails, dave);
    assert!(
        m.body
            .contains("Your command was:\n  signup bob ***** *****"),
        "{}",
        m.body
    );
    // A misplaced password: the word in the password's place is masked,
    // and so is the password where it stands.
    let mails = exchange(&mut s, BOB, "chess move 101 bob e5 bpw", "");
    let m = only_one(&mails, BOB);
    assert!(!m.body.contains("bpw"), "{}", m.body);
    assert!(
        m.body
            .contains("Your command was:\n  chess move 101 bob ***** *****"),
        "{}",
        m.body
    );
}

#[test]
fn limit_and_vacation_without_a_number_report() {
    let mut w = World::with_board();
    w.mail("a@x", "chess limit alice pa", "");
    let r = w.replies();
    assert_eq!(r.len(), 1, "{r:#?}");
    assert_eq!(r[0].to, "a@x");
    assert!(
        common::joined(&r[0].body)
            .contains("alice takes Chess challenges, with no limit (inf), and plays 1 active board of Chess now."),
        "{}",
        r[0].body
    );
    w.mail("a@x", "chess limit alice pa 3", "");
    w.replies();
    w.mail("a@x", "chess limit alice pa", "");
    let r = w.replies();
    assert!(
        r[0].body.contains("with at most 3 active boards at a time"),
        "{}",
        r[0].body
    );

    w.mail("a@x", "vacation alice pa", "");
    let r = w.replies();
    assert!(
        r[0].body
            .contains("alice is not on vacation, and has 30 of 30 vacation days left this year."),
        "{}",
        r[0].body
    );
    w.mail("a@x", "vacation alice pa 5", "");
    w.replies();
    w.mail("a@x", "vacation alice pa", "");
    let r = w.replies();
    assert!(
        common::joined(&r[0].body).contains("alice is on vacation until 2026-11-27 10:00 UTC"),
        "{}",
        r[0].body
    );
    assert!(
        common::joined(&r[0].body).contains("has 25 of 30 vacation days left"),
        "{}",
        r[0].body
    );
}
