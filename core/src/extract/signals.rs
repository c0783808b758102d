//! What an element's place and names say about it, over the document:
//! the class weight, the boilerplate boxes of a page (navigation,
//! headers outside the content, footers, asides, regions named as
//! boilerplate), windows over the page; and the text shapes of dates, ad
//! labels and titles. The word lists themselves are `lexicon`'s.
//!
//! Every signal reads structure, names and text shapes; none names a site.

use std::sync::OnceLock;

use super::dom::{Doc, Id, Node};
use super::lexicon::ClassFlags;

/// The class/id weight of a node: −25, 0, +25 (or 0 when both).
pub fn class_weight(doc: &Doc, id: Id) -> i32 {
    let f = doc.nodes[id].class_flags();
    let mut w = 0;
    if f.has(ClassFlags::NEGATIVE) {
        w -= 25;
    }
    if f.has(ClassFlags::POSITIVE) {
        w += 25;
    }
    w
}

/// A region that is boilerplate by its name alone.
pub fn is_unlikely(doc: &Doc, id: Id) -> bool {
    let f = doc.nodes[id].class_flags();
    f.has(ClassFlags::ASIDE) && !f.has(ClassFlags::CONTENT)
}

/// A boilerplate box: the site's furniture ([`is_furniture`]), an aside,
/// or a region named as boilerplate (`UNLIKELY`, with no content word).
pub fn is_box(doc: &Doc, id: Id) -> bool {
    let node = &doc.nodes[id];
    match node.tag() {
        None => false,
        Some("aside") => true,
        Some("header") => !doc.in_main(id),
        Some(_) => {
            is_furniture(doc, id)
                || is_unlikely(doc, id)
                || node.attr("role") == Some("complementary")
        }
    }
}

/// The site's furniture, by tag or landmark role alone: navigation, a
/// footer, a header outside the main content, a banner, a search region.
/// Names are not read: a thread can sit in a `comments` wrapper, content
/// in a `sidebar`-named column.
pub fn is_furniture(doc: &Doc, id: Id) -> bool {
    let node = &doc.nodes[id];
    match (node.tag(), node.attr("role")) {
        (None, _) => false,
        (Some("nav" | "footer"), _) => true,
        (Some("header"), _) if !doc.in_main(id) => true,
        (_, role) => matches!(
            role,
            Some("navigation" | "banner" | "contentinfo" | "search")
        ),
    }
}

/// A window over the page: a dialog (`role="dialog"`) or a modal
/// window ([`is_modal`]): cookie notices, sign-up prompts, banners.
pub fn is_window(node: &Node) -> bool {
    is_modal(node) || (node.tag().is_some() && node.attr("role") == Some("dialog"))
}

/// A window that takes the page over: `role="alertdialog"`,
/// `aria-modal="true"`, or a block the site keeps out of search
/// snippets (`data-nosnippet`). A dialog that is none of these is a side
/// sheet beside a usable page, and shops open a product's description
/// in one.
pub fn is_modal(node: &Node) -> bool {
    node.tag().is_some()
        && (node.attr("role") == Some("alertdialog")
            || node
                .attr("aria-modal")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
            || node.attr("data-nosnippet").is_some())
}

/// The page title, folded once for every heading compared with it.
pub struct Title {
    folded: String,
    words: std::collections::HashSet<String>,
}

fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

impl Title {
    pub fn new(title: &str) -> Title {
        let folded = title.to_lowercase();
        let words = words(&folded).map(str::to_string).collect();
        Title { folded, words }
    }

    /// Whether a heading repeats the title (both folded): readability's
    /// test, most of the heading's text is made of title words. Headings
    /// reword titles ("Skyrim (skyrim) run speed" for "Skyrim run
    /// speed"), so containment alone misses them.
    pub fn repeated_by(&self, heading: &str) -> bool {
        if self.folded.is_empty() {
            return false;
        }
        if self.folded.contains(heading) || heading.contains(&self.folded) {
            return true;
        }
        let (mut total, mut unmatched) = (0, 0);
        for w in words(heading) {
            total += w.len();
            if !self.words.contains(w) {
                unmatched += w.len();
            }
        }
        total > 0 && (unmatched as f64) / (total as f64) < 0.25
    }
}

