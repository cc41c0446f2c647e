//! Double Chess played by mail through the real binary, reusing the server
//! as it is: challenge, moves in both notations, castling, show, resignation.

use crate::common;

use common::{only_one, to, Install};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

#[test]
fn a_double_chess_game_with_castling_to_resignation() {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(BOB, "doublechess set bob bpw small", "");
    s.send(ALICE, "doublechess challenge alice bob", "");
    s.poll();
    let mails = s.take_outbox();
    let board = to(&mails, ALICE).pop().unwrap().clone();
    assert_eq!(board.subject, "New Double Chess Board 101 alice");
    // The large board is 16 files wide, the small one for bob too.
    assert!(
        board
            .body
            .contains("      a   b   c   d   e   f   g   h   i   j   k   l   m   n   o   p"),
        "{}",
        board.body
    );
    let small = to(&mails, BOB).pop().unwrap().clone();
    assert!(
        small
            .body
            .contains(" 1 | r n b q r n b q k b n r q b n r |  1"),
        "{}",
        small.body
    );

    let moves = [
        (ALICE, "alice apw", "Nl3", "bob"),
        (BOB, "bob bpw", "i7i5", "alice"),
        (ALICE, "alice apw", "k3", "bob"),
        (BOB, "bob bpw", "Nl6", "alice"),
        (ALICE, "alice apw", "Bk2", "bob"),
        (BOB, "bob bpw", "a6", "alice"),
        // Inside kingside castling written as the king's move.
        (ALICE, "alice apw", "Kk1", "bob"),
    ];
    for (from, who, mv, next) in moves {
        s.send(from, &format!("doublechess move 101 {who} {mv}"), "");
        s.poll();
        let mails = s.take_outbox();
        let m = only_one(&mails, ALICE);
        assert_eq!(
            m.subject,
            format!("Double Chess Board 101 {next}"),
            "{mv}: {}",
            m.body
        );
    }
    let shown = s.ok(&["admin", "show", "doublechess", "101", "--size", "small"]);
    assert!(
        shown.contains("\n4. O-O"),
        "castling is echoed in SAN: {shown}"
    );
    assert!(
        shown.contains(" 1 | r n b q r n b q - r k   q b n r |  1"),
        "king on k1, rook on j1: {shown}"
    );

    // Black may not castle through the knight's square yet.
    s.send(BOB, "doublechess move 101 bob bpw O-O", "");
    s.poll();
    let mails = s.take_outbox();
    let err = only_one(&mails, BOB);
    assert_eq!(err.subject, "Double Chess Board 101 Error");
    assert!(err.body.contains("O-O"), "{}", err.body);

    s.send(BOB, "doublechess resign 101 bob bpw", "I give up.");
    s.poll();
    let mails = s.take_outbox();
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert_eq!(m.subject, "Double Chess Board 101 finished **");
        assert!(
            m.body.starts_with("Game won by alice (resignation)."),
            "{}",
            m.body
        );
        assert!(m.body.contains("alice's rating went up from 1600 to 1616."));
        assert!(m.body.contains("I give up."));
    }
    // Ratings are per game: chess is untouched.
    s.send(ALICE, "help doublechess", "");
    s.poll();
    let help = s.take_outbox();
    assert!(only_one(&help, ALICE).body.contains("O-O-O-O-O"));
}

#[test]
fn a_double_chess_draw_by_agreement_and_show_by_mail() {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(BOB, "doublechess challenge alice bob", "");
    s.send(ALICE, "doublechess move 101 alice apw i2i4", "");
    s.send(BOB, "doublechess move 101 bob bpw p5", "");
    s.poll();
    s.take_outbox();

    s.send(BOB, "doublechess show 101", "");
    s.poll();
    let mails = s.take_outbox();
    let shown = only_one(&mails, BOB);
    assert_eq!(shown.subject, "Double Chess Board 101 alice");
    assert!(
        shown
            .body
            .lines()
            .any(|l| l.starts_with("1. i4") && l.ends_with(" p5")),
        "{}",
        shown.body
    );

    s.send(ALICE, "doublechess move 101 alice apw propose", "");
    s.send(BOB, "doublechess move 101 bob bpw accept", "");
    s.poll();
    let mails = s.take_outbox();
    let last = to(&mails, ALICE).pop().unwrap().clone();
    assert!(
        last.body.starts_with("Game was a tie (agreement)."),
        "{}",
        last.body
    );
    assert!(last.body.contains("alice's rating stayed at 1600."));
}
