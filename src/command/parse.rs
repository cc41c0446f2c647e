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
//! - Cost bounds (issue #32): a command is read from at most the first
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
    game_name, is_valid_userid, BoardFilter, BoardRef, BoardSize, Command, Credentials,
    GameCommand, Look, MoveAction, ParseError, Parsed, Password, PreviewFrom, Request, Timers,
    GAME_NAMES, RESERVED_USERIDS,
};

/// Most commands one `multiple` mail may hold.
pub const MAX_COMMANDS: usize = 50;

/// The most of one command line that is read, in bytes.
pub const MAX_LINE_BYTES: usize = 1024;

/// The most words all the command lines of one mail may hold.
pub const MAX_WORDS: usize = 1000;

/// The text that replaces a password word.
const MASK: &str = "*****";

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
        return Request {
            multiple: false,
            commands: vec![parse_line(subject)],
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
        Command::Game { game, command } => {
            let board = match command {
                GameCommand::Move { board, .. }
                | GameCommand::Queue { board, .. }
                | GameCommand::Resign { board, .. }
                | GameCommand::Submit { board, .. }
                | GameCommand::Confirm { board, .. }
                | GameCommand::Chat { board, .. } => Some(*board),
                GameCommand::Preview {
                    from: PreviewFrom::Board(board),
                    ..
                } => Some(board.board),
                _ => None,
            };
            (Some(game.clone()), board)
        }
        _ => (None, None),
    }
}

// ---------------------------------------------------------------- words

/// Drop reply markers in front and `**` words at the end; trim.
fn strip_line(line: &str) -> &str {
    let mut s = line.trim();
    while let Some(rest) = strip_marker(s) {
        s = rest.trim_start();
    }
    loop {
        let t = s.trim_end();
        match t.strip_suffix("**") {
            Some(head) if head.is_empty() || head.ends_with(char::is_whitespace) => {
                s = head.trim_end();
            }
            _ => return t,
        }
    }
}

/// The part of a command line that is read: at most [`MAX_LINE_BYTES`],
/// cut before the word that runs over them (a first word that long is cut
/// at the bound, on a character boundary).
fn cap_line(line: &str) -> &str {
    if line.len() <= MAX_LINE_BYTES {
        return line;
    }
    let mut end = MAX_LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    if line[end..].starts_with(char::is_whitespace) {
        return &line[..end];
    }
    match line[..end].rfind(char::is_whitespace) {
        Some(space) => &line[..space],
        None => &line[..end],
    }
}

/// `Re:`, `fwd:`, `AW:`, `Re[2]:` ... at the start of `s`: the text after it.
fn strip_marker(s: &str) -> Option<&str> {
    let word_end = s
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(s.len());
    let word = &s[..word_end];
    if !["re", "fwd", "fw", "aw", "sv"]
        .iter()
        .any(|m| m.eq_ignore_ascii_case(word))
    {
        return None;
    }
    let mut rest = &s[word_end..];
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(inner) = rest.strip_prefix(open) {
            let digits = inner.find(|c: char| !c.is_ascii_digit())?;
            rest = inner[digits..].strip_prefix(close)?;
            break;
        }
    }
    rest.strip_prefix(':')
}

#[derive(Clone, Copy, Debug)]
struct Tok<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

fn tokenize(line: &str) -> Vec<Tok<'_>> {
    let mut toks = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                toks.push(Tok {
                    text: &line[s..i],
                    start: s,
                    end: i,
                });
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        toks.push(Tok {
            text: &line[s..],
            start: s,
            end: line.len(),
        });
    }
    toks
}

/// `line` with the words at `idxs`, and every word equal to one of them
/// (ignoring case), replaced by `*****`.
fn mask(line: &str, toks: &[Tok<'_>], idxs: &[usize]) -> String {
    let secrets: Vec<&str> = idxs
        .iter()
        .filter_map(|&i| toks.get(i))
        .map(|t| t.text)
        .collect();
    let mut out = String::with_capacity(line.len());
    let mut at = 0;
    for t in toks {
        if secrets.iter().any(|s| s.eq_ignore_ascii_case(t.text)) {
            out.push_str(&line[at..t.start]);
            out.push_str(MASK);
            at = t.end;
        }
    }
    out.push_str(&line[at..]);
    out
}

fn is_digits(word: &str) -> bool {
    !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit())
}

fn looks_numeric(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_digit())
}

fn filter_word(word: &str) -> Option<BoardFilter> {
    match word.to_ascii_lowercase().as_str() {
        "all" => Some(BoardFilter::All),
        "active" => Some(BoardFilter::Active),
        "inactive" => Some(BoardFilter::Inactive),
        "next" => Some(BoardFilter::Next),
        _ => None,
    }
}

/// Split a final `#N` ply guard off a move text.
fn split_guard(text: &str) -> (&str, Option<&str>) {
    if let Some(idx) = text.rfind('#') {
        let tail = &text[idx + 1..];
        if is_digits(tail) {
            return (text[..idx].trim_end(), Some(tail));
        }
    }
    (text, None)
}

// ---------------------------------------------------------------- verbs

/// What a verb needs, for error messages. `{g}` stands for the game name,
/// `{v}` for the verb.
#[derive(Clone, Copy)]
struct Usage {
    needs: &'static str,
    example: &'static str,
}

impl Usage {
    const NONE: Usage = Usage {
        needs: "",
        example: "",
    };
}

/// Where a verb's password stands, for masking lines that fail.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Creds {
    /// No password.
    None,
    /// `<verb> <userid> <password> ...`
    First,
    /// `<verb> <board> <userid> <password> ...`, with at least this many
    /// words after the verb.
    AfterBoard(usize),
    /// `<verb> <board>...|all <userid> <password>`
    AfterBoards,
    /// `change password|address <userid> <password> [<new>]`
    Change,
}

/// Whether a verb follows a game name or stands first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Game,
    Account,
}

/// One verb of the language. [`VERBS`] is the one list that reading,
/// prefix matching, "did you mean" and the lists in messages (and, through
/// [`verbs`], the help page) all use.
struct Verb {
    name: &'static str,
    scope: Scope,
    /// Other words for the verb: pbmserv's habits (`board` for `move`).
    aliases: &'static [&'static str],
    /// Whether a unique prefix of the name stands for it. Not for the
    /// verbs that end an account: those are written in full.
    prefix: bool,
    usage: Usage,
    creds: Creds,
}

