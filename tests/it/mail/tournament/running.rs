//! Running tournaments: sign-off, withdrawal and forfeit for silence
//! ending a round, an early start, and crosstables that fit a mail.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use super::{
    assert_every_mail_within_78_columns, board_of, create_tournament, finish, install_with,
    new_boards, notices, pass, refusal, row, say, show, tour, Board, Ending, Player, ANN, BEN, CAT,
    CONFIG, DAN, EVE, FAY,
};

/// A player who signs off leaves the open tournaments they joined: the
/// tournament does not start with a board for an account that is gone.
#[test]
fn a_player_who_signs_off_is_not_paired_in_an_open_tournament() {
    let all = [ANN, BEN, CAT, DAN, EVE, FAY];
    let mut s = install_with(CONFIG, &all);
    create_tournament(&mut s, ANN, "spring", "roundrobin 4");
    for p in [BEN, CAT] {
        tour(&mut s, "join", "spring", p);
    }
    say(&mut s, BEN, &format!("signoff ben {}", BEN.pw()));
    let dan = tour(&mut s, "join", "spring", DAN);
    let mut boards = new_boards(&dan, "spring", &all);
    let mut eve = Vec::new();
    if boards.is_empty() {
        eve = tour(&mut s, "join", "spring", EVE);
        boards = new_boards(&eve, "spring", &all);
    }
    assert_eq!(boards.len(), 6, "{dan:#?}\n{eve:#?}");
    assert!(
        boards.values().all(|b| b.white != BEN && b.black != BEN),
        "{boards:#?}"
    );
}

/// A player who withdraws from a Swiss while their board is the round's
/// last in play: that board is forfeited, and the same mail pairs the
/// next round without them.
#[test]
fn a_withdrawal_that_ends_a_swiss_round_pairs_the_next_round_without_the_player() {
    let entrants = [ANN, BEN, CAT, DAN, EVE];
    let all = [ANN, BEN, CAT, DAN, EVE, FAY];
    let mut s = install_with(CONFIG, &all);
    create_tournament(&mut s, ANN, "cup", "swiss 5 rounds 3");
    let mut boards = BTreeMap::new();
    for &p in &entrants[1..] {
        boards = new_boards(&tour(&mut s, "join", "cup", p), "cup", &all);
    }
    let round1: Vec<Board> = boards.into_values().collect();
    assert_eq!(round1.len(), 2, "{round1:#?}");
    finish(&mut s, &round1[0], Ending::Win(round1[0].white));
    let quitter = round1[1].black;
    let mails = tour(&mut s, "withdraw", "cup", quitter);
    let ended = format!("Chess Board {} finished", round1[1].number);
    assert!(
        mails
            .iter()
            .any(|m| m.to == round1[1].white.addr() && m.subject == ended),
        "{mails:#?}"
    );
    let round2 = new_boards(&mails, "cup", &all);
    assert_eq!(round2.len(), 2, "four players left: two boards: {mails:#?}");
    assert!(round2.values().all(|b| b.round == 2));
    assert!(
        round2
            .values()
            .all(|b| b.white != quitter && b.black != quitter),
        "{quitter:?} is not paired again: {round2:#?}"
    );
    let table = show(&mut s, "cup");
    row(&table, quitter);
}

/// The crosstable of a 40-player Swiss stays within 78 columns and a
/// bounded size.
#[test]
fn the_table_of_a_forty_player_swiss_fits_a_mail() {
    const NAMES: [&str; 40] = [
        "p00", "p01", "p02", "p03", "p04", "p05", "p06", "p07", "p08", "p09", "p10", "p11", "p12",
        "p13", "p14", "p15", "p16", "p17", "p18", "p19", "p20", "p21", "p22", "p23", "p24", "p25",
        "p26", "p27", "p28", "p29", "p30", "p31", "p32", "p33", "p34", "p35", "p36", "p37", "p38",
        "p39",
    ];
    let mut players: Vec<Player> = NAMES.iter().map(|n| Player(n)).collect();
    players.push(FAY);
    let mut s = install_with(CONFIG, &players);
    say(
        &mut s,
        players[0],
        &format!(
            "chess tournament create big p00 {} swiss 40 rounds 9",
            players[0].pw()
        ),
    );
    let joins: Vec<(Player, String)> = players[1..40]
        .iter()
        .map(|p| {
            (
                *p,
                format!("chess tournament join big {} {}", p.user(), p.pw()),
            )
        })
        .collect();
    let mails = pass(&mut s, &joins);
    assert_eq!(new_boards(&mails, "big", &players).len(), 20);
    let table = show(&mut s, "big");
    for p in &players[..40] {
        row(&table, *p);
    }
    assert!(table.len() < 32 * 1024, "{} bytes", table.len());
    assert_every_mail_within_78_columns(&s);
}

