//! Conditional moves by mail, through the real binary (Maildir
//! in and out, `poll`): trees entered by Subject, by `multiple` and by
//! reply; answers played in the opponent's mail's transaction and marked
//! `(Cond)`; deviations clearing the tree and telling only its owner; the
//! opponent and observers never seeing a tree; clashes, bounds, illegal
//! plies and wrong passwords refused with nothing stored; list and cancel;
//! queue and tree replacing each other; draw offers, undo and resignation
//! clearing the tree; Double Chess castling, Shadow Chess reveals and
//! Zelig; a tree answer applied once across a kill. Every mail the server
//! sends here is checked to stay within 78 columns.

use crate::common;

use common::{joined, to, Install, SentMail, SERVER_ADDRESS};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";
const CAROL: &str = "carol@players.test";

/// A board of `game` between alice (White, password apw) and bob (Black,
/// bpw), carol (cpw) observing it; `extra` is added to the config.
fn board_with_config(game: &str, extra: &str) -> Install {
    let mut s = Install::with_config(extra);
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.send(CAROL, "signup carol cpw", "");
    s.send(ALICE, &format!("{game} challenge alice bob"), "");
    s.send(CAROL, &format!("{game} subscribe 101 carol cpw"), "");
    s.poll();
    for m in s.take_outbox() {
        assert_fits(&m);
    }
    s
}

fn board(game: &str) -> Install {
    board_with_config(game, "")
}

/// Fail the test on any line of the mail (text part, and the raw message
/// as sent) longer than 78 columns.
fn assert_fits(m: &SentMail) {
    for line in m.body.lines().chain(m.raw.lines()) {
        assert!(
            line.trim_end_matches('\r').chars().count() <= 78,
            "a line over 78 columns in the mail to {} ({}): {line:?}\n{}",
            m.to,
            m.subject,
            m.body
        );
    }
}

/// Mail the server, run one pass, and take what it sent (each checked for
/// width).
fn round(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    let mails = s.take_outbox();
    for m in &mails {
        assert_fits(m);
    }
    mails
}

/// The one mail to `addr` in `mails`, cloned.
fn one(mails: &[SentMail], addr: &str) -> SentMail {
    let mine = to(mails, addr);
    assert_eq!(mine.len(), 1, "one mail to {addr}: {mails:#?}");
    mine[0].clone()
}

/// The player's move by Subject.
fn play(s: &mut Install, game: &str, who: &str, mv: &str) -> Vec<SentMail> {
    let (from, pw) = seat(who);
    round(s, from, &format!("{game} move 101 {who} {pw} {mv}"), "")
}

/// A conditional command by Subject: `what` is the line, `list`, or
/// `cancel [...]`.
fn cond(s: &mut Install, game: &str, who: &str, what: &str) -> Vec<SentMail> {
    let (from, pw) = seat(who);
    round(s, from, &format!("{game} if 101 {who} {pw} {what}"), "")
}

fn seat(who: &str) -> (&'static str, &'static str) {
    match who {
        "alice" => (ALICE, "apw"),
        "bob" => (BOB, "bpw"),
        _ => panic!("no player {who}"),
    }
}

/// What an error mail says, as one line: its prose before the quoted
/// command (and before a board drawn under it).
fn message_of(m: &SentMail) -> String {
    let prose = m.body.split("Your command was:").next().unwrap_or_default();
    let prose = prose.split("\n\n").next().unwrap_or_default();
    joined(prose)
}

/// The board as `admin show` prints it.
fn shown(s: &Install, game: &str) -> String {
    s.ok(&["admin", "show", game, "101"])
}

/// How many plies board 101 of `game` has.
fn plies(s: &Install, game: &str) -> i64 {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    conn.query_row(
        "SELECT count(*) FROM plies WHERE game = ?1 AND board = 101",
        [game],
        |r| r.get(0),
    )
    .unwrap()
}

/// How many conditional lines anyone holds on board 101 of `game`, as
/// stored.
fn held_lines(s: &Install, game: &str) -> i64 {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    conn.query_row(
        "SELECT count(*) FROM conditional_lines WHERE game = ?1 AND board = 101",
        [game],
        |r| r.get(0),
    )
    .unwrap()
}

/// The answer to a conditional command that changed nothing anyone else
/// sees: mail to its sender only, none to the opponent or the observer.
fn private_to(mails: &[SentMail], addr: &str) -> SentMail {
    for other in [ALICE, BOB, CAROL].into_iter().filter(|a| *a != addr) {
        assert!(
            to(mails, other).is_empty(),
            "{other} hears nothing of a conditional command: {mails:#?}"
        );
    }
    one(mails, addr)
}

