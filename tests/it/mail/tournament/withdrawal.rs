//! Withdrawals from a round robin (annulled before half the games,
//! forfeits after) and from a Swiss (finished games stand, the rest are
//! forfeited).

use crate::common;

use std::collections::BTreeMap;

use super::round_robin::{assert_round_robin_of_four, half_points};
use super::{
    assert_every_mail_within_78_columns, finish, install_with, mail_to, new_boards, notices, row,
    say, show, tour, Board, Ending, Player, ANN, BEN, CAT, CONFIG, DAN, FAY,
};
use common::Install;

/// Open a 4-player round robin `name` of ann, ben, cat and dan by mail;
/// its six boards.
fn started_round_robin(s: &mut Install, name: &str, all: &[Player]) -> Vec<Board> {
    let created = say(
        s,
        ANN,
        &format!(
            "chess tournament create {name} ann {} roundrobin 4",
            ANN.pw()
        ),
    );
    assert_ne!(mail_to(&created, ANN).subject, "Error", "{created:#?}");
    let mut boards = BTreeMap::new();
    for p in [BEN, CAT, DAN] {
        boards = new_boards(&tour(s, "join", name, p), name, all);
    }
    assert_round_robin_of_four(&boards);
    boards.into_values().collect()
}

/// The board of `x` against `y` among `boards`.
fn between(boards: &[Board], x: Player, y: Player) -> Board {
    boards
        .iter()
        .find(|b| (b.white, b.black) == (x, y) || (b.white, b.black) == (y, x))
        .unwrap()
        .clone()
}

/// A withdrawal before half of the player's games are finished annuls
/// them all: the win over them counts for no one, their boards in play
/// end, and nothing of theirs can be played any more.
#[test]
fn a_withdrawal_before_half_the_games_annuls_every_result() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    let boards = started_round_robin(&mut s, "early", &all);
    finish(&mut s, &between(&boards, ANN, DAN), Ending::Win(ANN));
    let before = show(&mut s, "early");
    assert_eq!(
        half_points(&row(&before, ANN)[score_column(&before)]),
        Some(2),
        "{before}"
    );

    let mails = tour(&mut s, "withdraw", "early", DAN);
    let reply = mails
        .iter()
        .find(|m| m.to == DAN.addr() && m.subject == "Chess tournament early")
        .unwrap_or_else(|| panic!("dan's answer: {mails:#?}"))
        .body
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        reply.contains("every result of theirs is annulled"),
        "the withdrawing player is told their results go: {reply}"
    );
    let gone = "dan has withdrawn from Chess tournament early: they left before half of \
                their games were finished, so every result of theirs is annulled and counts \
                for no one.";
    for p in [ANN, BEN, CAT] {
        let told = notices(&mails, p, "early");
        assert_eq!(told, [gone], "{p:?} is told once");
    }
    // Dan's two boards in play end, told to both players of each.
    for opp in [BEN, CAT] {
        let b = between(&boards, opp, DAN);
        let ended = format!("Chess Board {} finished", b.number);
        for p in [opp, DAN] {
            let told = mails
                .iter()
                .find(|m| m.to == p.addr() && m.subject == ended)
                .unwrap_or_else(|| panic!("{p:?} is told board {}: {mails:#?}", b.number));
            // The board says what the crosstable says: no winner.
            let flat = told.body.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flat.contains(
                    "Game annulled: dan left the tournament before half their games \
                     were finished; no result, unrated."
                ),
                "{}",
                told.body
            );
            assert!(!told.body.contains("Game won by"), "{}", told.body);
        }
        assert!(
            !mails.iter().any(|m| m.body.contains("rating went")),
            "an annulled game is not rated: {mails:#?}"
        );
        let refused = say(
            &mut s,
            opp,
            &format!("chess move {} {} {} e4", b.number, opp.user(), opp.pw()),
        );
        assert!(
            mail_to(&refused, opp).subject.ends_with("Error"),
            "{refused:#?}"
        );
    }
    let after = show(&mut s, "early");
    let column = score_column(&after);
    for p in [ANN, BEN, CAT, DAN] {
        assert_eq!(
            half_points(&row(&after, p)[column]),
            Some(0),
            "{p:?} has nothing from dan's annulled games: {after}"
        );
    }
    assert_every_mail_within_78_columns(&s);
}