/// Board mails announced in the in-process server's replies: (number,
/// round, white, black) by number.
fn world_new_boards(replies: &[pbmchess::mail::Outgoing], name: &str) -> BTreeMap<u32, Board> {
    let all = [ANN, BEN, CAT, DAN, EVE];
    replies
        .iter()
        .filter(|m| m.subject.starts_with("New Chess Board"))
        .map(|m| {
            let b = board_of(&m.body, name, &all);
            (b.number, b)
        })
        .collect()
}

/// A Swiss round whose last board ends by the timers' forfeit for
/// silence: the timers' run pairs the next round, and the silent player,
/// who has left the tournament as by a withdrawal, is not in it.
#[test]
fn a_forfeit_for_silence_ending_a_round_pairs_the_next_one_in_the_timers_run() {
    let mut w = common::world::World::new();
    w.config.tournaments.players_may_create = true;
    let entrants = [ANN, BEN, CAT, DAN, EVE];
    for p in entrants {
        w.mail(&p.addr(), &format!("signup {} {}", p.user(), p.pw()), "");
    }
    w.mail(
        &ANN.addr(),
        &format!(
            "chess tournament create cup ann {} swiss 5 rounds 3",
            ANN.pw()
        ),
        "",
    );
    for p in entrants {
        w.mail(
            &p.addr(),
            &format!("chess tournament join cup {} {}", p.user(), p.pw()),
            "",
        );
    }
    let round1: Vec<Board> = world_new_boards(&w.replies(), "cup")
        .into_values()
        .collect();
    assert_eq!(round1.len(), 2, "{round1:#?}");
    let (x, y) = (&round1[0], &round1[1]);
    w.mail(
        &x.black.addr(),
        &format!(
            "chess resign {} {} {}",
            x.number,
            x.black.user(),
            x.black.pw()
        ),
        "",
    );
    w.mail(
        &y.white.addr(),
        &format!(
            "chess move {} {} {} e4",
            y.number,
            y.white.user(),
            y.white.pw()
        ),
        "",
    );
    w.replies();
    // Black of the last board stays silent past the forfeit time.
    w.advance(chrono::Duration::days(22));
    w.ticks();
    let replies = w.replies();
    assert!(
        replies
            .iter()
            .any(|m| m.subject == format!("Chess Board {} finished", y.number)),
        "{replies:#?}"
    );
    let round2 = world_new_boards(&replies, "cup");
    assert_eq!(round2.len(), 2, "four players left: {replies:#?}");
    assert!(round2.values().all(|b| b.round == 2));
    assert!(
        round2
            .values()
            .all(|b| b.white != y.black && b.black != y.black),
        "the silent player is not paired again: {round2:#?}"
    );
    // Everyone, the silent player too, is told why they left and what
    // becomes of their results; only those still playing hear of round 2,
    // each of their own board or the bye.
    let gone = format!(
        "{} was forfeited for silence on board {}, and so leaves Chess tournament cup: \
         their finished games stand and their boards in play are lost by forfeit (the \
         opponent scores 1, unrated); they are paired no more.",
        y.black.user(),
        y.number
    );
    let told = |p: Player| -> Vec<String> {
        replies
            .iter()
            .filter(|m| m.to == p.addr() && m.subject == "Chess tournament cup")
            .map(|m| common::joined(&m.body))
            .collect()
    };
    for p in entrants {
        let told = told(p);
        assert!(told.contains(&gone), "{p:?} is told {gone:?}: {told:#?}");
        let round: Vec<&String> = told
            .iter()
            .filter(|t| t.contains("Round 2 of Chess tournament cup is paired."))
            .collect();
        if p == y.black {
            assert!(round.is_empty(), "{round:#?}");
            continue;
        }
        assert_eq!(round.len(), 1, "{p:?}: {told:#?}");
        let mine = round2.values().find(|b| b.white == p || b.black == p);
        let line = match mine {
            Some(b) if b.white == p => {
                format!(
                    "Round 2: board {}, White against {}",
                    b.number,
                    b.black.user()
                )
            }
            Some(b) => format!(
                "Round 2: board {}, Black against {}",
                b.number,
                b.white.user()
            ),
            None => "Round 2: you have the bye (1 point)".to_string(),
        };
        assert!(round[0].contains(&line), "{line:?} in {}", round[0]);
    }
}

