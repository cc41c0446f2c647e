//! Help topics, and help pages that fit a 76-column mail.

use super::*;

#[test]
fn help_topics() {
    let mut w = World::new();
    w.mail("a@x", "help", "");
    assert!(single(&w.replies()).body.contains("help commands"));
    w.mail("a@x", "help chess", "");
    assert!(single(&w.replies()).body.contains("O-O"));
    w.mail("a@x", "chess help", "");
    assert!(single(&w.replies()).body.contains("O-O"));
    w.mail("a@x", "help commands", "");
    assert!(single(&w.replies()).body.contains("challenge"));
    w.mail("a@x", "help frobnicate", "");
    assert!(single(&w.replies()).body.contains("no help on"));
}

#[test]
fn help_pages_fit_a_76_column_mail() {
    let mut w = World::new();
    for topic in ["", " commands", " chess", " doublechess"] {
        w.mail("a@x", &format!("help{topic}"), "");
        let r = w.replies();
        for line in single(&r).body.lines() {
            assert!(line.chars().count() <= 76, "help{topic}: {line:?}");
        }
    }
}
