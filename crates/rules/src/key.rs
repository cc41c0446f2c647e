//! Position keys: the one place the 64-bit keys the repetition rule
//! compares (and the server stores with each ply) are made.
//!
//! A key is a hash of the position's canonical state, as its engine writes
//! it ([`StableKey`]): the repetition text for the chess-like games (the
//! placement of every board, side, castling rights, the en passant square
//! when a capture there is legal, and the variant's extra fields: Zelig
//! powers, doppelganger pairs, Shadow's second board and pending reveal)
//! and a fixed byte layout for Temporal Chess (its 64 cells, warps,
//! reserves, side and phase).
//!
//! # The algorithm (version [`KEY_VERSION`])
//! Keys are stored in the database, so the algorithm is ours and fixed,
//! not `std`'s (`DefaultHasher` may change between toolchains, which
//! would replay every board once and could let two builds count
//! repetitions differently). Version 1, for a byte string `b` of length
//! `n`:
//!
//! 1. `h = SEED` (`0x243F_6A88_85A3_08D3`, the first hex digits of pi);
//! 2. for each 8-byte chunk of `b` in order, read little-endian (the last
//!    chunk padded with zero bytes): `h = mix(h ^ chunk)`;
//! 3. the key is `mix(h ^ n)`, where `mix` is SplitMix64's finaliser:
//!    `z = (z ^ z >> 30) * 0xBF58_476D_1CE4_E5B9`,
//!    `z = (z ^ z >> 27) * 0x94D0_49BB_1331_11EB`, `z ^ z >> 31`
//!    (multiplications wrap).
//!
//! A change of the algorithm, or of any engine's canonical state, changes
//! stored keys: raise [`KEY_VERSION`] and add a migration that clears
//! `plies.position_key` (as `0036_clear_old_position_keys.sql` did for the
//! move from `DefaultHasher`), so that boards are replayed once and
//! re-keyed. `tests/it/rules/keys.rs` pins key values so that such a change
//! cannot pass unnoticed.

/// The version of the key algorithm and canonical states described above.
pub const KEY_VERSION: u32 = 1;

/// The hasher's starting state.
const SEED: u64 = 0x243F_6A88_85A3_08D3;

/// SplitMix64's finaliser: a bijection of 64-bit words that spreads every
/// input bit over the output.
const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The key of a byte string, by the version-1 algorithm above.
pub fn key_of_bytes(bytes: &[u8]) -> u64 {
    let mut h = SEED;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        h = mix(h ^ u64::from_le_bytes(word));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = mix(h ^ u64::from_le_bytes(word));
    }
    mix(h ^ bytes.len() as u64)
}

/// A repetition key with a stable 64-bit key: the same value on every
/// build, platform and toolchain, by the documented algorithm above.
pub trait StableKey {
    /// This state's key.
    fn stable_key(&self) -> u64;
}

/// A text key (the chess-like games' repetition text): the key of its
/// UTF-8 bytes.
impl StableKey for String {
    fn stable_key(&self) -> u64 {
        key_of_bytes(self.as_bytes())
    }
}

impl StableKey for str {
    fn stable_key(&self) -> u64 {
        key_of_bytes(self.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The algorithm's own vectors: a change to it fails here (and in
    /// `tests/it/rules/keys.rs`, which pins whole positions' keys).
    #[test]
    fn the_version_1_algorithm_gives_its_pinned_values() {
        assert_eq!(KEY_VERSION, 1);
        assert_eq!(key_of_bytes(b""), mix(SEED));
        let one_chunk = mix(mix(SEED ^ u64::from_le_bytes(*b"abcdefgh")) ^ 8);
        assert_eq!(key_of_bytes(b"abcdefgh"), one_chunk);
        let padded = mix(mix(SEED ^ u64::from_le_bytes(*b"abc\0\0\0\0\0")) ^ 3);
        assert_eq!(key_of_bytes(b"abc"), padded);
        assert_eq!(key_of_bytes(b""), 0xE9E0_033E_3BAD_AF36);
    }

    #[test]
    fn padding_and_length_keep_texts_apart() {
        assert_ne!(key_of_bytes(b"abc"), key_of_bytes(b"abc\0"));
        assert_ne!(key_of_bytes(b""), key_of_bytes(b"\0"));
        assert_eq!("w KQkq".stable_key(), String::from("w KQkq").stable_key());
    }
}
