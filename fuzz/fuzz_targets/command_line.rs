//! Any text as a Subject line, and as a `multiple` body.
#![no_main]

use libfuzzer_sys::fuzz_target;
use game::command;

fuzz_target!(|text: &str| {
    if let Ok(parsed) = command::parse_line(text) {
        pbmchess_fuzz_checks::password_not_quoted(&parsed);
    }
    let request = command::parse_mail("multiple", text);
    assert!(request.commands.len() <= command::MAX_COMMANDS + 1);
    for parsed in request.commands.iter().flatten() {
        pbmchess_fuzz_checks::password_not_quoted(parsed);
    }
});

mod pbmchess_fuzz_checks {
    include!("checks.rs");
}
