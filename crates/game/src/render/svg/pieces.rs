//! The pieces as vector shapes, drawn for this project in a 32-unit
//! square: White's filled white with a black outline, Black's filled near
//! black with white inner lines. Each kind has its own silhouette, so no
//! piece depends on colour or a letter to be told apart: the orthodox six,
//! the Zelig family's zelig (a disc bearing a Z) and Temporal Chess's
//! unicorn (a horse's head with a horn). A letter no game uses is drawn as
//! a disc bearing the letter.

use rules::{Color, Glyph};

/// The id of a glyph's shape in the picture's `<defs>`: `w-N`.
pub(super) fn id(glyph: Glyph) -> String {
    let side = match glyph.color {
        Color::White => 'w',
        Color::Black => 'b',
    };
    let letter = glyph.letter.to_ascii_uppercase();
    if letter.is_ascii_alphanumeric() {
        format!("{side}-{letter}")
    } else {
        format!("{side}-x{:x}", letter as u32)
    }
}

const BASE: &str = "M8 27h16v-3H8z";
const PAWN: &str = "M11 24c0-5 2-8 3.5-9h3c1.5 1 3.5 4 3.5 9z";
const ROOK: &str = "M10 24l1.5-11H10V6.5h3V9h2V6.5h2V9h2V6.5h3V13h-1.5L22 24z";
const BISHOP: &str = "M16 6c-5 4-6.5 9-4.5 14h9c2-5 .5-10-4.5-14zM11 21h10v3H11z";
const KNIGHT: &str =
    "M11 24c0-4 2-6 3.5-8-2 1-4.5 1.5-6 1.5L7 15.5C9 11 12 8.5 15.5 8L17 5.5l1.5 3c3 3 5 8.5 5 15.5z";
const QUEEN: &str = "M8 24l-1-4-2-10 5 7 1-10 4 9 1-10 1 10 4-9 1 10 5-7-2 10-1 4z";
const KING: &str = "M8 24l-1-4c-2-5 3-9 9-5 6-4 11 0 9 5l-1 4zM15 3h2v3h3v2h-3v6h-2V8h-3V6h3z";
const ZELIG: &str = "M16 4.5a9.5 9.5 0 1 0 0.01 0zM11 21h10v3H11z";

/// The shape's SVG elements, in the glyph's colours.
pub(super) fn shape(glyph: Glyph) -> String {
    let (fill, line, detail) = match glyph.color {
        Color::White => ("#ffffff", "#000000", "#000000"),
        Color::Black => ("#202020", "#000000", "#ffffff"),
    };
    let body = |d: &str| {
        format!(
            "<path d=\"{d}\" fill=\"{fill}\" stroke=\"{line}\" stroke-width=\"1.2\" \
             stroke-linejoin=\"round\"/>"
        )
    };
    let detail_line = |d: &str| {
        format!(
            "<path d=\"{d}\" fill=\"none\" stroke=\"{detail}\" stroke-width=\"1.2\" \
             stroke-linecap=\"round\"/>"
        )
    };
    let ball = |cx: f32, cy: f32, r: f32| {
        format!(
            "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{r}\" fill=\"{fill}\" stroke=\"{line}\" \
             stroke-width=\"1.2\"/>"
        )
    };
    let base = body(BASE);
    match glyph.letter.to_ascii_uppercase() {
        'P' => format!("{}{}{base}", body(PAWN), ball(16.0, 11.0, 4.5)),
        'R' => format!("{}{}{base}", body(ROOK), detail_line("M12 13h8")),
        'B' => format!(
            "{}{}{}{base}",
            body(BISHOP),
            ball(16.0, 5.0, 1.8),
            detail_line("M17.5 10l-3 4.5")
        ),
        'N' => format!("{}{}{base}", body(KNIGHT), ball(14.0, 11.5, 0.9)),
        'U' => format!(
            "{}{}{}{}{base}",
            body("M12 10L3 1.5l13 6z"),
            detail_line("M10.5 7.5L6 3.5"),
            body(KNIGHT),
            ball(14.0, 11.5, 0.9)
        ),
        'Q' => format!(
            "{}{}{}{}{}{}{}{base}",
            body(QUEEN),
            ball(5.0, 10.0, 1.6),
            ball(11.0, 7.0, 1.6),
            ball(16.0, 6.0, 1.6),
            ball(21.0, 7.0, 1.6),
            ball(27.0, 10.0, 1.6),
            detail_line("M9 21h14")
        ),
        'K' => format!("{}{}{base}", body(KING), detail_line("M9 20.5h14")),
        'Z' => format!("{}{}{base}", body(ZELIG), detail_line("M12 10h8l-8 8h8")),
        other => format!(
            "{}{base}<text x=\"16\" y=\"18.5\" font-size=\"12\" text-anchor=\"middle\" \
             fill=\"{detail}\">{}</text>",
            body(ZELIG),
            super::escape(&other.to_string())
        ),
    }
}