const MOVE_USAGE: Usage = Usage {
    needs: "a board number, your userid, your password and a move",
    example: "{g} {v} 101 alice secret Nf3",
};
const BOARD_CREDS: Usage = Usage {
    needs: "a board number, your userid and your password",
    example: "{g} {v} 101 alice secret",
};
const CREDS: Usage = Usage {
    needs: "your userid and your password",
    example: "{g} {v} alice secret",
};
const NOTHING: Usage = Usage {
    needs: "",
    example: "{g} {v}",
};

const fn verb(
    name: &'static str,
    scope: Scope,
    aliases: &'static [&'static str],
    usage: Usage,
    creds: Creds,
) -> Verb {
    Verb {
        name,
        scope,
        aliases,
        prefix: true,
        usage,
        creds,
    }
}

/// Every verb, game verbs first, in the order messages list them.
const VERBS: &[Verb] = &[
    verb("help", Scope::Game, &[], NOTHING, Creds::None),
    verb(
        "challenge",
        Scope::Game,
        &[],
        Usage {
            needs: "the userids of the two players, White first",
            example: "{g} challenge alice bob",
        },
        Creds::None,
    ),
    verb(
        "move",
        Scope::Game,
        &["board"],
        MOVE_USAGE,
        Creds::AfterBoard(4),
    ),
    verb(
        "queue",
        Scope::Game,
        &["qmove", "qboard", "moveq", "boardq"],
        MOVE_USAGE,
        Creds::AfterBoard(4),
    ),
    verb(
        "resign",
        Scope::Game,
        &[],
        BOARD_CREDS,
        Creds::AfterBoard(3),
    ),
    verb("submit", Scope::Game, &[], MOVE_USAGE, Creds::AfterBoard(4)),
    verb(
        "confirm",
        Scope::Game,
        &[],
        BOARD_CREDS,
        Creds::AfterBoard(3),
    ),
    verb(
        "preview",
        Scope::Game,
        &[],
        Usage {
            needs: "a board number (or new, for the start position) and moves",
            example: "{g} preview 101 e4 e5 Nf3",
        },
        Creds::None,
    ),
    verb(
        "show",
        Scope::Game,
        &[],
        Usage {
            needs: "board numbers, or userids and optionally all, active, inactive or next",
            example: "{g} show 101 102#7 or {g} show alice next",
        },
        Creds::None,
    ),
    verb(
        "showas",
        Scope::Game,
        &[],
        Usage {
            needs: "your userid, your password and board numbers or one of all, active, \
                    inactive or next",
            example: "{g} showas alice secret 101",
        },
        Creds::First,
    ),
    verb(
        "games",
        Scope::Game,
        &[],
        Usage {
            needs: "userids (or none for everyone) and optionally all, active, inactive or next",
            example: "{g} games alice active",
        },
        Creds::None,
    ),
    verb("chat", Scope::Game, &[], BOARD_CREDS, Creds::AfterBoard(3)),
    verb(
        "subscribe",
        Scope::Game,
        // pbmserv's short form, although `submit` starts alike.
        &["sub"],
        Usage {
            needs: "a board number (or all), your userid and your password",
            example: "{g} {v} 101 alice secret",
        },
        Creds::AfterBoards,
    ),
    verb(
        "unsubscribe",
        Scope::Game,
        &[],
        Usage {
            needs: "a board number (or all), your userid and your password",
            example: "{g} {v} 101 alice secret",
        },
        Creds::AfterBoards,
    ),
    verb(
        "notify",
        Scope::Game,
        &[],
        Usage {
            needs: "your userid, your password and board numbers (or none for all your boards)",
            example: "{g} notify alice secret 101",
        },
        Creds::First,
    ),
    verb("accept", Scope::Game, &[], CREDS, Creds::First),
    verb("reject", Scope::Game, &[], CREDS, Creds::First),
    verb(
        "limit",
        Scope::Game,
        &[],
        Usage {
            needs: "your userid, your password and a number of boards or inf (or nothing, to \
                    see your limit)",
            example: "{g} limit alice secret 5",
        },
        Creds::First,
    ),
    verb(
        "set",
        Scope::Game,
        &[],
        Usage {
            needs: "your userid, your password and small, large, flip, noflip, reply, noreply, \
                    plain or html",
            example: "{g} set alice secret small",
        },
        Creds::First,
    ),
    verb("standings", Scope::Game, &["ratings"], NOTHING, Creds::None),
    verb("history", Scope::Game, &[], NOTHING, Creds::None),
    verb("players", Scope::Game, &["users"], NOTHING, Creds::None),
    verb(
        "pgn",
        Scope::Game,
        &[],
        Usage {
            needs: "a board number",
            example: "{g} pgn 101",
        },
        Creds::None,
    ),
    verb(
        "seek",
        Scope::Game,
        &[],
        Usage {
            needs: "your userid and your password, and a note for your opponent if you like",
            example: "{g} seek alice secret evenings only",
        },
        Creds::First,
    ),
    verb(
        "help",
        Scope::Account,
        &[],
        Usage {
            needs: "",
            example: "help chess",
        },
        Creds::None,
    ),
    verb(
        "signup",
        Scope::Account,
        &[],
        Usage {
            needs: "a userid, a password and optionally your mail addresses",
            example: "signup alice secret alice@example.org",
        },
        Creds::First,
    ),
    verb(
        "change",
        Scope::Account,
        &[],
        Usage {
            needs: "password or address, your userid, your password and the new password or \
                    addresses",
            example: "change password alice oldsecret newsecret",
        },
        Creds::Change,
    ),
    verb(
        "confirm",
        Scope::Account,
        &[],
        Usage {
            needs: "address, your userid and the code of the confirmation mail",
            example: "confirm address alice K7Q3P9",
        },
        Creds::Change,
    ),
    Verb {
        prefix: false,
        ..verb(
            "signoff",
            Scope::Account,
            &[],
            Usage {
                needs: "your userid and your password",
                example: "{v} alice secret",
            },
            Creds::First,
        )
    },
    Verb {
        prefix: false,
        ..verb(
            "delete",
            Scope::Account,
            &[],
            Usage {
                needs: "your userid and your password",
                example: "{v} alice secret",
            },
            Creds::First,
        )
    },
    verb(
        "vacation",
        Scope::Account,
        &[],
        Usage {
            needs: "your userid, your password and a number of days or off (or nothing, to see \
                    your days left)",
            example: "vacation alice secret 14",
        },
        Creds::First,
    ),
    verb(
        "list",
        Scope::Account,
        &[],
        Usage {
            needs: "game names, or nothing for all games",
            example: "list chess",
        },
        Creds::None,
    ),
    verb(
        "message",
        Scope::Account,
        &[],
        Usage {
            needs: "your userid, your password and the userids to write to",
            example: "message alice secret bob",
        },
        Creds::First,
    ),
    verb(
        "broadcast",
        Scope::Account,
        &[],
        Usage {
            needs: "your userid and your password (the message is the body)",
            example: "broadcast richard secret",
        },
        Creds::First,
    ),
    verb(
        "all",
        Scope::Account,
        &[],
        Usage {
            needs: "a userid and optionally next or active",
            example: "all show alice next",
        },
        Creds::None,
    ),
];

