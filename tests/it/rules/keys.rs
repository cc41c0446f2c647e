//! Position keys are stable data: they are stored with every
//! ply, so their values are pinned here (a change of algorithm or of a
//! game's canonical state fails this file and needs a new key version and
//! a migration, see `rules::key`), and a board whose plies carry keys of
//! the old algorithm (`std`'s `DefaultHasher`) is replayed once, re-keyed,
//! and still draws by repetition at the right ply.

use crate::common;

use common::world::World;
use pbmchess::server::MailOutcome;
use pbmchess::store;
use rules::engine::{hash_key, Engine, EngineGame};
use rules::{self, chess};

/// The key of a game's start, or of `moves` played from it.
fn key_after(game: &str, moves: &[&str]) -> u64 {
    let mut p = rules::game(game).unwrap().start(&[]).unwrap();
    for m in moves {
        p.play(m).unwrap_or_else(|e| panic!("{game} {m}: {e}"));
    }
    p.position_key()
}

/// Version 1 of the key algorithm, pinned for every game's start (both
/// boards of Shadow Chess, the 16×8 board of Double Chess, Temporal
/// Chess's cube with its reserves and phase, the variants' extra fields).
#[test]
fn every_games_start_has_its_pinned_key() {
    let pinned: &[(&str, u64)] = &[
        ("chess", 0x9875_4BCA_32DB_E656),
        ("doublechess", 0x3347_2C1B_822F_BD51),
        ("doppelganger", 0x9875_4BCA_32DB_E656),
        ("shadowchess", 0x8045_6536_48C3_71D1),
        ("mchess", 0xF124_F167_7583_0893),
        ("zelig", 0xF124_F167_7583_0893),
        ("zelig2", 0xF124_F167_7583_0893),
        ("temporal", 0xF312_B3CE_2AA7_1E99),
    ];
    let names: Vec<&str> = rules::registry().iter().map(|g| g.name()).collect();
    assert_eq!(
        names,
        pinned.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        "every registered game is pinned"
    );
    let wrong: Vec<String> = pinned
        .iter()
        .map(|(game, key)| (game, key, key_after(game, &[])))
        .filter(|(_, key, got)| got != *key)
        .map(|(game, _, got)| format!("{game}: {got:#018X}"))
        .collect();
    assert!(wrong.is_empty(), "keys changed: {wrong:#?}");
}

