//! The board as a picture in a board mail's HTML part: the SVG of
//! `game::render::svg` drawn as a PNG, sent inline (`multipart/related`,
//! a `Content-ID`), above the text board (docs/commands.md §6).
//!
//! Rulings:
//! - Drawn by resvg (pure Rust, kept) at the SVG's own size, 32 pixels a
//!   square, and encoded as an 8-bit RGB PNG (the picture is opaque);
//! - the text of the picture (caption, labels, file letters, rank
//!   numbers, notes) is drawn with DejaVu Sans, built into the binary
//!   (`assets/fonts/`, its licence beside it), and with no other font:
//!   no font of the machine is read, so the same board gives the same
//!   bytes on every machine, in every test, at every resend;
//! - the picture's `Content-ID` is made from its bytes: a resend carries
//!   the same one, and two pictures in one mail never share one;
//! - nothing is fetched: the HTML part refers to the picture by `cid:`
//!   alone, with no link and no remote image.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::hex::encode as hex;

/// A board's picture, as a PNG: shared by the mails that show it.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Png(pub(crate) Arc<[u8]>);

impl std::fmt::Debug for Png {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Png({} bytes)", self.0.len())
    }
}

/// DejaVu Sans, unmodified (see `assets/fonts/README.md`).
const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// The only font a picture is drawn with.
fn fonts() -> Arc<resvg::usvg::fontdb::Database> {
    static FONTS: OnceLock<Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = resvg::usvg::fontdb::Database::new();
            db.load_font_data(FONT.to_vec());
            db.set_sans_serif_family("DejaVu Sans");
            db.set_serif_family("DejaVu Sans");
            db.set_monospace_family("DejaVu Sans");
            db.set_cursive_family("DejaVu Sans");
            db.set_fantasy_family("DejaVu Sans");
            Arc::new(db)
        })
        .clone()
}

/// The PNG of an SVG picture, or `None` when it cannot be drawn (an SVG
/// resvg does not read, or of no size): the mail then goes without it.
///
/// Ruling (speed, see docs/performance.md): the pieces and the lines of
/// text (rank numbers, file letters, board labels, the caption, the
/// notes) of a picture are drawn once each, as small pictures of their
/// own made by resvg from the very markup of the picture, kept while they
/// fit in `SPRITE_BYTES` (16 MB), and stamped where the picture places them
/// (whole pixels, so a stamp is the element as drawn in place): the
/// labels of every board, and the caption and notes the two sides of one
/// board mail share, are drawn once. The rest (squares, marks, frames) is
/// drawn by resvg as it stands. The PNG is indexed (a palette of at
/// most 256 colours: the picture's own colours, the rarest shades of the
/// edges mapped to the nearest of the others when there are more).
pub fn png(svg: &str) -> Option<Vec<u8>> {
    let (rest, stamps) = stamps(svg);
    let tree = resvg::usvg::Tree::from_str(&rest, &options()).ok()?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    for stamp in &stamps {
        stamp_on(&mut pixmap, &*sprite(&stamp.svg)?, stamp.x, stamp.y);
    }
    indexed_png(&pixmap)
}

/// Draw `sprite` over `pixmap` with its top left corner at `x`, `y`
/// (source over, both premultiplied), cut at the edges.
fn stamp_on(
    pixmap: &mut resvg::tiny_skia::Pixmap,
    sprite: &resvg::tiny_skia::Pixmap,
    x: i32,
    y: i32,
) {
    let (width, height) = (pixmap.width() as i64, pixmap.height() as i64);
    let sw = sprite.width() as i64;
    let src = sprite.data();
    let dst = pixmap.data_mut();
    for row in 0..sprite.height() as i64 {
        let dy = y as i64 + row;
        if !(0..height).contains(&dy) {
            continue;
        }
        for col in 0..sw {
            let dx = x as i64 + col;
            if !(0..width).contains(&dx) {
                continue;
            }
            let s = ((row * sw + col) * 4) as usize;
            let alpha = u32::from(src[s + 3]);
            if alpha == 0 {
                continue;
            }
            let d = ((dy * width + dx) * 4) as usize;
            for k in 0..4 {
                let under = u32::from(dst[d + k]) * (255 - alpha);
                dst[d + k] = (u32::from(src[s + k]) + (under + 127) / 255).min(255) as u8;
            }
        }
    }
}

fn options() -> resvg::usvg::Options<'static> {
    resvg::usvg::Options {
        font_family: "DejaVu Sans".to_string(),
        fontdb: fonts(),
        ..Default::default()
    }
}