/// Nothing in a mail hints at a tree: none of `unplayed` in the text,
/// and, unless `played_marks` (an answer was played, and its mark may
/// say so), no `(Cond)` mark and no word "conditional".
fn assert_no_hint(m: &SentMail, unplayed: &[&str], played_marks: bool) {
    let raw = m.raw.to_lowercase();
    if !played_marks {
        assert!(
            !raw.contains("conditional"),
            "the mail to {} mentions conditional moves:\n{}",
            m.to,
            m.body
        );
        assert!(
            !raw.contains("(cond)"),
            "the mail to {} shows a (Cond) mark:\n{}",
            m.to,
            m.body
        );
    }
    // The player's own command quoted back in an error is not a hint.
    let mut quoted = false;
    let body: String = m
        .body
        .lines()
        .filter(|l| {
            let skip = quoted;
            quoted = l.starts_with("Your command was:");
            !skip
        })
        .collect::<Vec<_>>()
        .join("\n");
    for mv in unplayed {
        assert!(
            !body.contains(mv),
            "the mail to {} shows the tree's move {mv}:\n{}",
            m.to,
            m.body
        );
    }
}

const RUY_LOPEZ: [&str; 10] = [
    "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1",
];

#[test]
fn a_ten_ply_line_is_played_out_by_the_tree_in_the_opponents_mails() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let mails = cond(&mut s, "chess", "alice", &RUY_LOPEZ.join(" "));
    let answer = private_to(&mails, ALICE);
    assert!(!answer.subject.contains("Error"), "{}", answer.body);
    assert_eq!(plies(&s, "chess"), 1, "nothing is played on bob's turn");

    for (i, pair) in RUY_LOPEZ.chunks(2).enumerate() {
        let (theirs, mine) = (pair[0], pair[1]);
        let mails = play(&mut s, "chess", "bob", theirs);
        // Bob's own answer already shows alice's reply, marked; nobody is
        // asked for alice's move.
        for m in &mails {
            assert_eq!(m.subject, "Chess Board 101 bob", "{theirs}: {}", m.body);
        }
        let bobs = one(&mails, BOB);
        assert!(
            bobs.body.contains(&format!("{mine} (Cond)")),
            "{theirs}: bob's mail shows the answer {mine} marked:\n{}",
            bobs.body
        );
        assert!(bobs.body.contains("It is bob's turn."), "{}", bobs.body);
        let later = &RUY_LOPEZ[2 * i + 2..];
        let unplayed: Vec<&str> = later.iter().copied().skip(1).step_by(2).collect();
        assert_no_hint(&bobs, &unplayed, true);
        assert_no_hint(&one(&mails, CAROL), &unplayed, true);
        let alices = one(&mails, ALICE);
        assert!(
            alices.body.contains(&format!("{mine} (Cond)")),
            "{}",
            alices.body
        );
        match unplayed.first() {
            // Her own mail shows what is left of her tree.
            Some(next) => {
                assert!(
                    alices.body.contains("conditional moves") && alices.body.contains(next),
                    "alice's mail shows her remaining tree ({next}):\n{}",
                    alices.body
                );
            }
            None => assert!(
                !alices.body.contains("conditional moves"),
                "the tree is played out:\n{}",
                alices.body
            ),
        }
        assert_eq!(plies(&s, "chess"), 1 + 2 * (i as i64 + 1));
    }
    let record = shown(&s, "chess");
    assert!(record.contains("6. Re1 (Cond)"), "{record}");
    assert!(record.starts_with("It is bob's turn."), "{record}");
    assert_eq!(
        held_lines(&s, "chess"),
        0,
        "a line played to its end is gone"
    );
}

/// alice (White) after 1. e4, holding the tree
/// e5 Nf3 (Nc6 Bb5 | d6 d4) and c5 Nc3.
fn with_tree() -> Install {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    for line in ["e5 Nf3 Nc6 Bb5", "e5 Nf3 d6 d4", "c5 Nc3"] {
        let mails = cond(&mut s, "chess", "alice", line);
        let answer = private_to(&mails, ALICE);
        assert!(!answer.subject.contains("Error"), "{line}: {}", answer.body);
    }
    s
}

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
    assert!(
        list.body.lines().any(|l| l.trim() == "e5 Nf3"),
        "{}",
        list.body
    );
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

#[test]
fn a_deviation_clears_the_tree_and_only_its_owner_is_told() {
    let mut s = with_tree();
    let mails = play(&mut s, "chess", "bob", "e6");
    assert_eq!(plies(&s, "chess"), 2, "no answer was played");
    for m in &mails {
        assert_eq!(m.subject, "Chess Board 101 alice", "{}", m.body);
    }
    let alices = one(&mails, ALICE);
    let said = joined(&alices.body).to_lowercase();
    assert!(
        said.contains("conditional moves did not expect e6") && said.contains("cleared"),
        "alice is told why her tree is gone:\n{}",
        alices.body
    );
    let tree = ["Nf3", "Nc6", "Bb5", "d6", "d4", "c5", "Nc3"];
    assert_no_hint(&one(&mails, BOB), &tree, false);
    assert_no_hint(&one(&mails, CAROL), &tree, false);
    assert_eq!(held_lines(&s, "chess"), 0);
    let list = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    for mv in ["Bb5", "Nc3"] {
        assert!(!list.body.contains(mv), "cleared:\n{}", list.body);
    }
    // Play goes on as ever, with no word of the tree to anyone but alice.
    let mails = play(&mut s, "chess", "alice", "d3");
    for addr in [BOB, CAROL] {
        assert_no_hint(&one(&mails, addr), &tree, false);
    }
}