/// The label an ad slot carries when its ad did not load.
pub fn is_ad_label(text: &str) -> bool {
    matches!(
        text.trim_matches(|c: char| !c.is_alphanumeric()),
        "advertisement"
            | "advertisements"
            | "advert"
            | "ad"
            | "ads"
            | "sponsored"
            | "sponsored links"
            | "anzeige"
            | "werbung"
            | "publicité"
            | "publicidad"
            | "pubblicità"
            | "publicidade"
            | "реклама"
            | "広告"
    )
}

/// A numeric date: day, month and year in some order with one
/// separator kind (`2019-11-20`, `20.11.2019`, `11/20/19`, `2019年11月20日`),
/// not a phone number (`02-751-1500`).
fn is_numeric_date(w: &str) -> bool {
    let parts: Vec<&str> = w
        .split(['-', '.', '/', '年', '月', '日'])
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() != 3 || !parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let year = |p: &str| p.len() == 4 && matches!(p.parse::<u32>(), Ok(1900..=2100));
    let small = |p: &str| (1..=2).contains(&p.len());
    (year(parts[0]) && small(parts[1]) && small(parts[2]))
        || (small(parts[0]) && small(parts[1]) && (year(parts[2]) || parts[2].len() == 2))
}

/// Month names (lower case): English, then German, French, Spanish,
/// Italian, Dutch and Portuguese where they differ ("3. März 2020",
/// "12 juillet 2019", "3 de marzo de 2020"). Not the French `mars`: beside
/// a number it is as often the planet ("Mars 2020") as March.
const MONTHS: &[&str] = &[
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    // German.
    "januar",
    "jänner",
    "februar",
    "märz",
    "mai",
    "juni",
    "juli",
    "okt",
    "oktober",
    "dez",
    "dezember",
    // French.
    "janvier",
    "janv",
    "février",
    "févr",
    "avril",
    "avr",
    "juin",
    "juillet",
    "juil",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
    "déc",
    // Spanish.
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "setiembre",
    "octubre",
    "noviembre",
    "diciembre",
    // Italian.
    "gennaio",
    "febbraio",
    "aprile",
    "maggio",
    "giugno",
    "luglio",
    "settembre",
    "ottobre",
    "dicembre",
    // Dutch.
    "januari",
    "februari",
    "maart",
    "mei",
    "augustus",
    // Portuguese.
    "janeiro",
    "fevereiro",
    "março",
    "maio",
    "junho",
    "julho",
    "setembro",
    "outubro",
    "novembro",
    "dezembro",
];

/// The words around a date that are not the page's ("Updated on",
/// "um 14:30 Uhr", "publié … à 14h30", "às 14h"), in the languages of
/// [`MONTHS`]. Only what English has here too: an article or a
/// preposition of any use (`de`, `em`, `le`) is left to count as the
/// line's own word, as "in" and "of" do.
const DATE_WORDS: &[&str] = &[
    "am",
    "pm",
    "utc",
    "gmt",
    "et",
    "est",
    "edt",
    "pst",
    "pdt",
    "at",
    "on",
    "updated",
    "published",
    "posted",
    // German.
    "um",
    "uhr",
    "veröffentlicht",
    "aktualisiert",
    // French.
    "à",
    "publié",
    "mis",
    "jour",
    // Spanish, Portuguese, Italian.
    "publicado",
    "actualizado",
    "atualizado",
    "às",
    "pubblicato",
    "aggiornato",
    // Dutch.
    "om",
    "uur",
    "gepubliceerd",
    "bijgewerkt",
];

/// What a word of a date line is when [`MONTHS`] or [`DATE_WORDS`] has it.
#[derive(Clone, Copy, PartialEq, Debug)]
enum DateWord {
    Month,
    Around,
}

/// Looks `w` up in [`MONTHS`] and [`DATE_WORDS`] at once: both in one
/// table made on first use, in buckets by length and first and last
/// byte (every word of a dated line is looked up, and the lists hold
/// well over a hundred words in seven languages).
fn date_word(w: &str) -> Option<DateWord> {
    const BUCKETS: usize = 128;
    fn bucket(w: &[u8]) -> usize {
        match (w.first(), w.last()) {
            (Some(&a), Some(&z)) => {
                (usize::from(a) * 7 + usize::from(z) * 3 + w.len() * 11) % BUCKETS
            }
            _ => 0,
        }
    }
    static TABLE: OnceLock<Vec<Vec<(&'static str, DateWord)>>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut table = vec![Vec::new(); BUCKETS];
        let all = MONTHS
            .iter()
            .map(|&m| (m, DateWord::Month))
            .chain(DATE_WORDS.iter().map(|&a| (a, DateWord::Around)));
        for (word, kind) in all {
            table[bucket(word.as_bytes())].push((word, kind));
        }
        table
    });
    table[bucket(w.as_bytes())]
        .iter()
        .find(|e| e.0 == w)
        .map(|e| e.1)
}

