// Checks the targets share (included, not a module of its own).

/// No word of the quote is the password of a command that has one.
pub fn password_not_quoted(parsed: &game::command::Parsed) {
    if let Some(password) = parsed.command.passwords().into_iter().next() {
        let secret = password.expose();
        if secret.is_empty() {
            return;
        }
        for word in parsed.masked.split_whitespace() {
            assert!(
                !word.eq_ignore_ascii_case(secret),
                "the password shows in the quote {:?}",
                parsed.masked
            );
        }
    }
}