/// An element of a picture drawn from a small picture of its own.
struct Stamp {
    /// Where the small picture's top left corner goes.
    x: i32,
    y: i32,
    /// The small picture.
    svg: String,
}

/// Room around a stamped piece for its outline.
const PAD: i64 = 2;
/// The longest line of text that is stamped (longer: drawn in place).
const STAMPED_TEXT: usize = 120;
/// The small pictures kept take at most this many bytes; once it is
/// reached, new ones are drawn and used but not kept.
const SPRITE_BYTES: usize = 16 << 20;

/// The picture without its stamped elements, and those elements: every
/// piece (`<g transform="translate(X Y)[ scale(S)]">…<use href="#id"/></g>`,
/// its shape from the `<defs>`) and every short `<text>` at whole
/// coordinates. A line that does not read so stays in the picture.
fn stamps(svg: &str) -> (String, Vec<Stamp>) {
    let root = svg.lines().next().unwrap_or_default();
    let font = attribute(root, "font-family").unwrap_or("sans-serif");
    let mut defs: Vec<(&str, &str)> = Vec::new();
    let mut rest = String::with_capacity(svg.len());
    let mut out = Vec::new();
    for line in svg.lines() {
        if let Some(id) = line
            .strip_prefix("<g id=\"")
            .and_then(|l| l.split('"').next())
        {
            defs.push((id, line));
        }
        let stamp = if line.starts_with("<g transform=\"translate(") {
            piece_stamp(line, &defs)
        } else if line.starts_with("<text ") {
            text_stamp(line, font)
        } else {
            None
        };
        match stamp {
            Some(stamp) => out.push(stamp),
            None => {
                rest.push_str(line);
                rest.push('\n');
            }
        }
    }
    (rest, out)
}

/// The value of `name="…"` in an element's line.
fn attribute<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let from = line.find(&format!(" {name}=\""))? + name.len() + 3;
    line[from..].split('"').next()
}

fn piece_stamp(line: &str, defs: &[(&str, &str)]) -> Option<Stamp> {
    let transform = attribute(line, "transform")?;
    let (place, scale) = match transform.split_once(") scale(") {
        Some((place, scale)) => (place, scale.strip_suffix(')')?),
        None => (transform.strip_suffix(')')?, "1"),
    };
    let (x, y) = place.strip_prefix("translate(")?.split_once(' ')?;
    let (x, y): (i64, i64) = (x.parse().ok()?, y.parse().ok()?);
    let factor: f64 = scale.parse().ok()?;
    let id = line.split("href=\"#").nth(1)?.split('"').next()?;
    let (_, def) = defs.iter().find(|(d, _)| *d == id)?;
    let side = (32.0 * factor).ceil() as i64 + 2 * PAD;
    Some(Stamp {
        x: i32::try_from(x - PAD).ok()?,
        y: i32::try_from(y - PAD).ok()?,
        svg: format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{side}\" height=\"{side}\" \
             viewBox=\"0 0 {side} {side}\"><defs>{def}</defs>\
             <g transform=\"translate({PAD} {PAD}) scale({scale})\"><use href=\"#{id}\"/></g></svg>"
        ),
    })
}

fn text_stamp(line: &str, font: &str) -> Option<Stamp> {
    let x: i64 = attribute(line, "x")?.parse().ok()?;
    let y: i64 = attribute(line, "y")?.parse().ok()?;
    let size: i64 = attribute(line, "font-size")?.parse().ok()?;
    let text = line.split_once('>')?.1.strip_suffix("</text>")?;
    // An entity counts as its characters: the room only grows.
    if text.chars().count() > STAMPED_TEXT || !(1..=64).contains(&size) {
        return None;
    }
    // No glyph of the font is wider than its size.
    let width = size * (text.chars().count() as i64 + 2);
    let height = 2 * size;
    let sx = if attribute(line, "text-anchor") == Some("middle") {
        width / 2
    } else {
        size
    };
    let sy = size * 3 / 2;
    let after_y = line.split_once(&format!(" y=\"{y}\""))?.1;
    Some(Stamp {
        x: i32::try_from(x - sx).ok()?,
        y: i32::try_from(y - sy).ok()?,
        svg: format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"{font}\">\
             <text x=\"{sx}\" y=\"{sy}\"{after_y}</svg>"
        ),
    })
}

