//! What a pbmserv veteran expects around the game, through real mails and
//! `poll` (the real binary, Maildir in and out): delivery to every address,
//! the board mail's header, two-column move list and legend, subjects a
//! filter can sort, and the regressions found by playing.

use crate::common;

use common::{only_one, to, Install, SentMail};

const ALICE: &str = "alice@a.example";
const BOB: &str = "bob@b.example";
const CAROL: &str = "carol@c.example";
const CAROL2: &str = "carol2@c2-mail.org";

/// alice, bob and carol (with two addresses) signed up.
fn three_players() -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(CAROL, &format!("signup carol cpw {CAROL} {CAROL2}"), "");
    s.poll();
    s.take_outbox();
    s
}

fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

#[test]
fn every_address_on_file_gets_every_board_mail() {
    let mut s = three_players();
    let mails = round(&mut s, ALICE, "chess challenge alice carol", "");
    for addr in [ALICE, CAROL, CAROL2] {
        assert_eq!(only_one(&mails, addr).subject, "New Chess Board 101 alice");
    }
    let mails = round(&mut s, ALICE, "chess move 101 alice apw e4", "");
    assert_eq!(only_one(&mails, CAROL2).subject, "Chess Board 101 carol");
    assert_eq!(only_one(&mails, CAROL).body, only_one(&mails, CAROL2).body);
}

#[test]
fn a_challenge_comment_names_the_challenger_by_userid_never_by_address() {
    let mut s = three_players();
    let mails = round(
        &mut s,
        ALICE,
        "chess challenge alice bob",
        "Good luck, Bob!",
    );
    for m in &mails {
        assert!(
            m.body.contains("Comment from alice:\nGood luck, Bob!"),
            "{}",
            m.body
        );
        assert!(!m.body.contains(ALICE), "{}", m.body);
    }
    // A challenger whose address has no account starts no board, and its
    // text is relayed to no one.
    let stranger = "stranger@d.example";
    let mails = round(&mut s, stranger, "chess challenge alice bob", "Have fun!");
    assert!(to(&mails, BOB).is_empty(), "{mails:#?}");
    for m in &mails {
        assert!(!m.body.contains("Have fun!"), "{}", m.body);
    }
}

#[test]
fn the_board_mail_names_both_players_with_colours_and_ratings_and_pairs_the_moves() {
    let mut s = three_players();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    for (who, mv) in [("alice apw", "e4"), ("bob bpw", "e5"), ("alice apw", "Nf3")] {
        round(&mut s, ALICE, &format!("chess move 101 {who} {mv}"), "");
    }
    let mails = round(&mut s, BOB, "chess show 101", "");
    let body = &only_one(&mails, BOB).body;
    assert!(
        common::joined(body).contains(
            "Chess Board 101: alice (White, 1600, provisional) against bob (Black, 1600, provisional)"
        ),
        "{body}"
    );
    assert!(body.contains("\n1. e4         e5\n2. Nf3\n"), "{body}");
    assert!(
        body.contains(
            "\nWhite pieces are :K: or  K , Black pieces *K*; ::: is an empty dark square.\n"
        ),
        "{body}"
    );
}

#[test]
fn flip_draws_the_board_from_blacks_side_for_that_player_only() {
    let mut s = three_players();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    let mails = round(&mut s, BOB, "chess set bob bpw flip", "");
    assert!(only_one(&mails, BOB).body.contains("from Black's side"));
    let mails = round(&mut s, ALICE, "chess move 101 alice apw e4", "");
    let bobs = &only_one(&mails, BOB).body;
    let alices = &only_one(&mails, ALICE).body;
    let first_rank_row = |body: &str| body.lines().position(|l| l.starts_with("  1 |")).unwrap();
    let eighth_rank_row = |body: &str| body.lines().position(|l| l.starts_with("  8 |")).unwrap();
    assert!(first_rank_row(bobs) < eighth_rank_row(bobs), "{bobs}");
    assert!(first_rank_row(alices) > eighth_rank_row(alices), "{alices}");
    assert!(bobs.contains("drawn from Black's side."), "{bobs}");
    let mails = round(&mut s, BOB, "chess set bob bpw noflip", "");
    assert!(only_one(&mails, BOB).body.contains("from White's side"));
    let mails = round(&mut s, BOB, "chess show 101", "");
    let shown = &only_one(&mails, BOB).body;
    assert!(first_rank_row(shown) > eighth_rank_row(shown), "{shown}");
}

