//! The SimHash fingerprint: its width, its hex form and its distance.
//!
//! A fingerprint is a 64- or 128-bit integer. Its hex form is the integer in
//! lowercase hexadecimal, zero-padded to 16 or 32 digits, most significant
//! digit first: bit 0 of the fingerprint is the last bit of the last digit.
//! This is the format written by every front of neardup and defined in
//! `docs/FINGERPRINT.md`.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// The number of bits of a fingerprint, as a value chosen at run time.
/// Code compiled for one width names it by its integer type instead
/// (`neardup_index::Bits`, implemented by `u64` and `u128`).
///
/// ```
/// use neardup_core::Width;
///
/// assert_eq!(Width::W64.bits(), 64);
/// assert_eq!(Width::from_bits(128)?, Width::W128);
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Width {
    /// 64 bits, 16 hex digits: the default, as in Manku et al.
    #[default]
    W64,
    /// 128 bits, 32 hex digits: fewer accidental collisions on huge corpora.
    W128,
}

impl Width {
    /// The number of bits, 64 or 128.
    pub fn bits(self) -> u32 {
        match self {
            Width::W64 => 64,
            Width::W128 => 128,
        }
    }

    /// The width of `bits` bits.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] unless `bits` is 64 or 128.
    pub fn from_bits(bits: u32) -> Result<Width> {
        match bits {
            64 => Ok(Width::W64),
            128 => Ok(Width::W128),
            _ => Err(Error::config(format!(
                "a fingerprint has 64 or 128 bits, not {bits}"
            ))),
        }
    }

    /// The mask that keeps the bits of this width in a `u128`.
    pub(crate) fn mask(self) -> u128 {
        match self {
            Width::W64 => u64::MAX as u128,
            Width::W128 => u128::MAX,
        }
    }
}

/// A SimHash fingerprint of 64 or 128 bits.
///
/// Two fingerprints are compared by their Hamming distance, the number of
/// bits in which they differ; near-duplicate texts have small distances.
///
/// ```
/// use neardup_core::Fingerprint;
///
/// let a: Fingerprint = "00000000000000ff".parse()?;
/// let b = Fingerprint::from_u64(0x0f);
/// assert_eq!(a.distance(&b)?, 4);
/// assert_eq!(b.to_string(), "000000000000000f");
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fingerprint {
    bits: u128,
    width: Width,
}

impl Fingerprint {
    /// A 64-bit fingerprint.
    pub fn from_u64(bits: u64) -> Fingerprint {
        Fingerprint {
            bits: bits as u128,
            width: Width::W64,
        }
    }

    /// A 128-bit fingerprint.
    pub fn from_u128(bits: u128) -> Fingerprint {
        Fingerprint {
            bits,
            width: Width::W128,
        }
    }

    /// A fingerprint of `width` from the low bits of `bits`; higher bits are
    /// ignored.
    ///
    /// ```
    /// use neardup_core::{Fingerprint, Width};
    ///
    /// let fp = Fingerprint::new(u128::MAX, Width::W64);
    /// assert_eq!(fp.as_u64(), Some(u64::MAX));
    /// ```
    pub fn new(bits: u128, width: Width) -> Fingerprint {
        Fingerprint {
            bits: bits & width.mask(),
            width,
        }
    }

    /// The width of this fingerprint.
    pub fn width(&self) -> Width {
        self.width
    }

    /// The bits as an integer (64-bit fingerprints occupy the low half).
    pub fn bits(&self) -> u128 {
        self.bits
    }

    /// The bits of a 64-bit fingerprint, or `None` for a 128-bit one.
    pub fn as_u64(&self) -> Option<u64> {
        match self.width {
            Width::W64 => Some(self.bits as u64),
            Width::W128 => None,
        }
    }

    /// Whether bit `i` is set; bit 0 is the least significant.
    ///
    /// ```
    /// use neardup_core::Fingerprint;
    ///
    /// let fp = Fingerprint::from_u64(0b100);
    /// assert!(fp.bit(2) && !fp.bit(0));
    /// ```
    pub fn bit(&self, i: u32) -> bool {
        i < self.width.bits() && (self.bits >> i) & 1 == 1
    }

    /// The Hamming distance: the number of bits in which two fingerprints
    /// differ (the popcount of their XOR).
    ///
    /// # Errors
    ///
    /// [`Error::WidthMismatch`] when the widths differ: such fingerprints
    /// come from different settings and cannot be compared.
    ///
    /// ```
    /// use neardup_core::Fingerprint;
    ///
    /// let a = Fingerprint::from_u64(0b1011101);
    /// let b = Fingerprint::from_u64(0b1001001);
    /// assert_eq!(a.distance(&b)?, 2);
    /// assert!(a.distance(&Fingerprint::from_u128(0)).is_err());
    /// # Ok::<(), neardup_core::Error>(())
    /// ```
    pub fn distance(&self, other: &Fingerprint) -> Result<u32> {
        if self.width != other.width {
            return Err(Error::WidthMismatch {
                left: self.width.bits(),
                right: other.width.bits(),
            });
        }
        Ok((self.bits ^ other.bits).count_ones())
    }

