//! Subject and body text -> [`Command`] values. Pure: no I/O.
//!
//! The language is pbmserv's (docs/commands.md §1–2): the Subject line is the
//! command, `<game> <verb> [<board>] [<userid> <password>] [<args>...]`.
//! Subject `multiple` puts one command per body line.
//!
//! The server calls [`parse_mail`] with a mail's Subject and body text and
//! gets a [`Request`]: each command read ([`Parsed`], with the line masked
//! for quoting) or refused ([`ParseError`], whose message is one sentence
//! saying what is wrong and how to write it). [`parse_line`] reads one line.
//! The rulings beyond docs/commands.md are listed in `parse/mod.rs`.

mod bounds;
mod parse;

pub use bounds::{collapse, only_reads};
pub use parse::{
    has_guard, is_language_word, is_quotable, log_line, parse_line, parse_mail, parse_reply,
    password_problem, read_part, strict_quote, verbs, word_order, MAX_COMMANDS, MAX_LINE_BYTES,
    MAX_WORDS,
};
pub use parse::{is_phone_signature, is_tournament_name, MAX_TOURNAMENT_NAME};

use std::fmt;

/// Every game name the language knows, in the order help lists them.
///
/// The parser knows these by heart (it must not call into `rules`, which may
/// register them later); the server still asks the rules registry whether a
/// named game is actually playable.
pub const GAME_NAMES: &[&str] = &[
    "chess",
    "doublechess",
    "doppelganger",
    "shadowchess",
    "mchess",
    "zelig",
    "zelig2",
    "temporal",
];

/// The known game called `word` (case-insensitive), as its canonical name.
pub fn game_name(word: &str) -> Option<&'static str> {
    GAME_NAMES
        .iter()
        .copied()
        .find(|g| g.eq_ignore_ascii_case(word))
}

/// Longest userid accepted.
pub const MAX_USERID_LEN: usize = 32;

/// Whether `word` has the shape of a userid: 1 to [`MAX_USERID_LEN`]
/// characters, an ASCII letter first, then ASCII letters, digits, `-`, `_`
/// or `.`. (A letter first keeps userids apart from board numbers in
/// `show`.) The parser checks every userid with this; the server's admin
/// commands should too.
pub fn is_valid_userid(word: &str) -> bool {
    let mut chars = word.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => {}
        _ => return false,
    }
    word.len() <= MAX_USERID_LEN
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Words a new account may not take as its userid: the board filters that
/// `show`, `games` and `showas` read, the words that stand where a userid
/// stands in board mail subjects (`Chess Board 111 finished`, `... Error`,
/// `... preview`, `... chat`, `... after ply 5`), the subject prefixes
/// (`New`, `Nag:`), and words of the command language that would read as a
/// command (`multiple`, `help`, `board`).
pub const RESERVED_USERIDS: &[&str] = &[
    "all", "active", "inactive", "next", "finished", "error", "preview", "chat", "after", "new",
    "nag", "multiple", "help", "board", "end",
];

/// Userids that name a role rather than a player, which a signup by mail
/// may not take (nor a lookalike of one; see `server::account`): the
/// server's own names (`admin`, `root`, `pbmchess`), the mail system's
/// (`postmaster`, `mailer-daemon`) and the role mailboxes of RFC 2142
/// (`abuse`, `noc`, `security`, `hostmaster`, `usenet`, `news`,
/// `webmaster`, `www`, `uucp`, `ftp`, `info`, `marketing`, `sales`,
/// `support`). The server's own local part (of `[server] address`) is
/// kept as well.
pub const ROLE_USERIDS: &[&str] = &[
    "admin",
    "administrator",
    "root",
    "pbmchess",
    "postmaster",
    "mailer-daemon",
    "abuse",
    "noc",
    "security",
    "hostmaster",
    "usenet",
    "news",
    "webmaster",
    "www",
    "uucp",
    "ftp",
    "info",
    "marketing",
    "sales",
    "support",
    "noreply",
    "no-reply",
    "nobody",
];

/// A password as typed. Its `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

impl Password {
    pub fn new(text: impl Into<String>) -> Password {
        Password(text.into())
    }
    /// The typed text, for hashing or verification only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("*****")
    }
}

