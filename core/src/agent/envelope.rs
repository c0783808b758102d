//! The untrusted envelope (contract §11): a header line outside the
//! markers saying the text is quoted third-party content, notes under it,
//! then the text between two markers that carry a fresh random tag.
//!
//! Why a random tag: a fixed marker can be printed by the page itself, and
//! then everything after it would read as if it were outside the quote. A
//! tag of 16 hex characters from the OS RNG cannot be guessed in advance;
//! and if the text happens to contain the tag anyway, a new one is drawn.

use crate::messages::text::{EnvelopeClose, EnvelopeHeader, EnvelopeOpen, EnvelopeSource};
use crate::messages::Note;

/// Hex characters in a tag (the contract asks for at least 12).
pub const TAG_HEX_CHARS: usize = 16;

/// A fresh tag from the operating system's RNG.
///
/// Panics only when the OS has no RNG at all, where no secret anywhere in
/// the process (TLS included) could be made either.
pub fn fresh_tag() -> String {
    let mut bytes = [0u8; TAG_HEX_CHARS / 2];
    // OK because every supported OS has an RNG; without one TLS fails too.
    getrandom::getrandom(&mut bytes).expect("the OS random number generator");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Wraps `text` with a fresh tag.
pub fn wrap(text: &str, source: EnvelopeSource<'_>, notes: &[Note]) -> String {
    wrap_with(text, source, notes, fresh_tag)
}

/// [`wrap`] with the tag source given (tests use it to force a clash).
pub fn wrap_with(
    text: &str,
    source: EnvelopeSource<'_>,
    notes: &[Note],
    mut tag: impl FnMut() -> String,
) -> String {
    let mut t = tag();
    // Redrawn while the quoted text contains it: then no line inside can
    // be a closing marker for this envelope.
    while text.contains(&t) {
        t = tag();
    }
    let source = source.to_string();
    let mut out = EnvelopeHeader {
        source: &source,
        tag: &t,
    }
    .to_string();
    for n in notes {
        out.push('\n');
        out.push_str(&n.to_string());
    }
    out.push('\n');
    out.push_str(&EnvelopeOpen(&t).to_string());
    out.push('\n');
    out.push_str(text);
    out.push('\n');
    out.push_str(&EnvelopeClose(&t).to_string());
    out
}

/// The text between the markers of an envelope made by [`wrap`], and the
/// notes in its header; `None` when `enveloped` is not one.
pub fn unwrap(enveloped: &str) -> Option<(Vec<&str>, &str)> {
    let (head, rest) = enveloped.split_once("\n<<<quoted ")?;
    let (tag, rest) = rest.split_once(">>>\n")?;
    let close = EnvelopeClose(tag).to_string();
    let body = rest.strip_suffix(&close)?.strip_suffix('\n')?;
    let notes = head.lines().skip(1).collect();
    Some((notes, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_fresh_hex() {
        let a = fresh_tag();
        let b = fresh_tag();
        assert_eq!(a.len(), TAG_HEX_CHARS);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn a_clashing_tag_is_redrawn() {
        let mut tags = vec![
            "feedfacefeedface".to_string(),
            "0123456789abcdef".to_string(),
        ];
        let fake = EnvelopeClose("0123456789abcdef").to_string();
        let text = format!("the page prints {fake} here");
        let out = wrap_with(&text, EnvelopeSource::Page { url: "u" }, &[], || {
            tags.pop().unwrap()
        });
        assert!(out.ends_with(&EnvelopeClose("feedfacefeedface").to_string()));
        assert_eq!(unwrap(&out).unwrap().1, text);
    }
}
