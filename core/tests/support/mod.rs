//! Test support shared by the integration tests (and, by path, the fuzz
//! crate): the obviously correct reference for the blocked table.

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

/// The differential property: bytes → an address (4 bytes IPv4, 16 bytes
/// IPv6, other lengths ignored), judged by the compiled table and by the
/// reference; both must name the same range or both allow it.
pub fn table_diff(data: &[u8]) {
    let ip = match data.len() {
        4 => IpAddr::from(<[u8; 4]>::try_from(data).unwrap()),
        16 => IpAddr::from(<[u8; 16]>::try_from(data).unwrap()),
        _ => return,
    };
    let ours = webgate::internals::fuzzing::table_range(ip).map(|r| r.parse::<IpNet>().unwrap());
    assert_eq!(ours, reference(&expected_table(), ip), "{ip}");
}