impl fmt::Display for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("*****")
    }
}

/// A userid and the password that proves it. Userids are compared
/// case-insensitively; they are kept lower-case here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Credentials {
    pub userid: String,
    pub password: Password,
}

/// Which boards a `show`/`games` listing covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BoardFilter {
    /// Every board, finished ones included.
    All,
    /// Boards still being played (the default).
    #[default]
    Active,
    /// Finished boards.
    Inactive,
    /// Active boards where the user is to act.
    Next,
}

/// What `set` changes in a player's board drawing for a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// `small` or `large`.
    Size(BoardSize),
    /// `flip` (true: Black's side at the bottom) or `noflip`.
    FromBlack(bool),
    /// `reply` (true: board mails may be answered by reply, the default)
    /// or `noreply`.
    Reply(bool),
    /// `html` (true: board mails carry an HTML part too, the default) or
    /// `plain` (text only); for every game.
    Html(bool),
    /// `moves last` (true: a turn mail shows the last five moves) or
    /// `moves all` (the whole score, the default); for every game.
    LastMovesOnly(bool),
    /// `picture` (true: the HTML part shows the board as a picture too,
    /// the default for new accounts) or `nopicture`; for every game.
    Picture(bool),
}

/// The board drawing a player wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BoardSize {
    Small,
    #[default]
    Large,
}

/// Board options of a challenge (`--nagtime=N` ...), in days.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Timers {
    pub nag_days: Option<u32>,
    pub forfeit_days: Option<u32>,
    pub total_days: Option<u32>,
}

/// One board, optionally at a given ply (`101#7`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardRef {
    pub board: u32,
    pub ply: Option<u32>,
}

/// Where a `preview` starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreviewFrom {
    /// A board as it stands, or after ply N.
    Board(BoardRef),
    /// `preview new`: the game's start position under these options
    /// (lower-case, without the dash, as a challenge's); no board needed.
    Start { options: Vec<String> },
}

/// What a `move` command asks for: a turn action on the board, or one of the
/// special moves the server handles itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveAction {
    /// A turn action in the game's notation, as typed (without the `#N` guard).
    Play(String),
    Resign,
    /// Offer a draw.
    Propose,
    /// Ask to take back one ply.
    Undo,
    /// Accept the pending draw or undo proposal.
    Accept,
    /// Reject the pending proposal.
    Reject,
    Pass,
}

/// What an `if` command does with the player's conditional moves on a
/// board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Conditional {
    /// Add a line: the moves as written (a word each, or the pieces
    /// between commas or semicolons when the line has any); the server
    /// reads them on the board, joining two words that are one move
    /// (`reveal c4`).
    Add(Vec<String>),
    /// Mail the tree to its owner.
    List,
    /// Drop the lines that begin with these moves (all lines: none).
    Cancel(Vec<String>),
}

/// What a player does on a board, as [`GameCommand::OnBoard`] carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardAct {
    /// `move`: a turn action (or a special move) played now.
    Move(MoveAction),
    /// `queue`: played now if it is the player's turn, else when it is.
    Queue(MoveAction),
    /// `submit`: checked and previewed to the player, not played.
    Submit(MoveAction),
    /// `confirm`: the move submitted before played.
    ConfirmSubmitted,
    Resign,
    /// `if`: the player's conditional moves.
    If(Conditional),
    /// `chat`: the mail's body to the board's players and observers.
    Chat,
}