/// A withdrawal after half of the player's games keeps their finished
/// results and loses the rest by forfeit, unrated.
#[test]
fn a_withdrawal_after_half_the_games_forfeits_the_rest_unrated() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    let boards = started_round_robin(&mut s, "late", &all);
    finish(&mut s, &between(&boards, ANN, DAN), Ending::Win(ANN));
    finish(&mut s, &between(&boards, BEN, DAN), Ending::Win(DAN));
    let players_before = mail_to(&say(&mut s, FAY, "chess players"), FAY).body;

    let mails = tour(&mut s, "withdraw", "late", DAN);
    let forfeited = between(&boards, CAT, DAN);
    let ended = format!("Chess Board {} finished", forfeited.number);
    assert!(
        mails
            .iter()
            .any(|m| m.to == CAT.addr() && m.subject == ended),
        "{mails:#?}"
    );
    assert!(
        !mails.iter().any(|m| m.body.contains("rating went")),
        "a forfeit is not rated: {mails:#?}"
    );
    let players_after = mail_to(&say(&mut s, FAY, "chess players"), FAY).body;
    assert_eq!(players_before, players_after, "no rating moved");
    let table = show(&mut s, "late");
    let column = score_column(&table);
    for (p, points) in [(ANN, 2), (BEN, 0), (CAT, 2), (DAN, 2)] {
        assert_eq!(
            half_points(&row(&table, p)[column]),
            Some(points),
            "{p:?}: {table}"
        );
    }
    assert_every_mail_within_78_columns(&s);
}

