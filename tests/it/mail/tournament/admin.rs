//! Tournaments and the admin: opened by the CLI, boards deleted or
//! adjudicated, the computer player entered.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use super::kills::boards_in_database;
use super::round_robin::RoundRobinTable;
use super::{
    assert_every_mail_within_78_columns, create_tournament, finish, install_with, mail_to,
    new_boards, new_boards_of, refusal, row, say, show, tour, Board, Ending, Player, ANN, BEN, CAT,
    COMPUTER, CONFIG, DAN, FAY,
};
use common::parse_sent;

/// The admin opens a tournament by the CLI (players may not), players
/// join by mail, it starts when full; `admin tournament show` and `list`
/// print it. In another game than chess: its boards are of that game.
#[test]
fn an_admin_opens_a_tournament_by_the_cli_and_players_join_by_mail() {
    let all = [ANN, BEN, CAT, FAY];
    let mut s = install_with("", &all);
    let out = s.ok(&[
        "admin",
        "tournament",
        "create",
        "winter",
        "shadowchess",
        "--kind",
        "roundrobin",
        "--players",
        "3",
        "--double",
        "--forfeittime=9",
    ]);
    assert!(out.contains("winter"), "{out}");
    let listed = s.ok(&["admin", "tournament", "list"]);
    assert!(listed.contains("winter"), "{listed}");
    let mut boards = BTreeMap::new();
    for p in [ANN, BEN, CAT] {
        let mails = say(
            &mut s,
            p,
            &format!("shadowchess tournament join winter {} {}", p.user(), p.pw()),
        );
        assert!(mails.iter().all(|m| m.subject != "Error"), "{mails:#?}");
        boards = new_boards_of("Shadow Chess", &mails, "winter", &all);
    }
    // Double round robin of three: six boards, each pair once each way.
    assert_eq!(boards.len(), 6, "{boards:#?}");
    let pairs: BTreeSet<(Player, Player)> = boards.values().map(|b| (b.white, b.black)).collect();
    assert_eq!(pairs.len(), 6, "{pairs:?}");
    // The boards keep the tournament's timers.
    let conn = rusqlite::Connection::open(s.path("var/db.sqlite")).unwrap();
    let forfeit: Vec<Option<i64>> = conn
        .prepare("SELECT forfeit_days FROM boards WHERE game = 'shadowchess'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(forfeit, vec![Some(9); 6]);
    let table = s.ok(&["admin", "tournament", "show", "winter"]);
    for p in [ANN, BEN, CAT] {
        row(&table, p);
    }
    // Chess has no tournament of that name.
    let mails = say(&mut s, FAY, "chess tournament show winter");
    refusal(&mails, FAY);
}

/// An admin who deletes a Swiss board of the round in play does not
/// leave the tournament stuck: either the delete is refused, or the
/// round still ends when its other board does.
#[test]
fn deleting_a_board_of_a_swiss_round_does_not_stall_the_tournament() {
    let entrants = [ANN, BEN, CAT, DAN];
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    create_tournament(&mut s, ANN, "cup", "swiss 4 rounds 2");
    let mut boards = BTreeMap::new();
    for &p in &entrants[1..] {
        boards = new_boards(&tour(&mut s, "join", "cup", p), "cup", &all);
    }
    let round1: Vec<Board> = boards.into_values().collect();
    let out = s.run(&[
        "admin",
        "board",
        "delete",
        "chess",
        &round1[1].number.to_string(),
    ]);
    s.poll();
    s.take_outbox();
    let deleted = out.status.success() && boards_in_database(&s).len() == 1;
    let mails = finish(&mut s, &round1[0], Ending::Win(round1[0].white));
    if deleted {
        let round2 = new_boards(&mails, "cup", &all);
        assert_eq!(round2.len(), 2, "round 2 is paired: {mails:#?}");
    } else {
        assert_eq!(boards_in_database(&s).len(), 2, "the delete was refused");
    }
}

/// The admin's adjudication of a Swiss round's last board pairs the next
/// round, as any other ending does.
#[test]
fn an_adjudication_ending_a_swiss_round_pairs_the_next_round() {
    let entrants = [ANN, BEN, CAT, DAN];
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    create_tournament(&mut s, ANN, "cup", "swiss 4 rounds 2");
    let mut boards = BTreeMap::new();
    for &p in &entrants[1..] {
        boards = new_boards(&tour(&mut s, "join", "cup", p), "cup", &all);
    }
    let round1: Vec<Board> = boards.into_values().collect();
    finish(&mut s, &round1[0], Ending::Draw);
    let last = &round1[1];
    s.ok(&[
        "admin",
        "board",
        "adjudicate",
        "chess",
        &last.number.to_string(),
        last.white.user(),
    ]);
    s.poll();
    let mails = s.take_outbox();
    let round2 = new_boards(&mails, "cup", &all);
    assert_eq!(round2.len(), 2, "{mails:#?}");
    assert!(round2.values().all(|b| b.round == 2));
    let met: BTreeSet<(Player, Player)> = round1
        .iter()
        .map(|b| (b.white.min(b.black), b.white.max(b.black)))
        .collect();
    for b in round2.values() {
        assert!(!met.contains(&(b.white.min(b.black), b.white.max(b.black))));
    }
}

/// The computer player entered by the admin plays its tournament boards
/// (it moves in the very mail that starts a board where it has White),
/// never gets mail, and scores in the crosstable like anyone.
#[test]
fn the_computer_entered_by_the_admin_plays_its_tournament_boards() {
    let all = [ANN, BEN, FAY, COMPUTER];
    let mut s = install_with("\n[computer]\nmove_seconds = 5.0\n", &all[..3]);
    s.ok(&[
        "admin",
        "tournament",
        "create",
        "robots",
        "chess",
        "--kind",
        "roundrobin",
        "--players",
        "3",
    ]);
    s.ok(&["admin", "tournament", "join", "robots", "computer"]);
    tour(&mut s, "join", "robots", ANN);
    let mails = tour(&mut s, "join", "robots", BEN);
    let boards = new_boards(&mails, "robots", &all);
    assert_eq!(boards.len(), 3, "{mails:#?}");
    for b in boards.values().filter(|b| b.white == COMPUTER) {
        let first = mails
            .iter()
            .find(|m| {
                m.subject
                    .starts_with(&format!("New Chess Board {} ", b.number))
            })
            .unwrap();
        assert!(
            first.body.contains("computer plays"),
            "the computer moved at once: {}",
            first.body
        );
    }
    let mut expected = RoundRobinTable {
        seeds: vec![COMPUTER, ANN, BEN],
        results: BTreeMap::new(),
    };
    for (x, y, ending) in [
        (ANN, COMPUTER, Ending::Win(COMPUTER)),
        (BEN, COMPUTER, Ending::Win(COMPUTER)),
        (ANN, BEN, Ending::Draw),
    ] {
        let board = boards
            .values()
            .find(|b| (b.white, b.black) == (x, y) || (b.white, b.black) == (y, x))
            .unwrap()
            .clone();
        finish(&mut s, &board, ending);
        expected.record(&board, ending);
    }
    expected.check(&show(&mut s, "robots"));
    assert!(
        !s.all_outbox_raw()
            .iter()
            .any(|raw| parse_sent(raw).to == COMPUTER.addr()),
        "the computer gets no mail"
    );
    assert_every_mail_within_78_columns(&s);
}

/// A tournament's tiebreak list is chosen when it is opened, by mail or
/// by the CLI, published in the answer and shown in the crosstable's
/// header and columns; a list that is not one is refused in a sentence,
/// and nothing is opened.
#[test]
fn the_creator_or_admin_chooses_the_tiebreak_list_and_the_crosstable_shows_it() {
    let all = [ANN, BEN, CAT, FAY];
    let mut s = install_with(CONFIG, &all);
    let created = create_tournament(&mut s, ANN, "ladder", "roundrobin 4 tiebreaks sb,won");
    let answer = common::joined(&created[0].body);
    assert!(
        answer.contains("ties are broken by, in order: SB, WON."),
        "{answer}"
    );
    // Published before the start, shown once it runs.
    let open = show(&mut s, "ladder");
    assert!(
        open.contains("\nTies are broken by, in order: SB, WON.\n"),
        "{open}"
    );
    for p in [BEN, CAT] {
        tour(&mut s, "join", "ladder", p);
    }
    tour(&mut s, "start", "ladder", ANN);
    let table = show(&mut s, "ladder");
    assert!(
        table.contains("\nTies are broken by, in order: SB, WON.\n"),
        "{table}"
    );
    let header = table.lines().find(|l| l.starts_with("No Rk")).unwrap();
    let words: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(words[words.len() - 3..], ["Pts", "SB", "WON"], "{header}");
    assert!(
        table.contains("SB: Sonneborn-Berger; WON: games won."),
        "{table}"
    );

    let refused = create_tournament(&mut s, BEN, "bad", "swiss 8 rounds 3 tiebreaks BH,KS");
    let sentence = refusal(&refused, BEN);
    assert!(sentence.contains("bh-c1"), "{sentence}");
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    assert!(!listed.contains("bad"), "{listed}");

    let out = s.ok(&[
        "admin",
        "tournament",
        "create",
        "cup",
        "chess",
        "--kind",
        "swiss",
        "--players",
        "8",
        "--rounds",
        "3",
        "--tiebreaks",
        "de, bh-m1",
    ]);
    assert!(out.contains("cup"), "{out}");
    let table = show(&mut s, "cup");
    assert!(
        table.contains("\nTies are broken by, in order: DE, BH-M1.\n"),
        "{table}"
    );
    let refused = s.run(&[
        "admin",
        "tournament",
        "create",
        "cup2",
        "chess",
        "--kind",
        "swiss",
        "--players",
        "8",
        "--rounds",
        "3",
        "--tiebreaks",
        "DE,DE",
    ]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("listed twice"),
        "{refused:?}"
    );
    assert_every_mail_within_78_columns(&s);
}
