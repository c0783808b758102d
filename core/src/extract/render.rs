//! Rendering the chosen subtrees as markdown or plain text.
//!
//! The walk follows document order (a subtree is one run of ids), with
//! an explicit stack of open elements instead of recursion. Constructs
//! that must see their whole content before writing it (links, headings,
//! quotes, list items, code blocks, table cells) get a frame: their text
//! collects in it and is folded into the parent's on exit. Whitespace
//! collapses outside `pre`; blank lines never run together.
//!
//! Bounded by construction (a hostile page must not multiply its size):
//!
//! - at most [`MAX_FRAMES`] frames are open: deeper constructs render as
//!   plain content of the innermost one, so no byte is copied more than
//!   that many times;
//! - the prefix of a line (quote markers, list indentation) is at most
//!   [`MAX_PREFIX`] bytes: deeper quotes and lists render at the deepest
//!   level shown;
//! - table rows are not padded to the widest row (GFM fills missing
//!   cells); only the header row spans every column;
//! - every byte the rendering adds (text, markup, link targets) is
//!   counted against a budget of [`output_budget`] bytes; past it nothing
//!   more is written and the text is marked truncated.

use url::Url;

use std::collections::{HashMap, HashSet};

use super::dom::{Doc, Id, Kind, Node};
use super::invisible;
use super::lexicon::is_block;
use super::links::link_target;
use super::tables;
use super::work::Work;
use crate::policy::Links;

/// Markdown (the tool's output) or plain text (no syntax, no link targets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Style {
    /// Markdown.
    #[default]
    Markdown,
    /// Plain text.
    Plain,
}

/// The most frames open at once.
pub const MAX_FRAMES: usize = 16;

/// The longest line prefix (quote markers and list indentation), bytes.
pub const MAX_PREFIX: usize = 12;

/// The most bytes a rendering of a page of `input` bytes may write:
/// four times the page, and 64 KiB for the smallest pages.
pub fn output_budget(input: usize) -> usize {
    input.saturating_mul(4).saturating_add(64 * 1024)
}

/// A rendered text, and whether the output budget cut it.
pub struct Rendered {
    pub text: String,
    pub truncated: bool,
    /// With [`Links::References`], the URLs the text numbers, in order
    /// (`[1]` is the first).
    pub refs: Vec<String>,
    /// The bytes of link and image targets the markdown wrote (`(url)`,
    /// `[n]`, a whole `![alt](src)`): what plain text of the same nodes
    /// does not have. See [`Rendered::enough`].
    pub targets: usize,
}

/// How much more than [`super::MIN_ARTICLE_BYTES`] a markdown rendering
/// must hold, its targets aside, to be known long enough without
/// rendering it again as plain text: headings' `#`, items' `- ` and
/// emphasis marks are a small share of any text this long.
const MARKUP_ROOM: usize = 300;

/// Whether a rendering of the markdown needs its plain text's length to
/// say if it is long enough to be what extraction chose.
pub enum Enough {
    Yes,
    No,
    /// Measure the plain text of the same nodes: the markdown's length
    /// is mostly its links' targets.
    AsPlain,
}

impl Rendered {
    /// Whether this text is long enough (at least `min` bytes) to be
    /// what extraction chose, measured as plain text in either style, so
    /// that markdown and plain text choose the same content: a short
    /// text of many links is not long because its URLs are.
    pub fn enough(&self, style: Style, min: usize) -> Enough {
        let len = self.text.trim().len();
        if len < min {
            Enough::No
        } else if style == Style::Plain || len.saturating_sub(self.targets) >= min + MARKUP_ROOM {
            Enough::Yes
        } else {
            Enough::AsPlain
        }
    }
}

/// Counts the bytes the rendering adds; once the budget is spent, every
/// further write is refused. It also charges the extraction's work meter
/// for every byte the rendering reads or copies: when that says stop
/// (the deadline, the caller), the budget is spent at once.
struct Meter<'w> {
    left: usize,
    spent: bool,
    work: &'w Work,
}

impl Meter<'_> {
    /// Takes `n` bytes from the budget; false (and spent) if they do not fit.
    fn take(&mut self, n: usize) -> bool {
        if self.spent || n > self.left {
            self.spent = true;
            return false;
        }
        self.left -= n;
        true
    }

    /// Whether [`Meter::take`] of `n` would succeed (nothing is taken).
    fn fits(&self, n: usize) -> bool {
        !self.spent && n <= self.left
    }

    /// Charges `n` units of work (bytes read or copied, nodes visited).
    fn scan(&mut self, n: usize) {
        if !self.work.spend(n) {
            self.stop();
        }
    }

    /// Nothing more is written.
    fn stop(&mut self) {
        self.spent = true;
        self.left = 0;
    }
}

/// A quote or list item open in a buffer: what starts each of its lines.
/// Its lines are written once, with every open prefix in front, rather
/// than copied and prefixed again by each enclosing quote and item.
struct Prefix {
    /// `"> "` for a quote, the marker (`"- "`, `"3. "`) for an item.
    marker: String,
    quote: bool,
    /// A line was written inside it: an item's later lines are indented
    /// instead of marked, and a blank line between two of its lines
    /// carries its mark.
    seen: bool,
    /// The separator owed and the space owed when it opened: an element
    /// that wrote nothing leaves them as they were.
    before: (u8, bool),
}

/// An output buffer with pending separators.
#[derive(Default)]
struct Buf {
    out: String,
    /// 0 nothing, 1 newline, 2 blank line, owed before the next text.
    brk: u8,
    space: bool,
    pre: bool,
    /// Whitespace came before the first character written.
    lead_space: bool,
    /// A line break or block came before the first character written
    /// (as [`Buf::brk`] counts them): `<b><br>Text</b>`.
    lead_brk: u8,
    /// The emphasis mark that closed the text written last, and where the
    /// text then ended: `<b>F</b><b>O</b>` is one run, `**FO**`, not
    /// `**F****O**`.
    closed: Option<(&'static str, usize)>,
    /// The quotes and items open in this buffer, outermost first.
    prefixes: Vec<Prefix>,
    /// The next text starts a line (and so its prefixes go first).
    line_start: bool,
    /// Its first text starts a line of the output: the root's does; a
    /// frame's does when its text lands where the buffer around it stood
    /// at a line's start, not after marks of its own (`**`, `[`, `## `,
    /// a cell's `| `).
    begins_line: bool,
}

impl Buf {
    fn new(pre: bool) -> Buf {
        Buf {
            pre,
            line_start: true,
            begins_line: true,
            ..Buf::default()
        }
    }

    /// Whether the innermost quote or item has written nothing yet: the
    /// separators its content asks for before its first line are the
    /// one it opened with (its first line is its own).
    fn fresh(&self) -> bool {
        self.prefixes.last().is_some_and(|p| !p.seen)
    }

    fn flush_sep(&mut self, m: &mut Meter) {
        if self.out.is_empty() {
            self.lead_brk = self.lead_brk.max(self.brk);
        } else {
            match self.brk {
                0 if self.space => self.put(" ", m),
                0 => {}
                1 => {
                    self.put("\n", m);
                    self.line_start = true;
                }
                _ => {
                    self.put("\n", m);
                    self.blank_line(m);
                    self.put("\n", m);
                    self.line_start = true;
                }
            }
        }
        self.brk = 0;
        self.space = false;
        if self.line_start {
            self.line_start = false;
            self.line_prefix(m);
        }
    }