/// A withdrawal from a Swiss after one move on a round-1 board: the
/// finished game stands, the board in play is lost by forfeit with the
/// point to the opponent, and the opponent's mail and the crosstable
/// say the same; the player is not paired again.
#[test]
fn a_swiss_withdrawal_gives_the_opponent_the_point_and_keeps_finished_games() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    say(
        &mut s,
        ANN,
        &format!(
            "chess tournament create mini ann {} swiss 4 rounds 3",
            ANN.pw()
        ),
    );
    let mut boards = BTreeMap::new();
    let mut started = Vec::new();
    for p in [BEN, CAT, DAN] {
        started = tour(&mut s, "join", "mini", p);
        boards = new_boards(&started, "mini", &all);
    }
    let round1: Vec<Board> = boards.into_values().collect();
    assert_eq!(round1.len(), 2, "{round1:#?}");
    for b in &round1 {
        for (p, colour, other) in [(b.white, "White", b.black), (b.black, "Black", b.white)] {
            let line = format!(
                "Round 1: board {}, {colour} against {}",
                b.number,
                other.user()
            );
            let told = notices(&started, p, "mini");
            assert!(
                told.iter()
                    .any(|t| t.contains("has started: 4 players, 3 rounds.") && t.contains(&line)),
                "{p:?} is told {line:?}: {told:#?}"
            );
        }
    }
    let winner = round1[0].white;
    let loser = round1[0].black;
    finish(&mut s, &round1[0], Ending::Win(winner));
    let (quitter, opponent) = (round1[1].white, round1[1].black);
    let moved = say(
        &mut s,
        quitter,
        &format!(
            "chess move {} {} {} e4",
            round1[1].number,
            quitter.user(),
            quitter.pw()
        ),
    );
    assert!(
        !mail_to(&moved, quitter).subject.ends_with("Error"),
        "{moved:#?}"
    );

    let mails = tour(&mut s, "withdraw", "mini", quitter);
    let ended = format!("Chess Board {} finished", round1[1].number);
    let told = mails
        .iter()
        .find(|m| m.to == opponent.addr() && m.subject == ended)
        .unwrap_or_else(|| panic!("{opponent:?} is told: {mails:#?}"));
    assert!(
        told.body.contains(&format!(
            "Game won by {} (forfeit: {} left the tournament; unrated).",
            opponent.user(),
            quitter.user()
        )),
        "{}",
        told.body
    );
    let round2 = new_boards(&mails, "mini", &all);
    assert_eq!(round2.len(), 1, "three left: one board, a bye: {mails:#?}");
    assert!(
        round2
            .values()
            .all(|b| b.round == 2 && b.white != quitter && b.black != quitter),
        "{round2:#?}"
    );
    let table = show(&mut s, "mini");
    // Rounds not yet played leave empty columns: count from the right.
    let header: Vec<&str> = table
        .lines()
        .find(|l| l.starts_with("No "))
        .unwrap()
        .split_whitespace()
        .collect();
    let from_right = header.len() - score_column(&table);
    let paired = round2.values().next().unwrap();
    let bye = [winner, loser, opponent]
        .into_iter()
        .find(|p| *p != paired.white && *p != paired.black)
        .unwrap();
    // Every entrant still playing is told of the withdrawal and what
    // becomes of the results, then of round 2: their board, or the bye.
    // The quitter is told nothing of round 2.
    let gone = format!(
        "{} has withdrawn from Chess tournament mini: their finished games stand and \
         their boards in play are lost by forfeit (the opponent scores 1, unrated); they \
         are paired no more.",
        quitter.user()
    );
    for p in [winner, loser, opponent] {
        let told = notices(&mails, p, "mini");
        assert!(told.contains(&gone), "{p:?} is told {gone:?}: {told:#?}");
        let line = if p == bye {
            "Round 2: you have the bye (1 point)".to_string()
        } else if p == paired.white {
            format!(
                "Round 2: board {}, White against {}",
                paired.number,
                paired.black.user()
            )
        } else {
            format!(
                "Round 2: board {}, Black against {}",
                paired.number,
                paired.white.user()
            )
        };
        let round = told
            .iter()
            .find(|t| t.contains("Round 2 of Chess tournament mini is paired."))
            .unwrap_or_else(|| panic!("{p:?} is told of round 2: {told:#?}"));
        assert!(round.contains(&line), "{line:?} in {round}");
        assert_eq!(round.matches("Round 2:").count(), 1, "{round}");
    }
    let to_quitter = notices(&mails, quitter, "mini");
    assert_eq!(to_quitter.len(), 1, "only the answer: {to_quitter:#?}");
    assert!(
        to_quitter[0].contains("their finished games stand") && !to_quitter[0].contains("Round 2"),
        "{to_quitter:#?}"
    );
    for (p, points) in [(winner, 2), (loser, 0), (opponent, 2), (quitter, 0)] {
        let points = points + if p == bye { 2 } else { 0 };
        let cells = row(&table, p);
        assert_eq!(
            half_points(&cells[cells.len() - from_right]),
            Some(points),
            "{p:?} after round 1: {table}"
        );
    }
    assert_every_mail_within_78_columns(&s);
}

/// The index of the score column in the crosstable's rows.
fn score_column(table: &str) -> usize {
    let header = table
        .lines()
        .find(|l| l.starts_with("No "))
        .unwrap_or_else(|| panic!("a header line in\n{table}"));
    header
        .split_whitespace()
        .position(|w| w == "Pts")
        .unwrap_or_else(|| panic!("Pts in {header}"))
}

/// The admin withdraws a player (`admin tournament withdraw`): the
/// player, who sent nothing, is told by mail, as is every other entrant,
/// with what becomes of their results.
#[test]
fn a_player_the_admin_withdraws_is_told_and_so_is_everyone_else() {
    let all = [ANN, BEN, CAT, DAN, FAY];
    let mut s = install_with(CONFIG, &all);
    let boards = started_round_robin(&mut s, "admins", &all);
    finish(&mut s, &between(&boards, ANN, DAN), Ending::Win(ANN));
    finish(&mut s, &between(&boards, BEN, DAN), Ending::Win(DAN));
    let out = s.ok(&["admin", "tournament", "withdraw", "admins", "dan"]);
    assert!(out.contains("their finished games stand"), "{out}");
    s.poll();
    let mails = s.take_outbox();
    let told = "dan was withdrawn by the server admin from Chess tournament admins: their \
                finished games stand and their boards in play are lost by forfeit (the \
                opponent scores 1, unrated).";
    for p in [ANN, BEN, CAT, DAN] {
        assert_eq!(notices(&mails, p, "admins"), [told], "{p:?}: {mails:#?}");
    }
    assert_every_mail_within_78_columns(&s);
}
