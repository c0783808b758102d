//! Long paragraphs shown twice: the second copy goes.
//!
//! Pages repeat whole paragraphs for reasons a reader never sees: a phone
//! and a desktop copy of the same block (one hidden by a style sheet this
//! parser does not read), a forum post quoted in full without quotation
//! markup, a carousel's cloned slides, a tab's text repeated in an
//! accordion. An agent pays for every copy and learns nothing from the
//! second.
//!
//! What counts as a repeat: a paragraph of the output (text between
//! blank lines) of at least [`MIN_CHARS`] characters whose words, with
//! whitespace folded, are exactly those of an earlier paragraph; in
//! markdown, the words its plain text would have, without link targets,
//! link brackets and images: the markdown shows each target once (a
//! second copy's links are their text alone), and a paragraph is as long
//! and as much a repeat in either style. Short
//! repeats stay: they are a page's templates (an interview's questions
//! asked of each guest, a meal plan's "Drink within 30 minutes" under
//! every day, a spec table's labels), and there the repeat is the
//! content. In markdown, fenced code is never a repeat: code repeats on
//! purpose, quoted or not. A markdown quotation (`> ` lines) is read as
//! the paragraphs it quotes, which plain text shows apart, each in place
//! with its marks folded away: a reply that quotes a post in full keeps
//! its short lines ("Ann said:", "Hello,") and loses the long paragraph
//! shown above it, with its mark line, in either style (WCXB dev: 19
//! pages, forum markdown 0.737 → 0.741; text unchanged).
//!
//! Measured on the WCXB development split (`bench/train/README.md`):
//! in sample 0.8843 → 0.8850 (forum +0.005), held out 0.8637 → 0.8650
//! with every page type up (forum +0.005, collection +0.002), the 181
//! news pages unchanged. Shorter bounds (100, 150, 200 characters) gain
//! a little more on WCXB but cut repeated template lines from news pages.
//!
//! One pass over the text. The long paragraphs shown so far are kept as
//! hashes of their words with their places in the output, and a hash
//! that matches is confirmed word by word: two paragraphs that merely
//! hash alike both stay. Each long paragraph is folded (its words one
//! space apart) into one reused buffer and hashed once. Linear.

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::BuildHasher;

use super::work::Work;

/// The shortest paragraph (in characters, whitespace folded) that is
/// dropped when it repeats.
pub const MIN_CHARS: usize = 250;

/// `text` without the second and later copies of its long paragraphs
/// (see the module header). `markdown` says whether code fences are to be
/// respected, and quotations read paragraph by paragraph.
pub fn drop_repeated(text: String, markdown: bool, work: &Work) -> String {
    let mut shown = Shown::new(markdown);
    let mut kept: Vec<Cow<'_, str>> = Vec::new();
    let mut in_code = false;
    let mut dropped_any = false;
    for para in text.split("\n\n") {
        // Each paragraph is read a bounded number of times; once the
        // work must stop, the rest stays as it is.
        if !work.spend(para.len()) {
            return text;
        }
        let fences = if markdown {
            para.lines()
                .filter(|l| {
                    let l = unquoted(l);
                    l.starts_with("```") || l.starts_with("~~~")
                })
                .count()
        } else {
            0
        };
        let code = in_code || fences > 0;
        in_code ^= fences % 2 == 1;
        // Bytes are at least characters: most paragraphs stop here.
        if code || para.len() < MIN_CHARS {
            kept.push(Cow::Borrowed(para));
            continue;
        }
        if markdown && para.lines().all(|l| l.trim_start().starts_with('>')) {
            match without_quoted_repeats(para, &mut shown) {
                Quote::Whole => kept.push(Cow::Borrowed(para)),
                Quote::Part(rest) => {
                    dropped_any = true;
                    kept.push(Cow::Owned(rest));
                }
                Quote::Gone => dropped_any = true,
            }
            continue;
        }
        if shown.repeats(para) {
            dropped_any = true;
            continue;
        }
        kept.push(Cow::Borrowed(para));
    }
    if dropped_any {
        kept.join("\n\n")
    } else {
        text
    }
}

