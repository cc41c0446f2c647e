//! The verbs: one table per scope, each entry the verb's words, its
//! usage, where its password stands and the function that reads it.

use super::*;

/// What a verb needs, for error messages. `{g}` stands for the game name,
/// `{v}` for the verb.
#[derive(Clone, Copy)]
pub(super) struct Usage {
    pub(super) needs: &'static str,
    pub(super) example: &'static str,
}

impl Usage {
    pub(super) const NONE: Usage = Usage {
        needs: "",
        example: "",
    };
}

/// Where a verb's password stands, for masking lines that fail.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Creds {
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
    /// `<verb> <action> <name> <userid> <password> ...` (`tournament`).
    AfterName,
}

/// Reads the words after a verb (the parser stands at the first of
/// them); the words left over are refused after it.
pub(super) type Reader<C> = fn(&mut Parser<'_>) -> Res<C>;

/// One verb of the language: everything about it in one entry. The two
/// tables ([`GAME_VERBS`] for the verbs after a game name, which read a
/// [`GameCommand`], and [`ACCOUNT_VERBS`], which read a [`Command`]) are
/// the one list that reading, prefix matching, "did you mean" and the
/// lists in messages (and, through [`verbs`], the help page) all use. A
/// new command is one entry here, its reader, and its handler in the
/// server; every fact of a command the server asks (its credentials, its
/// board, whether it only reads) is an exhaustive match on [`Command`].
pub(super) struct Verb<C: 'static> {
    pub(super) name: &'static str,
    /// How messages name the command (`all show` for `all`).
    pub(super) cmd: &'static str,
    /// Other words for the verb: pbmserv's habits (`board` for `move`).
    pub(super) aliases: &'static [&'static str],
    /// Whether a unique prefix of the name stands for it. Not for the
    /// verbs that end an account: those are written in full.
    pub(super) prefix: bool,
    pub(super) usage: Usage,
    pub(super) creds: Creds,
    pub(super) read: Reader<C>,
}

pub(super) const MOVE_USAGE: Usage = Usage {
    needs: "a board number, your userid, your password and a move",
    example: "{g} {v} 101 alice secret Nf3",
};
pub(super) const BOARD_CREDS: Usage = Usage {
    needs: "a board number, your userid and your password",
    example: "{g} {v} 101 alice secret",
};
pub(super) const CREDS: Usage = Usage {
    needs: "your userid and your password",
    example: "{g} {v} alice secret",
};
pub(super) const NOTHING: Usage = Usage {
    needs: "",
    example: "{g} {v}",
};

pub(super) const fn verb<C>(
    name: &'static str,
    aliases: &'static [&'static str],
    usage: Usage,
    creds: Creds,
    read: Reader<C>,
) -> Verb<C> {
    Verb {
        name,
        cmd: name,
        aliases,
        prefix: true,
        usage,
        creds,
        read,
    }
}

