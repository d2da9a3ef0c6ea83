//! MD5s of short inputs, remembered, and votes of many hashes counted: the
//! two costs of PyPI `simhash` 2.x's fingerprints, which hash every
//! 4-character window of a text (or every feature) with MD5 and let each
//! vote for its bits.
//!
//! Texts share most of their windows (English uses a few hundred thousand),
//! so each thread keeps the digests of the inputs of up to 16 bytes it met
//! lately in a direct-mapped table, and a table read stands in for most
//! MD5s. A batch's slots are read before any is checked, so that their
//! cache misses overlap instead of following one another.

use std::cell::RefCell;

use crate::fingerprint::Width;
use crate::hash::FeatureHash;

/// An input of at most 16 bytes, packed into one integer.
///
/// ```
/// use neardup_core::compat::ShortBytes;
///
/// assert!(ShortBytes::new(b"abcd").is_some());
/// assert!(ShortBytes::new(&[b'x'; 17]).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShortBytes {
    packed: u128,
    len: u8,
}

impl ShortBytes {
    /// `bytes`, when they are 16 or fewer.
    pub fn new(bytes: &[u8]) -> Option<ShortBytes> {
        let len = u8::try_from(bytes.len()).ok().filter(|&n| n <= 16)?;
        let mut buf = [0u8; 16];
        buf[..bytes.len()].copy_from_slice(bytes);
        Some(ShortBytes {
            packed: u128::from_le_bytes(buf),
            len,
        })
    }

    /// The first `len` bytes of `buf`, whose other bytes are 0.
    pub(crate) fn zero_padded(buf: [u8; 16], len: usize) -> ShortBytes {
        ShortBytes {
            packed: u128::from_le_bytes(buf),
            len: len.min(16) as u8,
        }
    }

    fn bytes(&self) -> [u8; 16] {
        self.packed.to_le_bytes()
    }

    /// Where the table keeps this input.
    fn slot(&self) -> usize {
        let mixed = (self.packed as u64 ^ (self.packed >> 64) as u64 ^ u64::from(self.len))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (mixed >> (64 - SLOTS_LOG2)) as usize
    }
}

/// The table has `2^SLOTS_LOG2` slots (48 bytes each: 12 MiB a thread).
const SLOTS_LOG2: u32 = 18;

/// Slots read at once, before any is checked.
const BATCH: usize = 16;

#[derive(Clone, Copy)]
struct Slot {
    key: ShortBytes,
    digest: u128,
}

/// No input has this length: a slot never filled.
const EMPTY: Slot = Slot {
    key: ShortBytes {
        packed: 0,
        len: u8::MAX,
    },
    digest: 0,
};

thread_local! {
    static TABLE: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
}

/// The MD5 of each of `inputs` (all 128 bits, read big-endian, as
/// [`FeatureHash::Md5`] gives them at 128 bits), appended to `digests` in
/// order.
///
/// ```
/// use neardup_core::compat::{ShortBytes, md5_each};
/// use neardup_core::{FeatureHash, Width};
///
/// let inputs: Vec<ShortBytes> = ["how ", "are ", "how "]
///     .iter()
///     .filter_map(|s| ShortBytes::new(s.as_bytes()))
///     .collect();
/// let mut digests = Vec::new();
/// md5_each(&inputs, &mut digests);
/// assert_eq!(digests[0], FeatureHash::Md5.hash(b"how ", Width::W128));
/// assert_eq!(digests[0], digests[2]);
/// ```
pub fn md5_each(inputs: &[ShortBytes], digests: &mut Vec<u128>) {
    TABLE.with_borrow_mut(|table| {
        if table.is_empty() {
            table.resize(1 << SLOTS_LOG2, EMPTY);
        }
        digests.reserve(inputs.len());
        for batch in inputs.chunks(BATCH) {
            let mut seen = [EMPTY; BATCH];
            for (seen, input) in seen.iter_mut().zip(batch) {
                *seen = table[input.slot()];
            }
            for (seen, input) in seen.iter().zip(batch) {
                let digest = if seen.key == *input {
                    seen.digest
                } else {
                    let bytes = input.bytes();
                    let digest =
                        FeatureHash::Md5.hash(&bytes[..usize::from(input.len)], Width::W128);
                    table[input.slot()] = Slot {
                        key: *input,
                        digest,
                    };
                    digest
                };
                digests.push(digest);
            }
        }
    });
}

