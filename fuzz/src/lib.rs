//! Shared pieces of the fuzz targets: the table reference, taken by path
//! from the core crate's test support so that there is one reference.

#[path = "../../core/tests/support/mod.rs"]
mod support;

pub use support::table_diff;
