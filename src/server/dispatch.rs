//! The dispatch tables: which handler runs each command of the language,
//! and which commands need an authenticated From. A board verb is one
//! [`BoardAct`]: [`board_act`] is its only row here.

use super::{
    account, admin, challenge, conditional, confirm, help, listings, play, preview, queue,
    settings, show, social, submit, tournament,
};
use super::{Ctx, Handled, Refusal, Reply};
use game::command::{BoardAct, Command, Credentials, GameCommand, MoveAction, Parsed};
use rules::Game;

/// Run one parsed command.
pub(super) fn execute(ctx: &Ctx<'_>, parsed: &Parsed) -> Handled<Vec<Reply>> {
    match &parsed.command {
        Command::Help { topics } => help::help(ctx, topics),
        Command::Signup {
            userid,
            password,
            addresses,
        } => account::signup(ctx, userid, password, addresses),
        Command::ChangePassword { who, new } => account::change_password(ctx, who, new),
        Command::ChangeAddress { who, addresses } => account::change_address(ctx, who, addresses),
        Command::Signoff { who } => account::signoff(ctx, who),
        Command::ConfirmAddress { userid, code } => confirm::confirm_address(ctx, userid, code),
        Command::List { games } => listings::list(ctx, games),
        Command::Vacation { who, days } => settings::vacation(ctx, who, *days),
        Command::ShowVacation { who } => settings::vacation_report(ctx, who),
        Command::Message { who, to } => social::message_users(ctx, who, to),
        Command::Broadcast { who } => admin::broadcast(ctx, who),
        Command::AllShow { userid, filter } => listings::all_show(ctx, userid, *filter),
        Command::Game { game, command } => execute_game(ctx, game, command),
    }
}

fn execute_game(ctx: &Ctx<'_>, game: &str, command: &GameCommand) -> Handled<Vec<Reply>> {
    let Some(rules) = rules::game(game) else {
        return Err(Refusal::new(format!(
            "This server does not referee {game} yet; send \"help\" for the games it has."
        ))
        .into());
    };
    match command {
        GameCommand::Help => help::help(ctx, &[rules.name().to_string()]),
        GameCommand::Challenge {
            players,
            options,
            timers,
        } => challenge::challenge(ctx, rules, players, options, timers),
        GameCommand::OnBoard {
            board,
            who,
            guard,
            act,
        } => board_act(ctx, rules, *board, who, *guard, act),
        GameCommand::Preview { from, moves } => preview::preview(ctx, rules, from, moves),
        GameCommand::Show { boards } => show::show(ctx, rules, boards),
        GameCommand::ShowUsers { users, filter } => show::show_users(ctx, rules, users, *filter),
        GameCommand::Games { users, filter } => show::games(ctx, rules, users, *filter),
        GameCommand::Set { who, look } => settings::set_look(ctx, rules, who, *look),
        GameCommand::Subscribe { boards, all, who } => {
            social::subscribe(ctx, rules, boards, *all, who)
        }
        GameCommand::Unsubscribe { boards, all, who } => {
            social::unsubscribe(ctx, rules, boards, *all, who)
        }
        GameCommand::Standings => listings::standings(ctx, rules),
        GameCommand::ShowAs {
            who,
            boards,
            filter,
        } => listings::show_as(ctx, rules, who, boards, *filter),
        GameCommand::Notify { who, boards } => settings::notify(ctx, rules, who, boards),
        GameCommand::AcceptChallenges { who } => {
            settings::challenges(ctx, rules, who, |s| s.accepts = true)
        }
        GameCommand::RejectChallenges { who } => {
            settings::challenges(ctx, rules, who, |s| s.accepts = false)
        }
        GameCommand::Limit { who, max } => {
            settings::challenges(ctx, rules, who, |s| s.limit = *max)
        }
        GameCommand::ShowLimit { who } => settings::limit_report(ctx, rules, who),
        GameCommand::History => listings::history(ctx, rules),
        GameCommand::Players => listings::players(ctx, rules),
        GameCommand::Seek { who, note } => challenge::seek(ctx, rules, who, note),
        GameCommand::Record { board } => show::record(ctx, rules, *board),
        GameCommand::Tournament(command) => tournament::execute(ctx, rules, command),
    }
}

/// A player's act on board `board`: each handler seats the player with
/// `seat::seat` (`chat`, open to observers, authenticates alone).
fn board_act(
    ctx: &Ctx<'_>,
    game: &'static dyn Game,
    board: u32,
    who: &Credentials,
    guard: Option<u32>,
    act: &BoardAct,
) -> Handled<Vec<Reply>> {
    match act {
        BoardAct::Move(action) => play::act(ctx, game, board, who, action, guard),
        BoardAct::Resign => play::act(ctx, game, board, who, &MoveAction::Resign, guard),
        BoardAct::Queue(action) => queue::queue(ctx, game, board, who, action, guard),
        BoardAct::Submit(action) => submit::submit(ctx, game, board, who, action, guard),
        BoardAct::ConfirmSubmitted => submit::confirm_submitted(ctx, game, board, who),
        BoardAct::If(what) => conditional::run(ctx, game, board, who, what),
        BoardAct::Chat => social::chat(ctx, game, board, who),
    }
}

/// The refusal of a command that needs no password from a mail whose From
/// the receiving MTA did not authenticate.
pub(super) const UNAUTHENTICATED: &str =
    "This server's mail host could not confirm that your mail comes from\n\
the address in its From (no DMARC or aligned DKIM pass), and this command\n\
needs no password, so it is not run; send it from a mail system that\n\
signs its mail (DKIM), or ask the server's admin.";

/// Whether `command` may only come from an authenticated From when
/// `[security] authserv_id` is set: a command that needs no password and
/// mails others than the sender (a challenge; a reply by token is checked
/// in `reply`). Commands with a password are the password's; those that
/// only answer the sender cost the sender's address one mail.
pub(super) fn needs_authenticated_from(command: &Command) -> bool {
    matches!(
        command,
        Command::Game {
            command: GameCommand::Challenge { .. },
            ..
        }
    )
}