/// The long paragraphs shown so far (see the module header).
struct Shown<'t> {
    markdown: bool,
    hashes: RandomState,
    /// Hash of the words → indexes into `bodies`.
    by_hash: HashMap<u64, Vec<usize>>,
    /// The long paragraphs shown, as written.
    bodies: Vec<&'t str>,
    /// Buffers reused for every paragraph: one pass over the text, then
    /// one hash of it.
    folded: String,
    earlier: String,
}

impl<'t> Shown<'t> {
    fn new(markdown: bool) -> Shown<'t> {
        Shown {
            markdown,
            hashes: RandomState::new(),
            by_hash: HashMap::new(),
            bodies: Vec::new(),
            folded: String::new(),
            earlier: String::new(),
        }
    }

    /// Whether `para` is long and repeats a long paragraph shown before;
    /// when it does not, it is shown from now on.
    fn repeats(&mut self, para: &'t str) -> bool {
        fold_into(para, self.markdown, &mut self.folded);
        if self.folded.len() < MIN_CHARS || self.folded.chars().count() < MIN_CHARS {
            return false;
        }
        let same = self
            .by_hash
            .entry(self.hashes.hash_one(self.folded.as_str()))
            .or_default();
        // A hash that matches is confirmed: the earlier paragraph folded
        // again (once per match; a paragraph of the same hash is as long
        // as this one).
        for &k in same.iter() {
            fold_into(self.bodies[k], self.markdown, &mut self.earlier);
            if self.earlier == self.folded {
                return true;
            }
        }
        same.push(self.bodies.len());
        self.bodies.push(para);
        false
    }
}

/// What is left of a quotation once its repeated paragraphs go.
enum Quote {
    Whole,
    Part(String),
    Gone,
}

/// A markdown quotation (every line marked `>`) read as the paragraphs
/// it quotes, which plain text shows apart: a paragraph that repeats one
/// shown before goes, with the mark line before it (or after it, when
/// it came first), as the same paragraph goes from plain text. A post
/// quoted in full in a reply is the thread's own text again. The
/// quoted paragraphs are read in place (their marks fold away, see
/// [`fold_into`]): nothing is copied but what is kept of a quotation
/// that loses a paragraph.
fn without_quoted_repeats<'t>(para: &'t str, shown: &mut Shown<'t>) -> Quote {
    // The quoted paragraphs: runs of lines with text, as byte ranges.
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut open: Option<usize> = None;
    let mut at = 0;
    for line in para.split('\n') {
        let end = at + line.len();
        match (unquoted(line).is_empty(), open) {
            (false, None) => open = Some(at),
            (true, Some(start)) => {
                groups.push((start, at.saturating_sub(1)));
                open = None;
            }
            _ => {}
        }
        at = end + 1;
    }
    if let Some(start) = open {
        groups.push((start, para.len()));
    }
    let gone: Vec<bool> = groups
        .iter()
        .map(|&(a, b)| b - a >= MIN_CHARS && shown.repeats(&para[a..b]))
        .collect();
    if !gone.contains(&true) {
        return Quote::Whole;
    }
    if !gone.contains(&false) {
        return Quote::Gone;
    }
    // The paragraphs kept, each after the mark lines that led to it
    // (none before the first kept).
    let mut out = String::new();
    let mut end = 0;
    for (g, &(a, b)) in groups.iter().enumerate() {
        if !gone[g] {
            if !out.is_empty() {
                out.push_str(&para[end..a]);
            }
            out.push_str(&para[a..b]);
        }
        end = b;
    }
    Quote::Part(out)
}

/// A markdown line without the quotation marks it starts with (`  > >
/// text` → `text`); a line without them as it is, less its indent.
fn unquoted(line: &str) -> &str {
    let l = line.trim_start();
    if l.starts_with('>') {
        l.trim_start_matches(['>', ' ', '\t'])
    } else {
        l
    }
}

