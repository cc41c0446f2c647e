//! Raw bytes as an inbound mail: read into an envelope, its commands read.
//! Nothing may panic; a password the parser read never shows in a quote.
#![no_main]

use libfuzzer_sys::fuzz_target;
use game::command;
use pbmchess::mail;

fuzz_target!(|raw: &[u8]| {
    let own = ["pbm@games.test".to_string()];
    let envelope = mail::parse_envelope(raw, &own);
    let request = command::parse_mail(&envelope.subject, &envelope.body);
    for parsed in request.commands.iter().flatten() {
        pbmchess_fuzz_checks::password_not_quoted(parsed);
    }
});

mod pbmchess_fuzz_checks {
    include!("checks.rs");
}
