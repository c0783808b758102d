//! Not part of the supported API: what the workspace's own crates (the
//! CLI, the conformance suite, the fuzz targets, the benchmarks and the
//! core's integration tests) reach below the API a vendor uses. Hidden
//! from the documentation and from `core/public-api.txt`; it may change
//! in any release.
//!
//! Everything here is a re-export of an item that lives where its concern
//! does; this file only names what leaves the crate this way (and one
//! accessor, for a field the API shows only as JSON).

pub mod fuzzing;

/// The agent layer's parts below [`crate::agent::Toolbox`].
#[cfg(feature = "agent")]
pub mod agent {
    pub use crate::agent::envelope::{unwrap, wrap, TAG_HEX_CHARS};

    /// A fetch reply's metadata with every field, `null` ones too (the
    /// vectors read it; hosts read [`crate::agent::ToolReply::structured`]).
    pub fn meta_json(reply: &crate::agent::ToolReply) -> serde_json::Value {
        serde_json::to_value(&reply.meta).unwrap_or(serde_json::Value::Null)
    }
}

/// The body pipeline (contract §7, §8).
pub mod body {
    pub use crate::body::charset::{decode, decode_owned, encoding_for};
    pub use crate::body::content_type::MimeType;
    pub use crate::body::decode::SCRATCH;
    pub use crate::body::decode::{
        parse_codings, Body, BodyDecoder, BodyFail, CapMode, Coding, Flow,
    };
    pub use crate::body::text::truncate_chars;
}

/// The texts around results (the golden test holds them).
pub mod messages {
    pub use crate::messages::shown::{escape_char, Shown, SHOWN_MAX_CHARS};
    pub use crate::messages::text::{
        Action, EnvelopeClose, EnvelopeHeader, EnvelopeOpen, EnvelopeSource, FetchOk, NoResults,
        PagingMarker, SearchOk, ToolFailure, FETCH_DESCRIPTION, SEARCH_DESCRIPTION,
    };
}

/// The search providers by name (hosts build them with
/// [`crate::search::configure`]), and the HTTP client beneath them with
/// its connection seam.
#[cfg(feature = "search-providers")]
pub mod search {
    pub use crate::search::client::{Client, Connect};
    pub use crate::search::gateway::Gateway;
    pub use crate::search::providers::configure_with;
    pub use crate::search::providers::{Brave, Searxng, Tavily};
}

/// robots.txt (RFC 9309), for hosts that turn it on.
pub mod robots {
    pub use crate::policy::robots::{
        path_of, product_token, RobotsMemo, RobotsTxt, Rules, Unreachable, Verdict, MAX_BYTES,
    };
}

/// The policy core's parts below [`crate::policy::vet`] and
/// [`crate::policy::admit`]: the table's full verdict (with the IPv4 range
/// an IPv6 address embeds), admission of a parsed URL and the display
/// form of URLs, for the CLI's `check` and the vectors.
pub mod policy {
    pub use crate::policy::addr::{check, Verdict};
    pub use crate::policy::admission::{admit_parsed, display_form};
}

/// The Resolve and the Dial behind the CLI's `--resolve` and
/// `--connect-to` (and the tests'), the default Dial they wrap, and the
/// address order of connection attempts.
pub mod net {
    pub use crate::net::eyeballs::interleave;
    pub use crate::net::remap::RemappedDial;
    pub use crate::net::resolve::StaticResolve;
    pub use crate::net::tcp::TcpDial;
}

/// The redirect-hop rule.
pub mod redirect {
    pub use crate::policy::redirect::{is_redirect_status, next_hop, Hop};
}
