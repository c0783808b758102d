//! Pages built to make extraction do more than linear work, as
//! generators (no multi-megabyte files in the tree): each family repeats
//! one shape until the page has the size asked for. The families are
//! those that once cost minutes, gigabytes or an abort (issue #15), and
//! their neighbours: what the HTML standard lets the tree builder grow
//! without input (reconstruction of formatting elements, foster
//! parenting, the adoption agency, implied elements), what the
//! tokenizer checks per attribute, and what each rule or rendering step
//! reads per element (siblings, ancestors, the title, nested prefixes,
//! table rows). [`plain`] is the baseline they are held to.

/// A family: a name and a generator of a page of about `size` bytes.
pub struct Family {
    /// A short name for reports.
    pub name: &'static str,
    /// Builds the page.
    pub page: fn(usize) -> String,
}

/// `unit` repeated between `head` and `tail` to about `size` bytes.
fn fill(head: &str, unit: &str, tail: &str, size: usize) -> String {
    let n = size.saturating_sub(head.len() + tail.len()) / unit.len().max(1);
    let mut s = String::with_capacity(head.len() + unit.len() * n + tail.len());
    s.push_str(head);
    for _ in 0..n.max(1) {
        s.push_str(unit);
    }
    s.push_str(tail);
    s
}

fn numbered(open: &str, n: usize) -> String {
    (0..n).map(|i| format!("<{open} x={i}>")).collect()
}

/// Streamed segments (`<div hidden id="S:n">`, n in hexadecimal) to
/// about `size` bytes and never more (like [`fill`]: a page at the body
/// cap must still be fetched), each made by `unit` from its number, after
/// a first placeholder (`<template id="P:0">`) in the body.
fn segments(unit: fn(usize) -> String, size: usize) -> String {
    let mut s =
        String::from("<html><body><div><p>Streamed</p><template id=\"P:0\"></template></div>");
    for i in 0.. {
        let next = unit(i);
        if s.len() + next.len() > size {
            break;
        }
        s.push_str(&next);
    }
    s
}

/// A plain article of about `size` bytes: a title, a heading and
/// paragraphs of prose, what an 8 MiB page usually is.
pub fn plain(size: usize) -> String {
    fill(
        "<html><head><title>A plain article</title></head><body><article><h1>A plain article</h1>",
        "<p>The quick brown fox jumps over the lazy dog, and then it runs away into the woods, \
         where the trees are tall and the paths are narrow; nobody follows it there, because the \
         night is coming and the <a href=\"/wood\">wood</a> is dark.</p>\n",
        "</article></body></html>",
        size,
    )
}

