//! How mails are taken and answered: `multiple`, duplicate message ids, the
//! rate limit, never-answered mail, and comments.

use super::*;

#[test]
fn multiple_runs_each_line_and_answers_once_per_recipient() {
    let mut w = World::with_board();
    w.mail(
        "a@x",
        "multiple",
        "chess move 101 alice pa e4\nchess show 101\nchess move 101 alice pa e5\n\nignored after blank",
    );
    let r = w.replies();
    let to_a: Vec<_> = r.iter().filter(|m| m.to == "a@x").collect();
    assert_eq!(to_a.len(), 1, "{r:#?}");
    // The move, the show, and the refused second move, in one answer.
    assert!(
        to_a[0].body.contains("It is bob's turn."),
        "{}",
        to_a[0].body
    );
    // The refusal is said in the board's mail (see `once`).
    assert!(
        common::joined(&to_a[0].body)
            .contains("Refused: \"chess move 101 alice ***** e5\": It is bob's turn on chess board 101, not yours"),
        "{}",
        to_a[0].body
    );
    assert_eq!(
        store::plies(&w.conn, store::BoardId::new("chess", 101))
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn duplicate_message_ids_change_nothing() {
    let mut w = World::with_board();
    assert_eq!(
        w.mail_with_id("same@t", "a@x", "chess move 101 alice pa e4", ""),
        MailOutcome::Answered {
            commands: 1,
            refused: 0
        }
    );
    w.replies();
    assert_eq!(
        w.mail_with_id("same@t", "a@x", "chess move 101 alice pa e4", ""),
        MailOutcome::Duplicate
    );
    assert!(w.replies().is_empty());
}

#[test]
fn rate_limit_drops_with_one_notice() {
    let mut w = World::new();
    w.config.limits.commands_per_hour = 3;
    for _ in 0..3 {
        w.mail("a@x", "help", "");
    }
    assert_eq!(w.replies().len(), 3);
    assert_eq!(w.mail("a@x", "help", ""), MailOutcome::RateLimited);
    assert_eq!(w.mail("a@x", "help", ""), MailOutcome::RateLimited);
    let r = w.replies();
    assert!(single(&r).body.contains("more than 3 commands"), "{r:#?}");
    w.advance(Duration::hours(2));
    w.mail("a@x", "help", "");
    assert_eq!(w.replies().len(), 1);
}

#[test]
fn never_answered_mail_is_recorded_but_not_answered() {
    let mut w = World::new();
    let server = Server::new(&w.config, &w.clock, &w.templates);
    let env = Envelope {
        message_id: "auto@t".into(),
        sender: Some("a@x".into()),
        subject: "help".into(),
        body: String::new(),
        comment: String::new(),
        never_answer: Some("Auto-Submitted: auto-replied".into()),
        replied_to: Vec::new(),
        auth_results: Vec::new(),
    };
    let outcome = server.handle_mail(&mut w.conn, &env, 10).unwrap();
    assert!(matches!(outcome, MailOutcome::Ignored(_)));
    assert!(w.replies().is_empty());
    assert!(store::mail_seen(&w.conn, "auto@t", &env.fingerprint()).unwrap());
}

#[test]
fn a_multiple_answer_lists_each_part_under_its_subject() {
    let mut w = World::with_board();
    w.mail(
        "a@x",
        "multiple",
        "chess move 101 alice pa e4\nchess games\nchess move 101 alice pa e5\n",
    );
    let r = w.replies();
    let to_a: Vec<_> = r.iter().filter(|m| m.to == "a@x").collect();
    assert_eq!(to_a.len(), 1, "{r:#?}");
    let body = &to_a[0].body;
    // The refused move on board 101 is said in its board mail (see
    // `once`), not in an error part of its own.
    assert_eq!(to_a[0].subject, "pbmchess answers (2 parts)");
    let turn = body.find("=== Chess Board 101 bob ===").expect(body);
    let games = body.find("=== List of Chess games ===").expect(body);
    let refused = body.find("Refused: ").expect(body);
    assert!(turn < refused && refused < games, "{body}");
    assert!(!body.contains("Error ==="), "{body}");
    assert!(
        common::joined(body).contains("It is bob's turn on chess board 101, not yours"),
        "{body}"
    );
    // bob gets only his own turn mail, without the commands as a comment
    // (they hold alice's password).
    let to_b: Vec<_> = r.iter().filter(|m| m.to == "b@x").collect();
    assert_eq!(to_b.len(), 1);
    assert_eq!(to_b[0].subject, "Chess Board 101 bob");
    assert!(!to_b[0].body.contains("Comment"), "{}", to_b[0].body);
    assert!(!to_b[0].body.contains(" pa "), "{}", to_b[0].body);
}

#[test]
fn a_password_typed_into_a_comment_is_not_relayed() {
    let mut w = World::with_board();
    w.mail(
        "a@x",
        "chess move 101 alice pa e4",
        "Oops, my password is PA!",
    );
    let r = w.replies();
    let to_b = r.iter().find(|m| m.to == "b@x").unwrap();
    assert!(
        to_b.body.contains("Oops, my password is *****!"),
        "{}",
        to_b.body
    );
    let plies = store::plies(&w.conn, store::BoardId::new("chess", 101)).unwrap();
    assert_eq!(plies[0].comment, "Oops, my password is *****!");
}
