//! `help [topic...]` and `<game> help`: the help pages (templates
//! `help/<topic>.txt`), with the verbs from the parser's own table.

use minijinja::context;

use super::{Ctx, Handled, Refusal, Reply, Server};
use game::command;

/// What the help pages are rendered with; `address` is where the pages
/// say to write.
fn vars(server: &Server<'_>, address: &str) -> minijinja::Value {
    let games: Vec<_> = rules::registry()
        .iter()
        .map(|g| context! { name => g.name(), title => g.title() })
        .collect();
    // The verbs with their other words, from the parser's own table.
    let verbs = |game: bool| -> Vec<_> {
        command::verbs(game)
            .into_iter()
            .map(|(name, aliases)| context! { name => name, aliases => aliases.to_vec() })
            .collect()
    };
    context! {
        name => &server.config.server.name,
        address => address,
        games => games,
        vacation_days => server.config.timers.vacation_days_per_year,
        observers => server.config.limits.observers_per_board,
        game_verbs => verbs(true),
        account_verbs => verbs(false),
    }
}

/// The help page `topic` (`general`, `commands`, a game's name), saying
/// to write to `address`; `None` when there is no such page.
pub(crate) fn page(server: &Server<'_>, topic: &str, address: &str) -> Handled<Option<String>> {
    let template = format!("help/{topic}.txt");
    if topic.contains(['/', '.']) || !server.templates.has(&template) {
        return Ok(None);
    }
    Ok(Some(
        server.templates.render(&template, vars(server, address))?,
    ))
}

/// `help [topic...]`, `<game> help`.
pub(crate) fn help(ctx: &Ctx<'_>, topics: &[String]) -> Handled<Vec<Reply>> {
    let server = ctx.server;
    let vars = vars(server, &server.config.server.address);
    let topics: Vec<String> = if topics.is_empty() {
        vec!["general".to_string()]
    } else {
        // "help tournaments" is the page of the `tournaments` command too.
        topics
            .iter()
            .map(|t| match t.to_lowercase().as_str() {
                "tournaments" => "tournament".to_string(),
                t => t.to_string(),
            })
            .collect()
    };
    // A stranger gets one page (see `strangers`); the note names the rest.
    let stranger = match ctx.sender {
        Some(sender) => super::strangers::is_stranger(ctx, sender)?,
        None => false,
    };
    let (topics, others) = if stranger && topics.len() > 1 {
        (topics[..1].to_vec(), topics[1..].to_vec())
    } else {
        (topics, Vec::new())
    };
    let mut replies = Vec::new();
    for topic in &topics {
        let template = format!("help/{topic}.txt");
        if topic.contains(['/', '.']) || !server.templates.has(&template) {
            let mut known: Vec<String> = vec![
                "commands".into(),
                "reply".into(),
                "if".into(),
                "tournament".into(),
            ];
            known.extend(
                rules::registry()
                    .iter()
                    .map(|g| g.name().to_string())
                    .filter(|g| server.templates.has(&format!("help/{g}.txt"))),
            );
            return Err(Refusal::new(format!(
                "There is no help on \"{topic}\"; ask for help, or help on one of: {}.",
                known.join(", ")
            ))
            .into());
        }
        let subject = match (topic.as_str(), rules::game(topic)) {
            ("general", _) => format!("Help for {}", server.config.server.name),
            (_, Some(g)) => format!("Help for {}", g.title()),
            (t, None) => format!("Help on {t}"),
        };
        replies.push(Reply {
            to: ctx.sender.unwrap_or_default().to_string(),
            subject,
            body: server.templates.render(&template, vars.clone())?,
            reply_key: None,
            codes: Vec::new(),
            board: None,
            picture: None,
        });
    }
    if !others.is_empty() {
        let note = super::strangers::one_page_note(&others);
        replies.push(ctx.notice(ctx.sender.unwrap_or_default(), "Help", note)?);
    }
    Ok(replies)
}
