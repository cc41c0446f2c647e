//! The pages: each handler reads what it shows through
//! `server::public` (one read transaction) and writes it as HTML.

use std::sync::Arc;

use axum::extract::{Path, RawQuery, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use maud::{html, Markup, PreEscaped};

use super::page::{
    board_link, frame, game_link, player_link, ply_link, tournament_link, when, without_addresses,
    PageError,
};
use super::Site;
use crate::server::public::{self, BoardLine, BoardPage};
use game::render::svg::{svg, Picture};
use game::render::{move_lines, MoveRecord};
use rules::Game;

type Page = Result<Response, PageError>;

fn html_page(markup: Markup) -> Page {
    Ok((
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        markup.into_string(),
    )
        .into_response())
}

/// The game called `name`, or a 404 page.
fn game_named(name: &str) -> Result<&'static dyn Game, PageError> {
    rules::game(name)
        .filter(|g| g.name() == name)
        .ok_or_else(|| PageError::NotFound(format!("There is no game called {name}.")))
}

fn board_number(text: &str) -> Result<u32, PageError> {
    text.parse::<u32>()
        .map_err(|_| PageError::NotFound(format!("There is no board {text}.")))
}

/// `?ply=N` of a board page; anything else in the query is ignored, and
/// a ply that is no number is a 404 page.
fn ply_of(query: Option<&str>) -> Result<Option<u32>, PageError> {
    let Some(query) = query else {
        return Ok(None);
    };
    for pair in query.split('&') {
        if let Some(value) = pair.strip_prefix("ply=") {
            return value
                .parse::<u32>()
                .map(Some)
                .map_err(|_| PageError::NotFound("There is no such ply.".into()));
        }
    }
    Ok(None)
}

/// Whether a board page's query asks for the board from Black's side
/// (`side=black`, as `set ... flip` draws it in the mail).
fn from_black(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|pair| pair == "side=black"))
}

/// `/`: the games, with their boards' counts.
pub(super) async fn index(State(site): State<Arc<Site>>) -> Page {
    let counts = site
        .reader
        .read(|ctx| {
            let mut counts = Vec::new();
            for &game in rules::registry() {
                let boards = public::boards_of_game(ctx, game)?;
                let active = boards.iter().filter(|b| b.active).count();
                counts.push((game, active, boards.len() - active));
            }
            Ok(counts)
        })
        .await?;
    html_page(frame(
        &site.name,
        None,
        html! {
            p { "A play-by-email server for chess variants. Boards are played by mail; here anyone can watch them." }
            table {
                thead { tr { th { "Game" } th { "Active boards" } th { "Finished" } th { "Standings" } } }
                tbody {
                    @for (game, active, finished) in &counts {
                        tr {
                            td { a href=(game_link(game.name())) { (game.title()) } }
                            td.num { (active) }
                            td.num { (finished) }
                            td { a href=(format!("{}/standings", game_link(game.name()))) { "standings" } }
                        }
                    }
                }
            }
        },
    ))
}

fn board_table(lines: &[BoardLine], with_game: bool) -> Markup {
    html! {
        table {
            thead { tr {
                @if with_game { th { "Game" } }
                th { "Board" } th { "White" } th { "Black" } th { "State" } th { "Last action" }
            } }
            tbody {
                @for b in lines {
                    tr {
                        @if with_game { td { (b.game.title()) } }
                        td.num { a href=(board_link(b.game.name(), b.board)) { (b.board) } }
                        td { a href=(player_link(&b.players[0])) { (b.players[0]) } }
                        td { a href=(player_link(&b.players[1])) { (b.players[1]) } }
                        td { (b.state) }
                        td { (when(b.last_action)) }
                    }
                }
            }
        }
    }
}

