//! The game verbs (`chess move ...`): one reader function per verb.

use super::*;

impl<'a> Parser<'a> {
    pub(super) fn game_command(&mut self, game: &'static str) -> Res<GameCommand> {
        let Some(verb_word) = self.next() else {
            return Err(self.fail(format!(
                "{game} needs a command after it, like: {game} help; the commands are {}.",
                list_words(&verb_names(GAME_VERBS))
            )));
        };
        let v = self.i - 1;
        let spec = match lookup(GAME_VERBS, verb_word) {
            Lookup::Found(spec) => spec,
            Lookup::Ambiguous(names) => {
                self.guess = guess_passwords(&self.toks, v, Creds::AfterBoard(4));
                return Err(self.ambiguous(verb_word, &names));
            }
            Lookup::InFull(_) | Lookup::Unknown => {
                return Err(self.unknown_game_verb(game, verb_word, v))
            }
        };
        // Messages name an alias as typed (`chess board needs ...`), a
        // prefix by the verb it stands for.
        let typed = verb_word.to_ascii_lowercase();
        let named = if spec.aliases.contains(&typed.as_str()) {
            typed.as_str()
        } else {
            spec.name
        };
        self.set_verb(format!("{game} {named}"), spec.usage, spec.creds, v);
        let command = (spec.read)(self)?;
        self.end()?;
        Ok(command)
    }

    pub(super) fn unknown_game_verb(&mut self, game: &str, word: &str, v: usize) -> ParseError {
        let verb = word.to_ascii_lowercase();
        let suggestion = suggest_verb(GAME_VERBS, &verb);
        self.guess = match suggestion.and_then(|s| exact(GAME_VERBS, s)) {
            Some(meant) => guess_passwords(&self.toks, v, meant.creds),
            None if self.toks.get(v + 1).is_some_and(|t| looks_numeric(t.text)) => {
                guess_passwords(&self.toks, v, Creds::AfterBoard(4))
            }
            None => guess_passwords(&self.toks, v, Creds::First),
        };
        if SPECIAL_MOVES.contains(&verb.as_str()) || verb == "draw" {
            let mv = if verb == "draw" { "propose" } else { &verb };
            return self.fail(format!(
                "{game} has no command {verb}; write it as a move instead, like: {game} move \
                 101 alice secret {mv}."
            ));
        }
        if let Some(account) = exact(ACCOUNT_VERBS, &verb) {
            let example = account.usage.example.replace("{v}", account.name);
            return self.fail(format!(
                "{verb} is no {game} command; write it without the game name, like: {example}."
            ));
        }
        if let Some(s) = suggestion {
            return self.fail(format!(
                "the second word is no {game} command; did you mean {s}, as in: {}?",
                self.corrected(v, s)
            ));
        }
        self.fail(format!(
            "the second word is no {game} command; the commands are {}.",
            list_words(&verb_names(GAME_VERBS))
        ))
    }