/// A command that names a game first (`chess move 101 ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameCommand {
    /// `chess help`: rules and notation of that game.
    Help,
    /// Start a board at once; `players[0]` moves first (White).
    Challenge {
        players: Vec<String>,
        /// Game options, lower-case, without the dash (`lenient`; an
        /// option with a value stays one string: `-Level=3` is `level=3`).
        options: Vec<String>,
        timers: Timers,
    },
    /// An act of a player on a board they play (or, for `chat`, observe);
    /// every such verb is one [`BoardAct`].
    OnBoard {
        board: u32,
        who: Credentials,
        /// `#N`: only if the act would be ply N (`move`, `queue`, `submit`).
        guard: Option<u32>,
        act: BoardAct,
    },
    /// A hypothetical position: these moves played from `from`.
    Preview {
        from: PreviewFrom,
        moves: Vec<String>,
    },
    /// Board mails to the sender.
    Show {
        boards: Vec<BoardRef>,
    },
    /// Boards of these users.
    ShowUsers {
        users: Vec<String>,
        filter: BoardFilter,
    },
    ShowAs {
        who: Credentials,
        boards: Vec<u32>,
        filter: BoardFilter,
    },
    /// Table of boards (of everyone when `users` is empty).
    Games {
        users: Vec<String>,
        filter: BoardFilter,
    },
    Subscribe {
        boards: Vec<u32>,
        all: bool,
        who: Credentials,
    },
    Unsubscribe {
        boards: Vec<u32>,
        all: bool,
        who: Credentials,
    },
    Notify {
        who: Credentials,
        boards: Vec<u32>,
    },
    /// Whether I take challenges of this game.
    AcceptChallenges {
        who: Credentials,
    },
    RejectChallenges {
        who: Credentials,
    },
    /// How many boards of this game I take at most (`None` = no limit).
    Limit {
        who: Credentials,
        max: Option<u32>,
    },
    /// `limit <userid> <pw>` without a number: tell me my limit.
    ShowLimit {
        who: Credentials,
    },
    /// My board drawing for this game.
    Set {
        who: Credentials,
        look: Look,
    },
    Standings,
    History,
    /// The players of this game with their ratings (no addresses).
    Players,
    /// Wait for an opponent: the next seeker of this game is paired with
    /// the longest-waiting one and their board starts.
    Seek {
        who: Credentials,
        note: String,
    },
    /// The game record of a board in PGN's layout (`pgn`).
    Record {
        board: u32,
    },
    /// `tournament ...` and `tournaments`.
    Tournament(TournamentCommand),
}

/// The tournament commands of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TournamentCommand {
    /// `tournament create|join|leave|start|withdraw <name> <userid> <pw> ...`
    Act {
        name: String,
        who: Credentials,
        action: TournamentAction,
    },
    /// `tournament show <name>`: the crosstable and the boards in play.
    Show { name: String },
    /// `tournament pgn <name>`: every game of the tournament in one PGN file.
    Pgn { name: String },
    /// `tournaments`: the open, running and finished tournaments of the game.
    List,
}

/// What a `tournament` command with credentials does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TournamentAction {
    /// The plan, or the sentence saying what is wrong with its words: the
    /// server refuses it once the password is checked (so that a line whose
    /// credentials stand right is not answered "out of order").
    Create(Result<TournamentPlan, String>),
    Join,
    /// Before the start.
    Leave,
    /// Before it is full: the creator (or an admin) starts it.
    Start,
    /// While it runs: the player's remaining games are lost by forfeit.
    Withdraw,
}

/// A tournament as `tournament create` asks for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentPlan {
    /// Swiss; else round robin.
    pub swiss: bool,
    /// The players wanted: it starts when this many joined.
    pub players: u32,
    /// Round robin: every pair twice, colours swapped.
    pub double: bool,
    /// Swiss: the rounds (`rounds R`).
    pub rounds: Option<u32>,
    /// Game options, lower-case, without the dash (as a challenge's).
    pub options: Vec<String>,
    pub timers: Timers,
    /// The tiebreaks in order (`tiebreaks BH-C1,BH,DE,WIN`); `None`: the
    /// system's default list.
    pub tiebreaks: Option<Vec<crate::tournament::Tiebreak>>,
}

/// One command of the language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// General help, or help on the named topics (`commands`, a game name, a verb).
    Help {
        topics: Vec<String>,
    },
    Signup {
        userid: String,
        password: Password,
        /// Empty: the sender's address.
        addresses: Vec<String>,
    },
    ChangePassword {
        who: Credentials,
        new: Password,
    },
    ChangeAddress {
        who: Credentials,
        addresses: Vec<String>,
    },
    Signoff {
        who: Credentials,
    },
    /// `confirm address <userid> <code>`: the code of a confirmation mail
    /// proves that an address of the user is read.
    ConfirmAddress {
        userid: String,
        code: Password,
    },
    /// `None` ends the vacation (`off`).
    Vacation {
        who: Credentials,
        days: Option<u32>,
    },
    /// `vacation <userid> <pw>` without days: tell me my days left this
    /// year and whether I am on vacation.
    ShowVacation {
        who: Credentials,
    },
    /// Boards of these games (all when empty).
    List {
        games: Vec<String>,
    },
    Message {
        who: Credentials,
        to: Vec<String>,
    },
    /// The body to every user; only for the userids in `[server] admins`.
    Broadcast {
        who: Credentials,
    },
    AllShow {
        userid: String,
        filter: BoardFilter,
    },
    /// A command for one game; `game` is a registered game name, lower-case.
    Game {
        game: String,
        command: GameCommand,
    },
}

