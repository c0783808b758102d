//! The blocked-address table against its independent statements: every row
//! of `vectors/iana/boundaries.csv`, and property tests against a linear
//! scan over `vectors/iana/expected-table.txt` built on `ipnet`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;
use proptest::prelude::*;
use support::{expected_table, reference};
use webgate::internals::policy::{check, Verdict};
use webgate::policy::BlockedRange;

mod support;

fn ours(ip: IpAddr) -> Option<String> {
    match check(ip) {
        Verdict::Allow => None,
        Verdict::Deny { range, .. } => Some(range.to_string()),
    }
}

/// ipnet prints `::ffff:0.0.0.0/96`; the table's notation is hex groups.
fn same_range(ours: &str, reference: &IpNet) -> bool {
    ours.parse::<IpNet>().ok().as_ref() == Some(reference)
}

#[test]
fn every_boundary_row() {
    let text = include_str!("../vectors/iana/boundaries.csv");
    let mut rows = 0;
    for line in text.lines().skip(1).filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = line.split(',').collect();
        let ip: IpAddr = cols[0].parse().unwrap();
        match (cols[1], ours(ip)) {
            ("blocked", Some(r)) => assert_eq!(r, cols[2], "{line}"),
            ("allowed", None) => {}
            (want, got) => panic!("{line}: expected {want}, got {got:?}"),
        }
        rows += 1;
    }
    assert_eq!(rows, 109);
}

#[test]
fn the_compiled_table_is_the_contract_table() {
    let ours: Vec<IpNet> = BlockedRange::all()
        .map(|r| r.to_string().parse().unwrap())
        .collect();
    assert_eq!(ours, expected_table());
}

#[test]
fn every_range_edge_agrees_with_the_reference() {
    let table = expected_table();
    for n in &table {
        for ip in [n.network(), n.broadcast()] {
            let r = reference(&table, ip).unwrap();
            assert!(same_range(&ours(ip).unwrap(), &r), "{ip}");
        }
    }
}

fn any_ip() -> impl Strategy<Value = IpAddr> {
    prop_oneof![
        any::<u32>().prop_map(|v| IpAddr::V4(Ipv4Addr::from(v))),
        any::<u128>().prop_map(|v| IpAddr::V6(Ipv6Addr::from(v))),
        // Concentrate on the interesting neighbourhoods: mapped, compatible,
        // NAT64 and the low /16s where most v6 ranges sit.
        any::<u32>().prop_map(|v| IpAddr::V6(Ipv6Addr::from(0xffff_0000_0000u128 | u128::from(v)))),
        any::<u32>().prop_map(|v| IpAddr::V6(Ipv6Addr::from(u128::from(v)))),
        any::<u32>()
            .prop_map(|v| IpAddr::V6(Ipv6Addr::from((0x64_ff9bu128 << 96) | u128::from(v)))),
        (0u16..0x0300, any::<u64>())
            .prop_map(|(h, l)| IpAddr::V6(Ipv6Addr::from((u128::from(h) << 112) | u128::from(l)))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// The compiled table answers exactly as the reference scan.
    #[test]
    fn lookup_matches_reference(ip in any_ip()) {
        let table = expected_table();
        match (ours(ip), reference(&table, ip)) {
            (None, None) => {}
            (Some(o), Some(r)) => prop_assert!(same_range(&o, &r), "{ip}: {o} vs {r}"),
            (o, r) => prop_assert!(false, "{ip}: ours {o:?}, reference {r:?}"),
        }
    }

    /// The fuzz property's reference (std only, in the core) agrees with
    /// this one (ipnet's `contains`): two scans, one answer.
    #[test]
    fn the_fuzz_reference_is_this_one(ip in any_ip()) {
        let theirs = webgate::internals::fuzzing::reference_range(ip);
        let ours = reference(&expected_table(), ip).map(|n| (n.addr(), n.prefix_len()));
        prop_assert_eq!(theirs, ours, "{}", ip);
    }

    /// Every address inside a range is blocked; the neighbours just outside
    /// are allowed unless another range holds them.
    #[test]
    fn inside_blocked_neighbours_by_reference(i in 0usize..30, offset in any::<u128>()) {
        let table = expected_table();
        let n = table[i];
        let (inside, below, above) = match n {
            IpNet::V4(n) => {
                let size = 1u64 << (32 - n.prefix_len());
                let first = u32::from(n.network());
                let inside = first.wrapping_add((offset % u128::from(size)) as u32);
                let below = first.checked_sub(1).map(|v| IpAddr::V4(v.into()));
                let above = u32::from(n.broadcast()).checked_add(1).map(|v| IpAddr::V4(v.into()));
                (IpAddr::V4(inside.into()), below, above)
            }
            IpNet::V6(n) => {
                let host_bits = 128 - u32::from(n.prefix_len());
                let mask = if host_bits == 128 { u128::MAX } else { (1u128 << host_bits) - 1 };
                let first = u128::from(n.network());
                let below = first.checked_sub(1).map(|v| IpAddr::V6(v.into()));
                let above = u128::from(n.broadcast()).checked_add(1).map(|v| IpAddr::V6(v.into()));
                (IpAddr::V6((first | (offset & mask)).into()), below, above)
            }
        };
        prop_assert!(ours(inside).is_some(), "{inside} inside {n}");
        for ip in [below, above].into_iter().flatten() {
            prop_assert_eq!(ours(ip).is_some(), reference(&table, ip).is_some(), "{}", ip);
        }
    }

    /// A mapped or compatible form of a blocked IPv4 address is blocked,
    /// and reports the IPv4 range it embeds.
    #[test]
    fn embedded_blocked_ipv4_is_blocked(v in any::<u32>()) {
        let v4 = Ipv4Addr::from(v);
        let v4_range = ours(IpAddr::V4(v4));
        for v6 in [v4.to_ipv6_mapped(), v4.to_ipv6_compatible()] {
            match check(IpAddr::V6(v6)) {
                Verdict::Deny { embedded, .. } => {
                    prop_assert_eq!(embedded.map(|r| r.to_string()), v4_range.clone());
                }
                Verdict::Allow => prop_assert!(false, "{} allowed", v6),
            }
        }
    }
}