/// Byte `j` of `SPREAD[v]` is bit `j` of `v`: eight bits counted with one
/// addition.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut v = 0;
    while v < 256 {
        let mut j = 0;
        while j < 8 {
            table[v] |= ((v as u64 >> j) & 1) << (8 * j);
            j += 1;
        }
        v += 1;
    }
    table
};

/// How many of the hashes added had each bit set: the vote of features of
/// weight 1, counted eight bits at a time in bytes of a word, which are
/// emptied into the totals before they can overflow.
///
/// ```
/// use neardup_core::compat::BitTally;
///
/// let mut tally = BitTally::new(64);
/// for hash in [0b011u128, 0b110, 0b010] {
///     tally.add(hash);
/// }
/// assert_eq!(&tally.counts()[..3], &[1, 3, 1]);
/// assert_eq!(tally.added(), 3);
/// ```
#[derive(Clone, Debug)]
pub struct BitTally {
    bytes: usize,
    lanes: [u64; 16],
    pending: u32,
    totals: [u64; 128],
    added: u64,
}

impl BitTally {
    /// A tally of the lowest `bits` bits (at most 128, a multiple of 8).
    pub fn new(bits: u32) -> BitTally {
        BitTally {
            bytes: (bits.min(128) / 8) as usize,
            lanes: [0; 16],
            pending: 0,
            totals: [0; 128],
            added: 0,
        }
    }

    /// One vote for each set bit of `hash`.
    #[inline]
    pub fn add(&mut self, hash: u128) {
        let bytes = hash.to_le_bytes();
        for (lane, &byte) in self.lanes[..self.bytes].iter_mut().zip(&bytes) {
            *lane += SPREAD[usize::from(byte)];
        }
        self.added += 1;
        self.pending += 1;
        if self.pending == u32::from(u8::MAX) {
            self.empty();
        }
    }

    fn empty(&mut self) {
        for (b, lane) in self.lanes[..self.bytes].iter_mut().enumerate() {
            for j in 0..8 {
                self.totals[8 * b + j] += (*lane >> (8 * j)) & 0xff;
            }
            *lane = 0;
        }
        self.pending = 0;
    }

    /// The votes for each bit, lowest first.
    pub fn counts(&mut self) -> &[u64] {
        self.empty();
        &self.totals[..8 * self.bytes]
    }

    /// The hashes added.
    pub fn added(&self) -> u64 {
        self.added
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn remembered_digests_are_md5s(words in prop::collection::vec("[a-c]{0,3}|[a-z\u{e9}]{0,8}", 0..300)) {
            let inputs: Vec<ShortBytes> = words.iter().filter_map(|w| ShortBytes::new(w.as_bytes())).collect();
            let mut digests = Vec::new();
            md5_each(&inputs, &mut digests);
            md5_each(&inputs, &mut digests);
            let expected: Vec<u128> = words
                .iter()
                .map(|w| FeatureHash::Md5.hash(w.as_bytes(), Width::W128))
                .collect();
            prop_assert_eq!(&digests[..words.len()], &expected[..]);
            prop_assert_eq!(&digests[words.len()..], &expected[..]);
        }

        #[test]
        fn tally_counts_each_bit(hashes in prop::collection::vec(any::<u128>(), 0..700)) {
            let mut tally = BitTally::new(128);
            for &h in &hashes {
                tally.add(h);
            }
            let counts = tally.counts().to_vec();
            for (j, &count) in counts.iter().enumerate() {
                prop_assert_eq!(count, hashes.iter().filter(|&&h| h >> j & 1 == 1).count() as u64);
            }
        }
    }

    #[test]
    fn inputs_that_differ_in_length_only_are_apart() {
        let mut digests = Vec::new();
        let inputs = [ShortBytes::new(b"a"), ShortBytes::new(b"a\0")];
        md5_each(&inputs.map(|s| s.unwrap_or(EMPTY.key)), &mut digests);
        assert_eq!(digests[0], FeatureHash::Md5.hash(b"a", Width::W128));
        assert_eq!(digests[1], FeatureHash::Md5.hash(b"a\0", Width::W128));
    }
}
