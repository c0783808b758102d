//! The blocked-address check (contract §4, `iana-table.md`).
//!
//! The table itself lives in the generated `table` module (its rows are
//! `range`'s types); this module owns
//! the lookup and the one type that proves an address passed it,
//! [`VettedAddr`]. The check is a linear scan over 16 or 14 masked
//! compares: fixed-size, branch-light, and in the tens of nanoseconds
//! (`cargo xtask bench table`).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::range::{Range4, Range6};
use super::table;

/// A range of the blocked table, as a lookup reports it.
///
/// Displays in the table's own notation: `127.0.0.0/8`, `::ffff:0:0/96`
/// (never the dotted form `::ffff:0.0.0.0/96` that `std` would print).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockedRange {
    inner: RangeRef,
}

#[derive(Clone, Copy, Debug)]
enum RangeRef {
    V4(&'static Range4),
    V6(&'static Range6),
}

impl PartialEq for RangeRef {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (RangeRef::V4(a), RangeRef::V4(b)) => std::ptr::eq(*a, *b),
            (RangeRef::V6(a), RangeRef::V6(b)) => std::ptr::eq(*a, *b),
            _ => false,
        }
    }
}
impl Eq for RangeRef {}

impl BlockedRange {
    /// The registry's name for the range ("Loopback", "Private-Use", …).
    pub fn name(&self) -> &'static str {
        match self.inner {
            RangeRef::V4(r) => r.name,
            RangeRef::V6(r) => r.name,
        }
    }

    /// The prefix length.
    pub fn prefix_len(&self) -> u8 {
        match self.inner {
            RangeRef::V4(r) => r.prefix,
            RangeRef::V6(r) => r.prefix,
        }
    }

    /// The first address of the range.
    pub fn network(&self) -> IpAddr {
        match self.inner {
            RangeRef::V4(r) => IpAddr::V4(Ipv4Addr::from(r.net)),
            RangeRef::V6(r) => IpAddr::V6(Ipv6Addr::from(r.net)),
        }
    }

    /// Every range of the table, IPv4 first, each family in address order.
    pub fn all() -> impl Iterator<Item = BlockedRange> {
        table::V4
            .iter()
            .map(|r| BlockedRange {
                inner: RangeRef::V4(r),
            })
            .chain(table::V6.iter().map(|r| BlockedRange {
                inner: RangeRef::V6(r),
            }))
    }
}

impl fmt::Display for BlockedRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner {
            RangeRef::V4(r) => write!(f, "{}/{}", Ipv4Addr::from(r.net), r.prefix),
            RangeRef::V6(r) => {
                write_v6_plain(f, r.net)?;
                write!(f, "/{}", r.prefix)
            }
        }
    }
}

/// RFC 5952 text with hex groups only: the longest run of two or more zero
/// groups (the first, on a tie) becomes `::`.
fn write_v6_plain(f: &mut fmt::Formatter<'_>, v: u128) -> fmt::Result {
    let seg: [u16; 8] = Ipv6Addr::from(v).segments();
    let (mut best, mut best_len, mut i) = (8usize, 0usize, 0usize);
    while i < 8 {
        if seg[i] == 0 {
            let start = i;
            while i < 8 && seg[i] == 0 {
                i += 1;
            }
            if i - start > best_len && i - start >= 2 {
                best = start;
                best_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    let mut i = 0;
    while i < 8 {
        if i == best {
            f.write_str("::")?;
            i += best_len;
            continue;
        }
        if i > 0 && i != best + best_len {
            f.write_str(":")?;
        }
        write!(f, "{:x}", seg[i])?;
        i += 1;
    }
    Ok(())
}

/// The table's answer for one address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// In no range: the address may be dialled.
    Allow,
    /// Inside `range`. For an IPv4-mapped or IPv4-compatible address,
    /// `embedded` is the range (if any) that holds its embedded IPv4 value,
    /// so a report can name both.
    Deny {
        /// The most specific range that holds the address itself.
        range: BlockedRange,
        /// The range of the embedded IPv4 address, for `::ffff:0:0/96` and
        /// `::/96` members.
        embedded: Option<BlockedRange>,
    },
}

impl Verdict {
    /// True when the address may be dialled.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Verdict::Allow)
    }
}

fn lookup4(a: Ipv4Addr) -> Option<&'static Range4> {
    let v = u32::from(a);
    // Longest match: 255.255.255.255/32 sits inside 240.0.0.0/4 and is
    // reported as itself.
    let mut hit: Option<&'static Range4> = None;
    for r in table::V4.iter() {
        if v & r.mask == r.net && hit.is_none_or(|h| r.prefix > h.prefix) {
            hit = Some(r);
        }
    }
    hit
}

fn lookup6(a: Ipv6Addr) -> Option<&'static Range6> {
    let v = u128::from(a);
    let mut hit: Option<&'static Range6> = None;
    for r in table::V6.iter() {
        if v & r.mask == r.net && hit.is_none_or(|h| r.prefix > h.prefix) {
            hit = Some(r);
        }
    }
    hit
}

