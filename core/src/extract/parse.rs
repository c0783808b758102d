//! From bytes to the document: the sink builds the nodes (behind the
//! guard, under the work meter), once more with the title closed when an
//! unclosed `<title>` swallowed the page (`unclosed`), text decoded twice
//! is read once (`mojibake`), then the visibility rules settle them into
//! a [`Doc`].

use super::dom::Doc;
use super::mojibake;
use super::sink;
use super::unclosed;
use super::work::Work;

impl Doc {
    /// Parses `html` (html5ever never fails: any input is a document).
    pub fn parse(html: &str) -> Doc {
        Doc::parse_within(html, &Work::unbounded()).0
    }

    /// [`Doc::parse`] that stops reading when `work` says stop; true when
    /// it did (the document is then the part before).
    pub fn parse_within(html: &str, work: &Work) -> (Doc, bool) {
        let (mut nodes, mut spent) =
            sink::parse_with(html, sink::Limits::for_len(html.len()), work);
        if !spent.late && unclosed::swallowed(&nodes) {
            if let Some(closed) = unclosed::close_title(html) {
                // At most once, and under the same work meter.
                (nodes, spent) =
                    sink::parse_with(&closed, sink::Limits::for_len(closed.len()), work);
            }
        }
        mojibake::repair_nodes(&mut nodes);
        (Doc::from_nodes(nodes, html.len()), spent.late)
    }
}