#[test]
fn a_signed_off_user_gets_no_more_result_mails() {
    let mut s = three_players();
    round(&mut s, CAROL, "chess notify carol cpw", "");
    round(&mut s, ALICE, "chess challenge alice bob", "");
    round(&mut s, CAROL, "signoff carol cpw", "");
    let mails = round(&mut s, BOB, "chess move 101 alice apw f3", "");
    assert!(to(&mails, CAROL).is_empty(), "{mails:#?}");
    round(&mut s, BOB, "chess move 101 bob bpw e5", "");
    round(&mut s, ALICE, "chess move 101 alice apw g4", "");
    let mails = round(&mut s, BOB, "chess move 101 bob bpw Qh4#", "");
    assert_eq!(only_one(&mails, ALICE).subject, "Chess Board 101 finished");
    assert!(to(&mails, CAROL).is_empty(), "{mails:#?}");
    assert!(to(&mails, CAROL2).is_empty(), "{mails:#?}");
}

#[test]
fn a_resignation_before_both_moved_withdraws_the_board_unrated() {
    let mut s = three_players();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    round(&mut s, ALICE, "chess move 101 alice apw e4", "");
    let mails = round(&mut s, BOB, "chess resign 101 bob bpw", "");
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert_eq!(m.subject, "Chess Board 101 withdrawn");
        assert!(
            common::joined(&m.body).starts_with(
                "Chess Board 101 is withdrawn: bob resigned before both players had moved, so the game is not rated and the board is deleted."
            ),
            "{}",
            m.body
        );
        assert!(!m.body.contains("won by"), "{}", m.body);
    }
    let mails = round(&mut s, ALICE, "chess standings", "");
    assert!(only_one(&mails, ALICE).body.contains("Nobody has finished"));
}

#[test]
fn an_error_mail_quotes_the_comment_back_with_the_password_masked() {
    let mut s = three_players();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    let mails = round(
        &mut s,
        ALICE,
        "chess move 101 alice apw Ke2",
        "A bold king walk! (my password apw stays mine)",
    );
    let m = only_one(&mails, ALICE);
    assert_eq!(m.subject, "Chess Board 101 Error");
    assert!(
        m.body.contains("chess move 101 alice ***** Ke2"),
        "{}",
        m.body
    );
    assert!(
        m.body
            .contains("A bold king walk! (my password ***** stays mine)"),
        "{}",
        m.body
    );
    assert!(!m.body.contains("apw"), "{}", m.body);
    assert!(to(&mails, BOB).is_empty());
}

#[test]
fn reserved_words_cannot_be_userids() {
    let mut s = Install::new();
    for word in ["finished", "error", "preview", "new", "nag"] {
        let mails = round(&mut s, ALICE, &format!("signup {word} pw"), "");
        let m = only_one(&mails, ALICE);
        assert!(
            common::joined(&m.body)
                .contains("the second word is a word the server keeps for itself"),
            "{word}: {}",
            m.body
        );
    }
}

#[test]
fn multiple_combines_only_the_senders_answer() {
    let mut s = three_players();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    round(&mut s, ALICE, "chess challenge alice carol", "");
    let mails = round(
        &mut s,
        ALICE,
        "multiple",
        "chess move 101 alice apw e4\nchess move 102 alice apw d4\n",
    );
    let alices = only_one(&mails, ALICE);
    assert!(
        alices.subject.ends_with("answers (2 parts)"),
        "{}",
        alices.subject
    );
    assert_eq!(only_one(&mails, BOB).subject, "Chess Board 101 bob");
    assert_eq!(only_one(&mails, CAROL).subject, "Chess Board 102 carol");
    assert_eq!(only_one(&mails, CAROL2).subject, "Chess Board 102 carol");
}