#[test]
fn the_opponent_and_observers_see_only_the_answers_played_never_the_rest() {
    let mut s = with_tree();
    let mails = play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 3);
    let unplayed = ["Bb5", "d4", "c5", "Nc3"];
    for addr in [BOB, CAROL] {
        let m = one(&mails, addr);
        assert!(m.body.contains("Nf3 (Cond)"), "{}", m.body);
        assert_no_hint(&m, &unplayed, true);
    }
    let alices = one(&mails, ALICE);
    assert!(alices.body.contains("Bb5"), "{}", alices.body);
    assert!(alices.body.contains("d4"), "{}", alices.body);
    assert!(
        !alices.body.contains("Nc3"),
        "the c5 branch is gone:\n{}",
        alices.body
    );
    // A deviation one level down: only alice hears of it.
    let mails = play(&mut s, "chess", "bob", "Nf6");
    assert_eq!(plies(&s, "chess"), 4);
    let said = joined(&one(&mails, ALICE).body).to_lowercase();
    assert!(said.contains("did not expect nf6"), "{said}");
    for addr in [BOB, CAROL] {
        assert_no_hint(&one(&mails, addr), &unplayed, true);
    }
}

#[test]
fn the_opponents_own_mails_never_hint_at_a_tree_even_when_entered_on_their_turn() {
    let mut s = board("chess");
    let mut seen_by_others = Vec::new();
    let mut keep = |mails: Vec<SentMail>| {
        seen_by_others.extend(mails.into_iter().filter(|m| m.to != ALICE));
    };
    keep(play(&mut s, "chess", "alice", "e4"));
    keep(cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"));
    keep(cond(&mut s, "chess", "alice", "list"));
    keep(cond(&mut s, "chess", "alice", "cancel e5 Nf3 Nc6"));
    keep(cond(&mut s, "chess", "alice", "d5 exd5"));
    // Bob looks at the board and its record while the tree waits.
    keep(round(&mut s, BOB, "chess show 101", ""));
    keep(round(&mut s, BOB, "chess pgn 101", ""));
    keep(round(&mut s, CAROL, "chess show 101", ""));
    keep(play(&mut s, "chess", "bob", "c6"));
    assert!(!seen_by_others.is_empty());
    for m in &seen_by_others {
        assert_no_hint(m, &["Nf3", "Bb5", "exd5"], false);
    }
}

#[test]
fn two_answers_to_one_move_clash_and_the_refusal_names_the_clash() {
    let mut s = with_tree();
    let mails = cond(&mut s, "chess", "alice", "e5 Nc3");
    let err = private_to(&mails, ALICE);
    assert_eq!(err.subject, "Chess Board 101 Error");
    let said = message_of(&err);
    for named in ["e5", "Nf3", "Nc3", "cancel"] {
        assert!(said.contains(named), "the clash names {named}: {said}");
    }
    // Deeper down: after e5 Nf3 Nc6 the answer is Bb5 already.
    let err = private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bc4"), ALICE);
    let said = message_of(&err);
    for named in ["Nc6", "Bb5", "Bc4"] {
        assert!(said.contains(named), "the clash names {named}: {said}");
    }
    // Canonical notation: Ng1f3 is Nf3, so this is no clash.
    let ok = private_to(
        &cond(&mut s, "chess", "alice", "e5 Ng1f3 Nc6 Bb5 a6 Ba4"),
        ALICE,
    );
    assert!(!ok.subject.contains("Error"), "{}", ok.body);
    // Nothing of the refused lines is kept; bob's e5 gets Nf3.
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(one(&mails, BOB).body.contains("Nf3 (Cond)"));
    let list = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    assert!(!list.body.contains("Bc4"), "{}", list.body);
    assert!(list.body.contains("Ba4"), "{}", list.body);
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
    // The opponent's ply too.
    let err = private_to(&cond(&mut s, "chess", "alice", "Ke7 Nf3"), ALICE);
    let said = message_of(&err);
    assert!(said.contains("Ke7"), "{said}");
    assert!(said.contains("the king on e8 has no legal move"), "{said}");
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
fn cancel_drops_a_branch_or_the_whole_tree_and_tells_its_owner_alone() {
    let mut s = with_tree();
    let answer = private_to(&cond(&mut s, "chess", "alice", "cancel e5 Nf3 d6"), ALICE);
    assert!(!answer.subject.contains("Error"), "{}", answer.body);
    let list = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    assert!(list.body.contains("Bb5"), "{}", list.body);
    assert!(list.body.contains("Nc3"), "{}", list.body);
    assert!(
        !list.body.contains("d4"),
        "the d6 branch is gone:\n{}",
        list.body
    );
    // A branch at the opponent's first move.
    private_to(&cond(&mut s, "chess", "alice", "cancel c5"), ALICE);
    let list = private_to(&cond(&mut s, "chess", "alice", "list"), ALICE);
    assert!(!list.body.contains("Nc3"), "{}", list.body);
    assert!(list.body.contains("Bb5"), "{}", list.body);
    // All of it.
    private_to(&cond(&mut s, "chess", "alice", "cancel"), ALICE);
    assert_eq!(held_lines(&s, "chess"), 0);
    let mails = play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 2);
    let alices = one(&mails, ALICE);
    assert_eq!(alices.subject, "Chess Board 101 alice");
    assert!(
        !joined(&alices.body).contains("did not expect"),
        "a cancelled tree expects nothing:\n{}",
        alices.body
    );
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

/// A reply to `m` (a board mail) from `from` whose first line is `line`,
/// as a mail program writes it: the board mail quoted under it.
fn reply_to(m: &SentMail, from: &str, id: &str, line: &str) -> String {
    let parent = m.header("Message-ID").expect("a Message-ID");
    let quoted: String = m.body.lines().map(|l| format!("> {l}\r\n")).collect();
    format!(
        "From: {from}\r\nTo: {SERVER_ADDRESS}\r\nSubject: Re: {}\r\nMessage-ID: <{id}>\r\n\
         In-Reply-To: {parent}\r\nReferences: {parent}\r\nDate: Mon, 23 Nov 2026 10:05:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         {line}\r\n\r\nOn Mon, 23 Nov 2026, Test PBM wrote:\r\n{quoted}",
        m.subject
    )
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
fn a_tree_replaces_a_queued_move_and_a_queued_move_replaces_a_tree_saying_so() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let (from, pw) = seat("alice");
    private_to(
        &round(&mut s, from, &format!("chess queue 101 alice {pw} Nf3"), ""),
        ALICE,
    );
    let answer = private_to(&cond(&mut s, "chess", "alice", "e5 Nc3"), ALICE);
    let said = joined(&answer.body).to_lowercase();
    assert!(
        said.contains("replaces your queued move nf3"),
        "the tree says it replaced the queued move:\n{}",
        answer.body
    );
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(
        one(&mails, BOB).body.contains("Nc3 (Cond)"),
        "the tree answers, not the queue"
    );
    assert!(!one(&mails, BOB).body.contains("Nf3"));

    // Now the other way round.
    private_to(&cond(&mut s, "chess", "alice", "Nc6 Bb5"), ALICE);
    let mails = round(&mut s, from, &format!("chess queue 101 alice {pw} Bc4"), "");
    let answer = private_to(&mails, ALICE);
    let said = joined(&answer.body).to_lowercase();
    assert!(
        said.contains("replaces your conditional moves"),
        "the queue says it replaced the tree:\n{}",
        answer.body
    );
    assert_eq!(held_lines(&s, "chess"), 0);
    let mails = play(&mut s, "chess", "bob", "Nc6");
    let bobs = one(&mails, BOB);
    assert!(bobs.body.contains("Bc4 (Auto)"), "{}", bobs.body);
    assert!(!bobs.body.contains("Bb5"), "{}", bobs.body);
}

#[test]
fn a_draw_offer_or_an_undo_asked_for_by_either_player_clears_the_tree() {
    for offer in ["propose", "undo"] {
        for offerer in ["alice", "bob"] {
            let mut s = board("chess");
            play(&mut s, "chess", "alice", "e4");
            private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"), ALICE);
            let mails = play(&mut s, "chess", offerer, offer);
            assert_eq!(held_lines(&s, "chess"), 0, "{offerer}'s {offer} clears it");
            for addr in [BOB, CAROL] {
                assert_no_hint(&one(&mails, addr), &["Nf3", "Bb5"], false);
            }
            let other = if offerer == "alice" { "bob" } else { "alice" };
            play(&mut s, "chess", other, "reject");
            let mails = play(&mut s, "chess", "bob", "e5");
            assert_eq!(plies(&s, "chess"), 2, "{offerer}'s {offer}: no answer");
            assert_eq!(one(&mails, BOB).subject, "Chess Board 101 alice");
        }
    }
}

#[test]
fn an_undo_of_a_ply_the_tree_played_clears_the_rest_of_the_tree() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"), ALICE);
    play(&mut s, "chess", "bob", "e5");
    assert_eq!(plies(&s, "chess"), 3);
    play(&mut s, "chess", "alice", "undo");
    let mails = play(&mut s, "chess", "bob", "accept");
    assert_eq!(plies(&s, "chess"), 2, "Nf3 is taken back");
    assert_eq!(held_lines(&s, "chess"), 0);
    let alices = one(&mails, ALICE);
    assert!(!alices.body.contains("Bb5"), "{}", alices.body);
    // Alice plays Nf3 herself again; bob's Nc6 is not answered.
    play(&mut s, "chess", "alice", "Nf3");
    let mails = play(&mut s, "chess", "bob", "Nc6");
    assert_eq!(plies(&s, "chess"), 4);
    assert_eq!(one(&mails, BOB).subject, "Chess Board 101 alice");
}

#[test]
fn an_undo_of_the_opponents_ply_clears_the_tree() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    play(&mut s, "chess", "bob", "c5");
    play(&mut s, "chess", "alice", "Nf3");
    // Bob to move; alice's tree answers d6 with d4.
    private_to(&cond(&mut s, "chess", "alice", "d6 d4 cxd4 Nxd4"), ALICE);
    play(&mut s, "chess", "bob", "undo");
    play(&mut s, "chess", "alice", "accept");
    assert_eq!(plies(&s, "chess"), 2);
    assert_eq!(held_lines(&s, "chess"), 0);
}

