//! Boards and move lists as text. Pure: no I/O.
//!
//! Every function returns whole lines, each ended by `\n`, with no trailing
//! whitespace, ready to be put into a mail body as is.
//!
//! # Boards (docs/commands.md §6)
//!
//! [`board`] draws a [`Diagram`](rules::Diagram) as the reader asked
//! ([`Drawing`]: the [`BoardSize`](crate::command::BoardSize), and the side).
//! White is at the bottom (rank 1 last), as pbmserv draws it, unless the
//! reader asked for Black's side (`set ... flip`): then rank 1 is on top and
//! the files run from right to left. a1 is dark. One legend line under the
//! boards says which marks are White, which Black, and what an empty dark
//! square looks like.
//!
//! Large (the default), three characters a square; `Black` stands after the
//! right-hand rank number of the top rank, `White` after that of the bottom
//! rank:
//!
//! ```text
//!       a   b   c   d   e   f   g   h
//!     +---+---+---+---+---+---+---+---+
//!   8 |*R*|*N*|*B*|*Q*|*K*|*B*|*N*|*R*|  8  Black
//!     +---+---+---+---+---+---+---+---+
//!   7 |*P*|*P*|*P*|*P*|*P*|*P*|*P*|*P*|  7
//!     +---+---+---+---+---+---+---+---+
//!   6 |   |:::|   |:::|   |:::|   |:::|  6
//!   ...
//!   1 |:R:| N |:B:| Q |:K:| B |:N:| R |  1  White
//!     +---+---+---+---+---+---+---+---+
//!       a   b   c   d   e   f   g   h
//! ```
//!
//! Small, one character a square, Black upper case and White lower case
//! (as pbmserv draws it; the opposite of FEN's convention), `-`
//! on empty dark squares:
//!
//! ```text
//!      a b c d e f g h
//!    +-----------------+
//!  8 | R N B Q K B N R |  8  Black
//!  7 | P P P P P P P P |  7
//!  6 |   -   -   -   - |  6
//!  ...
//!  1 | r n b q k b n r |  1  White
//!    +-----------------+
//!      a b c d e f g h
//! ```
//!
//! Every line of a drawing stays within the 78 columns of a mail line.
//! Several boards in one diagram (Shadow's main and shadow
//! board, Temporal's levels) stand side by side, four spaces apart, each
//! with its label centred above it, in as few rows as fit (Shadow's large
//! boards one above the other, Temporal's levels two by two), the rows a
//! blank line apart; `Black`/`White` stand after the last board of each
//! row. Where they do not fit after a rank number (Double Chess large)
//! they stand after the file letters, above and below the board. A square
//! holding several glyphs shows the first one, and every such square is
//! listed under the boards, the drawn glyph first:
//!
//! ```text
//! Squares holding several pieces (the first one is drawn):
//!   Shadow d4: White Rook, Black Knight
//! ```
//!
//! (without the board label when the diagram has only one board). The
//! diagram's own notes follow, one per line, after a blank line; a note
//! or a listed square too long for a line is wrapped at word boundaries,
//! continued two columns further in.
//!
//! # Pictures
//!
//! [`svg::svg`] draws the same [`Diagram`](rules::Diagram) as an SVG
//! picture, 32 pixels a square, with the pieces as the project's own
//! vector shapes, each titled (`White knight on f3`) for screen readers;
//! the rulings are in [`svg`].
//!
//! # Move lists
//!
//! [`move_list`] writes the plies in move pairs, two columns, White's ply
//! and Black's answer on one line under a move number, so a ply number is
//! never read as a move number. A ply played from a player's queue is
//! marked `(Auto)`. Where a seat makes two turns in a row (a game set up
//! with Black to move) the missing half of the pair is written `...`. A
//! decision (a Shadow reveal) takes no number: it is written after the ply
//! that set it off, inside that move, whoever makes it. What happened
//! automatically is written under its line, indented to the first column:
//!
//! ```text
//!  9. Nxd5 reveal c4   Nxc4 (Auto)
//!     Black's shadow knight on c4 is revealed.
//! 10. ...             Nxe4
//! ```

mod diagram;
mod moves;
mod pgn;
pub mod svg;

pub use diagram::{board, Drawing};
pub use moves::{
    is_decision, move_lines, move_list, move_list_after, MoveRecord, Numbered, Numbering, AUTO,
    COND, DECISION_PREFIX,
};
pub use pgn::{record, RecordTags};

#[cfg(test)]
mod tests;