#[test]
fn listings_have_pbmserv_subjects_and_standings_count_won_lost_tied() {
    let mut s = three_players();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    for (who, mv) in [
        ("alice apw", "f3"),
        ("bob bpw", "e5"),
        ("alice apw", "g4"),
        ("bob bpw", "Qh4#"),
    ] {
        round(&mut s, ALICE, &format!("chess move 101 {who} {mv}"), "");
    }
    round(&mut s, ALICE, "chess challenge alice carol", "");
    let standings = round(&mut s, CAROL, "chess standings", "");
    let m = only_one(&standings, CAROL);
    assert_eq!(m.subject, "Chess Standings");
    assert!(
        m.body.contains("Provisional (fewer than 20 rated games):"),
        "{}",
        m.body
    );
    let bob = m.body.lines().find(|l| l.contains(" bob ")).unwrap();
    let columns: Vec<&str> = bob.split_whitespace().collect();
    assert_eq!(columns[2..], ["1616", "1", "1", "0", "0"], "{bob}");
    let alice = m.body.lines().find(|l| l.contains(" alice ")).unwrap();
    let columns: Vec<&str> = alice.split_whitespace().collect();
    assert_eq!(columns[2..], ["1584", "1", "0", "1", "0"], "{alice}");
    assert!(!m.body.contains(ALICE));

    let games = round(&mut s, CAROL, "chess games", "");
    assert_eq!(only_one(&games, CAROL).subject, "List of Chess games");
    let history = round(&mut s, CAROL, "chess history", "");
    let h = only_one(&history, CAROL);
    assert_eq!(h.subject, "Chess History");
    let line = h.body.lines().find(|l| l.starts_with("101")).unwrap();
    let today = chrono::Utc::now().format("%Y-%m-%d").to_string();
    assert!(line.contains(&format!("{today} to {today}")), "{line}");
    assert!(line.contains("won by bob (checkmate)"), "{line}");
    let list = round(&mut s, CAROL, "list", "");
    assert_eq!(only_one(&list, CAROL).subject, "List of active games");
}

#[test]
fn opponents_are_told_when_a_player_goes_on_vacation() {
    let mut s = three_players();
    round(&mut s, ALICE, "chess challenge alice bob", "");
    round(&mut s, CAROL, "doublechess challenge carol alice", "");
    let mails = round(&mut s, ALICE, "vacation alice apw 5", "");
    assert!(only_one(&mails, ALICE).subject.contains("Vacation"));
    let bobs = only_one(&mails, BOB);
    assert_eq!(bobs.subject, "alice is on vacation");
    assert!(bobs.body.contains("on Chess Board 101;"), "{}", bobs.body);
    let carols = only_one(&mails, CAROL2);
    assert!(
        carols.body.contains("Double Chess Board 101"),
        "{}",
        carols.body
    );
}

#[test]
fn each_games_help_page_explains_the_drawing() {
    let mut s = Install::new();
    for game in ["chess", "doublechess", "shadowchess", "temporal"] {
        let mails = round(&mut s, ALICE, &format!("help {game}"), "");
        let body = &only_one(&mails, ALICE).body;
        assert!(body.contains("Reading the board"), "{game}: {body}");
        assert!(
            body.contains("\"flip\" draws the board from Black's side"),
            "{game}"
        );
    }
}

#[test]
fn players_lists_ratings_without_addresses() {
    let mut s = three_players();
    round(&mut s, ALICE, "signoff alice apw", "");
    for verb in ["players", "users"] {
        let mails = round(&mut s, BOB, &format!("chess {verb}"), "");
        let m = only_one(&mails, BOB);
        assert_eq!(m.subject, "Chess Players");
        assert!(m.body.contains("bob "), "{}", m.body);
        assert!(m.body.contains("carol "), "{}", m.body);
        assert!(m.body.contains("1600"), "{}", m.body);
        assert!(!m.body.contains("alice"), "signed off: {}", m.body);
        assert!(!m.body.contains('@'), "{}", m.body);
    }
}

#[test]
fn a_second_seeker_is_paired_with_the_first_and_the_board_starts() {
    let mut s = three_players();
    let mails = round(&mut s, BOB, "chess seek bob bpw evenings only", "");
    let m = only_one(&mails, BOB);
    assert_eq!(m.subject, "Chess seek");
    assert!(
        m.body.contains("bob is on the waiting list for Chess"),
        "{}",
        m.body
    );
    // Seeking a different game waits on its own list.
    let mails = round(&mut s, CAROL, "doublechess seek carol cpw", "");
    assert!(only_one(&mails, CAROL)
        .body
        .contains("waiting list for Double Chess"));
    let mails = round(&mut s, ALICE, "chess seek alice apw", "");
    for addr in [ALICE, BOB] {
        let m = only_one(&mails, addr);
        assert_eq!(m.subject, "New Chess Board 101 bob **");
        assert!(m.body.contains("Chess Board 101: bob (White"), "{}", m.body);
        assert!(
            m.body.contains("Comment from bob:\nevenings only"),
            "{}",
            m.body
        );
    }
    assert!(to(&mails, CAROL).is_empty());
    // The list is empty again: the next seeker waits.
    let mails = round(&mut s, CAROL, "chess seek carol cpw", "");
    assert!(only_one(&mails, CAROL)
        .body
        .contains("waiting list for Chess"));
}
