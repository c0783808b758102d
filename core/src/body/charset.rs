//! Charsets (contract §7): the Content-Type `charset` parameter is the only
//! source; no sniffing, no `<meta>`.

use encoding_rs::{Encoding, REPLACEMENT, UTF_8};

/// A charset label that cannot be decoded: unknown to `encoding_rs`, or
/// mapped to the WHATWG `replacement` encoding (which would turn the whole
/// body into one U+FFFD).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UnknownCharset;

/// The encoding a body is decoded with.
pub fn encoding_for(label: Option<&str>) -> Result<&'static Encoding, UnknownCharset> {
    match label {
        None => Ok(UTF_8),
        Some(l) => match Encoding::for_label(l.as_bytes()) {
            Some(e) if e == REPLACEMENT => Err(UnknownCharset),
            Some(e) => Ok(e),
            None => Err(UnknownCharset),
        },
    }
}

/// Decodes a whole body: invalid sequences become U+FFFD and a BOM that
/// matches the encoding is removed (a UTF-8 BOM under a Latin-1 label is
/// text, not a BOM).
pub fn decode(bytes: &[u8], encoding: &'static Encoding) -> String {
    let (text, _had_errors) = encoding.decode_with_bom_removal(bytes);
    text.into_owned()
}

/// [`decode`] taking the bytes by value: valid UTF-8 (the common case)
/// becomes the text in place, without a second copy of the body.
pub fn decode_owned(mut bytes: Vec<u8>, encoding: &'static Encoding) -> String {
    if encoding == UTF_8 {
        if bytes.starts_with(b"\xef\xbb\xbf") {
            bytes.drain(..3);
        }
        return match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
    }
    decode(&bytes, encoding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(encoding_for(None).unwrap(), UTF_8);
        assert_eq!(encoding_for(Some("utf8")).unwrap(), UTF_8);
        assert_eq!(encoding_for(Some("latin1")).unwrap().name(), "windows-1252");
        assert_eq!(encoding_for(Some("Shift_JIS")).unwrap().name(), "Shift_JIS");
        assert_eq!(encoding_for(Some(" utf-16 ")).unwrap().name(), "UTF-16LE");
        assert!(encoding_for(Some("x-unknown")).is_err());
        assert!(encoding_for(Some("iso-2022-kr")).is_err()); // replacement
        assert!(encoding_for(Some("")).is_err());
    }

    #[test]
    fn bom_removed_only_when_it_matches() {
        assert_eq!(decode(b"\xef\xbb\xbfhi", UTF_8), "hi");
        let latin = encoding_for(Some("latin1")).unwrap();
        assert_eq!(decode(b"\xef\xbb\xbfhi", latin), "\u{ef}\u{bb}\u{bf}hi");
        let u16le = encoding_for(Some("utf-16le")).unwrap();
        assert_eq!(decode(b"\xff\xfeh\x00i\x00", u16le), "hi");
    }

    #[test]
    fn owned_decoding_agrees() {
        for (bytes, label) in [
            (&b"\xef\xbb\xbfhi \xff"[..], None),
            (&b"plain"[..], None),
            (&b"\xef\xbb\xbfx"[..], Some("latin1")),
            (&b"\xff\xfeh\x00"[..], Some("utf-16le")),
        ] {
            let e = encoding_for(label).unwrap();
            assert_eq!(decode_owned(bytes.to_vec(), e), decode(bytes, e));
        }
    }

    #[test]
    fn invalid_sequences_are_replaced() {
        assert_eq!(decode(b"a\xffb\xe2\x82", UTF_8), "a\u{fffd}b\u{fffd}");
    }
}
