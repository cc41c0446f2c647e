//! Refused tournament commands, and the bounds on how many tournaments
//! are open.

use super::{
    assert_every_mail_within_78_columns, create_tournament, install_with, mail_to, refusal, say,
    show, tour, Player, ANN, BEN, CAT, CONFIG, DAN, EVE, FAY,
};

/// Each refusal is one plain sentence to the sender alone, and nothing of
/// it is stored: the listings and tables are as before.
#[test]
fn refused_tournament_commands_say_why_in_one_sentence_and_store_nothing() {
    let all = [ANN, BEN, CAT, DAN, EVE, FAY];
    let mut s = install_with(CONFIG, &all);
    let create =
        |name: &str, rest: &str| format!("chess tournament create {name} ann {} {rest}", ANN.pw());
    // A running one (three players, started when full), an open one.
    assert_ne!(
        mail_to(&say(&mut s, ANN, &create("full", "roundrobin 3")), ANN).subject,
        "Error"
    );
    for p in [BEN, CAT] {
        tour(&mut s, "join", "full", p);
    }
    assert_ne!(
        mail_to(&say(&mut s, ANN, &create("open", "swiss 8 rounds 3")), ANN).subject,
        "Error"
    );
    tour(&mut s, "join", "open", BEN);
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    let open_table = show(&mut s, "open");
    let full_table = show(&mut s, "full");

    for (who, subject, words) in refusal_cases() {
        let mails = say(&mut s, who, &subject);
        let sentence = refusal(&mails, who);
        assert!(
            words.iter().any(|w| sentence.contains(w)),
            "{subject}: one of {words:?} in {sentence:?}"
        );
    }
    // Nothing stored: the list and both tables are as they were.
    assert_eq!(
        mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body,
        listed
    );
    assert_eq!(show(&mut s, "open"), open_table);
    assert_eq!(show(&mut s, "full"), full_table);
    assert!(!open_table.contains("dan"), "{open_table}");
    assert_every_mail_within_78_columns(&s);
}

/// The refused commands of [`refused_tournament_commands_say_why_in_one_sentence_and_store_nothing`]
/// ("full" has started, "open" holds ann and ben): who sends what, and
/// words of which the refusal holds one.
fn refusal_cases() -> Vec<(Player, String, &'static [&'static str])> {
    let create =
        |name: &str, rest: &str| format!("chess tournament create {name} ann {} {rest}", ANN.pw());
    vec![
        (
            DAN,
            format!("chess tournament join full dan {}", DAN.pw()),
            &["started", "running", "full"],
        ),
        (
            DAN,
            format!("chess tournament join nosuch dan {}", DAN.pw()),
            &["nosuch"],
        ),
        (
            BEN,
            format!("chess tournament join open ben {}", BEN.pw()),
            &["already"],
        ),
        (
            DAN,
            "chess tournament join open dan wrong-pw".to_string(),
            &["password"],
        ),
        (
            BEN,
            format!("chess tournament leave full ben {}", BEN.pw()),
            &["started", "running", "withdraw"],
        ),
        (
            BEN,
            format!("chess tournament start open ben {}", BEN.pw()),
            &["creator", "admin"],
        ),
        (
            CAT,
            format!("chess tournament leave open cat {}", CAT.pw()),
            &["not"],
        ),
        (FAY, "chess tournament show nosuch".to_string(), &["nosuch"]),
        (ANN, create("Spring!", "roundrobin 4"), &["name"]),
        (
            ANN,
            create("a-name-of-seventeen", "roundrobin 4"),
            &["name", "16"],
        ),
        (
            ANN,
            create("open", "roundrobin 4"),
            &["open", "taken", "exists", "already"],
        ),
        (ANN, create("huge", "swiss 65 rounds 5"), &["64"]),
        (ANN, create("wide", "roundrobin 13"), &["12"]),
        (ANN, create("long", "swiss 64 rounds 21"), &["20"]),
        (
            ANN,
            create("again", "swiss 4 rounds 4"),
            &["3", "meet", "twice"],
        ),
        (ANN, create("tiny", "roundrobin 1"), &["players"]),
        (ANN, create("odd", "knockout 8"), &["roundrobin", "swiss"]),
    ]
}

/// A player may open only so many tournaments at once (three).
#[test]
fn a_player_opens_at_most_three_tournaments_at_once() {
    let mut s = install_with(CONFIG, &[ANN, FAY]);
    for name in ["one", "two", "three", "four"] {
        let mails = create_tournament(&mut s, ANN, name, "roundrobin 4");
        if name == "four" {
            refusal(&mails, ANN);
        } else {
            assert_ne!(mail_to(&mails, ANN).subject, "Error", "{mails:#?}");
        }
    }
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    assert!(
        listed.contains("three") && !listed.contains("four"),
        "{listed}"
    );
}

/// Without `players_may_create` (the default), a player cannot open a
/// tournament; an admin can, by the CLI.
#[test]
fn players_may_not_create_tournaments_unless_the_server_allows_it() {
    let mut s = install_with("", &[ANN, FAY]);
    let mails = create_tournament(&mut s, ANN, "spring", "roundrobin 4");
    refusal(&mails, ANN);
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    assert!(!listed.contains("spring"), "{listed}");
}

/// The server's bound on tournaments not yet finished holds against
/// many creators (rotating accounts), not only per creator.
#[test]
fn the_server_holds_at_most_its_limit_of_unfinished_tournaments() {
    let all = [ANN, BEN, CAT, FAY];
    let mut s = install_with(&format!("{CONFIG}open_tournaments = 2\n"), &all);
    for (p, name) in [(ANN, "one"), (BEN, "two"), (CAT, "three")] {
        let mails = say(
            &mut s,
            p,
            &format!(
                "chess tournament create {name} {} {} roundrobin 4",
                p.user(),
                p.pw()
            ),
        );
        if name == "three" {
            let sentence = refusal(&mails, p);
            assert!(sentence.contains('2'), "{sentence}");
        } else {
            assert_ne!(mail_to(&mails, p).subject, "Error", "{mails:#?}");
        }
    }
    let listed = mail_to(&say(&mut s, FAY, "chess tournaments"), FAY).body;
    assert!(
        listed.contains("two") && !listed.contains("three"),
        "{listed}"
    );
}