    /// Writes `s` (counted here) if the budget allows.
    fn put(&mut self, s: &str, m: &mut Meter) {
        if m.take(s.len()) {
            self.out.push_str(s);
        }
    }

    /// What starts a line of text: each open quote's `> `, each item's
    /// marker on its first line and as many spaces on the others.
    fn line_prefix(&mut self, m: &mut Meter) {
        for i in 0..self.prefixes.len() {
            let p = &mut self.prefixes[i];
            let (quote, seen, width) = (p.quote, p.seen, p.marker.len());
            p.seen = true;
            if quote || !seen {
                let marker = std::mem::take(&mut self.prefixes[i].marker);
                self.put(&marker, m);
                self.prefixes[i].marker = marker;
            } else {
                self.put(&PAD[..width.min(PAD.len())], m);
            }
        }
    }

    /// What stands on a blank line between two lines of text: the
    /// prefixes of the quotes and items already shown, without the
    /// spaces they end with (a blank line has no text).
    fn blank_line(&mut self, m: &mut Meter) {
        let mut mark = String::new();
        for p in self.prefixes.iter().filter(|p| p.seen) {
            if p.quote {
                mark.push_str(&p.marker);
            } else {
                mark.push_str(&PAD[..p.marker.len().min(PAD.len())]);
            }
        }
        self.put(mark.trim_end(), m);
    }

    /// Appends `s` (already counted), its lines after the first each
    /// started by the open prefixes; stops when the budget does.
    fn push_lines(&mut self, s: &str, m: &mut Meter) {
        if self.prefixes.is_empty() {
            self.out.push_str(s);
            return;
        }
        let mut lines = s.split('\n');
        if let Some(first) = lines.next() {
            self.out.push_str(first);
        }
        for line in lines {
            if m.spent {
                return;
            }
            self.out.push('\n');
            if line.is_empty() {
                self.blank_line(m);
            } else {
                self.line_prefix(m);
                self.out.push_str(line);
            }
        }
    }

    fn text(&mut self, s: &str, m: &mut Meter) {
        m.scan(s.len());
        // Soft hyphens, zero-width spaces and the like show nothing where
        // they stand; in text they would split words (see `invisible`).
        let visible = invisible::strip(s);
        let s = visible.as_ref();
        if self.pre {
            if !s.is_empty() {
                self.flush_sep(m);
                if m.take(s.len()) {
                    self.push_lines(s, m);
                }
            }
            return;
        }
        // Word by word: whitespace between words collapses to one owed
        // space (or the owed break), words are copied whole.
        let mut rest = s;
        while !rest.is_empty() {
            let word = rest.trim_start();
            if word.len() != rest.len() {
                self.space = true;
                if self.out.is_empty() {
                    self.lead_space = true;
                }
            }
            if word.is_empty() {
                break;
            }
            self.flush_sep(m);
            // Words one plain space apart (most prose) are copied as one
            // run when the budget holds all of it: the bytes the word
            // by word path writes, without a separator check per word.
            // Otherwise the run's words one by one (each owes the space
            // before it), so that a cut falls after a word. Either way
            // the run is read once: going back to the run's scan after
            // each word would make a long paragraph past the budget
            // quadratic.
            let run = single_spaced(word);
            if m.fits(run) {
                m.take(run);
                self.out.push_str(&word[..run]);
            } else {
                for (i, w) in word[..run].split(' ').enumerate() {
                    if i > 0 {
                        self.space = true;
                        if self.out.is_empty() {
                            self.lead_space = true;
                        }
                        self.flush_sep(m);
                    }
                    if m.take(w.len()) {
                        self.out.push_str(w);
                    }
                }
            }
            rest = &word[run..];
        }
    }

    /// Literal output (markup) that glues to what follows; `added` of its
    /// bytes are new (the rest was counted when first written). When the
    /// budget cannot pay for all of it, the part that fits is written
    /// and the budget is spent: a block too big for what is left comes
    /// out cut, not as nothing.
    fn raw(&mut self, s: &str, added: usize, m: &mut Meter) {
        self.flush_sep(m);
        if m.take(added) {
            self.push_lines(s, m);
            return;
        }
        let fits = s.len().saturating_sub(added).saturating_add(m.left);
        m.left = 0;
        self.push_lines(&s[..floor_char_boundary(s, fits)], m);
    }

    /// Whether the next text starts a line of the output: this buffer's
    /// first text when the buffer begins a line where it is folded (see
    /// [`Buf::begins_line`]), or text after a line break.
    fn at_line_start(&self) -> bool {
        if self.out.is_empty() {
            self.begins_line
        } else {
            self.brk > 0 || self.line_start
        }
    }

    fn block(&mut self) {
        if self.fresh() {
            return;
        }
        self.brk = 2;
        self.space = false;
    }

    fn line(&mut self) {
        if self.fresh() {
            return;
        }
        self.brk = self.brk.max(1);
        self.space = false;
    }

    /// A `<br>`: a line break, and a second one with no text between
    /// ends the paragraph (pages write paragraphs as `text<br><br>text`).
    fn br(&mut self) {
        if self.fresh() {
            return;
        }
        self.brk = (self.brk + 1).min(2);
        self.space = false;
    }

    /// A quote or item opens: its first line is a new line (a block for a
    /// quote, a line for an item).
    fn open_prefix(&mut self, marker: String, quote: bool) {
        let before = (self.brk, self.space);
        if quote {
            self.block();
        } else {
            self.line();
        }
        self.prefixes.push(Prefix {
            marker,
            quote,
            seen: false,
            before,
        });
    }

    /// A quote or item closes: what follows starts a new line (a block
    /// after a quote), unless it wrote nothing, which leaves no trace.
    fn close_prefix(&mut self) {
        let Some(p) = self.prefixes.pop() else {
            return;
        };
        if !p.seen {
            (self.brk, self.space) = p.before;
            return;
        }
        // What its last lines still owed (a paragraph's end) goes with it:
        // after an item comes a line, after a quote a blank line.
        self.brk = if p.quote { 2 } else { 1 };
        self.space = false;
    }
}

/// Spaces for the indent of an item's later lines (at most
/// [`MAX_PREFIX`] wide in all).
const PAD: &str = "                ";

enum FrameKind {
    Plain,
    Link(Option<String>),
    Wrap(&'static str),
    Heading(usize),
    /// A quote and an item write into the buffer around them, with their
    /// prefix at the start of each line (see [`Prefix`]).
    Quote,
    Item(String),
    Pre,
    Cell,
    Table(Vec<Vec<String>>),
}

impl FrameKind {
    /// The bytes this frame adds to the prefix of each of its lines.
    fn prefix(&self) -> usize {
        match self {
            FrameKind::Quote => 2,
            FrameKind::Item(marker) => marker.len(),
            _ => 0,
        }
    }

