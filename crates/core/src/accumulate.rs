//! The SimHash step itself: weighted votes per bit, and the sign of each sum.
//!
//! Every feature hash votes on every bit of the fingerprint: `+w` where its
//! hash has a 1, `−w` where it has a 0. Bit `j` of the fingerprint is 1 when
//! the sum of the votes on bit `j` is strictly positive; a sum of exactly 0
//! gives 0 (the tie rule of the seeds). Bit `j` of the fingerprint is voted
//! on by bit `j` of each hash, so a hash written `100101` votes `+ − − + − +`
//! from the most significant bit down, as in the seeds' worked examples.
//!
//! [`Accumulator`] takes any weights and any width up to 128 bits.
//! [`UnitCounter`] is the fast path for the common case of weight 1 per
//! occurrence (term-frequency weighting): it counts set bits in bit-sliced
//! counters, 64 bits per addition, and gives the same bits as the
//! accumulator fed with the term frequencies.

use crate::error::{Error, Result};
use crate::fingerprint::{Fingerprint, Width};

/// For each nibble of a hash, the masks that flip the sign of a weight for
/// its four bits: the sign bit where the hash bit is 0.
const SIGN_MASKS: [[u64; 4]; 16] = {
    let mut table = [[0; 4]; 16];
    let mut nibble = 0;
    while nibble < 16 {
        let mut bit = 0;
        while bit < 4 {
            if nibble >> bit & 1 == 0 {
                table[nibble][bit] = 1 << 63;
            }
            bit += 1;
        }
        nibble += 1;
    }
    table
};

/// Sums of weighted bit votes, from which a fingerprint is read.
///
/// ```
/// use neardup_core::Accumulator;
///
/// // Seed 004: two 8-bit keyword hashes with weights 45.11 and 32.09.
/// let mut acc = Accumulator::new(8)?;
/// acc.add(0b0101_1001, 45.11);
/// acc.add(0b1100_1011, 32.09);
/// assert_eq!(acc.value(), 0b0101_1001);
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Accumulator {
    sums: [f64; 128],
    bits: u32,
}

impl Accumulator {
    /// An accumulator for fingerprints of `bits` bits, 1 to 128 (widths other
    /// than 64 and 128 serve worked examples and experiments).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `bits` is 0 or more than 128.
    pub fn new(bits: u32) -> Result<Accumulator> {
        if bits == 0 || bits > 128 {
            return Err(Error::config(format!(
                "an accumulator has 1 to 128 bits, not {bits}"
            )));
        }
        Ok(Accumulator {
            sums: [0.0; 128],
            bits,
        })
    }

    /// An accumulator for fingerprints of `width`.
    pub fn with_width(width: Width) -> Accumulator {
        Accumulator {
            sums: [0.0; 128],
            bits: width.bits(),
        }
    }

    /// The number of bits.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// Adds the votes of one feature: `+weight` on each bit where `hash` has
    /// a 1, `−weight` where it has a 0. Bits of `hash` above the width are
    /// ignored.
    #[inline]
    pub fn add(&mut self, hash: u128, weight: f64) {
        // −weight is weight with its sign bit flipped, so a nibble of the
        // hash picks four sign masks from a table and four sums take their
        // vote without a branch or a multiplication; the sums are the same
        // as adding ±1 × weight.
        let weight = weight.to_bits();
        let whole = self.bits as usize / 4;
        for (k, sums) in self.sums.chunks_exact_mut(4).take(whole).enumerate() {
            let masks = &SIGN_MASKS[(hash >> (4 * k)) as usize & 0xf];
            for (sum, mask) in sums.iter_mut().zip(masks) {
                *sum += f64::from_bits(weight ^ mask);
            }
        }
        for j in 4 * whole..self.bits as usize {
            let mask = SIGN_MASKS[(hash >> j) as usize & 1][0];
            self.sums[j] += f64::from_bits(weight ^ mask);
        }
    }

    /// The sums, bit 0 (least significant) first.
    pub fn sums(&self) -> &[f64] {
        &self.sums[..self.bits as usize]
    }

    /// The fingerprint's bits: bit `j` is 1 where sum `j` is strictly
    /// positive.
    pub fn value(&self) -> u128 {
        self.sums()
            .iter()
            .enumerate()
            .filter(|(_, s)| **s > 0.0)
            .fold(0u128, |v, (j, _)| v | 1 << j)
    }

