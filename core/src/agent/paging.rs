//! Paging by character offset (contract §12, from the peer `read_url`): a
//! text that fits the budget comes back whole; a longer one as a head
//! (four fifths of the budget) and a tail (the last fifth: the page's last
//! characters, a preview) with a marker between them. The budget counts
//! the marker too. Continuing from the marker's offset resumes exactly at
//! the end of the head, so nothing between is skipped.

use crate::messages::text::PagingMarker;
use crate::messages::OptionError;

/// One page of a long text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paged {
    /// What to return: the whole rest, or head + marker + tail.
    pub text: String,
    /// Where this page starts, in characters.
    pub offset: usize,
    /// Where the next call continues; `None` when the rest fit.
    pub next_offset: Option<usize>,
    /// Characters of the page text not returned (0 when the rest fit).
    pub not_returned: usize,
    /// The whole text's length in characters.
    pub total_length: usize,
    /// Characters of page text returned (head + tail, marker excluded).
    pub returned_length: usize,
}

/// The page of `text` starting at character `offset`, within `budget`
/// characters (marker included).
pub fn page(text: &str, offset: usize, budget: usize) -> Result<Paged, OptionError> {
    let total = text.chars().count();
    if offset > total || (offset == total && total > 0) {
        return Err(OptionError::OffsetPastEnd { offset, total });
    }
    // Byte index of every char boundary we need, found in one pass.
    let byte_at = |chars: usize| -> usize {
        text.char_indices()
            .nth(chars)
            .map(|(i, _)| i)
            .unwrap_or(text.len())
    };
    let rest_len = total - offset;
    if rest_len <= budget {
        return Ok(Paged {
            text: text[byte_at(offset)..].to_string(),
            offset,
            next_offset: None,
            not_returned: 0,
            total_length: total,
            returned_length: rest_len,
        });
    }
    // The marker's length depends on the numbers in it: start from an
    // estimate and step down until head + tail + marker fit the budget.
    let marker_for = |content: usize| {
        let head = content * 4 / 5;
        let tail = content - head;
        let m = PagingMarker {
            not_returned: rest_len - head - tail,
            total,
            next_offset: offset + head,
        }
        .to_string();
        (head, tail, m)
    };
    // The line breaks around the marker count too.
    let cost = |m: &String| m.chars().count() + 2;
    let mut content = budget.saturating_sub(cost(&marker_for(budget).2));
    let (mut head, mut tail, mut marker) = marker_for(content);
    while content > 0 && content + cost(&marker) > budget {
        content -= 1;
        (head, tail, marker) = marker_for(content);
    }
    if content == 0 {
        // A budget too small for any marker: a plain head, no tail.
        let end = byte_at(offset + budget);
        return Ok(Paged {
            text: text[byte_at(offset)..end].to_string(),
            offset,
            next_offset: Some(offset + budget),
            not_returned: rest_len - budget,
            total_length: total,
            returned_length: budget,
        });
    }
    let head_end = byte_at(offset + head);
    let tail_start = byte_at(total - tail);
    let start = byte_at(offset);
    let mut out =
        String::with_capacity(head_end - start + marker.len() + 2 + text.len() - tail_start);
    out.push_str(&text[start..head_end]);
    out.push('\n');
    out.push_str(&marker);
    out.push('\n');
    out.push_str(&text[tail_start..]);
    Ok(Paged {
        text: out,
        offset,
        next_offset: Some(offset + head),
        not_returned: rest_len - head - tail,
        total_length: total,
        returned_length: head + tail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_whole() {
        let p = page("héllo", 0, 5).unwrap();
        assert_eq!((p.text.as_str(), p.next_offset), ("héllo", None));
        let p = page("héllo", 1, 4).unwrap();
        assert_eq!(p.text, "éllo");
        assert!(page("abc", 3, 10).is_err());
        assert!(page("abc", 4, 10).is_err());
        assert_eq!(page("", 0, 10).unwrap().text, "");
    }

    #[test]
    fn head_tail_and_resume() {
        let text: String = (0..1000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let p = page(&text, 0, 200).unwrap();
        assert!(p.text.chars().count() <= 200, "{}", p.text.chars().count());
        let k = p.next_offset.unwrap();
        assert!(p.text.starts_with(&text[..k]));
        assert!(p.text.contains(&format!("call again with offset={k}] …")));
        let tail = p.text.rsplit('\n').next().unwrap();
        assert!(text.ends_with(tail));
        assert_eq!(p.returned_length, k + tail.len());
        assert_eq!(p.not_returned, 1000 - k - tail.len());
        // The next page starts exactly where the head ended.
        let q = page(&text, k, 200).unwrap();
        assert!(q.text.starts_with(&text[k..k + 10]));
    }
}