/// A small picture drawn on a transparent ground, kept for the next time.
fn sprite(svg: &str) -> Option<Arc<resvg::tiny_skia::Pixmap>> {
    type Kept = (HashMap<String, Arc<resvg::tiny_skia::Pixmap>>, usize);
    static KEPT: OnceLock<Mutex<Kept>> = OnceLock::new();
    let kept = KEPT.get_or_init(Mutex::default);
    if let Some(sprite) = kept.lock().ok()?.0.get(svg) {
        return Some(sprite.clone());
    }
    let tree = resvg::usvg::Tree::from_str(svg, &options()).ok()?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())?;
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    let sprite = Arc::new(pixmap);
    let bytes = sprite.data().len() + svg.len();
    let mut kept = kept.lock().ok()?;
    if kept.1 + bytes <= SPRITE_BYTES {
        kept.1 += bytes;
        kept.0.insert(svg.to_string(), sprite.clone());
    }
    Some(sprite)
}

/// An opaque picture as an 8-bit indexed PNG (see [`png()`]).
fn indexed_png(pixmap: &resvg::tiny_skia::Pixmap) -> Option<Vec<u8>> {
    // Opaque: premultiplied RGBA is plain RGBA; the alpha is dropped.
    let pixels: Vec<[u8; 3]> = pixmap
        .data()
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    // Counted run by run: most pixels repeat the one before.
    let mut counts: HashMap<[u8; 3], u32> = HashMap::new();
    for run in pixels.chunk_by(|a, b| a == b) {
        *counts.entry(run[0]).or_default() += run.len() as u32;
    }
    // The most frequent first (ties by colour: the same picture, the same
    // palette).
    let mut colours: Vec<([u8; 3], u32)> = counts.into_iter().collect();
    colours.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let palette: Vec<[u8; 3]> = colours.iter().take(256).map(|c| c.0).collect();
    let mut index: HashMap<[u8; 3], u8> = palette
        .iter()
        .enumerate()
        .map(|(i, c)| (*c, i as u8))
        .collect();
    for (colour, _) in colours.iter().skip(256) {
        let nearest = palette
            .iter()
            .enumerate()
            .min_by_key(|(_, p)| {
                p.iter()
                    .zip(colour)
                    .map(|(a, b)| (i32::from(*a) - i32::from(*b)).pow(2))
                    .sum::<i32>()
            })
            .map_or(0, |(i, _)| i as u8);
        index.insert(*colour, nearest);
    }
    let mut data: Vec<u8> = Vec::with_capacity(pixels.len());
    for run in pixels.chunk_by(|a, b| a == b) {
        let i = index[&run[0]];
        data.extend(std::iter::repeat_n(i, run.len()));
    }
    let mut out = Vec::with_capacity(data.len() / 4);
    {
        let mut encoder = png::Encoder::new(&mut out, pixmap.width(), pixmap.height());
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(palette.concat());
        encoder.set_compression(png::Compression::Balanced);
        encoder.set_filter(png::Filter::NoFilter);
        let mut writer = encoder.write_header().ok()?;
        writer.write_image_data(&data).ok()?;
        writer.finish().ok()?;
    }
    Some(out)
}

/// The sizes in bytes of a board mail with the text `text` as it is sent
/// (headers included): with its HTML part alone, and with the picture
/// `png` too. For the bench (docs/performance.md).
pub fn board_mail_sizes(text: &str, png: &[u8]) -> (usize, usize) {
    let out = crate::mail::Outgoing {
        to: "reader@players.example".into(),
        subject: "Chess Board 101 reader".into(),
        body: text.to_string(),
        in_reply_to: Some("cause@players.example".into()),
    };
    let size = |form| {
        crate::mail::build_message_in_form(
            &out,
            crate::mail::MessageId::Own("t.0123456789abcdef@games.example"),
            form,
            "PBM <pbm@games.example>",
            std::time::SystemTime::UNIX_EPOCH,
        )
        .map_or(0, |m| m.formatted().len())
    };
    (
        size(crate::mail::MailForm::WithHtml),
        size(crate::mail::MailForm::WithPicture(png)),
    )
}

/// A PNG's width and height in pixels, read from its header.
pub(crate) fn size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" || &png[12..16] != b"IHDR" {
        return None;
    }
    let at = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
    Some((at(16), at(20)))
}

/// The `Content-ID` of a picture (without brackets): made from its
/// bytes, so the same picture always has the same one.
pub(crate) fn content_id(png: &[u8]) -> String {
    let digest = Sha256::digest(png);
    format!("board.{}@pbmchess.picture", &hex(&digest)[..24])
}