/// `/game/{game}`: its active and finished boards.
pub(super) async fn game_boards(State(site): State<Arc<Site>>, Path(name): Path<String>) -> Page {
    let game = game_named(&name)?;
    let lines = site
        .reader
        .read(move |ctx| public::boards_of_game(ctx, game))
        .await?;
    let (active, finished): (Vec<BoardLine>, Vec<BoardLine>) =
        lines.into_iter().partition(|b| b.active);
    html_page(frame(
        &format!("{} boards", game.title()),
        None,
        html! {
            p {
                a href=(format!("{}/standings", game_link(game.name()))) { "Standings" }
                " · "
                a href=(format!("/help/{}", game.name())) { "Rules" }
            }
            h2 { "Active boards" }
            @if active.is_empty() { p { "None." } } @else { (board_table(&active, false)) }
            h2 { "Finished boards" }
            @if finished.is_empty() { p { "None." } } @else { (board_table(&finished, false)) }
        },
    ))
}

/// `/game/{game}/board/{board}[?ply=N]`: the board, at ply N or now.
pub(super) async fn board(
    State(site): State<Arc<Site>>,
    Path((name, number)): Path<(String, String)>,
    RawQuery(query): RawQuery,
) -> Page {
    let game = game_named(&name)?;
    let number = board_number(&number)?;
    let at = ply_of(query.as_deref())?;
    let black = from_black(query.as_deref());
    let page = site
        .reader
        .read(move |ctx| public::board_page(ctx, game, number, at))
        .await?;
    html_page(board_view(&page, black))
}

fn picture(page: &BoardPage, from_black: bool) -> String {
    let caption = match &page.to_act {
        Some((who, true)) => format!(
            "{} Board {}: {who} to decide",
            page.game.title(),
            page.board
        ),
        Some((who, false)) => format!("{} Board {}: {who} to move", page.game.title(), page.board),
        None => format!("{} Board {}", page.game.title(), page.board),
    };
    svg(
        &page.diagram,
        &Picture {
            caption,
            description: page.position_text.clone(),
            from_black,
            marks: page.last_move.clone(),
        },
    )
}

fn board_view(page: &BoardPage, black: bool) -> Markup {
    let (game, number) = (page.game.name(), page.board);
    let title = format!("{} Board {number}", page.game.title());
    let feed = format!("{}/feed", board_link(game, number));
    // Links within the board keep the side it is drawn from.
    let side = if black { "&side=black" } else { "" };
    let at = |ply: u32| format!("{}{side}", ply_link(game, number, ply));
    let now = if black {
        format!("{}?side=black", board_link(game, number))
    } else {
        board_link(game, number)
    };
    let turned = if black {
        ply_link(game, number, page.shown)
    } else {
        format!("{}&side=black", ply_link(game, number, page.shown))
    };
    let records: Vec<MoveRecord> = page
        .plies
        .iter()
        .map(crate::server::public::record)
        .collect();
    let lines = move_lines(&records);
    let cell = |plies: &[&MoveRecord]| -> Markup {
        html! {
            @for (i, p) in plies.iter().enumerate() {
                @if i > 0 { " " }
                @if p.ply == page.shown {
                    a.current href=(at(p.ply)) aria-current="true" { (p.notation) }
                } @else {
                    a href=(at(p.ply)) { (p.notation) }
                }
                @if !p.mark.is_empty() { " " span.mark { (p.mark) } }
                @for e in &p.events { br; span.event { (e) } }
            }
        }
    };
    let comments: Vec<_> = page
        .plies
        .iter()
        .filter(|p| !p.comment.trim().is_empty())
        .collect();
    let content = html! {
        (frame_header(page))
        @if page.shown < page.played {
            p.historic {
                "The position after ply " (page.shown) " of " (page.played) ". "
                a href=(now) { "The board now" }
            }
        }
        p.status {
            @if page.shown < page.played { "Now: " }
            (page.status)
        }
        // Whose turn it was then (the status line says whose it is now).
        @if let Some((who, decision)) = page.to_act.as_ref().filter(|_| page.shown < page.played) {
            p.turn {
                "Then "
                a href=(player_link(who)) { (who) }
                @if *decision { " to decide." } @else { " to move." }
            }
        }
        @if let Some(computer) = &page.computer { p { (computer) } }
        figure.board {
            (PreEscaped(picture(page, black)))
        }
        nav.step aria-label="Step through the moves" {
            @if page.shown > 0 {
                a href=(at(0)) { "|< start" } " "
                a rel="prev" href=(at(page.shown - 1)) { "< back" } " "
            }
            @if page.shown < page.played {
                a rel="next" href=(at(page.shown + 1)) { "forward >" } " "
                a href=(now) { "now >|" }
            }
        }
        p.side {
            a href=(turned) {
                @if black { "The board from White's side" } @else { "The board from Black's side" }
            }
        }
        @if !page.legal.is_empty() {
            (move_form(page))
        }
        h2 { "Moves" }
        @if lines.is_empty() {
            p { "No moves yet." }
        } @else {
            table.moves {
                thead { tr { th { "#" } th { "White" } th { "Black" } } }
                tbody {
                    @for (n, white, black) in &lines {
                        tr {
                            td.num { (n) "." }
                            td { @if white.is_empty() { "..." } @else { (cell(white)) } }
                            td { (cell(black)) }
                        }
                    }
                }
            }
        }
        @if !comments.is_empty() {
            h2 { "Comments" }
            dl.comments {
                @for p in &comments {
                    dt {
                        a href=(at(p.ply)) { "Ply " (p.ply) }
                        " (" (page.sides[p.seat.index()].userid) ")"
                    }
                    dd { (without_addresses(&p.comment)) }
                }
            }
        }
        p {
            "Observers: " (page.observers) ". "
            "Started " (when(page.started)) "; "
            @if page.active { "last action " } @else { "ended " }
            (when(page.last_action)) "."
        }
        p {
            a href=(format!("{}/pgn", board_link(game, number))) download=(format!("{game}-{number}.pgn")) { "Game record (PGN)" }
            " · "
            a href=(feed) { "Atom feed" }
        }
    };
    frame(&title, Some(&feed), content)
}