/// The verbs after a game name, in the order messages list them.
pub(super) const GAME_VERBS: &[Verb<GameCommand>] = &[
    verb("help", &[], NOTHING, Creds::None, game::help),
    verb(
        "challenge",
        &[],
        Usage {
            needs: "the userids of the two players, White first",
            example: "{g} challenge alice bob",
        },
        Creds::None,
        game::challenge,
    ),
    verb(
        "move",
        &["board"],
        MOVE_USAGE,
        Creds::AfterBoard(4),
        game::mv,
    ),
    verb(
        "queue",
        &["qmove", "qboard", "moveq", "boardq"],
        MOVE_USAGE,
        Creds::AfterBoard(4),
        game::queue,
    ),
    verb(
        "if",
        &[],
        Usage {
            needs: "a board number, your userid, your password and a line of moves (or list, \
                    or cancel)",
            example: "{g} if 101 alice secret e5 Nf3 Nc6 Bb5",
        },
        Creds::AfterBoard(4),
        game::conditional,
    ),
    verb(
        "resign",
        &[],
        BOARD_CREDS,
        Creds::AfterBoard(3),
        game::resign,
    ),
    verb(
        "submit",
        &[],
        MOVE_USAGE,
        Creds::AfterBoard(4),
        game::submit,
    ),
    verb(
        "confirm",
        &[],
        BOARD_CREDS,
        Creds::AfterBoard(3),
        game::confirm,
    ),
    verb(
        "preview",
        &[],
        Usage {
            needs: "a board number (or new, for the start position) and moves",
            example: "{g} preview 101 e4 e5 Nf3",
        },
        Creds::None,
        game::preview,
    ),
    verb(
        "show",
        &[],
        Usage {
            needs: "board numbers, or userids and optionally all, active, inactive or next",
            example: "{g} show 101 102#7 or {g} show alice next",
        },
        Creds::None,
        game::show,
    ),
    verb(
        "showas",
        &[],
        Usage {
            needs: "your userid, your password and board numbers or one of all, active, \
                    inactive or next",
            example: "{g} showas alice secret 101",
        },
        Creds::First,
        game::showas,
    ),
    verb(
        "games",
        &[],
        Usage {
            needs: "userids (or none for everyone) and optionally all, active, inactive or next",
            example: "{g} games alice active",
        },
        Creds::None,
        game::games,
    ),
    verb("chat", &[], BOARD_CREDS, Creds::AfterBoard(3), game::chat),
    verb(
        "subscribe",
        // pbmserv's short form, although `submit` starts alike.
        &["sub"],
        Usage {
            needs: "a board number (or all), your userid and your password",
            example: "{g} {v} 101 alice secret",
        },
        Creds::AfterBoards,
        game::subscribe,
    ),
    verb(
        "unsubscribe",
        &[],
        Usage {
            needs: "a board number (or all), your userid and your password",
            example: "{g} {v} 101 alice secret",
        },
        Creds::AfterBoards,
        game::unsubscribe,
    ),
    verb(
        "notify",
        &[],
        Usage {
            needs: "your userid, your password and board numbers (or none for all your boards)",
            example: "{g} notify alice secret 101",
        },
        Creds::First,
        game::notify,
    ),
    verb("accept", &[], CREDS, Creds::First, game::accept),
    verb("reject", &[], CREDS, Creds::First, game::reject),
    verb(
        "limit",
        &[],
        Usage {
            needs: "your userid, your password and a number of boards or inf (or nothing, to \
                    see your limit)",
            example: "{g} limit alice secret 5",
        },
        Creds::First,
        game::limit,
    ),
    verb(
        "set",
        &[],
        Usage {
            needs: "your userid, your password and small, large, flip, noflip, reply, noreply, \
                    plain, html, picture, nopicture, moves all or moves last",
            example: "{g} set alice secret small",
        },
        Creds::First,
        game::set,
    ),
    verb(
        "standings",
        &["ratings"],
        NOTHING,
        Creds::None,
        game::standings,
    ),
    verb("history", &[], NOTHING, Creds::None, game::history),
    verb("players", &["users"], NOTHING, Creds::None, game::players),
    verb(
        "pgn",
        &[],
        Usage {
            needs: "a board number",
            example: "{g} pgn 101",
        },
        Creds::None,
        game::pgn,
    ),
    verb(
        "seek",
        &[],
        Usage {
            needs: "your userid and your password, and a note for your opponent if you like",
            example: "{g} seek alice secret evenings only",
        },
        Creds::First,
        game::seek,
    ),
    verb(
        "tournament",
        &[],
        Usage {
            needs: "create, join, leave, start, withdraw, show or pgn, the tournament's name \
                    and (but for show and pgn) your userid and your password",
            example: "{g} tournament join spring alice secret",
        },
        Creds::AfterName,
        tournament::tournament,
    ),
    verb(
        "tournaments",
        &[],
        NOTHING,
        Creds::None,
        tournament::tournaments,
    ),
];

/// The verbs that stand first, in the order messages list them.
pub(super) const ACCOUNT_VERBS: &[Verb<Command>] = &[
    verb(
        "help",
        &[],
        Usage {
            needs: "",
            example: "help chess",
        },
        Creds::None,
        account::help,
    ),
    verb(
        "signup",
        &[],
        Usage {
            needs: "a userid, a password and optionally your mail addresses",
            example: "signup alice secret alice@example.org",
        },
        Creds::First,
        account::signup,
    ),
    verb(
        "change",
        &[],
        Usage {
            needs: "password or address, your userid, your password and the new password or \
                    addresses",
            example: "change password alice oldsecret newsecret",
        },
        Creds::Change,
        account::change,
    ),
    verb(
        "confirm",
        &[],
        Usage {
            needs: "address, your userid and the code of the confirmation mail",
            example: "confirm address alice K7Q3P9",
        },
        Creds::Change,
        account::confirm,
    ),
    Verb {
        prefix: false,
        ..verb(
            "signoff",
            &[],
            Usage {
                needs: "your userid and your password",
                example: "{v} alice secret",
            },
            Creds::First,
            account::signoff,
        )
    },
    Verb {
        prefix: false,
        ..verb(
            "delete",
            &[],
            Usage {
                needs: "your userid and your password",
                example: "{v} alice secret",
            },
            Creds::First,
            account::signoff,
        )
    },
    verb(
        "vacation",
        &[],
        Usage {
            needs: "your userid, your password and a number of days or off (or nothing, to see \
                    your days left)",
            example: "vacation alice secret 14",
        },
        Creds::First,
        account::vacation,
    ),
    verb(
        "list",
        &[],
        Usage {
            needs: "game names, or nothing for all games",
            example: "list chess",
        },
        Creds::None,
        account::list,
    ),
    verb(
        "message",
        &[],
        Usage {
            needs: "your userid, your password and the userids to write to",
            example: "message alice secret bob",
        },
        Creds::First,
        account::message,
    ),
    verb(
        "broadcast",
        &[],
        Usage {
            needs: "your userid and your password (the message is the body)",
            example: "broadcast richard secret",
        },
        Creds::First,
        account::broadcast,
    ),
    Verb {
        cmd: "all show",
        ..verb(
            "all",
            &[],
            Usage {
                needs: "a userid and optionally next or active",
                example: "all show alice next",
            },
            Creds::None,
            account::all_show,
        )
    },
];

