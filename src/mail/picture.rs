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

use std::sync::{Arc, OnceLock};

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
pub(crate) fn png(svg: &str) -> Option<Vec<u8>> {
    let options = resvg::usvg::Options {
        font_family: "DejaVu Sans".to_string(),
        fontdb: fonts(),
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &options).ok()?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    // Opaque: premultiplied RGBA is plain RGBA; the alpha is dropped.
    let rgb: Vec<u8> = pixmap
        .data()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let mut out = Vec::with_capacity(rgb.len() / 8);
    {
        let mut encoder = png::Encoder::new(&mut out, size.width(), size.height());
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Balanced);
        encoder.set_filter(png::Filter::Adaptive);
        let mut writer = encoder.write_header().ok()?;
        writer.write_image_data(&rgb).ok()?;
        writer.finish().ok()?;
    }
    Some(out)
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
        let mut reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
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
        assert_eq!(info.color_type, png::ColorType::Rgb);
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