/// Every family, in a fixed order.
pub fn families() -> Vec<Family> {
    vec![
        Family {
            name: "open formatting elements reconstructed per paragraph",
            page: |n| {
                fill(
                    &format!("<html><body><p>{}", numbered("b", 500)),
                    "<p>x</p>",
                    "",
                    n,
                )
            },
        },
        Family {
            name: "one row of 100,000 cells, then one-cell rows",
            page: |n| {
                fill(
                    &format!("<table><tr>{}</tr>", "<td>c</td>".repeat(100_000)),
                    "<tr><td>x</td></tr>",
                    "</table>",
                    n,
                )
            },
        },
        Family {
            name: "500 nested blockquotes around short lines",
            page: |n| fill(&"<blockquote>".repeat(500), "line of text<br>", "", n),
        },
        Family {
            name: "500 nested list items around short lines",
            page: |n| fill(&"<ul><li>".repeat(500), "line of text<br>", "", n),
        },
        Family {
            name: "500 nested table cells around short lines",
            page: |n| fill(&"<table><tr><td>".repeat(500), "line of text<br>", "", n),
        },
        Family {
            name: "a 4 MB title and many short headings",
            page: |n| {
                let title = "word ".repeat(n / 10);
                fill(
                    &format!("<html><head><title>{title}</title></head><body>"),
                    "<h2>a b</h2>",
                    "",
                    n,
                )
            },
        },
        Family {
            // Swallowed by the title in the standard's parse, so parsed a
            // second time with the title closed (extract/unclosed.rs).
            name: "a title never closed, then the whole page",
            page: |n| {
                fill(
                    "<html><head><title>A title never closed\n",
                    "<p>The quick brown fox jumps over the lazy dog.</p>\n",
                    "",
                    n,
                )
            },
        },
        Family {
            name: "articles side by side",
            page: |n| fill("<body>", "<article>x</article>", "", n),
        },
        Family {
            name: "text between tables (foster parenting)",
            page: |n| fill("<body>", "<table>text</table>", "", n),
        },
        Family {
            name: "text and formatting fostered out of table rows",
            page: |n| {
                fill(
                    "<body>",
                    "<table><tr><td>a</td></tr>text<b>x</b></table>",
                    "",
                    n,
                )
            },
        },
        Family {
            name: "labels that introduce the next block",
            page: |n| fill("<body><div>", "<p>a:</p>", "</div>", n),
        },
        Family {
            name: "tables inside MathML text",
            page: |n| fill("<body>", "<math><mtext><table>", "", n),
        },
        Family {
            name: "HTML annotations inside MathML",
            page: |n| {
                fill(
                    "<body>",
                    "<math><annotation-xml encoding=\"text/html\"><p>x",
                    "",
                    n,
                )
            },
        },
        Family {
            name: "one tag with a million distinct attribute names",
            page: |n| {
                let mut s = String::from("<body><div");
                let mut i = 0;
                while s.len() + 16 < n {
                    s.push_str(&format!(" a{i}"));
                    i += 1;
                }
                s.push_str(">x</div>");
                s
            },
        },
        Family {
            name: "many tags of 64 distinct attributes",
            page: |n| {
                let tag: String = (0..64).map(|i| format!(" a{i}")).collect();
                fill("<body>", &format!("<i{tag}>x</i>"), "", n)
            },
        },
        Family {
            name: "unclosed links",
            page: |n| fill("<body>", "<a>x", "", n),
        },
        Family {
            name: "one row of unclosed cells",
            page: |n| fill("<body><table><tr>", "<td>x", "", n),
        },
        Family {
            name: "unclosed headings",
            page: |n| fill("<body>", "<h1>x", "", n),
        },
        Family {
            name: "misnested formatting (adoption agency)",
            page: |n| fill("<body>", "<b><i>x</b></i>", "", n),
        },
        Family {
            name: "misnested formatting around blocks",
            page: |n| fill("<body>", "<b><div><i>x</b>y</div></i>", "", n),
        },
        Family {
            name: "paragraphs 505 levels deep",
            page: |n| fill(&format!("<body>{}", "<div>".repeat(505)), "<p>x</p>", "", n),
        },
        Family {
            name: "line breaks 505 levels deep under formatting",
            page: |n| fill(&format!("<body><b>{}", "<div>".repeat(505)), "x<br>", "", n),
        },
        Family {
            name: "line breaks",
            page: |n| fill("<body>", "a<br>", "", n),
        },
        Family {
            name: "tiny paragraphs",
            page: |n| fill("<body>", "<p>x</p>", "", n),
        },
        Family {
            name: "nested templates",
            page: |n| fill("<body>", "<template>x", "", n),
        },
        Family {
            name: "streamed segments, each placed inside the one before",
            page: |n| {
                segments(
                    |i| {
                        format!(
                            "<div hidden id=\"S:{i:x}\"><div><p>x</p><template id=\"P:{:x}\"></template></div></div>",
                            i + 1
                        )
                    },
                    n,
                )
            },
        },
        Family {
            name: "placeholders and streamed segments of one id",
            page: |n| {
                segments(
                    |_| {
                        "<div hidden id=\"S:0\"><p>x</p><template id=\"P:0\"></template></div>"
                            .into()
                    },
                    n,
                )
            },
        },
        Family {
            name: "end tags that make elements",
            page: |n| fill("<body>", "</p></br>", "", n),
        },
        Family {
            name: "a long class on every element",
            page: |n| {
                let class = "comment share related content main ".repeat(30);
                fill("<body>", &format!("<div class=\"{class}\">x</div>"), "", n)
            },
        },
        Family {
            name: "hidden wrappers nested",
            page: |n| fill("<body>", "<div hidden><div style=\"display:none\">x", "", n),
        },
        Family {
            name: "collapsed panels after their buttons",
            page: |n| {
                fill(
                    "<body>",
                    "<h3><button aria-expanded=false>More<svg><path/></svg></button></h3>\
                     <div hidden><p>A panel of prose long enough to be read.</p></div>",
                    "",
                    n,
                )
            },
        },
        Family {
            name: "one huge JSON-LD block",
            page: |n| {
                fill(
                    "<html><head><script type=\"application/ld+json\">[",
                    "{\"@type\":\"Product\",\"a\":[1,2,3]},",
                    "{}]</script></head><body><p>x</p></body></html>",
                    n,
                )
            },
        },
        Family {
            name: "deeply nested JSON-LD",
            page: |n| {
                let depth = n / 2 - 64;
                format!(
                    "<html><head><script type=\"application/ld+json\">{}{}</script></head><body><p>x</p>",
                    "[".repeat(depth),
                    "]".repeat(depth)
                )
            },
        },
        Family {
            name: "words in a forest of spans",
            page: |n| {
                fill(
                    "<body><div>",
                    "<span>w</span> <span><a href=x>l</a></span>",
                    "",
                    n,
                )
            },
        },
        Family {
            name: "one-word list items in many lists",
            page: |n| fill("<body>", "<ul><li>a<li>b</ul>", "", n),
        },
        Family {
            name: "one run of backticks in a code block",
            page: |n| fill("<body><pre>", "`", "</pre>", n),
        },
        Family {
            name: "backtick runs in inline code",
            page: |n| fill("<body><p>", "<code>a``b```c````d`</code> ", "</p>", n),
        },
        Family {
            name: "links inside a code block",
            page: |n| fill("<body><pre>", "<a href=\"/x\">l</a>\n", "</pre>", n),
        },
        Family {
            name: "a code block of short lines inside six quotes",
            page: |n| {
                fill(
                    &format!("<body>{}<pre>", "<blockquote>".repeat(6)),
                    "a\n",
                    "</pre>",
                    n,
                )
            },
        },
        Family {
            // Quoted lines (seven bytes out for each in) bring the output
            // near its budget (four times the page), then one paragraph
            // of words one space apart runs past it: each word after the
            // cut is still read once (reading the rest of the paragraph
            // again after each word took 31 s at 1 MiB).
            name: "a long paragraph that runs past the output budget",
            page: |n| {
                let quotes = fill(
                    &format!("<body>{}<pre>", "<blockquote>".repeat(6)),
                    "a\n",
                    &format!("</pre>{}<p>", "</blockquote>".repeat(6)),
                    n / 20 * 11,
                );
                fill(&quotes, "word ", "</p>", n)
            },
        },
        Family {
            name: "a long paragraph quoted in every reply",
            page: |n| {
                let long = "A post quoted whole by every reply after it, long enough to count as a repeat. "
                    .repeat(4);
                fill(
                    &format!("<body><p>{long}</p>"),
                    &format!("<blockquote><p>Said:</p><p>{long}</p></blockquote><p>Reply.</p>"),
                    "",
                    n,
                )
            },
        },
        Family {
            // Every word damaged, as characters and as references: the
            // whole text is looked at once and repaired once
            // (`extract/mojibake.rs`), each text node copied at most once.
            name: "text decoded twice in every word",
            page: |n| {
                fill(
                    "<body><p>",
                    "weâ€™ve fÃ¼r Â£5 â\u{80}\u{94} it\u{92}s it&acirc;&euro;&trade;s ",
                    "</p>",
                    n,
                )
            },
        },
        Family {
            // A teaser and its hidden whole text, again and again, each
            // whole text nested in the one before: every hidden element
            // is looked into a bounded number of nodes deep
            // (`visibility::Teasers`).
            name: "teasers with their hidden whole texts, nested",
            page: |n| {
                fill(
                    "<body>",
                    "<p>A teaser that is long enough to be known by its start...</p>\
                     <div style='display:none'><p>A teaser that is long enough to be known by its start, whole.</p>",
                    "",
                    n,
                )
            },
        },
        Family {
            name: "lines of a list item inside quotes",
            page: |n| {
                fill(
                    "<body><blockquote><blockquote><ul><li>",
                    "a<br>",
                    "</li></ul>",
                    n,
                )
            },
        },
        Family {
            name: "many tables with wide header rows",
            page: |n| {
                let head = "<th>h</th>".repeat(200);
                fill(
                    "<body>",
                    &format!("<table><tr>{head}</tr><tr><td>x</td></tr></table>"),
                    "",
                    n,
                )
            },
        },
        Family {
            name: "a huge colspan on every cell",
            page: |n| {
                fill(
                    "<body><table>",
                    "<tr><td colspan=1000>x</td></tr>",
                    "</table>",
                    n,
                )
            },
        },
        Family {
            name: "streamed segments placed in a cycle",
            page: |n| {
                segments(
                    |i| {
                        format!(
                            "<div hidden id=\"S:{i:x}\"><p>x</p><template id=\"P:{:x}\"></template>\
                             <template id=\"P:{i:x}\"></template><template id=\"P:0\"></template></div>",
                            i + 1
                        )
                    },
                    n,
                )
            },
        },
        Family {
            // What the heading that leads the content reads: every
            // heading above the story, and the story's first nodes
            // (empty ones here) for a word in common.
            name: "headlines over stories of empty elements",
            page: |n| {
                fill(
                    "<body>",
                    "<h2>Council approves the harbour bridge</h2><p>By A. Writer</p>\
                     <div class=story>\
                     <span></span><span></span><span></span><span></span><span></span>\
                     <span></span><span></span><span></span><span></span><span></span>\
                     <p>Short line.</p></div>",
                    "",
                    n,
                )
            },
        },
        Family {
            name: "forms and noscript blocks",
            page: |n| {
                fill(
                    "<body>",
                    "<form><p>a</p></form><noscript><p>b</p></noscript>",
                    "",
                    n,
                )
            },
        },
        Family {
            // What a short unit's row looks up: furniture phrases found in
            // every line and every heading (each one a search of the
            // line), among words of other languages.
            name: "lines and headings made of furniture phrases",
            page: |n| {
                fill(
                    "<body><div>",
                    "<h3>you may also like ähnliche lo más leído te puede interesar \
                     articoli correlati</h3>\
                     <p>add to cart sign in warenkorb anmelden se connecter lire la suite \
                     leer más iniciar sesión leggi tutto lees meer saiba mais \
                     alle rechte vorbehalten 3. märz 2020 um 14:30 uhr</p>",
                    "</div>",
                    n,
                )
            },
        },
        Family {
            // The page's words that would be markdown at a line's start,
            // escaped one by one.
            name: "markdown marks at every line's start",
            page: |n| {
                fill(
                    "<body>",
                    "<p>###</p><p>Line<br>=====<br>~~~~~~<br>--</p><p># a</p>",
                    "",
                    n,
                )
            },
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_has_about_the_size_asked_for() {
        for f in families() {
            let page = (f.page)(1 << 20);
            assert!(
                page.len() > (1 << 20) * 9 / 10 && page.len() < (1 << 20) * 11 / 10,
                "{}: {}",
                f.name,
                page.len()
            );
        }
        assert!(plain(1 << 20).len() > 900_000);
        // No page is over the size asked for: the fetch path's body cap
        // is a size, and a family is fetched at it.
        for f in families() {
            assert!((f.page)(1 << 20).len() <= 1 << 20, "{}", f.name);
        }
    }
}
