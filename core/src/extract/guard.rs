//! A bound on attributes per tag, applied to the text before html5ever's
//! tokenizer sees it.
//!
//! Why: the tokenizer checks each new attribute against every attribute
//! the tag already has (to drop duplicates), so one tag with a million
//! distinct attribute names costs 5·10¹¹ comparisons (minutes). The check
//! is inside html5ever, so the only place to bound it is the input.
//!
//! How: the scanner does not know where tags really are (that depends on
//! the tokenizer's state: comments, raw text, quoted values), so it keeps
//! every hypothesis at once. Every `<` or `</` followed by an ASCII letter
//! may open a tag; from there the scanner runs the HTML standard's
//! tag-name and attribute states (§13.2.5.8–13.2.5.40) exactly as the
//! tokenizer would, counting the attributes started. Hypotheses in the
//! same state are merged keeping the largest count, so at most one is
//! kept per state (ten states): the scan is linear. Whatever the
//! tokenizer's real state, if it is inside a tag, one hypothesis tracks
//! that tag with a count at least as large as the real one.
//!
//! When a hypothesis is about to start attribute number
//! [`MAX_ATTRIBUTES`] + 1, a `>` is inserted before it: the tag ends there
//! and the rest of it reaches the page as text. If that hypothesis was
//! wrong (the bytes were in a comment, a script, a quoted value), one
//! `>` lands in text no one reads. Real pages stay far below the bound.

use std::borrow::Cow;

/// The most attributes a tag keeps (the tokenizer's cost per tag is the
/// square of this, and the byte count of such a tag is at least twice it).
pub const MAX_ATTRIBUTES: u32 = 64;

/// The tag-name and attribute states of the tokenizer.
#[derive(Clone, Copy)]
enum St {
    TagName,
    BeforeName,
    Name,
    AfterName,
    BeforeValue,
    DoubleQuoted,
    SingleQuoted,
    Unquoted,
    AfterQuoted,
    SelfClosing,
}

const STATES: usize = 10;

impl St {
    const ALL: [St; STATES] = [
        St::TagName,
        St::BeforeName,
        St::Name,
        St::AfterName,
        St::BeforeValue,
        St::DoubleQuoted,
        St::SingleQuoted,
        St::Unquoted,
        St::AfterQuoted,
        St::SelfClosing,
    ];
}

/// What one byte does to a hypothesis: its next state (`None`: the tag
/// ended) and whether the byte starts a new attribute.
fn step(state: St, b: u8) -> (Option<St>, bool) {
    let ws = matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    match state {
        St::TagName => match b {
            _ if ws => (Some(St::BeforeName), false),
            b'/' => (Some(St::SelfClosing), false),
            b'>' => (None, false),
            _ => (Some(St::TagName), false),
        },
        // `/` and `>` are reconsumed in the after-name state.
        St::BeforeName | St::AfterName => match b {
            _ if ws => (Some(state), false),
            b'/' => (Some(St::SelfClosing), false),
            b'>' => (None, false),
            b'=' if matches!(state, St::AfterName) => (Some(St::BeforeValue), false),
            // Anything else (`=` included, before a name) starts one.
            _ => (Some(St::Name), true),
        },
        St::Name => match b {
            _ if ws => (Some(St::AfterName), false),
            b'/' => (Some(St::SelfClosing), false),
            b'>' => (None, false),
            b'=' => (Some(St::BeforeValue), false),
            _ => (Some(St::Name), false),
        },
        St::BeforeValue => match b {
            _ if ws => (Some(St::BeforeValue), false),
            b'"' => (Some(St::DoubleQuoted), false),
            b'\'' => (Some(St::SingleQuoted), false),
            b'>' => (None, false),
            _ => (Some(St::Unquoted), false),
        },
        St::DoubleQuoted => match b {
            b'"' => (Some(St::AfterQuoted), false),
            _ => (Some(St::DoubleQuoted), false),
        },
        St::SingleQuoted => match b {
            b'\'' => (Some(St::AfterQuoted), false),
            _ => (Some(St::SingleQuoted), false),
        },
        St::Unquoted => match b {
            _ if ws => (Some(St::BeforeName), false),
            b'>' => (None, false),
            _ => (Some(St::Unquoted), false),
        },
        // Anything else is reconsumed in the before-name state, where it
        // starts an attribute.
        St::AfterQuoted | St::SelfClosing => match b {
            _ if ws && matches!(state, St::AfterQuoted) => (Some(St::BeforeName), false),
            b'/' if matches!(state, St::AfterQuoted) => (Some(St::SelfClosing), false),
            b'>' => (None, false),
            _ => step(St::BeforeName, b),
        },
    }
}