/// The creator starts a round robin before it is full: it is played by
/// those who joined (three: each sits out one round), and no one joins
/// after.
#[test]
fn the_creator_starts_a_tournament_before_it_is_full() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    create_tournament(&mut s, ANN, "spring", "roundrobin 6");
    tour(&mut s, "join", "spring", BEN);
    let early = tour(&mut s, "start", "spring", ANN);
    assert!(
        refusal(&early, ANN).contains('3'),
        "needs three: {early:#?}"
    );
    tour(&mut s, "join", "spring", CAT);
    let mails = tour(&mut s, "start", "spring", ANN);
    let boards = new_boards(&mails, "spring", &all);
    assert_eq!(boards.len(), 3, "{mails:#?}");
    let rounds: BTreeSet<u32> = boards.values().map(|b| b.round).collect();
    assert_eq!(rounds, [1, 2, 3].into(), "one board a round: {boards:#?}");
    // Each player is told their whole schedule: two boards (number,
    // colour, opponent) and the round they sit out, which scores nothing.
    for p in [ANN, BEN, CAT] {
        let told = notices(&mails, p, "spring");
        let start = told
            .iter()
            .find(|t| t.contains("has started: 3 players, 3 rounds."))
            .unwrap_or_else(|| panic!("{p:?} is told of the start: {told:#?}"));
        for b in boards.values() {
            let line = if b.white == p {
                format!(
                    "Round {}: board {}, White against {}",
                    b.round,
                    b.number,
                    b.black.user()
                )
            } else if b.black == p {
                format!(
                    "Round {}: board {}, Black against {}",
                    b.round,
                    b.number,
                    b.white.user()
                )
            } else {
                format!(
                    "Round {}: you sit this round out (no points in a round robin)",
                    b.round
                )
            };
            assert!(start.contains(&line), "{line:?} in {start}");
        }
    }
    let late = tour(&mut s, "join", "spring", DAN);
    refusal(&late, DAN);
}

/// A twelve-player round robin (the most) of the longest userids: its
/// crosstable, board mails and every other mail fit 78 columns.
#[test]
fn a_round_robin_of_twelve_long_userids_fits_78_columns() {
    let mut players: Vec<Player> = (0..12)
        .map(|i| {
            let name = format!("player_with_a_long_userid_{i:02}x");
            assert_eq!(name.len(), 29);
            Player(Box::leak(format!("{name}abc").into_boxed_str()))
        })
        .collect();
    players.push(FAY);
    let mut s = install_with(CONFIG, &players);
    let first = players[0];
    say(
        &mut s,
        first,
        &format!(
            "chess tournament create dozen {} {} roundrobin 12",
            first.user(),
            first.pw()
        ),
    );
    let joins: Vec<(Player, String)> = players[1..12]
        .iter()
        .map(|p| {
            (
                *p,
                format!("chess tournament join dozen {} {}", p.user(), p.pw()),
            )
        })
        .collect();
    let mails = pass(&mut s, &joins);
    let boards = new_boards(&mails, "dozen", &players);
    assert_eq!(boards.len(), 66);
    let board = boards.values().next().unwrap().clone();
    finish(&mut s, &board, Ending::Win(board.black));
    let table = show(&mut s, "dozen");
    // Twelve rows, numbered 1 to 12; the names, which share their first
    // 26 letters, may be cut (with a "~") to leave room for the
    // tiebreaks.
    let crosstable = table.split("Boards in play").next().unwrap();
    let numbers: Vec<usize> = crosstable
        .lines()
        .filter(|l| l.contains("player_with_a_long_u"))
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(numbers, (1..=12).collect::<Vec<_>>(), "{table}");
    assert_every_mail_within_78_columns(&s);
}

