use super::*;
use crate::command::BoardSize;
use rules::{Color, Diagram, Glyph, Grid, PIECE_NAMES};

mod move_list;

/// A grid from rows written top rank first: upper case White, lower case
/// Black, `.` empty.
fn grid(label: &str, rows: &[&str]) -> Grid {
    let ranks = rows.len() as u8;
    let files = rows[0].chars().count() as u8;
    let mut g = Grid::empty(label, files, ranks);
    for (k, row) in rows.iter().enumerate() {
        let rank = ranks - 1 - k as u8;
        assert_eq!(row.chars().count(), files as usize, "row {row}");
        for (file, c) in row.chars().enumerate() {
            if c == '.' {
                continue;
            }
            let color = if c.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            g.put(
                file as u8,
                rank,
                Glyph {
                    color,
                    letter: c.to_ascii_uppercase(),
                },
            );
        }
    }
    g
}

fn one(g: Grid) -> Diagram {
    Diagram {
        boards: vec![g],
        notes: vec![],
    }
}

const START: &[&str] = &[
    "rnbqkbnr", "pppppppp", "........", "........", "........", "........", "PPPPPPPP", "RNBQKBNR",
];

/// Ruy Lopez after 5. O-O Be7: pieces of both colours on both square colours.
const RUY_LOPEZ: &[&str] = &[
    "r.bqk..r", ".pppbppp", "p.n..n..", "....p...", "B...P...", ".....N..", "PPPP.PPP", "RNBQ.RK.",
];

const DOUBLE_START: &[&str] = &[
    "rnbqrnbqkbnrqbnr",
    "pppppppppppppppp",
    "................",
    "................",
    "................",
    "................",
    "PPPPPPPPPPPPPPPP",
    "RNBQRNBQKBNRQBNR",
];

fn assert_tidy(text: &str) {
    assert!(text.ends_with('\n'));
    for line in text.lines() {
        assert_eq!(line, line.trim_end(), "trailing whitespace in {line:?}");
    }
}

