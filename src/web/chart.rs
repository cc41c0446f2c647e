//! A player's rating history drawn as an SVG chart: one line per game,
//! each point a rated board (its `<title>` names the board and rating).

use maud::{html, Markup};

use crate::store::RatingPoint;

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 220.0;
/// Room left of the plot for the ratings, under it for the dates.
const LEFT: f64 = 48.0;
const BOTTOM: f64 = 28.0;
const TOP: f64 = 12.0;
const RIGHT: f64 = 12.0;

/// One colour per game line, in the order the games first appear.
const COLOURS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
];

/// The chart, or a sentence when there is no point to draw.
pub(super) fn rating_chart(points: &[RatingPoint]) -> Markup {
    if points.is_empty() {
        return html! { p { "No rated game has finished since the site began to keep ratings." } };
    }
    let mut games: Vec<&str> = Vec::new();
    for p in points {
        if !games.contains(&p.game.as_str()) {
            games.push(&p.game);
        }
    }
    let low = points.iter().map(|p| p.rating).min().unwrap_or(0) - 20;
    let high = points.iter().map(|p| p.rating).max().unwrap_or(0) + 20;
    let first = points.first().map(|p| p.at).unwrap_or_default();
    let last = points.last().map(|p| p.at).unwrap_or_default();
    let span = (last - first).num_seconds().max(1) as f64;
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    // Points at one time (a single one, or two boards ending together)
    // are spread by their order instead.
    let x = |i: usize, p: &RatingPoint| -> f64 {
        if last == first {
            LEFT + plot_w * (i as f64 + 1.0) / (points.len() as f64 + 1.0)
        } else {
            LEFT + plot_w * (p.at - first).num_seconds() as f64 / span
        }
    };
    let y =
        |rating: i64| -> f64 { TOP + plot_h * (high - rating) as f64 / (high - low).max(1) as f64 };
    let description = format!(
        "Rating history: {} rated games from {} to {}, ratings from {} to {}.",
        points.len(),
        first.format("%Y-%m-%d"),
        last.format("%Y-%m-%d"),
        low + 20,
        high - 20
    );
    html! {
        figure.chart {
            svg xmlns="http://www.w3.org/2000/svg" width=(WIDTH) height=(HEIGHT)
                viewBox=(format!("0 0 {WIDTH} {HEIGHT}")) role="img" font-family="sans-serif" font-size="11" {
                title { (description) }
                rect x=(LEFT) y=(TOP) width=(plot_w) height=(plot_h) fill="#fafafa" stroke="#999" {}
                text x=(LEFT - 4.0) y=(TOP + 4.0) text-anchor="end" { (high) }
                text x=(LEFT - 4.0) y=(TOP + plot_h) text-anchor="end" { (low) }
                text x=(LEFT) y=(HEIGHT - 8.0) { (first.format("%Y-%m-%d")) }
                text x=(WIDTH - RIGHT) y=(HEIGHT - 8.0) text-anchor="end" { (last.format("%Y-%m-%d")) }
                @for (g, game) in games.iter().enumerate() {
                    @let colour = COLOURS[g % COLOURS.len()];
                    @let mine: Vec<(usize, &RatingPoint)> = points.iter().enumerate().filter(|(_, p)| p.game == *game).collect();
                    polyline fill="none" stroke=(colour) stroke-width="2"
                        points=(mine.iter().map(|(i, p)| format!("{:.1},{:.1}", x(*i, p), y(p.rating))).collect::<Vec<_>>().join(" ")) {}
                    @for (i, p) in &mine {
                        circle cx=(format!("{:.1}", x(*i, p))) cy=(format!("{:.1}", y(p.rating))) r="3" fill=(colour) {
                            title { (p.game) " board " (p.board) ": " (p.rating) " (" (p.at.format("%Y-%m-%d")) ")" }
                        }
                    }
                }
            }
            figcaption {
                @for (g, game) in games.iter().enumerate() {
                    @if g > 0 { " · " }
                    span class=(format!("key key{}", g % COLOURS.len())) { "■" } " " (game)
                }
            }
        }
    }
}