    /// The fingerprint.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] unless the accumulator has 64 or 128 bits.
    pub fn fingerprint(&self) -> Result<Fingerprint> {
        Ok(Fingerprint::new(self.value(), Width::from_bits(self.bits)?))
    }
}

/// Planes of the bit-sliced counters: counts up to 4095 between flushes.
const PLANES: usize = 12;

/// Hashes added at a time by the carry-save adders.
const BATCH: usize = 16;

/// Flush once this many additions wait in the planes, so that the last
/// batch and the odd hashes added at the end stay below 4096.
const FLUSH_AT: u32 = (1 << PLANES) - 2 * BATCH as u32;

/// Counts, per bit, how many of the added hashes have that bit set; every
/// addition weighs 1. This is term-frequency SimHash computed without a
/// table of terms: adding each occurrence once is adding each term with its
/// frequency as weight.
///
/// The counts are bit-sliced: plane `p` holds bit `p` of all 64 counters.
/// Hashes are buffered and added sixteen at a time by a tree of carry-save
/// adders (as in Harley and Seal's population count), which costs about
/// five word operations per hash; the carries out of the lowest four planes
/// ripple into the others, and every few thousand additions the planes are
/// flushed into 32-bit counters. Its votes are [`Accumulator`]'s at
/// weight 1 (tests::unit_counter_equals_accumulator_past_lane_flushes).
#[derive(Clone, Debug)]
pub(crate) struct UnitCounter {
    /// Planes of the low and the high 64 bits.
    planes: [[u64; PLANES]; 2],
    /// Hashes not added yet, low and high halves.
    batch: [[u64; BATCH]; 2],
    batched: usize,
    counts: [u32; 128],
    /// Additions in the planes since the last flush.
    unflushed: u32,
    total: u64,
    width: Width,
}

/// A full adder on 64 lanes: the sum and carry bits of `a + b + c`.
#[inline(always)]
fn carry_save(a: u64, b: u64, c: u64) -> (u64, u64) {
    let u = a ^ b;
    (u ^ c, (a & b) | (u & c))
}

/// Adds `carry` to the bit-sliced counters in `planes`.
#[inline(always)]
fn ripple(planes: &mut [u64], mut carry: u64) {
    for plane in planes.iter_mut() {
        let next = *plane & carry;
        *plane ^= carry;
        carry = next;
        if carry == 0 {
            return;
        }
    }
}

/// The lanes whose bit-sliced count in `planes` is at least `threshold`:
/// a comparison from the most significant plane down, all lanes at once.
fn at_least(planes: &[u64; PLANES], threshold: u64) -> u64 {
    if threshold >= 1 << PLANES {
        return 0;
    }
    // Lanes greater than the threshold in the planes seen so far, and lanes
    // equal to it.
    let (mut greater, mut equal) = (0u64, u64::MAX);
    for (p, &plane) in planes.iter().enumerate().rev() {
        if threshold >> p & 1 == 1 {
            equal &= plane;
        } else {
            greater |= equal & plane;
            equal &= !plane;
        }
    }
    greater | equal
}

/// Adds sixteen hashes to `planes`: the lowest four planes go through the
/// adder tree, which leaves one word of carries worth 16 each.
#[inline(always)]
fn add_sixteen(planes: &mut [u64; PLANES], h: &[u64; BATCH]) {
    let [ones, twos, fours, eights] = [planes[0], planes[1], planes[2], planes[3]];
    let (ones, twos_a) = carry_save(ones, h[0], h[1]);
    let (ones, twos_b) = carry_save(ones, h[2], h[3]);
    let (twos, fours_a) = carry_save(twos, twos_a, twos_b);
    let (ones, twos_a) = carry_save(ones, h[4], h[5]);
    let (ones, twos_b) = carry_save(ones, h[6], h[7]);
    let (twos, fours_b) = carry_save(twos, twos_a, twos_b);
    let (fours, eights_a) = carry_save(fours, fours_a, fours_b);
    let (ones, twos_a) = carry_save(ones, h[8], h[9]);
    let (ones, twos_b) = carry_save(ones, h[10], h[11]);
    let (twos, fours_a) = carry_save(twos, twos_a, twos_b);
    let (ones, twos_a) = carry_save(ones, h[12], h[13]);
    let (ones, twos_b) = carry_save(ones, h[14], h[15]);
    let (twos, fours_b) = carry_save(twos, twos_a, twos_b);
    let (fours, eights_b) = carry_save(fours, fours_a, fours_b);
    let (eights, sixteens) = carry_save(eights, eights_a, eights_b);
    planes[..4].copy_from_slice(&[ones, twos, fours, eights]);
    ripple(&mut planes[4..], sixteens);
}

