//! The reader fallback (seed `000`, an opt-in of the host): when a direct
//! fetch of an HTML page gave nothing usable and the failure says nothing
//! final about the page, the same URL is fetched once more through a
//! reader service (such as `https://r.jina.ai/`) that renders pages which
//! need JavaScript, under the same policy, and its text is returned with a
//! note saying where it came from.
//!
//! What is "nothing usable": the block and verification page check fired,
//! the extracted text is under [`THIN_PAGE_CHARS`], or the site answered
//! 403, 429 or a 5xx (the statuses bot walls and overloaded servers give).
//! What is final and never falls through: a 404 or 410 (a reader would
//! render the site's "no such page" shell as a success), any other status,
//! every policy refusal (admission, addresses, domain lists, robots.txt,
//! the type of the body, its size), and network failures and time-outs (the reader
//! would reach the same server). Only HTML pages qualify: a plain-text or
//! JSON answer is the resource itself.
//!
//! Pure: the agent layer asks [`unusable`] and [`reader_url`], fetches,
//! and asks [`better`] whether to use what came back.
//!
//! [`THIN_PAGE_CHARS`]: super::THIN_PAGE_CHARS

use crate::fetch::Fetched;
use crate::messages::{Extraction, FetchError, ReaderWhy};

use super::block::is_block_page;
use super::THIN_PAGE_CHARS;

/// Why the direct result is worth a second try through the reader;
/// `None` when it is usable or its failure is final.
pub fn unusable(direct: &Result<Fetched, FetchError>) -> Option<ReaderWhy> {
    match direct {
        Ok(f) if f.extraction == Extraction::Plain => None,
        Ok(f) if is_block_page(&f.text) => Some(ReaderWhy::BlockPage),
        Ok(f) => {
            // The page's own text: its title line says what it is, not
            // that it has something to read.
            let chars = f.body().chars().count();
            // A page the body cap cut is long, not thin.
            (chars < THIN_PAGE_CHARS && !f.truncated).then_some(ReaderWhy::Thin(chars))
        }
        Err(FetchError::Status { status, .. })
            if matches!(status, 403 | 429) || (500..=599).contains(status) =>
        {
            Some(ReaderWhy::Status(*status))
        }
        Err(_) => None,
    }
}

/// The URL to ask the reader for: the prefix, then the page's URL as
/// admitted (query kept, fragment dropped).
pub fn reader_url(prefix: &str, page: &str) -> String {
    format!("{prefix}{page}")
}

/// Whether the reader's answer is better than the direct one: a text that
/// is not itself a block page and is longer than what the site gave.
pub fn better(reader: &Fetched, direct: &Result<Fetched, FetchError>) -> bool {
    let chars = reader.text.chars().count();
    let direct_chars = match direct {
        Ok(f) if !is_block_page(&f.text) => f.body().chars().count(),
        _ => 0,
    };
    chars > direct_chars && !is_block_page(&reader.text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str, extraction: Extraction) -> Result<Fetched, FetchError> {
        Ok(Fetched {
            url: "https://a.example/".into(),
            truncated: false,
            extraction,
            text: text.into(),
            title: None,
            cut: None,
        })
    }

    fn status(status: u16) -> Result<Fetched, FetchError> {
        Err(FetchError::Status {
            url: "https://a.example/".into(),
            status,
        })
    }

    #[test]
    fn what_falls_through() {
        let long = "word ".repeat(200);
        assert_eq!(
            unusable(&page("Checking your browser", Extraction::Readability)),
            Some(ReaderWhy::BlockPage)
        );
        assert_eq!(
            unusable(&page("Loading…", Extraction::RawHtml)),
            Some(ReaderWhy::Thin(8))
        );
        assert_eq!(unusable(&page(&long, Extraction::Readability)), None);
        assert_eq!(unusable(&page("short", Extraction::Plain)), None);
        for s in [403, 429, 500, 503, 599] {
            assert_eq!(unusable(&status(s)), Some(ReaderWhy::Status(s)));
        }
        for s in [400, 401, 404, 410, 451] {
            assert_eq!(unusable(&status(s)), None, "{s}");
        }
        let refused = Err(FetchError::NoAllowedAddress {
            host: "a.example".into(),
        });
        assert_eq!(unusable(&refused), None);
    }

    #[test]
    fn what_is_better() {
        let reader = |t: &str| Fetched {
            url: "https://r.example/https://a.example/".into(),
            truncated: false,
            extraction: Extraction::Plain,
            text: t.into(),
            title: None,
            cut: None,
        };
        let thin = page("Loading…", Extraction::RawHtml);
        assert!(better(&reader("A whole article."), &thin));
        assert!(!better(&reader("Load"), &thin));
        assert!(!better(
            &reader("Please verify you are human"),
            &status(403)
        ));
        assert!(better(&reader("x"), &status(403)));
        let block = page("Checking your browser", Extraction::Readability);
        assert!(better(&reader("Text"), &block));
    }
}
