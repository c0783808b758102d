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
//!     lines broken with `<br>`), or [`LONG_CELL`] characters however
//!     written (a datum is a word, a number or a sentence, not an
//!     article; a header row of `<h4>`s or a rating drawn with `<div>`s
//!     is short, and a long datum is one paragraph),
//!   - or it holds another table (a table inside a cell is the layout's
//!     next level);
//! - or it is one column: no row has two cells with text (a column of
//!   lines is a list, not a grid).
//!
//! Measured: on web-classics, the pages whose text has a line of more
//! than 3,000 characters went from 320 to 10 of 1,423 (an article set in
//! a cell had been one line); on the WCXB development split the tables
//! its references keep stay 300 of 313, while the list items kept went
//! from 12,815 to 12,899 and the headings from 14,634 to 14,693 (a
//! header row set in `<h4>`s no longer shows `####` inside the grid).
//! Word F1 moves by at most 0.001 on any corpus: the words were there,
//! run together. Asking only for a block or a break in a long cell (not
//! two) turned a grid of one-paragraph descriptions into blocks.
//!
//! Bounded: a table's cells are read once, skipping the tables nested in
//! it (which are read when their turn comes), so every node is read for
//! one table at most; each node read is charged to the rendering's work.

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
    // The cells with text in the row being read; whether any row had two.
    let (mut in_row, mut grid) = (0usize, false);
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
                    grid |= in_row > 1;
                }
                cell = Some((i, doc.end(i), 0));
            }
            Some(tag) if tag == "br" || is_block(tag) => {
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
    let layout = !grid || !header && (prose || nested);
    (layout, read)
}

/// Whether a cell of `len` characters with `breaks` blocks and line
/// breaks inside is prose: one `<p>` around a long datum is not.
fn is_prose(len: usize, breaks: usize) -> bool {
    len >= LONG_CELL || breaks >= 2 && len >= PROSE_CELL
}
