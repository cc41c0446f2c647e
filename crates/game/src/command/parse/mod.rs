//! The parser proper.
//!
//! Rulings (beyond docs/commands.md §1–2):
//!
//! - A line is cut into words at whitespace. Leading reply/forward markers
//!   (`Re:`, `Fwd:`, `Fw:`, `AW:`, `SV:`, any case, repeated, also with a
//!   count like `Re[2]:`) and trailing `**` words are dropped first; what is
//!   left is the line "as typed" that [`Parsed::masked`] quotes.
//! - Userids must have the shape [`is_valid_userid`] accepts; they are
//!   lower-cased. Game names and verbs are case-insensitive. Passwords are
//!   kept exactly as typed.
//! - Masking: every password word is replaced by `*****`, and so is every
//!   other word equal to a password (ignoring case, as passwords are
//!   compared), so that a password that doubles as a userid or a move never
//!   leaks. When a line fails, the word in the password position of that
//!   verb's grammar is masked, never the userid's (see `guess_passwords`
//!   for the one reading beyond the grammar: a missing board number).
//!   Words are otherwise quoted exactly as sent (`b4` stays `b4`).
//! - The move of `move`/`queue`/`submit` is the rest of the line, words
//!   joined by one space (`reveal c4`). The ply guard is a final `#`
//!   followed by digits only: `Qxf7#7` is `Qxf7` guarded as ply 7, `Qxf7##7`
//!   is `Qxf7#` guarded as ply 7 (the rules accept the mate sign or not),
//!   `Qxf7#` has no guard. A guard of 0 is refused (plies count from 1).
//! - `preview` moves are separated by commas or semicolons when the line
//!   holds any (`preview 101 reveal c4, Nf3`), else by whitespace.
//! - Commands refuse words they do not expect, naming the extra word.
//! - `vacation ... 0` is refused (write `off`); `limit ... 0` is allowed
//!   (take no challenges).
//! - `multiple` bodies: blank lines before the first command are skipped;
//!   after it, the first blank line ends the commands, as do a `-- ` (or
//!   `--`) signature line and a line `end` (any case). Lines starting with
//!   `>` are skipped. A 51st command is answered with an error saying the
//!   limit, and reading stops there. A line ending in `wrote:` (the line a
//!   mail program puts before quoted text) is skipped like a `>` line.
//! - Timers (`--nagtime=N` ...) are whole days, at least 1.
//! - Verbs: one table ([`VERBS`]) holds each verb with its aliases
//!   (pbmserv's `board` for `move`; `qmove`, `qboard`, `moveq`, `boardq`
//!   for `queue`; `sub` for `subscribe`; `ratings` for `standings`). A word
//!   that is no name or alias stands for the verb whose name it begins, if
//!   there is exactly one (`chall`, `prev`, `q`); a prefix of several
//!   (`s`, `re`) is refused naming them all. `signoff` and `delete`, which
//!   end an account, are never abbreviated. Prefixes are of names first,
//!   then of aliases (`mo` is `move`, not `moveq`).
//! - A word that is no game or verb, but within one edit (words of up to
//!   four letters) or two of one, gets "did you mean ...?" with the
//!   nearest, and the line as it would read corrected. A shortened game
//!   name (`double`) is suggested, not taken.
//! - `show board 101` and `preview board 101 ...` read as without `board`.
//! - `preview new [-options] [<move>...]` plays the moves from the game's
//!   start position; game options (as a challenge's) may follow `new`.
//! - `limit <userid> <pw>` and `vacation <userid> <pw>` without their
//!   number ask for the current setting.
//! - An empty Subject (nothing left after `Re:` ...): the first line of
//!   the body that is not blank is read as the command, unless it is a
//!   quote or the signature mark; the comment of that command is the body
//!   after that line ([`Request::body_after_command`]).
//! - Cost bounds: a command is read from at most the first
//!   [`MAX_LINE_BYTES`] of its line (after the markers are dropped). The
//!   line is cut before the word that runs over the bound, and what is
//!   after the cut is not read, nor quoted: no command of the language
//!   needs more (twenty 32-letter userids fit), and a list longer than
//!   `[limits] max_list_items` is refused anyway. A first word longer
//!   than the bound is cut at the bound. A `multiple` mail is read up to
//!   [`MAX_WORDS`] words in all: the line that would pass it is answered
//!   with an error saying so, like a 51st command, and reading stops.
//!   Did-you-mean only weighs candidates whose length is within its edit
//!   budget of the word's, so a huge word costs one pass over it.