    /// Whether its text collects in a buffer of its own, folded into the
    /// one around it on exit (every frame but quotes and items).
    fn collects(&self) -> bool {
        !matches!(self, FrameKind::Quote | FrameKind::Item(_))
    }
}

/// Whether a text's first word would make its line markdown of its
/// own at the start of a line: an ATX heading's marks (`###`, a press
/// release's end; `#` before "Posted 4:15 PM" on an old blog's
/// permalink), a code fence (```` ``` ````, `~~~`), or, alone on its
/// line, a setext heading's underline (`=====`, `--`), which would make
/// the line above a heading. Such a word is the page's, and is escaped.
/// List markers (`1.`, `-`), `>` and a dash before a name ("-- Mark
/// Twain") are not: they read the same as markdown.
///
/// `after` says what follows the text on its line ([`after_text`]),
/// read when the text ends with its first word: `#` followed by a link
/// "1" reads "#1", no heading.
fn starts_block(text: &str, after: impl Fn() -> After) -> bool {
    let words = text.trim_start();
    let word = words.split_whitespace().next().unwrap_or("");
    let all = |c: char| word.chars().all(|w| w == c);
    let marks = (word.len() <= 6 && all('#'))
        || word.starts_with("```")
        || word.starts_with("~~~")
        || all('=')
        || all('-');
    if word.is_empty() || !marks {
        return false;
    }
    let underline = all('=') || all('-');
    if word.len() != words.trim_end().len() {
        // Words follow on its line: a heading's or a fence's, not an
        // underline's.
        return !underline;
    }
    if word.len() < words.len() && !underline {
        // A space, then whatever follows: a heading or a fence still.
        return true;
    }
    // Asked last: it climbs the tree (only for the rare text of marks).
    match after() {
        After::LineEnd => true,
        After::Space => !underline,
        After::Glued => false,
    }
}

/// What follows a text on its line.
enum After {
    /// The line ends: a break or a block comes next, or the text is the
    /// last of a block.
    LineEnd,
    /// Text that starts with a space.
    Space,
    /// Anything else: text glued to it, or an inline element.
    Glued,
}

/// What follows the text node `id` on its line, climbing out of the
/// inline elements it ends (a few at most).
fn after_text(doc: &Doc, id: Id) -> After {
    let mut at = id;
    for _ in 0..LINE_END_CLIMB {
        let next = doc.end(at);
        let Some(parent) = doc.parent(at) else {
            return After::LineEnd;
        };
        if doc.end(parent) != next {
            // Its next sibling.
            return match &doc.nodes[next].kind {
                Kind::Text(t) if t.starts_with(char::is_whitespace) => After::Space,
                Kind::Element(_)
                    if doc.nodes[next]
                        .tag()
                        .is_some_and(|t| t == "br" || is_block(t)) =>
                {
                    After::LineEnd
                }
                _ => After::Glued,
            };
        }
        if doc.nodes[parent].tag().is_some_and(is_block) {
            return After::LineEnd;
        }
        at = parent;
    }
    After::Glued
}

/// How many inline elements [`after_text`] climbs out of.
const LINE_END_CLIMB: usize = 8;

/// The length of the run of words at the start of `s` (which starts with
/// a word) whose words are one plain space (U+0020) apart: it ends at the
/// end of `s` or before other whitespace, so it ends with a word.
fn single_spaced(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b' ' {
            // One space then more of a word continues the run.
            match s[i + 1..].chars().next() {
                Some(next) if !next.is_whitespace() => i += 1,
                _ => break,
            }
        } else if c.is_ascii() {
            // `char::is_whitespace` for ASCII: tab to carriage return
            // (vertical tab included) and the space handled above.
            if (b'\t'..=b'\r').contains(&c) {
                break;
            }
            i += 1;
        } else {
            // OK because `i` is on a character boundary: it only moves
            // by whole characters.
            let ch = s[i..].chars().next().expect("a character");
            if ch.is_whitespace() {
                break;
            }
            i += ch.len_utf8();
        }
    }
    i
}

/// The largest char boundary of `s` at or below `i`.
fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    // OK because a boundary lies at most three bytes back.
    (i.saturating_sub(3)..=i)
        .rev()
        .find(|&k| s.is_char_boundary(k))
        .unwrap_or(0)
}

/// The longest run of `b` in `s`, in one pass.
fn longest_run(s: &str, b: u8) -> usize {
    let (mut best, mut run) = (0, 0);
    for &c in s.as_bytes() {
        run = if c == b { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Which nodes to leave out (with everything below them).
pub type Drops<'a> = Option<&'a dyn Fn(Id) -> bool>;

/// Renders `roots` (in order) as one text, leaving out what `drops` says.
/// Once `work` says stop, nothing more is written (the text is marked
/// truncated).
pub fn render(
    doc: &Doc,
    roots: &[Id],
    base: &Url,
    look: Look,
    drops: Drops,
    work: &Work,
) -> Rendered {
    render_titled(doc, roots, base, look, drops, work, None, Vec::new())
}

/// [`render`] for a page whose title line is `title`: an image whose alt
/// text says no more than the title is not shown. With
/// [`Links::References`], `refs` are the URLs a text before this one
/// numbered already: this one goes on from them.
#[allow(clippy::too_many_arguments)]
pub fn render_titled(
    doc: &Doc,
    roots: &[Id],
    base: &Url,
    look: Look,
    drops: Drops,
    work: &Work,
    title: Option<&str>,
    refs: Vec<String>,
) -> Rendered {
    let numbered = refs
        .iter()
        .enumerate()
        .map(|(i, u)| (u.clone(), i + 1))
        .collect();
    let mut r = Renderer {
        doc,
        base,
        md: look.style == Style::Markdown,
        links: look.links,
        body_images: look.body_images,
        title: title.map(words).unwrap_or_default(),
        alts: Vec::new(),
        refs,
        numbered,
        targets: 0,
        last_link: None,
        shown: HashSet::new(),
        frames: vec![FrameKind::Plain],
        bufs: vec![Buf::new(false)],
        list_counters: Vec::new(),
        tables: Vec::new(),
        layouts: HashMap::new(),
        prefix: 0,
        meter: Meter {
            left: output_budget(doc.source_len),
            spent: false,
            work,
        },
    };
    for &root in roots {
        r.walk(root, drops);
    }
    let mut out = std::mem::take(&mut r.bufs[0].out);
    // Buffers left open (cannot happen: every entered element is exited)
    // are appended in order.
    for b in r.bufs.drain(1..) {
        out.push_str(&b.out);
    }
    Rendered {
        text: out.trim().to_string(),
        truncated: r.meter.spent,
        refs: r.refs,
        targets: r.targets,
    }
}

/// How a text looks: markdown or plain, and how markdown shows links.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Look {
    pub style: Style,
    pub links: Links,
    /// Images of the body count as content (an article's pictures; the
    /// whole document when asked for raw). Else only a captioned
    /// figure's picture is shown: a product's gallery, a service page's
    /// illustrations and a listing's thumbnails repeat what the text
    /// says.
    pub body_images: bool,
}

impl From<Style> for Look {
    fn from(style: Style) -> Look {
        Look {
            style,
            links: Links::Inline,
            body_images: true,
        }
    }
}

struct Renderer<'a> {
    doc: &'a Doc,
    base: &'a Url,
    md: bool,
    links: Links,
    /// With [`Links::References`], the URLs numbered so far, and each
    /// one's number.
    refs: Vec<String>,
    numbered: HashMap<String, usize>,
    /// The bytes of targets written (see [`Rendered::targets`]).
    targets: usize,
    /// The target of the last link shown: the next link to the same
    /// address (a card's title after its picture, its "read more") is
    /// shown as text.
    last_link: Option<String>,
    /// With [`Links::Inline`], the targets shown so far: a page that
    /// links one address again and again (a name linked in every
    /// paragraph of a manual, a poster's profile on each of their
    /// posts, a category under every card) shows its URL once, at the
    /// first link; the later ones are their text alone. Bounded by the
    /// output: each target was written into it.
    shown: HashSet<String>,
    /// See [`Look::body_images`].
    body_images: bool,
    /// The words of the page's title line.
    title: Vec<String>,
    /// The alt texts of the images shown (a gallery says one name for
    /// every picture).
    alts: Vec<Vec<String>>,
    /// The open frames, outermost first; the root is `Plain`.
    frames: Vec<FrameKind>,
    /// The buffers of the frames that collect their text, in the same
    /// order (the root's first).
    bufs: Vec<Buf>,
    list_counters: Vec<Option<u64>>,
    /// The open tables, innermost last: whether each is layout.
    tables: Vec<bool>,
    /// What each table read so far was found to be.
    layouts: HashMap<Id, bool>,
    /// The prefix width of the open quote and item frames.
    prefix: usize,
    meter: Meter<'a>,
}

/// What entering an element left to undo on exit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Opened {
    Nothing,
    Frame,
    List,
    /// A layout table (see `tables.rs`).
    Layout,
}

