//! Text that was decoded twice, and control characters that stand for
//! Windows-1252 punctuation.
//!
//! Why: a page written in UTF-8 and once read as Windows-1252 (or
//! Latin-1) on its way into a CMS or an archive carries every non-ASCII
//! character as two or three: "we’ve" as "weâ€™ve", "für" as "fÃ¼r",
//! "—" as "â\u{80}\u{94}". The bytes are what the server sent and what a
//! browser shows, but a model reads "weâ" as a word. Older pages also
//! carry Windows-1252 punctuation as C1 control characters (U+0080 to
//! U+009F: U+0092 for ’), which no text means and which the HTML standard
//! itself maps back to Windows-1252 when a character reference names
//! them. Before this file, the text of 34 of WCXB's pages and 54 of
//! web-classics' showed a C1 control character, `â€` or `Ã` before a
//! continuation character; after it, one (whose bytes were lost before
//! they reached us).
//!
//! How: after the parse, so that damage spelt as character references
//! (`&acirc;&euro;&trade;`) is seen too, and only on a page whose text
//! shows the damage ([`damaged`]: a C1
//! control character, or a pair no language writes: `â€`, `Ã` before a
//! continuation character, `Â` before U+00A0 to U+00BF). On such a page,
//! each run of characters that, written back as Windows-1252 bytes, is
//! one well-formed UTF-8 sequence of two to four bytes becomes the
//! character it encodes ([`repair`]); a C1 control character left over
//! becomes its Windows-1252 character (or nothing, for the five that have
//! none). Everything else is left as it is, and a page without the
//! damage is not touched: one pass to look, one to repair, linear.
//! A page that means "â€" (one about this very damage) is repaired too;
//! that is the price, as it is for every tool that repairs it.

use html5ever::tendril::StrTendril;

use super::dom::{Kind, Node};

/// Repairs the text and attribute values of `nodes` when their text
/// shows the damage; touches nothing otherwise.
pub(super) fn repair_nodes(nodes: &mut [Node]) {
    // The text is enough to tell: a damaged page shows it in its text
    // (its `<title>` is text too); attribute values are only repaired.
    if !nodes
        .iter()
        .any(|n| matches!(&n.kind, Kind::Text(t) if damaged(t)))
    {
        return;
    }
    for n in nodes.iter_mut() {
        if let Kind::Text(t) = &mut n.kind {
            if let Some(fixed) = repair(t) {
                *t = StrTendril::from(fixed);
            }
        }
        for (_, v) in n.attrs.iter_mut() {
            if let Some(fixed) = repair(v) {
                *v = StrTendril::from(fixed);
            }
        }
    }
}