/// The verbs of one scope, in table order.
fn scoped(scope: Scope) -> impl Iterator<Item = &'static Verb> {
    VERBS.iter().filter(move |v| v.scope == scope)
}

/// The names of one scope's verbs, for messages.
fn verb_names(scope: Scope) -> Vec<&'static str> {
    scoped(scope).map(|v| v.name).collect()
}

/// The game verbs (`game` true) or account verbs with their aliases, in the
/// order help lists them; the help page is rendered from this.
pub fn verbs(game: bool) -> Vec<(&'static str, &'static [&'static str])> {
    let scope = if game { Scope::Game } else { Scope::Account };
    scoped(scope).map(|v| (v.name, v.aliases)).collect()
}

/// What a word names among the verbs of a scope.
enum Lookup {
    Found(&'static Verb),
    /// A prefix of several verbs (their names).
    Ambiguous(Vec<&'static str>),
    /// A prefix of a verb that must be written in full.
    InFull(&'static Verb),
    Unknown,
}

/// Find a verb by its name or an alias (any case), else by a prefix of
/// names, else by a prefix of aliases; a prefix must name one verb.
fn lookup(scope: Scope, word: &str) -> Lookup {
    let w = word.to_ascii_lowercase();
    if let Some(v) = scoped(scope).find(|v| v.name == w || v.aliases.contains(&w.as_str())) {
        return Lookup::Found(v);
    }
    let mut by_name: Vec<&Verb> = scoped(scope).filter(|v| v.name.starts_with(&w)).collect();
    if by_name.is_empty() {
        by_name = scoped(scope)
            .filter(|v| v.aliases.iter().any(|a| a.starts_with(&w)))
            .collect();
    }
    match by_name[..] {
        [] => Lookup::Unknown,
        [v] if v.prefix => Lookup::Found(v),
        [v] => Lookup::InFull(v),
        _ => Lookup::Ambiguous(by_name.iter().map(|v| v.name).collect()),
    }
}

/// The verb `word` names exactly (name or alias), if any.
fn exact(scope: Scope, word: &str) -> Option<&'static Verb> {
    match lookup(scope, word) {
        Lookup::Found(v) if v.name == word || v.aliases.contains(&word) => Some(v),
        _ => None,
    }
}

/// Edit distance (optimal string alignment: insertions, deletions,
/// substitutions and swaps of neighbours count one each), ignoring case.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// The candidate nearest to `word`, when it is close enough to be a typo:
/// one edit for words of up to four letters, two for longer ones (never
/// more than a third of the candidate). Ties go to the earlier candidate.
/// A candidate whose length differs from the word's by more than that
/// budget cannot be within it and is not weighed: a huge word costs one
/// count of its characters, never an edit distance.
fn nearest<'c>(word: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let len = word.chars().count();
    let most = if len <= 4 { 1 } else { 2 };
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if len.abs_diff(c.chars().count()) > most {
            continue;
        }
        let d = distance(word, c);
        if d == 0 || d > most || d * 3 > c.chars().count() {
            continue;
        }
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// The verb of a scope a mistyped word most likely meant (name or alias).
fn suggest_verb(scope: Scope, word: &str) -> Option<&'static str> {
    nearest(
        word,
        scoped(scope).flat_map(|v| std::iter::once(v.name).chain(v.aliases.iter().copied())),
    )
}

/// The game a mistyped or shortened game name most likely meant: the one
/// game it is a prefix of, else the nearest.
fn suggest_game(word: &str) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    let starting: Vec<&str> = GAME_NAMES
        .iter()
        .copied()
        .filter(|g| g.starts_with(&w))
        .collect();
    if let [one] = starting[..] {
        return Some(one);
    }
    nearest(&w, GAME_NAMES.iter().copied())
}

/// The words `<game> set <userid> <password> WORD` takes.
const SET_WORDS: &str = "small, large, flip, noflip, reply, noreply, plain or html";

const SPECIAL_MOVES: &[&str] = &["resign", "propose", "undo", "accept", "reject", "pass"];

/// Where the password stands on a line with this verb at `v` that does not
/// parse: the word in the password position of the verb's grammar, and
/// never the userid's. One reading beyond the grammar: when the word in a
/// board number's place is no number and the line is a word short, the
/// board may have been left out (the words stand one place to the left) or
/// mistyped; the password positions of both readings are masked.
fn guess_passwords(toks: &[Tok<'_>], v: usize, creds: Creds) -> Vec<usize> {
    let a = v + 1;
    let n = toks.len();
    let num = |i: usize| toks.get(i).is_some_and(|t| looks_numeric(t.text));
    match creds {
        Creds::None => Vec::new(),
        Creds::First => vec![a + 1],
        Creds::AfterBoard(min) => {
            if !num(a) && n < a + min {
                vec![a + 1, a + 2]
            } else {
                vec![a + 2]
            }
        }
        Creds::AfterBoards => {
            let mut u = a;
            while toks
                .get(u)
                .is_some_and(|t| looks_numeric(t.text) || t.text.eq_ignore_ascii_case("all"))
            {
                u += 1;
            }
            if u == a && n >= a + 3 {
                // A mistyped board number, then userid and password.
                vec![a + 2]
            } else {
                vec![u + 1]
            }
        }
        Creds::Change => match toks.get(a).and_then(|t| change_subject(t.text)) {
            Some(ChangeWhat::Password) => vec![a + 2, a + 3],
            Some(ChangeWhat::Address) => vec![a + 2],
            // No subject word: the userid stands first, then the password(s).
            None => (a + 1..n.max(a + 1)).collect(),
        },
    }
}

/// What `change` changes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ChangeWhat {
    Password,
    Address,
}

/// The word after `change`: `password`, `address` (or `addresses`), a
/// prefix of either, or a near miss (`passwd`).
fn change_subject(word: &str) -> Option<ChangeWhat> {
    let w = word.to_ascii_lowercase();
    let named = |name: &str| name.starts_with(&w) || nearest(&w, [name]).is_some();
    if w == "addresses" || named("address") {
        Some(ChangeWhat::Address)
    } else if named("password") {
        Some(ChangeWhat::Password)
    } else {
        None
    }
}

/// Password positions for a line whose first word is no game or command:
/// those of the verb it names or nearly names, else the word after the
/// one after a number, else the third word.
fn guess_unknown(toks: &[Tok<'_>]) -> Vec<usize> {
    let first = toks.first().map_or("", |t| t.text);
    if let Some(v) = suggest_verb(Scope::Account, first).and_then(|w| exact(Scope::Account, w)) {
        return guess_passwords(toks, 0, v.creds);
    }
    if let Some(verb) = toks.get(1).and_then(|t| verb_for_guess(t.text)) {
        return guess_passwords(toks, 1, verb.creds);
    }
    if let Some(i) = (1..toks.len()).find(|&i| looks_numeric(toks[i].text)) {
        return vec![i + 2];
    }
    vec![2]
}

/// The game verb a word names or nearly names, for masking.
fn verb_for_guess(word: &str) -> Option<&'static Verb> {
    match lookup(Scope::Game, word) {
        Lookup::Found(v) => Some(v),
        _ => suggest_verb(Scope::Game, word).and_then(|w| exact(Scope::Game, w)),
    }
}

// ---------------------------------------------------------------- parser

struct Parser<'a> {
    line: &'a str,
    toks: Vec<Tok<'a>>,
    /// Next word to read.
    i: usize,
    /// Password words read.
    pw: Vec<usize>,
    /// Where passwords may stand, should the line fail.
    guess: Vec<usize>,
    game: Option<&'static str>,
    board: Option<u32>,
    /// The command as named in messages (`chess move`, `signup`).
    cmd: String,
    usage: Usage,
}

