//! The move form: another inbox. A board page's form (userid, password,
//! move, comment) becomes the line `GAME move BOARD USERID PASSWORD MOVE`
//! with the comment as its body, in a mail from the client's own web
//! address, and runs through the server's one pipeline as a mail does:
//! the parser, the guard (wrong passwords counted, lockouts, the argon2id
//! budget), the hourly limits, one transaction, the board mails to the
//! players and observers. What the pipeline answers that address is taken
//! out of the outbox in the same transaction and shown on the page.
//!
//! Rulings (docs/web.md):
//! - only `move`, which carries its password, is taken: the form builds
//!   the line itself, and a field that would add words to it (white space
//!   in the userid or password, a line break, more than a move's words)
//!   is refused before anything runs;
//! - no cookies and no sessions: the password is in each form, so there is
//!   no ambient authority for another site to borrow;
//! - the client's address is the mail's sender, `web-ADDRESS@web.invalid`
//!   (an IPv6 client by its /64): the hourly limits count per client, and
//!   it is no address of any account, so its wrong passwords are counted
//!   and locked out as a stranger's mail's are (the same threshold);
//! - it runs as the move form (`Server::handle_form_within`), not as a
//!   mail: a locked account is refused whichever bucket locked it, and
//!   wrong passwords count per client too (the guard's `lock_of`);
//! - the password is never shown back: the pipeline masks it in what it
//!   answers, and the page shows only that answer.

use std::net::IpAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use maud::html;
use rusqlite::TransactionBehavior;

use super::page::{board_link, frame, PageError};
use super::Site;
use crate::mail::Envelope;
use crate::server::MailOutcome;
use crate::store;

/// The longest userid, password and move a form may carry (in bytes).
const FIELD_BYTES: usize = 128;
/// The longest comment (in bytes).
const COMMENT_BYTES: usize = 4000;

/// The fields of a move form.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct MoveForm {
    pub userid: String,
    pub password: String,
    pub action: String,
    pub comment: String,
}

impl MoveForm {
    /// Read an `application/x-www-form-urlencoded` body; a sentence when
    /// a field is missing or could add words to the command line.
    pub(super) fn read(body: &[u8]) -> Result<MoveForm, String> {
        let mut form = MoveForm::default();
        for (name, value) in url::form_urlencoded::parse(body) {
            let field = match name.as_ref() {
                "userid" => &mut form.userid,
                "password" => &mut form.password,
                "move" => &mut form.action,
                "comment" => &mut form.comment,
                _ => continue,
            };
            *field = value.into_owned();
        }
        if form.action.chars().any(char::is_control) {
            return Err("Give one move, as the list offers it.".into());
        }
        form.userid = form.userid.trim().to_string();
        form.action = form.action.split_whitespace().collect::<Vec<_>>().join(" ");
        // One word, or a decision (`reveal e4`): nothing more.
        let words = form.action.split(' ').count();
        let decision = game::render::is_decision(&form.action);
        let one_word = |v: &str| !v.is_empty() && !v.contains(char::is_whitespace);
        if !one_word(&form.userid) || form.userid.len() > FIELD_BYTES {
            return Err("Give your userid: one word.".into());
        }
        if !one_word(&form.password) || form.password.len() > FIELD_BYTES {
            return Err("Give your password: one word, as in your mail commands.".into());
        }
        if form.action.is_empty()
            || form.action.len() > FIELD_BYTES
            || (words > 1 && !(decision && words == 2))
        {
            return Err("Give one move, as the list offers it.".into());
        }
        if form.comment.len() > COMMENT_BYTES {
            return Err(format!(
                "The comment is too long; keep it under {COMMENT_BYTES} characters."
            ));
        }
        Ok(form)
    }
}

/// The sender address of a web client.
pub(super) fn web_sender(client: IpAddr) -> String {
    let name: String = client
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("web-{name}@web.invalid")
}

/// The mail a form comes to.
fn envelope(sender: &str, line: String, comment: &str) -> Envelope {
    let mut id = [0u8; 16];
    let _ = getrandom::fill(&mut id);
    Envelope {
        message_id: format!("web.{}@web.invalid", crate::hex::encode(&id)),
        sender: Some(sender.to_string()),
        subject: line,
        body: comment.to_string(),
        comment: comment.trim().to_string(),
        never_answer: None,
        replied_to: Vec::new(),
        auth_results: Vec::new(),
    }
}

