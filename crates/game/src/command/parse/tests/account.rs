//! The account commands: help, signup, change, signoff, vacation, list,
//! message, all show.

use super::*;

#[test]
fn help_with_topics() {
    assert_eq!(cmd("help"), Command::Help { topics: vec![] });
    assert_eq!(
        cmd("HELP Chess commands"),
        Command::Help {
            topics: vec!["chess".into(), "commands".into()]
        }
    );
}

#[test]
fn signup_with_and_without_addresses() {
    let p = ok("signup Alice Secret");
    assert_eq!(
        p.command,
        Command::Signup {
            userid: "alice".into(),
            password: Password::new("Secret"),
            addresses: vec![]
        }
    );
    assert_eq!(p.masked, "signup Alice *****");
    assert_eq!(
        cmd("signup alice pw a@example.org <b@example.net>,"),
        Command::Signup {
            userid: "alice".into(),
            password: Password::new("pw"),
            addresses: vec!["a@example.org".into(), "b@example.net".into()]
        }
    );
    for (line, start, masked) in [
        (
            "signup alice",
            "signup needs a userid, a password",
            "signup alice",
        ),
        ("signup", "signup needs", "signup"),
        (
            "signup alice pw nobody",
            "the fourth word should be a mail address",
            "signup alice ***** nobody",
        ),
        (
            "signup 9lives pw",
            "the second word should be a userid",
            "signup 9lives *****",
        ),
        (
            "signup active pw",
            "the second word is a word the server keeps for itself",
            "signup active *****",
        ),
    ] {
        let e = err(line);
        assert!(e.message.starts_with(start), "{line}: {}", e.message);
        assert_eq!(e.masked, masked, "{line}");
        assert_one_sentence(&e);
    }
}

#[test]
fn change_password_masks_both() {
    let p = ok("change password Alice old newpw");
    assert_eq!(
        p.command,
        Command::ChangePassword {
            who: who("alice", "old"),
            new: Password::new("newpw"),
        }
    );
    assert_eq!(p.masked, "change password Alice ***** *****");
    let e = err("change password alice old");
    assert!(e
        .message
        .starts_with("change password needs your userid, your old password and your new"));
    assert_eq!(e.masked, "change password alice *****");
    let e = err("change password alice old newpw extra");
    assert!(e.message.starts_with("the sixth word is one word too many"));
    assert_eq!(e.masked, "change password alice ***** ***** extra");
    let e = err("change passwd alice old new");
    assert!(e
        .message
        .starts_with("the second word should be password or address"));
    assert_eq!(e.masked, "change passwd alice ***** *****");
    assert_one_sentence(&e);
}

#[test]
fn change_address() {
    let p = ok("change address alice pw a@example.org");
    assert_eq!(
        p.command,
        Command::ChangeAddress {
            who: who("alice", "pw"),
            addresses: vec!["a@example.org".into()],
        }
    );
    assert_eq!(p.masked, "change address alice ***** a@example.org");
    assert_eq!(
        cmd("change address alice pw"),
        Command::ChangeAddress {
            who: who("alice", "pw"),
            addresses: vec![],
        }
    );
    let e = err("change address alice pw a@b@c");
    assert!(e
        .message
        .starts_with("the fifth word should be a mail address"));
    assert_eq!(e.masked, "change address alice ***** a@b@c");
}

#[test]
fn signoff_and_delete() {
    assert_eq!(
        cmd("signoff alice pw"),
        Command::Signoff {
            who: who("alice", "pw")
        }
    );
    assert_eq!(
        cmd("DELETE alice pw"),
        Command::Signoff {
            who: who("alice", "pw")
        }
    );
    let e = err("delete alice");
    assert_eq!(
        e.message,
        "delete needs your userid and your password, like: delete alice secret."
    );
    assert_eq!(e.masked, "delete alice");
}

#[test]
fn vacation_days_or_off() {
    assert_eq!(
        cmd("vacation alice pw 14"),
        Command::Vacation {
            who: who("alice", "pw"),
            days: Some(14)
        }
    );
    assert_eq!(
        cmd("vacation alice pw OFF"),
        Command::Vacation {
            who: who("alice", "pw"),
            days: None
        }
    );
    let e = err("vacation alice pw 0");
    assert!(e.message.contains("off"), "{}", e.message);
    assert_eq!(e.masked, "vacation alice ***** 0");
    let e = err("vacation alice pw soon");
    assert!(e
        .message
        .starts_with("the fourth word should be a number of days or off"));
    assert_one_sentence(&e);
}

#[test]
fn list_games() {
    assert_eq!(cmd("list"), Command::List { games: vec![] });
    assert_eq!(
        cmd("list Chess zelig2"),
        Command::List {
            games: vec!["chess".into(), "zelig2".into()]
        }
    );
    let e = err("list checkers");
    assert!(e
        .message
        .starts_with("the second word is no game I know; the games are chess,"));
    assert_one_sentence(&e);
}

#[test]
fn message_to_users() {
    let p = ok("message alice pw Bob carol");
    assert_eq!(
        p.command,
        Command::Message {
            who: who("alice", "pw"),
            to: vec!["bob".into(), "carol".into()]
        }
    );
    assert_eq!(p.masked, "message alice ***** Bob carol");
    let e = err("message alice pw");
    assert!(e.message.starts_with("message needs"));
    assert_eq!(e.masked, "message alice *****");
}

#[test]
fn all_show() {
    assert_eq!(
        cmd("all show alice"),
        Command::AllShow {
            userid: "alice".into(),
            filter: BoardFilter::Active
        }
    );
    assert_eq!(
        cmd("ALL SHOW Alice next"),
        Command::AllShow {
            userid: "alice".into(),
            filter: BoardFilter::Next
        }
    );
    assert!(err("all games alice")
        .message
        .starts_with("all is followed by show, not by the second word"));
    assert!(err("all show")
        .message
        .starts_with("all show needs a userid"));
    assert!(err("all show alice soon")
        .message
        .starts_with("the fourth word should be all, active"));
    assert_one_sentence(&err("all show alice soon"));
}