impl<'a> Renderer<'a> {
    /// The buffer text goes to now, and the meter.
    fn out(&mut self) -> (&mut Buf, &mut Meter<'a>) {
        // OK because the root buffer is never popped.
        let buf = self.bufs.last_mut().expect("root buffer");
        (buf, &mut self.meter)
    }

    fn top(&mut self) -> &mut Buf {
        self.out().0
    }

    fn in_wrap(&self, mark: &str) -> bool {
        self.frames
            .iter()
            .any(|f| matches!(f, FrameKind::Wrap(m) if *m == mark))
    }

    fn in_heading(&self) -> bool {
        self.frames
            .iter()
            .any(|f| matches!(f, FrameKind::Heading(_)))
    }

    fn in_link(&self) -> bool {
        self.frames.iter().any(|f| matches!(f, FrameKind::Link(_)))
    }

    fn in_code(&self) -> bool {
        self.frames
            .iter()
            .any(|f| matches!(f, FrameKind::Pre | FrameKind::Wrap("`")))
    }

    /// Whether the table at `id` is layout (see `tables.rs`), read once
    /// per rendering: many roots may be rows of one table.
    fn is_layout(&mut self, id: Id) -> bool {
        if let Some(&layout) = self.layouts.get(&id) {
            return layout;
        }
        let (layout, read) = tables::is_layout(self.doc, id);
        self.meter.scan(read);
        self.layouts.insert(id, layout);
        layout
    }

    /// Inside a data table's cell (and not in a table nested in it).
    fn in_cell(&self) -> bool {
        self.frames
            .iter()
            .rev()
            .find(|f| matches!(f, FrameKind::Cell | FrameKind::Table(_)))
            .is_some_and(|f| matches!(f, FrameKind::Cell))
    }

    fn in_pre(&self) -> bool {
        self.frames.iter().any(|f| matches!(f, FrameKind::Pre))
    }

    /// The subtree at `root`, in document order; inside its table when it
    /// is a part of one.
    fn walk(&mut self, root: Id, drops: Drops) {
        // A root that is part of a table (the rows the selection chose)
        // is rendered as that table shows them: a grid when it is data.
        if let Some(table) = table_around(self.doc, root) {
            if !self.is_layout(table) && self.frames.len() < MAX_FRAMES {
                self.tables.push(false);
                self.frames.push(FrameKind::Table(Vec::new()));
                let pre = self.in_pre();
                self.bufs.push(Buf::new(pre));
                self.walk_subtree(root, drops);
                self.exit(table, Opened::Frame);
                return;
            }
        }
        self.walk_subtree(root, drops);
    }

    /// The subtree at `root`, in document order.
    fn walk_subtree(&mut self, root: Id, drops: Drops) {
        let doc = self.doc;
        let end = doc.end(root);
        let mut open: Vec<(Id, Opened)> = Vec::new();
        let mut id = root;
        // The inline element that just ended, while nothing but comments
        // and skipped nodes came after it (see `apart`).
        let mut after: Option<Id> = None;
        loop {
            // Every node is a unit of work; once the meter says stop,
            // the budget is spent, so nothing more is written (the walk
            // still closes what it opened, writing nothing).
            self.meter.scan(1);
            if self.meter.spent {
                // Nothing more can be written: skip to the end, where
                // the open elements close in order.
                id = id.max(end);
            }
            if let Some(&(top, opened)) = open.last() {
                if id >= doc.end(top) {
                    open.pop();
                    self.exit(top, opened);
                    after = Some(top);
                    continue;
                }
            }
            if id >= end {
                break;
            }
            let node = &doc.nodes[id];
            // Inside code the class names are a highlighter's
            // (`hljs-comment`, `token comment`): they name no region.
            if node.junk || drops.is_some_and(|d| d(id)) && !self.in_code() {
                id = doc.end(id);
                continue;
            }
            match &node.kind {
                Kind::Text(t) => {
                    after = None;
                    let escape =
                        self.md && starts_block(t, || after_text(doc, id)) && !self.in_code();
                    let (buf, meter) = self.out();
                    if escape && buf.at_line_start() {
                        // The page's words, not markup of ours: `\###`.
                        let words = t.trim_start();
                        let lead = &t[..t.len() - words.len()];
                        buf.text(&format!("{lead}\\{words}"), meter);
                    } else {
                        buf.text(t, meter);
                    }
                    id += 1;
                }
                Kind::Other => id += 1,
                Kind::Element(_) => {
                    if after.take().is_some_and(|prev| apart(doc, prev, id)) && !self.in_pre() {
                        let b = self.top();
                        if b.brk == 0 {
                            b.space = true;
                        }
                    }
                    match self.enter(id) {
                        Some(opened) => {
                            open.push((id, opened));
                            id += 1;
                        }
                        None => id = doc.end(id),
                    }
                }
            }
        }
    }

