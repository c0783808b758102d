//! The rest of a page once a parse budget has run out: its text, read by
//! one scan instead of html5ever's tokenizer.
//!
//! Past the node or work budget (see `sink`) the tree is finished and the
//! rest of the page only gives text: kept in order as one text node where
//! the builder stopped, a line break where a block starts or ends, the
//! text of scripts, style sheets, titles and the like skipped. The
//! tokenizer read that rest at a tenth of its bytes per second on a page
//! of tiny tags, and the rest is most of a hostile page (three quarters of
//! 8 MiB of `<h1>x`: two fifths of the time of its whole extraction). The
//! scan here reads it as the tokenizer would, by the HTML standard's own
//! states, with byte searches between the places where text can change:
//! tags and their quoted values (their states are `guard`'s), comments,
//! doctypes, CDATA sections in foreign content, the raw text of scripts
//! (with their escapes) and of the other raw-text elements, character
//! references (numeric, and named from html5ever's own table), and line
//! ends. A test holds it to the tokenizer on generated pages.
//!
//! The filter stops the tokenizer at the first tag after the budget ran
//! out (a tag's end is the one place where the tokenizer holds nothing
//! back), and [`Tail::read`] takes the bytes it had not read.

use html5ever::data::{C1_REPLACEMENTS, NAMED_ENTITIES};
use html5ever::tokenizer::{Tag, TagKind};
use html5ever::LocalName;

use super::dom::Id;
use super::guard::tag_end;
use super::lexicon::is_block;
use super::work::Work;

/// How much of the rest is read between looks at the deadline.
const CHUNK: usize = 64 * 1024;

/// The longest key of html5ever's table of named references
/// (`&CounterClockwiseContourIntegral;`, without the `&`).
const LONGEST_NAME: usize = 32;

/// What the text of the rest is inside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Raw {
    /// Markup: tags, references and text.
    Markup,
    /// The raw text of this element (a script, a style sheet, a title…),
    /// skipped up to its end tag.
    Skip(LocalName),
    /// After `<plaintext>`: the rest is text, markup and all.
    Plaintext,
}

/// The text of the rest of the page, and where it goes.
pub struct Tail {
    /// The node the text goes under: where the builder stopped.
    pub parent: Id,
    pub text: String,
    pub raw: Raw,
}

impl Tail {
    pub fn new(parent: Id, raw: Raw) -> Tail {
        Tail {
            parent,
            text: String::new(),
            raw,
        }
    }

    /// A line break where a block starts or ends, so that words of
    /// separate blocks stay apart.
    fn separate(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with(char::is_whitespace) {
            self.text.push('\n');
        }
    }

    /// A tag the tokenizer gave after the budget ran out.
    pub fn tag(&mut self, tag: &Tag) {
        self.tag_named(tag.kind == TagKind::StartTag, &tag.name);
    }

    /// Text the tokenizer gave after the budget ran out.
    pub fn chars(&mut self, text: &str) {
        if !matches!(self.raw, Raw::Skip(_)) {
            self.text.push_str(text);
        }
    }

    fn tag_named(&mut self, start: bool, name: &str) {
        if let Raw::Skip(until) = &self.raw {
            if !start && **until == *name {
                self.raw = Raw::Markup;
            }
            return;
        }
        if start {
            match name {
                "script" | "style" | "xmp" | "iframe" | "noembed" | "noframes" | "title"
                | "textarea" => {
                    self.raw = Raw::Skip(LocalName::from(name));
                    return;
                }
                "plaintext" => {
                    self.raw = Raw::Plaintext;
                    return;
                }
                _ => {}
            }
        }
        if is_block(name) || name == "br" {
            self.separate();
        }
    }

