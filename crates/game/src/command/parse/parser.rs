//! The parser's state and the readers of single words every verb uses.

use super::*;

pub(super) struct Parser<'a> {
    pub(super) line: &'a str,
    pub(super) toks: Vec<Tok<'a>>,
    /// Next word to read.
    pub(super) i: usize,
    /// Password words read.
    pub(super) pw: Vec<usize>,
    /// Where passwords may stand, should the line fail.
    pub(super) guess: Vec<usize>,
    pub(super) game: Option<&'static str>,
    pub(super) board: Option<u32>,
    /// The command as named in messages (`chess move`, `signup`).
    pub(super) cmd: String,
    pub(super) usage: Usage,
}

pub(super) type Res<T> = Result<T, ParseError>;

impl<'a> Parser<'a> {
    pub(super) fn finish(self, command: Command) -> Parsed {
        Parsed {
            command,
            masked: mask(self.line, &self.toks, &self.pw),
        }
    }

    pub(super) fn fail(&self, message: String) -> ParseError {
        let mut idxs = self.pw.clone();
        idxs.extend(&self.guess);
        ParseError {
            message,
            masked: mask(self.line, &self.toks, &idxs),
            game: self.game.map(str::to_string),
            board: self.board,
        }
    }

    pub(super) fn example(&self) -> String {
        let verb = self.cmd.rsplit(' ').next().unwrap_or("");
        self.usage
            .example
            .replace("{g}", self.game.unwrap_or(""))
            .replace("{v}", verb)
    }

    /// `chess move needs ..., like: chess move 101 alice secret Nf3.`
    pub(super) fn missing(&self) -> ParseError {
        self.fail(format!(
            "{} needs {}, like: {}.",
            self.cmd,
            self.usage.needs,
            self.example()
        ))
    }

    /// `the third word`: the place of `word`, a word of the line (or a
    /// part of one), named instead of quoting it (see `quote`).
    pub(super) fn slot(&self, word: &str) -> String {
        let base = self.line.as_ptr() as usize;
        let at = (word.as_ptr() as usize).wrapping_sub(base);
        match self.toks.iter().position(|t| t.start <= at && at < t.end) {
            Some(i) => format!("the {} word", ordinal(i)),
            None => "a word".to_string(),
        }
    }

    /// `the third word should be a board number; chess move needs ...,
    /// like: ...` (the word itself is never quoted).
    pub(super) fn bad(&self, word: &str, what: &str) -> ParseError {
        self.fail(format!(
            "{} should be {}; {} needs {}, like: {}.",
            self.slot(word),
            what,
            self.cmd,
            self.usage.needs,
            self.example()
        ))
    }