    /// Enters an element: `None` when it is rendered whole here (void
    /// elements), else what to undo when its subtree ends.
    fn enter(&mut self, id: Id) -> Option<Opened> {
        let node = &self.doc.nodes[id];
        let tag = node.tag().unwrap_or("");
        let pre = self.in_pre();
        let md = self.md;
        match tag {
            "br" => {
                let (b, m) = self.out();
                if pre {
                    b.text("\n", m);
                } else {
                    b.br();
                }
                return None;
            }
            "hr" => {
                // Inside a list item the item's own marker already sets
                // it apart (card lists draw a rule at the top of every
                // card): a break, not `- ---`.
                let item = self.frames.iter().any(|f| matches!(f, FrameKind::Item(_)));
                let (b, m) = self.out();
                b.block();
                if md && !item {
                    b.raw("---", 3, m);
                    b.block();
                }
                return None;
            }
            // A formula drawn as an image (a TeX fallback, as wikis and
            // MathJax write it) is its alt text: the formula itself.
            "img" if is_formula(node) => {
                if let Some(alt) = node.attr("alt").map(one_line).filter(|a| !a.is_empty()) {
                    let (b, m) = self.out();
                    b.text(&alt, m);
                }
                return None;
            }
            "img" => {
                if md && self.links != Links::None {
                    if let Some((alt, src)) = self.content_image(id) {
                        self.alts.push(words(&alt));
                        let s = match self.target(src) {
                            Target::Inline(src) => format!("![{alt}]({src})"),
                            Target::Numbered(n) => format!("![{alt}][{n}]"),
                        };
                        self.targets += s.len();
                        let (b, m) = self.out();
                        b.raw(&s, s.len(), m);
                    }
                }
                return None;
            }
            _ => {}
        }
        let deep = self.frames.len() >= MAX_FRAMES;
        // A table is data (a frame that collects its rows) or the page's
        // layout (blocks, as if its rows and cells were `<div>`s; see
        // `tables.rs`). Too deep for a frame, it is blocks too.
        if tag == "table" {
            let layout = self.is_layout(id) || deep;
            self.tables.push(layout);
            if layout {
                self.top().block();
                return Some(Opened::Layout);
            }
        }
        let data_cell = self.tables.last() == Some(&false);
        let kind = match tag {
            "a" => Some(FrameKind::Link(
                node.attr("href").and_then(|h| link_target(self.base, h)),
            )),
            // Emphasis inside the same emphasis adds nothing (and nested
            // a hundred deep, a hundred marks per word).
            "strong" | "b" if !pre && !self.in_wrap("**") => Some(FrameKind::Wrap("**")),
            "em" | "i" if !pre && !self.in_wrap("*") => Some(FrameKind::Wrap("*")),
            "code" | "kbd" | "samp" | "tt" if !pre && !self.in_wrap("`") => {
                Some(FrameKind::Wrap("`"))
            }
            // A heading inside a link (a tile's title) is the link's text:
            // markdown has no heading inside a link; nor inside a heading.
            // Nor inside a table's cell: a datum is one line (a header row
            // set in `<h4>`s is the table's header, not the page's).
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6"
                if !self.in_link() && !self.in_heading() && !self.in_cell() =>
            {
                Some(FrameKind::Heading(usize::from(tag.as_bytes()[1] - b'0')))
            }
            "blockquote" => Some(FrameKind::Quote),
            "li" => {
                let marker = match self.list_counters.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => "- ".to_string(),
                };
                Some(FrameKind::Item(marker))
            }
            "pre" => Some(FrameKind::Pre),
            "td" | "th" if data_cell => Some(FrameKind::Cell),
            "table" => Some(FrameKind::Table(Vec::new())),
            _ => None,
        }
        // Too deep, or a prefix too wide: rendered as plain content.
        .filter(|k| !deep && self.prefix + k.prefix() <= MAX_PREFIX);
        let mut opened = Opened::Nothing;
        match tag {
            "ul" | "ol" | "menu" => {
                let start = node
                    .attr("start")
                    .and_then(|s| s.trim().parse::<u64>().ok())
                    .unwrap_or(1);
                self.list_counters.push((tag == "ol").then_some(start));
                self.list_break();
                opened = Opened::List;
            }
            // An item's separators are the item frame's own.
            "li" if kind.is_some() => {}
            "tr" if data_cell => {
                if let Some(FrameKind::Table(rows)) = self
                    .frames
                    .iter_mut()
                    .rev()
                    .find(|f| matches!(f, FrameKind::Table(_)))
                {
                    rows.push(Vec::new());
                }
            }
            t if is_block(t) => self.top().block(),
            _ => {}
        }
        if let Some(kind) = kind {
            self.prefix += kind.prefix();
            match &kind {
                // Plain text has no quote marks or list markers.
                FrameKind::Quote => {
                    let mark = if md { "> " } else { "" };
                    self.top().open_prefix(mark.to_string(), true);
                }
                FrameKind::Item(marker) => {
                    let mark = if md { marker.clone() } else { String::new() };
                    self.top().open_prefix(mark, false);
                }
                k => {
                    let pre_buf = matches!(k, FrameKind::Pre) || pre;
                    let begins_line = match k {
                        FrameKind::Plain | FrameKind::Table(_) | FrameKind::Link(None) => {
                            self.top().at_line_start()
                        }
                        _ => false,
                    };
                    self.bufs.push(Buf {
                        begins_line,
                        ..Buf::new(pre_buf)
                    });
                }
            }
            self.frames.push(kind);
            opened = Opened::Frame;
        }
        Some(opened)
    }

    fn exit(&mut self, id: Id, opened: Opened) {
        let tag = self.doc.nodes[id].tag().unwrap_or("");
        match opened {
            Opened::Layout => {
                self.tables.pop();
                self.top().block();
            }
            Opened::List => {
                self.list_counters.pop();
                self.list_break();
            }
            Opened::Nothing => {
                if is_block(tag) {
                    self.top().block();
                }
            }
            Opened::Frame => {
                // OK because a frame was pushed when this element was entered.
                let kind = self.frames.pop().expect("frame");
                self.prefix -= kind.prefix();
                if !kind.collects() {
                    self.top().close_prefix();
                    return;
                }
                if let FrameKind::Table(_) = kind {
                    self.tables.pop();
                }
                // OK because a collecting frame pushed its buffer.
                let buf = self.bufs.pop().expect("buffer");
                if let FrameKind::Cell = kind {
                    self.place_cell(buf);
                    return;
                }
                let kind = match kind {
                    FrameKind::Link(target) => FrameKind::Link(self.shown_link(target, &buf)),
                    k => k,
                };
                let md = self.md;
                let (parent, m) = self.out();
                fold(kind, buf, parent, md, m);
            }
        }
    }

    /// What follows a link's `[text]`, if anything: `(url)`, or `[n]`
    /// with [`Links::References`]; `None` shows the text alone (no
    /// target a reader can follow, links off, plain text, the same
    /// target as the link just before: a card links its picture, its
    /// title and its "read more" to one address, and one link says it;
    /// inline, a target shown already on the page).
    fn shown_link(&mut self, target: Option<String>, buf: &Buf) -> Option<String> {
        let target = target.filter(|_| self.md && self.links != Links::None)?;
        if buf.out.trim().is_empty() {
            return Some(String::new());
        }
        if self.last_link.as_deref() == Some(target.as_str()) {
            return None;
        }
        // Past the budget nothing more is written: no target is kept
        // either, so `shown` holds only what the output holds.
        if self.meter.spent {
            return None;
        }
        self.last_link = Some(target.clone());
        if self.links == Links::Inline && !self.shown.insert(target.clone()) {
            return None;
        }
        let shown = match self.target(target) {
            Target::Inline(t) => format!("({t})"),
            Target::Numbered(n) => format!("[{n}]"),
        };
        // With the brackets around the link's text.
        self.targets += shown.len() + 2;
        Some(shown)
    }

    /// How a URL is cited in the text.
    fn target(&mut self, url: String) -> Target {
        if self.links != Links::References {
            return Target::Inline(url);
        }
        let next = self.refs.len() + 1;
        let n = *self.numbered.entry(url.clone()).or_insert(next);
        if n == next {
            self.refs.push(url);
        }
        Target::Numbered(n)
    }

    /// An image worth showing, as `(alt, src)`: one that carries
    /// content, as a captioned figure's picture does, or an image in the
    /// body of an article ([`Look::body_images`]). Not an image inside a
    /// link (a card's thumbnail, a logo that links home) unless it is a
    /// figure's; not one named or sized as an icon, avatar, logo, badge
    /// or pixel, nor a vector graphic (icons and logos, almost always);
    /// not one whose alt text is a file name, says no more than the
    /// page's title or an image already shown (a product's gallery), or
    /// is the heading or link right after it (a card's picture says its
    /// title again); not one without alt text (nothing to read).
    fn content_image(&self, id: Id) -> Option<(String, String)> {
        let doc = self.doc;
        let node = &doc.nodes[id];
        let alt = node.attr("alt").map(one_line).unwrap_or_default();
        let alt_words = words(&alt);
        if alt_words.is_empty() || is_file_name(&alt) {
            return None;
        }
        let src = image_source(node).and_then(|s| link_target(self.base, s))?;
        let file = src.split(['?', '#']).next().unwrap_or("");
        if file.to_ascii_lowercase().ends_with(".svg") {
            return None;
        }
        if alt_words.iter().all(|w| self.title.contains(w)) || self.alts.contains(&alt_words) {
            return None;
        }
        let small = |a: &str| {
            node.attr(a)
                .and_then(|v| v.trim().trim_end_matches("px").parse::<u32>().ok())
                .is_some_and(|px| px <= ICON_PX)
        };
        if small("width") || small("height") {
            return None;
        }
        let named = |s: &str| {
            let s = s.to_ascii_lowercase();
            DECORATIVE.iter().any(|w| s.contains(w))
        };
        let path = src.rsplit('/').next().unwrap_or("");
        if named(&node.class_id()) || named(path) || named(&alt) {
            return None;
        }
        let in_figure = self.in_figure(id);
        if !in_figure && (self.in_link() || !self.body_images) {
            return None;
        }
        if !in_figure && repeats_next(doc, id, &alt) {
            return None;
        }
        Some((alt.replace(['[', ']'], ""), src))
    }

    /// Whether `id` is inside a `<figure>` that has a caption (at most
    /// [`FIGURE_CLIMB`] levels up).
    fn in_figure(&self, id: Id) -> bool {
        let doc = self.doc;
        let mut up = doc.parent(id);
        for _ in 0..FIGURE_CLIMB {
            let Some(p) = up else {
                return false;
            };
            if doc.nodes[p].tag() == Some("figure") {
                return doc
                    .children(p)
                    .any(|c| doc.nodes[c].tag() == Some("figcaption"));
            }
            up = doc.parent(p);
        }
        false
    }

    /// A finished cell goes into the last row of the innermost table, or
    /// inline when it stands outside any.
    fn place_cell(&mut self, buf: Buf) {
        let mut cell = one_line(&buf.out);
        if self.md && cell.contains('|') {
            let escapes = cell.matches('|').count();
            if self.meter.take(escapes) {
                cell = cell.replace('|', "\\|");
            }
        }
        let table = self.frames.iter_mut().rev().find_map(|k| match k {
            FrameKind::Table(rows) => Some(rows),
            _ => None,
        });
        match table {
            Some(rows) => match rows.last_mut() {
                Some(r) => r.push(cell),
                None => rows.push(vec![cell]),
            },
            None => {
                let (b, m) = self.out();
                b.text(&cell, m);
                b.space = true;
            }
        }
    }

    /// A list inside a list item sits on the next line; elsewhere a list
    /// is a block of its own.
    fn list_break(&mut self) {
        let in_item = matches!(self.frames.last(), Some(FrameKind::Item(_)));
        let b = self.top();
        if in_item {
            b.line();
        } else {
            b.block();
        }
    }
}

