//! Character-boundary truncation (contract §8): `max_chars` counts Unicode
//! scalar values, and exactly `max_chars` characters is not cut.

/// Cuts `text` to at most `max_chars` characters; returns whether it cut.
pub fn truncate_chars(text: &mut String, max_chars: usize) -> bool {
    match text.char_indices().nth(max_chars) {
        Some((byte, _)) => {
            text.truncate(byte);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_length_is_not_cut() {
        let mut s = "héllo".to_string();
        assert!(!truncate_chars(&mut s, 5));
        assert_eq!(s, "héllo");
        assert!(truncate_chars(&mut s, 4));
        assert_eq!(s, "héll");
        let mut e = "😀😀".to_string();
        assert!(truncate_chars(&mut e, 1));
        assert_eq!(e, "😀");
        let mut z = String::new();
        assert!(!truncate_chars(&mut z, 1));
    }
}
