//! The pages in headless Chromium (Debian's `chromium`): each renders,
//! and the board's picture is there in its colours. Skipped, with a line
//! saying so, where Chromium is not installed, unless
//! `PBMCHESS_TEST_BROWSER_REQUIRED=1` (set by `.ci/run`).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::pages::league;
use super::Web;

fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// A screenshot of `url`, `width` by `height`, in `dir`, by a browser
/// whose profile and home are in `dir` too.
fn screenshot(browser: &Path, dir: &Path, url: &str, name: &str) -> PathBuf {
    let file = dir.join(format!("{name}.png"));
    let out = Command::new(browser)
        .env("HOME", dir)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-extensions",
            "--window-size=1000,1400",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", file.display()))
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(
        file.is_file(),
        "no screenshot of {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    file
}

/// The pixels of a PNG as RGB triples.
fn pixels(file: &Path) -> Vec<[u8; 3]> {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(file).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    buf[..info.buffer_size()]
        .chunks(step)
        .map(|p| match step {
            1 | 2 => [p[0], p[0], p[0]],
            _ => [p[0], p[1], p[2]],
        })
        .collect()
}

/// Share of pixels within a small distance of `colour`.
fn share(pixels: &[[u8; 3]], colour: [u8; 3]) -> f64 {
    let near = pixels
        .iter()
        .filter(|p| (0..3).all(|i| p[i].abs_diff(colour[i]) <= 6))
        .count();
    near as f64 / pixels.len() as f64
}

#[test]
fn every_game_s_board_page_renders_with_its_picture_in_chromium() {
    let Some(browser) = chromium() else {
        let required = std::env::var("PBMCHESS_TEST_BROWSER_REQUIRED").is_ok_and(|v| v == "1");
        assert!(!required, "chromium is required but not installed");
        eprintln!("skipped: chromium is not installed");
        return;
    };
    let install = league("");
    let web = Web::start(&install);
    let dir = tempfile::tempdir().unwrap();
    let light = [0xf0, 0xd9, 0xb5];
    let dark = [0xb5, 0x88, 0x63];
    for game in rules::registry() {
        let shot = screenshot(
            &browser,
            dir.path(),
            &web.url(&format!("/game/{}/board/101?ply=3", game.name())),
            game.name(),
        );
        let px = pixels(&shot);
        // Not blank: the board's two square colours cover a good part.
        let (l, d) = (share(&px, light), share(&px, dark));
        assert!(
            l > 0.01 && d > 0.01,
            "{}: light {l:.3}, dark {d:.3}",
            game.name()
        );
        assert!(share(&px, [255, 255, 255]) < 0.97, "{}: blank", game.name());
    }
    for (name, path) in [
        ("player", "/player/alice"),
        ("tournament", "/game/chess/tournament/spring"),
        ("standings", "/game/chess/standings"),
        ("help", "/help"),
    ] {
        let px = pixels(&screenshot(&browser, dir.path(), &web.url(path), name));
        let white = share(&px, [255, 255, 255]);
        assert!(white < 0.995, "{name}: blank ({white:.4} white)");
    }
    if let Some(keep) = std::env::var_os("PBMCHESS_WEB_SCREENSHOTS") {
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let entry = entry.unwrap();
            if entry.path().extension().is_some_and(|e| e == "png") {
                std::fs::copy(entry.path(), Path::new(&keep).join(entry.file_name())).unwrap();
            }
        }
    }
}
