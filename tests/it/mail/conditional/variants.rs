//! Trees in Double Chess (castling), Shadow Chess (reveals) and Zelig.

use super::*;

#[test]
fn a_double_chess_tree_castles_and_reads_the_kings_move_as_the_same_castling() {
    let mut s = board("doublechess");
    for (who, mv) in [
        ("alice", "Nl3"),
        ("bob", "i7i5"),
        ("alice", "k3"),
        ("bob", "Nl6"),
        ("alice", "Bk2"),
    ] {
        play(&mut s, "doublechess", who, mv);
    }
    // Castling in SAN, then the same castling as the king's move: one
    // line, no clash.
    for line in ["a6 O-O", "a6 Kk1 b6 d3"] {
        let answer = private_to(&cond(&mut s, "doublechess", "alice", line), ALICE);
        assert!(!answer.subject.contains("Error"), "{line}: {}", answer.body);
    }
    let mails = play(&mut s, "doublechess", "bob", "a6");
    let bobs = one(&mails, BOB);
    assert!(bobs.body.contains("O-O (Cond)"), "{}", bobs.body);
    assert_eq!(bobs.subject, "Double Chess Board 101 bob");
    let small = s.ok(&["admin", "show", "doublechess", "101", "--size", "small"]);
    assert!(
        small.contains(" 1 | r n b q r n b q - r k   q b n r |  1"),
        "king on k1, rook on j1: {small}"
    );
    let mails = play(&mut s, "doublechess", "bob", "b6");
    assert!(one(&mails, BOB).body.contains("d3 (Cond)"));
    assert_eq!(plies(&s, "doublechess"), 9);
}

#[test]
fn a_shadow_tree_never_decides_the_opponents_reveal_and_goes_on_across_it() {
    let mut s = board("shadowchess");
    play(&mut s, "shadowchess", "alice", "e4/e2e3");
    // Alice's line: bob's d5/d7d6, her capture, bob's reveal decision and
    // bob's knight (his plies, written as he would), then her knight.
    let line = "d5/d7d6 exd5/d2d3 reveal d6 Nf6/g8f6 Nf3/g1f3";
    let answer = private_to(&cond(&mut s, "shadowchess", "alice", line), ALICE);
    assert!(!answer.subject.contains("Error"), "{}", answer.body);
    let mails = play(&mut s, "shadowchess", "bob", "d5/d7d6");
    // The capture is played in bob's mail; the reveal it sets off is
    // bob's to decide, and the tree does not decide it.
    for addr in [ALICE, BOB, CAROL] {
        let m = one(&mails, addr);
        assert_eq!(m.subject, "Shadow Chess Board 101 bob", "{}", m.body);
        assert!(m.body.contains("exd5/d2d3 (Cond)"), "{}", m.body);
        assert!(m.body.contains("It is bob's decision"), "{}", m.body);
    }
    for addr in [BOB, CAROL] {
        assert_no_hint(&one(&mails, addr), &["Nf3/g1f3"], true);
    }
    assert_eq!(plies(&s, "shadowchess"), 3);
    // Bob decides as the line foresaw, then moves: the tree answers.
    let mails = play(&mut s, "shadowchess", "bob", "reveal d6");
    assert_eq!(one(&mails, BOB).subject, "Shadow Chess Board 101 bob");
    assert_eq!(plies(&s, "shadowchess"), 4);
    let mails = play(&mut s, "shadowchess", "bob", "Nf6/g8f6");
    let bobs = one(&mails, BOB);
    assert!(bobs.body.contains("Nf3/g1f3 (Cond)"), "{}", bobs.body);
    assert_eq!(bobs.subject, "Shadow Chess Board 101 bob", "{}", bobs.body);
    assert_eq!(plies(&s, "shadowchess"), 6);
}