/// `text` repaired (read as text of a damaged page); `None` when nothing
/// in it changes.
fn repair(text: &str) -> Option<String> {
    if text.is_ascii() {
        return None;
    }
    let mut out = String::new();
    let mut copied = 0;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        if c.is_ascii() {
            continue;
        }
        let Some(lead) = byte_of(c).filter(|b| (0xC2..=0xF4).contains(b)) else {
            if ('\u{80}'..='\u{9f}').contains(&c) {
                out.push_str(&text[copied..i]);
                if let Some(p) = windows_1252(c as u8) {
                    out.push(p);
                }
                copied = i + c.len_utf8();
            }
            continue;
        };
        // The continuation characters the lead byte asks for.
        let need = match lead {
            0xC2..=0xDF => 1,
            0xE0..=0xEF => 2,
            _ => 3,
        };
        let mut bytes = [lead, 0, 0, 0];
        let mut end = i + c.len_utf8();
        let mut lookahead = chars.clone();
        let mut got = 0;
        while got < need {
            match lookahead
                .next()
                .and_then(|(j, d)| Some((j, d, byte_of(d)?)))
            {
                Some((j, d, b)) if (0x80..=0xBF).contains(&b) => {
                    got += 1;
                    bytes[got] = b;
                    end = j + d.len_utf8();
                }
                _ => break,
            }
        }
        // `from_utf8` refuses what is not UTF-8 though well shaped:
        // overlong forms, surrogates, beyond U+10FFFF.
        let decoded = (got == need)
            .then(|| std::str::from_utf8(&bytes[..=need]).ok())
            .flatten()
            .and_then(|s| s.chars().next());
        if let Some(d) = decoded {
            out.push_str(&text[copied..i]);
            // A sequence that spelt a C1 control character spells its
            // punctuation, as a lone one does.
            if ('\u{80}'..='\u{9f}').contains(&d) {
                out.extend(windows_1252(d as u8));
            } else {
                out.push(d);
            }
            copied = end;
            chars = lookahead;
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// Whether `html` shows the damage: a C1 control character, `â€`, `Ã`
/// before a continuation character or `Â` before U+00A0 to U+00BF. Read
/// from the bytes: every one of these starts with the lead byte 0xC2 or
/// 0xC3 (U+0080 to U+00FF).
fn damaged(html: &str) -> bool {
    let b = html.as_bytes();
    memchr::memchr2_iter(0xC2, 0xC3, b).any(|i| {
        let at = |k: usize| b.get(i + k).copied().unwrap_or(0);
        match (at(0), at(1)) {
            // U+0080 to U+009F.
            (0xC2, 0x80..=0x9F) => true,
            // `â` before `€` (E2 82 AC).
            (0xC3, 0xA2) => at(2) == 0xE2 && at(3) == 0x82 && at(4) == 0xAC,
            // `Ã` before U+0080 to U+00BF, or a Windows-1252 character
            // whose byte is 0x80 to 0x9F (all of them are; none is in
            // U+0080 to U+00FF).
            (0xC3, 0x83) => html
                .get(i + 2..)
                .and_then(|rest| rest.chars().next())
                .and_then(byte_of)
                .is_some_and(|x| (0x80..=0xBF).contains(&x)),
            // `Â` before U+00A0 to U+00BF.
            (0xC3, 0x82) => at(2) == 0xC2 && (0xA0..=0xBF).contains(&at(3)),
            _ => false,
        }
    })
}

/// The Windows-1252 byte that decodes to `c` (Latin-1's own for U+0080
/// to U+00FF, C1 controls included); `None` for any other character.
fn byte_of(c: char) -> Option<u8> {
    if ('\u{80}'..='\u{ff}').contains(&c) {
        return Some(c as u8);
    }
    (0x80..=0x9F).find(|&b| windows_1252(b) == Some(c))
}

/// The character Windows-1252 decodes `b` (0x80 to 0x9F) to; `None` for
/// the five bytes it leaves undefined (and any other byte).
fn windows_1252(b: u8) -> Option<char> {
    Some(match b {
        0x80 => '€',
        0x82 => '‚',
        0x83 => 'ƒ',
        0x84 => '„',
        0x85 => '…',
        0x86 => '†',
        0x87 => '‡',
        0x88 => 'ˆ',
        0x89 => '‰',
        0x8A => 'Š',
        0x8B => '‹',
        0x8C => 'Œ',
        0x8E => 'Ž',
        0x91 => '‘',
        0x92 => '’',
        0x93 => '“',
        0x94 => '”',
        0x95 => '•',
        0x96 => '–',
        0x97 => '—',
        0x98 => '˜',
        0x99 => '™',
        0x9A => 'š',
        0x9B => '›',
        0x9C => 'œ',
        0x9E => 'ž',
        0x9F => 'Ÿ',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `s` as the text of a page, repaired when the page is damaged.
    fn fixed(s: &str) -> String {
        if damaged(s) {
            repair(s).unwrap_or_else(|| s.to_string())
        } else {
            s.to_string()
        }
    }

    #[test]
    fn text_decoded_twice_is_read_once() {
        assert_eq!(fixed("<p>weâ€™ve</p>"), "<p>we’ve</p>");
        assert_eq!(fixed("fÃ¼r GrÃ¶ÃŸe"), "für Größe");
        assert_eq!(
            fixed("itertools â\u{80}\u{94} Functions"),
            "itertools — Functions"
        );
        assert_eq!(fixed("Â£790million"), "£790million");
        // Four bytes: an emoji.
        assert_eq!(fixed("Ã© ðŸ˜€"), "é 😀");
    }

    #[test]
    fn c1_controls_are_windows_1252_punctuation() {
        assert_eq!(fixed("that\u{92}s \u{93}it\u{94}"), "that’s “it”");
        // The five bytes Windows-1252 leaves undefined leave nothing.
        assert_eq!(fixed("a\u{81}b\u{9d}c"), "abc");
    }

    #[test]
    fn undamaged_pages_are_not_copied() {
        for s in [
            "plain ASCII",
            "café, naïve, Größe, déjà vu",
            "Ελληνικά, 日本語, emoji 😀",
            // Each character alone is ordinary Latin-1 text.
            "Â la carte, Ã",
            // Capitals before a curly quote: a valid pair of bytes, but
            // no sign of damage on the page.
            "“CAFÉ” and «\u{a0}vérité\u{a0}»",
        ] {
            assert!(!damaged(s), "{s}");
        }
    }

    #[test]
    fn what_is_not_a_sequence_stays() {
        // On a damaged page, a lead character without its continuation
        // and text in other scripts are copied as they are.
        assert_eq!(fixed("â€™ é x Ã ∑"), "’ é x Ã ∑");
        // A sequence cut by the end of the text.
        assert_eq!(fixed("â€™ â€"), "’ â€");
        // Overlong forms are not UTF-8.
        assert_eq!(fixed("â€™ À¯ à€€"), "’ À¯ à€€");
    }

    #[test]
    fn damage_spelt_as_references_is_repaired_in_text_and_title() {
        let page = crate::extract::extract(
            "<html><head><meta property='og:title' content='A DIY Investorâ€™s Guide'>\
             </head><body><article><p>It&acirc;&euro;&trade;s the saver&acirc;&#128;&#153;s \
             question, asked for years by every reader of this page.</p></article></body></html>",
            &url::Url::parse("https://example.com/").unwrap(),
            &crate::extract::Options::new(false, crate::extract::Style::Plain),
        );
        assert_eq!(page.title.as_deref(), Some("A DIY Investor’s Guide"));
        assert!(
            page.text.contains("It’s the saver’s question"),
            "{}",
            page.text
        );
    }

    /// The table is Windows-1252 as the WHATWG standard gives it (through
    /// encoding_rs, which decodes the page), the five undefined bytes
    /// aside.
    #[test]
    fn the_table_is_windows_1252() {
        for b in 0x80..=0x9Fu8 {
            let byte = [b];
            let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&byte);
            let c = text.chars().next().unwrap();
            let want = (!('\u{80}'..='\u{9f}').contains(&c)).then_some(c);
            assert_eq!(windows_1252(b), want, "{b:#x}");
            if let Some(c) = want {
                assert_eq!(byte_of(c), Some(b));
            }
        }
    }
}