#[test]
fn resignation_ends_the_game_and_clears_the_tree() {
    for resigner in ["alice", "bob"] {
        let mut s = board("chess");
        play(&mut s, "chess", "alice", "e4");
        play(&mut s, "chess", "bob", "e5");
        play(&mut s, "chess", "alice", "Nf3");
        private_to(&cond(&mut s, "chess", "alice", "Nc6 Bb5"), ALICE);
        assert_eq!(held_lines(&s, "chess"), 1);
        let (from, pw) = seat(resigner);
        let mails = round(
            &mut s,
            from,
            &format!("chess resign 101 {resigner} {pw}"),
            "",
        );
        assert_eq!(held_lines(&s, "chess"), 0, "{resigner} resigned");
        for addr in [BOB, CAROL] {
            let m = one(&mails, addr);
            assert!(m.subject.ends_with("finished"), "{}", m.body);
            assert_no_hint(&m, &["Bb5"], false);
        }
    }
}

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

#[test]
fn a_tree_answer_is_applied_once_across_a_kill_in_its_mails_pass() {
    const KILLER: &str = "KILLS-THE-SERVER";
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    private_to(&cond(&mut s, "chess", "alice", &RUY_LOPEZ.join(" ")), ALICE);
    // Bob's e5 and a mail that kills the server behind it, read in one
    // group: the first pass dies with e5 and its answer uncommitted.
    s.send(BOB, "chess move 101 bob bpw e5", "");
    s.send("mallory@evil.test", "help", KILLER);
    let armed = |s: &Install| {
        common::pbmchess()
            .arg("--config")
            .arg(&s.config)
            .arg("poll")
            .env("RUST_LOG", "error")
            .env("PBMCHESS_TEST_ABORT_ON", KILLER)
            .output()
            .expect("the binary runs")
    };
    let mut died = 0;
    for _ in 0..6 {
        if !armed(&s).status.success() {
            died += 1;
        }
    }
    assert!(died >= 1, "the killer mail killed the server");
    assert_eq!(plies(&s, "chess"), 3, "e5 and Nf3 (Cond), once each");
    let record = shown(&s, "chess");
    assert_eq!(record.matches("(Cond)").count(), 1, "{record}");
    let mails: Vec<SentMail> = s.take_outbox();
    let to_bob: Vec<_> = to(&mails, BOB);
    assert!(!to_bob.is_empty());
    for m in &to_bob {
        assert!(m.body.contains("Nf3 (Cond)"), "{}", m.body);
    }
    // The tree went on from where it was: Nc6 is answered by Bb5.
    let mails = play(&mut s, "chess", "bob", "Nc6");
    assert!(one(&mails, BOB).body.contains("Bb5 (Cond)"));
    assert_eq!(plies(&s, "chess"), 5);
    assert_eq!(shown(&s, "chess").matches("(Cond)").count(), 2);
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

/// Twelve boards (each pair of four players twice), each with White's
/// `e4` and White's tree of the Ruy Lopez mailed in but not yet read;
/// the board numbers with their Black players.
fn boards_with_trees(s: &mut Install) -> Vec<(u32, &'static str)> {
    let users = ["ann", "ben", "cat", "dan"];
    for u in users {
        s.ok(&[
            "admin",
            "user",
            "add",
            u,
            "pw",
            &format!("{u}@players.test"),
        ]);
    }
    let pairs = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)];
    let mut boards = Vec::new();
    for (w, b) in pairs.iter().chain(pairs.iter()) {
        let out = s.ok(&["admin", "challenge", "chess", users[*w], users[*b]]);
        let number: u32 = out
            .split(|c: char| !c.is_ascii_digit())
            .find_map(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("a board number in {out:?}"));
        let white = users[*w];
        let from = format!("{white}@players.test");
        s.send(&from, &format!("chess move {number} {white} pw e4"), "");
        let line = RUY_LOPEZ.join(" ");
        s.send(&from, &format!("chess if {number} {white} pw {line}"), "");
        boards.push((number, users[*b]));
    }
    boards
}