/// `para`'s words one space apart into `out` (cleared first): its text
/// with each run of whitespace folded to one space and none at either
/// end; in `markdown`, without what plain text does not show (see
/// [`plain_part`]).
pub(super) fn fold_into(para: &str, markdown: bool, out: &mut String) {
    out.clear();
    // Whether whitespace came since the last word.
    let mut space = false;
    if !markdown {
        fold_run(para, false, &mut space, out);
        return;
    }
    // Line by line, each without the quotation marks it starts with: a
    // quoted paragraph says its words.
    for (i, line) in para.split('\n').enumerate() {
        space |= i > 0;
        fold_run(unquoted(line), true, &mut space, out);
    }
}

/// [`fold_into`]'s words of one run of text, after those in `out`;
/// `space` says whether whitespace came since the last word, before and
/// after.
fn fold_run(mut rest: &str, markdown: bool, space: &mut bool, out: &mut String) {
    while !rest.is_empty() {
        let (text, next) = if markdown {
            plain_part(rest)
        } else {
            (rest, "")
        };
        // Markup glues the text on either side, as plain text has it.
        *space |= text.starts_with(char::is_whitespace);
        let mut words = 0;
        for word in text.split_whitespace() {
            if (*space || words > 0) && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
            words += 1;
            *space = false;
        }
        if words > 0 {
            *space = text.ends_with(char::is_whitespace);
        }
        rest = next;
    }
}

/// The text of `md` up to its first piece of markup, and what follows
/// that markup: a link's `[` and `]`, its `(target)` (with the
/// parentheses a URL may hold balanced), an image `![alt](src)` whole,
/// an emphasis mark `*` and a code span's backtick (a copy in bold, or
/// in a quotation that sets its words in code, says the same words).
/// The renderer writes these; a literal `[` or `*` in the text goes
/// too, on both copies alike.
fn plain_part(md: &str) -> (&str, &str) {
    let Some(i) = md.find(['[', ']', '*', '`']) else {
        return (md, "");
    };
    if matches!(md.as_bytes()[i], b'*' | b'`') {
        return (&md[..i], &md[i + 1..]);
    }
    let rest = &md[i..];
    if md[..i].ends_with('!') {
        // An image: up to the end of its target.
        if let Some(j) = rest.find("](") {
            return (&md[..i - 1], after_target(&rest[j + 2..]));
        }
    }
    match rest.strip_prefix("](") {
        Some(target) => (&md[..i], after_target(target)),
        None => (&md[..i], &rest[1..]),
    }
}

