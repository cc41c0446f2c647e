//! Entering and listing a tree: by Subject, `multiple` and reply; its
//! bounds, illegal plies, wrong passwords, help, and boards or replies that
//! take no tree.

use super::*;

#[test]
fn a_tree_of_lines_is_listed_to_its_owner_alone_drawn_as_indented_lines() {
    let mut s = with_tree();
    let mails = cond(&mut s, "chess", "alice", "list");
    let list = private_to(&mails, ALICE);
    for mv in ["e5", "Nf3", "Nc6", "Bb5", "d6", "d4", "c5", "Nc3"] {
        assert!(list.body.contains(mv), "{mv} listed:\n{}", list.body);
    }
    // The shared beginning e5 Nf3 is drawn once, the two branches under
    // it further in.
    let drawn: Vec<&str> = list
        .body
        .lines()
        .filter(|l| l.contains("Bb5") || l.contains("d4") || l.contains("Nf3"))
        .collect();
    // The tree is drawn once, the shared Nf3 once, on a line of its own
    // above the branches.
    assert_eq!(list.body.matches("Nf3").count(), 1, "{}", list.body);
    // Numbered as the move list numbers them: a row that begins with
    // Black's ply shows its number.
    for row in [
        "1...e5 2. Nf3",
        "2...Nc6 3. Bb5",
        "2...d6 3. d4",
        "1...c5 2. Nc3",
    ] {
        assert!(
            list.body.lines().any(|l| l.trim() == row),
            "{row}:\n{}",
            list.body
        );
    }
    for l in list.body.lines().filter(|l| l.contains("Nf3")) {
        assert!(!l.contains("Bb5") && !l.contains("d4"), "{}", list.body);
    }
    let indent = |l: &str| l.len() - l.trim_start().len();
    let nf3 = drawn.iter().find(|l| l.contains("Nf3")).unwrap();
    let bb5 = drawn.iter().find(|l| l.contains("Bb5")).unwrap();
    assert!(
        indent(bb5) > indent(nf3),
        "a branch is indented:\n{}",
        list.body
    );
}

/// Twenty plies after 1. e4 (the Breyer Ruy Lopez, with 11. c4), and a
/// 21st.
const TWENTY: [&str; 21] = [
    "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6", "c3",
    "O-O", "h3", "Nb8", "d4", "Nbd7", "c4", "c6",
];

#[test]
fn a_line_of_21_plies_is_refused_and_one_of_20_is_held() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let err = private_to(&cond(&mut s, "chess", "alice", &TWENTY.join(" ")), ALICE);
    assert_eq!(err.subject, "Chess Board 101 Error");
    let said = message_of(&err);
    assert!(said.contains("20"), "the refusal says the bound: {said}");
    assert_eq!(held_lines(&s, "chess"), 0);
    let ok = private_to(
        &cond(&mut s, "chess", "alice", &TWENTY[..20].join(" ")),
        ALICE,
    );
    assert!(!ok.subject.contains("Error"), "{}", ok.body);
    assert_eq!(held_lines(&s, "chess"), 1);
    // The long line is drawn within 78 columns (`round` checks every
    // line) in the list and under the move list of alice's board mail.
    let list = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    assert!(list.body.contains("Nbd7"), "{}", list.body);
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(one(&mails, ALICE).body.contains("Nbd7"));
}