/// The table `root` is a part of, when it is one (a row group or a row):
/// the selection may choose a table's rows without the table.
fn table_around(doc: &Doc, root: Id) -> Option<Id> {
    let mut id = root;
    for _ in 0..2 {
        if !matches!(
            doc.nodes[id].tag(),
            Some("tbody" | "thead" | "tfoot" | "tr")
        ) {
            return None;
        }
        id = doc.parent(id)?;
        if doc.nodes[id].tag() == Some("table") {
            return Some(id);
        }
    }
    None
}

fn fold(kind: FrameKind, buf: Buf, parent: &mut Buf, md: bool, m: &mut Meter) {
    let (lead, trail) = (buf.lead_space, buf.space);
    // A break at an inline frame's edge (`<b>Label<br></b>Text`, a link
    // around a block) is the sentence's, as its spaces are.
    let (lead_brk, trail_brk) = (buf.lead_brk, buf.brk);
    let edge = |parent: &mut Buf, space: bool, brk: u8| {
        if brk > 0 {
            // An item's or quote's first line is its own (see `block`).
            if !parent.fresh() {
                parent.brk = parent.brk.max(brk);
                parent.space = false;
            }
        } else if space {
            parent.space = true;
        }
    };
    let inner = buf.out;
    // Folding reads the frame's text a bounded number of times.
    m.scan(inner.len());
    match kind {
        // Quotes and items write into their parent as they go.
        FrameKind::Plain | FrameKind::Quote | FrameKind::Item(_) => parent.text(&inner, m),
        FrameKind::Link(target) => {
            let text = one_line(&inner);
            if text.is_empty() {
                // Whitespace inside an empty link still separates words.
                edge(
                    parent,
                    lead || trail || !inner.is_empty(),
                    lead_brk.max(trail_brk),
                );
                return;
            }
            // Space at the link's edges belongs to the sentence around it.
            edge(parent, lead, lead_brk);
            match target {
                Some(t) if md && !t.is_empty() => {
                    // A link whose text is its own address shows the
                    // address once, as an autolink (CommonMark: our
                    // targets hold no space, `<` or `>`).
                    let own = t
                        .strip_prefix('(')
                        .and_then(|u| u.strip_suffix(')'))
                        .filter(|u| *u == text || u.strip_suffix('/') == Some(text.as_str()));
                    let s = match own {
                        Some(u) => format!("<{u}>"),
                        None => format!("[{text}]{t}"),
                    };
                    parent.raw(&s, s.len() - text.len(), m);
                }
                _ => parent.raw(&text, 0, m),
            }
            edge(parent, trail, trail_brk);
        }
        FrameKind::Wrap(mark) => {
            let text = inner.trim();
            if text.is_empty() {
                // `for<strong> </strong>more`: the space still separates.
                edge(
                    parent,
                    lead || trail || !inner.is_empty(),
                    lead_brk.max(trail_brk),
                );
                return;
            }
            edge(parent, lead, lead_brk);
            let touching =
                parent.closed == Some((mark, parent.out.len())) && parent.brk == 0 && !parent.space;
            if mark == "`" && touching {
                // Code right after code (`<kbd>F</kbd><kbd>TAB</kbd>`):
                // two spans, set apart, in either style; run together,
                // markdown reads the two backticks between them as one
                // longer fence (CommonMark) and the spans as one garbled.
                parent.space = true;
            }
            if md && mark != "`" && touching && !text.contains('\n') {
                // The same emphasis right after itself: one run.
                parent.out.truncate(parent.out.len() - mark.len());
                let s = format!("{text}{mark}");
                parent.raw(&s, 0, m);
                parent.closed = Some((mark, parent.out.len()));
            } else if md && !text.contains('\n') {
                let s = if mark == "`" {
                    // A code span is closed by a run of backticks as long
                    // as its opener (CommonMark): the fence is one longer
                    // than the longest run inside, and a space pads
                    // content that starts or ends with a backtick.
                    let fence = "`".repeat(longest_run(text, b'`') + 1);
                    let pad = if text.starts_with('`') || text.ends_with('`') {
                        " "
                    } else {
                        ""
                    };
                    format!("{fence}{pad}{text}{pad}{fence}")
                } else {
                    format!("{mark}{text}{mark}")
                };
                parent.raw(&s, s.len() - text.len(), m);
                parent.closed = Some((mark, parent.out.len()));
            } else {
                parent.raw(text, 0, m);
                if mark == "`" {
                    parent.closed = Some((mark, parent.out.len()));
                }
            }
            edge(parent, trail, trail_brk);
        }
        FrameKind::Heading(level) => {
            let text = one_line(&inner);
            if text.is_empty() {
                return;
            }
            parent.block();
            if md {
                let s = format!("{} {text}", "#".repeat(level));
                parent.raw(&s, level + 1, m);
            } else {
                parent.raw(&text, 0, m);
            }
            parent.block();
        }
        FrameKind::Pre => {
            let text = inner.trim_matches('\n');
            if text.trim().is_empty() {
                return;
            }
            parent.block();
            if md {
                // One count of the longest run of backticks, not a search
                // of the whole text per length tried: a block that is one
                // long run of backticks must cost its length, not its
                // square.
                let fence = "`".repeat(longest_run(text, b'`').max(2) + 1);
                let s = format!("{fence}\n{text}\n{fence}");
                parent.raw(&s, 2 * fence.len() + 2, m);
            } else {
                parent.raw(text, 0, m);
            }
            parent.block();
        }
        // Cells are placed by the caller, in their table's rows.
        FrameKind::Cell => parent.text(&inner, m),
        FrameKind::Table(rows) => {
            let rows: Vec<Vec<String>> = rows
                .into_iter()
                .filter(|r| r.iter().any(|c| !c.is_empty()))
                .collect();
            // Text directly inside the table (a caption) comes first.
            parent.block();
            parent.text(&inner, m);
            if rows.is_empty() {
                return;
            }
            parent.block();
            let mut out = String::new();
            let mut cells = 0;
            if md {
                // The header spans every column; other rows keep their
                // own cells (GFM fills in what a row lacks), so a row of
                // a thousand cells cannot widen every other row.
                let cols = rows.iter().map(Vec::len).max().unwrap_or(1);
                let line = |out: &mut String, r: &[String], width: usize| {
                    out.push('|');
                    for i in 0..width {
                        out.push(' ');
                        out.push_str(r.get(i).map(String::as_str).unwrap_or(""));
                        out.push_str(" |");
                    }
                };
                line(&mut out, &rows[0], cols);
                out.push_str("\n|");
                out.push_str(&" --- |".repeat(cols));
                for r in &rows[1..] {
                    out.push('\n');
                    line(&mut out, r, r.len());
                }
            } else {
                for (i, r) in rows.iter().enumerate() {
                    if i > 0 {
                        out.push('\n');
                    }
                    out.push_str(&r.join(" "));
                }
            }
            for r in &rows {
                cells += r.iter().map(String::len).sum::<usize>();
            }
            let added = out.len().saturating_sub(cells);
            parent.raw(&out, added, m);
            parent.block();
        }
    }
}