/// The move form of an active board (see `form`): it posts the same
/// command a mail would carry; nothing is kept between two forms.
fn move_form(page: &BoardPage) -> Markup {
    let action = format!("{}/move", board_link(page.game.name(), page.board));
    html! {
        form.play method="post" action=(action) autocomplete="off" {
            fieldset {
                legend { "Play a move" }
                label { "Userid " input name="userid" required maxlength="64" autocomplete="username"; }
                " "
                label { "Password " input type="password" name="password" required maxlength="128" autocomplete="current-password"; }
                " "
                label { "Move " input name="move" list="legal" required maxlength="64"; }
                datalist id="legal" {
                    @for a in &page.legal { option value=(a) {} }
                    // The special moves the mail's `move` takes too.
                    @for special in ["resign", "propose", "accept", "reject", "undo"] {
                        option value=(special) {}
                    }
                }
                br;
                label { "Comment (optional) " br; textarea name="comment" rows="3" cols="60" maxlength="4000" {} }
                br;
                button type="submit" { "Play" }
            }
        }
    }
}

/// The players and the event above a board.
fn frame_header(page: &BoardPage) -> Markup {
    html! {
        p.players {
            @for (i, side) in page.sides.iter().enumerate() {
                @if i > 0 { " against " }
                a href=(player_link(&side.userid)) { (side.userid) }
                " (" (side.colour) ", " (side.rating)
                @if side.provisional { ", provisional" }
                ")"
            }
        }
        @if let Some((name, round)) = &page.event {
            p { "Tournament " a href=(tournament_link(page.game.name(), name)) { (name) } ", round " (round) "." }
        }
        @if !page.options.is_empty() {
            p { "Options: " (page.options.join(" ")) }
        }
    }
}

fn text_response(content_type: &'static str, name: Option<String>, body: String) -> Page {
    let mut response = ([(header::CONTENT_TYPE, content_type)], body).into_response();
    if let Some(name) = name {
        if let Ok(value) = format!("attachment; filename=\"{name}\"").parse() {
            response
                .headers_mut()
                .insert(header::CONTENT_DISPOSITION, value);
        }
    }
    Ok(response)
}