#[test]
fn a_51st_line_is_refused_and_the_50_held_still_answer() {
    let mut s = board_with_config("chess", "\n[limits]\ncommands_per_hour = 1000\n");
    play(&mut s, "chess", "alice", "e4");
    // 50 lines: after each of bob's a6, h6 and Nh6, alice plays d4 and
    // then every one of several replies of bob's is a line of its own.
    let replies_a6 = [
        "b6", "b5", "c6", "c5", "d6", "d5", "e6", "e5", "f6", "f5", "g6", "g5", "h6", "h5", "Nc6",
        "Nf6", "Nh6", "Ra7", "a5",
    ];
    let replies_h6 = [
        "a6", "a5", "b6", "b5", "c6", "c5", "d6", "d5", "e6", "e5", "f6", "f5", "g6", "g5", "Nc6",
        "Nf6", "Na6", "Rh7", "h5",
    ];
    let mut lines: Vec<String> = Vec::new();
    lines.extend(replies_a6.iter().map(|r| format!("a6 d4 {r}")));
    lines.extend(replies_h6.iter().map(|r| format!("h6 d4 {r}")));
    for r in [
        "a6", "a5", "b6", "b5", "c6", "c5", "d6", "d5", "e6", "e5", "f6", "f5", "g6",
    ] {
        lines.push(format!("Nh6 d4 {r}"));
    }
    lines.truncate(50);
    assert_eq!(lines.len(), 50);
    for chunk in lines.chunks(10) {
        let body: String = chunk
            .iter()
            .map(|l| format!("chess if 101 alice apw {l}\n"))
            .collect();
        let mails = round(&mut s, ALICE, "multiple", &body);
        let answer = private_to(&mails, ALICE);
        assert!(!answer.body.contains("Error"), "{}", answer.body);
    }
    assert_eq!(held_lines(&s, "chess"), 50);
    let err = private_to(&cond(&mut s, "chess", "alice", "Nh6 d4 g5"), ALICE);
    assert_eq!(err.subject, "Chess Board 101 Error");
    assert!(message_of(&err).contains("50"), "{}", err.body);
    assert_eq!(held_lines(&s, "chess"), 50, "nothing of the 51st is kept");
    // A line that continues a held one is no new line: it is taken.
    let ok = private_to(&cond(&mut s, "chess", "alice", "a6 d4 b6 c4"), ALICE);
    assert!(!ok.subject.contains("Error"), "{}", ok.body);
    let mails = play(&mut s, "chess", "bob", "h6");
    assert!(one(&mails, BOB).body.contains("d4 (Cond)"));
}

#[test]
fn an_illegal_ply_is_refused_naming_it_with_the_legal_moves_there() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let err = private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Nf5 a6"), ALICE);
    assert_eq!(err.subject, "Chess Board 101 Error");
    let said = message_of(&err);
    assert!(said.contains("Nf5"), "{said}");
    assert!(
        ["fourth", "4th", "ply 4", "ply 5", "fifth", "5th"]
            .iter()
            .any(|w| said.contains(w)),
        "the refusal says which ply: {said}"
    );
    assert!(
        said.contains("the knight on f3 can move to"),
        "the legal moves there, as a move refusal gives them: {said}"
    );
    // The board shown is the one the line reaches, not the board now.
    assert!(
        said.contains("The board below is as your line leaves it after e5 Nf3 Nc6."),
        "{said}"
    );
    let rank = |body: &str, r: &str| -> String {
        body.lines()
            .find(|l| l.starts_with(&format!("  {r} |")))
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        rank(&err.body, "5"),
        "  5 |:::|   |:::|   |*P*|   |:::|   |  5",
        "{}",
        err.body
    );
    assert_eq!(
        rank(&err.body, "3"),
        "  3 |:::|   |:::|   |:::| N |:::|   |  3",
        "{}",
        err.body
    );
    assert_eq!(
        rank(&err.body, "6"),
        "  6 |   |:::|*N*|:::|   |:::|   |:::|  6"
    );
    // A board flipped by `set ... flip` is drawn so here too.
    round(&mut s, ALICE, "chess set alice apw flip", "");
    let err = private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Nf5 a6"), ALICE);
    let (r5, r4) = (
        err.body.find("  5 |   |:::|   |*P*|"),
        err.body.find("  4 |"),
    );
    assert!(
        r5.is_some() && r4 < r5,
        "rank 5 below rank 4:\n{}",
        err.body
    );
    // The opponent's first ply: shown on the board now.
    let err = private_to(&cond(&mut s, "chess", "alice", "Ke7 Nf3"), ALICE);
    let said = message_of(&err);
    assert!(said.contains("Ke7"), "{said}");
    assert!(said.contains("the king on e8 has no legal move"), "{said}");
    assert!(!said.contains("The board below"), "{said}");
    assert!(
        !err.body.contains("*P*|   |:::|   |  5"),
        "the board now: {}",
        err.body
    );
    assert_eq!(
        held_lines(&s, "chess"),
        0,
        "nothing of a refused line is kept"
    );
}

