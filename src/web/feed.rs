//! Atom feeds (RFC 4287): one per board (every ply, and the end of the
//! game) and one per player (the latest plies on all their boards), so a
//! feed reader gets every move. Written with maud, whose escaping is
//! XML's; every element has content or a closing tag, as XML wants.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, SecondsFormat, Utc};
use maud::{html, Markup};

use super::page::{board_link, player_link, ply_link, without_addresses, PageError};
use super::Site;
use crate::server::public;
use crate::store::Ply;

/// Entries a feed holds at most (the newest).
const ENTRIES: usize = 100;

fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn atom(markup: Markup) -> Result<Response, PageError> {
    Ok((
        [(header::CONTENT_TYPE, "application/atom+xml; charset=utf-8")],
        format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n{}",
            markup.into_string()
        ),
    )
        .into_response())
}

/// One ply as an entry.
fn entry(base: &str, game: &str, title: &str, board: u32, who: &str, ply: &Ply) -> Markup {
    let link = format!("{base}{}", ply_link(game, board, ply.ply));
    let mut text = format!("{who} played {}.", ply.notation);
    for e in &ply.events {
        text.push(' ');
        text.push_str(e);
    }
    if !ply.comment.trim().is_empty() {
        text.push_str(&format!(
            "\n\nComment from {who}: {}",
            without_addresses(ply.comment.trim())
        ));
    }
    html! {
        entry {
            title { (title) " Board " (board) ", ply " (ply.ply) ": " (ply.notation) " (" (who) ")" }
            id { (link) }
            link href=(link) {}
            updated { (stamp(ply.played_at)) }
            content type="text" { (text) }
        }
    }
}

/// `/game/{game}/board/{board}/feed`.
pub(super) async fn board_feed(
    State(site): State<Arc<Site>>,
    Path((name, number)): Path<(String, String)>,
) -> Result<Response, PageError> {
    let game = rules::game(&name)
        .filter(|g| g.name() == name)
        .ok_or_else(|| PageError::NotFound(format!("There is no game called {name}.")))?;
    let number: u32 = number
        .parse()
        .map_err(|_| PageError::NotFound(format!("There is no board {number}.")))?;
    let page = site
        .reader
        .read(move |ctx| public::board_page(ctx, game, number, None))
        .await?;
    let base = &site.url;
    let link = format!("{base}{}", board_link(game.name(), number));
    let updated = page
        .plies
        .last()
        .map_or(page.last_action, |p| p.played_at)
        .max(page.last_action);
    atom(html! {
        feed xmlns="http://www.w3.org/2005/Atom" {
            title { (game.title()) " Board " (number) ": " (page.sides[0].userid) " against " (page.sides[1].userid) }
            id { (link) }
            link rel="self" href=(format!("{link}/feed")) {}
            link rel="alternate" type="text/html" href=(link) {}
            updated { (stamp(updated)) }
            author { name { (site.name) } }
            @if !page.active {
                entry {
                    title { (game.title()) " Board " (number) ": " (page.status) }
                    id { (link) "#end" }
                    link href=(link) {}
                    updated { (stamp(page.last_action)) }
                    content type="text" { (page.status) }
                }
            }
            @for ply in page.plies.iter().rev().take(ENTRIES) {
                (entry(base, game.name(), game.title(), number, &page.sides[ply.seat.index()].userid, ply))
            }
        }
    })
}

/// `/player/{userid}/feed`.
pub(super) async fn player_feed(
    State(site): State<Arc<Site>>,
    Path(userid): Path<String>,
) -> Result<Response, PageError> {
    let wanted = userid.clone();
    let plies = site
        .reader
        .read(move |ctx| public::player_plies(ctx, &wanted, ENTRIES))
        .await?;
    let userid = userid.to_ascii_lowercase();
    let base = &site.url;
    let link = format!("{base}{}", player_link(&userid));
    let updated = plies
        .first()
        .map_or_else(|| DateTime::<Utc>::UNIX_EPOCH, |(_, p)| p.played_at);
    atom(html! {
        feed xmlns="http://www.w3.org/2005/Atom" {
            title { "The boards of " (userid) }
            id { (link) }
            link rel="self" href=(format!("{link}/feed")) {}
            link rel="alternate" type="text/html" href=(link) {}
            updated { (stamp(updated)) }
            author { name { (site.name) } }
            @for (line, ply) in &plies {
                (entry(base, line.game.name(), line.game.title(), line.board, &line.players[ply.seat.index()], ply))
            }
        }
    })
}
