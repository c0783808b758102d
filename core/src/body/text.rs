//! Character-boundary truncation (contract §8): `max_chars` counts Unicode
//! scalar values, and exactly `max_chars` characters is not cut.

/// Cuts `text` to at most `max_chars` characters; returns whether it cut.
pub fn truncate_chars(text: &mut String, max_chars: usize) -> bool {
    // A text of n bytes has at most n characters, and counting is much
    // faster than walking to a boundary: most texts are under the limit.
    if text.len() <= max_chars || text.chars().count() <= max_chars {
        return false;
    }
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
        // More bytes than the limit, no more characters: not cut.
        let mut wide = "é".repeat(10);
        assert!(!truncate_chars(&mut wide, 10));
        assert!(truncate_chars(&mut wide, 9));
        assert_eq!(wide.chars().count(), 9);
    }
}