/// How a URL is cited: in place, or by its number in the list after the
/// text.
enum Target {
    Inline(String),
    Numbered(usize),
}

/// An image this small (width or height, CSS pixels) is an icon.
const ICON_PX: u32 = 64;

/// Words in an image's class, id, file name or alt text that say it is
/// decoration, not content.
const DECORATIVE: &[&str] = &[
    "avatar",
    "logo",
    "icon",
    "emoji",
    "gravatar",
    "badge",
    "sprite",
    "spinner",
    "loader",
    "placeholder",
    "spacer",
    "pixel",
    "tracking",
    "blank.gif",
    "profile image",
    "profile photo",
    "profile picture",
];

/// Where an image's picture is: its `src`; but when `src` holds a
/// stand-in (nothing, a `data:` URI, or a one-pixel placeholder file,
/// [`STAND_IN`]), the picture a browser shows instead, the widest of its
/// `srcset`, or the address a script puts there once the image scrolls
/// into view (`data-src`, `data-lazy-src`, `data-original`,
/// `data-srcset`: pages that load their pictures lazily). Without this
/// an article's pictures showed as the placeholder's address, or as the
/// page's own address (`src=""` resolves to it), or not at all.
fn image_source(node: &Node) -> Option<&str> {
    let attr = |a: &str| node.attr(a).map(str::trim).filter(|v| !v.is_empty());
    let src = attr("src");
    let stand_in = src.is_none_or(|s| {
        // The file name's own words, so that `photo-1001x1024.jpg` is
        // no `1x1` and `blanket.jpg` no `blank`.
        let file = s.split(['?', '#']).next().unwrap_or("");
        let file = file.rsplit('/').next().unwrap_or("").to_ascii_lowercase();
        is_data_uri(s)
            || file
                .split(|c: char| !c.is_ascii_alphanumeric())
                .any(|w| STAND_IN.contains(&w))
    });
    if !stand_in {
        return src;
    }
    let deferred = ["data-src", "data-lazy-src", "data-original"]
        .into_iter()
        .filter_map(attr)
        .find(|v| !is_data_uri(v));
    attr("srcset")
        .and_then(widest)
        .or(deferred)
        .or_else(|| attr("data-srcset").and_then(widest))
        .or(src)
}

/// Whether `s` is a `data:` URI (the scheme in any case): a picture
/// inlined as bytes, which has no address to show.
fn is_data_uri(s: &str) -> bool {
    s.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("data:"))
}

/// Words of an image file's name that say it stands in for the picture
/// a script loads later (WordPress's lazy-load plugins' `1x1.trans.gif`,
/// `lazy-placeholder.png`, older sites' `spacer.gif` and `blank.gif`).
const STAND_IN: &[&str] = &[
    "1x1",
    "blank",
    "spacer",
    "placeholder",
    "lazy",
    "trans",
    "transparent",
    "empty",
    "pixel",
];

/// The widest candidate of a `srcset` (its `w` descriptors; the first
/// candidate when none says its width), as the HTML standard reads the
/// list: a URL is a run of non-space characters (commas inside it are
/// part of it: `w_300,h_200`), its descriptors run to the next comma.
fn widest(srcset: &str) -> Option<&str> {
    let mut best: Option<(&str, u64)> = None;
    let mut rest = srcset;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
        if rest.is_empty() {
            break;
        }
        let end = rest
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let (url, after) = rest.split_at(end);
        // A URL that ends in commas has no descriptors.
        let (url, descriptors, next) = match url.strip_suffix(',') {
            Some(_) => (url.trim_end_matches(','), "", after),
            None => {
                let stop = after.find(',').unwrap_or(after.len());
                (url, &after[..stop], &after[stop..])
            }
        };
        let width = descriptors
            .split_ascii_whitespace()
            .find_map(|d| d.strip_suffix('w').and_then(|n| n.parse::<u64>().ok()))
            .unwrap_or(0);
        if !url.is_empty() && !is_data_uri(url) && best.is_none_or(|(_, w)| width > w) {
            best = Some((url, width));
        }
        rest = next;
    }
    best.map(|(url, _)| url)
}

