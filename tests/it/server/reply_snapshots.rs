//! Whole reply mails pinned as snapshots: a turn mail with a comment, a
//! small-board turn mail, an error mail and the final mail of a game.

use crate::common;

use common::world::World;
use pbmchess::mail::Outgoing;

fn as_text(m: &Outgoing) -> String {
    format!("To: {}\nSubject: {}\n\n{}", m.to, m.subject, m.body)
}

fn find<'a>(mails: &'a [Outgoing], to: &str) -> &'a Outgoing {
    mails
        .iter()
        .find(|m| m.to == to)
        .expect("a mail to that address")
}

#[test]
fn turn_mail_with_a_comment_large_and_small() {
    let mut w = World::with_board();
    w.mail("b@x", "chess set bob pb small", "");
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.replies();
    w.mail("b@x", "chess move 101 bob pb c5", "Sicilian, of course.");
    let r = w.replies();
    insta::assert_snapshot!("turn_mail_large", as_text(find(&r, "a@x")));
    insta::assert_snapshot!("turn_mail_small", as_text(find(&r, "b@x")));
}

#[test]
fn error_mail_for_an_illegal_move() {
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa Nf6", "");
    let r = w.replies();
    insta::assert_snapshot!("error_mail", as_text(find(&r, "a@x")));
}

#[test]
fn final_mail_of_a_mate() {
    let mut w = World::with_board();
    for (from, subject) in [
        ("a@x", "chess move 101 alice pa f3"),
        ("b@x", "chess move 101 bob pb e5"),
        ("a@x", "chess move 101 alice pa g4"),
    ] {
        w.mail(from, subject, "");
    }
    w.replies();
    w.mail("b@x", "chess move 101 bob pb Qh4", "");
    let r = w.replies();
    insta::assert_snapshot!("final_mail", as_text(find(&r, "a@x")));
}