type Res<T> = Result<T, ParseError>;

impl<'a> Parser<'a> {
    fn finish(self, command: Command) -> Parsed {
        Parsed {
            command,
            masked: mask(self.line, &self.toks, &self.pw),
        }
    }

    fn fail(&self, message: String) -> ParseError {
        let mut idxs = self.pw.clone();
        idxs.extend(&self.guess);
        ParseError {
            message,
            masked: mask(self.line, &self.toks, &idxs),
            game: self.game.map(str::to_string),
            board: self.board,
        }
    }

    fn example(&self) -> String {
        let verb = self.cmd.rsplit(' ').next().unwrap_or("");
        self.usage
            .example
            .replace("{g}", self.game.unwrap_or(""))
            .replace("{v}", verb)
    }

    /// `chess move needs ..., like: chess move 101 alice secret Nf3.`
    fn missing(&self) -> ParseError {
        self.fail(format!(
            "{} needs {}, like: {}.",
            self.cmd,
            self.usage.needs,
            self.example()
        ))
    }

    /// `'x' is not a board number; chess move needs ..., like: ...`
    fn bad(&self, word: &str, what: &str) -> ParseError {
        self.fail(format!(
            "'{}' is not {}; {} needs {}, like: {}.",
            word,
            what,
            self.cmd,
            self.usage.needs,
            self.example()
        ))
    }

    fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.i).map(|t| t.text)
    }

    fn next(&mut self) -> Option<&'a str> {
        let t = self.peek();
        if t.is_some() {
            self.i += 1;
        }
        t
    }

    fn need(&mut self) -> Res<&'a str> {
        self.next().ok_or_else(|| self.missing())
    }

    /// Refuse any word left.
    fn end(&self) -> Res<()> {
        match self.peek() {
            None => Ok(()),
            Some(word) if self.usage.needs.is_empty() => Err(self.fail(format!(
                "{} takes no more words, but '{}' follows; write just: {}.",
                self.cmd,
                word,
                self.example()
            ))),
            Some(word) => Err(self.fail(format!(
                "'{}' is one word too many; {} needs only {}, like: {}.",
                word,
                self.cmd,
                self.usage.needs,
                self.example()
            ))),
        }
    }

    /// The rest of the words.
    fn rest(&mut self) -> Vec<&'a str> {
        let words = self.toks[self.i..].iter().map(|t| t.text).collect();
        self.i = self.toks.len();
        words
    }

    fn number(&self, word: &str, what: &str) -> Res<u32> {
        if !is_digits(word) {
            return Err(self.bad(word, what));
        }
        word.parse().map_err(|_| {
            self.fail(format!(
                "{word} is too large to be {what}; {} needs {}, like: {}.",
                self.cmd,
                self.usage.needs,
                self.example()
            ))
        })
    }

    fn board_no(&mut self) -> Res<u32> {
        let word = self.need()?;
        let board = self.number(word, "a board number")?;
        self.board = Some(board);
        Ok(board)
    }

    /// `101` or `101#7`.
    fn board_ref(&self, word: &str) -> Res<BoardRef> {
        let (b, ply) = match word.split_once('#') {
            Some((b, ply)) => (b, Some(ply)),
            None => (word, None),
        };
        let what = "a board number (with #N for the position after ply N)";
        if !is_digits(b) || ply.is_some_and(|p| !is_digits(p)) {
            return Err(self.bad(word, what));
        }
        let board = self.number(b, what)?;
        let ply = ply.map(|p| self.number(p, "a ply number")).transpose()?;
        Ok(BoardRef { board, ply })
    }

    fn check_userid(&self, word: &str) -> Res<String> {
        if is_valid_userid(word) {
            Ok(word.to_ascii_lowercase())
        } else if looks_numeric(word) {
            Err(self.bad(word, "a userid (userids start with a letter)"))
        } else {
            Err(self.fail(format!(
                "'{}' is not a userid, as userids are a letter followed by letters, digits, \
                 '-', '_' or '.', at most {} in all; {} needs {}, like: {}.",
                word,
                super::MAX_USERID_LEN,
                self.cmd,
                self.usage.needs,
                self.example()
            )))
        }
    }

    fn userid(&mut self) -> Res<String> {
        let word = self.need()?;
        self.check_userid(word)
    }

    fn password(&mut self) -> Res<Password> {
        if self.i < self.toks.len() {
            self.pw.push(self.i);
        }
        let word = self.need()?;
        Ok(Password::new(word))
    }

    fn creds(&mut self) -> Res<Credentials> {
        let userid = self.userid()?;
        let password = self.password()?;
        Ok(Credentials { userid, password })
    }

    fn address(&self, word: &str) -> Res<String> {
        let a = word
            .trim_end_matches([',', ';'])
            .trim_start_matches('<')
            .trim_end_matches('>');
        let ok = match a.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    // Never read as an option by a `sendmail` program.
                    && !local.starts_with('-')
                    && !domain.is_empty()
                    && !domain.contains('@')
                    && !a.contains(['<', '>', ',', ';', '"', ':'])
                    && !a.contains(char::is_control)
                    && a.parse::<lettre::Address>().is_ok()
            }
            None => false,
        };
        if ok {
            Ok(a.to_string())
        } else {
            Err(self.bad(word, "a mail address"))
        }
    }

    fn set_verb(&mut self, cmd: String, usage: Usage, creds: Creds, v: usize) {
        self.cmd = cmd;
        self.usage = usage;
        self.guess = guess_passwords(&self.toks, v, creds);
    }

    // ------------------------------------------------------------ commands

    fn command(&mut self) -> Res<Command> {
        let Some(first) = self.next() else {
            return Err(
                self.fail("the Subject is empty; write a command there, like: help.".to_string())
            );
        };
        let word = first.to_ascii_lowercase();
        if let Some(game) = game_name(&word) {
            self.game = Some(game);
            let command = self.game_command(game)?;
            return Ok(Command::Game {
                game: game.to_string(),
                command,
            });
        }
        if word == "multiple" {
            return Err(self.fail(
                "'multiple' must stand alone in the Subject, with the commands one per line \
                 in the body."
                    .to_string(),
            ));
        }
        match lookup(Scope::Account, &word) {
            Lookup::Found(verb) => {
                let name = if verb.name == "all" {
                    "all show"
                } else {
                    verb.name
                };
                self.set_verb(name.to_string(), verb.usage, verb.creds, 0);
                return self.account_command(verb.name);
            }
            Lookup::InFull(verb) => {
                self.set_verb(verb.name.to_string(), verb.usage, verb.creds, 0);
                return Err(self.in_full(first, verb));
            }
            Lookup::Ambiguous(names) => {
                self.guess = guess_unknown(&self.toks);
                return Err(self.ambiguous(first, &names));
            }
            Lookup::Unknown => {}
        }
        if let Some(verb) = exact(Scope::Game, &word) {
            self.cmd = verb.name.to_string();
            self.usage = verb.usage;
            self.guess = guess_passwords(&self.toks, 0, verb.creds);
            let example = verb
                .usage
                .example
                .replace("{g}", "chess")
                .replace("{v}", verb.name);
            return Err(self.fail(format!(
                "{word} needs a game name first, like: {example}; the games are {}.",
                list_words(GAME_NAMES)
            )));
        }
        self.guess = guess_unknown(&self.toks);
        let suggestion = suggest_game(&word).or_else(|| suggest_verb(Scope::Account, &word));
        Err(self.fail(match suggestion {
            Some(s) => format!(
                "I know no game or command called '{first}'; did you mean {s}, as in: {}?",
                self.corrected(0, s)
            ),
            None => format!(
                "I know no game or command called '{first}'; send a mail with the Subject help \
                 for the list of games and commands."
            ),
        }))
    }

    /// The line as quoted (password masked) with word `i` replaced by `word`.
    fn corrected(&self, i: usize, word: &str) -> String {
        let masked = self.fail(String::new()).masked;
        let toks = tokenize(&masked);
        match toks.get(i) {
            Some(t) => format!("{}{word}{}", &masked[..t.start], &masked[t.end..]),
            None => masked,
        }
    }

    /// `'s' could be set, show, ...; write more of it.`
    fn ambiguous(&self, word: &str, names: &[&str]) -> ParseError {
        let list = match names {
            [init @ .., last] if !init.is_empty() => format!("{} or {last}", init.join(", ")),
            _ => names.join(""),
        };
        self.fail(format!("'{word}' could be {list}; write more of the word."))
    }

    /// A prefix of a verb that must be written in full.
    fn in_full(&self, word: &str, verb: &Verb) -> ParseError {
        self.fail(format!(
            "'{word}' could be {}, which must be written in full, as it ends your account; like: {}.",
            verb.name,
            self.example()
        ))
    }

    fn game_command(&mut self, game: &'static str) -> Res<GameCommand> {
        let Some(verb_word) = self.next() else {
            return Err(self.fail(format!(
                "{game} needs a command after it, like: {game} help; the commands are {}.",
                list_words(&verb_names(Scope::Game))
            )));
        };
        let v = self.i - 1;
        let spec = match lookup(Scope::Game, verb_word) {
            Lookup::Found(spec) => spec,
            Lookup::Ambiguous(names) => {
                self.guess = guess_passwords(&self.toks, v, Creds::AfterBoard(4));
                return Err(self.ambiguous(verb_word, &names));
            }
            Lookup::InFull(_) | Lookup::Unknown => {
                return Err(self.unknown_game_verb(game, verb_word, v))
            }
        };
        let verb = spec.name;
        // Messages name an alias as typed (`chess board needs ...`), a
        // prefix by the verb it stands for.
        let typed = verb_word.to_ascii_lowercase();
        let named = if spec.aliases.contains(&typed.as_str()) {
            typed.as_str()
        } else {
            verb
        };
        self.set_verb(format!("{game} {named}"), spec.usage, spec.creds, v);
        let command = match verb {
            "help" => GameCommand::Help,
            "standings" => GameCommand::Standings,
            "history" => GameCommand::History,
            "players" => GameCommand::Players,
            "pgn" => GameCommand::Record {
                board: self.board_no()?,
            },
            "seek" => {
                let who = self.creds()?;
                let note = self.rest().join(" ");
                GameCommand::Seek { who, note }
            }
            "challenge" => self.challenge()?,
            "move" | "queue" | "submit" => {
                let board = self.board_no()?;
                let who = self.creds()?;
                let (action, ply) = self.move_action()?;
                match verb {
                    "move" => GameCommand::Move {
                        board,
                        who,
                        action,
                        ply,
                    },
                    "queue" => GameCommand::Queue {
                        board,
                        who,
                        action,
                        ply,
                    },
                    _ => GameCommand::Submit {
                        board,
                        who,
                        action,
                        ply,
                    },
                }
            }
            "resign" | "confirm" | "chat" => {
                let board = self.board_no()?;
                let who = self.creds()?;
                match verb {
                    "resign" => GameCommand::Resign { board, who },
                    "confirm" => GameCommand::Confirm { board, who },
                    _ => GameCommand::Chat { board, who },
                }
            }
            "preview" => self.preview(game)?,
            "show" => self.show()?,
            "showas" => {
                let who = self.creds()?;
                let mut boards = Vec::new();
                let mut filter = None;
                for word in self.rest() {
                    if let Some(f) = filter_word(word) {
                        if filter.is_some() {
                            return Err(self.bad(word, "a board number"));
                        }
                        filter = Some(f);
                    } else {
                        boards.push(
                            self.number(word, "a board number or all, active, inactive or next")?,
                        );
                    }
                }
                if filter.is_some() && !boards.is_empty() {
                    return Err(self.fail(format!(
                        "{} takes board numbers or one of all, active, inactive and next, not \
                         both, like: {}.",
                        self.cmd,
                        self.example()
                    )));
                }
                GameCommand::ShowAs {
                    who,
                    boards,
                    filter: filter.unwrap_or_default(),
                }
            }
            "games" => {
                let (users, filter) = self.users_and_filter()?;
                GameCommand::Games {
                    users,
                    filter: filter.unwrap_or_default(),
                }
            }
            "subscribe" | "unsubscribe" => {
                let mut boards = Vec::new();
                let mut all = false;
                while let Some(word) = self.peek() {
                    if word.eq_ignore_ascii_case("all") {
                        all = true;
                    } else if looks_numeric(word) {
                        boards.push(self.number(word, "a board number")?);
                    } else {
                        break;
                    }
                    self.i += 1;
                }
                if boards.is_empty() && !all {
                    return Err(match self.peek() {
                        Some(word) => self.bad(word, "a board number or all"),
                        None => self.missing(),
                    });
                }
                if all && !boards.is_empty() {
                    return Err(self.fail(format!(
                        "{} takes board numbers or all, not both, like: {}.",
                        self.cmd,
                        self.example()
                    )));
                }
                if let [board] = boards[..] {
                    self.board = Some(board);
                }
                let who = self.creds()?;
                if verb == "subscribe" {
                    GameCommand::Subscribe { boards, all, who }
                } else {
                    GameCommand::Unsubscribe { boards, all, who }
                }
            }
            "notify" => {
                let who = self.creds()?;
                let mut boards = Vec::new();
                for word in self.rest() {
                    boards.push(self.number(word, "a board number")?);
                }
                GameCommand::Notify { who, boards }
            }
            "accept" | "reject" => {
                if self.peek().is_some_and(looks_numeric) {
                    self.guess = guess_passwords(&self.toks, v, Creds::AfterBoard(3));
                    return Err(self.fail(format!(
                        "{game} {verb} alice secret says whether you take challenges of {game}; \
                         to {verb} a proposal on a board write it as a move, like: {game} move \
                         {} alice secret {verb}.",
                        self.peek().unwrap_or("101")
                    )));
                }
                let who = self.creds()?;
                if verb == "accept" {
                    GameCommand::AcceptChallenges { who }
                } else {
                    GameCommand::RejectChallenges { who }
                }
            }
            "limit" => {
                let who = self.creds()?;
                match self.next() {
                    None => GameCommand::ShowLimit { who },
                    Some(word) if word.eq_ignore_ascii_case("inf") => {
                        GameCommand::Limit { who, max: None }
                    }
                    Some(word) => GameCommand::Limit {
                        who,
                        max: Some(self.number(word, "a number of boards or inf")?),
                    },
                }
            }
            "set" => {
                let who = self.creds()?;
                let word = self.need()?;
                let look = match word.to_ascii_lowercase().as_str() {
                    "small" => Look::Size(BoardSize::Small),
                    "large" => Look::Size(BoardSize::Large),
                    "flip" => Look::FromBlack(true),
                    "noflip" => Look::FromBlack(false),
                    "reply" => Look::Reply(true),
                    "noreply" => Look::Reply(false),
                    "html" => Look::Html(true),
                    "plain" => Look::Html(false),
                    _ => return Err(self.bad(word, SET_WORDS)),
                };
                GameCommand::Set { who, look }
            }
            _ => unreachable!("every game verb of VERBS is handled"),
        };
        self.end()?;
        Ok(command)
    }

    fn unknown_game_verb(&mut self, game: &str, word: &str, v: usize) -> ParseError {
        let verb = word.to_ascii_lowercase();
        let suggestion = suggest_verb(Scope::Game, &verb);
        self.guess = match suggestion.and_then(|s| exact(Scope::Game, s)) {
            Some(meant) => guess_passwords(&self.toks, v, meant.creds),
            None if self.toks.get(v + 1).is_some_and(|t| looks_numeric(t.text)) => {
                guess_passwords(&self.toks, v, Creds::AfterBoard(4))
            }
            None => guess_passwords(&self.toks, v, Creds::First),
        };
        if SPECIAL_MOVES.contains(&verb.as_str()) || verb == "draw" {
            let mv = if verb == "draw" { "propose" } else { &verb };
            return self.fail(format!(
                "{game} has no command '{word}'; write it as a move instead, like: {game} move \
                 101 alice secret {mv}."
            ));
        }
        if let Some(account) = exact(Scope::Account, &verb) {
            let example = account.usage.example.replace("{v}", account.name);
            return self.fail(format!(
                "'{word}' is no {game} command; write it without the game name, like: {example}."
            ));
        }
        if let Some(s) = suggestion {
            return self.fail(format!(
                "{game} has no command '{word}'; did you mean {s}, as in: {}?",
                self.corrected(v, s)
            ));
        }
        self.fail(format!(
            "{game} has no command '{word}'; the commands are {}.",
            list_words(&verb_names(Scope::Game))
        ))
    }

    /// `preview <board>[#N] <move>...` or `preview new [-options] [<move>...]`.
    fn preview(&mut self, game: &str) -> Res<GameCommand> {
        let mut word = self.need()?;
        if word.eq_ignore_ascii_case("board") && self.peek().is_some_and(looks_numeric) {
            word = self.need()?;
        }
        let from = if word.eq_ignore_ascii_case("new") {
            let mut options = Vec::new();
            while let Some(opt) = self.peek().filter(|w| w.starts_with('-')) {
                options.push(self.game_option(opt)?);
                self.i += 1;
            }
            PreviewFrom::Start { options }
        } else {
            let board = self.board_ref(word)?;
            self.board = Some(board.board);
            PreviewFrom::Board(board)
        };
        let words = self.rest();
        let text = words.join(" ");
        let moves: Vec<String> = if text.contains([',', ';']) {
            text.split([',', ';'])
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(str::to_string)
                .collect()
        } else {
            words.iter().map(|w| w.to_string()).collect()
        };
        if moves.is_empty() && matches!(from, PreviewFrom::Board(_)) {
            return Err(self.fail(format!(
                "{} needs a board number and one or more moves, like: {}; to see the board as \
                 it stands write {game} show {}.",
                self.cmd,
                self.example(),
                word
            )));
        }
        Ok(GameCommand::Preview { from, moves })
    }

    /// A game option word (`-lenient`, `-level=3`): lower-case, without the dash.
    fn game_option(&self, word: &str) -> Res<String> {
        let opt = word.strip_prefix('-').unwrap_or(word);
        let (name, value) = opt.split_once('=').unwrap_or((opt, ""));
        if name.is_empty()
            || opt.starts_with('-')
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            || (opt.contains('=') && value.is_empty())
        {
            return Err(self.bad(word, "a game option (like -name or -name=value)"));
        }
        Ok(opt.to_ascii_lowercase())
    }

    /// The action and guard of `move`/`queue`/`submit`: the rest of the line.
    fn move_action(&mut self) -> Res<(MoveAction, Option<u32>)> {
        let text = self.rest().join(" ");
        let (mv, guard) = split_guard(&text);
        if mv.is_empty() {
            return Err(self.missing());
        }
        let ply = match guard {
            None => None,
            Some(digits) => {
                let n: u32 = digits.parse().map_err(|_| {
                    self.fail(format!(
                        "#{digits} is too large to be a ply number; write the number of the ply \
                         your move would be, like: {}#7.",
                        self.example()
                    ))
                })?;
                if n == 0 {
                    return Err(self.fail(format!(
                        "plies count from 1, so #0 guards nothing; write the number of the ply \
                         your move would be, like: {}#7.",
                        self.example()
                    )));
                }
                Some(n)
            }
        };
        let lower = mv.to_ascii_lowercase();
        let action = match lower.as_str() {
            "resign" => MoveAction::Resign,
            "propose" => MoveAction::Propose,
            "undo" => MoveAction::Undo,
            "accept" => MoveAction::Accept,
            "reject" => MoveAction::Reject,
            "pass" => MoveAction::Pass,
            _ => MoveAction::Play(mv.to_string()),
        };
        Ok((action, ply))
    }

    fn challenge(&mut self) -> Res<GameCommand> {
        let mut players = Vec::new();
        let mut options = Vec::new();
        let mut timers = Timers::default();
        let start = self.i;
        let mut player_at = Vec::new();
        for (k, word) in self.rest().into_iter().enumerate() {
            if let Some(opt) = word.strip_prefix("--") {
                let Some((name, value)) = opt.split_once('=') else {
                    return Err(self.bad(
                        word,
                        "a board option (those are --nagtime=N, --forfeittime=N and \
                         --totaltime=N, in days)",
                    ));
                };
                let slot = match name.to_ascii_lowercase().as_str() {
                    "nagtime" => &mut timers.nag_days,
                    "forfeittime" => &mut timers.forfeit_days,
                    "totaltime" => &mut timers.total_days,
                    _ => {
                        return Err(self.bad(
                            word,
                            "a board option (those are --nagtime=N, --forfeittime=N and \
                             --totaltime=N, in days)",
                        ))
                    }
                };
                let days = self.number(value, "a number of days")?;
                if days == 0 {
                    return Err(self.bad(word, "a board option of at least one day"));
                }
                *slot = Some(days);
            } else if word.starts_with('-') {
                options.push(self.game_option(word)?);
            } else {
                players.push(self.check_userid(word)?);
                player_at.push(start + k);
            }
        }
        if players.len() > 2 {
            // A password added by mistake (`challenge alice bob secret`)
            // could be any of them: none is quoted or logged (issue #31).
            self.guess.extend(player_at);
        }
        if players.len() != 2 {
            let got = match players.len() {
                0 => "no player".to_string(),
                1 => "only one player".to_string(),
                n => format!("{n} players"),
            };
            return Err(self.fail(format!(
                "{} needs {}, like: {}; this line names {got}.",
                self.cmd,
                self.usage.needs,
                self.example()
            )));
        }
        Ok(GameCommand::Challenge {
            players,
            options,
            timers,
        })
    }

    fn show(&mut self) -> Res<GameCommand> {
        // `show board 101`, as pbmserv players write it.
        if self.peek().is_some_and(|w| w.eq_ignore_ascii_case("board"))
            && self
                .toks
                .get(self.i + 1)
                .is_some_and(|t| looks_numeric(t.text))
        {
            self.i += 1;
        }
        match self.peek() {
            None => Err(self.missing()),
            Some(word) if looks_numeric(word) => {
                let mut boards = Vec::new();
                for word in self.rest() {
                    boards.push(self.board_ref(word)?);
                }
                if let [b] = boards[..] {
                    self.board = Some(b.board);
                }
                Ok(GameCommand::Show { boards })
            }
            Some(_) => {
                let (users, filter) = self.users_and_filter()?;
                if users.is_empty() {
                    return Err(self.missing());
                }
                Ok(GameCommand::ShowUsers {
                    users,
                    filter: filter.unwrap_or_default(),
                })
            }
        }
    }

    fn users_and_filter(&mut self) -> Res<(Vec<String>, Option<BoardFilter>)> {
        let mut users = Vec::new();
        let mut filter = None;
        for word in self.rest() {
            match filter_word(word) {
                Some(f) if filter.is_none() => filter = Some(f),
                Some(_) => {
                    return Err(self.fail(format!(
                        "'{}' is one filter too many, as only one of all, active, inactive and \
                         next may be given; {} needs {}, like: {}.",
                        word,
                        self.cmd,
                        self.usage.needs,
                        self.example()
                    )))
                }
                None => users.push(self.check_userid(word)?),
            }
        }
        Ok((users, filter))
    }

    fn account_command(&mut self, verb: &str) -> Res<Command> {
        let command = match verb {
            "help" => Command::Help {
                topics: self.rest().iter().map(|w| w.to_ascii_lowercase()).collect(),
            },
            "signup" => {
                let word = self.need()?;
                let userid = self.check_userid(word)?;
                if RESERVED_USERIDS.contains(&userid.as_str()) {
                    return Err(self.fail(format!(
                        "'{word}' cannot be a userid, as show and games read it as a filter; \
                         choose another, like: {}.",
                        self.example()
                    )));
                }
                let password = self.password()?;
                let mut addresses = Vec::new();
                for word in self.rest() {
                    addresses.push(self.address(word)?);
                }
                Command::Signup {
                    userid,
                    password,
                    addresses,
                }
            }
            "change" => {
                let sub = self.need()?.to_ascii_lowercase();
                // `password`, `address`, `addresses`, or a prefix of one.
                let what = if "password".starts_with(&sub) {
                    Some(ChangeWhat::Password)
                } else if "addresses".starts_with(&sub) {
                    Some(ChangeWhat::Address)
                } else {
                    None
                };
                match what {
                    Some(ChangeWhat::Password) => {
                        self.cmd = "change password".to_string();
                        self.usage = Usage {
                            needs: "your userid, your old password and your new password",
                            example: "change password alice oldsecret newsecret",
                        };
                        let who = self.creds()?;
                        let new = self.password()?;
                        Command::ChangePassword { who, new }
                    }
                    Some(ChangeWhat::Address) => {
                        self.cmd = "change address".to_string();
                        self.usage = Usage {
                            needs: "your userid, your password and the new mail addresses (none \
                                    for the address you write from)",
                            example: "change address alice secret alice@example.org",
                        };
                        let who = self.creds()?;
                        let mut addresses = Vec::new();
                        for word in self.rest() {
                            addresses.push(self.address(word)?);
                        }
                        Command::ChangeAddress { who, addresses }
                    }
                    None => {
                        let word = self.toks[self.i - 1].text;
                        if let Some(meant) = nearest(&sub, ["password", "address"]) {
                            return Err(self.fail(format!(
                                "'{word}' is not password or address; did you mean {meant}, as \
                                 in: {}?",
                                self.corrected(self.i - 1, meant)
                            )));
                        }
                        return Err(self.bad(word, "password or address"));
                    }
                }
            }
            "confirm" => {
                let word = self.need()?;
                if !word.eq_ignore_ascii_case("address") {
                    return Err(self.bad(word, "address"));
                }
                self.cmd = "confirm address".to_string();
                let userid = self.userid()?;
                // The code is masked where the line is quoted, as a password.
                let code = self.password()?;
                Command::ConfirmAddress { userid, code }
            }
            "signoff" | "delete" => Command::Signoff { who: self.creds()? },
            "vacation" => {
                let who = self.creds()?;
                let Some(word) = self.next() else {
                    self.end()?;
                    return Ok(Command::ShowVacation { who });
                };
                let days = if word.eq_ignore_ascii_case("off") {
                    None
                } else {
                    let days = self.number(word, "a number of days or off")?;
                    if days == 0 {
                        return Err(
                            self.bad(word, "a number of days (to end a vacation write off)")
                        );
                    }
                    Some(days)
                };
                Command::Vacation { who, days }
            }
            "list" => {
                let mut games = Vec::new();
                for word in self.rest() {
                    match game_name(word) {
                        Some(g) => games.push(g.to_string()),
                        None => {
                            return Err(self.fail(match suggest_game(word) {
                                Some(g) => format!(
                                    "'{word}' is no game I know (did you mean {g}?); the games \
                                     are {}.",
                                    list_words(GAME_NAMES)
                                ),
                                None => format!(
                                    "'{word}' is no game I know; the games are {}.",
                                    list_words(GAME_NAMES)
                                ),
                            }))
                        }
                    }
                }
                Command::List { games }
            }
            "broadcast" => Command::Broadcast { who: self.creds()? },
            "message" => {
                let who = self.creds()?;
                let mut to = Vec::new();
                for word in self.rest() {
                    to.push(self.check_userid(word)?);
                }
                if to.is_empty() {
                    return Err(self.missing());
                }
                Command::Message { who, to }
            }
            "all" => {
                let word = self.need()?;
                if !word.eq_ignore_ascii_case("show") {
                    return Err(self.fail(format!(
                        "'all {word}' is no command; all is followed by show, like: {}.",
                        self.example()
                    )));
                }
                let userid = self.userid()?;
                let filter = match self.next() {
                    None => BoardFilter::default(),
                    Some(word) => filter_word(word)
                        .ok_or_else(|| self.bad(word, "all, active, inactive or next"))?,
                };
                Command::AllShow { userid, filter }
            }
            _ => unreachable!("every account verb of VERBS is handled"),
        };
        self.end()?;
        Ok(command)
    }
}

/// `a, b and c`.
fn list_words(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

mod reply;
pub use reply::{has_guard, parse_reply};

#[cfg(test)]
mod tests;