#[test]
fn a_shadow_tree_that_names_its_owners_reveal_decides_it_and_moves_on() {
    let mut s = board("shadowchess");
    play(&mut s, "shadowchess", "alice", "e4/e2e3");
    play(&mut s, "shadowchess", "bob", "d5/d7d6");
    // Alice to move; bob's line: her capture, his own reveal, his knight.
    let line = "exd5/d2d3 reveal d6 Nf6/g8f6";
    let answer = private_to(&cond(&mut s, "shadowchess", "bob", line), BOB);
    assert!(!answer.subject.contains("Error"), "{}", answer.body);
    let mails = play(&mut s, "shadowchess", "alice", "exd5/d2d3");
    let alices = one(&mails, ALICE);
    assert_eq!(
        alices.subject, "Shadow Chess Board 101 alice",
        "{}",
        alices.body
    );
    assert!(alices.body.contains("reveal d6"), "{}", alices.body);
    assert!(alices.body.contains("Nf6/g8f6 (Cond)"), "{}", alices.body);
    assert_eq!(plies(&s, "shadowchess"), 5);
}

/// A tree's move that would need a decision first waits exactly as a
/// queued move does (as bob's queued knight waits in `mail::shadow`).
#[test]
fn a_shadow_tree_move_that_needs_its_owners_decision_first_waits_for_it() {
    let mut s = board("shadowchess");
    play(&mut s, "shadowchess", "alice", "e4/e2e3");
    play(&mut s, "shadowchess", "bob", "d5/d7d6");
    // Alice to move; bob holds an answer to the capture, his reveal left
    // to himself.
    let answer = private_to(
        &cond(&mut s, "shadowchess", "bob", "exd5/d2d3 Nf6/g8f6"),
        BOB,
    );
    assert!(!answer.subject.contains("Error"), "{}", answer.body);
    let mails = play(&mut s, "shadowchess", "alice", "exd5/d2d3");
    let bobs = one(&mails, BOB);
    assert!(bobs.body.contains("It is bob's decision"), "{}", bobs.body);
    assert!(!bobs.body.contains("Nf6/g8f6 (Cond)"), "{}", bobs.body);
    assert_eq!(plies(&s, "shadowchess"), 3);
    let mails = play(&mut s, "shadowchess", "bob", "reveal d6");
    let alices = one(&mails, ALICE);
    assert!(alices.body.contains("Nf6/g8f6 (Cond)"), "{}", alices.body);
}

#[test]
fn a_zelig_tree_mates_with_a_zelig_and_the_end_clears_the_tree() {
    let mut s = board("zelig");
    play(&mut s, "zelig", "alice", "f2f3");
    play(&mut s, "zelig", "bob", "e5");
    // Bob: if g4, the d8 zelig to h4 (a bishop there by the quota: mate).
    private_to(&cond(&mut s, "zelig", "bob", "g4 d8h4"), BOB);
    let mails = play(&mut s, "zelig", "alice", "g4");
    for addr in [ALICE, BOB] {
        let m = one(&mails, addr);
        assert_eq!(m.subject, "Zelig Chess Board 101 finished", "{}", m.body);
        assert!(
            m.body.starts_with("Game won by bob (checkmate)."),
            "{}",
            m.body
        );
        assert!(m.body.contains("Zh4# (Cond)"), "{}", m.body);
    }
    assert_eq!(held_lines(&s, "zelig"), 0, "the end of the game clears it");
}

/// The board as drawn in a mail: from the first file header to the last.
fn grid(body: &str) -> Vec<String> {
    let lines: Vec<&str> = body.lines().collect();
    let header = |l: &&str| l.trim_start().starts_with("a   b");
    let first = lines.iter().position(header).expect("a board");
    let last = lines.iter().rposition(header).unwrap();
    lines[first..=last].iter().map(|l| l.to_string()).collect()
}