/// What follows a target whose `(` was just read.
fn after_target(target: &str) -> &str {
    let mut depth = 1;
    for (i, c) in target.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &target[i + 1..];
                }
            }
            '\n' => return &target[i..],
            _ => {}
        }
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(word: &str) -> String {
        format!("{word} ").repeat(MIN_CHARS / (word.len() + 1) + 1)
    }

    #[test]
    fn the_second_copy_of_a_long_paragraph_goes() {
        let (a, b) = (long("alpha"), long("beta"));
        let text = format!("{a}\n\nQ: short?\n\n{b}\n\nQ: short?\n\n{a}\n\nend");
        assert_eq!(
            drop_repeated(text, false, &Work::unbounded()),
            format!("{a}\n\nQ: short?\n\n{b}\n\nQ: short?\n\nend")
        );
    }

    #[test]
    fn copies_match_with_whitespace_folded() {
        let a = long("gamma");
        let spaced = a.replace(' ', "\n  ");
        let text = format!("{a}\n\n{spaced}");
        assert_eq!(drop_repeated(text, false, &Work::unbounded()), a);
    }

    #[test]
    fn short_paragraphs_and_near_copies_stay() {
        let short = "x".repeat(MIN_CHARS - 1);
        let a = long("delta");
        let near = format!("{a}!");
        let text = format!("{short}\n\n{short}\n\n{a}\n\n{near}");
        assert_eq!(drop_repeated(text.clone(), false, &Work::unbounded()), text);
    }

    /// Length is counted with whitespace folded: a paragraph long only
    /// in its spaces is short.
    #[test]
    fn length_is_counted_with_whitespace_folded() {
        let folded = |s: &str| {
            let mut out = String::new();
            fold_into(s, false, &mut out);
            out
        };
        assert_eq!(folded("  a \n\t bc  d "), "a bc d");
        let spaced = "ab    ".repeat(MIN_CHARS / 3 - 1);
        assert!(spaced.len() >= MIN_CHARS && folded(&spaced).chars().count() < MIN_CHARS);
        let text = format!("{spaced}\n\n{spaced}");
        assert_eq!(drop_repeated(text.clone(), false, &Work::unbounded()), text);
    }

    /// In markdown a copy is the same paragraph whatever its links
    /// show: the renderer gives each target once, so a second copy's
    /// links are their text alone; images are not plain text either.
    #[test]
    fn markdown_copies_match_without_their_targets() {
        let a = long("zeta");
        let first = format!("See [the (full) guide](https://a.example/g_(x)?k=1). {a} ![A kite](https://a.example/k.png)");
        let second = format!("See the (full) guide. {a}");
        let text = format!("{first}\n\n{second}");
        assert_eq!(drop_repeated(text, true, &Work::unbounded()), first);
        let folded = |s: &str| {
            let mut out = String::new();
            fold_into(s, true, &mut out);
            out
        };
        assert_eq!(folded("a [b](u (v)) c![i](s)d ]e"), "a b cd e");
        assert_eq!(
            folded("**For me**, a *b* `c()` d**e**"),
            "For me, a b c() de"
        );
        // A copy set in bold is the same paragraph.
        let bold = format!("**{}**", a.trim());
        let text = format!("{a}\n\n{bold}");
        assert_eq!(drop_repeated(text, true, &Work::unbounded()), a);
        // Plain text keeps its brackets.
        let text = format!("[{a}]\n\n{a}");
        assert_eq!(drop_repeated(text.clone(), false, &Work::unbounded()), text);
    }

    /// A markdown quotation is read as the paragraphs it quotes, as
    /// plain text shows them: a reply quoting a post keeps its short
    /// lines and loses the long paragraph already shown, with its mark
    /// line; a quotation that only repeats goes whole; and a quoted
    /// paragraph counts as shown for later copies.
    #[test]
    fn a_quotation_loses_the_paragraphs_already_shown() {
        let (a, b) = (long("eta"), long("theta"));
        let quoted =
            format!("> [Ann said:](https://a.example/p/1)\n>\n> Hello,\n>\n> {a}\n>\n> Thanks");
        let text = format!("Hello,\n\n{a}\n\nThanks\n\n{quoted}\n\nI agree.");
        assert_eq!(
            drop_repeated(text, true, &Work::unbounded()),
            "Hello,\n\n".to_string()
                + &a
                + "\n\nThanks\n\n> [Ann said:](https://a.example/p/1)\n>\n> Hello,\n>\n> Thanks\n\nI agree."
        );
        // The same page in plain text loses the same words.
        let plain =
            format!("Hello,\n\n{a}\n\nThanks\n\nAnn said:\n\nHello,\n\n{a}\n\nThanks\n\nI agree.");
        assert_eq!(
            drop_repeated(plain, false, &Work::unbounded()),
            format!("Hello,\n\n{a}\n\nThanks\n\nAnn said:\n\nHello,\n\nThanks\n\nI agree.")
        );
        // A pull quote (nested marks, a list item's indent) that only
        // repeats goes whole; one quoted first is the copy kept.
        let text = format!("{a}\n\n  > > {a}\n\n> {b}\n\n{b}");
        assert_eq!(
            drop_repeated(text, true, &Work::unbounded()),
            format!("{a}\n\n> {b}")
        );
    }

    #[test]
    fn fenced_code_is_never_a_repeat() {
        let a = long("epsilon");
        // A repeated paragraph inside a fence, and a fence of its own.
        let text = format!("```\n{a}\n\n{a}\n```\n\n```\n{a}\n```\n\n{a}\n\n{a}");
        assert_eq!(
            drop_repeated(text, true, &Work::unbounded()),
            format!("```\n{a}\n\n{a}\n```\n\n```\n{a}\n```\n\n{a}")
        );
        // Code quoted is code too: its fences are seen through the marks.
        let text = format!("{a}\n\n> ```\n> {a}\n> ```");
        assert_eq!(drop_repeated(text.clone(), true, &Work::unbounded()), text);
    }
}
