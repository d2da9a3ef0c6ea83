//! Fingerprints as plain integers: 64 bits in a `u64`, 128 in a `u128`, so
//! that an index holds exactly the bytes a fingerprint needs.

use neardup_core::Width;

/// The bits of a fingerprint, as the index stores them: the integer type
/// (`u64` or `u128`) that code generic over the width is compiled for.
/// [`Width`] is the same choice as a value, known at run time (from a
/// flag, a file); each type's [`Bits::WIDTH`] links the two, and
/// [`AnyOnlineIndex`](crate::AnyOnlineIndex) goes from the value to the
/// type.
///
/// ```
/// use neardup_index::Bits;
///
/// assert_eq!(0b1011u64.distance(0b0010), 2);
/// assert_eq!(0xabcdu64.field(4, 8), 0xbc);
/// assert_eq!((1u128 << 100).field(96, 8), 0x10);
/// ```
pub trait Bits: bytemuck::Pod + Send + Sync + Eq + Ord + std::fmt::Debug + 'static {
    /// The width of the fingerprints.
    const WIDTH: Width;

    /// The Hamming distance: the number of bits that differ.
    fn distance(self, other: Self) -> u32;

    /// `len` bits (at most 64) starting at bit `offset` (bit 0 is the least
    /// significant), as the low bits of a `u64`.
    fn field(self, offset: u32, len: u32) -> u64;

    /// The bits as a `u128`.
    fn to_u128(self) -> u128;

    /// The low bits of `bits`, as many as the width holds.
    fn from_u128(bits: u128) -> Self;

    /// The bits set in both.
    fn and(self, other: Self) -> Self;
}

impl Bits for u64 {
    const WIDTH: Width = Width::W64;

    #[inline(always)]
    fn distance(self, other: u64) -> u32 {
        (self ^ other).count_ones()
    }

    #[inline(always)]
    fn field(self, offset: u32, len: u32) -> u64 {
        let shifted = self.checked_shr(offset).unwrap_or(0);
        shifted & low_mask(len)
    }

    fn to_u128(self) -> u128 {
        u128::from(self)
    }

    fn from_u128(bits: u128) -> u64 {
        bits as u64
    }

    #[inline(always)]
    fn and(self, other: u64) -> u64 {
        self & other
    }
}

impl Bits for u128 {
    const WIDTH: Width = Width::W128;

    #[inline(always)]
    fn distance(self, other: u128) -> u32 {
        (self ^ other).count_ones()
    }

    #[inline(always)]
    fn field(self, offset: u32, len: u32) -> u64 {
        let shifted = self.checked_shr(offset).unwrap_or(0);
        (shifted as u64) & low_mask(len)
    }

    fn to_u128(self) -> u128 {
        self
    }

    fn from_u128(bits: u128) -> u128 {
        bits
    }

    #[inline(always)]
    fn and(self, other: u128) -> u128 {
        self & other
    }
}

/// A mask of the low `len` bits, all 64 for `len >= 64`.
#[inline(always)]
fn low_mask(len: u32) -> u64 {
    1u64.checked_shl(len).map_or(u64::MAX, |b| b - 1)
}
