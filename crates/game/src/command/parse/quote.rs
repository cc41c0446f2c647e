//! What of a line may be repeated: in a refusal's quote,
//! in its sentence and in the log, no word that could be the password.
//!
//! Rulings:
//!
//! - **Words the language knows are quoted**: game names, verbs and their
//!   aliases, and the fixed words of the grammar ([`KEYWORDS`]: `password`,
//!   `all`, `small`, `resign` ...). So are **numbers** (digits only, or a
//!   board with its ply, `101#7`): they stand for boards, plies, days and
//!   limits. To keep that safe, a new password (signup, change password)
//!   may be neither digits only nor a word of the language
//!   ([`password_problem`]); an older account whose password is one keeps
//!   it, and such a password is still masked wherever it stands in its
//!   own password's slot or is verified.
//! - Every other word of a line that the parser refuses is masked
//!   (`*****`), and its sentence names the word by its place ("the third
//!   word should be a board number"), never by its text.
//! - The server quotes a command it read (but refused) under the same rule
//!   until its password is verified: then the line was written by someone
//!   who knows the password, and it is quoted with only the password (and
//!   any word equal to it) masked, as before. Userids the server found on
//!   file are quoted too (see `server::guard`).
//! - **The log** shows only the game, the verb and the board numbers of a
//!   line ([`log_line`]), never its other words.

use super::*;

/// Fixed words of the grammar besides game names and verbs: they may be
/// quoted anywhere.
pub(super) const KEYWORDS: &[&str] = &[
    "password",
    "address",
    "addresses",
    "new",
    "all",
    "active",
    "inactive",
    "next",
    "off",
    "inf",
    "small",
    "large",
    "flip",
    "noflip",
    "reply",
    "noreply",
    "plain",
    "html",
    "resign",
    "propose",
    "undo",
    "accept",
    "reject",
    "pass",
    "draw",
    "multiple",
    "board",
    "show",
];

/// Whether `word` is a word of the language (any case): a game name, a
/// verb or an alias of one, or a keyword of the grammar.
pub fn is_language_word(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    game_name(&w).is_some()
        || KEYWORDS.contains(&w.as_str())
        || GAME_VERBS
            .iter()
            .any(|v| v.name == w || v.aliases.contains(&w.as_str()))
        || ACCOUNT_VERBS
            .iter()
            .any(|v| v.name == w || v.aliases.contains(&w.as_str()))
}

/// Whether `word` is a number as the language writes them: digits, or a
/// board and ply (`101#7`).
fn is_number_word(word: &str) -> bool {
    match word.split_once('#') {
        Some((board, ply)) => is_digits(board) && is_digits(ply),
        None => is_digits(word),
    }
}

/// Whether a word may be repeated in a reply whatever its place: a word
/// of the language, a number, the mask itself, or punctuation alone.
pub fn is_quotable(word: &str) -> bool {
    word == MASK
        || is_language_word(word)
        || is_number_word(word)
        || !word.chars().any(char::is_alphanumeric)
}

/// `quote` with every word that is not [`is_quotable`] (nor `keep`)
/// replaced by `*****`, spacing kept.
pub fn strict_quote(quote: &str, keep: impl Fn(&str) -> bool) -> String {
    let toks = tokenize(quote);
    let mut out = String::with_capacity(quote.len());
    let mut at = 0;
    for t in &toks {
        if !is_quotable(t.text) && !keep(t.text) {
            out.push_str(&quote[at..t.start]);
            out.push_str(MASK);
            at = t.end;
        }
    }
    out.push_str(&quote[at..]);
    out
}

/// The fewest characters of a new password.
pub const MIN_PASSWORD_CHARS: usize = 2;

/// What is wrong with `password` as a new password, if anything: the one
/// rule for what a password may be, for signup, `change password` and the
/// admin CLI (`admin user add|passwd`) alike. It is one word as a mail
/// command reads them (not empty; no white space or control characters,
/// which no command line could carry); digits only, or a word of the
/// language, would be quoted back in replies (see the rulings above); and
/// it has at least `MIN_PASSWORD_CHARS` characters.
pub fn password_problem(password: &str) -> Option<&'static str> {
    if password.is_empty() {
        Some("a password cannot be empty")
    } else if password.chars().count() < MIN_PASSWORD_CHARS {
        Some("a password of one character is guessed at once")
    } else if password
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        Some("a password is one word, with no spaces, as a mail command reads it")
    } else if is_digits(password) {
        Some("a password of digits only would read as a board number")
    } else if is_language_word(password) {
        Some("a password that is a word of the command language would read as that word")
    } else {
        None
    }
}

