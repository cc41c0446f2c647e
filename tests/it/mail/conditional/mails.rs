//! The mails around a tree: the answers to `if` taking a reply as a board
//! mail does, a reply to a mail that takes none told the true reason, and
//! only the player to act invited to play.

use super::*;

/// A reply, as `reply_to` writes it, delivered; what the pass sent.
fn answer_by_reply(
    s: &mut Install,
    m: &SentMail,
    from: &str,
    id: &str,
    line: &str,
) -> Vec<SentMail> {
    s.deliver_raw(&reply_to(m, from, id, line));
    s.poll();
    let mails = s.take_outbox();
    for m in &mails {
        assert_fits(m);
    }
    mails
}

const INVITED: &str = "To play, reply with your move on the first line";
const NOT_YOUR_TURN: &str = "Not your turn: to answer in advance, reply with queue <move> or if <moves> on the first line (help reply)";

/// The answer to `if` (a line added, the list) carries a token: a reply to
/// it is read as a reply to the board, another line or a queued move.
#[test]
fn a_reply_to_the_answer_to_if_is_read_as_a_reply_to_the_board() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let note = private_to(&cond(&mut s, "chess", "alice", "e5 Nf3"), ALICE);
    assert_eq!(note.subject, "Chess Board 101 conditional moves");
    assert!(
        note.header("Message-ID").unwrap().starts_with("<t."),
        "{}",
        note.raw
    );
    // bob is to move: alice is not invited to play.
    let said = joined(&note.body);
    assert!(said.contains(NOT_YOUR_TURN), "{said}");
    assert!(!said.contains(INVITED), "{said}");
    let mails = answer_by_reply(&mut s, &note, ALICE, "n1@players.test", "if c5 Nc3");
    let added = private_to(&mails, ALICE);
    assert!(!added.subject.contains("Error"), "{}", added.body);
    assert_eq!(held_lines(&s, "chess"), 2, "the reply's line is added");
    // The list answers by reply too, and its own answer takes one.
    let mails = answer_by_reply(&mut s, &added, ALICE, "n2@players.test", "if list");
    let list = private_to(&mails, ALICE);
    assert!(list.body.contains("Nc3"), "{}", list.body);
    assert!(list.header("Message-ID").unwrap().starts_with("<t."));
    let mails = answer_by_reply(&mut s, &list, ALICE, "n3@players.test", "if cancel c5");
    assert!(!private_to(&mails, ALICE).subject.contains("Error"));
    assert_eq!(held_lines(&s, "chess"), 1);
    // The tree still answers.
    play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 3);
}

/// A mail with a board mail's Subject that names no token is refused with
/// what is true of it, never "your mail program left out In-Reply-To"
/// when it kept it.
#[test]
fn a_reply_to_a_mail_that_takes_none_is_told_why() {
    let mut s = board("chess");
    let mails = play(&mut s, "chess", "alice", "e4");
    // carol observes: her board mail takes no reply.
    let carols = one(&mails, CAROL);
    assert!(!carols.header("Message-ID").unwrap().starts_with("<t."));
    let mails = answer_by_reply(&mut s, &carols, CAROL, "o1@players.test", "e5");
    let said = message_of(&one(&mails, CAROL));
    assert!(
        said.starts_with("The mail you answered takes no replies, so yours is not read as a move"),
        "{said}"
    );
    assert!(!said.contains("In-Reply-To"), "{said}");
    // A Subject `Re: ...` without any In-Reply-To: the header is missing.
    let mails = round(&mut s, BOB, &format!("Re: {}", carols.subject), "e5");
    let said = message_of(&one(&mails, BOB));
    assert!(
        said.starts_with("Your mail has a board mail's Subject but no In-Reply-To header"),
        "{said}"
    );
    // An In-Reply-To that is not ours.
    let foreign = reply_to(&carols, BOB, "o2@players.test", "e5")
        .replace(&carols.header("Message-ID").unwrap(), "<x1@elsewhere.test>");
    s.deliver_raw(&foreign);
    s.poll();
    let said = message_of(&one(&s.take_outbox(), BOB));
    assert!(
        said.starts_with("Your mail answers a mail this server did not send"),
        "{said}"
    );
    // Nothing was played.
    assert_eq!(plies(&s, "chess"), 1);
    // Once the game is over, its last mail says so when answered.
    let (from, pw) = seat("bob");
    let mails = round(&mut s, from, &format!("chess resign 101 bob {pw}"), "");
    let last = one(&mails, ALICE);
    let mails = answer_by_reply(&mut s, &last, ALICE, "o3@players.test", "e5");
    let said = message_of(&one(&mails, ALICE));
    assert!(said.starts_with("Chess board 101 is over"), "{said}");
}

/// Every mail that takes a reply ends with what a reply can do: the
/// player to act is invited to play, the other told it is not their turn
/// (queue or conditional moves); observers get neither. In every game.
#[test]
fn only_the_player_to_act_is_invited_to_play_in_every_game() {
    for game in rules::registry() {
        let name = game.name();
        let mut s = board(name);
        // The first board mail again, as `show` gives it to each.
        for (who, addr) in [("alice", ALICE), ("bob", BOB), ("carol", CAROL)] {
            let mails = round(&mut s, addr, &format!("{name} show 101"), "");
            let m = one(&mails, addr);
            let said = joined(&m.body);
            let to_act = m.body.starts_with(&format!("It is {who}'s turn"));
            match who {
                "carol" => {
                    assert!(!said.contains(INVITED), "{name} {who}: {said}");
                    assert!(!said.contains(NOT_YOUR_TURN), "{name} {who}: {said}");
                }
                _ if to_act => {
                    assert!(said.contains(INVITED), "{name} {who}: {said}");
                    assert!(!said.contains(NOT_YOUR_TURN), "{name} {who}: {said}");
                }
                _ => {
                    assert!(said.contains(NOT_YOUR_TURN), "{name} {who}: {said}");
                    assert!(!said.contains(INVITED), "{name} {who}: {said}");
                }
            }
        }
    }
}