/// The bytes [`step`] tells apart: whitespace, `/`, `>`, `=`, `"`, `'`,
/// and any other.
const CLASSES: [u8; 7] = [b' ', b'/', b'>', b'=', b'"', b'\'', b'x'];

fn class(b: u8) -> usize {
    usize::from(CLASS_OF[usize::from(b)])
}

/// [`class`] by byte, one look-up instead of a chain of comparisons (the
/// scan asks it for every byte inside a tag).
static CLASS_OF: [u8; 256] = {
    let mut t = [6u8; 256];
    t[b'\t' as usize] = 0;
    t[b'\n' as usize] = 0;
    t[0x0c] = 0;
    t[b'\r' as usize] = 0;
    t[b' ' as usize] = 0;
    t[b'/' as usize] = 1;
    t[b'>' as usize] = 2;
    t[b'=' as usize] = 3;
    t[b'"' as usize] = 4;
    t[b'\'' as usize] = 5;
    t
};

/// No next state: the tag ended.
const DEAD: u8 = u8::MAX;

/// [`step`] as a table, per state and byte class (the state machine is
/// written once, in `step`; this is its every answer).
static TABLE: std::sync::LazyLock<[[(u8, bool); 7]; STATES]> = std::sync::LazyLock::new(|| {
    let mut t = [[(DEAD, false); 7]; STATES];
    for (i, &s) in St::ALL.iter().enumerate() {
        for (k, &b) in CLASSES.iter().enumerate() {
            let (n, starts) = step(s, b);
            t[i][k] = (n.map_or(DEAD, |n| n as u8), starts);
        }
    }
    t
});

/// The live hypotheses: per state, the largest attribute count of any
/// hypothesis in it, and a mask of the states that hold one.
#[derive(Clone, Copy, Default)]
struct Live {
    mask: u16,
    count: [u32; STATES],
}

/// Bytes that may change a hypothesis in a name or an unquoted value
/// (`<` too: a tag may open there), as a table by byte.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let bytes = *b"\t\n\x0c\r /=>\"'<";
    let mut k = 0;
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

impl Live {
    fn is_empty(&self) -> bool {
        self.mask == 0
    }

    /// Only hypotheses waiting for a closing quote are live.
    fn only_quoted(&self) -> bool {
        let quoted = (1 << St::DoubleQuoted as u16) | (1 << St::SingleQuoted as u16);
        self.mask & !quoted == 0
    }

    /// Only hypotheses inside a name or an unquoted value are live: until
    /// a [`special`] byte, nothing changes.
    fn only_in_words(&self) -> bool {
        let words = (1 << St::TagName as u16) | (1 << St::Name as u16) | (1 << St::Unquoted as u16);
        self.mask & !words == 0
    }

    fn merge(&mut self, s: St, count: u32) {
        let bit = 1 << s as u16;
        let slot = &mut self.count[s as usize];
        *slot = if self.mask & bit == 0 {
            count
        } else {
            (*slot).max(count)
        };
        self.mask |= bit;
    }

    /// The live states (as indexes) and their counts, by set bits.
    fn live(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        let mut m = self.mask;
        std::iter::from_fn(move || {
            (m != 0).then(|| {
                let s = m.trailing_zeros() as usize;
                m &= m - 1;
                (s, self.count[s])
            })
        })
    }

    /// Whether byte `b` would start attribute number `MAX_ATTRIBUTES + 1`
    /// in some hypothesis.
    fn would_overflow(&self, b: u8) -> bool {
        self.live()
            .any(|(s, c)| c >= MAX_ATTRIBUTES && TABLE[s][class(b)].1)
    }