impl Command {
    /// The credentials the command carries, if any.
    pub fn credentials(&self) -> Option<&Credentials> {
        match self {
            Command::ChangePassword { who, .. }
            | Command::ChangeAddress { who, .. }
            | Command::Signoff { who }
            | Command::Vacation { who, .. }
            | Command::ShowVacation { who }
            | Command::Message { who, .. }
            | Command::Broadcast { who } => Some(who),
            Command::Help { .. }
            | Command::Signup { .. }
            | Command::ConfirmAddress { .. }
            | Command::List { .. }
            | Command::AllShow { .. } => None,
            Command::Game { command, .. } => match command {
                GameCommand::OnBoard { who, .. }
                | GameCommand::ShowAs { who, .. }
                | GameCommand::Subscribe { who, .. }
                | GameCommand::Unsubscribe { who, .. }
                | GameCommand::Notify { who, .. }
                | GameCommand::AcceptChallenges { who }
                | GameCommand::RejectChallenges { who }
                | GameCommand::Limit { who, .. }
                | GameCommand::ShowLimit { who }
                | GameCommand::Set { who, .. }
                | GameCommand::Seek { who, .. }
                | GameCommand::Tournament(TournamentCommand::Act { who, .. }) => Some(who),
                GameCommand::Help
                | GameCommand::Challenge { .. }
                | GameCommand::Preview { .. }
                | GameCommand::Show { .. }
                | GameCommand::ShowUsers { .. }
                | GameCommand::Games { .. }
                | GameCommand::Standings
                | GameCommand::History
                | GameCommand::Players
                | GameCommand::Record { .. }
                | GameCommand::Tournament(
                    TournamentCommand::Show { .. }
                    | TournamentCommand::Pgn { .. }
                    | TournamentCommand::List,
                ) => None,
            },
        }
    }

    /// Every password the command carries (its credentials', a new
    /// password, a signup's, a confirmation code): never quoted.
    pub fn passwords(&self) -> Vec<&Password> {
        let mut out: Vec<&Password> = self
            .credentials()
            .map(|c| &c.password)
            .into_iter()
            .collect();
        match self {
            Command::Signup { password, .. } => out.push(password),
            Command::ChangePassword { new, .. } => out.push(new),
            Command::ConfirmAddress { code, .. } => out.push(code),
            Command::Help { .. }
            | Command::ChangeAddress { .. }
            | Command::Signoff { .. }
            | Command::Vacation { .. }
            | Command::ShowVacation { .. }
            | Command::List { .. }
            | Command::Message { .. }
            | Command::Broadcast { .. }
            | Command::AllShow { .. }
            | Command::Game { .. } => {}
        }
        out
    }
}

/// A command together with the words it was read from, the password word
/// replaced by `*****`, for quoting in replies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub command: Command,
    pub masked: String,
}

/// Why a line is no command. `Display` is one plain sentence that says what
/// is wrong and how to write it right; `masked` is the line with any
/// password word replaced, for quoting.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    pub message: String,
    pub masked: String,
    /// The game named by the line, when there was one (for the error subject).
    pub game: Option<String>,
    /// The board named by the line, when there was one.
    pub board: Option<u32>,
}

/// What one mail asks for: its commands in order, each read or refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// True for Subject `multiple` (one combined answer).
    pub multiple: bool,
    /// For a mail with an empty Subject whose command was read from the
    /// first line of its body: the body after that line, where the
    /// comment is taken from. `None` when the Subject held the command.
    pub body_after_command: Option<String>,
    pub commands: Vec<Result<Parsed, ParseError>>,
}