    /// Reads `rest`, the page after the last token the tokenizer gave,
    /// into the text; its first `paid` bytes were charged to `work`
    /// already (given to the tokenizer, not read by it). `foreign` says
    /// whether the builder stopped inside SVG or MathML (where
    /// `<![CDATA[` opens text). Returns false when the work must stop
    /// first (the deadline): the text then ends where the reading
    /// stopped.
    pub fn read(&mut self, rest: &str, paid: usize, foreign: bool, work: &Work) -> bool {
        let bytes = rest.as_bytes();
        let mut i = 0;
        let mut paid = paid;
        while i < bytes.len() {
            // Each byte is charged once, CHUNK bytes at a time, and the
            // deadline looked at between them.
            while paid <= i {
                let n = CHUNK.min(bytes.len() - paid);
                if !work.spend(n) {
                    return false;
                }
                paid += n;
            }
            let mut until = bytes.len().min(paid);
            while !rest.is_char_boundary(until) {
                until += 1;
            }
            i = match std::mem::replace(&mut self.raw, Raw::Markup) {
                Raw::Skip(name) => {
                    let end = raw_text_end(bytes, i, &name).and_then(|k| tag_end(bytes, k + 2));
                    match end {
                        Some(end) => end,
                        None => {
                            self.raw = Raw::Skip(name);
                            bytes.len()
                        }
                    }
                }
                Raw::Plaintext => {
                    self.raw = Raw::Plaintext;
                    self.plain(rest, i, until)
                }
                Raw::Markup => self.markup(rest, i, until, foreign),
            };
        }
        true
    }

    /// Text in the plaintext state, from `i` to about `until` (a char
    /// boundary): line ends made `\n`, a NUL made U+FFFD.
    fn plain(&mut self, rest: &str, i: usize, until: usize) -> usize {
        let bytes = rest.as_bytes();
        let mut i = i;
        while i < until {
            let Some(k) = memchr::memchr2(b'\r', b'\0', &bytes[i..until]) else {
                self.text.push_str(&rest[i..until]);
                return until;
            };
            self.text.push_str(&rest[i..i + k]);
            i += k;
            if bytes[i] == b'\0' {
                self.text.push('\u{FFFD}');
                i += 1;
            } else {
                i = self.line_end(bytes, i);
            }
        }
        i
    }

    /// A `\r` at `i` (with the `\n` after it): one `\n`.
    fn line_end(&mut self, bytes: &[u8], i: usize) -> usize {
        self.text.push('\n');
        if bytes.get(i + 1) == Some(&b'\n') {
            i + 2
        } else {
            i + 1
        }
    }

    /// Markup from `i` to about `until` (a char boundary; a construct
    /// begun before it is read to its end); returns where it stopped, with
    /// [`Tail::raw`] set for what follows.
    fn markup(&mut self, rest: &str, mut i: usize, until: usize, foreign: bool) -> usize {
        let bytes = rest.as_bytes();
        while i < until {
            let Some(k) = memchr::memchr3(b'<', b'&', b'\r', &bytes[i..until]) else {
                self.text_run(&rest[i..until]);
                return until;
            };
            self.text_run(&rest[i..i + k]);
            i += k;
            i = match bytes[i] {
                b'\r' => self.line_end(bytes, i),
                b'&' => self.reference(rest, i),
                _ => self.open(rest, i, foreign),
            };
            if self.raw != Raw::Markup {
                break;
            }
        }
        i
    }

    /// Text without markup: NULs are dropped (the tokenizer gives them
    /// apart, and the tail never kept them).
    fn text_run(&mut self, run: &str) {
        if memchr::memchr(b'\0', run.as_bytes()).is_none() {
            self.text.push_str(run);
        } else {
            self.text.extend(run.chars().filter(|&c| c != '\0'));
        }
    }

    /// The `<` at `i`: a tag, a comment, a declaration, or text.
    fn open(&mut self, rest: &str, i: usize, foreign: bool) -> usize {
        let bytes = rest.as_bytes();
        let after = |needle: &[u8], from: usize| {
            memchr::memmem::find(&bytes[from.min(bytes.len())..], needle)
                .map_or(bytes.len(), |k| from + k + needle.len())
        };
        let to_gt = |from: usize| after(b">", from);
        match bytes.get(i + 1) {
            None => {
                self.text.push('<');
                bytes.len()
            }
            Some(b'!') => {
                let decl = &bytes[i + 2..];
                if decl.starts_with(b"--") {
                    let body = i + 4;
                    if bytes[body..].starts_with(b">") {
                        body + 1
                    } else if bytes[body..].starts_with(b"->") {
                        body + 2
                    } else {
                        after(b"-->", body).min(after(b"--!>", body))
                    }
                } else if foreign && decl.starts_with(b"[CDATA[") {
                    let body = i + 9;
                    let end = memchr::memmem::find(&bytes[body..], b"]]>")
                        .map_or(bytes.len(), |k| body + k);
                    self.cdata(&rest[body..end]);
                    (end + 3).min(bytes.len())
                } else {
                    // A doctype ends at its first `>` (quoted identifiers
                    // included); anything else is a bogus comment.
                    to_gt(i + 2)
                }
            }
            Some(b'?') => to_gt(i + 2),
            Some(b'/') => match bytes.get(i + 2) {
                None => {
                    self.text.push_str("</");
                    bytes.len()
                }
                Some(b'>') => i + 3,
                Some(c) if c.is_ascii_alphabetic() => self.tag_at(rest, i + 2, false),
                Some(_) => to_gt(i + 2),
            },
            Some(c) if c.is_ascii_alphabetic() => self.tag_at(rest, i + 1, true),
            Some(_) => {
                self.text.push('<');
                i + 1
            }
        }
    }