#[test]
fn a_wrong_password_is_refused_never_echoed_and_nothing_is_stored() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let mails = round(&mut s, ALICE, "chess if 101 alice guessed e5 Nf3", "");
    let err = private_to(&mails, ALICE);
    assert!(
        err.body.contains("password for alice is wrong"),
        "{}",
        err.body
    );
    assert!(!err.raw.contains("guessed"), "{}", err.body);
    // Nor from a forged From: bob's address with alice's userid.
    let mails = round(&mut s, BOB, "chess if 101 alice bpw e5 Nf3", "");
    assert!(one(&mails, BOB).subject.contains("Error"));
    assert_eq!(held_lines(&s, "chess"), 0);
    let mails = play(&mut s, "chess", "bob", "e5");
    assert_eq!(one(&mails, BOB).subject, "Chess Board 101 alice");
    assert_eq!(plies(&s, "chess"), 2);
}

#[test]
fn on_the_owners_turn_the_first_ply_is_played_at_once_as_move_plays_it() {
    let mut s = board("chess");
    let mails = cond(&mut s, "chess", "alice", "e4 e5 Nf3 Nc6 Bb5");
    assert_eq!(plies(&s, "chess"), 1);
    for addr in [BOB, CAROL] {
        assert_eq!(one(&mails, addr).subject, "Chess Board 101 bob");
    }
    // Bob's mail is the ordinary board mail of e4, with no hint.
    assert_no_hint(&one(&mails, BOB), &["Nf3", "Bb5"], false);
    assert_no_hint(&one(&mails, CAROL), &["Nf3", "Bb5"], false);
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(one(&mails, BOB).body.contains("Nf3 (Cond)"));
    assert_eq!(plies(&s, "chess"), 3);
}

#[test]
fn a_tree_entered_by_a_multiple_body_answers() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let mails = round(
        &mut s,
        ALICE,
        "multiple",
        "chess if 101 alice apw e5 Nf3 Nc6 Bb5\nchess if 101 alice apw c5 Nc3\nchess if 101 alice apw list\n",
    );
    let answer = private_to(&mails, ALICE);
    assert!(!answer.body.contains("Error"), "{}", answer.body);
    assert!(answer.body.contains("Nc3"), "{}", answer.body);
    let mails = play(&mut s, "chess", "bob", "c5");
    assert!(one(&mails, BOB).body.contains("Nc3 (Cond)"));
    assert_eq!(plies(&s, "chess"), 3);
}

#[test]
fn a_tree_entered_by_reply_answers_without_a_password() {
    let mut s = board("chess");
    let mails = play(&mut s, "chess", "alice", "e4");
    let boardmail = one(&mails, ALICE);
    s.deliver_raw(&reply_to(
        &boardmail,
        ALICE,
        "r1@players.test",
        "if e5 Nf3 Nc6 Bb5",
    ));
    s.poll();
    let mails = s.take_outbox();
    let answer = private_to(&mails, ALICE);
    assert_fits(&answer);
    assert!(!answer.subject.contains("Error"), "{}", answer.body);
    assert_eq!(held_lines(&s, "chess"), 1);
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(one(&mails, BOB).body.contains("Nf3 (Cond)"));
    // The next board mail takes `if list` and `if cancel` by reply too.
    let latest = one(&mails, ALICE);
    s.deliver_raw(&reply_to(&latest, ALICE, "r2@players.test", "if cancel"));
    s.poll();
    let mails = s.take_outbox();
    let answer = private_to(&mails, ALICE);
    assert!(!answer.subject.contains("Error"), "{}", answer.body);
    assert_eq!(held_lines(&s, "chess"), 0);
}