/// The names of a table's verbs, for messages.
pub(super) fn verb_names<C>(table: &'static [Verb<C>]) -> Vec<&'static str> {
    table.iter().map(|v| v.name).collect()
}

/// The game verbs (`game` true) or account verbs with their aliases, in the
/// order help lists them; the help page is rendered from this.
pub fn verbs(game: bool) -> Vec<(&'static str, &'static [&'static str])> {
    if game {
        GAME_VERBS.iter().map(|v| (v.name, v.aliases)).collect()
    } else {
        ACCOUNT_VERBS.iter().map(|v| (v.name, v.aliases)).collect()
    }
}

/// What a word names among the verbs of a table.
pub(super) enum Lookup<C: 'static> {
    Found(&'static Verb<C>),
    /// A prefix of several verbs (their names).
    Ambiguous(Vec<&'static str>),
    /// A prefix of a verb that must be written in full.
    InFull(&'static Verb<C>),
    Unknown,
}

/// Find a verb by its name or an alias (any case), else by a prefix of
/// names, else by a prefix of aliases; a prefix must name one verb.
pub(super) fn lookup<C>(table: &'static [Verb<C>], word: &str) -> Lookup<C> {
    let w = word.to_ascii_lowercase();
    if let Some(v) = table
        .iter()
        .find(|v| v.name == w || v.aliases.contains(&w.as_str()))
    {
        return Lookup::Found(v);
    }
    let mut by_name: Vec<&Verb<C>> = table.iter().filter(|v| v.name.starts_with(&w)).collect();
    if by_name.is_empty() {
        by_name = table
            .iter()
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
pub(super) fn exact<C>(table: &'static [Verb<C>], word: &str) -> Option<&'static Verb<C>> {
    match lookup(table, word) {
        Lookup::Found(v) if v.name == word || v.aliases.contains(&word) => Some(v),
        _ => None,
    }
}

pub(super) const SPECIAL_MOVES: &[&str] =
    &["resign", "propose", "undo", "accept", "reject", "pass"];

/// Where the password stands on a line with this verb at `v` that does not
/// parse: the word in the password position of the verb's grammar, and
/// never the userid's. One reading beyond the grammar: when the word in a
/// board number's place is no number and the line is a word short, the
/// board may have been left out (the words stand one place to the left) or
/// mistyped; the password positions of both readings are masked.
pub(super) fn guess_passwords(toks: &[Tok<'_>], v: usize, creds: Creds) -> Vec<usize> {
    let a = v + 1;
    let n = toks.len();
    let num = |i: usize| toks.get(i).is_some_and(|t| looks_numeric(t.text));
    match creds {
        Creds::None => Vec::new(),
        Creds::First => vec![a + 1],
        Creds::AfterName => vec![a + 3],
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
pub(super) enum ChangeWhat {
    Password,
    Address,
}

/// The word after `change`: `password`, `address` (or `addresses`), a
/// prefix of either, or a near miss (`passwd`).
pub(super) fn change_subject(word: &str) -> Option<ChangeWhat> {
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
pub(super) fn guess_unknown(toks: &[Tok<'_>]) -> Vec<usize> {
    let first = toks.first().map_or("", |t| t.text);
    if let Some(v) = suggest_verb(ACCOUNT_VERBS, first).and_then(|w| exact(ACCOUNT_VERBS, w)) {
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
pub(super) fn verb_for_guess(word: &str) -> Option<&'static Verb<GameCommand>> {
    match lookup(GAME_VERBS, word) {
        Lookup::Found(v) => Some(v),
        _ => suggest_verb(GAME_VERBS, word).and_then(|w| exact(GAME_VERBS, w)),
    }
}