/// Black's five moves on every board mailed in, interleaved, each
/// board's in order, with a `show` now and then; their Message-IDs.
fn blacks_backlog(s: &mut Install, boards: &[(u32, &str)], rng: &mut fastrand::Rng) -> Vec<String> {
    let mut next = vec![0usize; boards.len()];
    let mut inbound = Vec::new();
    while next.iter().any(|&n| n < 5) {
        let i = rng.usize(..boards.len());
        let (number, black) = boards[i];
        if next[i] < 5 && rng.u64(..4) != 0 {
            let mv = RUY_LOPEZ[2 * next[i]];
            next[i] += 1;
            let from = format!("{black}@players.test");
            inbound.push(s.send(&from, &format!("chess move {number} {black} pw {mv}"), ""));
        } else {
            let subject = format!("chess show {number}");
            inbound.push(s.send("watcher@players.test", &subject, ""));
        }
    }
    inbound
}

/// How many mails the server has recorded as processed.
fn processed(s: &Install) -> usize {
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let n: i64 = conn
        .query_row("SELECT count(*) FROM processed_mail", [], |r| r.get(0))
        .unwrap();
    n as usize
}

/// `serve` started and killed with SIGKILL at seeded moments, soon after
/// each start, while mail of the `total` is left; then run until every
/// mail is processed. Returns how many kills came with work left undone.
fn work_with_kills(s: &Install, rng: &mut fastrand::Rng, total: usize) -> usize {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let serve = || {
        common::pbmchess()
            .arg("--config")
            .arg(&s.config)
            .arg("serve")
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut interrupted = 0;
    for _ in 0..30 {
        if processed(s) >= total {
            break;
        }
        let mut child = serve();
        // Soon after the start: on an idle machine the whole backlog takes
        // well under a second, and a kill after it proves nothing.
        std::thread::sleep(Duration::from_millis(5 + rng.u64(..120)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        if processed(s) < total {
            interrupted += 1;
        }
    }
    let mut child = serve();
    let deadline = Instant::now() + Duration::from_secs(120);
    while processed(s) < total {
        assert!(Instant::now() < deadline, "the backlog was not worked off");
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_millis(500));
    child.kill().unwrap();
    child.wait().unwrap();
    interrupted
}

/// As `mail::crash` does for moves: trees entered and the
/// opponents' moves they answer, on twelve boards, worked by `serve`
/// killed with SIGKILL at seeded random moments and restarted: every
/// board ends with each answer played exactly once, and the database is
/// whole.
#[test]
fn tree_answers_survive_sigkill_applied_exactly_once() {
    // Seeded, so the kills repeat.
    let mut rng = fastrand::Rng::with_seed(0xc0d1_7105_a11e);
    // The kills are the test's, not the mails': the quarantine limit is
    // above their number, so that a slow machine (where a mail dies in
    // every one of the 30 runs) quarantines nothing.
    let mut s = Install::with_config(
        "\n[poll]\ninterval_seconds = 1\n[limits]\ncommands_per_hour = 100000\nfailures_before_quarantine = 1000\n[retry]\nlease_seconds = 1\n",
    );
    let boards = boards_with_trees(&mut s);
    let inbound = blacks_backlog(&mut s, &boards, &mut rng);
    let total = inbound.len() + 2 * boards.len();
    let interrupted = work_with_kills(&s, &mut rng, total);
    assert!(interrupted > 0, "the server was killed with work left");

    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let mut expected = vec!["e4".to_string()];
    expected.extend(RUY_LOPEZ.iter().map(|m| m.to_string()));
    for (number, _) in &boards {
        let moves: Vec<String> = conn
            .prepare("SELECT notation FROM plies WHERE game = 'chess' AND board = ?1 ORDER BY ply")
            .unwrap()
            .query_map([number], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(moves, expected, "board {number}");
        let record = s.ok(&["admin", "show", "chess", &number.to_string()]);
        let marks = record.matches("(Cond)").count();
        assert_eq!(marks, 5, "board {number}: {record}");
    }
    assert_eq!(processed(&s), total);
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}

#[test]
fn nobody_but_the_owner_reads_or_changes_a_tree() {
    let mut s = with_tree();
    // The observer is no player of the board: refused, nothing shown.
    let mails = round(&mut s, CAROL, "chess if 101 carol cpw list", "");
    let err = private_to(&mails, CAROL);
    assert!(err.subject.contains("Error"), "{}", err.body);
    assert_no_hint(&err, &["Nf3", "Bb5", "Nc3"], true);
    // The opponent lists and cancels only his own (empty) tree.
    for what in ["list", "cancel", "cancel e5", "cancel c5 Nc3"] {
        let mails = cond(&mut s, "chess", "bob", what);
        let answer = private_to(&mails, BOB);
        assert_no_hint(&answer, &["Nf3", "Bb5", "Nc3", "d4"], true);
    }
    assert_eq!(held_lines(&s, "chess"), 3);
    let mails = play(&mut s, "chess", "bob", "c5");
    assert!(one(&mails, BOB).body.contains("Nc3 (Cond)"));
}

#[test]
fn a_comment_sent_with_a_tree_is_not_relayed_to_anyone() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    let mails = round(
        &mut s,
        ALICE,
        "chess if 101 alice apw e5 Nf3",
        "My secret plan: the Ruy Lopez.",
    );
    private_to(&mails, ALICE);
    let mails = play(&mut s, "chess", "bob", "d5");
    for addr in [BOB, CAROL] {
        let m = one(&mails, addr);
        assert!(!m.body.contains("secret plan"), "{}", m.body);
    }
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
fn two_trees_answer_each_other_in_one_mail_until_both_are_played_out() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    private_to(&cond(&mut s, "chess", "alice", "e5 Nf3 Nc6 Bb5"), ALICE);
    // Bob, on his turn: e5 now, then his answers to alice's.
    let mails = cond(&mut s, "chess", "bob", "e5 Nf3 Nc6 Bb5 a6");
    assert_eq!(plies(&s, "chess"), 6, "e4, then five plies in bob's mail");
    for addr in [ALICE, BOB, CAROL] {
        let m = one(&mails, addr);
        assert_eq!(m.subject, "Chess Board 101 alice", "{}", m.body);
        for marked in ["Nf3 (Cond)", "Nc6 (Cond)", "Bb5 (Cond)", "a6 (Cond)"] {
            assert!(m.body.contains(marked), "{marked}:\n{}", m.body);
        }
    }
    assert_eq!(held_lines(&s, "chess"), 0, "both lines are played out");
}

#[test]
fn a_tree_answer_follows_the_opponents_queued_move_in_the_same_mail() {
    let mut s = board("chess");
    // Bob queues e5 while alice is to move; alice enters her line on her
    // own turn: e4 now, bob's queued e5, her Nf3 from the tree.
    private_to(&round(&mut s, BOB, "chess queue 101 bob bpw e5", ""), BOB);
    let mails = cond(&mut s, "chess", "alice", "e4 e5 Nf3 Nc6 Bb5");
    assert_eq!(plies(&s, "chess"), 3);
    let bobs = one(&mails, BOB);
    assert_eq!(bobs.subject, "Chess Board 101 bob", "{}", bobs.body);
    assert!(bobs.body.contains("e5 (Auto)"), "{}", bobs.body);
    assert!(bobs.body.contains("Nf3 (Cond)"), "{}", bobs.body);
    assert_no_hint(&bobs, &["Bb5"], true);
    let mails = play(&mut s, "chess", "bob", "Nc6");
    assert!(one(&mails, BOB).body.contains("Bb5 (Cond)"));
}

#[test]
fn a_tree_answers_only_on_its_own_board() {
    let mut s = board("chess");
    round(&mut s, ALICE, "chess challenge alice bob", "");
    for number in [101, 102] {
        round(
            &mut s,
            ALICE,
            &format!("chess move {number} alice apw e4"),
            "",
        );
    }
    private_to(&cond(&mut s, "chess", "alice", "e5 Nf3"), ALICE);
    let mails = round(&mut s, BOB, "chess move 102 bob bpw e5", "");
    let bobs = one(&mails, BOB);
    assert_eq!(bobs.subject, "Chess Board 102 alice", "{}", bobs.body);
    assert!(!bobs.body.contains("(Cond)"), "{}", bobs.body);
    // Nor does the other board's move disturb the tree of 101.
    assert_eq!(held_lines(&s, "chess"), 1);
    let mails = play(&mut s, "chess", "bob", "e5");
    assert!(one(&mails, BOB).body.contains("Nf3 (Cond)"));
}

#[test]
fn a_tree_is_mailed_only_to_its_owners_addresses_even_asked_from_elsewhere() {
    let mut s = with_tree();
    // Someone who has alice's password but writes from another address.
    let mails = round(
        &mut s,
        "mallory@evil.test",
        "chess if 101 alice apw list",
        "",
    );
    for m in to(&mails, "mallory@evil.test") {
        assert_no_hint(m, &["Nf3", "Bb5", "Nc3", "d4"], true);
    }
    for m in &mails {
        if m.to != ALICE {
            assert!(!m.body.contains("Bb5"), "to {}: {}", m.to, m.body);
        }
    }
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

/// The forfeit comes from the timers, so this one runs the server in
/// process with a clock the test moves (`common::world`).
#[test]
fn a_forfeit_clears_the_tree() {
    use chrono::Duration;
    use common::world::World;
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.mail("b@x", "chess move 101 bob pb e5", "");
    w.mail("a@x", "chess move 101 alice pa Nf3", "");
    w.mail("a@x", "chess if 101 alice pa Nc6 Bb5", "");
    let lines = |w: &World| -> i64 {
        w.conn
            .query_row("SELECT count(*) FROM conditional_lines", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(lines(&w), 1);
    w.replies();
    w.advance(Duration::days(30));
    w.ticks();
    assert!(!w.board().is_active());
    assert_eq!(lines(&w), 0);
    for m in w.replies() {
        assert!(!m.body.contains("Bb5"), "to {}: {}", m.to, m.body);
    }
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

/// The computer answers within the mail that gave it the turn, so the
/// test first learns its answer to 1. e4 on a board of its own (the
/// search has no randomness), then holds a line expecting it. Should the
/// answer differ the second time, the deviation must be told instead.
#[test]
fn a_tree_answers_the_computers_moves_as_it_answers_a_players() {
    let mut s = Install::new();
    round(&mut s, ALICE, "signup alice apw", "");
    round(&mut s, ALICE, "chess challenge alice computer -level=1", "");
    round(&mut s, ALICE, "chess challenge alice computer -level=1", "");
    round(&mut s, ALICE, "chess move 102 alice apw e4", "");
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let reply: String = conn
        .query_row(
            "SELECT notation FROM plies WHERE game = 'chess' AND board = 102 AND ply = 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // Nf3 is legal after any first move of Black's.
    let mails = cond(&mut s, "chess", "alice", &format!("e4 {reply} Nf3 a6"));
    let record = shown(&s, "chess");
    let answered: String = conn
        .query_row(
            "SELECT notation FROM plies WHERE game = 'chess' AND board = 101 AND ply = 2",
            [],
            |r| r.get(0),
        )
        .unwrap();
    if answered == reply {
        assert!(record.contains("Nf3 (Cond)"), "{record}");
        assert!(
            plies(&s, "chess") >= 4,
            "the computer answered Nf3: {record}"
        );
    } else {
        let said = joined(&one(&mails, ALICE).body);
        assert!(said.contains("did not expect"), "{said}");
    }
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

#[test]
fn the_pgn_of_a_game_with_tree_answers_replays() {
    let mut s = with_tree();
    play(&mut s, "chess", "bob", "e5");
    play(&mut s, "chess", "bob", "Nc6");
    let mails = round(&mut s, BOB, "chess pgn 101", "");
    let pgn = one(&mails, BOB).body;
    assert_no_hint(&one(&mails, BOB), &["d4", "Nc3"], true);
    let movetext = pgn
        .split_once("\n\n")
        .map(|(_, rest)| rest)
        .unwrap_or_default()
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(movetext.contains("Bb5"), "{pgn}");
    let mails = round(&mut s, BOB, &format!("chess preview new {movetext}"), "");
    let preview = one(&mails, BOB);
    assert!(
        !preview.subject.ends_with("Error"),
        "{movetext}\n{}",
        preview.body
    );
}

#[test]
fn a_tree_and_the_move_it_answers_read_in_one_pass_play_in_order() {
    let mut s = board("chess");
    play(&mut s, "chess", "alice", "e4");
    s.send(ALICE, "chess if 101 alice apw e5 Nf3 Nc6 Bb5", "");
    s.send(BOB, "chess move 101 bob bpw e5", "");
    s.send(BOB, "chess move 101 bob bpw Nc6", "");
    s.poll();
    let mails = s.take_outbox();
    for m in &mails {
        assert_fits(m);
    }
    assert_eq!(plies(&s, "chess"), 5);
    let record = shown(&s, "chess");
    assert!(
        record.contains("Nf3 (Cond)") && record.contains("Bb5 (Cond)"),
        "{record}"
    );
    for m in to(&mails, CAROL) {
        assert_no_hint(m, &[], true);
        assert!(
            !m.body.contains("Bb5") || m.body.contains("Bb5 (Cond)"),
            "{}",
            m.body
        );
    }
}

/// Bob's and carol's view of the board, asked by `show`: the body of the
/// answer (its headers carry fresh tokens).
fn views(w: &mut common::world::World) -> Vec<String> {
    w.replies();
    w.mail("b@x", "chess show 101", "");
    w.mail("c@x", "chess show 101", "");
    w.mail("b@x", "chess games bob", "");
    w.replies().into_iter().map(|m| m.body).collect()
}

/// Entering, listing and cancelling a tree leaves no trace anyone else
/// can see: not even the board's "last action" time moves (the test moves
/// the clock between, in process with `common::world`).
#[test]
fn a_tree_entered_listed_and_cancelled_leaves_the_others_view_unchanged() {
    use chrono::Duration;
    use common::world::World;
    let mut w = World::with_board();
    w.mail("c@x", "signup carol pc", "");
    w.mail("c@x", "chess subscribe 101 carol pc", "");
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.advance(Duration::hours(3));
    let before = views(&mut w);
    w.advance(Duration::hours(3));
    for command in [
        "chess if 101 alice pa e5 Nf3 Nc6 Bb5",
        "chess if 101 alice pa c5 Nc3",
        "chess if 101 alice pa list",
        "chess if 101 alice pa cancel c5",
    ] {
        w.mail("a@x", command, "");
        for m in w.replies() {
            assert_eq!(m.to, "a@x", "{command}: {}", m.body);
        }
    }
    w.advance(Duration::hours(3));
    assert_eq!(views(&mut w), before);
    let row = w.board();
    w.mail("a@x", "chess if 101 alice pa cancel", "");
    assert_eq!(format!("{:?}", w.board()), format!("{row:?}"));
}

/// "Vacations and timers count as today": a tree entered is no action
/// on the board, so the reminder to the player to move comes when it
/// would have come without it.
#[test]
fn a_tree_entered_does_not_move_the_opponents_reminder() {
    use chrono::Duration;
    use common::world::World;
    let mut w = World::with_board();
    w.mail("a@x", "chess move 101 alice pa e4", "");
    w.replies();
    w.advance(Duration::days(6));
    w.mail("a@x", "chess if 101 alice pa e5 Nf3", "");
    w.replies();
    assert_eq!(w.ticks(), 0);
    w.advance(Duration::days(1));
    assert_eq!(w.ticks(), 1, "bob is reminded seven days after e4");
    let r = w.replies();
    assert_eq!(r.len(), 1);
    assert_eq!(r[0].to, "b@x");
    assert!(!r[0].body.contains("Nf3"), "{}", r[0].body);
    assert!(
        !r[0].body.to_lowercase().contains("conditional"),
        "{}",
        r[0].body
    );
}

#[test]
fn a_queued_move_no_line_expected_clears_the_tree_and_tells_only_its_owner() {
    let mut s = board("chess");
    private_to(&round(&mut s, BOB, "chess queue 101 bob bpw c5", ""), BOB);
    let mails = cond(&mut s, "chess", "alice", "e4 e5 Nf3 Nc6 Bb5");
    assert_eq!(plies(&s, "chess"), 2, "e4, then bob's queued c5");
    let said = joined(&one(&mails, ALICE).body).to_lowercase();
    assert!(said.contains("did not expect c5"), "{said}");
    for addr in [BOB, CAROL] {
        assert_no_hint(&one(&mails, addr), &["Nf3", "Bb5"], false);
    }
    assert_eq!(held_lines(&s, "chess"), 0);
}
