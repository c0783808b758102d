//! Which tables hold data and which are a page's layout.
//!
//! A data table is rows of cells, each a datum: rendered as a markdown
//! table, each cell on one line. Older pages also set the page itself in
//! tables: a row holds a navigation column beside a cell with the whole
//! article in it, its paragraphs, headings and lists inside. Put on one
//! line, such a cell runs the article together with its headings' and
//! items' markers in the middle of it, and a reader gets one line of
//! thousands of words. So a layout table renders as blocks, cell after
//! cell, as if its rows and cells were `<div>`s.
//!
//! A table is layout when:
//!
//! - it says so (`role="presentation"` or `role="none"`);
//! - or it has no header cell (`<th>`, `<thead>`, `<caption>`: a header
//!   says the rows are data) and
//!   - a cell holds prose: at least [`PROSE_CELL`] characters of text in
//!     two blocks or lines or more (paragraphs, a heading and its text,
//!     lines broken with `<br>`; an empty paragraph is no block), or [`LONG_CELL`] characters however
//!     written (a datum is a word, a number or a sentence, not an
//!     article; a header row of `<h4>`s or a rating drawn with `<div>`s
//!     is short, and a long datum is one paragraph),
//!   - or it holds another table (a table inside a cell is the layout's
//!     next level);
//! - or it is no grid: no row has two cells with text (a column of lines
//!   is a list), or only one row has, and one of its cells is prose-long
//!   (a row of teasers side by side; a short row is a label and its
//!   value).
//!
//! Measured: on web-classics, the pages whose text has a line of more
//! than 3,000 characters went from 320 to 11 of 1,423 (an article set in
//! a cell had been one line; 584 pages read differently); on the WCXB
//! development split the tables its references keep stay 300 of 313,
//! while the list items kept went from 12,815 to 12,899 and the headings
//! from 14,634 to 14,693 (a header row set in `<h4>`s no longer shows
//! `####` inside the grid). Word F1 moves by at most 0.001 on any
//! corpus: the words were there, run together. Tried and not kept:
//! asking a long cell for one block or break (not two) turned grids of
//! one-paragraph descriptions into blocks (tables kept 300 to 272);
//! asking prose of a header table too broke documentation's tables
//! (Sphinx writes every cell as `<p>`s; 298); asking prose to be half
//! the table's text made a column of citations, each a few lines, a
//! grid; taking every single row for layout lost short label-and-value
//! rows (294).
//!
//! Bounded: a table's cells are read once per rendering (the renderer
//! remembers the answer: many roots may be rows of one table), skipping
//! the tables nested in it (read in their turn), so every node is read
//! for one table at most; each node read is charged to the rendering's
//! work.

use super::dom::{Doc, Id};
use super::lexicon::is_block;

/// Characters of text that, in two blocks or lines or more, make a cell
/// prose.
pub const PROSE_CELL: usize = 200;

/// Characters of text that make a cell prose however they are written.
pub const LONG_CELL: usize = 1000;

