//! One block of addresses as the blocked table stores it: network, mask,
//! prefix length and the registry's name, built at compile time. The
//! generated `table` holds rows of these; `addr` looks addresses up in
//! them. A leaf, so that the table and the lookup do not import each
//! other.

/// An IPv4 block of the table.
#[derive(Debug)]
pub(crate) struct Range4 {
    pub(super) net: u32,
    pub(super) mask: u32,
    pub(super) prefix: u8,
    pub(super) name: &'static str,
}

impl Range4 {
    pub(crate) const fn new(octets: [u8; 4], prefix: u8, name: &'static str) -> Self {
        let mask = if prefix == 0 {
            0
        } else {
            u32::MAX << (32 - prefix as u32)
        };
        Range4 {
            net: u32::from_be_bytes(octets),
            mask,
            prefix,
            name,
        }
    }
}

/// An IPv6 block of the table.
#[derive(Debug)]
pub(crate) struct Range6 {
    pub(super) net: u128,
    pub(super) mask: u128,
    pub(super) prefix: u8,
    pub(super) name: &'static str,
}

impl Range6 {
    pub(crate) const fn new(seg: [u16; 8], prefix: u8, name: &'static str) -> Self {
        let mut net = 0u128;
        let mut i = 0;
        while i < 8 {
            net = (net << 16) | seg[i] as u128;
            i += 1;
        }
        let mask = if prefix == 0 {
            0
        } else {
            u128::MAX << (128 - prefix as u32)
        };
        Range6 {
            net,
            mask,
            prefix,
            name,
        }
    }
}
