//! `cargo xtask bench table`: the cost of one blocked-table check, beside
//! the obvious peer (a linear scan over `ipnet` networks, as a hand-written
//! SSRF filter would do it) timed in the same run. Plain timing, no
//! assertions: the figures are reported, never asserted.

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Instant;

use ipnet::IpNet;
use webgate::internals::policy::check;

/// A fixed mix: public and blocked, both families, mapped forms.
fn addresses() -> Vec<IpAddr> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..4096)
        .map(|i| match i % 4 {
            0 => IpAddr::V4(Ipv4Addr::from(next() as u32)),
            1 => IpAddr::V6(Ipv6Addr::from(
                (u128::from(next()) << 64) | u128::from(next()),
            )),
            2 => IpAddr::V6(Ipv4Addr::from(next() as u32).to_ipv6_mapped()),
            _ => IpAddr::V4(Ipv4Addr::new(127, 0, 0, (i % 256) as u8)),
        })
        .collect()
}

fn time(label: &str, addrs: &[IpAddr], f: impl Fn(IpAddr) -> bool) -> f64 {
    // Warm up, then take the best of several rounds (least disturbed).
    let rounds = 15;
    let per_round = 200;
    let mut best = f64::MAX;
    for r in 0..=rounds {
        let start = Instant::now();
        let mut blocked = 0usize;
        for _ in 0..per_round {
            for &a in addrs {
                blocked += f(black_box(a)) as usize;
            }
        }
        black_box(blocked);
        let ns = start.elapsed().as_nanos() as f64 / (per_round * addrs.len()) as f64;
        if r > 0 {
            best = best.min(ns);
        }
    }
    println!("{label:<42} {best:>8.1} ns/check");
    best
}

fn main() {
    let addrs = addresses();
    let nets: Vec<IpNet> = include_str!("../vectors/iana/expected-table.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.parse().unwrap())
        .collect();
    println!(
        "blocked-table check, {} mixed addresses (v4, v6, mapped, loopback)",
        addrs.len()
    );
    let ours = time("webgate::internals::policy::check", &addrs, |a| {
        !check(a).is_allowed()
    });
    // ::ffff:0:0/96 and ::/96 are in the list, so the peer's scan alone
    // gives the same verdict for mapped forms.
    let peer = time(
        "peer: linear scan over ipnet::IpNet (30 nets)",
        &addrs,
        |a| nets.iter().any(|n| n.contains(&a)),
    );
    println!("ratio (peer / webgate): {:.2}x", peer / ours);
}