#[test]
fn a_reply_from_another_address_enters_no_tree() {
    let mut s = board("chess");
    let mails = play(&mut s, "chess", "alice", "e4");
    let boardmail = one(&mails, ALICE);
    s.deliver_raw(&reply_to(
        &boardmail,
        "mallory@evil.test",
        "r3@players.test",
        "if e5 Nf3",
    ));
    s.poll();
    for m in s.take_outbox() {
        assert_ne!(m.to, BOB, "{}", m.body);
    }
    assert_eq!(held_lines(&s, "chess"), 0);
}

#[test]
fn help_if_explains_conditional_moves_with_their_bounds() {
    let mut s = Install::new();
    let mails = round(&mut s, ALICE, "help if", "");
    let page = one(&mails, ALICE);
    assert_eq!(page.subject, "Help on if");
    let text = joined(&page.body);
    for said in [
        "chess if 101 alice secret e5 Nf3 Nc6 Bb5",
        "At most 20 plies in a line, and 50 lines per player and board.",
        "chess if 101 alice secret list",
        "chess if 101 alice secret cancel e5 Nf3 d6",
        "(Cond)",
        "never see your conditional moves",
        "if e5 Nf3 Nc6 Bb5",
        "a new queued move replaces your conditional moves",
        "never decide your opponent's reveal",
    ] {
        assert!(text.contains(said), "help if says {said:?}:\n{}", page.body);
    }
    // The list of topics names it, and the commands page points to it.
    let mails = round(&mut s, ALICE, "help nosuchtopic", "");
    assert!(message_of(&one(&mails, ALICE)).contains("reply, if,"));
    let mails = round(&mut s, ALICE, "help commands", "");
    assert!(one(&mails, ALICE).body.contains("<game> if <board>"));
}

#[test]
fn an_empty_or_overlong_line_is_refused_in_one_sentence_and_nothing_is_kept() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let long = ["Nf6 Nf3 Ng8 Ng1"; 100].join(" ");
    for what in [
        "",
        "cancel e5 Nf3 Nc6 Bb5 extra words that are no moves",
        &long,
    ] {
        let mails = round(&mut s, ALICE, &format!("chess if 101 alice apw {what}"), "");
        let err = private_to(&mails, ALICE);
        if what.starts_with("cancel") {
            // Cancelling what is not held may be answered kindly.
            continue;
        }
        assert!(err.subject.ends_with("Error"), "{what}: {}", err.body);
        assert!(!message_of(&err).is_empty(), "{}", err.body);
    }
    assert_eq!(held_lines(&s, "chess"), 0);
    assert_eq!(plies(&s, "chess"), 1);
}

#[test]
fn a_finished_board_takes_no_tree() {
    let mut s = board("chess");
    for (who, mv) in [
        ("alice", "f3"),
        ("bob", "e5"),
        ("alice", "g4"),
        ("bob", "Qh4"),
    ] {
        play(&mut s, "chess", who, mv);
    }
    let err = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    assert!(err.subject.ends_with("Error"), "{}", err.body);
    let err = private_to(&cond(&mut s, "chess", "alice", "Kf2"), ALICE);
    assert!(err.subject.ends_with("Error"), "{}", err.body);
    assert_eq!(held_lines(&s, "chess"), 0);
}