/// The bytes of base64 text a picture of `png_len` bytes takes in a mail,
/// its line ends included (76 characters a line).
pub(crate) fn encoded_len(png_len: usize) -> usize {
    let chars = png_len.div_ceil(3) * 4;
    chars + chars.div_ceil(76) * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    const SVG: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" \
        height=\"20\" viewBox=\"0 0 40 20\"><rect width=\"20\" height=\"20\" \
        fill=\"#b58863\"/><text x=\"22\" y=\"15\" font-size=\"14\" \
        font-family=\"sans-serif\">a</text></svg>";

    fn pixels(png: &[u8]) -> (png::OutputInfo, Vec<u8>) {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap();
        assert_eq!(reader.info().color_type, png::ColorType::Indexed);
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        buf.truncate(info.buffer_size());
        (info, buf)
    }

    #[test]
    fn a_picture_is_drawn_at_its_size_with_its_colours_and_its_text() {
        let png = png(SVG).unwrap();
        assert_eq!(size(&png), Some((40, 20)));
        let (info, rgb) = pixels(&png);
        assert_eq!((info.width, info.height), (40, 20));
        assert_eq!(info.color_type, png::ColorType::Rgb, "expanded");
        let at = |x: usize, y: usize| &rgb[(y * 40 + x) * 3..][..3];
        assert_eq!(at(10, 10), [0xb5, 0x88, 0x63]);
        // The letter is drawn with the built-in font: dark pixels right of
        // the square, where there would be none without a font.
        let dark = (20..40)
            .flat_map(|x| (0..20).map(move |y| (x, y)))
            .filter(|&(x, y)| at(x, y).iter().all(|&c| c < 128))
            .count();
        assert!(dark > 5, "{dark}");
    }

    #[test]
    fn stamped_pieces_and_labels_are_drawn_as_resvg_draws_them_in_place() {
        let diagram = rules::game("zelig").unwrap().start(&[]).unwrap().diagram();
        let svg = game::render::svg::svg(
            &diagram,
            &game::render::svg::Picture {
                caption: "Zelig 101: alice v bob, alice to play".into(),
                ..Default::default()
            },
        );
        let (rest, stamps) = stamps(&svg);
        // Every piece and every line of text is stamped.
        assert!(stamps.len() > 32 + 16 + 1, "{rest}");
        assert!(!rest.contains("<text"), "{rest}");
        assert!(!rest.contains("<use"), "{rest}");
        let (_, ours) = pixels(&png(&svg).unwrap());
        // resvg over the whole picture, no stamps, no palette.
        let tree = resvg::usvg::Tree::from_str(&svg, &options()).unwrap();
        let size = tree.size().to_int_size();
        let mut whole = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
        whole.fill(resvg::tiny_skia::Color::WHITE);
        resvg::render(&tree, Default::default(), &mut whole.as_mut());
        let theirs: Vec<u8> = whole
            .data()
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        assert_eq!(ours.len(), theirs.len());
        let off = ours
            .iter()
            .zip(&theirs)
            .filter(|(a, b)| a.abs_diff(**b) > 24)
            .count();
        assert!(
            off * 1000 < ours.len(),
            "{off} of {} values differ",
            ours.len()
        );
    }

    #[test]
    fn the_same_svg_gives_the_same_bytes_and_content_id() {
        let (a, b) = (png(SVG).unwrap(), png(SVG).unwrap());
        assert_eq!(a, b);
        assert_eq!(content_id(&a), content_id(&b));
        let other = png(&SVG.replace("b58863", "f0d9b5")).unwrap();
        assert_ne!(content_id(&a), content_id(&other));
    }

    #[test]
    fn what_is_no_picture_is_refused_quietly() {
        assert_eq!(png("not svg"), None);
        assert_eq!(size(b"GIF89a"), None);
    }

    #[test]
    fn encoded_len_counts_the_base64_lines() {
        use base64::Engine as _;
        for n in [0, 1, 56, 57, 58, 1000, 20_000] {
            let text = base64::engine::general_purpose::STANDARD.encode(vec![7u8; n]);
            let lines = text.as_bytes().chunks(76).count();
            assert_eq!(encoded_len(n), text.len() + 2 * lines, "{n}");
        }
    }
}

/// Looking at the pictures: `PBMCHESS_PNG_IN=<dir of SVGs>` (e.g. from
/// `game`'s `svg::tests::write_samples`) writes a PNG beside each.
#[cfg(test)]
#[test]
#[ignore]
fn write_samples() {
    let Some(dir) = std::env::var_os("PBMCHESS_PNG_IN") else {
        return;
    };
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(&path).unwrap();
            std::fs::write(path.with_extension("png"), png(&svg).unwrap()).unwrap();
        }
    }
}
