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
//! purpose.
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

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::BuildHasher;

use super::work::Work;

/// The shortest paragraph (in characters, whitespace folded) that is
/// dropped when it repeats.
pub const MIN_CHARS: usize = 250;

/// `text` without the second and later copies of its long paragraphs
/// (see the module header). `markdown` says whether code fences are to be
/// respected.
pub fn drop_repeated(text: String, markdown: bool, work: &Work) -> String {
    let hashes = RandomState::new();
    // Hash of the words → indexes into `kept` of the paragraphs shown.
    let mut shown: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut kept: Vec<&str> = Vec::new();
    let mut in_code = false;
    let mut dropped_any = false;
    let mut folded = String::new();
    let mut earlier = String::new();
    for para in text.split("\n\n") {
        // Each paragraph is read a bounded number of times; once the
        // work must stop, the rest stays as it is.
        if !work.spend(para.len()) {
            return text;
        }
        let fences = if markdown {
            para.lines()
                .filter(|l| {
                    let l = l.trim_start();
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
            kept.push(para);
            continue;
        }
        // The words one space apart, in one buffer reused for every
        // paragraph: one pass over the text, then one hash of it.
        fold_into(para, markdown, &mut folded);
        if folded.len() >= MIN_CHARS && folded.chars().count() >= MIN_CHARS {
            let same = shown.entry(hashes.hash_one(folded.as_str())).or_default();
            // A hash that matches is confirmed: the earlier paragraph
            // folded again (once per match; a paragraph of the same
            // hash is as long as this one).
            if same.iter().any(|&k| {
                fold_into(kept[k], markdown, &mut earlier);
                earlier == folded
            }) {
                dropped_any = true;
                continue;
            }
            same.push(kept.len());
        }
        kept.push(para);
    }
    if dropped_any {
        kept.join("\n\n")
    } else {
        text
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
    let mut rest = para;
    while !rest.is_empty() {
        let (text, next) = if markdown {
            plain_part(rest)
        } else {
            (rest, "")
        };
        // Markup glues the text on either side, as plain text has it.
        space |= text.starts_with(char::is_whitespace);
        let mut words = 0;
        for word in text.split_whitespace() {
            if (space || words > 0) && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
            words += 1;
            space = false;
        }
        if words > 0 {
            space = text.ends_with(char::is_whitespace);
        }
        rest = next;
    }
}

/// The text of `md` up to its first piece of link markup, and what
/// follows that markup: a link's `[` and `]`, its `(target)` (with the
/// parentheses a URL may hold balanced), an image `![alt](src)` whole.
/// The renderer writes these; a literal `[` in the text goes too, on
/// both copies alike.
fn plain_part(md: &str) -> (&str, &str) {
    let Some(i) = md.find(['[', ']']) else {
        return (md, "");
    };
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
        // Plain text keeps its brackets.
        let text = format!("[{a}]\n\n{a}");
        assert_eq!(drop_repeated(text.clone(), false, &Work::unbounded()), text);
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
    }
}