/// `POST /game/{game}/board/{board}/move`.
pub(super) async fn play(
    State(site): State<Arc<Site>>,
    Path((name, number)): Path<(String, String)>,
    request: Request,
) -> Result<Response, PageError> {
    let game = rules::game(&name)
        .filter(|g| g.name() == name)
        .ok_or_else(|| PageError::NotFound(format!("There is no game called {name}.")))?;
    let number: u32 = number
        .parse()
        .map_err(|_| PageError::NotFound(format!("There is no board {number}.")))?;
    let sender = web_sender(super::guard::client(&request, site.behind_proxy));
    let body: Bytes = axum::body::to_bytes(request.into_body(), super::BODY_BYTES)
        .await
        .map_err(|_| PageError::TooLarge)?;
    let back = board_link(game.name(), number);
    let form = match MoveForm::read(&body) {
        Ok(form) => form,
        Err(sentence) => return Ok(answer_page(&back, 400, &[sentence])),
    };
    let line = format!(
        "{} move {number} {} {} {}",
        game.name(),
        form.userid,
        form.password,
        form.action
    );
    let action_words = form.action.clone();
    let mail = envelope(&sender, line, &form.comment);
    let (outcome, answers) = site
        .reader
        .write(move |server, conn| {
            let raw_len = mail.subject.len() + mail.body.len();
            let mut run = || -> Result<_, crate::server::ServerError> {
                // The site's one writer runs one form at a time: the
                // difference is this form's argon2id work.
                let checks_before = server.credentials.stats().verifications;
                server.prepare_form(conn, &mail, raw_len)?;
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let processed = server.handle_form_within(&tx, &mail, raw_len)?;
                let answers = store::take_queued_to(&tx, &sender)?;
                tx.commit()?;
                let checks = server.credentials.stats().verifications - checks_before;
                log_form(&sender, &processed, checks);
                Ok((processed.outcome, answers))
            };
            run().map_err(|e| {
                tracing::error!(error = %e, "a move form failed");
                PageError::Internal
            })
        })
        .await?;
    let status = match &outcome {
        MailOutcome::Answered { refused: 0, .. } => 200,
        MailOutcome::RateLimited => 429,
        _ => 400,
    };
    // A move played: the board page shows the rest (the board mail to the
    // web's address would tell of comments held back from an unconfirmed
    // address, which means nothing here). A refusal: the server's words.
    let mut texts: Vec<String> = if status == 200 {
        vec![format!(
            "{} played on {} Board {number}; the board went to both players and the observers by mail.",
            action_words,
            game.title()
        )]
    } else {
        answers.into_iter().map(|(_, body)| body).collect()
    };
    if texts.is_empty() {
        texts.push(match outcome {
            MailOutcome::RateLimited => {
                "Too many commands from your address this hour; try again later.".into()
            }
            MailOutcome::Answered { refused: 0, .. } => "Played.".into(),
            _ => "The move was not played.".into(),
        });
    }
    Ok(answer_page(&back, status, &texts))
}

/// The log line of a form run, as the daemon's of a mail (the command
/// with its password masked), with the argon2id verifications it made.
fn log_form(sender: &str, processed: &crate::server::Processed, checks: u64) {
    use crate::limits::log_field;
    let (commands, refused) = match processed.outcome {
        MailOutcome::Answered { commands, refused } => (Some(commands), Some(refused)),
        _ => (None, None),
    };
    tracing::info!(
        sender = %log_field(sender),
        subject = %log_field(&processed.log_subject),
        commands,
        refused,
        argon2id = checks,
        "move form processed"
    );
}

/// What the server answered, as a page.
fn answer_page(back: &str, status: u16, texts: &[String]) -> Response {
    let title = if status == 200 {
        "Move played"
    } else {
        "Move not played"
    };
    let markup = frame(
        title,
        None,
        html! {
            @for text in texts {
                pre.answer { (super::page::without_addresses(text)) }
            }
            p { a href=(back) { "Back to the board" } }
        },
    );
    let code = axum::http::StatusCode::from_u16(status).unwrap_or(axum::http::StatusCode::OK);
    (
        code,
        [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
        markup.into_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_form_is_read_and_nothing_can_add_a_word_to_the_line() {
        let form = MoveForm::read(b"userid=alice&password=pw&move=Nf3&comment=hi+there").unwrap();
        assert_eq!(
            form,
            MoveForm {
                userid: "alice".into(),
                password: "pw".into(),
                action: "Nf3".into(),
                comment: "hi there".into()
            }
        );
        assert!(MoveForm::read(b"userid=alice&password=p+w&move=Nf3").is_err());
        assert!(MoveForm::read(b"userid=al+ice&password=pw&move=Nf3").is_err());
        assert!(MoveForm::read(b"userid=alice&password=pw&move=Nf3+chess+resign+101").is_err());
        assert!(MoveForm::read(b"userid=alice&password=pw&move=Nf3%0Achess").is_err());
        assert!(MoveForm::read(b"userid=alice&password=pw&move=Nf3+Nc6").is_err());
        assert!(MoveForm::read(b"userid=alice&password=pw").is_err());
        // A decision is two words.
        assert_eq!(
            MoveForm::read(b"userid=a&password=p&move=reveal++e4")
                .unwrap()
                .action,
            "reveal e4"
        );
    }

    #[test]
    fn a_client_s_address_becomes_a_sender_of_its_own() {
        assert_eq!(
            web_sender(IpAddr::from([192, 0, 2, 7])),
            "web-192-0-2-7@web.invalid"
        );
        assert_eq!(
            web_sender("2001:db8::".parse().unwrap()),
            "web-2001-db8--@web.invalid"
        );
    }
}