    fn advance(&mut self, b: u8) {
        // The usual case inside a tag: one hypothesis, one table look-up.
        if self.mask.count_ones() == 1 {
            let s = self.mask.trailing_zeros() as usize;
            let (n, starts) = TABLE[s][class(b)];
            let c = self.count[s] + u32::from(starts);
            *self = Live::default();
            if n != DEAD {
                self.merge(St::ALL[usize::from(n)], c);
            }
            return;
        }
        let mut next = Live::default();
        for (s, c) in self.live() {
            let (n, starts) = TABLE[s][class(b)];
            if n != DEAD {
                next.merge(St::ALL[usize::from(n)], c + u32::from(starts));
            }
        }
        *self = next;
    }
}

/// Runs the one live hypothesis from byte `i` up to the next `<` (left
/// to the caller, since a tag may open there), the end of the text, or
/// the end of its tag; returns where it stopped. The same steps as
/// [`Live::advance`], one table look-up a byte, and inside a quoted value
/// or a word a jump to the next byte that can change it.
fn run_alone(bytes: &[u8], mut i: usize, live: &mut Live, inserts: &mut Vec<usize>) -> usize {
    let table = &*TABLE;
    let mut s = live.mask.trailing_zeros() as usize;
    let mut c = live.count[s];
    let stop = |s: usize, c: u32, live: &mut Live| {
        *live = Live::default();
        live.merge(St::ALL[s], c);
    };
    while i < bytes.len() {
        let skip = match St::ALL[s] {
            St::DoubleQuoted => memchr::memchr2(b'"', b'<', &bytes[i..]),
            St::SingleQuoted => memchr::memchr2(b'\'', b'<', &bytes[i..]),
            St::TagName | St::Name | St::Unquoted => {
                bytes[i..].iter().position(|&b| SPECIAL[usize::from(b)])
            }
            _ => Some(0),
        };
        match skip {
            Some(k) => i += k,
            None => {
                stop(s, c, live);
                return bytes.len();
            }
        }
        let b = bytes[i];
        if b == b'<' {
            stop(s, c, live);
            return i;
        }
        let (n, starts) = table[s][class(b)];
        if starts && c >= MAX_ATTRIBUTES {
            // The `>` inserted here ends the tag (in every state where
            // an attribute can start), so the byte itself is text.
            inserts.push(i);
            *live = Live::default();
            return i + 1;
        }
        if n == DEAD {
            *live = Live::default();
            return i + 1;
        }
        s = usize::from(n);
        c += u32::from(starts);
        i += 1;
    }
    stop(s, c, live);
    i
}

/// Where a tag ends whose name begins at `i` (the letter after `<` or
/// `</`): the index after the `>` that ends it, by the tokenizer's own
/// states (a `>` inside a quoted value does not); `None` when the text
/// ends first, as the tokenizer then drops the tag. The tail reads tags
/// with it (see `tail`).
pub(super) fn tag_end(bytes: &[u8], mut i: usize) -> Option<usize> {
    let table = &*TABLE;
    let mut s = St::TagName as usize;
    while i < bytes.len() {
        // Inside a quoted value only its closing quote changes anything.
        i += match St::ALL[s] {
            St::DoubleQuoted => memchr::memchr(b'"', &bytes[i..])?,
            St::SingleQuoted => memchr::memchr(b'\'', &bytes[i..])?,
            _ => 0,
        };
        let (n, _) = table[s][class(bytes[i])];
        i += 1;
        if n == DEAD {
            return Some(i);
        }
        s = usize::from(n);
    }
    None
}

/// Where a tag's name would begin if the `<` at `i` opens one: the
/// letter after `<` or `</`.
fn name_after(bytes: &[u8], i: usize) -> Option<usize> {
    let j = if bytes.get(i + 1) == Some(&b'/') {
        i + 2
    } else {
        i + 1
    };
    bytes
        .get(j)
        .is_some_and(u8::is_ascii_alphabetic)
        .then_some(j)
}