/// `/game/{game}/board/{board}/pgn`: the game record.
pub(super) async fn board_pgn(
    State(site): State<Arc<Site>>,
    Path((name, number)): Path<(String, String)>,
) -> Page {
    let game = game_named(&name)?;
    let number = board_number(&number)?;
    let record = site
        .reader
        .read(move |ctx| public::board_record(ctx, game, number))
        .await?;
    text_response(
        "application/x-chess-pgn; charset=utf-8",
        Some(format!("{}-{number}.pgn", game.name())),
        record,
    )
}

/// `/game/{game}/standings`.
pub(super) async fn standings(State(site): State<Arc<Site>>, Path(name): Path<String>) -> Page {
    let game = game_named(&name)?;
    let rows = site
        .reader
        .read(move |ctx| public::standings(ctx, game))
        .await?;
    html_page(frame(
        &format!("{} standings", game.title()),
        None,
        html! {
            @if rows.is_empty() {
                p { "No one has finished a rated game yet." }
            } @else {
                table {
                    thead { tr { th { "#" } th { "Player" } th { "Rating" } th { "Games" } th { "Won" } th { "Lost" } th { "Tied" } } }
                    tbody {
                        @for (i, s) in rows.iter().enumerate() {
                            tr {
                                td.num { (i + 1) }
                                td { a href=(player_link(&s.userid)) { (s.userid) } }
                                td.num { (s.rating.rating) }
                                td.num { (s.rating.games) }
                                td.num { (s.won) }
                                td.num { (s.lost) }
                                td.num { (s.tied) }
                            }
                        }
                    }
                }
            }
        },
    ))
}

/// `/player/{userid}`: boards, results, rating history.
pub(super) async fn player(State(site): State<Arc<Site>>, Path(userid): Path<String>) -> Page {
    let page = site
        .reader
        .read(move |ctx| public::player_page(ctx, &userid))
        .await?;
    let feed = format!("{}/feed", player_link(&page.userid));
    let (active, finished): (Vec<BoardLine>, Vec<BoardLine>) =
        page.boards.iter().cloned().partition(|b| b.active);
    html_page(frame(
        &format!("Player {}", page.userid),
        Some(&feed),
        html! {
            h2 { "Results" }
            @if page.records.is_empty() {
                p { "No finished games yet." }
            } @else {
                table {
                    thead { tr { th { "Game" } th { "Rating" } th { "Rated games" } th { "Won" } th { "Lost" } th { "Tied" } } }
                    tbody {
                        @for r in &page.records {
                            tr {
                                td { a href=(game_link(r.game.name())) { (r.game.title()) } }
                                td.num { @if let Some(rating) = r.rating { (rating.rating) } @else { "-" } }
                                td.num { @if let Some(rating) = r.rating { (rating.games) } @else { "0" } }
                                td.num { (r.won) }
                                td.num { (r.lost) }
                                td.num { (r.tied) }
                            }
                        }
                    }
                }
            }
            h2 { "Rating history" }
            (super::chart::rating_chart(&page.history))
            h2 { "Active boards" }
            @if active.is_empty() { p { "None." } } @else { (board_table(&active, true)) }
            h2 { "Finished boards" }
            @if finished.is_empty() { p { "None." } } @else { (board_table(&finished, true)) }
            p { a href=(feed) { "Atom feed" } }
        },
    ))
}

/// `/tournaments`: every tournament.
pub(super) async fn tournaments(State(site): State<Arc<Site>>) -> Page {
    let lines = site.reader.read(public::tournaments).await?;
    html_page(frame(
        "Tournaments",
        None,
        html! {
            @if lines.is_empty() {
                p { "There are no tournaments." }
            } @else {
                table {
                    thead { tr { th { "Game" } th { "Name" } th { "Kind" } th { "State" } } }
                    tbody {
                        @for t in &lines {
                            tr {
                                td { (t.game.title()) }
                                td { a href=(tournament_link(t.game.name(), &t.name)) { (t.name) } }
                                td { (t.described) }
                                td { (t.state) }
                            }
                        }
                    }
                }
            }
        },
    ))
}