use super::{
    game_name, is_valid_userid, BoardAct, BoardFilter, BoardRef, BoardSize, Command, Conditional,
    Credentials, GameCommand, Look, MoveAction, ParseError, Parsed, Password, PreviewFrom, Request,
    Timers, TournamentAction, TournamentCommand, TournamentPlan, GAME_NAMES, RESERVED_USERIDS,
};

/// Most commands one `multiple` mail may hold.
pub const MAX_COMMANDS: usize = 50;

/// The most of one command line that is read, in bytes.
pub const MAX_LINE_BYTES: usize = 1024;

/// The most words all the command lines of one mail may hold.
pub const MAX_WORDS: usize = 1000;

/// Read one mail: its Subject, and for `multiple` its body lines.
pub fn parse_mail(subject: &str, body: &str) -> Request {
    let stripped = strip_line(subject);
    if stripped.is_empty() {
        if let Some((line, after)) = first_body_line(body) {
            return Request {
                multiple: false,
                commands: vec![parse_line(line)],
                body_after_command: Some(after.to_string()),
            };
        }
    }
    if !stripped.eq_ignore_ascii_case("multiple") {
        let command = preview_from_body(stripped, body).unwrap_or_else(|| parse_line(subject));
        return Request {
            multiple: false,
            commands: vec![command],
            body_after_command: None,
        };
    }
    let mut commands = Vec::new();
    let mut words = 0;
    for raw in body.lines() {
        let line = raw.trim();
        if line.starts_with('>') {
            continue;
        }
        if line.is_empty() {
            if commands.is_empty() {
                continue;
            }
            break;
        }
        if line == "--" || line.eq_ignore_ascii_case("end") {
            break;
        }
        if line.to_ascii_lowercase().ends_with("wrote:") {
            continue;
        }
        let parsed = parse_line(line);
        words += cap_line(strip_line(line)).split_whitespace().count();
        let over = if commands.len() == MAX_COMMANDS {
            Some(format!("{MAX_COMMANDS} commands"))
        } else if words > MAX_WORDS {
            Some(format!("{MAX_WORDS} words of commands"))
        } else {
            None
        };
        if let Some(most) = over {
            let (masked, game, board) = match parsed {
                Ok(p) => {
                    let (game, board) = command_game_board(&p.command);
                    (p.masked, game, board)
                }
                Err(e) => (e.masked, e.game, e.board),
            };
            commands.push(Err(ParseError {
                message: format!(
                    "a multiple mail holds at most {most}, so this one and \
                     any after it were not read; send them in another mail."
                ),
                masked,
                game,
                board,
            }));
            break;
        }
        commands.push(parsed);
    }
    Request {
        multiple: true,
        commands,
        body_after_command: None,
    }
}