#[test]
fn fifty_lines_in_one_multiple_mail_are_all_taken() {
    let mut s = board_with_config("chess", "\n[limits]\ncommands_per_hour = 1000\n");
    play(&mut s, "chess", "alice", "e4");
    let replies = [
        "a6", "a5", "b6", "b5", "c6", "c5", "d6", "d5", "e6", "e5", "f6", "f5", "g6", "g5", "h6",
        "h5", "Nc6", "Nf6", "Nh6", "Na6",
    ];
    let mut body = String::new();
    for first in ["a6", "h6", "Nh6"] {
        let chess = rules::game("chess").unwrap();
        let mut position = chess.start(&[]).unwrap();
        for mv in ["e4", first, "d4"] {
            position.play(mv).unwrap();
        }
        let legal = |r: &&&str| position.clone_box().play(r).is_ok();
        for r in replies.iter().filter(legal) {
            body.push_str(&format!("chess if 101 alice apw {first} d4 {r}\n"));
        }
    }
    let body: String = body.lines().take(50).map(|l| format!("{l}\n")).collect();
    let mails = round(&mut s, ALICE, "multiple", &body);
    let answer = private_to(&mails, ALICE);
    assert!(!answer.body.contains("Error"), "{}", answer.body);
    assert_eq!(held_lines(&s, "chess"), 50, "{}", answer.body);
}

#[test]
fn a_stale_reply_enters_no_tree() {
    let mut s = board("chess");
    let mails = play(&mut s, "chess", "alice", "e4");
    let old = one(&mails, ALICE);
    play(&mut s, "chess", "bob", "e5");
    play(&mut s, "chess", "alice", "Nf3");
    // Replying to the mail of ply 1, where the board is at ply 3.
    s.deliver_raw(&reply_to(&old, ALICE, "r9@players.test", "if Nc6 Bb5"));
    s.poll();
    let mails = s.take_outbox();
    let err = one(&mails, ALICE);
    assert!(err.subject.ends_with("Error"), "{}", err.body);
    assert!(to(&mails, BOB).is_empty());
    assert_eq!(held_lines(&s, "chess"), 0);
}

/// In every game the tree's plies are numbered as the move list will
/// number them once played: a line held on the opponent's turn, then
/// played out, shows the same numbers in both.
#[test]
fn a_tree_is_numbered_as_the_move_list_numbers_its_plies_in_every_game() {
    for game in rules::registry() {
        let name = game.name();
        let mut s = board(name);
        let mut position = game.start(&[]).unwrap();
        let mut next = || {
            let mv = position.legal_actions()[0].clone();
            position.play(&mv).unwrap().notation
        };
        let (first, theirs, mine) = (next(), next(), next());
        play(&mut s, name, "alice", &first);
        let answer = private_to(
            &cond(&mut s, name, "alice", &format!("{theirs} {mine}")),
            ALICE,
        );
        assert!(!answer.subject.contains("Error"), "{name}: {}", answer.body);
        let list = private_to(&cond(&mut s, name, "alice", "list"), ALICE);
        let drawn = format!("1...{theirs} 2. {mine}");
        assert!(
            list.body.lines().any(|l| l.trim() == drawn),
            "{name}: {drawn}:\n{}",
            list.body
        );
        let mails = play(&mut s, name, "bob", &theirs);
        let listed = one(&mails, ALICE).body;
        assert!(
            listed.contains(&format!("2. {mine} (Cond)")),
            "{name}:\n{listed}"
        );
    }
}

/// A Shadow Chess reveal in a line takes no number, as in the move list.
#[test]
fn a_reveal_in_a_shadow_line_takes_no_number() {
    let mut s = board("shadowchess");
    play(&mut s, "shadowchess", "alice", "e4/e2e3");
    let line = "d5/d7d6 exd5/d2d3 reveal d6 Nf6/g8f6 Nf3/g1f3";
    private_to(&cond(&mut s, "shadowchess", "alice", line), ALICE);
    let list = private_to(&cond(&mut s, "shadowchess", "alice", "list"), ALICE);
    let drawn = "1...d5/d7d6 2. exd5/d2d3 reveal d6 Nf6/g8f6 3. Nf3/g1f3";
    assert!(
        list.body.lines().any(|l| l.trim() == drawn),
        "{drawn}:\n{}",
        list.body
    );
}
