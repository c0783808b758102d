//! From bytes to the document: the sink builds the nodes (behind the
//! guard, under the work meter), then the visibility rules settle them
//! into a [`Doc`].

use super::dom::Doc;
use super::sink;
use super::work::Work;

impl Doc {
    /// Parses `html` (html5ever never fails: any input is a document).
    pub fn parse(html: &str) -> Doc {
        Doc::parse_within(html, &Work::unbounded()).0
    }

    /// [`Doc::parse`] that stops reading when `work` says stop; true when
    /// it did (the document is then the part before).
    pub fn parse_within(html: &str, work: &Work) -> (Doc, bool) {
        let (nodes, spent) = sink::parse_with(html, sink::Limits::for_len(html.len()), work);
        (Doc::from_nodes(nodes, html.len()), spent.late)
    }
}
