//! Verification- and block-page detection (contract §12, from peer `000`):
//! a short text that carries a block signal is a failure, not an article.
//! The length bound is what keeps a long article *about* captchas from
//! being taken for one.

/// At or above this many characters a text is an article, whatever it says.
pub const BLOCK_PAGE_MAX_CHARS: usize = 1500;

/// Phrases that block and verification interstitials carry (lower case).
const SIGNALS: &[&str] = &[
    "verify you are human",
    "verify you are a human",
    "verifying you are human",
    "are you a robot",
    "not a robot",
    "access denied",
    "enable javascript",
    "javascript is disabled",
    "captcha",
    "checking your browser",
    "unusual traffic",
    "request blocked",
    "press and hold",
    "attention required",
];

/// True when `text` looks like a block or verification page.
pub fn is_block_page(text: &str) -> bool {
    if text.chars().count() >= BLOCK_PAGE_MAX_CHARS {
        return false;
    }
    let lower = text.to_lowercase();
    SIGNALS.iter().any(|s| lower.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_pages_with_signals() {
        assert!(is_block_page(
            "Just a moment... Verify you are human by completing the action below."
        ));
        assert!(is_block_page(
            "Access Denied\nYou don't have permission to access this server."
        ));
        assert!(is_block_page("Please enable JavaScript to continue."));
        assert!(!is_block_page("A short, real page about cats."));
    }

    #[test]
    fn a_long_article_about_captchas_is_not_one() {
        let article = "CAPTCHA systems ask: are you a robot? ".repeat(60);
        assert!(article.chars().count() >= BLOCK_PAGE_MAX_CHARS);
        assert!(!is_block_page(&article));
    }
}
