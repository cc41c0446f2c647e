//! A board's picture in the mail: `cargo bench --bench picture`.
//!
//! For every game, positions of seeded playouts (the start and every
//! tenth ply), each drawn once from each side with a last move marked: the
//! time to draw the picture (the SVG of `game::render::svg`, then resvg
//! and the PNG encoder, as a board mail to a player who chose `picture`
//! makes it), the PNG's size, and what it adds to the mail as sent
//! (base64, the inline part's headers, the `<img>`). Bounds
//! (docs/performance.md): at most ~40 KB added to a mail (checked
//! in both modes) and ~5 ms of processor time a picture (reported; a
//! timed check would fail on a loaded machine, so only the full run
//! prints whether the median is within it).
//!
//! Quick mode (`PBMCHESS_BENCH_QUICK=1`, or without `--bench`): one
//! playout a game (five in the full run).

mod support;

use game::render::svg::{changed_squares, svg, Picture};
use game::render::{board, Drawing};
use pbmchess::mail::picture::{board_mail_sizes, png};
use support::{quick, Rng};

/// The bound on what a picture adds to a mail.
const MAX_ADDED_BYTES: usize = 40 * 1024;
/// The bound on a picture's drawing time, in milliseconds.
const MAX_MILLIS: f64 = 5.0;

struct Row {
    game: &'static str,
    millis: Vec<f64>,
    png: Vec<usize>,
    added: Vec<usize>,
}

/// This thread's processor time so far, in milliseconds (the bound is
/// on processor time: on a shared machine the wall clock counts the
/// other processes too).
fn cpu_millis() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1000.0 + ts.tv_nsec as f64 / 1_000_000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    // Each picture drawn once, as a board mail draws it: the pieces and
    // labels drawn before are kept, the caption and notes of a position
    // are new to its first side.
    let playouts = if quick() { 1 } else { 5 };
    let mut rows = Vec::new();
    for game in rules::registry() {
        let mut row = Row {
            game: game.title(),
            millis: Vec::new(),
            png: Vec::new(),
            added: Vec::new(),
        };
        for seed in 0..playouts {
            let mut rng = Rng::with_seed(seed as u64 * 1009 + 17);
            let mut position = game.start(&[]).expect("start");
            let mut before = position.diagram();
            for ply in 0..=60 {
                if ply % 10 == 0 {
                    let diagram = position.diagram();
                    for from_black in [false, true] {
                        let picture = Picture {
                            caption: format!("{} 101: alice v bob, alice to play", game.title()),
                            description: position.to_text(),
                            from_black,
                            marks: changed_squares(&before, &diagram),
                        };
                        let t = cpu_millis();
                        let bytes = png(&svg(&diagram, &picture)).expect("a picture");
                        row.millis.push(cpu_millis() - t);
                        let text = board(&diagram, Drawing::default());
                        let (html, with) = board_mail_sizes(&text, &bytes);
                        row.png.push(bytes.len());
                        row.added.push(with - html);
                    }
                }
                let actions = position.legal_actions();
                if actions.is_empty() {
                    break;
                }
                before = position.diagram();
                let action = &actions[rng.usize(..actions.len())];
                position.play(action).expect("a legal action");
            }
        }
        rows.push(row);
    }
    println!(
        "{:<18} {:>9} {:>9} {:>10} {:>10}",
        "game", "median ms", "max ms", "PNG max", "added max"
    );
    for row in &rows {
        let max_ms = row.millis.iter().copied().fold(0.0, f64::max);
        let png_max = row.png.iter().max().copied().unwrap_or(0);
        let added_max = row.added.iter().max().copied().unwrap_or(0);
        println!(
            "{:<18} {:>9.2} {:>9.2} {:>8} B {:>8} B",
            row.game,
            median(row.millis.clone()),
            max_ms,
            png_max,
            added_max
        );
        assert!(
            added_max <= MAX_ADDED_BYTES,
            "{}: a picture adds {added_max} bytes to a mail",
            row.game
        );
        if !quick() {
            let m = median(row.millis.clone());
            println!(
                "  {}: median {m:.2} ms {} the {MAX_MILLIS} ms bound",
                row.game,
                if m <= MAX_MILLIS { "within" } else { "OVER" }
            );
        }
    }
}
