//! `tournament show`, `pgn` and the list, answered to the sender.

use super::rounds::board_of;
use super::{answer_to, as_player, full, narrow, world};

#[test]
fn show_pgn_and_the_list_answer_the_sender() {
    let mut w = world(4);
    full(&mut w, "roundrobin 4", 4);
    as_player(
        &mut w,
        1,
        "chess tournament create autumn CREDS swiss 8 rounds 3",
    );
    let r = as_player(&mut w, 2, "chess tournaments");
    let body = answer_to(&r, "p2@x");
    assert!(body.contains("spring"), "{body}");
    assert!(body.contains("autumn"), "{body}");
    assert!(body.contains("open (1 of 8 joined)"), "{body}");
    let r = as_player(&mut w, 2, "chess tournament show spring");
    let body = answer_to(&r, "p2@x");
    assert!(
        body.contains("\nRunning, its 3 rounds at once.\n"),
        "{body}"
    );
    assert!(body.contains("Round 3  board "), "{body}");
    assert!(body.contains("Boards in play:"), "{body}");
    for i in 1..=4 {
        assert!(body.contains(&format!("p{i}")), "{body}");
    }
    narrow(&r);
    let b = board_of(&w, "p1", "p2");
    let i: usize = b.players[0][1..].parse().unwrap();
    as_player(&mut w, i, &format!("chess move {} CREDS e4", b.board));
    let r = as_player(&mut w, 3, "chess tournament pgn spring");
    let body = answer_to(&r, "p3@x");
    assert_eq!(
        body.matches("[Event \"Chess tournament spring\"]").count(),
        6,
        "one event for the whole tournament: {body}"
    );
    assert!(body.contains("1. e4"), "{body}");
    for round in ["1.1", "1.2", "2.1", "2.2", "3.1", "3.2"] {
        assert_eq!(
            body.matches(&format!("[Round \"{round}\"]")).count(),
            1,
            "{body}"
        );
    }
    assert_eq!(body.matches("[WhiteElo \"1600\"]").count(), 6, "{body}");
    // A board made before the ratings were stored has no Elo tags.
    w.conn
        .execute(
            "UPDATE tournament_games SET white_rating = NULL, black_rating = NULL",
            [],
        )
        .unwrap();
    let r = as_player(&mut w, 3, "chess tournament pgn spring");
    let body = answer_to(&r, "p3@x");
    assert!(!body.contains("Elo"), "{body}");
    assert_eq!(body.matches("[EventDate ").count(), 6, "{body}");
    let r = as_player(&mut w, 3, "chess tournament show nosuch");
    assert!(answer_to(&r, "p3@x").contains("There is no Chess tournament called nosuch"));
}

#[test]
fn a_pgn_too_large_for_one_mail_says_what_it_left_out() {
    let mut w = world(4);
    full(&mut w, "roundrobin 4", 4);
    w.config.limits.max_reply_bytes = 1000;
    let r = as_player(&mut w, 3, "chess tournament pgn spring");
    let body = answer_to(&r, "p3@x");
    assert!(
        body.contains("more games did not fit in this mail"),
        "{body}"
    );
    assert!(body.len() <= 1000, "{}", body.len());
}
