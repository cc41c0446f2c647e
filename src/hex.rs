//! Lower-case hex, as digests, tokens and keys are shown and stored.

use std::fmt::Write;

/// `bytes` as lower-case hex, two digits a byte.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        // Writing to a String cannot fail.
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_byte_is_two_lower_case_digits() {
        assert_eq!(super::encode(&[]), "");
        assert_eq!(super::encode(&[0, 9, 0xab, 0xff]), "0009abff");
    }
}
