//! The move list: moves in pairs, decisions, reveals, recent plies.

use super::*;

fn with_events(mut record: MoveRecord, events: &[&str]) -> MoveRecord {
    record.events = events.iter().map(|e| e.to_string()).collect();
    record
}

/// A ply of `seat` (plies after a decision do not alternate by number).
fn by(seat: usize, ply: u32, notation: &str) -> MoveRecord {
    MoveRecord {
        seat: Color::from_index(seat).expect("a seat of two"),
        ..MoveRecord::new(ply, notation)
    }
}

#[test]
fn move_list_in_pairs() {
    let mut queued = by(1, 11, "a6");
    queued.mark = AUTO;
    let plies: Vec<MoveRecord> = vec![
        by(0, 1, "e4"),
        by(1, 2, "c5"),
        by(0, 3, "Nf3"),
        with_events(
            by(1, 4, "reveal c4"),
            &[
                "Black's shadow knight on c4 is revealed.",
                "White's shadow on c4 is removed.",
            ],
        ),
        by(1, 5, "Nc6"),
        by(0, 6, "d4"),
        by(1, 7, "cxd4"),
        by(0, 8, "Nxd4"),
        by(1, 9, "Nf6"),
        by(0, 10, "Nc3"),
        queued,
        by(0, 12, "Bg5"),
    ];
    let text = move_list(&plies, None);
    assert_tidy(&text);
    assert!(text.starts_with("1. e4              c5\n2. Nf3 reveal c4   Nc6\n"));
    assert!(text.contains("\n5. Nc3             a6 (Auto)\n"));
    assert!(text.ends_with("\n6. Bg5\n"));
    insta::assert_snapshot!(text);
}

/// A decision is part of the move that set it off and takes no number,
/// whoever makes it: Black's after White's turn goes into White's cell,
/// White's after Black's turn into Black's.
#[test]
fn move_list_writes_a_decision_inside_its_move_without_a_number() {
    let plies = vec![
        by(0, 1, "e4/e2e3"),
        by(1, 2, "d5/d7d6"),
        by(0, 3, "exd5/c2c3"),
        by(1, 4, "reveal e7"),
        by(1, 5, "f6/h7h6"),
        by(0, 6, "Qh5/d1d2"),
        by(1, 7, "Qxd5/d8d7"),
        by(0, 8, "reveal c4"),
        by(0, 9, "Nc3/b1c3"),
    ];
    let text = move_list(&plies, None);
    assert_eq!(
        text,
        "1. e4/e2e3               d5/d7d6\n\
         2. exd5/c2c3 reveal e7   f6/h7h6\n\
         3. Qh5/d1d2              Qxd5/d8d7 reveal c4\n\
         4. Nc3/b1c3\n"
    );
    // A list of later plies that begins inside a line leaves that line
    // out and numbers on from it.
    let text = move_list_after(&plies[3..], None, 2, true);
    assert_eq!(text, "3. Qh5/d1d2   Qxd5/d8d7 reveal c4\n4. Nc3/b1c3\n");
}

/// Cells long with chains of reveals keep every line within 78 columns:
/// Black's cell goes under White's, in its column where it fits.
#[test]
fn move_list_lines_with_chains_of_reveals_fit_78_columns() {
    let chain = |turn: &str| format!("{turn} reveal c4 reveal d3 reveal e2 reveal f1");
    let mut plies = vec![by(0, 1, "e4/e2e3"), by(1, 2, "d5/d7d6")];
    plies.push(by(0, 3, &chain("d4f5(N)/Ng1f3")));
    plies.push(MoveRecord {
        mark: AUTO,
        ..by(1, 4, &chain("b7b8=Q(P)/a2"))
    });
    let text = move_list(&plies, None);
    assert_tidy(&text);
    assert!(text.lines().all(|l| l.chars().count() <= 78), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], format!("1. {:<36}   d5/d7d6", "e4/e2e3"));
    assert_eq!(lines[1], format!("2. {}", chain("d4f5(N)/Ng1f3")));
    assert_eq!(
        lines[2],
        format!("{}{} (Auto)", " ".repeat(3), chain("b7b8=Q(P)/a2"))
    );
}

#[test]
fn move_list_pairs_seats_that_act_twice_with_dots() {
    // A game set up with Black to move starts with dots.
    let text = move_list(&[MoveRecord::new(2, "e5"), MoveRecord::new(3, "Nf3")], None);
    assert_eq!(text, "1. ...        e5\n2. Nf3\n");
    // White twice in a row: Black's half is empty, then dots.
    let plies = vec![
        by(0, 1, "e4"),
        by(0, 2, "d4"),
        by(1, 3, "d5"),
        by(1, 4, "e5"),
    ];
    let text = move_list(&plies, None);
    assert_eq!(text, "1. e4\n2. d4         d5\n3. ...        e5\n");
}

#[test]
fn move_list_of_recent_plies_and_of_none() {
    assert_eq!(move_list(&[], None), "");
    let all: Vec<MoveRecord> = (1..=200).map(|n| MoveRecord::new(n, "Kh1")).collect();
    // The last 10 plies are on the last 5 lines; an odd cut starts at its pair.
    let text = move_list(&all, Some(10));
    assert_eq!(text.lines().count(), 5);
    assert!(text.starts_with(" 96. Kh1"), "{text}");
    let text = move_list(&all, Some(9));
    assert_eq!(text.lines().count(), 5);
    // A finished 80-ply game fits in 40 lines.
    assert_eq!(move_list(&all[..80], None).lines().count(), 40);
}
