//! German letters, figurines and a `My move:` phrase by mail, in chess
//! and Double Chess; refused in Zelig.

use crate::common::{to, Install, SentMail};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

fn board(game: &str) -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    s.take_outbox();
    let n = s.ok(&["admin", "challenge", game, "alice", "bob"]);
    assert_eq!(n.trim(), "101");
    s.poll();
    s.take_outbox();
    s
}

fn exchange(s: &mut Install, from: &str, subject: &str) -> Vec<SentMail> {
    s.send(from, subject, "");
    s.poll();
    s.take_outbox()
}

#[test]
fn german_and_figurine_moves_are_played_in_chess_and_double_chess() {
    for game in ["chess", "doublechess"] {
        let mut s = board(game);
        let mails = exchange(&mut s, ALICE, &format!("{game} move 101 alice apw Sc3"));
        assert_eq!(to(&mails, BOB).len(), 1, "{game}: {mails:#?}");
        let mails = exchange(&mut s, BOB, &format!("{game} move 101 bob bpw ♞c6"));
        assert_eq!(to(&mails, ALICE).len(), 1, "{game}: {mails:#?}");
        let shown = s.ok(&["admin", "show", game, "101", "--size", "small"]);
        assert!(
            shown.contains("Nc3") && shown.contains("Nc6"),
            "{game}: {shown}"
        );
    }
}

#[test]
fn a_german_letter_is_refused_in_zelig() {
    let mut s = board("zelig");
    let mails = exchange(&mut s, ALICE, "zelig move 101 alice apw Sf3");
    let own = to(&mails, ALICE);
    assert_eq!(own.len(), 1, "{mails:#?}");
    assert!(own[0].body.contains("Sf3"), "{}", own[0].body);
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
}

#[test]
fn a_move_after_my_move_is_played_by_mail_and_refused_in_zelig() {
    for game in ["chess", "doublechess"] {
        let mut s = board(game);
        let opening = if game == "chess" { "e4" } else { "i4" };
        let mails = exchange(
            &mut s,
            ALICE,
            &format!("{game} move 101 alice apw Move: {opening}"),
        );
        assert_eq!(to(&mails, BOB).len(), 1, "{game}: {mails:#?}");
        let mails = exchange(&mut s, BOB, &format!("{game} move 101 bob bpw My move: d6"));
        assert_eq!(to(&mails, ALICE).len(), 1, "{game}: {mails:#?}");
        assert!(
            !to(&mails, BOB)[0].subject.ends_with("Error"),
            "{game}: {mails:#?}"
        );
        let shown = s.ok(&["admin", "show", game, "101", "--size", "small"]);
        assert!(
            shown.contains(opening) && shown.contains("d6"),
            "{game}: {shown}"
        );
    }
    // Where the phrase is not read, the move is refused and nothing played.
    let mut s = board("zelig");
    let mails = exchange(&mut s, ALICE, "zelig move 101 alice apw My move: e4");
    assert_eq!(to(&mails, ALICE).len(), 1, "{mails:#?}");
    assert!(
        to(&mails, ALICE)[0].subject.ends_with("Error"),
        "{mails:#?}"
    );
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
}
