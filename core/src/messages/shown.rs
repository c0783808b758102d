//! How a value that came from the model or a server stands in a message:
//! escaped so that it cannot start or reorder a line, and bounded in
//! length. Every message template (`mod.rs`, `text.rs`) shows such values
//! through [`Shown`] only.

use std::fmt;

/// The most characters of one model- or server-chosen value a message
/// shows ([`Shown`]); the rest becomes an ellipsis.
pub const SHOWN_MAX_CHARS: usize = 256;

/// A value that came from the model or a server (a URL, a query, a
/// Content-Type value, a charset label, a Location), as every message shows it:
/// control characters escaped ([`escape_char`]) and at most
/// [`SHOWN_MAX_CHARS`] characters, then `…`. Messages sit outside the
/// untrusted envelope's markers (contract §11): without this, a newline in
/// an argument would start a line that reads as webgate's own, and a
/// server could make a 100-character reply carry megabytes of its text.
/// A value that is short and clean is shown exactly as it is.
#[derive(Clone, Copy, Debug)]
pub struct Shown<'a>(pub &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut chars = self.0.chars();
        for c in chars.by_ref().take(SHOWN_MAX_CHARS) {
            escape_char(f, c)?;
        }
        if chars.next().is_some() {
            f.write_str("…")?;
        }
        Ok(())
    }
}

/// Writes `c` so that it cannot break or reorder the line it is on: `\n`,
/// `\r`, `\t` as two-character escapes; every other control character,
/// the Unicode line and paragraph separators and the bidirectional
/// controls (which can make a line read in another order than it is
/// written) as `\u{xx}` in lower-case hex; anything else as itself.
pub fn escape_char<W: fmt::Write>(w: &mut W, c: char) -> fmt::Result {
    match c {
        '\n' => w.write_str("\\n"),
        '\r' => w.write_str("\\r"),
        '\t' => w.write_str("\\t"),
        c if c.is_control()
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}') =>
        {
            write!(w, "\\u{{{:x}}}", c as u32)
        }
        c => w.write_char(c),
    }
}