/// `html` with a `>` inserted wherever a tag would otherwise get more than
/// [`MAX_ATTRIBUTES`] attributes; borrowed when nothing is inserted (real
/// pages).
pub fn bound_attributes(html: &str) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut live = Live::default();
    let mut inserts: Vec<usize> = Vec::new();
    // The letter after a `<` or `</`: a tag may open there.
    let mut opens: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        // Fast paths: with nothing live, only a `<` matters; with one
        // hypothesis, it runs alone until a `<` (where another may open);
        // with only quoted values or only words live, few bytes matter.
        if opens.is_none() {
            if live.is_empty() {
                match memchr::memchr(b'<', &bytes[i..]) {
                    Some(k) => i += k,
                    None => break,
                }
                // With nothing live, `<` or `</` and a letter is a tag
                // name begun, and anything else is text.
                match name_after(bytes, i) {
                    Some(j) => {
                        live.merge(St::TagName, 0);
                        i = j + 1;
                    }
                    None => i += 1,
                }
                continue;
            } else if live.mask.count_ones() == 1 {
                i = run_alone(bytes, i, &mut live, &mut inserts);
                if i == bytes.len() {
                    break;
                }
                if live.is_empty() {
                    continue;
                }
            } else {
                let skip = if live.only_in_words() {
                    bytes[i..].iter().position(|&b| SPECIAL[usize::from(b)])
                } else if live.only_quoted() {
                    memchr::memchr3(b'<', b'"', b'\'', &bytes[i..])
                } else {
                    Some(0)
                };
                match skip {
                    Some(k) => i += k,
                    None => break,
                }
            }
        }
        let b = bytes[i];
        if live.would_overflow(b) {
            inserts.push(i);
            live.advance(b'>');
        }
        live.advance(b);
        if opens == Some(i) {
            // Whatever the state really is, a tag may have opened here.
            live.merge(St::TagName, 0);
            opens = None;
        } else if b == b'<' {
            opens = name_after(bytes, i);
        }
        i += 1;
    }
    if inserts.is_empty() {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len() + inserts.len());
    let mut from = 0;
    for at in inserts {
        // OK because every insertion point is the first byte of a
        // character: attributes start at a byte after ASCII whitespace,
        // `/`, `"` or `'`, never inside a multi-byte character.
        out.push_str(&html[from..at]);
        out.push('>');
        from = at;
    }
    out.push_str(&html[from..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The byte table gives every byte the class the tag grammar says:
    /// HTML's five spaces, then `/ > = " '`, then everything else.
    #[test]
    fn class_table_follows_the_grammar() {
        for b in 0..=255u8 {
            let want = match b {
                b'\t' | b'\n' | 0x0c | b'\r' | b' ' => 0,
                b'/' => 1,
                b'>' => 2,
                b'=' => 3,
                b'"' => 4,
                b'\'' => 5,
                _ => 6,
            };
            assert_eq!(class(b), want, "byte {b:#04x}");
        }
    }

    fn attrs(n: u32) -> String {
        (0..n).map(|i| format!(" a{i}")).collect()
    }

    /// Counts the attributes html5ever's tokenizer gives each start tag.
    fn tokenized_max(html: &str) -> usize {
        use html5ever::tokenizer::{
            BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer,
        };
        use std::cell::Cell;
        struct Max(Cell<usize>);
        impl TokenSink for Max {
            type Handle = ();
            fn process_token(&self, t: Token, _: u64) -> TokenSinkResult<()> {
                if let Token::TagToken(Tag { kind, attrs, .. }) = t {
                    let _ = kind == TagKind::StartTag;
                    self.0.set(self.0.get().max(attrs.len()));
                }
                TokenSinkResult::Continue
            }
        }
        let tok = Tokenizer::new(Max(Cell::new(0)), Default::default());
        let q = BufferQueue::default();
        q.push_back(html.into());
        let _ = tok.feed(&q);
        tok.end();
        tok.sink.0.get()
    }

    #[test]
    fn real_tags_are_untouched() {
        for html in [
            "<p class=\"a b c d e f g h i j k l m n o p q r s t u v w x y z\">x</p>",
            &format!("<div{}>x</div>", attrs(MAX_ATTRIBUTES)),
            "<a href='x\"y' title=\"a>b\">t</a><!-- <b a b c --> <img src=x alt=\"<i\">",
            "<script>if (a<b && c>d) x = '<a x=\"';</script><b>text</b>",
        ] {
            assert_eq!(bound_attributes(html), html);
        }
    }

    #[test]
    fn a_tag_keeps_at_most_the_bound() {
        let html = format!("<div{}>text</div>", attrs(10_000));
        let out = bound_attributes(&html);
        assert_eq!(tokenized_max(&out), MAX_ATTRIBUTES as usize);
        assert!(out.ends_with("text</div>"));
    }

    /// Whatever state the tokenizer is really in, no tag it sees gets
    /// more than the bound: a quote the scanner might take for the start
    /// of a value (in a comment, a script, a title) hides nothing.
    #[test]
    fn no_context_hides_a_tag_from_the_bound() {
        let many = attrs(5_000);
        for prefix in [
            "<!-- <a x=\" -->",
            "<script>var s = '<a x=\"';</script>",
            "<title><a x=\"</title>",
            "<textarea><a x='</textarea>",
            "<svg><style><a x=\"</style></svg>",
            "<p title=\"<b\" class='<i'>",
            "<a b=\"c\"d=e f='g'/h>",
            "</p",
        ] {
            for form in [
                format!("<b{many}>x"),
                format!("</b{many}>x"),
                format!("<b/{}>", many.replace(' ', "/")),
            ] {
                let html = format!("{prefix}{form}\"'");
                let out = bound_attributes(&html);
                assert!(
                    tokenized_max(&out) <= MAX_ATTRIBUTES as usize,
                    "{prefix}: {}",
                    tokenized_max(&out)
                );
            }
        }
    }

    /// The scanner without its fast paths: every byte through every
    /// live hypothesis. Where the real one inserts must be where this
    /// one does.
    fn byte_by_byte(html: &str) -> Vec<usize> {
        let bytes = html.as_bytes();
        let (mut live, mut inserts, mut opens) = (Live::default(), Vec::new(), None);
        for (i, &b) in bytes.iter().enumerate() {
            if live.would_overflow(b) {
                inserts.push(i);
                live.advance(b'>');
            }
            live.advance(b);
            if opens == Some(i) {
                live.merge(St::TagName, 0);
                opens = None;
            } else if b == b'<' {
                opens = name_after(bytes, i);
            }
        }
        inserts
    }

    /// Where `bound_attributes` put its `>`s, read back from its output.
    fn inserted(html: &str) -> Vec<usize> {
        let out = bound_attributes(html);
        let (mut at, mut from, mut k) = (Vec::new(), 0, 0);
        let (a, b) = (html.as_bytes(), out.as_bytes());
        while from < a.len() {
            if a[from] == b[from + k] {
                from += 1;
            } else {
                assert_eq!(b[from + k], b'>');
                at.push(from);
                k += 1;
            }
        }
        // An insertion at the very end cannot happen: a byte is needed to
        // start the attribute.
        assert_eq!(b.len(), a.len() + k);
        at
    }

    proptest::proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn fast_paths_change_nothing(
            parts in proptest::collection::vec(
                prop_oneof![
                    proptest::sample::select(vec![
                        "<", "</", ">", "=", "\"", "'", " ", "/", "a", "\n", "é", "<!--", "-->",
                    ]).prop_map(str::to_owned),
                    (1u32..80).prop_map(attrs),
                ],
                0..60,
            )
        ) {
            let html: String = parts.concat();
            // Runs of up to 79 attributes, so that a tag crosses the
            // bound in some cases and not in others.
            prop_assert_eq!(inserted(&html), byte_by_byte(&html));
        }
    }

    #[test]
    fn insertion_respects_character_boundaries() {
        let html = format!(
            "<i{}>é",
            (0..100).map(|i| format!(" é{i}")).collect::<String>()
        );
        let out = bound_attributes(&html);
        assert!(out.len() > html.len());
        assert!(out.ends_with('é'));
    }
}
