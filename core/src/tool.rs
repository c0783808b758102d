//! What a tool call returns: one [`Outcome`] with its class, kind, message
//! id and exact text, ready to hand to a model or print.

use std::time::Duration;

use crate::messages::text::ToolFailure;
use crate::messages::{Class, ErrorKind, FetchError, OptionError, SearchError};

/// The result of one tool call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Outcome {
    /// Ok, soft or hard.
    pub class: Class,
    /// The tool error kind, for a hard failure.
    pub kind: Option<ErrorKind>,
    /// The message id in `vectors/messages.tsv` (`fetch.ok` for a success).
    pub id: &'static str,
    /// The whole text: the result, or the failure message.
    pub text: String,
    /// How long a search provider asked callers to wait before trying
    /// again ([`SearchError::retry_after`]); never part of `text`.
    pub retry_after: Option<Duration>,
}

impl Outcome {
    /// A success.
    pub(crate) fn ok(id: &'static str, text: String) -> Self {
        Outcome {
            class: Class::Ok,
            kind: None,
            id,
            text,
            retry_after: None,
        }
    }

    /// The caller-facing rendering of a hard failure ([`ToolFailure`]);
    /// `None` for ok and soft outcomes.
    pub fn tool_failure(&self) -> Option<String> {
        (self.class == Class::Hard).then(|| ToolFailure(&self.text).to_string())
    }
}

impl From<FetchError> for Outcome {
    fn from(e: FetchError) -> Self {
        Outcome {
            class: e.class(),
            kind: e.kind(),
            id: e.id(),
            text: e.to_string(),
            retry_after: None,
        }
    }
}

impl From<SearchError> for Outcome {
    fn from(e: SearchError) -> Self {
        Outcome {
            class: Class::Hard,
            kind: Some(e.kind()),
            id: e.id(),
            text: e.to_string(),
            retry_after: e.retry_after(),
        }
    }
}

impl From<OptionError> for Outcome {
    fn from(e: OptionError) -> Self {
        let class = e.class();
        Outcome {
            class,
            kind: (class == Class::Hard).then_some(ErrorKind::InvalidArguments),
            id: e.id(),
            text: e.to_string(),
            retry_after: None,
        }
    }
}
