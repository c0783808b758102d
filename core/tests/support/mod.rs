//! Test support shared by the integration tests: a reference for the
//! blocked table built on `ipnet` (the fuzz property's own reference,
//! `webgate::internals::fuzzing::reference_range`, is held to it in
//! `tests/table.rs`).

#![allow(dead_code)]

use std::net::IpAddr;

use ipnet::IpNet;

/// The contract's table, from `vectors/iana/expected-table.txt`.
pub fn expected_table() -> Vec<IpNet> {
    let text = include_str!("../../vectors/iana/expected-table.txt");
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.parse().unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// The reference verdict: a linear scan for the longest range holding `ip`.
pub fn reference(table: &[IpNet], ip: IpAddr) -> Option<IpNet> {
    table
        .iter()
        .filter(|n| n.contains(&ip))
        .max_by_key(|n| n.prefix_len())
        .copied()
}