#[test]
fn start_position_large() {
    let text = board(&one(grid("", START)), BoardSize::Large);
    assert_tidy(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn start_position_small() {
    let text = board(&one(grid("", START)), BoardSize::Small);
    assert_tidy(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn middlegame_large() {
    let text = board(&one(grid("", RUY_LOPEZ)), BoardSize::Large);
    assert_tidy(&text);
    // White bishop on a4 (light), white pawn on e4 (light), white knight on
    // f3 (light) and white rook on f1 (light); white king on g1 (dark).
    assert!(text.contains("  4 | B |:::|   |:::| P |:::|   |:::|  4"));
    assert!(text.contains("  1 |:R:| N |:B:| Q |:::| R |:K:|   |  1  White"));
    insta::assert_snapshot!(text);
}

#[test]
fn middlegame_small() {
    let text = board(&one(grid("", RUY_LOPEZ)), BoardSize::Small);
    assert_tidy(&text);
    assert!(text.contains(" 6 | P - N -   N   - |  6"));
    insta::assert_snapshot!(text);
}

/// The large Double Chess board of the seed help page, trailing blanks cut.
const SEED_LARGE: &str = "      a   b   c   d   e   f   g   h   i   j   k   l   m   n   o   p
    +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
  8 |*R*|*N*|*B*|*Q*|*R*|*N*|*B*|*Q*|*K*|*B*|*N*|*R*|*Q*|*B*|*N*|*R*|  8
    +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
  7 |*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|  7
    +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
  6 |   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|  6
    +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
  5 |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |  5
    +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
  4 |   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|  4
    +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
  3 |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |:::|   |  3
    +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
  2 | P |:P:| P |:P:| P |:P:| P |:P:| P |:P:| P |:P:| P |:P:| P |:P:|  2
    +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
  1 |:R:| N |:B:| Q |:R:| N |:B:| Q |:K:| B |:N:| R |:Q:| B |:N:| R |  1
    +---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+---+
      a   b   c   d   e   f   g   h   i   j   k   l   m   n   o   p
";

/// The small one as the seed draws it: Black in capitals, White in lower
/// case (as pbmserv draws it), trailing blanks cut.
const SEED_SMALL: &str = "     a b c d e f g h i j k l m n o p
   +---------------------------------+
 8 | R N B Q R N B Q K B N R Q B N R |  8
 7 | P P P P P P P P P P P P P P P P |  7
 6 |   -   -   -   -   -   -   -   - |  6
 5 | -   -   -   -   -   -   -   -   |  5
 4 |   -   -   -   -   -   -   -   - |  4
 3 | -   -   -   -   -   -   -   -   |  3
 2 | p p p p p p p p p p p p p p p p |  2
 1 | r n b q r n b q k b n r q b n r |  1
   +---------------------------------+
     a b c d e f g h i j k l m n o p
";

/// Our drawing without the `Black`/`White` words and the legend line,
/// which the seed lacks.
fn without_sides(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("White pieces ") && !l.starts_with("Black pieces "))
        .map(|l| {
            l.strip_suffix("  Black")
                .or_else(|| l.strip_suffix("  White"))
                .unwrap_or(l)
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn double_chess_large_matches_the_seed() {
    let text = board(&one(grid("", DOUBLE_START)), BoardSize::Large);
    assert_tidy(&text);
    assert_eq!(without_sides(&text), SEED_LARGE);
    insta::assert_snapshot!(text);
}

#[test]
fn double_chess_small_matches_the_seed() {
    let text = board(&one(grid("", DOUBLE_START)), BoardSize::Small);
    assert_tidy(&text);
    assert_eq!(without_sides(&text), SEED_SMALL);
    insta::assert_snapshot!(text);
}

#[test]
fn sides_are_named_beside_top_and_bottom_ranks() {
    let text = board(&one(grid("", START)), BoardSize::Large);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[2].ends_with("|  8  Black"));
    assert!(lines[16].ends_with("|  1  White"));
    assert_eq!(text.matches("  Black").count(), 1);
    assert_eq!(text.matches("  White").count(), 1);
    assert_eq!(
        lines.last(),
        Some(&"White pieces are :K: or  K , Black pieces *K*; ::: is an empty dark square.")
    );
}

#[test]
fn from_blacks_side_rank_one_is_on_top_and_the_files_run_backwards() {
    for size in [BoardSize::Large, BoardSize::Small] {
        let drawing = Drawing {
            size,
            from_black: true,
        };
        let text = board(&one(grid("", START)), drawing);
        assert_tidy(&text);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].trim_start().starts_with('h'), "{text}");
        assert!(lines[0].trim_end().ends_with('a'), "{text}");
        let top = lines.iter().find(|l| l.ends_with("  White")).unwrap();
        let bottom = lines.iter().find(|l| l.ends_with("  Black")).unwrap();
        assert!(top.trim_start().starts_with("1 |"), "{text}");
        assert!(bottom.trim_start().starts_with("8 |"), "{text}");
        // White's king on e1 (a dark square) is the fourth from the left.
        match size {
            BoardSize::Large => assert_eq!(top.split('|').nth(4), Some(":K:"), "{text}"),
            BoardSize::Small => {
                let cells = top.split('|').nth(1).unwrap();
                assert_eq!(&cells[6..8], " k", "{text}");
            }
        }
        assert!(text
            .lines()
            .last()
            .unwrap()
            .ends_with("drawn from Black's side."));
        assert!(text.lines().all(|l| l.chars().count() <= 78), "{text}");
    }
}

fn shadow_diagram() -> Diagram {
    let main = grid(
        "Main",
        &[
            "r.bqkbnr", "pppp.ppp", "..n.....", "....p...", "....P...", ".....N..", "PPPP.PPP",
            "RNBQKB.R",
        ],
    );
    let mut shadow = grid(
        "Shadow",
        &[
            "........", "........", "........", "........", "...R....", "........", "........",
            "........",
        ],
    );
    // d4 also holds a black knight's shadow; the white rook is drawn.
    shadow.put(
        3,
        3,
        Glyph {
            color: Color::Black,
            letter: 'N',
        },
    );
    Diagram {
        boards: vec![main, shadow],
        notes: vec!["White's shadows: 1. Black's shadows: 1.".to_string()],
    }
}

#[test]
fn two_boards_large() {
    let text = board(&shadow_diagram(), BoardSize::Large);
    assert_tidy(&text);
    assert!(text.contains("  Shadow d4: White Rook, Black Knight\n"));
    // One board above the other: each names the sides.
    assert_eq!(text.matches("Black\n").count(), 2);
    insta::assert_snapshot!(text);
}

#[test]
fn two_boards_small() {
    let text = board(&shadow_diagram(), BoardSize::Small);
    assert_tidy(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn four_levels_of_four_by_four() {
    let levels = ["A", "B", "C", "D"].map(|l| {
        let mut g = grid(&format!("Level {l}"), &["k...", "....", "....", "...K"]);
        if l == "C" {
            g = grid("Level C", &["....", ".q..", "..Q.", "...."]);
        }
        g
    });
    let d = Diagram {
        boards: levels.to_vec(),
        notes: vec![
            "Reserves: White Q, Black none.".into(),
            "Warps: none.".into(),
        ],
    };
    let text = board(&d, BoardSize::Small);
    assert_tidy(&text);
    insta::assert_snapshot!(text);
}

#[test]
fn stacks_on_a_single_board_have_no_label() {
    let mut g = grid("Main", START);
    g.put(
        4,
        0,
        Glyph {
            color: Color::Black,
            letter: 'Z',
        },
    );
    let text = board(&one(g), BoardSize::Small);
    assert!(text.ends_with(
        "Squares holding several pieces (the first one is drawn):\n  e1: White King, Black Zelig\n"
    ));
    assert!(!text.contains("Main"));
}

#[test]
fn odd_grids_do_not_panic() {
    let d = Diagram {
        boards: vec![
            Grid::empty("", 0, 0),
            Grid {
                label: "short".into(),
                files: 3,
                ranks: 3,
                cells: vec![],
            },
            Grid::empty("wide", 30, 12),
        ],
        notes: vec!["a\nb".into()],
    };
    for size in [BoardSize::Large, BoardSize::Small] {
        let text = board(&d, size);
        assert_tidy(&text);
    }
    let text = board(
        &Diagram {
            boards: vec![],
            notes: vec!["only a note".into()],
        },
        BoardSize::Large,
    );
    assert_eq!(text, "only a note\n");
    assert_eq!(
        board(
            &Diagram {
                boards: vec![],
                notes: vec![]
            },
            BoardSize::Small
        ),
        ""
    );
}
#[test]
fn every_piece_letter_of_the_games_is_drawn_and_named() {
    for &(letter, name) in PIECE_NAMES {
        for color in [Color::White, Color::Black] {
            let mut g = Grid::empty("", 2, 2);
            g.put(0, 0, Glyph { color, letter });
            g.put(0, 0, Glyph { color, letter });
            let d = one(g);
            let large = board(&d, BoardSize::Large);
            let small = board(&d, BoardSize::Small);
            let drawn = match color {
                Color::White => format!(":{letter}:"),
                Color::Black => format!("*{letter}*"),
            };
            assert!(large.contains(&drawn), "{letter}: {large}");
            // The small drawing is pbmserv's: Black upper case.
            let row = format!("1 | {} ", color.opponent().cased(letter));
            assert!(small.contains(&row), "{letter}: {small}");
            let note = format!("a1: {0} {name}, {0} {name}", color.name());
            assert!(large.contains(&note), "{letter}: {large}");
        }
    }
}

/// Every line of `text` within the 78 columns of a mail line.
fn assert_narrow(text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= 78,
            "{} columns: {line}\n{text}",
            line.chars().count()
        );
    }
}

fn every_drawing() -> Vec<Drawing> {
    let mut all = Vec::new();
    for size in [BoardSize::Large, BoardSize::Small] {
        for from_black in [false, true] {
            all.push(Drawing { size, from_black });
        }
    }
    all
}

#[test]
fn the_small_drawing_shows_black_in_capitals_and_white_in_lower_case() {
    let text = board(&one(grid("", START)), BoardSize::Small);
    assert!(text.contains(" 8 | R N B Q K B N R |  8  Black"), "{text}");
    assert!(text.contains(" 1 | r n b q k b n r |  1  White"), "{text}");
    assert!(text.contains("Black pieces upper case, White pieces lower case"));
}

#[test]
fn every_games_start_is_drawn_within_78_columns_in_each_size_and_side() {
    for game in rules::registry() {
        let diagram = game.start(&[]).unwrap().diagram();
        for drawing in every_drawing() {
            let text = board(&diagram, drawing);
            assert_tidy(&text);
            assert_narrow(&text);
            for grid in &diagram.boards {
                if diagram.boards.len() > 1 {
                    assert!(text.contains(&grid.label), "{}: {text}", game.name());
                }
            }
        }
    }
}

#[test]
fn four_levels_stand_two_by_two_in_both_sizes() {
    let diagram = rules::game("temporal")
        .unwrap()
        .start(&[])
        .unwrap()
        .diagram();
    for drawing in every_drawing() {
        let text = board(&diagram, drawing);
        let lines: Vec<&str> = text.lines().collect();
        let row_of = |label: &str| lines.iter().position(|l| l.contains(label)).unwrap();
        assert_eq!(row_of("Level A"), row_of("Level B"), "{text}");
        assert_eq!(row_of("Level C"), row_of("Level D"), "{text}");
        assert!(row_of("Level C") > row_of("Level A"), "{text}");
        // The side names stand beside each row of levels.
        assert_eq!(text.matches("  Black\n").count(), 2, "{text}");
        assert_eq!(text.matches("  White\n").count(), 2, "{text}");
    }
}

#[test]
fn shadows_large_boards_stand_one_above_the_other_and_small_ones_side_by_side() {
    let large = board(&shadow_diagram(), BoardSize::Large);
    let lines: Vec<&str> = large.lines().collect();
    let main = lines.iter().position(|l| l.trim() == "Main").unwrap();
    let shadow = lines.iter().position(|l| l.trim() == "Shadow").unwrap();
    assert!(shadow > main + 17, "{large}");
    assert_eq!(lines[shadow - 1], "", "{large}");
    assert_narrow(&large);
    let small = board(&shadow_diagram(), BoardSize::Small);
    assert!(small.lines().next().unwrap().contains("Main"), "{small}");
    assert!(small.lines().next().unwrap().contains("Shadow"), "{small}");
}

#[test]
fn a_board_too_wide_for_the_side_names_beside_a_rank_has_them_by_the_letters() {
    for from_black in [false, true] {
        let drawing = Drawing {
            size: BoardSize::Large,
            from_black,
        };
        let text = board(&one(grid("", DOUBLE_START)), drawing);
        assert_narrow(&text);
        let lines: Vec<&str> = text.lines().collect();
        let (top, bottom) = if from_black {
            ("White", "Black")
        } else {
            ("Black", "White")
        };
        assert!(
            lines[0].ends_with(&format!("p  {top}")) || lines[0].ends_with(&format!("a  {top}")),
            "{text}"
        );
        assert!(lines[18].ends_with(&format!("  {bottom}")), "{text}");
        assert!(lines[18].trim_start().starts_with(['a', 'p']), "{text}");
        assert_eq!(
            lines.iter().filter(|l| l.ends_with(top)).count(),
            1,
            "{text}"
        );
        assert_eq!(
            lines.iter().filter(|l| l.ends_with(bottom)).count(),
            1,
            "{text}"
        );
    }
}

#[test]
fn long_notes_and_stacks_wrap_under_themselves() {
    let mut g = grid("", START);
    for letter in ['Q', 'R', 'B', 'N', 'Z', 'Q', 'R', 'B'] {
        g.put(
            4,
            0,
            Glyph {
                color: Color::Black,
                letter,
            },
        );
    }
    let note = "A duplicate of White's rook on Ab1 arrives on Bb2; the original carries 2 counters and is removed at the end of White's next turn; capturing it wins for Black.";
    let d = Diagram {
        boards: vec![g],
        notes: vec![note.to_string()],
    };
    let text = board(&d, BoardSize::Large);
    assert_tidy(&text);
    assert_narrow(&text);
    let lines: Vec<&str> = text.lines().collect();
    let stack = lines
        .iter()
        .position(|l| l.starts_with("  e1: White King"))
        .unwrap();
    assert!(
        lines[stack + 1].starts_with("    ") && !lines[stack + 1].starts_with("     "),
        "{text}"
    );
    let first = lines
        .iter()
        .position(|l| l.starts_with("A duplicate"))
        .unwrap();
    assert!(lines[first + 1].starts_with("  ") && !lines[first + 1].starts_with("   "));
    let rejoined: Vec<&str> = lines[first..]
        .iter()
        .flat_map(|l| l.split_whitespace())
        .collect();
    assert_eq!(rejoined, note.split_whitespace().collect::<Vec<_>>());
}

#[test]
fn every_drawing_ends_with_the_diagrams_notes() {
    let diagram = rules::game("doppelganger")
        .unwrap()
        .position("r3k2r/8/2r2r2/8/8/2Q5/8/4K3 w - - 0 1 pairs=c6a8,f6h8", &[])
        .unwrap()
        .diagram();
    for drawing in every_drawing() {
        let text = board(&diagram, drawing);
        assert!(
            text.ends_with("Pairs:\n  Black rooks c6 and a8\n  Black rooks f6 and h8\n"),
            "{text}"
        );
    }
}
