//! `<game> tournament ...` and `<game> tournaments`.
//!
//! Rulings:
//! - A tournament's name is 1 to [`MAX_TOURNAMENT_NAME`] characters of
//!   `a-z`, `0-9` and `-`, a letter or digit first (so it reads as no
//!   option); it is lower-cased, as userids are. The server checks it (and
//!   the words of `create` after the credentials) once the password is
//!   checked: a line whose credentials stand in their place is told what
//!   is wrong with it, not that its words are out of order.
//! - `create` reads `roundrobin` or `swiss` (any case), the number of
//!   players, then in any order `double` (round robin), `rounds R`
//!   (Swiss), game options (`-name`, `-name=value`) and the board timers
//!   a challenge takes (`--nagtime=D`, `--forfeittime=D`,
//!   `--totaltime=D`). The server checks the numbers against its bounds.

use super::*;

/// The longest tournament name.
pub const MAX_TOURNAMENT_NAME: usize = 16;

/// Most game options a `tournament create` line may carry.
const MAX_OPTIONS: usize = 16;

const TOURNAMENT_ACTIONS: &[&str] = &[
    "create", "join", "leave", "start", "withdraw", "show", "pgn",
];

/// Whether `word` is a tournament name as [`MAX_TOURNAMENT_NAME`] says.
pub fn is_tournament_name(word: &str) -> bool {
    word.len() <= MAX_TOURNAMENT_NAME
        && word
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

impl Parser<'_> {
    /// The words after `create <name> <userid> <pw>`.
    fn tournament_plan(&mut self) -> Res<TournamentPlan> {
        let kind = self.need()?;
        let swiss = match kind.to_ascii_lowercase().as_str() {
            "swiss" => true,
            "roundrobin" | "round-robin" => false,
            _ => return Err(self.bad(kind, "roundrobin or swiss")),
        };
        let count = self.need()?;
        let players = self.number(count, "the number of players")?;
        let mut plan = TournamentPlan {
            swiss,
            players,
            double: false,
            rounds: None,
            options: Vec::new(),
            timers: Timers::default(),
            tiebreaks: None,
        };
        while let Some(word) = self.next() {
            let lower = word.to_ascii_lowercase();
            if lower == "double" && !swiss {
                plan.double = true;
            } else if lower == "rounds" && swiss {
                let n = self.need()?;
                plan.rounds = Some(self.number(n, "the number of rounds")?);
            } else if lower == "tiebreaks" {
                let list = self.need()?;
                plan.tiebreaks = Some(
                    crate::tournament::parse_tiebreaks(list)
                        .map_err(|e| self.fail(format!("{e}.")))?,
                );
            } else if let Some(opt) = word.strip_prefix("--") {
                self.board_timer(word, opt, &mut plan.timers)?;
            } else if word.starts_with('-') {
                if plan.options.len() == MAX_OPTIONS {
                    return Err(self.fail(format!(
                        "{} is one game option too many: a tournament takes at most \
                         {MAX_OPTIONS}.",
                        self.slot(word)
                    )));
                }
                plan.options.push(self.game_option(word)?);
            } else {
                let what = if swiss {
                    "rounds R, tiebreaks LIST, a game option or a board timer (--nagtime=D ...)"
                } else {
                    "double, tiebreaks LIST, a game option or a board timer (--nagtime=D ...)"
                };
                return Err(self.bad(word, what));
            }
        }
        if swiss && plan.rounds.is_none() {
            return Err(self.fail(format!(
                "a Swiss tournament needs its number of rounds, like: {} tournament create \
                 spring alice secret swiss 8 rounds 5.",
                self.game.unwrap_or("chess")
            )));
        }
        Ok(plan)
    }

    /// `--nagtime=D`, `--forfeittime=D` or `--totaltime=D` into `timers`.
    fn board_timer(&self, word: &str, opt: &str, timers: &mut Timers) -> Res<()> {
        let what = "a board option (those are --nagtime=N, --forfeittime=N and --totaltime=N, \
                    in days)";
        let Some((name, value)) = opt.split_once('=') else {
            return Err(self.bad(word, what));
        };
        let slot = match name.to_ascii_lowercase().as_str() {
            "nagtime" => &mut timers.nag_days,
            "forfeittime" => &mut timers.forfeit_days,
            "totaltime" => &mut timers.total_days,
            _ => return Err(self.bad(word, what)),
        };
        let days = self.number(value, "a number of days")?;
        if days == 0 {
            return Err(self.bad(word, "a board option of at least one day"));
        }
        *slot = Some(days);
        Ok(())
    }
}

/// `tournament <action> <name> [<userid> <pw> ...]`
pub(super) fn tournament(p: &mut Parser<'_>) -> Res<GameCommand> {
    let word = p.need()?;
    let action = word.to_ascii_lowercase();
    if !TOURNAMENT_ACTIONS.contains(&action.as_str()) {
        return Err(p.bad(word, &format!("one of {}", list_words(TOURNAMENT_ACTIONS))));
    }
    // The name's shape is checked by the server, after the password.
    let name = p.need()?.to_ascii_lowercase();
    let action = match action.as_str() {
        "show" => return Ok(GameCommand::Tournament(TournamentCommand::Show { name })),
        "pgn" => return Ok(GameCommand::Tournament(TournamentCommand::Pgn { name })),
        "join" => TournamentAction::Join,
        "leave" => TournamentAction::Leave,
        "start" => TournamentAction::Start,
        "withdraw" => TournamentAction::Withdraw,
        _ => {
            let who = p.creds()?;
            let plan = p.tournament_plan().map_err(|e| {
                p.i = p.toks.len();
                e.message
            });
            let action = TournamentAction::Create(plan);
            return Ok(GameCommand::Tournament(TournamentCommand::Act {
                name,
                who,
                action,
            }));
        }
    };
    let who = p.creds()?;
    Ok(GameCommand::Tournament(TournamentCommand::Act {
        name,
        who,
        action,
    }))
}

/// `tournaments`
pub(super) fn tournaments(_: &mut Parser<'_>) -> Res<GameCommand> {
    Ok(GameCommand::Tournament(TournamentCommand::List))
}