    /// `preview <board>[#N] <move>...` or `preview new [-options] [<move>...]`.
    pub(super) fn preview(&mut self, game: &str) -> Res<GameCommand> {
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
        let moves: Vec<String> = if let Some(moves) = super::pgn::main_line(&text) {
            moves
        } else if text.contains([',', ';']) {
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
    pub(super) fn game_option(&self, word: &str) -> Res<String> {
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
    pub(super) fn move_action(&mut self) -> Res<(MoveAction, Option<u32>)> {
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

    /// What `if` does, from the rest of the line: `list`, `cancel` with
    /// the beginning of the lines to drop (or none: all), or a line to
    /// add. Moves are split at commas or semicolons when the line has any,
    /// else at spaces (as `preview` splits them).
    pub(super) fn conditional_moves(&mut self) -> Res<Conditional> {
        let words = self.rest();
        let split = |words: &[&str]| -> Vec<String> {
            let text = words.join(" ");
            if let Some(moves) = super::pgn::main_line(&text) {
                moves
            } else if text.contains([',', ';']) {
                text.split([',', ';'])
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .map(str::to_string)
                    .collect()
            } else {
                words.iter().map(|w| w.to_string()).collect()
            }
        };
        let Some(first) = words.first() else {
            return Err(self.missing());
        };
        if first.eq_ignore_ascii_case("list") {
            if words.len() > 1 {
                return Err(self.fail(format!(
                    "{} list takes nothing after list; to add a line, leave list out, like: {}.",
                    self.cmd,
                    self.example()
                )));
            }
            return Ok(Conditional::List);
        }
        if first.eq_ignore_ascii_case("cancel") {
            return Ok(Conditional::Cancel(split(&words[1..])));
        }
        let moves = split(&words);
        if moves.is_empty() {
            return Err(self.missing());
        }
        Ok(Conditional::Add(moves))
    }

    pub(super) fn challenge(&mut self) -> Res<GameCommand> {
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
            // could be any of them: none is quoted or logged.
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

    pub(super) fn show(&mut self) -> Res<GameCommand> {
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

    pub(super) fn users_and_filter(&mut self) -> Res<(Vec<String>, Option<BoardFilter>)> {
        let mut users = Vec::new();
        let mut filter = None;
        for word in self.rest() {
            match filter_word(word) {
                Some(f) if filter.is_none() => filter = Some(f),
                Some(_) => {
                    return Err(self.fail(format!(
                        "{} is one filter too many, as only one of all, active, inactive and \
                         next may be given; {} needs {}, like: {}.",
                        self.slot(word),
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
}

// ------------------------------------------------------------ readers

pub(super) fn help(_: &mut Parser<'_>) -> Res<GameCommand> {
    Ok(GameCommand::Help)
}

pub(super) fn standings(_: &mut Parser<'_>) -> Res<GameCommand> {
    Ok(GameCommand::Standings)
}

pub(super) fn history(_: &mut Parser<'_>) -> Res<GameCommand> {
    Ok(GameCommand::History)
}

pub(super) fn players(_: &mut Parser<'_>) -> Res<GameCommand> {
    Ok(GameCommand::Players)
}

pub(super) fn pgn(p: &mut Parser<'_>) -> Res<GameCommand> {
    Ok(GameCommand::Record {
        board: p.board_no()?,
    })
}

pub(super) fn seek(p: &mut Parser<'_>) -> Res<GameCommand> {
    let who = p.creds()?;
    let note = p.rest().join(" ");
    Ok(GameCommand::Seek { who, note })
}

pub(super) fn challenge(p: &mut Parser<'_>) -> Res<GameCommand> {
    p.challenge()
}

/// A board act: `<board> <userid> <password>` and what `act` reads after
/// them (the act and its `#N` guard, if the verb takes one).
fn on_board(
    p: &mut Parser<'_>,
    act: impl FnOnce(&mut Parser<'_>) -> Res<(BoardAct, Option<u32>)>,
) -> Res<GameCommand> {
    let board = p.board_no()?;
    let who = p.creds()?;
    let (act, guard) = act(p)?;
    Ok(GameCommand::OnBoard {
        board,
        who,
        guard,
        act,
    })
}

/// `<board> <userid> <password> <move>[#N]`, as `move`, `queue` and
/// `submit` read it.
fn move_act(p: &mut Parser<'_>, act: fn(MoveAction) -> BoardAct) -> Res<GameCommand> {
    on_board(p, |p| {
        let (action, guard) = p.move_action()?;
        Ok((act(action), guard))
    })
}

pub(super) fn mv(p: &mut Parser<'_>) -> Res<GameCommand> {
    move_act(p, BoardAct::Move)
}

pub(super) fn queue(p: &mut Parser<'_>) -> Res<GameCommand> {
    move_act(p, BoardAct::Queue)
}

pub(super) fn submit(p: &mut Parser<'_>) -> Res<GameCommand> {
    move_act(p, BoardAct::Submit)
}

/// `if <board> <userid> <password> <moves>|list|cancel [<moves>]`.
pub(super) fn conditional(p: &mut Parser<'_>) -> Res<GameCommand> {
    on_board(p, |p| Ok((BoardAct::If(p.conditional_moves()?), None)))
}

pub(super) fn resign(p: &mut Parser<'_>) -> Res<GameCommand> {
    on_board(p, |_| Ok((BoardAct::Resign, None)))
}

pub(super) fn confirm(p: &mut Parser<'_>) -> Res<GameCommand> {
    on_board(p, |_| Ok((BoardAct::ConfirmSubmitted, None)))
}

pub(super) fn chat(p: &mut Parser<'_>) -> Res<GameCommand> {
    on_board(p, |_| Ok((BoardAct::Chat, None)))
}

pub(super) fn preview(p: &mut Parser<'_>) -> Res<GameCommand> {
    let game = p.game.unwrap_or("");
    p.preview(game)
}

pub(super) fn show(p: &mut Parser<'_>) -> Res<GameCommand> {
    p.show()
}

pub(super) fn showas(p: &mut Parser<'_>) -> Res<GameCommand> {
    let who = p.creds()?;
    let mut boards = Vec::new();
    let mut filter = None;
    for word in p.rest() {
        if let Some(f) = filter_word(word) {
            if filter.is_some() {
                return Err(p.bad(word, "a board number"));
            }
            filter = Some(f);
        } else {
            boards.push(p.number(word, "a board number or all, active, inactive or next")?);
        }
    }
    if filter.is_some() && !boards.is_empty() {
        return Err(p.fail(format!(
            "{} takes board numbers or one of all, active, inactive and next, not both, like: \
             {}.",
            p.cmd,
            p.example()
        )));
    }
    Ok(GameCommand::ShowAs {
        who,
        boards,
        filter: filter.unwrap_or_default(),
    })
}

pub(super) fn games(p: &mut Parser<'_>) -> Res<GameCommand> {
    let (users, filter) = p.users_and_filter()?;
    Ok(GameCommand::Games {
        users,
        filter: filter.unwrap_or_default(),
    })
}

/// The boards (or `all`) and credentials of `subscribe`/`unsubscribe`.
fn subscription(p: &mut Parser<'_>) -> Res<(Vec<u32>, bool, Credentials)> {
    let mut boards = Vec::new();
    let mut all = false;
    while let Some(word) = p.peek() {
        if word.eq_ignore_ascii_case("all") {
            all = true;
        } else if looks_numeric(word) {
            boards.push(p.number(word, "a board number")?);
        } else {
            break;
        }
        p.i += 1;
    }
    if boards.is_empty() && !all {
        return Err(match p.peek() {
            Some(word) => p.bad(word, "a board number or all"),
            None => p.missing(),
        });
    }
    if all && !boards.is_empty() {
        return Err(p.fail(format!(
            "{} takes board numbers or all, not both, like: {}.",
            p.cmd,
            p.example()
        )));
    }
    if let [board] = boards[..] {
        p.board = Some(board);
    }
    let who = p.creds()?;
    Ok((boards, all, who))
}

pub(super) fn subscribe(p: &mut Parser<'_>) -> Res<GameCommand> {
    let (boards, all, who) = subscription(p)?;
    Ok(GameCommand::Subscribe { boards, all, who })
}

pub(super) fn unsubscribe(p: &mut Parser<'_>) -> Res<GameCommand> {
    let (boards, all, who) = subscription(p)?;
    Ok(GameCommand::Unsubscribe { boards, all, who })
}

pub(super) fn notify(p: &mut Parser<'_>) -> Res<GameCommand> {
    let who = p.creds()?;
    let mut boards = Vec::new();
    for word in p.rest() {
        boards.push(p.number(word, "a board number")?);
    }
    Ok(GameCommand::Notify { who, boards })
}

/// The credentials of `accept`/`reject` (`verb`), which say whether the
/// player takes challenges; a board number after the verb meant a
/// proposal on a board, which is a move.
fn challenges_taken(p: &mut Parser<'_>, verb: &str) -> Res<Credentials> {
    if p.peek().is_some_and(looks_numeric) {
        let game = p.game.unwrap_or("");
        p.guess = guess_passwords(&p.toks, p.i - 1, Creds::AfterBoard(3));
        return Err(p.fail(format!(
            "{game} {verb} alice secret says whether you take challenges of {game}; to {verb} a \
             proposal on a board write it as a move, like: {game} move {} alice secret {verb}.",
            p.peek().filter(|w| is_digits(w)).unwrap_or("101")
        )));
    }
    p.creds()
}

pub(super) fn accept(p: &mut Parser<'_>) -> Res<GameCommand> {
    let who = challenges_taken(p, "accept")?;
    Ok(GameCommand::AcceptChallenges { who })
}

pub(super) fn reject(p: &mut Parser<'_>) -> Res<GameCommand> {
    let who = challenges_taken(p, "reject")?;
    Ok(GameCommand::RejectChallenges { who })
}

pub(super) fn limit(p: &mut Parser<'_>) -> Res<GameCommand> {
    let who = p.creds()?;
    Ok(match p.next() {
        None => GameCommand::ShowLimit { who },
        Some(word) if word.eq_ignore_ascii_case("inf") => GameCommand::Limit { who, max: None },
        Some(word) => GameCommand::Limit {
            who,
            max: Some(p.number(word, "a number of boards or inf")?),
        },
    })
}

pub(super) fn set(p: &mut Parser<'_>) -> Res<GameCommand> {
    let who = p.creds()?;
    let word = p.need()?;
    let look = match word.to_ascii_lowercase().as_str() {
        "small" => Look::Size(BoardSize::Small),
        "large" => Look::Size(BoardSize::Large),
        "flip" => Look::FromBlack(true),
        "noflip" => Look::FromBlack(false),
        "reply" => Look::Reply(true),
        "noreply" => Look::Reply(false),
        "html" => Look::Html(true),
        "plain" => Look::Html(false),
        "picture" => Look::Picture(true),
        "nopicture" => Look::Picture(false),
        "moves" => score(p)?,
        _ => {
            return Err(p.bad(
                word,
                "small, large, flip, noflip, reply, noreply, plain, html, picture, nopicture, \
                 moves all or moves last",
            ))
        }
    };
    Ok(GameCommand::Set { who, look })
}

/// `set <userid> <pw> moves all|last`: the whole score in turn mails, or
/// only the last moves.
fn score(p: &mut Parser<'_>) -> Res<Look> {
    let word = p.need()?;
    match word.to_ascii_lowercase().as_str() {
        "all" => Ok(Look::LastMovesOnly(false)),
        "last" => Ok(Look::LastMovesOnly(true)),
        _ => Err(p.bad(word, "all or last after moves")),
    }
}