/// A move's board mails: the mover, no longer to act, is not invited.
#[test]
fn after_a_move_the_mover_is_told_it_is_not_their_turn() {
    let mut s = board("chess");
    let mails = play(&mut s, "chess", "alice", "e4");
    let alices = joined(&one(&mails, ALICE).body);
    assert!(alices.contains(NOT_YOUR_TURN), "{alices}");
    assert!(
        alices.contains("chess queue 101 alice <password> <move>"),
        "{alices}"
    );
    assert!(!alices.contains(INVITED), "{alices}");
    let bobs = joined(&one(&mails, BOB).body);
    assert!(bobs.contains(INVITED), "{bobs}");
    assert!(!bobs.contains(NOT_YOUR_TURN), "{bobs}");
    let carols = joined(&one(&mails, CAROL).body);
    assert!(!carols.contains(INVITED) && !carols.contains(NOT_YOUR_TURN));
    // alice answers her mail in advance: the queued move plays on e5.
    let mails = answer_by_reply(
        &mut s,
        &one(&mails, ALICE),
        ALICE,
        "q1@players.test",
        "queue Nf3",
    );
    assert!(!private_to(&mails, ALICE).subject.contains("Error"));
    play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 3);
}

/// The answer to `queue` is a board mail to the player alone: it takes a
/// reply as their board mails do.
#[test]
fn a_reply_to_the_answer_to_queue_is_read_as_a_reply_to_the_board() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let mails = round(&mut s, ALICE, "chess queue 101 alice apw Nf3", "");
    let queued = private_to(&mails, ALICE);
    assert!(!queued.subject.contains("Error"), "{}", queued.body);
    assert!(
        queued.header("Message-ID").unwrap().starts_with("<t."),
        "{}",
        queued.raw
    );
    assert!(
        joined(&queued.body).contains(NOT_YOUR_TURN),
        "{}",
        queued.body
    );
    let mails = answer_by_reply(&mut s, &queued, ALICE, "u1@players.test", "queue d4");
    let replaced = private_to(&mails, ALICE);
    assert!(!replaced.subject.contains("Error"), "{}", replaced.body);
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(one(&mails, BOB).body.contains("d4 (Auto)"), "{mails:#?}");
}

/// The same for `preview`: a move refused past the first (or from a ply
/// of the past) is shown on the board the moves reach, not the board now.
#[test]
fn a_preview_refused_deep_in_shows_the_board_it_reaches() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let rank = |body: &str, r: &str| -> String {
        body.lines()
            .find(|l| l.starts_with(&format!("  {r} |")))
            .unwrap_or_default()
            .to_string()
    };
    let mails = round(&mut s, BOB, "chess preview 101 e5 Nf3 Nc6 Nf5", "");
    let err = one(&mails, BOB);
    let said = message_of(&err);
    assert!(said.contains("Move 4 of your preview"), "{said}");
    assert!(
        said.contains("The board below is the position where it fails."),
        "{said}"
    );
    assert_eq!(
        rank(&err.body, "5"),
        "  5 |:::|   |:::|   |*P*|   |:::|   |  5"
    );
    assert_eq!(
        rank(&err.body, "6"),
        "  6 |   |:::|*N*|:::|   |:::|   |:::|  6"
    );
    // From the start (#0): the start position, not the board now.
    let mails = round(&mut s, BOB, "chess preview 101#0 e5", "");
    let err = one(&mails, BOB);
    assert_eq!(
        rank(&err.body, "4"),
        "  4 |   |:::|   |:::|   |:::|   |:::|  4",
        "{}",
        err.body
    );
    // The first move refused on the board now: the board now, as ever.
    let mails = round(&mut s, BOB, "chess preview 101 e4", "");
    let err = one(&mails, BOB);
    assert!(
        !message_of(&err).contains("The board below"),
        "{}",
        err.body
    );
    assert_eq!(
        rank(&err.body, "4"),
        "  4 |   |:::|   |:::| P |:::|   |:::|  4",
        "{}",
        err.body
    );
}

/// A player not to move with the opponent's proposal to answer is told
/// to answer it, not to play.
#[test]
fn a_proposal_waiting_for_the_player_not_to_move_is_what_they_are_told_to_answer() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    play(&mut s, "chess", "bob", "e5");
    // alice, to move, offers a draw first.
    let mails = play(&mut s, "chess", "alice", "propose");
    let bobs = one(&mails, BOB);
    let said = joined(&bobs.body);
    assert!(
        said.contains("Not your turn, but a proposal waits for your answer: reply with accept or reject on the first line (help reply), or use the Subject command: chess move 101 bob <password> accept"),
        "{said}"
    );
    assert!(
        !said.contains(INVITED) && !said.contains(NOT_YOUR_TURN),
        "{said}"
    );
    let alices = joined(&one(&mails, ALICE).body);
    assert!(alices.contains(INVITED), "{alices}");
    // bob rejects by reply.
    let mails = answer_by_reply(&mut s, &bobs, BOB, "p1@players.test", "reject");
    assert!(
        joined(&one(&mails, ALICE).body).contains("bob rejects alice's proposal of a draw."),
        "{mails:#?}"
    );
}