/// `first` ... `tenth`, then `11th` ...: the place of the word at index `i`.
pub(super) fn ordinal(i: usize) -> String {
    const NAMES: [&str; 10] = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth",
    ];
    if let Some(name) = NAMES.get(i) {
        return name.to_string();
    }
    let n = i + 1;
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Only the game, the verb and the board number(s) of a command line, for
/// the log: `chess move 101` for `chess move 101 alice secret e4`,
/// `signup` for a signup, `chess show 103` for `chess show 103 hunter2`.
/// A line whose first word is no game or command logs as `?`.
pub fn log_line(line: &str) -> String {
    let read = read_part(line);
    let toks = tokenize(read);
    let Some(first) = toks.first().map(|t| t.text.to_ascii_lowercase()) else {
        return String::new();
    };
    if first == "multiple" {
        return first;
    }
    let mut words: Vec<String> = Vec::new();
    let verb_word = if let Some(game) = game_name(&first) {
        words.push(game.to_string());
        match toks.get(1).map(|t| lookup(GAME_VERBS, t.text)) {
            Some(Lookup::Found(v)) => Some(v.name),
            _ => None,
        }
    } else {
        match lookup(ACCOUNT_VERBS, &first) {
            Lookup::Found(v) => Some(v.cmd),
            _ => None,
        }
    };
    let Some(verb) = verb_word else {
        if words.is_empty() {
            words.push("?".to_string());
        }
        return words.join(" ");
    };
    words.push(verb.to_string());
    let boards = match parse_line(read) {
        Ok(parsed) => boards_named(&parsed.command),
        Err(e) => e.board.into_iter().collect(),
    };
    words.extend(boards.iter().map(u32::to_string));
    words.join(" ")
}

/// The board numbers a command names, for the log.
fn boards_named(command: &Command) -> Vec<u32> {
    let Command::Game { command, .. } = command else {
        return Vec::new();
    };
    match command {
        GameCommand::Show { boards } => boards.iter().map(|b| b.board).collect(),
        GameCommand::ShowAs { boards, .. }
        | GameCommand::Subscribe { boards, .. }
        | GameCommand::Unsubscribe { boards, .. }
        | GameCommand::Notify { boards, .. } => boards.clone(),
        GameCommand::Record { board } => vec![*board],
        other => game_command_board(other).into_iter().collect(),
    }
}

/// The order the words of the command on `line` are written in, with
/// places for the words a player fills in (`chess move BOARD USERID
/// PASSWORD MOVE`), for a line whose words are out of order: the game and
/// the verb are looked for among all its words. `None` when the line names
/// no verb that takes a password.
pub fn word_order(line: &str) -> Option<String> {
    let toks = tokenize(read_part(line));
    let game = toks.iter().find_map(|t| game_name(t.text));
    let (example, name) = match game {
        Some(_) => toks.iter().find_map(|t| {
            exact(GAME_VERBS, &t.text.to_ascii_lowercase())
                .filter(|v| v.creds != Creds::None)
                .map(|v| (v.usage.example, v.name))
        })?,
        None => toks.iter().find_map(|t| {
            exact(ACCOUNT_VERBS, &t.text.to_ascii_lowercase())
                .filter(|v| v.creds != Creds::None)
                .map(|v| (v.usage.example, v.name))
        })?,
    };
    let words: Vec<String> = example
        .split_whitespace()
        .map(|w| match w {
            "{g}" => game.unwrap_or("").to_string(),
            "{v}" => name.to_string(),
            "alice" | "richard" | "carol" | "bob" => "USERID".to_string(),
            "secret" | "oldsecret" => "PASSWORD".to_string(),
            "newsecret" => "NEWPASSWORD".to_string(),
            "101" => "BOARD".to_string(),
            "Nf3" => "MOVE".to_string(),
            "K7Q3P9" => "CODE".to_string(),
            w if w.contains('@') => "ADDRESS".to_string(),
            w => w.to_string(),
        })
        .collect();
    Some(words.join(" "))
}
