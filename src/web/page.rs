//! The frame of every page, the error pages, and the few helpers the pages
//! share (links, hidden addresses). Every value goes through maud, which
//! escapes it; only the board's SVG and the rating chart, made by our own
//! code with their text escaped, are put in as they are.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup, DOCTYPE};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Why a page is not shown. Each is a plain page of one sentence; none
/// tells anything of the server's insides.
#[derive(Debug)]
pub(crate) enum PageError {
    /// No such page (the sentence says what is missing).
    NotFound(String),
    /// The database stayed busy: try again in a moment (503).
    Busy,
    /// The client asked too often (429).
    TooMany,
    /// The page took too long to make (503).
    TooSlow,
    /// The request's body is too large (413).
    TooLarge,
    /// Anything else: logged, and the page says only that it failed (500).
    Internal,
}

impl PageError {
    fn status(&self) -> StatusCode {
        match self {
            PageError::NotFound(_) => StatusCode::NOT_FOUND,
            PageError::Busy | PageError::TooSlow => StatusCode::SERVICE_UNAVAILABLE,
            PageError::TooMany => StatusCode::TOO_MANY_REQUESTS,
            PageError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            PageError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn sentence(&self) -> String {
        match self {
            PageError::NotFound(sentence) => sentence.clone(),
            PageError::Busy => "The server is busy; try again in a moment.".into(),
            PageError::TooMany => {
                "Too many requests from your address; wait a minute and try again.".into()
            }
            PageError::TooSlow => "The page took too long to make; try again later.".into(),
            PageError::TooLarge => "The request is too large.".into(),
            PageError::Internal => {
                "Something went wrong on the server; the administrator has been told in its log."
                    .into()
            }
        }
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.status();
        let title = status.canonical_reason().unwrap_or("Error");
        let body = frame(title, None, html! { p { (self.sentence()) } });
        let mut response = (
            status,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body.into_string(),
        )
            .into_response();
        if matches!(
            self,
            PageError::Busy | PageError::TooMany | PageError::TooSlow
        ) {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        }
        response
    }
}

/// The page of an error answered below the pages (a path the router could
/// not read, a body over the bound): the same plain page as the others,
/// with the status kept and the library's words dropped.
pub(crate) fn bare_error(status: StatusCode) -> Response {
    let title = status.canonical_reason().unwrap_or("Error");
    let sentence = if status.is_client_error() {
        "This request cannot be answered; check the address."
    } else {
        "Something went wrong on the server; the administrator has been told in its log."
    };
    let body = frame(title, None, html! { p { (sentence) } });
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        body.into_string(),
    )
        .into_response()
}

/// A page: the title, an optional Atom feed it offers, and its content in
/// the site's frame (navigation, style sheet, the optional script).
pub(crate) fn frame(title: &str, feed: Option<&str>, content: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) }
                link rel="stylesheet" href="/style.css";
                @if let Some(feed) = feed {
                    link rel="alternate" type="application/atom+xml" title="Atom feed" href=(feed);
                }
                script src="/step.js" defer {}
            }
            body {
                header {
                    nav {
                        a href="/" { "Games" }
                        " · "
                        a href="/tournaments" { "Tournaments" }
                        " · "
                        a href="/help" { "Help" }
                    }
                }
                main {
                    h1 { (title) }
                    (content)
                }
            }
        }
    }
}

/// Characters left as they are in a path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.');

/// `text` as one path segment of a link.
pub(crate) fn segment(text: &str) -> String {
    utf8_percent_encode(text, SEGMENT).to_string()
}

pub(crate) fn game_link(game: &str) -> String {
    format!("/game/{}", segment(game))
}

pub(crate) fn board_link(game: &str, board: u32) -> String {
    format!("/game/{}/board/{board}", segment(game))
}

pub(crate) fn ply_link(game: &str, board: u32, ply: u32) -> String {
    format!("{}?ply={ply}", board_link(game, board))
}

pub(crate) fn player_link(userid: &str) -> String {
    format!("/player/{}", segment(userid))
}

pub(crate) fn tournament_link(game: &str, name: &str) -> String {
    format!("/game/{}/tournament/{}", segment(game), segment(name))
}

/// What a player wrote, as the site shows it: every word that looks like
/// a mail address is replaced (ruling: the site shows no mail address at
/// all, not even one a player wrote in a comment).
pub(crate) fn without_addresses(text: &str) -> String {
    crate::server::each_word(text, |word, out| {
        if looks_like_address(word) {
            out.push_str("[address hidden]");
        } else {
            out.push_str(word);
        }
    })
}

/// Whether `word` holds something like a mail address: an `@` with a
/// character before it and a domain after it (a dot followed by a letter).
/// Temporal's drops (`B@Bb3`) have no domain.
pub(crate) fn looks_like_address(word: &str) -> bool {
    word.match_indices('@').any(|(at, _)| {
        let domain = &word[at + 1..];
        at > 0
            && domain.match_indices('.').any(|(dot, _)| {
                dot > 0 && domain[dot + 1..].starts_with(|c: char| c.is_alphabetic())
            })
    })
}

/// A time as the pages write it.
pub(crate) fn when(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_with_an_at_sign_are_hidden_and_the_rest_kept() {
        assert_eq!(
            without_addresses("write me at bob@example.org, or <x@y.org>\n\nthanks"),
            "write me at [address hidden] or [address hidden]\n\nthanks"
        );
        assert_eq!(without_addresses("  e4 wins "), "  e4 wins ");
        // A drop is no address.
        assert_eq!(without_addresses("B@Bb3 K@a1."), "B@Bb3 K@a1.");
        assert_eq!(without_addresses("(a@b.co)"), "[address hidden]");
    }

    #[test]
    fn links_encode_what_is_not_plain() {
        assert_eq!(segment("a b/c"), "a%20b%2Fc");
        assert_eq!(
            tournament_link("chess", "spring-26"),
            "/game/chess/tournament/spring-26"
        );
    }
}