/// Judges one address against the blocked table.
///
/// IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`)
/// addresses are blocked by their own /96 range and also judged by the
/// embedded IPv4 value. The SIIT form `::ffff:0:a.b.c.d` and `fec0::/10`
/// are in no range.
pub fn check(ip: IpAddr) -> Verdict {
    match ip {
        IpAddr::V4(a) => match lookup4(a) {
            Some(r) => Verdict::Deny {
                range: BlockedRange {
                    inner: RangeRef::V4(r),
                },
                embedded: None,
            },
            None => Verdict::Allow,
        },
        IpAddr::V6(a) => {
            let own = lookup6(a);
            let v = u128::from(a);
            // ::/96 and ::ffff:0:0/96 carry an IPv4 value in the low 32 bits.
            let embedded = if v >> 32 == 0 || v >> 32 == 0xffff {
                lookup4(Ipv4Addr::from(v as u32)).map(|r| BlockedRange {
                    inner: RangeRef::V4(r),
                })
            } else {
                None
            };
            match (own, embedded) {
                (Some(r), e) => Verdict::Deny {
                    range: BlockedRange {
                        inner: RangeRef::V6(r),
                    },
                    embedded: e,
                },
                // Unreachable with the contract's table (both /96 blocks are in
                // it), but if the table ever lost them the embedded value
                // must still refuse the address.
                (None, Some(e)) => Verdict::Deny {
                    range: e,
                    embedded: Some(e),
                },
                (None, None) => Verdict::Allow,
            }
        }
    }
}

/// An address that passed [`check`]. Only [`vet`] makes one, so anything
/// that takes a `VettedAddr` (the Dial seam) cannot be handed a blocked
/// address by mistake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VettedAddr(IpAddr);

impl VettedAddr {
    /// The address itself.
    pub fn ip(&self) -> IpAddr {
        self.0
    }
}

impl fmt::Display for VettedAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Checks `ip` and, when it is allowed, returns the proof.
pub fn vet(ip: IpAddr) -> Result<VettedAddr, BlockedRange> {
    match check(ip) {
        Verdict::Allow => Ok(VettedAddr(ip)),
        Verdict::Deny { range, .. } => Err(range),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn range_of(s: &str) -> Option<String> {
        match check(ip(s)) {
            Verdict::Allow => None,
            Verdict::Deny { range, .. } => Some(range.to_string()),
        }
    }

    #[test]
    fn table_has_16_v4_and_14_v6_ranges() {
        assert_eq!(table::V4.len(), 16);
        assert_eq!(table::V6.len(), 14);
    }

    #[test]
    fn ranges_print_in_table_notation() {
        let all: Vec<String> = BlockedRange::all().map(|r| r.to_string()).collect();
        assert!(all.contains(&"::ffff:0:0/96".to_string()));
        assert!(all.contains(&"::/96".to_string()));
        assert!(all.contains(&"100:0:0:1::/64".to_string()));
        assert!(all.contains(&"64:ff9b:1::/48".to_string()));
        assert!(all.contains(&"255.255.255.255/32".to_string()));
    }

    #[test]
    fn broadcast_is_reported_as_its_own_entry() {
        assert_eq!(
            range_of("255.255.255.255").as_deref(),
            Some("255.255.255.255/32")
        );
        assert_eq!(range_of("255.255.255.254").as_deref(), Some("240.0.0.0/4"));
    }

    #[test]
    fn mapped_and_compatible_forms_name_the_embedded_range() {
        let Verdict::Deny { range, embedded } = check(ip("::ffff:127.0.0.1")) else {
            panic!()
        };
        assert_eq!(range.to_string(), "::ffff:0:0/96");
        assert_eq!(embedded.unwrap().to_string(), "127.0.0.0/8");
        let Verdict::Deny { range, embedded } = check(ip("::10.1.2.3")) else {
            panic!()
        };
        assert_eq!(range.to_string(), "::/96");
        assert_eq!(embedded.unwrap().to_string(), "10.0.0.0/8");
        // A mapped public address is still refused by the /96 itself.
        let Verdict::Deny { embedded, .. } = check(ip("::ffff:8.8.8.8")) else {
            panic!()
        };
        assert_eq!(embedded, None);
    }

    #[test]
    fn siit_and_site_local_are_allowed() {
        assert_eq!(range_of("::ffff:0:7f00:1"), None);
        assert_eq!(range_of("fec0::1"), None);
    }

    #[test]
    fn nat64_holds_loopback() {
        assert_eq!(range_of("64:ff9b::7f00:1").as_deref(), Some("64:ff9b::/96"));
    }

    #[test]
    fn must_be_allowed_list() {
        for a in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "11.0.0.0",
            "172.32.0.0",
            "223.255.255.255",
            "192.31.196.1",
            "192.52.193.1",
            "192.175.48.1",
            "2606:4700:4700::1111",
            "2001:4860:4860::8888",
            "2001:db9::1",
            "3fff:1000::1",
            "2620:4f:8000::1",
        ] {
            assert_eq!(range_of(a), None, "{a}");
        }
    }

    #[test]
    fn vet_refuses_what_check_blocks() {
        assert!(vet(ip("127.0.0.1")).is_err());
        assert_eq!(vet(ip("8.8.8.8")).unwrap().ip(), ip("8.8.8.8"));
    }
}
