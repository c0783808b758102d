//! When to offer `web_fetch` at all (contract §12, from peer `000`): only
//! when a URL appears in one of the last three user messages. Without a
//! link in play a model tends to invent a URL instead of searching; three,
//! not one, because "here is a link" and "open it" are often two messages.

/// How many of the latest user messages are scanned.
pub const URL_LOOKBACK: usize = 3;

/// True when one of the last `URL_LOOKBACK` user messages (oldest first
/// in `user_messages`) holds an `http://` or `https://` URL.
pub fn offer_fetch<S: AsRef<str>>(user_messages: &[S]) -> bool {
    let from = user_messages.len().saturating_sub(URL_LOOKBACK);
    user_messages[from..].iter().any(|m| has_url(m.as_ref()))
}

fn has_url(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["https://", "http://"].iter().any(|scheme| {
        lower.match_indices(scheme).any(|(i, _)| {
            // Something host-like must follow the scheme.
            lower[i + scheme.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '[')
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookback_of_three() {
        assert!(offer_fetch(&["see https://example.com/x"]));
        assert!(offer_fetch(&["HTTP://Example.com", "ok", "open it"]));
        assert!(!offer_fetch(&["https://example.com", "a", "b", "c"]));
        assert!(!offer_fetch(&["no link here", "https:// nothing"]));
        assert!(!offer_fetch::<&str>(&[]));
    }
}
