//! A filter of a segment's names: it answers "is this name surely not
//! here?" without reading the names, so that a store asked whether an id
//! is new reads its documents file only for the few ids a filter cannot
//! rule out.
//!
//! It is a split block Bloom filter: blocks of 512 bits (one cache line,
//! eight 64-bit words); a name picks one block and sets one bit in each of
//! its eight words. A lookup reads that one block. At
//! [`BITS_PER_NAME`] = 20 bits (2.5 bytes) a name, about 1 in 3,800 names
//! not in the segment passes (0.026%, by the model of the test below);
//! none that is in it fails.
//!
//! Which block and which bits come from the name's XXH3-128 ([`NameHash`]):
//! the low 64 bits pick the block (scaled to the number of blocks, not
//! reduced modulo it), the high 64 bits give six bits per word. The
//! xxhash-rust crate is pinned, so a filter written by one build is read
//! by the next (the golden segment pins it).

use xxhash_rust::xxh3::xxh3_128;

/// Bits of filter per name: a segment of `n` names has
/// `ceil(n × 20 / 512)` blocks (at least one).
pub const BITS_PER_NAME: usize = 20;

/// Words in a block: one bit set in each per name.
const WORDS: usize = 8;

/// A block: one cache line.
pub(crate) type Block = [u64; WORDS];

/// A name's hash, as the filters of every segment read it: hashed once,
/// looked up in each.
///
/// ```
/// use neardup_index::NameHash;
///
/// assert_eq!(NameHash::of("page-1"), NameHash::of("page-1"));
/// assert_ne!(NameHash::of("page-1"), NameHash::of("page-2"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NameHash {
    block: u64,
    bits: u64,
}

impl NameHash {
    /// The hash of `name`'s UTF-8 bytes.
    pub fn of(name: &str) -> NameHash {
        let h = xxh3_128(name.as_bytes());
        NameHash {
            block: h as u64,
            bits: (h >> 64) as u64,
        }
    }

    /// 64 bits of it, for a set of hashes in memory.
    pub fn short(&self) -> u64 {
        self.block
    }

    /// Its first slot in a table of names of `slots` slots (at least
    /// one), picked by the bits the filter takes its words' bits from.
    pub(crate) fn slot_of(&self, slots: usize) -> usize {
        ((u128::from(self.bits) * slots as u128) >> 64) as usize
    }

    /// Its block among `blocks` (at least one).
    fn block_of(&self, blocks: usize) -> usize {
        ((u128::from(self.block) * blocks as u128) >> 64) as usize
    }

    /// The bit it sets in word `w`.
    fn bit(&self, w: usize) -> u64 {
        1 << ((self.bits >> (6 * w)) & 63)
    }
}

/// The number of blocks of the filter of `names` names.
pub(crate) fn blocks_for(names: usize) -> usize {
    (names * BITS_PER_NAME).div_ceil(WORDS * 64).max(1)
}

/// A filter being built, one name at a time.
pub(crate) struct NameFilterBuilder {
    blocks: Vec<Block>,
}

impl NameFilterBuilder {
    /// An empty filter sized for `names` names.
    pub(crate) fn new(names: usize) -> NameFilterBuilder {
        NameFilterBuilder {
            blocks: vec![[0; WORDS]; blocks_for(names)],
        }
    }

    /// Adds the name of `hash`.
    pub(crate) fn insert(&mut self, hash: &NameHash) {
        let at = hash.block_of(self.blocks.len());
        for (w, word) in self.blocks[at].iter_mut().enumerate() {
            *word |= hash.bit(w);
        }
    }

    /// Its bytes, as a segment stores them: each word in the machine's
    /// byte order, as the fingerprints are (little-endian on the x86-64
    /// and aarch64 machines neardup is built for).
    pub(crate) fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.blocks)
    }
}

/// Whether the filter `blocks` may hold the name of `hash`: `false` only
/// when it surely does not. An empty filter may hold anything.
pub(crate) fn may_contain(blocks: &[Block], hash: &NameHash) -> bool {
    if blocks.is_empty() {
        return true;
    }
    let block = &blocks[hash.block_of(blocks.len())];
    block
        .iter()
        .enumerate()
        .all(|(w, word)| word & hash.bit(w) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter_of(names: impl Iterator<Item = String>, n: usize) -> Vec<Block> {
        let mut builder = NameFilterBuilder::new(n);
        for name in names {
            builder.insert(&NameHash::of(&name));
        }
        builder.blocks
    }

    #[test]
    fn every_name_put_in_is_found() {
        let blocks = filter_of((0..10_000).map(|i| format!("d{i}")), 10_000);
        for i in 0..10_000 {
            assert!(
                may_contain(&blocks, &NameHash::of(&format!("d{i}"))),
                "d{i}"
            );
        }
    }

    /// The false positive rate the module's doc states, by the model of a
    /// split block filter (keys per block Poisson, one bit of 64 per word),
    /// and as measured on names not put in.
    #[test]
    fn names_not_put_in_pass_at_the_rate_the_model_gives() {
        let lambda = (WORDS * 64) as f64 / BITS_PER_NAME as f64;
        let (mut model, mut p) = (0.0, (-lambda).exp());
        for j in 0..400 {
            if j > 0 {
                p *= lambda / j as f64;
            }
            model += p * (1.0 - (1.0 - 1.0 / 64.0f64).powi(j)).powi(WORDS as i32);
        }
        assert!((0.00025..0.00027).contains(&model), "{model}");
        let n = 200_000;
        let blocks = filter_of((0..n).map(|i| format!("https://example.org/{i}")), n);
        let tried = 2_000_000;
        let passed = (0..tried)
            .filter(|i| may_contain(&blocks, &NameHash::of(&format!("https://example.com/{i}"))))
            .count();
        let rate = passed as f64 / tried as f64;
        // 520 expected; well within three standard deviations (±69).
        assert!(
            rate < model * 1.4 && rate > model * 0.6,
            "{rate} vs {model}"
        );
    }

    #[test]
    fn an_empty_filter_rules_nothing_out_and_an_empty_segment_has_one_block() {
        assert!(may_contain(&[], &NameHash::of("x")));
        assert_eq!(blocks_for(0), 1);
        assert!(!may_contain(
            &filter_of(std::iter::empty(), 0),
            &NameHash::of("x")
        ));
    }
}