/// Keys of positions reached by play, where the extra state matters:
/// castling rights lost, an en passant capture open, a king placed on the
/// cube.
#[test]
fn positions_after_play_have_their_pinned_keys() {
    let cases: &[(&str, &[&str], u64)] = &[
        ("chess", &["e4", "d5", "e5", "f5"], 0x3702_38F2_D966_639F),
        ("chess", &["Nf3", "Nf6", "Rg1"], 0x49D1_5B72_2157_AE1E),
        ("temporal", &["K@Bb2"], 0x239F_CA7B_9B7F_04E9),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .map(|(game, moves, key)| (game, moves, key, key_after(game, moves)))
        .filter(|(_, _, key, got)| got != *key)
        .map(|(game, moves, _, got)| format!("{game} {moves:?}: {got:#018X}"))
        .collect();
    assert!(wrong.is_empty(), "keys changed: {wrong:#?}");
}

/// The same position reached by two move orders has one key; positions
/// that differ only in side to move, castling rights or an open en passant
/// capture do not.
#[test]
fn keys_follow_the_repetition_rule_s_notion_of_sameness() {
    assert_eq!(
        key_after("chess", &["Nf3", "Nf6", "Nc3"]),
        key_after("chess", &["Nc3", "Nf6", "Nf3"])
    );
    assert_eq!(
        key_after("chess", &[]),
        key_after("chess", &["Nf3", "Nf6", "Ng1", "Ng8"])
    );
    assert_ne!(
        key_after("chess", &["Nf3", "Nf6", "Ng1", "Ng8"]),
        key_after(
            "chess",
            &["Nf3", "Nf6", "Rg1", "Ng8", "Rh1", "Nf6", "Ng1", "Ng8"]
        ),
        "castling rights lost"
    );
    assert_ne!(
        key_after("chess", &["e4", "d5", "e5", "f5"]),
        key_after("chess", &["e4", "f5", "e5", "d5"]),
        "only one of them lets exf6 e.p."
    );
}

/// The old algorithm's key of the chess position after `moves`: `std`'s
/// `DefaultHasher` over the repetition text, as builds before issue #25
/// stored it.
fn old_key_after(moves: &[&str]) -> u64 {
    let mut state = chess::Chess.start_position(&[]).unwrap();
    for m in moves {
        let action = state.read(m).unwrap();
        state.play_unchecked(&action);
    }
    hash_key(&state.repetition_key())
}

fn play_from(w: &mut World, done: usize, moves: &[&str]) {
    for (i, m) in moves.iter().enumerate() {
        let (from, who) = if (done + i).is_multiple_of(2) {
            ("a@x", "alice pa")
        } else {
            ("b@x", "bob pb")
        };
        let outcome = w.mail(from, &format!("chess move 101 {who} {m}"), "");
        assert_eq!(
            outcome,
            MailOutcome::Answered {
                commands: 1,
                refused: 0
            },
            "{m}"
        );
    }
}

fn ended_by_repetition(w: &World) -> bool {
    format!("{:?}", w.board().status)
        .to_lowercase()
        .contains("repetition")
}

/// A board whose five plies were stored with the old algorithm's keys
/// (migrated by 0036, which clears them, or not migrated at all, when they
/// do not fit) loads by replay, gets the new keys, and draws on the third
/// occurrence of the start at ply 8, not before.
#[test]
fn a_board_stored_with_old_keys_replays_and_draws_by_repetition_at_ply_8() {
    let game = ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"];
    for migrate in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let mut w = World::new();
        w.conn = store::open(&dir.path().join("db.sqlite")).unwrap();
        w.mail("a@x", "signup alice pa", "");
        w.mail("b@x", "signup bob pb", "");
        w.mail("a@x", "chess challenge alice bob", "");
        play_from(&mut w, 0, &game[..5]);
        for ply in 1..=5u32 {
            let old = old_key_after(&game[..ply as usize]);
            assert_ne!(old, key_after("chess", &game[..ply as usize]));
            w.conn
                .execute(
                    "UPDATE plies SET position_key = ?1 WHERE ply = ?2",
                    rusqlite::params![old as i64, ply],
                )
                .unwrap();
        }
        if migrate {
            w.conn
                .execute_batch(include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/migrations/0036_rules25_position_keys.sql"
                )))
                .unwrap();
            let keyed: i64 = w
                .conn
                .query_row(
                    "SELECT count(*) FROM plies WHERE position_key IS NOT NULL",
                    [],
                    |r| r.get(0),
                )
                .unwrap();
            assert_eq!(keyed, 0, "the migration clears the old keys");
        }
        play_from(&mut w, 5, &game[5..7]);
        assert!(w.board().is_active(), "the start occurred twice so far");
        let stored: Vec<u64> = (1..=7)
            .map(|ply: u32| {
                w.conn
                    .query_row(
                        "SELECT position_key FROM plies WHERE ply = ?1",
                        [ply],
                        |r| r.get::<_, i64>(0),
                    )
                    .unwrap() as u64
            })
            .collect();
        let fresh: Vec<u64> = (1..=7).map(|n| key_after("chess", &game[..n])).collect();
        assert_eq!(stored, fresh, "replayed plies carry the new keys");
        play_from(&mut w, 7, &game[7..]);
        assert!(
            ended_by_repetition(&w),
            "migrate {migrate}: {:?}",
            w.board().status
        );
    }
}