/// The command line of a mail whose Subject is empty: the first line of
/// the body that is not blank, unless that is a quote (`>`) or the
/// signature mark; and the body after it.
fn first_body_line(body: &str) -> Option<(&str, &str)> {
    let mut rest = body;
    while !rest.is_empty() {
        let (raw, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let line = raw.trim();
        if !line.is_empty() {
            let usable = !line.starts_with('>') && line != "--";
            return usable.then_some((line, after));
        }
        rest = after;
    }
    None
}

/// The part of a command line the parser reads: without reply markers
/// and trailing `**`, and at most [`MAX_LINE_BYTES`] (see the rulings).
/// What a quote of the line masks is judged against this part only.
pub fn read_part(line: &str) -> &str {
    strip_line(cap_line(strip_line(line)))
}

/// A signature line a phone or Outlook adds on its own (no `-- ` above):
/// `Sent from my iPhone`, `Sent from my Galaxy`, `Sent from Outlook for
/// Android`, `Get Outlook for iOS`, `Sent from Mail for Windows`. Short
/// lines only, so a sentence starting with these words stays.
pub fn is_phone_signature(line: &str) -> bool {
    let l = line.trim().to_lowercase();
    let words = l.split_whitespace().count();
    let signed = [
        "sent from my ",
        "sent from outlook for ",
        "get outlook for ",
    ]
    .iter()
    .any(|p| l.starts_with(p))
        || l.starts_with("sent from mail for ");
    signed && words <= 6 && !l.ends_with('.') && !l.ends_with(':')
}

/// A Subject that stops at `preview new` (with options) or `preview N`
/// takes its moves from the body (a pasted game spans lines): the body up
/// to a `-- ` signature or a phone's signature line ([`is_phone_signature`]),
/// without `>` lines and PGN tag pairs, read as PGN ([`pgn::main_line`]) or
/// split at spaces. `None` when the Subject is no such preview or the body
/// is empty (a phone's `Sent from my iPhone` alone is empty), so the
/// Subject is read as it is: `preview new` alone shows the start position.
///
/// Rulings:
/// - The body is read as moves only where it looks like moves: its moves
///   are the first run of words that each hold a digit or are castling
///   (`e4`, `Nf3`, `12.`, `♘f3`, `O-O`); words before the run (`Here is
///   the game:`) and everything from the first word after it that is no
///   move (`e4 e5, what do you think?`) are the player's talk, not read.
///   A body without such a run (`what do you think?`) is refused in one
///   sentence saying that the Subject has no moves, not read as moves.
/// - The body's moves are bounded as a `multiple` body is: at most
///   [`MAX_WORDS`] of them (a game of 500 moves); a longer paste is
///   refused, saying so, and nothing of it is read (the Subject itself
///   is read from its first [`MAX_LINE_BYTES`] only).
fn preview_from_body(subject: &str, body: &str) -> Option<Result<Parsed, ParseError>> {
    let words: Vec<&str> = subject.split_whitespace().collect();
    let at = words
        .iter()
        .rposition(|w| w.eq_ignore_ascii_case("preview"))?;
    let after = &words[at + 1..];
    let stops = match after {
        [n] => n.eq_ignore_ascii_case("new") || n.starts_with(|c: char| c.is_ascii_digit()),
        [n, opts @ ..] => n.eq_ignore_ascii_case("new") && opts.iter().all(|o| o.starts_with('-')),
        [] => false,
    };
    if !stops {
        return None;
    }
    let text: String = body
        .lines()
        .take_while(|l| l.trim_end() != "--" && !is_phone_signature(l))
        .filter(|l| {
            let t = l.trim();
            // Quoted text and PGN tag pairs (`[Event "Casual"]`).
            let tag_pair = t.starts_with('[') && t.ends_with(']');
            !t.starts_with('>') && !tag_pair
        })
        .collect::<Vec<_>>()
        .join("\n");
    let words = pgn::main_line(&text)
        .unwrap_or_else(|| text.split_whitespace().map(str::to_string).collect());
    let talk = words.first()?.clone();
    let moves: Vec<String> = words
        .into_iter()
        .skip_while(|w| !looks_like_a_move(w))
        .take_while(|w| looks_like_a_move(w))
        .collect();
    let command = quoted_command(subject);
    let refuse = |message: String| {
        let (game, board) = match parse_line(subject) {
            Ok(p) => command_game_board(&p.command),
            Err(e) => (e.game, e.board),
        };
        Some(Err(ParseError {
            message,
            masked: read_part(subject).to_string(),
            game,
            board,
        }))
    };
    let Some(first) = moves.first() else {
        return refuse(format!(
            "Your Subject has no moves after {command}, and the body is read as moves only \
             when it holds moves or a pasted game (\"{}\" is no move): write the moves after \
             {command} in the Subject, or alone in the body.",
            clipped(&talk)
        ));
    };
    if moves.len() > MAX_WORDS {
        return refuse(format!(
            "The body holds {} words of moves, more than the {MAX_WORDS} one preview reads, so \
             none were read: preview the game in parts, from a board or with fewer moves.",
            moves.len()
        ));
    }
    let mut parsed = parse_line(&format!("{subject} {first}"));
    if let Ok(Parsed {
        command:
            Command::Game {
                command: GameCommand::Preview { moves: m, .. },
                ..
            },
        masked,
    }) = &mut parsed
    {
        *m = moves;
        // A preview has no password: the quote is the Subject as sent.
        *masked = read_part(subject).to_string();
    }
    Some(parsed)
}

/// Whether a word of a preview's body reads as a move or a move number:
/// it holds a digit (`e4`, `Nf3+`, `12.`, `♘f3`, `e8=Q`), or it is
/// castling (`O-O`, `o-o-o`, `0-0` has digits).
fn looks_like_a_move(word: &str) -> bool {
    let bare = word.trim_end_matches(['+', '#', '!', '?']);
    word.chars().any(|c| c.is_ascii_digit())
        || bare.eq_ignore_ascii_case("o-o")
        || bare.eq_ignore_ascii_case("o-o-o")
}

/// The Subject's words from the game name on, as a refusal names the
/// command (`chess preview new`), cut to a short quote.
fn quoted_command(subject: &str) -> String {
    clipped(read_part(subject).trim())
}

/// A word or line quoted in a refusal: at most 40 characters.
fn clipped(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        out.push_str("...");
    }
    out
}