/// Counts the words of a line that belong to a date or a time (`2019-11-20`,
/// `20.11.2019`, `2019年11月20日`, `Nov. 20, 2019`, `9:28`, `pm`) and the
/// others; a line counts as dated only with a numeric date or a month name
/// beside a number (so a text without a digit is `(0, 0)`).
pub fn date_words(text: &str) -> (usize, usize) {
    // Every date has a digit; most short texts have none and need no
    // reading word by word (their `rest` is then not wanted).
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return (0, 0);
    }
    let mut dates = 0;
    let mut rest = 0;
    let mut month = false;
    let mut number = false;
    for raw in text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '|' | '(' | ')' | '·' | '•' | '／'))
    {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric());
        if w.is_empty() {
            continue;
        }
        let digits = w.chars().filter(char::is_ascii_digit).count();
        // (No month or word around a date starts with a digit; most
        // words of a dated line do.)
        let known = if w.as_bytes()[0].is_ascii_digit() {
            None
        } else {
            date_word(w)
        };
        if is_numeric_date(w) {
            dates += 1;
        } else if known == Some(DateWord::Month) {
            month = true;
        } else if digits > 0
            && w.chars()
                .all(|c| c.is_ascii_digit() || matches!(c, ':' | 'h'))
        {
            number = true;
        } else if known == Some(DateWord::Around) {
        } else if w.ends_with("st") || w.ends_with("nd") || w.ends_with("rd") || w.ends_with("th") {
            if w.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                number = true;
            } else {
                rest += 1;
            }
        } else {
            rest += 1;
        }
    }
    if month && number {
        dates += 1;
    }
    (dates, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A date line is dated in the languages pages are most often in
    /// (lower case, as the pruner and the unit rows read it): a month's
    /// name beside a number, with the words around a date not counted as
    /// the line's own. Not "mars" (the planet as often as March), and an
    /// article or a preposition counts as a word of the line, as "in"
    /// does in English.
    #[test]
    fn date_lines_in_other_languages() {
        for (text, want) in [
            ("published on nov. 20, 2019 at 9:28 pm", (1, 0)),
            ("veröffentlicht am 3. märz 2020, 14:30 uhr", (1, 0)),
            ("aktualisiert: 12. dezember 2019", (1, 0)),
            ("publié le 12 juillet 2019 à 14h30", (1, 1)),
            ("publicado el 3 de marzo de 2020", (1, 3)),
            ("atualizado em 5 de setembro de 2021, às 10:15", (1, 3)),
            ("pubblicato il 21 ottobre 2018 alle 08:00", (1, 2)),
            ("gepubliceerd op 8 mei 2022 om 12:00 uur", (1, 1)),
            ("the mars 2020 mission", (0, 3)),
            (
                "calendário divulgado pela categoria em janeiro de 2018",
                (1, 6),
            ),
        ] {
            assert_eq!(date_words(text), want, "{text}");
        }
    }

    /// No word is both a month and a word around a date (the one table
    /// would give either).
    #[test]
    fn months_and_date_words_are_apart() {
        for m in MONTHS {
            assert!(!DATE_WORDS.contains(m), "{m}");
            assert_eq!(date_word(m), Some(DateWord::Month), "{m}");
        }
        for a in DATE_WORDS {
            assert_eq!(date_word(a), Some(DateWord::Around), "{a}");
        }
        assert_eq!(date_word("mars"), None);
    }

    /// An ad slot's label, folded as the pruner folds it, in the page's
    /// language or with its punctuation; not words that only begin so.
    #[test]
    fn ad_labels() {
        for label in [
            "advertisement",
            "- advertisement -",
            "sponsored links",
            "anzeige",
            "広告",
        ] {
            assert!(is_ad_label(label), "{label}");
        }
        for text in [
            "advertising",
            "sponsored by the city",
            "ads and more",
            "linked",
        ] {
            assert!(!is_ad_label(text), "{text}");
        }
    }
}