/// `/game/{game}/tournament/{name}`: crosstable and rounds.
pub(super) async fn tournament(
    State(site): State<Arc<Site>>,
    Path((name, tournament)): Path<(String, String)>,
) -> Page {
    let game = game_named(&name)?;
    let page = site
        .reader
        .read(move |ctx| public::tournament_page(ctx, game, &tournament))
        .await?;
    let link = tournament_link(game.name(), &page.name);
    html_page(frame(
        &format!("{} tournament {}", game.title(), page.name),
        None,
        html! {
            p { (page.described) "; " (page.state) "." }
            @if !page.note.is_empty() { p { (without_addresses(&page.note)) } }
            h2 { "Players" }
            @if page.entrants.is_empty() {
                p { "No one has joined yet." }
            } @else {
                p {
                    @for (i, e) in page.entrants.iter().enumerate() {
                        @if i > 0 { ", " }
                        a href=(player_link(e)) { (e) }
                    }
                }
            }
            @if !page.crosstable.is_empty() {
                h2 { "Crosstable" }
                pre.crosstable { (page.crosstable.join("\n")) }
            }
            @if !page.rounds.is_empty() {
                h2 { "Rounds" }
                table {
                    thead { tr { th { "Round" } th { "White" } th { "Black" } th { "Board" } th { "Result" } } }
                    tbody {
                        @for g in &page.rounds {
                            tr {
                                td.num { (g.round) }
                                td { a href=(player_link(&g.white)) { (g.white) } }
                                td { a href=(player_link(&g.black)) { (g.black) } }
                                td.num {
                                    @if let Some(b) = g.board { a href=(board_link(game.name(), b)) { (b) } } @else { "-" }
                                }
                                td { (g.result) }
                            }
                        }
                    }
                }
            }
            @if !page.byes.is_empty() {
                p {
                    "Byes: "
                    @for (i, (round, who)) in page.byes.iter().enumerate() {
                        @if i > 0 { ", " }
                        (who) " (round " (round) ")"
                    }
                }
            }
            p { a href=(format!("{link}/pgn")) { "All games (PGN)" } }
        },
    ))
}

/// `/game/{game}/tournament/{name}/pgn`.
pub(super) async fn tournament_pgn(
    State(site): State<Arc<Site>>,
    Path((name, tournament)): Path<(String, String)>,
) -> Page {
    let game = game_named(&name)?;
    let file = format!("{}-{}.pgn", game.name(), super::page::segment(&tournament));
    let record = site
        .reader
        .read(move |ctx| public::tournament_record(ctx, game, &tournament))
        .await?;
    text_response("application/x-chess-pgn; charset=utf-8", Some(file), record)
}

/// `/help` and `/help/{topic}`: the help pages, as the mail sends them.
pub(super) async fn help_index(State(site): State<Arc<Site>>) -> Page {
    help_topic(State(site), Path("general".to_string())).await
}

pub(super) async fn help_topic(State(site): State<Arc<Site>>, Path(topic): Path<String>) -> Page {
    let wanted = topic.clone();
    let (text, topics) = site
        .reader
        .read(move |ctx| Ok((public::help_page(ctx, &wanted)?, public::help_topics(ctx))))
        .await?;
    let Some(text) = text else {
        return Err(PageError::NotFound(format!("There is no help on {topic}.")));
    };
    html_page(frame(
        &format!("Help: {topic}"),
        None,
        html! {
            nav.topics {
                @for (i, t) in topics.iter().enumerate() {
                    @if i > 0 { " · " }
                    a href=(format!("/help/{t}")) { (t) }
                }
            }
            pre.help { (text) }
        },
    ))
}

/// Any other path.
pub(super) async fn not_found() -> PageError {
    PageError::NotFound("There is no such page.".into())
}

/// A method the path does not take.
pub(super) async fn not_allowed() -> Response {
    let mut response = PageError::NotFound("This page is only read (GET).".into()).into_response();
    *response.status_mut() = axum::http::StatusCode::METHOD_NOT_ALLOWED;
    response
}