/// Read one command line (a Subject, or one line of a `multiple` body).
pub fn parse_line(line: &str) -> Result<Parsed, ParseError> {
    let line = read_part(line);
    let toks = tokenize(line);
    let mut p = Parser {
        line,
        toks,
        i: 0,
        pw: Vec::new(),
        guess: Vec::new(),
        game: None,
        board: None,
        cmd: String::new(),
        usage: Usage::NONE,
    };
    let command = p.command()?;
    Ok(p.finish(command))
}

/// The game and board a command names, for error subjects.
fn command_game_board(command: &Command) -> (Option<String>, Option<u32>) {
    match command {
        Command::Game { game, command } => (Some(game.clone()), game_command_board(command)),
        Command::Help { .. }
        | Command::Signup { .. }
        | Command::ChangePassword { .. }
        | Command::ChangeAddress { .. }
        | Command::Signoff { .. }
        | Command::ConfirmAddress { .. }
        | Command::Vacation { .. }
        | Command::ShowVacation { .. }
        | Command::List { .. }
        | Command::Message { .. }
        | Command::Broadcast { .. }
        | Command::AllShow { .. } => (None, None),
    }
}

/// The one board a game command is about, if it names exactly one by its
/// grammar (a listing of boards names none).
fn game_command_board(command: &GameCommand) -> Option<u32> {
    match command {
        GameCommand::OnBoard { board, .. } => Some(*board),
        GameCommand::Preview { from, .. } => match from {
            PreviewFrom::Board(board) => Some(board.board),
            PreviewFrom::Start { .. } => None,
        },
        GameCommand::Help
        | GameCommand::Challenge { .. }
        | GameCommand::Show { .. }
        | GameCommand::ShowUsers { .. }
        | GameCommand::ShowAs { .. }
        | GameCommand::Games { .. }
        | GameCommand::Subscribe { .. }
        | GameCommand::Unsubscribe { .. }
        | GameCommand::Notify { .. }
        | GameCommand::AcceptChallenges { .. }
        | GameCommand::RejectChallenges { .. }
        | GameCommand::Limit { .. }
        | GameCommand::ShowLimit { .. }
        | GameCommand::Set { .. }
        | GameCommand::Standings
        | GameCommand::History
        | GameCommand::Players
        | GameCommand::Seek { .. }
        | GameCommand::Record { .. }
        | GameCommand::Tournament(_) => None,
    }
}

mod account;
mod game;
mod parser;
mod pgn;
mod quote;
mod suggest;
mod table;
mod tournament;
mod words;

use parser::*;
use quote::ordinal;
pub use quote::{
    is_language_word, is_quotable, log_line, password_problem, strict_quote, word_order,
};
use suggest::*;
pub use table::verbs;
use table::*;
pub use tournament::{is_tournament_name, MAX_TOURNAMENT_NAME};
use words::*;

mod reply;
pub use reply::{has_guard, parse_reply};

#[cfg(test)]
mod tests;
