//! Pasted PGN move text (clocks, comments, NAGs, a variation, a result)
//! in the Subject of `preview` and `if`.

use crate::common::{to, Install, SentMail};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

const LICHESS: &str = "1. e4 { [%clk 0:10:00] } 1... e5 { [%clk 0:09:58] } 2. Nf3 $1 \
                       (2. Bc4 Nf6) 2... Nc6!? 3. Bb5 1-0";

fn exchange(s: &mut Install, from: &str, subject: &str) -> Vec<SentMail> {
    s.send(from, subject, "");
    s.poll();
    s.take_outbox()
}

#[test]
fn a_lichess_export_is_previewed_and_queued_as_a_line() {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    s.take_outbox();
    let mails = exchange(&mut s, ALICE, &format!("chess preview new {LICHESS}"));
    let own = to(&mails, ALICE);
    assert_eq!(own.len(), 1, "{mails:#?}");
    assert!(own[0].body.contains("Bb5"), "{}", own[0].body);
    assert!(!own[0].body.contains("Bc4"), "{}", own[0].body);

    let n = s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    assert_eq!(n.trim(), "101");
    s.poll();
    s.take_outbox();
    exchange(&mut s, ALICE, &format!("chess if 101 alice apw {LICHESS}"));
    // The line's first ply is alice's: played at once; the rest waits.
    let shown = s.ok(&["admin", "show", "chess", "101", "--size", "small"]);
    assert!(shown.contains("e4"), "{shown}");
    exchange(&mut s, BOB, "chess move 101 bob bpw e5");
    let shown = s.ok(&["admin", "show", "chess", "101", "--size", "small"]);
    assert!(
        shown.contains("Nf3"),
        "the line answers e5 with Nf3: {shown}"
    );
    assert!(
        !shown.contains("Bc4"),
        "the variation is never played: {shown}"
    );
}

#[test]
fn a_game_pasted_in_the_body_of_preview_new_is_read() {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.poll();
    s.take_outbox();
    let body = "[Event \"Casual\"]\n\n1. e4 { [%clk 0:10:00] } 1... e5\n\
                2. Nf3 $1 ; the usual\n(2. Bc4 Nf6) 2... Nc6!? 3. Bb5 1-0\n\n-- \nAlice\n";
    s.send(ALICE, "chess preview new", body);
    s.poll();
    let mails = s.take_outbox();
    let own = to(&mails, ALICE);
    assert_eq!(own.len(), 1, "{mails:#?}");
    assert!(own[0].body.contains("Bb5"), "{}", own[0].body);
    assert!(!own[0].body.contains("Bc4"), "{}", own[0].body);
}

#[test]
fn a_preview_new_whose_body_is_talk_is_told_its_subject_has_no_moves() {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.poll();
    s.take_outbox();
    s.send(
        ALICE,
        "chess preview new",
        "what do you think?\n\nSent from my iPhone\n",
    );
    s.poll();
    let mails = s.take_outbox();
    let own = to(&mails, ALICE);
    assert_eq!(own.len(), 1, "{mails:#?}");
    let text = crate::common::joined(&own[0].body);
    assert!(
        text.contains("Your Subject has no moves after chess preview new"),
        "{}",
        own[0].body
    );
    assert!(!text.contains("not a legal move"), "{}", own[0].body);
    // Talk around pasted moves is left alone: the moves are previewed.
    s.send(
        ALICE,
        "chess preview new",
        "Here is the game:\n1. e4 e5 2. Nf3 Nc6 3. Bb5\n\nWhat do you think?\n",
    );
    s.poll();
    let mails = s.take_outbox();
    let own = to(&mails, ALICE);
    assert_eq!(own.len(), 1, "{mails:#?}");
    assert!(!own[0].subject.ends_with("Error"), "{mails:#?}");
    assert!(own[0].body.contains("Bb5"), "{}", own[0].body);
    // A phone's signature alone is no body: `preview new` shows the start.
    s.send(ALICE, "chess preview new", "\nSent from my iPhone\n");
    s.poll();
    let mails = s.take_outbox();
    let own = to(&mails, ALICE);
    assert_eq!(own.len(), 1, "{mails:#?}");
    assert!(!own[0].subject.ends_with("Error"), "{mails:#?}");
    assert!(!own[0].body.contains("no moves"), "{}", own[0].body);
}
