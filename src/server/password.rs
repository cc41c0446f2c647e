//! Password hashes: argon2id of the lower-cased password, checked in
//! constant time. Below `account` (which sets passwords) and
//! `credentials` (which checks them); imports nothing of the server but
//! its error type.

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::PasswordHasher;
use argon2::Argon2;

use super::ServerError;

/// Passwords are compared case-insensitively, as pbmserv does: the hash is
/// of the lower-cased password.
fn normalise(password: &str) -> String {
    password.to_lowercase()
}

/// An argon2id PHC string of the password.
pub(crate) fn hash_password(password: &str) -> Result<String, ServerError> {
    Argon2::default()
        .hash_password(normalise(password).as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| ServerError::Hash(e.to_string()))
}

/// Whether `password` is the one `hash` (a PHC string) was made of.
#[cfg(test)]
pub(crate) fn password_matches(hash: &str, password: &str) -> bool {
    password_matches_in(&mut Vec::new(), hash, password)
}

/// Whether `password` is the one `hash` was made of, checked in the
/// working memory `memory`, grown to what the hash's parameters need and
/// kept by the caller for the next check: an argon2id check allocates
/// 19 MiB, and the system's handing it out page by page, zeroed, and back
/// again took a fifth of each check's time.
/// Every block is written before it is read, so what a previous check
/// left there does not matter.
pub(crate) fn password_matches_in(
    memory: &mut Vec<argon2::Block>,
    hash: &str,
    password: &str,
) -> bool {
    let Ok(hash) = PasswordHash::new(hash) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (&hash.salt, &hash.hash) else {
        return false;
    };
    let algorithm = argon2::Algorithm::new(hash.algorithm.as_str());
    let version = hash
        .version
        .map(argon2::Version::try_from)
        .unwrap_or(Ok(argon2::Version::default()));
    let (Ok(algorithm), Ok(version), Ok(params)) =
        (algorithm, version, argon2::Params::try_from(&hash))
    else {
        return false;
    };
    let blocks = params.block_count();
    if memory.len() < blocks {
        memory.resize(blocks, argon2::Block::default());
    }
    let mut out = vec![0u8; expected.len()];
    let argon2 = Argon2::new(algorithm, version, params);
    if argon2
        .hash_password_into_with_memory(
            normalise(password).as_bytes(),
            salt,
            &mut out,
            &mut memory[..blocks],
        )
        .is_err()
    {
        return false;
    }
    // Compared in constant time.
    out.iter()
        .zip(expected.as_bytes())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_verify_case_insensitively_and_are_salted() {
        let h1 = hash_password("Secret").unwrap();
        let h2 = hash_password("Secret").unwrap();
        assert_ne!(h1, h2, "salted");
        assert!(h1.starts_with("$argon2id$"));
        assert!(!h1.contains("ecret"));
        assert!(password_matches(&h1, "secret"));
        assert!(password_matches(&h1, "SECRET"));
        assert!(!password_matches(&h1, "secrets"));
        assert!(!password_matches("garbage", "secret"));
    }

    #[test]
    fn checks_sharing_working_memory_answer_as_fresh_ones() {
        let alice = hash_password("apw").unwrap();
        let bob = hash_password("bpw").unwrap();
        // Smaller parameters, as a hash made elsewhere may have.
        let small = Argon2::new(
            argon2::Algorithm::Argon2id,
            argon2::Version::V0x13,
            argon2::Params::new(1024, 3, 1, None).unwrap(),
        )
        .hash_password_with_salt(b"cpw", b"sixteen-byte-salt")
        .unwrap()
        .to_string();
        let mut memory = Vec::new();
        for (hash, password, right) in [
            (&alice, "apw", true),
            (&bob, "apw", false),
            (&small, "cpw", true),
            (&bob, "bpw", true),
            (&small, "bpw", false),
            (&alice, "APW", true),
            (&alice, "bpw", false),
        ] {
            assert_eq!(
                password_matches_in(&mut memory, hash, password),
                right,
                "{password} against {hash}"
            );
            assert_eq!(password_matches(hash, password), right);
        }
    }
}