    /// The cosine similarity of the underlying feature vectors estimated
    /// from the distance `d` over `f` bits, `cos(π·d/f)` (Charikar 2002).
    ///
    /// # Errors
    ///
    /// [`Error::WidthMismatch`] as for [`Fingerprint::distance`].
    ///
    /// ```
    /// use neardup_core::Fingerprint;
    ///
    /// let a = Fingerprint::from_u64(0);
    /// assert_eq!(a.similarity(&a)?, 1.0);
    /// assert!(a.similarity(&Fingerprint::from_u64(u64::MAX))? < -0.99);
    /// # Ok::<(), neardup_core::Error>(())
    /// ```
    pub fn similarity(&self, other: &Fingerprint) -> Result<f64> {
        let d = self.distance(other)?;
        Ok(estimated_similarity(d, self.width))
    }

    /// Parses the hex form: 16 digits for 64 bits, 32 for 128 bits, either
    /// case, with an optional `0x` prefix.
    ///
    /// # Errors
    ///
    /// [`Error::ParseFingerprint`], saying what is wrong with `text`.
    pub fn from_hex(text: &str) -> Result<Fingerprint> {
        let digits = text.strip_prefix("0x").unwrap_or(text);
        let width = match digits.len() {
            16 => Width::W64,
            32 => Width::W128,
            n => {
                return Err(Error::ParseFingerprint {
                    text: text.chars().take(40).collect(),
                    reason: format!("expected 16 or 32 hex digits, found {n} characters"),
                });
            }
        };
        let bits = u128::from_str_radix(digits, 16).map_err(|_| Error::ParseFingerprint {
            text: text.to_string(),
            reason: "only the digits 0-9 and a-f may appear".to_string(),
        })?;
        if digits.starts_with('+') {
            return Err(Error::ParseFingerprint {
                text: text.to_string(),
                reason: "only the digits 0-9 and a-f may appear".to_string(),
            });
        }
        Ok(Fingerprint { bits, width })
    }

    /// The hex form: 16 or 32 lowercase digits.
    pub fn to_hex(&self) -> String {
        self.to_string()
    }
}

/// `cos(π·d/f)`: the cosine similarity that a distance of `d` bits over a
/// fingerprint of `width` estimates.
///
/// ```
/// use neardup_core::{estimated_similarity, Width};
///
/// assert!((estimated_similarity(32, Width::W64)).abs() < 1e-12);
/// ```
pub fn estimated_similarity(d: u32, width: Width) -> f64 {
    (std::f64::consts::PI * d as f64 / width.bits() as f64).cos()
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.width {
            Width::W64 => write!(f, "{:016x}", self.bits as u64),
            Width::W128 => write!(f, "{:032x}", self.bits),
        }
    }
}

impl FromStr for Fingerprint {
    type Err = Error;

    fn from_str(s: &str) -> Result<Fingerprint> {
        Fingerprint::from_hex(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trip_both_widths() {
        for fp in [
            Fingerprint::from_u64(0),
            Fingerprint::from_u64(u64::MAX),
            Fingerprint::from_u64(0x0123_4567_89ab_cdef),
            Fingerprint::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210),
        ] {
            let hex = fp.to_hex();
            assert_eq!(hex.len() as u32, fp.width().bits() / 4);
            assert_eq!(hex, hex.to_lowercase());
            assert_eq!(Fingerprint::from_hex(&hex).unwrap(), fp);
        }
    }

    #[test]
    fn parse_rejects_bad_text() {
        for bad in [
            "",
            "123",
            "0123456789abcdeg",
            "+123456789abcdef",
            "0123456789abcdef0",
        ] {
            assert!(Fingerprint::from_hex(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            Fingerprint::from_hex("0x00000000000000FF").unwrap(),
            Fingerprint::from_u64(255)
        );
    }

    #[test]
    fn distance_is_popcount_of_xor() {
        let a = Fingerprint::from_u128(u128::MAX);
        let b = Fingerprint::from_u128(0);
        assert_eq!(a.distance(&b).unwrap(), 128);
        assert!(Fingerprint::from_u64(1).distance(&a).is_err());
    }

    #[test]
    fn similarity_is_cosine_of_angle() {
        let d = 16;
        let s = estimated_similarity(d, Width::W64);
        assert!((s - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
    }
}
