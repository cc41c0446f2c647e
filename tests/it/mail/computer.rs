//! Games against the computer player by mail, through the real binary and
//! `poll`: its reply travels in the same mail that answers the player's
//! move, it never gets mail itself, and it is rated like anyone.

use crate::common;

use common::{only_one, Install, SentMail};

const ALICE: &str = "alice@players.test";

/// An installation whose computer may think for up to five seconds (its
/// low levels finish long before: their depth limit ends the search).
fn install() -> Install {
    Install::with_config("\n[computer]\nmove_seconds = 5.0\n")
}

/// Send one command from alice, poll, and return the one mail she gets
/// (every mail of the pass must be hers: the computer gets none).
fn command(s: &mut Install, subject: &str) -> SentMail {
    s.send(ALICE, subject, "");
    s.poll();
    let mails = s.take_outbox();
    assert!(mails.iter().all(|m| m.to == ALICE), "{mails:#?}");
    only_one(&mails, ALICE).clone()
}

/// The computer's action announced in a board mail: `computer plays X (ply N).`
fn computer_action(body: &str) -> Option<String> {
    body.lines()
        .find_map(|l| l.strip_prefix("computer plays "))
        .map(|rest| rest.split(" (ply").next().unwrap().to_string())
}

#[test]
fn a_whole_game_against_the_computer_by_mail() {
    let mut s = install();
    command(&mut s, "signup alice apw");
    let board = command(&mut s, "chess challenge alice computer -level=1");
    assert_eq!(board.subject, "New Chess Board 101 alice", "{}", board.body);
    assert!(
        board
            .body
            .contains("computer is the computer player, at level 1 of 5."),
        "{}",
        board.body
    );

    let mut position = rules::game("chess").unwrap().start(&[]).unwrap();
    let mut last = board;
    for _ in 0..200 {
        // Alice plays the first legal move in sorted order: no match for it.
        let mv = position.legal_actions()[0].clone();
        position.play(&mv).unwrap();
        last = command(&mut s, &format!("chess move 101 alice apw {mv}"));
        if position.outcome().is_over() {
            break;
        }
        let reply = computer_action(&last.body)
            .unwrap_or_else(|| panic!("the computer's reply is in the mail: {}", last.body));
        position.play(&reply).unwrap();
        if last.subject.ends_with("finished") {
            break;
        }
        assert_eq!(last.subject, "Chess Board 101 alice", "{}", last.body);
    }
    assert_eq!(last.subject, "Chess Board 101 finished", "{}", last.body);
    assert!(last.body.contains("Game won by computer"), "{}", last.body);
    assert!(position.outcome().is_over());

    let standings = command(&mut s, "chess standings");
    assert!(standings.body.contains("computer"), "{}", standings.body);
    assert!(standings.body.contains("alice"), "{}", standings.body);
}

#[test]
fn the_computer_as_white_moves_in_the_first_board_mail_and_answers_proposals() {
    let mut s = install();
    command(&mut s, "signup alice apw");
    let board = command(&mut s, "doublechess challenge computer alice -level=2");
    assert_eq!(
        board.subject, "New Double Chess Board 101 alice",
        "{}",
        board.body
    );
    assert!(computer_action(&board.body).is_some(), "{}", board.body);
    assert!(board
        .body
        .contains("computer is the computer player, at level 2 of 5."));

    // An undo takes back the asker's own last ply: alice has none yet.
    let undo = command(&mut s, "doublechess move 101 alice apw undo");
    assert!(
        common::joined(&undo.body).contains("You have played no ply on this board"),
        "{}",
        undo.body
    );
    assert!(!undo.body.contains("proposes"), "{}", undo.body);

    let draw = command(&mut s, "doublechess move 101 alice apw propose");
    assert!(
        draw.body
            .contains("computer accepts alice's proposal of a draw")
            || draw
                .body
                .contains("computer rejects alice's proposal of a draw"),
        "{}",
        draw.body
    );
}

/// The computer never takes a ply back: alice's undo after her own move
/// is refused at once, in the mail that asked, and the board stays.
#[test]
fn the_computer_refuses_to_take_back_a_ply() {
    let mut s = install();
    command(&mut s, "signup alice apw");
    let board = command(&mut s, "chess challenge alice computer -level=1");
    assert_eq!(board.subject, "New Chess Board 101 alice", "{}", board.body);
    let moved = command(&mut s, "chess move 101 alice apw e4");
    let answer = computer_action(&moved.body).expect("the computer answers e4");
    let undo = command(&mut s, "chess move 101 alice apw undo");
    let said = common::joined(&undo.body);
    assert!(
        said.contains("alice asks to take back plies 1 (e4) and 2 ("),
        "{}",
        undo.body
    );
    assert!(
        said.contains(
            "computer rejects alice's proposal of taking back plies: it never takes back a ply."
        ),
        "{}",
        undo.body
    );
    assert!(!said.contains("taken back."), "{}", undo.body);
    // Both plies stand, and no proposal is left to answer.
    let shown = s.ok(&["admin", "show", "chess", "101"]);
    assert!(shown.contains("e4") && shown.contains(&answer), "{shown}");
    let accept = command(&mut s, "chess move 101 alice apw accept");
    assert!(
        common::joined(&accept.body).contains("There is no draw or undo proposal"),
        "{}",
        accept.body
    );
}

#[test]
fn the_computer_is_challenged_in_every_game_and_answers_at_once() {
    let mut s = install();
    command(&mut s, "signup alice apw");
    for game in rules::registry() {
        // The computer plays White and acts in the mail that starts the board.
        let board = command(
            &mut s,
            &format!("{} challenge computer alice -level=1", game.name()),
        );
        assert!(
            board.subject.ends_with("Board 101 alice"),
            "{}: {}",
            game.name(),
            board.subject
        );
        assert!(computer_action(&board.body).is_some(), "{}", board.body);
    }
}

#[test]
fn challenges_name_a_level_the_computer_can_play_and_nobody_takes_its_userid() {
    let mut s = install();
    command(&mut s, "signup alice apw");
    command(&mut s, "signup bob bpw");
    let taken = command(&mut s, "signup computer pw");
    assert!(
        taken
            .body
            .contains("belongs to the server's computer player"),
        "{}",
        taken.body
    );
    let level = command(&mut s, "chess challenge alice computer -level=9");
    assert!(
        level.body.contains("a number from 1 to 5"),
        "{}",
        level.body
    );
    let no_computer = command(&mut s, "chess challenge alice bob -level=3");
    assert!(
        no_computer.body.contains("needs computer"),
        "{}",
        no_computer.body
    );
    let board = command(&mut s, "chess challenge alice computer");
    assert!(
        board
            .body
            .contains("computer is the computer player, at level 2 of 5."),
        "{}",
        board.body
    );
    // Nobody acts for the computer.
    let forged = command(&mut s, "chess move 101 computer x e5");
    assert!(forged.subject.contains("Error"), "{}", forged.body);
}

#[test]
fn a_computer_switched_off_cannot_be_challenged() {
    let mut s = Install::with_config("\n[computer]\nenabled = false\n");
    command(&mut s, "signup alice apw");
    let refused = command(&mut s, "chess challenge alice computer");
    assert!(refused.body.contains("switched off"), "{}", refused.body);
}
