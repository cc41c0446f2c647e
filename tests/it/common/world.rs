//! The server through its library face: in-memory SQLite, a clock the test
//! moves, replies read from the outbox table.

use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};
use pbmchess::clock::Clock;
use pbmchess::config::Config;
use pbmchess::mail::{Envelope, Outgoing};
use pbmchess::server::templates::Templates;
use pbmchess::server::{MailOutcome, Server};
use pbmchess::store;
use rusqlite::Connection;

/// A clock the test can move.
pub struct TestClock(pub Mutex<DateTime<Utc>>);

impl Clock for TestClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap()
    }
}

pub struct World {
    pub config: Config,
    pub templates: Templates,
    pub clock: TestClock,
    pub conn: Connection,
    seq: u32,
}

impl World {
    pub fn new() -> World {
        let mut config = Config::default();
        config.server.address = "pbm@games.test".into();
        // Tests of other things need not confirm each address.
        config.accounts.confirm_addresses = false;
        World {
            config,
            templates: Templates::load(None).unwrap(),
            clock: TestClock(Mutex::new(
                DateTime::parse_from_rfc3339("2026-11-22T10:00:00Z")
                    .unwrap()
                    .with_timezone(&Utc),
            )),
            conn: store::open_in_memory().unwrap(),
            seq: 0,
        }
    }

    pub fn advance(&self, d: Duration) {
        *self.clock.0.lock().unwrap() += d;
    }

    pub fn mail_with_id(&mut self, id: &str, from: &str, subject: &str, body: &str) -> MailOutcome {
        let server = Server::new(&self.config, &self.clock, &self.templates);
        let env = Envelope {
            message_id: id.into(),
            sender: Some(from.into()),
            subject: subject.into(),
            body: body.into(),
            comment: body.trim().into(),
            never_answer: None,
            replied_to: Vec::new(),
            auth_results: Vec::new(),
        };
        server.handle_mail(&mut self.conn, &env, 100).unwrap()
    }

    pub fn mail(&mut self, from: &str, subject: &str, body: &str) -> MailOutcome {
        self.seq += 1;
        let id = format!("m{}@t", self.seq);
        self.mail_with_id(&id, from, subject, body)
    }

    /// The outbox rows queued since the last call, marked sent.
    pub fn replies(&mut self) -> Vec<Outgoing> {
        let now = self.clock.now() + Duration::days(10_000);
        let due = store::due_mail(&self.conn, now).unwrap();
        for m in &due {
            store::mark_sent(&self.conn, m.id, now).unwrap();
        }
        due.into_iter().map(|m| m.mail).collect()
    }

    pub fn ticks(&mut self) -> usize {
        let server = Server::new(&self.config, &self.clock, &self.templates);
        server.run_timers(&mut self.conn).unwrap()
    }

    /// alice and bob signed up, board 101 started, alice to move.
    pub fn with_board() -> World {
        let mut w = World::new();
        w.mail("a@x", "signup alice pa", "");
        w.mail("b@x", "signup bob pb", "");
        w.mail("a@x", "chess challenge alice bob", "");
        w.replies();
        w
    }

    pub fn board(&self) -> store::BoardRow {
        store::board(&self.conn, store::BoardId::new("chess", 101))
            .unwrap()
            .unwrap()
    }
}
