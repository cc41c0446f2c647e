//! The board's picture in a board mail, for readers who chose `picture`
//! (docs/commands.md §6): the SVG of `game::render::svg`, drawn from the
//! reader's side, with the last move and a king in check marked, as a PNG
//! (`mail::picture`).
//!
//! Rulings:
//! - The last move's mark covers every square the last ply changed (see
//!   [`changed_squares`]), stored with the ply when it is played (a ply
//!   stored before that has none, and its board shows no mark until the
//!   next ply). A historic view marks the ply it stands after.
//! - A king in check is marked in the games whose notation marks check
//!   (not Shadow nor Temporal Chess, which have no check to mark): when
//!   the last ply's notation ends in `+` or `#`, every king of the side to
//!   act (checkmate included).
//! - The picture shows nothing the text board of the same mail does not:
//!   it is drawn from the same diagram (no game here hides a piece from a
//!   reader), and the marks come from the stored plies every reader sees
//!   in the move list.
//! - The caption names the game, the board, its players (White first)
//!   and whose turn it is (or that the game is over); where that is too
//!   long for the picture, the game's name goes first, then the players.

use game::render::svg::{self, changed_squares, Mark, MarkKind, Picture};
use rules::{Color, Diagram, Position};

use super::compose::BoardView;
use super::{Ctx, Handled};
use crate::mail::picture::Png;
use crate::store::{self, BoardStatus};

