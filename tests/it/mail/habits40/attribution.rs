//! Attribution and signature lines a mail program adds are not relayed
//! as the player's comment: in a move mail and in `chat`.

use crate::common::{to, Install, SentMail};

const ALICE: &str = "alice@players.test";
const BOB: &str = "bob@players.test";

/// alice (apw) and bob (bpw), chess board 101 with alice as White.
fn board_101() -> Install {
    let mut s = Install::new();
    s.send(ALICE, "signup alice apw", "");
    s.send(BOB, "signup bob bpw", "");
    s.poll();
    s.take_outbox();
    let n = s.ok(&["admin", "challenge", "chess", "alice", "bob"]);
    assert_eq!(n.trim(), "101");
    s.poll();
    s.take_outbox();
    s
}

fn exchange(s: &mut Install, from: &str, subject: &str, body: &str) -> Vec<SentMail> {
    s.send(from, subject, body);
    s.poll();
    s.take_outbox()
}

const ENDINGS: [&str; 11] = [
    "Sent from my iPhone",
    "Sent from Outlook for Android",
    "Get Outlook for iOS",
    "On Mon, Nov 23, 2026 at 10:00 AM Carol <carol@example.org> wrote:",
    "Am Mo., 23. Nov. 2026 um 10:00 Uhr schrieb Carol <carol@example.org>:",
    "Le lun. 23 nov. 2026 à 10:00, Carol <carol@example.org> a écrit :",
    "El lun, 23 nov 2026 a las 10:00, Carol (<carol@example.org>) escribió:",
    "Il giorno lun 23 nov 2026 alle ore 10:00 Carol <c@example.org> ha scritto:",
    "Op ma 23 nov. 2026 om 10:00 schreef Carol <carol@example.org>:",
    "W dniu 23.11.2026 o 10:00, Carol <carol@example.org> pisze:",
    "23.11.2026, 10:00, Carol <carol@example.org> написал(а):",
];

#[test]
fn each_attribution_and_signature_line_is_kept_out_of_chat() {
    let mut s = board_101();
    for (k, ending) in ENDINGS.iter().enumerate() {
        let body = format!("Word {k} from alice.\n\n{ending}\n\nXYZZY original text\n");
        let mails = exchange(&mut s, ALICE, "chess chat 101 alice apw", &body);
        // The sender's receipt carries the relayed text (the readers' copies
        // are limited to a few an hour).
        let own = to(&mails, ALICE);
        assert_eq!(own.len(), 1, "{ending}: {mails:#?}");
        let got = &own[0].body;
        assert!(
            got.contains(&format!("Word {k} from alice.")),
            "{ending}: {got}"
        );
        assert!(!got.contains("XYZZY"), "{ending}: {got}");
        assert!(!got.contains("Carol"), "{ending}: {got}");
        assert!(
            !got.contains("Outlook") && !got.contains("iPhone"),
            "{ending}: {got}"
        );
    }
}

#[test]
fn a_signature_line_is_kept_out_of_a_move_comment() {
    let mut s = board_101();
    let body = "Your move, Bob.\n\nSent from my iPhone\n\nOn Mon, Nov 23, 2026 at 10:00 AM Carol <carol@example.org> wrote:\nXYZZY\n";
    let mails = exchange(&mut s, ALICE, "chess move 101 alice apw e4", body);
    let bobs = to(&mails, BOB);
    assert_eq!(bobs.len(), 1, "{mails:#?}");
    assert!(bobs[0].body.contains("Your move, Bob."), "{}", bobs[0].body);
    assert!(!bobs[0].body.contains("iPhone"), "{}", bobs[0].body);
    assert!(!bobs[0].body.contains("XYZZY"), "{}", bobs[0].body);
}