    /// The tag whose name begins at `name`: read to its end and acted on
    /// (dropped, as the tokenizer drops it, when the text ends inside).
    fn tag_at(&mut self, rest: &str, name: usize, start: bool) -> usize {
        let bytes = rest.as_bytes();
        let Some(end) = tag_end(bytes, name) else {
            return bytes.len();
        };
        let len = bytes[name..end]
            .iter()
            .position(|b| matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>'))
            .unwrap_or(end - name);
        let raw = &rest[name..name + len];
        // Every name the tail acts on is ASCII and short; others are not
        // lowered (nor interned) at all.
        if raw.len() <= 10 && raw.is_ascii() {
            let mut lower = [0u8; 10];
            lower[..raw.len()].copy_from_slice(raw.as_bytes());
            lower[..raw.len()].make_ascii_lowercase();
            let lower = std::str::from_utf8(&lower[..raw.len()]).unwrap_or_default();
            self.tag_named(start, lower);
        }
        end
    }

    /// The text of a CDATA section: line ends made `\n`, NULs dropped.
    fn cdata(&mut self, body: &str) {
        let bytes = body.as_bytes();
        let mut i = 0;
        while let Some(k) = memchr::memchr(b'\r', &bytes[i..]) {
            self.text_run(&body[i..i + k]);
            i = self.line_end(bytes, i + k);
        }
        self.text_run(&body[i..]);
    }

    /// The `&` at `i`: a character reference, or itself.
    fn reference(&mut self, rest: &str, i: usize) -> usize {
        let bytes = rest.as_bytes();
        match bytes.get(i + 1) {
            Some(b'#') => self.numeric(bytes, i),
            Some(c) if c.is_ascii_alphanumeric() => {
                // The longest name in the table that the text begins with
                // (the table holds every prefix of its names as well).
                let mut found = None;
                let last = bytes.len().min(i + 1 + LONGEST_NAME);
                for end in i + 2..=last {
                    if !rest.is_char_boundary(end) {
                        break;
                    }
                    match NAMED_ENTITIES.get(&rest[i + 1..end]) {
                        Some(&(c1, c2)) => {
                            if c1 != 0 {
                                found = Some((end, c1, c2));
                            }
                        }
                        None => break,
                    }
                }
                match found {
                    Some((end, c1, c2)) => {
                        for c in [c1, c2] {
                            if c != 0 {
                                self.text.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                            }
                        }
                        end
                    }
                    None => {
                        self.text.push('&');
                        i + 1
                    }
                }
            }
            _ => {
                self.text.push('&');
                i + 1
            }
        }
    }

    /// `&#` at `i`: a numeric reference, or the text itself when no digit
    /// follows.
    fn numeric(&mut self, bytes: &[u8], i: usize) -> usize {
        let hex = matches!(bytes.get(i + 2), Some(b'x' | b'X'));
        let (base, from) = if hex { (16, i + 3) } else { (10, i + 2) };
        let digits = bytes[from.min(bytes.len())..]
            .iter()
            .take_while(|b| char::from(**b).is_digit(base))
            .count();
        if digits == 0 {
            // The `&` is text; what follows it is read again as text.
            self.text.push('&');
            return i + 1;
        }
        // Past the last code point the value no longer matters.
        let n = bytes[from..from + digits].iter().fold(0u32, |n, &b| {
            let d = char::from(b).to_digit(base).unwrap_or(0);
            n.saturating_mul(base).saturating_add(d).min(0x11_0000)
        });
        let c = match n {
            0 | 0xD800..=0xDFFF | 0x11_0000.. => '\u{FFFD}',
            0x80..=0x9F => C1_REPLACEMENTS[(n - 0x80) as usize]
                .unwrap_or_else(|| char::from_u32(n).unwrap_or('\u{FFFD}')),
            n => char::from_u32(n).unwrap_or('\u{FFFD}'),
        };
        self.text.push(c);
        let end = from + digits;
        if bytes.get(end) == Some(&b';') {
            end + 1
        } else {
            end
        }
    }
}

/// Whether byte `b` ends a tag's name (and may end an end tag that
/// closes raw text).
fn ends_name(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>')
}

/// Where the raw text of element `name` that begins at `i` ends: the `<`
/// of the end tag that closes it (by the tokenizer's states for that
/// element's text), or `None` when the page ends first. The parse skips
/// the text of scripts and style sheets with it (see `sink`).
pub(super) fn raw_text_end(bytes: &[u8], i: usize, name: &str) -> Option<usize> {
    if name == "script" {
        script_end(bytes, i)
    } else {
        raw_end(bytes, i, name)
    }
}

/// The end of the raw text of `name` (not a script) from `i`.
fn raw_end(bytes: &[u8], mut i: usize, name: &str) -> Option<usize> {
    let name = name.as_bytes();
    loop {
        i += memchr::memmem::find(&bytes[i..], b"</")? + 2;
        let letters = bytes[i..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
        if letters == name.len()
            && bytes[i..i + letters].eq_ignore_ascii_case(name)
            && bytes.get(i + letters).is_some_and(|&b| ends_name(b))
        {
            return Some(i - 2);
        }
    }
}

/// The end of a script's raw text from `i`, by the standard's script
/// data states (§13.2.5.4, 13.2.5.15–31): `</script` ends it, except
/// inside `<!--` … `-->` after a `<script` (double escaped).
fn script_end(bytes: &[u8], mut i: usize) -> Option<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum S {
        Data,
        Escaped,
        Double,
    }
    let mut s = S::Data;
    // Dashes just read in an escaped state (two, then `>`, leaves it).
    let mut dashes = 0;
    let is_script = |at: usize| -> Option<usize> {
        let n = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_alphabetic())
            .count();
        (n == 6
            && bytes[at..at + 6].eq_ignore_ascii_case(b"script")
            && bytes.get(at + 6).is_some_and(|&b| ends_name(b)))
        .then_some(at + 6)
    };
    while i < bytes.len() {
        if s == S::Data {
            i += memchr::memchr(b'<', &bytes[i..])?;
        }
        let b = bytes[i];
        match (s, b) {
            (S::Data, _) => {
                // At a `<`.
                if bytes[i + 1..].starts_with(b"/") && is_script(i + 2).is_some() {
                    return Some(i);
                }
                if bytes[i + 1..].starts_with(b"!--") {
                    s = S::Escaped;
                    dashes = 2;
                    i += 4;
                } else {
                    i += 1;
                }
            }
            (_, b'-') => {
                dashes += 1;
                i += 1;
            }
            (_, b'>') if dashes >= 2 => {
                s = S::Data;
                dashes = 0;
                i += 1;
            }
            (S::Escaped, b'<') => {
                dashes = 0;
                if bytes[i + 1..].starts_with(b"/") && is_script(i + 2).is_some() {
                    return Some(i);
                }
                if let Some(end) = is_script(i + 1) {
                    s = S::Double;
                    i = end;
                } else {
                    i += 1;
                }
            }
            (S::Double, b'<') => {
                dashes = 0;
                if bytes[i + 1..].starts_with(b"/") {
                    if let Some(end) = is_script(i + 2) {
                        s = S::Escaped;
                        i = end;
                        continue;
                    }
                }
                i += 1;
            }
            _ => {
                dashes = 0;
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use html5ever::tokenizer::{
        BufferQueue, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
    };
    use proptest::prelude::*;

    use super::*;

    /// The tokenizer read as the tail read it before the scan: the
    /// reference the scan is held to.
    struct Reference {
        tail: RefCell<Tail>,
        foreign: bool,
    }

    impl TokenSink for Reference {
        type Handle = ();

        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            let mut tail = self.tail.borrow_mut();
            match token {
                Token::TagToken(tag) => {
                    tail.tag(&tag);
                    match &tail.raw {
                        Raw::Skip(name) => match &**name {
                            "script" => TokenSinkResult::RawData(
                                html5ever::tokenizer::states::RawKind::ScriptData,
                            ),
                            "title" | "textarea" => TokenSinkResult::RawData(
                                html5ever::tokenizer::states::RawKind::Rcdata,
                            ),
                            _ => TokenSinkResult::RawData(
                                html5ever::tokenizer::states::RawKind::Rawtext,
                            ),
                        },
                        Raw::Plaintext => TokenSinkResult::Plaintext,
                        Raw::Markup => TokenSinkResult::Continue,
                    }
                }
                Token::CharacterTokens(t) => {
                    tail.chars(&t);
                    TokenSinkResult::Continue
                }
                _ => TokenSinkResult::Continue,
            }
        }

        fn adjusted_current_node_present_but_not_in_html_namespace(&self) -> bool {
            self.foreign
        }
    }

    fn by_tokenizer(page: &str, foreign: bool) -> String {
        let tokenizer = Tokenizer::new(
            Reference {
                tail: RefCell::new(Tail::new(0, Raw::Markup)),
                foreign,
            },
            TokenizerOpts::default(),
        );
        let input = BufferQueue::default();
        input.push_back(page.into());
        let _ = tokenizer.feed(&input);
        tokenizer.end();
        let text = std::mem::take(&mut tokenizer.sink.tail.borrow_mut().text);
        text
    }

    fn by_scan(page: &str, foreign: bool) -> String {
        let mut tail = Tail::new(0, Raw::Markup);
        assert!(tail.read(page, 0, foreign, &Work::unbounded()));
        tail.text
    }

    /// Pieces that reach every state the scan reads.
    const PIECES: &[&str] = &[
        "a",
        "b c",
        "é",
        "\u{1F600}",
        " ",
        "\n",
        "\r",
        "\r\n",
        "\0",
        "<",
        ">",
        "/",
        "=",
        "\"",
        "'",
        "-",
        "!",
        "?",
        "&",
        "#",
        "x",
        "X",
        ";",
        "1",
        "9",
        "f",
        "<p>",
        "</p>",
        "<P class=x>",
        "<div a='>'>",
        "<br/>",
        "</br>",
        "<b>",
        "</ b>",
        "</>",
        "</1",
        "<1",
        "<!--",
        "-->",
        "--!>",
        "<!-->",
        "<!--->",
        "<!---->",
        "<!doctype html>",
        "<!DOCTYPE x \"a>b\">",
        "<?x>",
        "<![CDATA[",
        "]]>",
        "<script>",
        "</script>",
        "</SCRIPT >",
        "<script/>",
        "</scripts>",
        "<!--<script>",
        "</script -->",
        "<style>",
        "</style>",
        "<title>",
        "</title>",
        "<textarea>",
        "</textarea>",
        "<xmp>",
        "</xmp>",
        "<plaintext>",
        "&amp;",
        "&amp",
        "&lt",
        "&notit;",
        "&noti",
        "&notin;",
        "&AMP;",
        "&#65;",
        "&#x41",
        "&#X4a;",
        "&#0;",
        "&#128;",
        "&#x81;",
        "&#xD800;",
        "&#99999999999;",
        "&#;",
        "&#x;",
        "&zz;",
        "&CounterClockwiseContourIntegral;",
        "<svg>",
        "<a href=\"x\" title='y'>",
        "<td",
    ];

    fn page() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..40).prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn the_scan_reads_what_the_tokenizer_reads(page in page(), foreign in any::<bool>()) {
            prop_assert_eq!(by_scan(&page, foreign), by_tokenizer(&page, foreign));
        }
    }

    #[test]
    fn text_references_and_blocks() {
        let page = "a&amp;b<p>c&#x41;d</p>e<script>x</script>f<style>y</style>g<br>h&notit;";
        assert_eq!(by_scan(page, false), "a&b\ncAd\nefg\nh¬it;");
        assert_eq!(by_scan(page, false), by_tokenizer(page, false));
    }

    #[test]
    fn a_script_escape_hides_its_end_tag() {
        let page = "<script><!--<script></script>x--></script>y";
        assert_eq!(by_scan(page, false), "y");
        assert_eq!(by_scan(page, false), by_tokenizer(page, false));
    }

    #[test]
    fn the_deadline_stops_the_reading() {
        let mut tail = Tail::new(0, Raw::Markup);
        let work = Work::new(None, None, 2 * CHUNK as u64);
        let page = "x".repeat(4 * CHUNK);
        // The first chunk was paid for: two more fit the budget.
        assert!(!tail.read(&page, CHUNK, false, &work));
        assert_eq!(tail.text.len(), 3 * CHUNK);
        assert_eq!(work.spent(), 3 * CHUNK as u64);
    }
}
