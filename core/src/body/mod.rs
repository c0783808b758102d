//! Turning a response into text (contract §7, §8), pure over byte chunks:
//! what the response head decides, the Content-Type class, the charset,
//! streaming decompression under the byte cap, and character-boundary
//! truncation.
//!
//! **Architecture Invariant:** nothing here does IO; the fetch loop pushes
//! chunks in as they arrive and stops when told.

pub(crate) mod charset;
pub(crate) mod content_type;
pub(crate) mod decode;
pub(crate) mod head;
pub(crate) mod text;

pub(crate) use content_type::{classify, MediaClass};
pub(crate) use decode::{BodyDecoder, BodyFail, CapMode, Coding, Flow, ACCEPT_ENCODING};
