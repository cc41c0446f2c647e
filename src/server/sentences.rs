//! The sentences the commands share: a capital first letter for the
//! rules' sentences, counts and lists in words, the note on a move's
//! check mark, and a player's comment as it is relayed (their password
//! masked).

use super::masking::mask_word;
use super::Ctx;
use game::command::Password;
use rules::MoveError;

/// `s` with its first letter in upper case (the rules' errors start in
/// lower case; a refusal is a sentence).
pub(crate) fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A refused move as one sentence for the player. A sentence that starts
/// with the move as the player sent it (`b4 is not a legal move: ...`)
/// keeps it as sent: a capital would turn the pawn move `b4` into the
/// bishop move `B4`. Others start with a capital.
pub(crate) fn move_refusal(e: &MoveError) -> String {
    match e {
        MoveError::Illegal { .. } => e.to_string(),
        _ => capitalise(&e.to_string()),
    }
}

/// `n` with the word for one or for many (`1 game`, `2 games`, `0 games`).
pub(crate) fn counted(n: impl Into<i64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The refusal of a move sent when it is `to_act`'s turn, not the
/// sender's: the `queue` command that would have it played when their turn
/// comes, in full but for the password (never echoed). The move is quoted
/// as sent: the password was checked before this refusal, so the move
/// text is the player's move, not a misplaced secret.
pub(crate) fn out_of_turn(
    game: &dyn rules::Game,
    number: u32,
    to_act: &str,
    userid: &str,
    text: &str,
) -> String {
    format!(
        "It is {to_act}'s turn on {} board {number}, not yours. To have your move played when your turn comes (if it is legal then), queue it:\n  {} queue {number} {userid} <password> {}",
        game.name(),
        game.name(),
        text.trim()
    )
}

/// What a trailing check mark claims: `#` (or `++`) mate, `+` check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    Check,
    Mate,
}

/// The check mark at the end of move text, before any `!`/`?`; in a move
/// with a choice after a slash (Doppelganger's `b8=R+/g2`) the mark may
/// also stand before the slash.
fn mark_of(text: &str) -> Option<Mark> {
    let text = text.trim().trim_end_matches(['!', '?', ' ']);
    let ends = |t: &str| {
        let t = t.trim_end_matches(['!', '?', ' ']);
        if t.ends_with('#') || t.ends_with("++") {
            Some(Mark::Mate)
        } else if t.ends_with('+') {
            Some(Mark::Check)
        } else {
            None
        }
    };
    ends(text).or_else(|| text.split_once('/').and_then(|(before, _)| ends(before)))
}

/// Ruling: the check mark a player writes is not trusted.
/// When `input` ends in `+` or `#` (`++` counts as `#`) and the move as
/// played is stored as `stored` with another mark or none, the move is
/// played and stored as the rules write it, and this one sentence (for
/// the board mail) says so. A missing mark is no mistake: nothing is said.
/// Only games whose notation marks check and mate are judged (see
/// `Game::marks_checks`).
pub(crate) fn check_mark_note(player: &str, input: &str, stored: &str) -> Option<String> {
    let claimed = mark_of(input)?;
    let real = mark_of(stored);
    if real == Some(claimed) {
        return None;
    }
    let what = match real {
        Some(Mark::Mate) => "checkmate",
        Some(Mark::Check) => "check, not checkmate",
        None => "not check",
    };
    Some(format!(
        "{player} wrote {}, but that move is {what}: it is recorded as {stored}.",
        input.trim()
    ))
}

/// The sentence a board mail to an address not yet confirmed carries in
/// place of the comments it leaves out (`authors` wrote them; `None` when
/// there are none): nothing a player wrote goes to such an address, and the
/// player is told so and how to confirm.
pub(crate) fn held_back_comments(authors: &[String]) -> Option<String> {
    let (comments, are) = match authors.len() {
        0 => return None,
        1 => ("A comment", "is"),
        _ => ("Comments", "are"),
    };
    let mut names = authors.to_vec();
    names.sort();
    names.dedup();
    Some(format!(
        "{comments} from {} {are} held back from this mail: this address is not confirmed, and the server sends nothing a player wrote to an address before it is confirmed. To confirm it, reply to its confirmation mail keeping the Subject (for a new code: change address <userid> <password> <address>).",
        and_list(&names)
    ))
}

/// `a`, `a and b`, `a, b and c`.
pub(crate) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [a] => a.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The comment of this command with the name of who made it; a word equal
/// to the commander's password (any case) is masked, so a password typed
/// into the body is not relayed either.
pub(crate) fn commented(
    ctx: &Ctx<'_>,
    userid: Option<&str>,
    password: Option<&Password>,
) -> Option<(String, String)> {
    let comment = ctx.comment.trim();
    if comment.is_empty() {
        return None;
    }
    let comment = match password.map(Password::expose).filter(|p| !p.is_empty()) {
        Some(secret) => mask_word(comment, secret),
        None => comment.to_string(),
    };
    // Never the sender's address: addresses are not shown to other players.
    let who = userid.unwrap_or("the challenger");
    Some((who.to_string(), comment))
}

/// The body the sender wrote (a chat line, a message) as it is relayed to
/// others: a word equal to the password the command gave (any case) is
/// masked. It depends only on what the sender wrote, never on what the
/// account's password is.
pub(crate) fn own_text(ctx: &Ctx<'_>, password: &Password) -> String {
    let text = ctx.comment.trim();
    match password.expose() {
        "" => text.to_string(),
        secret => mask_word(text, secret),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_check_mark_that_does_not_match_the_stored_move_is_named() {
        use super::check_mark_note;
        assert_eq!(
            check_mark_note("alice", " Zxf7# ", "Zxf7+").as_deref(),
            Some("alice wrote Zxf7#, but that move is check, not checkmate: it is recorded as Zxf7+.")
        );
        assert!(check_mark_note("bob", "e5+!?", "e5")
            .unwrap()
            .contains("is not check"));
        assert!(check_mark_note("bob", "Qf7++", "Qf7+")
            .unwrap()
            .contains("check, not checkmate"));
        assert!(check_mark_note("bob", "Qf7+", "Qf7#")
            .unwrap()
            .contains("that move is checkmate"));
        // Before a Doppelganger choice, or after it.
        assert!(check_mark_note("bob", "b8=R+/g2", "b8=R/g2").is_some());
        assert!(check_mark_note("bob", "b8=R+/g2", "b8=R/g2+").is_none());
        assert!(check_mark_note("bob", "b8=R/g2#", "b8=R/g2#").is_none());
        // No mark, or the right one: nothing to say.
        assert!(check_mark_note("bob", "Qf7", "Qf7#").is_none());
        assert!(check_mark_note("bob", "Qf7#!", "Qf7#").is_none());
        assert!(check_mark_note("bob", "exd5/c7", "exd5/c7").is_none());
    }
}