/// Whether the table at `id` is layout (see the module header), and how
/// many nodes were read to tell.
pub fn is_layout(doc: &Doc, id: Id) -> (bool, usize) {
    let node = &doc.nodes[id];
    let role = node.attr("role").unwrap_or("").trim();
    if role.eq_ignore_ascii_case("presentation") || role.eq_ignore_ascii_case("none") {
        return (true, 1);
    }
    let end = doc.end(id);
    let (mut header, mut nested, mut prose) = (false, false, false);
    // The cells with text in the row being read; the rows that had two.
    let (mut in_row, mut grid_rows) = (0usize, 0usize);
    // The most text in one cell.
    let mut longest = 0;
    // The cell being read (its end), and the blocks and line breaks seen
    // in it.
    let mut cell: Option<(Id, usize, usize)> = None;
    let mut read = 0;
    let mut i = id + 1;
    while i < end {
        read += 1;
        if let Some((c, cell_end, breaks)) = cell {
            if i >= cell_end {
                prose |= is_prose(doc.nodes[c].text_len, breaks);
                cell = None;
            }
        }
        let n = &doc.nodes[i];
        if n.junk {
            i = doc.end(i);
            continue;
        }
        match n.tag() {
            Some("table") => {
                nested = true;
                i = doc.end(i);
                continue;
            }
            Some("thead" | "caption") => header = true,
            Some("tr") => in_row = 0,
            Some(tag @ ("td" | "th")) => {
                header |= tag == "th";
                if n.text_len > 0 {
                    in_row += 1;
                    grid_rows += usize::from(in_row == 2);
                    longest = longest.max(n.text_len);
                }
                cell = Some((i, doc.end(i), 0));
            }
            // A block counts when it holds text (a word processor writes
            // empty paragraphs between the real ones).
            Some(tag) if tag == "br" || is_block(tag) && n.text_len > 0 => {
                if let Some((_, _, breaks)) = cell.as_mut() {
                    *breaks += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if let Some((c, _, breaks)) = cell {
        prose |= is_prose(doc.nodes[c].text_len, breaks);
    }
    let grid = grid_rows >= 2 || grid_rows == 1 && longest < PROSE_CELL;
    let layout = !grid || !header && (prose || nested);
    (layout, read)
}

/// Whether a cell of `len` characters with `breaks` blocks and line
/// breaks inside is prose: one `<p>` around a long datum is not.
fn is_prose(len: usize, breaks: usize) -> bool {
    len >= LONG_CELL || breaks >= 2 && len >= PROSE_CELL
}

#[cfg(test)]
mod tests {
    use url::Url;

    use super::*;
    use crate::extract::render::{self, Style};
    use crate::extract::work::Work;

    /// Whether the table with `id="t"` in `html` is layout.
    fn layout(html: &str) -> bool {
        let doc = Doc::parse(html);
        is_layout(&doc, doc.with_id("t")).0
    }

    #[test]
    fn data_or_layout() {
        let prose = "Words of an article that run on for a while. ".repeat(6);
        let cases: &[(String, bool)] = &[
            // A grid of short data.
            ("<table id=t><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>".into(), false),
            // One short row: a label and its value.
            ("<table id=t><tr><td>Price</td><td>$5</td></tr></table>".into(), false),
            // One row of teasers side by side.
            (format!("<table id=t><tr><td>{prose}</td><td>{prose}</td></tr></table>"), true),
            // One column.
            ("<table id=t><tr><td>a</td></tr><tr><td>b</td></tr></table>".into(), true),
            // The page says so.
            ("<table id=t role=presentation><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>".into(), true),
            // A cell of prose: paragraphs, or lines broken with <br>.
            (format!("<table id=t><tr><td>Nav</td><td><p>{prose}</p><p>{prose}</p></td></tr><tr><td>x</td><td>y</td></tr></table>"), true),
            (format!("<table id=t><tr><td>Nav</td><td>{prose}<br><br>{prose}</td></tr><tr><td>x</td><td>y</td></tr></table>"), true),
            // A long datum in one paragraph, beside empty ones, is data.
            (format!("<table id=t><tr><td>a</td><td><p>{prose}</p><p>&nbsp;</p></td></tr><tr><td>b</td><td>2</td></tr></table>"), false),
            // A header says data, prose or not.
            (format!("<table id=t><tr><th>Q</th><th>A</th></tr><tr><td>a</td><td><p>{prose}</p><p>{prose}</p></td></tr></table>"), false),
            // A table in a cell: the outer one is layout.
            ("<table id=t><tr><td>a</td><td><table><tr><td>x</td><td>y</td></tr></table></td></tr><tr><td>b</td><td>2</td></tr></table>".into(), true),
        ];
        for (html, want) in cases {
            assert_eq!(layout(html), *want, "{html}");
        }
    }

    #[test]
    fn rows_chosen_without_their_table_show_as_its_grid() {
        let doc = Doc::parse(
            "<table><tbody id=rows><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></tbody></table>",
        );
        let base = Url::parse("https://a.example/").unwrap();
        let text = render::render(
            &doc,
            &[doc.with_id("rows")],
            &base,
            Style::Markdown.into(),
            None,
            &Work::unbounded(),
        )
        .text;
        assert_eq!(text, "| a | 1 |\n| --- | --- |\n| b | 2 |");
    }

    /// Every row of one table chosen as a root: the table is read once,
    /// not once per row (which would be quadratic in the rows).
    #[test]
    fn a_table_is_read_once_however_many_of_its_rows_are_roots() {
        let rows = 2_000;
        let doc = Doc::parse(&format!(
            "<table>{}</table>",
            "<tr><td>a</td><td>1</td></tr>".repeat(rows)
        ));
        let roots: Vec<Id> = (0..doc.nodes.len())
            .filter(|&i| doc.nodes[i].tag() == Some("tr"))
            .collect();
        assert_eq!(roots.len(), rows);
        let base = Url::parse("https://a.example/").unwrap();
        let work = Work::unbounded();
        render::render(&doc, &roots, &base, Style::Markdown.into(), None, &work);
        // Read per row: a tr, two tds, two texts, and the bytes written;
        // read again for every row, the table alone costs 2,000 x 10,000
        // (20,024,000 units, measured with the memo taken out).
        let spent = work.spent();
        assert!(spent < 100 * rows as u64, "{spent} units for {rows} rows");
    }
}
