//! What pieces are worth: the numbers evaluations start from, in
//! centipawns (a pawn is 100).
//!
//! The rules texts name no numbers. The orthodox values are the classic
//! ones (knight and bishop about three pawns, rook five, queen nine); the
//! Zelig family's seed stresses that a zelig is worth what it moves as on
//! its file, so a zelig is valued as the kind it is now (and the e-file
//! monarch, a king's step without royalty, as a minor piece). Temporal
//! Chess's Raumschach pieces move in three dimensions: the unicorn (the
//! three-axis diagonal, 8 directions) is the weakest slider, the bishop
//! (12 directions) outranks the knight, and the rook keeps its place
//! below the queen (26 directions).

use super::{Color, Diagram};

/// The value of an orthodox piece letter (`P N B R Q K`, the Zelig
/// family's `Z` and `M`, Temporal's `U`), either case. Kings count 0:
/// losing one is the end, which the search scores by itself.
pub fn of_letter(letter: char) -> i32 {
    match letter.to_ascii_uppercase() {
        'P' => 100,
        'N' => 320,
        'B' => 330,
        'R' => 500,
        'Q' => 900,
        'M' | 'Z' => 300,
        'U' => 250,
        _ => 0,
    }
}

/// Material on a diagram's boards, `side`'s less the other side's: the
/// default evaluation of an engine that offers none of its own.
pub fn material(diagram: &Diagram, side: Color) -> i32 {
    let mut score = 0;
    for grid in &diagram.boards {
        for glyph in grid.cells.iter().flatten() {
            let v = of_letter(glyph.letter);
            score += if glyph.color == side { v } else { -v };
        }
    }
    score
}
