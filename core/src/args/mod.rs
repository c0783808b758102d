//! Argument parsing for both tools, from the JSON a model sends
//! (contract §2 and §9). Pure: `serde_json::Value` in, typed arguments or
//! the exact error out.
//!
//! Two conventions hold for both tools: `null` counts as absent for an
//! optional field, and a whole-valued number counts as an integer (`5000`
//! and `5000.0` alike).

mod fetch;
mod search;

pub(crate) use fetch::parse_fetch_args;
pub use search::{parse_search_args, Freshness, SafeSearch, SearchArgs};

use serde_json::Number;

/// A JSON number that is whole and not negative, saturated to `u64`;
/// `None` for negative or fractional numbers.
fn whole_non_negative(n: &Number) -> Option<u64> {
    if let Some(u) = n.as_u64() {
        return Some(u);
    }
    if n.as_i64().is_some() {
        return None; // negative integer
    }
    let f = n.as_f64()?;
    // `as` saturates: 1e300 becomes u64::MAX, which every limit lowers.
    (f >= 0.0 && f.fract() == 0.0).then_some(f as u64)
}