impl UnitCounter {
    /// A counter for fingerprints of `width`.
    pub fn new(width: Width) -> UnitCounter {
        UnitCounter {
            planes: [[0; PLANES]; 2],
            batch: [[0; BATCH]; 2],
            batched: 0,
            counts: [0; 128],
            unflushed: 0,
            total: 0,
            width,
        }
    }

    /// The number of hashes added.
    pub fn total(&self) -> u64 {
        self.total + self.batched as u64
    }

    /// Adds a 64-bit hash (for 64-bit fingerprints).
    #[inline]
    pub fn add64(&mut self, hash: u64) {
        self.add128(u128::from(hash));
    }

    /// Adds a 128-bit hash (for 128-bit fingerprints; for a 64-bit counter
    /// only the low half counts).
    #[inline]
    pub fn add128(&mut self, hash: u128) {
        let slot = self.batched % BATCH;
        self.batch[0][slot] = hash as u64;
        self.batch[1][slot] = (hash >> 64) as u64;
        self.batched = slot + 1;
        if self.batched == BATCH {
            self.add_batch();
        }
    }

    fn add_batch(&mut self) {
        add_sixteen(&mut self.planes[0], &self.batch[0]);
        if self.width == Width::W128 {
            add_sixteen(&mut self.planes[1], &self.batch[1]);
        }
        self.batched = 0;
        self.total += BATCH as u64;
        self.unflushed += BATCH as u32;
        if self.unflushed >= FLUSH_AT {
            self.flush();
        }
    }

    fn flush(&mut self) {
        for (half, planes) in self.planes.iter_mut().enumerate() {
            for (p, plane) in planes.iter_mut().enumerate() {
                let mut bits = *plane;
                while bits != 0 {
                    let j = bits.trailing_zeros() as usize;
                    self.counts[64 * half + j] += 1 << p;
                    bits &= bits - 1;
                }
                *plane = 0;
            }
        }
        self.unflushed = 0;
    }

    /// The fingerprint's bits: bit `j` is 1 where more than half of the
    /// added hashes have bit `j` set (a positive sum of ±1 votes).
    pub fn value(&self) -> u128 {
        let total = self.total();
        // Bit j is 1 when its count is at least half the total plus one.
        let threshold = total / 2 + 1;
        let halves = if self.width == Width::W128 { 2 } else { 1 };
        let mut value = 0u128;
        for half in 0..halves {
            let mut planes = self.planes[half];
            for &hash in &self.batch[half][..self.batched] {
                ripple(&mut planes, hash);
            }
            let bits = if u64::from(self.unflushed) == self.total {
                // Nothing flushed: every count is in the planes.
                at_least(&planes, threshold)
            } else {
                let mut counts = [0u64; 64];
                for (j, count) in counts.iter_mut().enumerate() {
                    *count = u64::from(self.counts[64 * half + j]);
                    for (p, plane) in planes.iter().enumerate() {
                        *count += ((plane >> j) & 1) << p;
                    }
                }
                (0..64)
                    .filter(|&j| counts[j] >= threshold)
                    .fold(0u64, |v, j| v | 1 << j)
            };
            value |= u128::from(bits) << (64 * half);
        }
        value
    }

    /// The fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint::new(self.value(), self.width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit strings of the seeds are written most significant bit first.
    fn bits(s: &str) -> u128 {
        u128::from_str_radix(s, 2).unwrap()
    }

    fn sums_msb_first(acc: &Accumulator) -> Vec<f64> {
        acc.sums().iter().rev().copied().collect()
    }