/// The marks of the squares a ply changed as stored with it: words
/// `board:file:rank`.
pub(crate) fn changed_text(before: &Diagram, after: &Diagram) -> String {
    changed_squares(before, after)
        .iter()
        .map(|m| format!("{}:{}:{}", m.board, m.file, m.rank))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The last-move marks read back from [`changed_text`]; words that do not
/// read are left out.
fn last_move_marks(text: &str) -> Vec<Mark> {
    text.split_whitespace()
        .filter_map(|word| {
            let mut parts = word.split(':');
            let board = parts.next()?.parse().ok()?;
            let file = parts.next()?.parse().ok()?;
            let rank = parts.next()?.parse().ok()?;
            parts.next().is_none().then_some(Mark {
                board,
                file,
                rank,
                kind: MarkKind::LastMove,
            })
        })
        .collect()
}

/// The squares of the kings of `side` on every board of `diagram`.
fn kings(diagram: &Diagram, side: Color) -> Vec<Mark> {
    let mut marks = Vec::new();
    for (board, grid) in diagram.boards.iter().enumerate() {
        for rank in 0..grid.ranks {
            for file in 0..grid.files {
                if grid
                    .at(file, rank)
                    .iter()
                    .any(|g| g.color == side && g.letter == 'K')
                {
                    marks.push(Mark {
                        board,
                        file,
                        rank,
                        kind: MarkKind::Check,
                    });
                }
            }
        }
    }
    marks
}

/// The first of `captions` (longest first) that fits the picture of
/// `diagram`, else the last.
fn fitting(diagram: &Diagram, captions: Vec<String>) -> String {
    let room = svg::caption_room(diagram);
    let last = captions.last().cloned().unwrap_or_default();
    captions
        .into_iter()
        .find(|c| c.chars().count() <= room)
        .unwrap_or(last)
}

/// The picture of `diagram` from `from_black`'s side with `marks` and
/// `caption` (see the module's rulings).
fn draw(
    diagram: &Diagram,
    caption: String,
    description: String,
    from_black: bool,
    marks: Vec<Mark>,
) -> Option<Png> {
    let picture = Picture {
        caption,
        description,
        from_black,
        marks,
    };
    crate::mail::picture::png(&svg::svg(diagram, &picture)).map(|png| Png(png.into()))
}

/// The marks of the ply that led from `before` to `after` whose notation
/// is `notation` (see the module's rulings).
pub(crate) fn ply_marks(before: &Diagram, after: &dyn Position, notation: &str) -> Vec<Mark> {
    let diagram = after.diagram();
    let mut marks = changed_squares(before, &diagram);
    if after.game().marks_checks() && notation.ends_with(['+', '#']) {
        marks.extend(kings(&diagram, after.to_act()));
    }
    marks
}

/// The picture of a `preview`: `position`, reached from `start` by the
/// `previewed` plies (notations), the last of them marked (none when
/// there are none); its caption the first of `captions` that fits.
pub(super) fn preview_picture(
    start: &dyn Position,
    previewed: &[&str],
    position: &dyn Position,
    captions: Vec<String>,
    from_black: bool,
) -> Option<Png> {
    let diagram = position.diagram();
    let caption = fitting(&diagram, captions);
    let marks = match previewed.split_last() {
        Some((last, before)) => {
            let mut then = start.clone_box();
            for notation in before {
                then.play(notation).ok()?;
            }
            ply_marks(&then.diagram(), position, last)
        }
        None => Vec::new(),
    };
    draw(&diagram, caption, position.to_text(), from_black, marks)
}

impl BoardView<'_> {
    /// The picture of this board drawn from `from_black`'s side, made once
    /// for all the mails of the view that show it; `None` when it cannot
    /// be drawn (the mail then goes without it).
    pub(super) fn picture(&self, ctx: &Ctx<'_>, from_black: bool) -> Handled<Option<Png>> {
        if let Some((_, png)) = self
            .pictures
            .borrow()
            .iter()
            .find(|(side, _)| *side == from_black)
        {
            return Ok(png.clone());
        }
        let diagram = self.position.diagram();
        let mut marks = Vec::new();
        if let Some(last) = self.plies.last() {
            let id = store::BoardId::new(self.game.name(), self.row.board);
            if let Some(text) = store::ply_changed(ctx.conn, id, last.ply)? {
                marks.extend(last_move_marks(&text));
            }
            if self.game.marks_checks() && last.notation.ends_with(['+', '#']) {
                marks.extend(kings(&diagram, self.position.to_act()));
            }
        }
        let caption = fitting(&diagram, self.captions());
        let png = draw(
            &diagram,
            caption,
            self.position.to_text(),
            from_black,
            marks,
        );
        self.pictures.borrow_mut().push((from_black, png.clone()));
        Ok(png)
    }

    /// `Chess 101: alice v bob, bob to play` (`game over` once finished),
    /// and shorter forms for a picture too narrow for it: `101: alice v
    /// bob, bob to play`, `Chess 101: bob to play`, `101: bob to play`.
    fn captions(&self) -> Vec<String> {
        let who = match (&self.row.status, self.occasion) {
            (_, super::compose::Occasion::Withdrawn { .. }) => "withdrawn".to_string(),
            (_, super::compose::Occasion::Historic { ply, .. }) => format!("after ply {ply}"),
            (BoardStatus::Active, _) => format!(
                "{} to play",
                self.row.players[self.position.to_act().index()]
            ),
            (BoardStatus::Finished { .. }, _) => "game over".to_string(),
        };
        let (title, number) = (self.game.title(), self.row.board);
        let players = format!("{} v {}", self.row.players[0], self.row.players[1]);
        vec![
            format!("{title} {number}: {players}, {who}"),
            format!("{number}: {players}, {who}"),
            format!("{title} {number}: {who}"),
            format!("{number}: {who}"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_marks_read_back_and_bad_words_are_left_out() {
        let chess = rules::game("chess").unwrap();
        let before = chess.start(&[]).unwrap();
        let mut after = before.clone_box();
        after.play("Nf3").unwrap();
        let text = changed_text(&before.diagram(), &after.diagram());
        assert_eq!(text, "0:6:0 0:5:2");
        let marks = last_move_marks(&format!("{text} x 1:2 0:1:2:3 9:a:1"));
        assert_eq!(marks, changed_squares(&before.diagram(), &after.diagram()));
    }

    #[test]
    fn a_caption_too_long_for_the_picture_gives_way_to_a_shorter_one() {
        let chess = rules::game("chess").unwrap().start(&[]).unwrap().diagram();
        let temporal = rules::game("temporal")
            .unwrap()
            .start(&[])
            .unwrap()
            .diagram();
        let captions = |white: &str| {
            vec![
                format!("Chess 101: {white} v bob, bob to play"),
                "101: bob to play".to_string(),
            ]
        };
        assert_eq!(
            fitting(&chess, captions("alice")),
            "Chess 101: alice v bob, bob to play"
        );
        let long = "a".repeat(16);
        assert_eq!(fitting(&chess, captions(&long)), "101: bob to play");
        assert_eq!(
            fitting(&temporal, captions(&long)),
            format!("Chess 101: {long} v bob, bob to play")
        );
        assert_eq!(fitting(&chess, vec!["x".repeat(99)]), "x".repeat(99));
    }

    #[test]
    fn the_kings_of_the_side_in_check_are_found_on_every_board() {
        let chess = rules::game("chess").unwrap();
        let position = chess
            .position("4k3/8/8/8/8/8/8/4K2R b - - 0 1", &[])
            .unwrap();
        let marks = kings(&position.diagram(), Color::Black);
        assert_eq!(
            marks,
            [Mark {
                board: 0,
                file: 4,
                rank: 7,
                kind: MarkKind::Check
            }]
        );
    }
}