    pub(super) fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.i).map(|t| t.text)
    }

    pub(super) fn next(&mut self) -> Option<&'a str> {
        let t = self.peek();
        if t.is_some() {
            self.i += 1;
        }
        t
    }

    pub(super) fn need(&mut self) -> Res<&'a str> {
        self.next().ok_or_else(|| self.missing())
    }

    /// Refuse any word left.
    pub(super) fn end(&self) -> Res<()> {
        match self.peek() {
            None => Ok(()),
            Some(word) if self.usage.needs.is_empty() => Err(self.fail(format!(
                "{} takes no more words, but {} follows; write just: {}.",
                self.cmd,
                self.slot(word),
                self.example()
            ))),
            Some(word) => Err(self.fail(format!(
                "{} is one word too many; {} needs only {}, like: {}.",
                self.slot(word),
                self.cmd,
                self.usage.needs,
                self.example()
            ))),
        }
    }

    /// The rest of the words.
    pub(super) fn rest(&mut self) -> Vec<&'a str> {
        let words = self.toks[self.i..].iter().map(|t| t.text).collect();
        self.i = self.toks.len();
        words
    }

    pub(super) fn number(&self, word: &str, what: &str) -> Res<u32> {
        if !is_digits(word) {
            return Err(self.bad(word, what));
        }
        word.parse().map_err(|_| {
            self.fail(format!(
                "{} is too large to be {what}; {} needs {}, like: {}.",
                self.slot(word),
                self.cmd,
                self.usage.needs,
                self.example()
            ))
        })
    }

    pub(super) fn board_no(&mut self) -> Res<u32> {
        let word = self.need()?;
        let board = self.number(word, "a board number")?;
        self.board = Some(board);
        Ok(board)
    }

    /// `101` or `101#7`.
    pub(super) fn board_ref(&self, word: &str) -> Res<BoardRef> {
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

    pub(super) fn check_userid(&self, word: &str) -> Res<String> {
        if is_valid_userid(word) {
            Ok(word.to_ascii_lowercase())
        } else if looks_numeric(word) {
            Err(self.bad(word, "a userid (userids start with a letter)"))
        } else {
            Err(self.fail(format!(
                "{} should be a userid, and userids are a letter followed by letters, digits, \
                 '-', '_' or '.', at most {} in all; {} needs {}, like: {}.",
                self.slot(word),
                crate::command::MAX_USERID_LEN,
                self.cmd,
                self.usage.needs,
                self.example()
            )))
        }
    }

    pub(super) fn userid(&mut self) -> Res<String> {
        let word = self.need()?;
        self.check_userid(word)
    }

    pub(super) fn password(&mut self) -> Res<Password> {
        if self.i < self.toks.len() {
            self.pw.push(self.i);
        }
        let word = self.need()?;
        Ok(Password::new(word))
    }

    /// A password being chosen (signup, change password): one that would
    /// be quoted back as a number or a word of the language is refused
    /// (see `quote`).
    pub(super) fn new_password(&mut self) -> Res<Password> {
        let at = self.i;
        let password = self.password()?;
        match password_problem(password.expose()) {
            None => Ok(password),
            Some(why) => Err(self.fail(format!(
                "{why}, so the {} word cannot be the password; choose another, like: {}.",
                ordinal(at),
                self.example()
            ))),
        }
    }

    pub(super) fn creds(&mut self) -> Res<Credentials> {
        let userid = self.userid()?;
        let password = self.password()?;
        Ok(Credentials { userid, password })
    }

    pub(super) fn address(&self, word: &str) -> Res<String> {
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

    pub(super) fn set_verb(&mut self, cmd: String, usage: Usage, creds: Creds, v: usize) {
        self.cmd = cmd;
        self.usage = usage;
        self.guess = guess_passwords(&self.toks, v, creds);
    }

    // ------------------------------------------------------------ commands

    pub(super) fn command(&mut self) -> Res<Command> {
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
        match lookup(ACCOUNT_VERBS, &word) {
            Lookup::Found(verb) => {
                self.set_verb(verb.cmd.to_string(), verb.usage, verb.creds, 0);
                let command = (verb.read)(self)?;
                self.end()?;
                return Ok(command);
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
        if let Some(verb) = exact(GAME_VERBS, &word) {
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
        let suggestion = suggest_game(&word).or_else(|| suggest_verb(ACCOUNT_VERBS, &word));
        Err(self.fail(match suggestion {
            Some(s) => format!(
                "the first word is no game or command I know; did you mean {s}, as in: {}?",
                self.corrected(0, s)
            ),
            None => "the first word is no game or command I know; send a mail with the Subject \
                     help for the list of games and commands."
                .to_string(),
        }))
    }

    /// The line as it may be quoted in a sentence, with word `i` replaced
    /// by `word`: only words of the language and numbers are shown (see
    /// `quote`), any other word may be the password in a wrong place.
    pub(super) fn corrected(&self, i: usize, word: &str) -> String {
        let masked = strict_quote(&self.fail(String::new()).masked, |_| false);
        let toks = tokenize(&masked);
        match toks.get(i) {
            Some(t) => format!("{}{word}{}", &masked[..t.start], &masked[t.end..]),
            None => masked,
        }
    }

    /// `the first word could be set, show, ...; write more of it.`
    pub(super) fn ambiguous(&self, word: &str, names: &[&str]) -> ParseError {
        let list = match names {
            [init @ .., last] if !init.is_empty() => format!("{} or {last}", init.join(", ")),
            _ => names.join(""),
        };
        self.fail(format!(
            "{} could be {list}; write more of the word.",
            self.slot(word)
        ))
    }

    /// A prefix of a verb that must be written in full.
    pub(super) fn in_full(&self, word: &str, verb: &Verb<Command>) -> ParseError {
        self.fail(format!(
            "{} could be {}, which must be written in full, as it ends your account; like: {}.",
            self.slot(word),
            verb.name,
            self.example()
        ))
    }
}