    /// Seed 001 §1.1: five keywords with weights 5, 2, 3, 1, 4 on six bits.
    #[test]
    fn seed_001_six_bit_example() {
        let mut acc = Accumulator::new(6).unwrap();
        for (hash, w) in [
            ("100101", 5.0), // 美国
            ("101011", 2.0), // 51区
            ("100111", 3.0), // 飞碟
            ("101111", 1.0), // 灰色
            ("111011", 4.0), // 外星人
        ] {
            acc.add(bits(hash), w);
        }
        assert_eq!(sums_msb_first(&acc), [15.0, -7.0, -1.0, 3.0, 5.0, 15.0]);
        assert_eq!(acc.value(), bits("100111"));
    }

    /// Seed 000: CSDN (100101, weight 4) and 博客 (101011, weight 5).
    #[test]
    fn seed_000_two_weighted_words() {
        let mut acc = Accumulator::new(6).unwrap();
        acc.add(bits("100101"), 4.0);
        acc.add(bits("101011"), 5.0);
        assert_eq!(sums_msb_first(&acc), [9.0, -9.0, 1.0, -1.0, 1.0, 9.0]);
        assert_eq!(acc.value(), bits("101011"));
    }

    /// Seed 004: 上海 (01011001, 45.11) and 北京 (11001011, 32.09).
    #[test]
    fn seed_004_two_weighted_keywords() {
        let mut acc = Accumulator::new(8).unwrap();
        acc.add(bits("01011001"), 45.11);
        acc.add(bits("11001011"), 32.09);
        let expected = [-13.02, 77.20, -77.20, 13.02, 77.20, -77.20, -13.02, 77.20];
        for (got, want) in sums_msb_first(&acc).iter().zip(expected) {
            assert!((got - want).abs() < 1e-9, "{got} vs {want}");
        }
        assert_eq!(acc.value(), bits("01011001"));
    }

    #[test]
    fn a_zero_sum_gives_bit_zero() {
        let mut acc = Accumulator::new(2).unwrap();
        acc.add(bits("10"), 1.0);
        acc.add(bits("01"), 1.0);
        assert_eq!(acc.sums(), [0.0, 0.0]);
        assert_eq!(acc.value(), 0);
    }

    #[test]
    fn sums_are_the_signed_weights_added_in_order() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for bits in [1, 3, 6, 8, 63, 64, 65, 127, 128] {
            let mut acc = Accumulator::new(bits).unwrap();
            let mut model = vec![0.0f64; bits as usize];
            for _ in 0..200 {
                let hash = u128::from(next()) << 64 | u128::from(next());
                let weight = match next() % 4 {
                    0 => 0.0,
                    1 => -((next() % 1000) as f64) / 7.0,
                    _ => f64::from_bits(next() >> 2) % 1e6,
                };
                acc.add(hash, weight);
                for (j, sum) in model.iter_mut().enumerate() {
                    let sign = ((hash >> j) & 1) as f64 * 2.0 - 1.0;
                    *sum += sign * weight;
                }
            }
            let same = acc
                .sums()
                .iter()
                .zip(&model)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "{bits} bits");
        }
    }

    #[test]
    fn widths_are_checked() {
        assert!(Accumulator::new(0).is_err());
        assert!(Accumulator::new(129).is_err());
        assert!(Accumulator::new(6).unwrap().fingerprint().is_err());
    }

    #[test]
    fn unit_counter_equals_accumulator_past_lane_flushes() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for width in [Width::W64, Width::W128] {
            let mut counter = UnitCounter::new(width);
            let mut acc = Accumulator::with_width(width);
            for i in 0..10_000u32 {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // A few repeated hashes, so some bits are decided by one vote.
                let h = if i % 7 == 0 {
                    0xffff_0000_ffff_0000
                } else {
                    state
                };
                let wide = (h as u128) << 64 | h.rotate_left(17) as u128;
                match width {
                    Width::W64 => counter.add64(h),
                    Width::W128 => counter.add128(wide),
                }
                acc.add(if width == Width::W64 { h as u128 } else { wide }, 1.0);
                if i < 100 || (4_000..4_200).contains(&i) || i % 97 == 0 || i > 9_900 {
                    assert_eq!(counter.value(), acc.value(), "after {i} additions");
                }
            }
        }
    }
}
