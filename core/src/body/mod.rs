//! Turning a response into text (contract §7, §8), pure over byte chunks:
//! what the response head decides, the Content-Type class, the charset,
//! streaming decompression under the byte cap, and character-boundary
//! truncation.
//!
//! **Architecture Invariant:** nothing here does IO; the fetch loop pushes
//! chunks in as they arrive and stops when told.

pub mod charset;
pub mod content_type;
#[doc(hidden)]
pub mod decode;
pub(crate) mod head;
pub mod text;

pub use content_type::{classify, ContentType, MediaClass, TypeRefusal};
pub use decode::{parse_codings, BodyFail, Coding, ACCEPT_ENCODING};
// The streaming decoder itself: for the body benchmark and the fuzz
// targets, not part of the supported API (the fetch loop drives it).
#[doc(hidden)]
pub use decode::{Body, BodyDecoder, CapMode, Flow};