/// A round robin player forfeited for silence before half their games
/// were finished: every result of theirs is annulled, the board the
/// timers forfeited included. That board's own mail says it is annulled
/// (never "won by forfeit"), it is not rated though both had moved, and
/// the crosstable shows `x` for it as for the rest; the board still in
/// play is annulled by the withdrawal; everyone is told why.
#[test]
fn a_round_robin_forfeit_for_silence_before_half_the_games_annuls_its_own_board_too() {
    let mut w = common::world::World::new();
    w.config.tournaments.players_may_create = true;
    let entrants = [ANN, BEN, CAT, DAN];
    for p in entrants {
        w.mail(&p.addr(), &format!("signup {} {}", p.user(), p.pw()), "");
    }
    w.mail(
        &ANN.addr(),
        &format!("chess tournament create rr ann {} roundrobin 4", ANN.pw()),
        "",
    );
    for p in [BEN, CAT, DAN] {
        w.mail(
            &p.addr(),
            &format!("chess tournament join rr {} {}", p.user(), p.pw()),
            "",
        );
    }
    let boards: Vec<Board> = world_new_boards(&w.replies(), "rr").into_values().collect();
    assert_eq!(boards.len(), 6, "{boards:#?}");
    let say = |w: &mut common::world::World, p: Player, what: &str| {
        let line = what.replace("CREDS", &format!("{} {}", p.user(), p.pw()));
        w.mail(&p.addr(), &line, "");
    };
    // The games without dan end; dan loses one (1 finished of 3).
    for b in boards.iter().filter(|b| b.white != DAN && b.black != DAN) {
        say(&mut w, b.black, &format!("chess resign {} CREDS", b.number));
    }
    let lost = boards.iter().find(|b| b.white == ANN && b.black == DAN);
    let lost = lost.or(boards.iter().find(|b| b.black == ANN && b.white == DAN));
    let lost = lost.unwrap().clone();
    say(&mut w, DAN, &format!("chess resign {} CREDS", lost.number));
    // Board x: dan White moved, his opponent answered, then dan is
    // silent. Board y: dan Black; his opponent moves late, so dan's
    // silence there is not yet past the limit.
    let rest: Vec<Board> = boards
        .iter()
        .filter(|b| (b.white == DAN || b.black == DAN) && b.number != lost.number)
        .cloned()
        .collect();
    let x = rest.iter().find(|b| b.white == DAN).unwrap().clone();
    let y = rest.iter().find(|b| b.black == DAN).unwrap().clone();
    say(&mut w, DAN, &format!("chess move {} CREDS e4", x.number));
    say(
        &mut w,
        x.black,
        &format!("chess move {} CREDS e5", x.number),
    );
    w.replies();
    let rating = |w: &common::world::World, p: Player| -> Option<i64> {
        w.conn
            .query_row(
                "SELECT rating FROM ratings WHERE game = 'chess' AND userid = ?1",
                [p.user()],
                |r| r.get(0),
            )
            .ok()
    };
    let before = [rating(&w, DAN), rating(&w, x.black)];
    w.advance(chrono::Duration::days(15));
    say(
        &mut w,
        y.white,
        &format!("chess move {} CREDS d4", y.number),
    );
    w.replies();
    w.advance(chrono::Duration::days(7));
    w.ticks();
    let replies = w.replies();

    let silent = "Game annulled: dan was forfeited for silence before half their games \
                  were finished; no result, unrated.";
    let left = "Game annulled: dan left the tournament before half their games were \
                finished; no result, unrated.";
    for (b, annulled) in [(&x, silent), (&y, left)] {
        let ended = format!("Chess Board {} finished", b.number);
        for p in [b.white, b.black] {
            let m = replies
                .iter()
                .find(|m| m.to == p.addr() && m.subject == ended)
                .unwrap_or_else(|| panic!("{p:?} is told board {} ended: {replies:#?}", b.number));
            let text = common::joined(&m.body);
            assert!(text.contains(annulled), "{}", m.body);
            assert!(!text.contains("won by"), "{}", m.body);
        }
    }
    assert_eq!(
        [rating(&w, DAN), rating(&w, x.black)],
        before,
        "the annulled board is not rated"
    );
    let gone = format!(
        "dan was forfeited for silence on board {}, and so leaves Chess tournament rr: they \
         left before half of their games were finished, so every result of theirs is \
         annulled and counts for no one.",
        x.number
    );
    for p in entrants {
        assert!(
            replies.iter().any(|m| m.to == p.addr()
                && m.subject == "Chess tournament rr"
                && common::joined(&m.body).contains(&gone)),
            "{p:?} is told {gone:?}: {replies:#?}"
        );
    }
    w.mail(&ANN.addr(), "chess tournament show rr", "");
    let table = w
        .replies()
        .into_iter()
        .find(|m| m.to == ANN.addr())
        .unwrap()
        .body;
    let dan = row(&table, DAN);
    let cells: Vec<&str> = dan[4..8].iter().map(String::as_str).collect();
    assert_eq!(
        cells.iter().filter(|c| **c == "x").count(),
        3,
        "every game of dan's annulled: {table}"
    );
    assert_eq!(dan[8], "0.0", "{table}");
}
