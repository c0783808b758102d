//! Turning a response into text (contract §7, §8), pure over byte chunks:
//! the Content-Type class, the charset, streaming decompression under the
//! byte cap, and character-boundary truncation.
//!
//! **Architecture Invariant:** nothing here does IO; the fetch loop pushes
//! chunks in as they arrive and stops when told.

pub mod charset;
pub mod content_type;
pub mod decode;
pub mod text;

pub use content_type::{classify, ContentType, MediaClass, TypeRefusal};
pub use decode::{
    parse_codings, Body, BodyDecoder, BodyFail, CapMode, Coding, Flow, ACCEPT_ENCODING,
};