/// Whether an alt text is a file name (`IMG_2031.jpg`, `hero-banner.png`)
/// or an identifier (`961fb0dc 9c36 49a2`): what a CMS fills in when
/// nobody wrote one.
fn is_file_name(alt: &str) -> bool {
    let lower = alt.to_ascii_lowercase();
    let ext = [
        ".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".svg", ".bmp", ".tif",
    ];
    if ext.iter().any(|e| lower.contains(e)) {
        return true;
    }
    // Mostly hexadecimal digits, with some digits among them.
    let hex = lower.chars().filter(char::is_ascii_hexdigit).count();
    let digits = lower.chars().filter(char::is_ascii_digit).count();
    let letters = lower.chars().filter(|c| c.is_alphanumeric()).count();
    letters >= 8 && digits >= 3 && hex * 10 >= letters * 9
}

/// Whether an image is a formula: its class names math or TeX
/// (`mwe-math-fallback-image-inline`, `tex`, `latex`, `katex`).
fn is_formula(node: &super::dom::Node) -> bool {
    node.attr("class").is_some_and(|c| {
        c.split(|ch: char| !ch.is_ascii_alphanumeric()).any(|w| {
            matches!(
                w.to_ascii_lowercase().as_str(),
                "math" | "tex" | "latex" | "katex"
            )
        })
    })
}

/// How far up a figure is looked for.
const FIGURE_CLIMB: usize = 4;

/// How many nodes after an image are read for the heading or link it
/// would repeat.
const REPEAT_LOOKAHEAD: usize = 24;

/// Whether the first heading or link within [`REPEAT_LOOKAHEAD`] nodes
/// after `id` says the same words as `alt` (a card: picture, then title).
fn repeats_next(doc: &Doc, id: Id, alt: &str) -> bool {
    let want = words(alt);
    let end = (id + 1 + REPEAT_LOOKAHEAD).min(doc.nodes.len());
    let mut k = id + 1;
    while k < end {
        let n = &doc.nodes[k];
        if matches!(n.tag(), Some("h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "a")) {
            if n.text_len > 4 * alt.len() + 16 {
                return false;
            }
            let mut text = String::new();
            for t in k + 1..doc.end(k).min(k + 1 + REPEAT_LOOKAHEAD) {
                if let Kind::Text(s) = &doc.nodes[t].kind {
                    text.push_str(s);
                    text.push(' ');
                }
            }
            if !words(&text).is_empty() {
                return words(&text) == want;
            }
        }
        k += 1;
    }
    false
}

/// The lower-case words (letters and digits) of `s`.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// How far [`apart`] looks into an element for its first or last text.
const EDGE_NODES: usize = 8;

/// Whether two inline elements that touch in the markup (`<span>2026
/// </span><span>1h 54m</span>`) hold separate words. Pages lay such
/// runs out as flex or grid items, which the browser sets apart; a word
/// split across elements for styling has a one-letter piece (a drop cap,
/// letters animated one by one) or punctuation at the seam (`12`, `.99`).
/// So: both inline, both at least two characters, a letter or digit on
/// each side of the seam. Code and keys count (`<kbd>Esc</kbd><kbd>
/// SPACE</kbd>` are two keys); `var`, `sub` and `sup` do not (`x<sup>2
/// </sup>` is one term). Each side is read for at most a few nodes.
fn apart(doc: &Doc, prev: Id, next: Id) -> bool {
    let inline = |id: Id| {
        let tag = doc.nodes[id].tag().unwrap_or("");
        !is_block(tag) && !matches!(tag, "var" | "sub" | "sup")
    };
    if !inline(prev) || !inline(next) || doc.end(prev) > next {
        return false;
    }
    if doc.nodes[prev].text_len < 2 || doc.nodes[next].text_len < 2 {
        return false;
    }
    let text = |k: Id| match &doc.nodes[k].kind {
        Kind::Text(t) if !t.is_empty() => Some(&**t),
        _ => None,
    };
    let last = (prev + 1..doc.end(prev))
        .rev()
        .take(EDGE_NODES)
        .find_map(text)
        .and_then(|t| t.chars().next_back());
    let first = (next + 1..doc.end(next))
        .take(EDGE_NODES)
        .find_map(text)
        .and_then(|t| t.chars().next());
    last.is_some_and(char::is_alphanumeric) && first.is_some_and(char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::super::work::Work;
    use super::{single_spaced, widest, Buf, Meter};

    /// Text past the budget is cut after a whole word (the space owed
    /// before the next word is written first), whether the words run one
    /// space apart or not, and nothing is written once it is spent.
    #[test]
    fn a_cut_falls_after_a_word() {
        let work = Work::unbounded();
        for text in ["alpha beta gamma", "alpha  beta\tgamma"] {
            for (left, want) in [
                (100, "alpha beta gamma"),
                (16, "alpha beta gamma"),
                (15, "alpha beta "),
                (9, "alpha "),
                (4, ""),
            ] {
                let mut m = Meter {
                    left,
                    spent: false,
                    work: &work,
                };
                let mut b = Buf::new(false);
                b.text(text, &mut m);
                b.text(" delta", &mut m);
                let want = if left == 100 {
                    "alpha beta gamma delta"
                } else {
                    want
                };
                assert_eq!(b.out, want, "{text:?} in {left} bytes");
                assert_eq!(m.spent, left < 100, "{text:?} in {left} bytes");
            }
        }
    }

    /// The run ends with a word, before any whitespace other than one
    /// plain space between words (Unicode whitespace included).
    #[test]
    fn a_single_spaced_run_ends_with_a_word() {
        for (s, run) in [
            ("one", "one"),
            ("one two three", "one two three"),
            ("one two  three", "one two"),
            ("one two ", "one two"),
            ("one\ttwo", "one"),
            ("one \u{b}two", "one"),
            ("one\u{a0}two three", "one"),
            ("one \u{3000}two", "one"),
            ("héllo wörld\u{2029}x", "héllo wörld"),
            ("a b\nc", "a b"),
        ] {
            assert_eq!(&s[..single_spaced(s)], run, "{s:?}");
        }
    }

    /// A `srcset`'s widest candidate, read as the HTML standard reads
    /// the list: commas inside a URL belong to it, a URL that ends in a
    /// comma has no descriptors, `data:` candidates are no address to
    /// show, and without widths the first candidate is taken.
    #[test]
    fn the_widest_of_a_srcset() {
        for (set, want) in [
            ("a.jpg 300w, b.jpg 1200w, c.jpg 700w", Some("b.jpg")),
            (
                "/w_300,h_200/a.jpg 300w, /w_900,h_600/b.jpg 900w",
                Some("/w_900,h_600/b.jpg"),
            ),
            ("a.jpg, b.jpg 2x", Some("a.jpg")),
            ("a.jpg,b.jpg 500w", Some("a.jpg,b.jpg")),
            ("  a.jpg 1x ,\n b.jpg 2x  ", Some("a.jpg")),
            (
                "data:image/gif;base64,R0lGOD 10w, real.jpg 5w",
                Some("real.jpg"),
            ),
            ("a.jpg 100w, b.jpg 100w", Some("a.jpg")),
            ("a.jpg 12x9w, b.jpg", Some("a.jpg")),
            ("", None),
            (" , ,", None),
        ] {
            assert_eq!(widest(set), want, "{set:?}");
        }
    }
}