/// A Shadow Chess line refused deep in: the board shown is the one the
/// line reaches, reveal and all, drawn as the board mail would draw it
/// once those plies are played.
#[test]
fn a_shadow_line_refused_deep_in_shows_the_board_it_reaches() {
    let mut s = board("shadowchess");
    play(&mut s, "shadowchess", "alice", "e4/e2e3");
    let line = "d5/d7d6 exd5/d2d3 reveal d6 Nf6/g8f6 Kh5/e1e2";
    let err = private_to(&cond(&mut s, "shadowchess", "alice", line), ALICE);
    assert_eq!(err.subject, "Shadow Chess Board 101 Error", "{}", err.body);
    let said = message_of(&err);
    assert!(said.contains("Ply 5 of your line"), "{said}");
    assert!(
        said.contains(
            "The board below is as your line leaves it after d5/d7d6 exd5/d2d3 reveal d6 Nf6/g8f6."
        ),
        "{said}"
    );
    assert_eq!(held_lines(&s, "shadowchess"), 0);
    play(&mut s, "shadowchess", "bob", "d5/d7d6");
    play(&mut s, "shadowchess", "alice", "exd5/d2d3");
    play(&mut s, "shadowchess", "bob", "reveal d6");
    let mails = play(&mut s, "shadowchess", "bob", "Nf6/g8f6");
    assert_eq!(grid(&err.body), grid(&one(&mails, ALICE).body));
}

/// One line names bob's reveal, another leaves it open: both are held,
/// the answer says which wins, and the named one is followed when that
/// reveal is made, the open one for any other.
#[test]
fn a_named_reveal_wins_over_a_line_that_leaves_it_open() {
    for (reveal, answer) in [("reveal d6", "Nc3/b1c3"), ("reveal e7", "Nf3/g1f3")] {
        let mut s = board("shadowchess");
        play(&mut s, "shadowchess", "alice", "e4/e2e3");
        let open = "d5/d7d6 exd5/d2d3 Nf6/g8f6 Nf3/g1f3";
        let named = "d5/d7d6 exd5/d2d3 reveal d6 Nf6/g8f6 Nc3/b1c3";
        let first = private_to(&cond(&mut s, "shadowchess", "alice", open), ALICE);
        assert!(!first.subject.contains("Error"), "{}", first.body);
        let second = private_to(&cond(&mut s, "shadowchess", "alice", named), ALICE);
        let said = joined(&second.body);
        assert!(!second.subject.contains("Error"), "{said}");
        assert!(
            said.contains(
                "After d5/d7d6 exd5/d2d3, reveal d6 follows your line that names it, and any other decision your line that leaves it open."
            ),
            "{said}"
        );
        assert_eq!(held_lines(&s, "shadowchess"), 2);
        play(&mut s, "shadowchess", "bob", "d5/d7d6");
        play(&mut s, "shadowchess", "bob", reveal);
        let mails = play(&mut s, "shadowchess", "bob", "Nf6/g8f6");
        let bobs = one(&mails, BOB);
        assert!(
            bobs.body.contains(&format!("{answer} (Cond)")),
            "{reveal}: {}",
            bobs.body
        );
    }
}

/// The owner's own reveal left open in one line (they decide it by mail)
/// and named in another (the tree would decide it) is a clash, refused.
#[test]
fn the_owners_own_reveal_open_in_one_line_and_named_in_another_is_a_clash() {
    let mut s = board("shadowchess");
    play(&mut s, "shadowchess", "alice", "e4/e2e3");
    play(&mut s, "shadowchess", "bob", "d5/d7d6");
    let open = private_to(
        &cond(&mut s, "shadowchess", "bob", "exd5/d2d3 Nf6/g8f6"),
        BOB,
    );
    assert!(!open.subject.contains("Error"), "{}", open.body);
    let err = private_to(
        &cond(&mut s, "shadowchess", "bob", "exd5/d2d3 reveal d6 Nf6/g8f6"),
        BOB,
    );
    assert_eq!(err.subject, "Shadow Chess Board 101 Error", "{}", err.body);
    assert!(
        message_of(&err).starts_with(
            "After exd5/d2d3 one of your lines leaves your own decision open (you send it yourself) and another names it (reveal d6)"
        ),
        "{}",
        err.body
    );
    assert_eq!(
        held_lines(&s, "shadowchess"),
        1,
        "the clash changes nothing"
    );
}
