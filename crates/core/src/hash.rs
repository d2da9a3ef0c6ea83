//! Feature hashes: each maps a feature's UTF-8 bytes to 64 or 128 bits.
//!
//! The hash is part of the fingerprint format, so every algorithm here is
//! defined by its bytes, independent of platform and release; none is Rust's
//! `std::hash::Hash`, whose output may change between compiler versions.
//!
//! | name | 64 bits | 128 bits |
//! |---|---|---|
//! | `xxh3` (default) | XXH3-64, seed 0 | XXH3-128, seed 0 |
//! | `fnv1a` | FNV-1a 64 (as Go's `hash/fnv` `New64a`) | FNV-1a 128 |
//! | `md5` | the last 8 bytes of MD5, big-endian (as PyPI `simhash`) | MD5, big-endian |
//! | `siphash` | SipHash-2-4, key 0 | SipHash-2-4-128, key 0 |

use std::fmt;
use std::hash::Hasher as _;
use std::str::FromStr;

use md5::{Digest, Md5};

use crate::error::{Error, Result};
use crate::fingerprint::Width;

/// A feature hash algorithm.
///
/// ```
/// use neardup_core::{FeatureHash, Width};
///
/// let h = FeatureHash::Fnv1a.hash(b"a", Width::W64);
/// assert_eq!(h, 0xaf63dc4c8601ec8c);
/// assert_eq!("md5".parse::<FeatureHash>()?, FeatureHash::Md5);
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FeatureHash {
    /// XXH3, the fastest; the default.
    #[default]
    Xxh3,
    /// FNV-1a, as in seed 004's Go code.
    Fnv1a,
    /// MD5, for compatibility with PyPI `simhash`.
    Md5,
    /// SipHash-2-4 with a zero key.
    SipHash,
}

const FNV64_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV64_PRIME: u64 = 0x0000_0100_0000_01b3;
const FNV128_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const FNV128_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

impl FeatureHash {
    /// Every algorithm, in the order of the table above.
    pub const ALL: [FeatureHash; 4] = [
        FeatureHash::Xxh3,
        FeatureHash::Fnv1a,
        FeatureHash::Md5,
        FeatureHash::SipHash,
    ];

    /// The name used in flags and files.
    pub fn name(self) -> &'static str {
        match self {
            FeatureHash::Xxh3 => "xxh3",
            FeatureHash::Fnv1a => "fnv1a",
            FeatureHash::Md5 => "md5",
            FeatureHash::SipHash => "siphash",
        }
    }

    /// Hashes `bytes` to `width` bits (a 64-bit hash is in the low half).
    pub fn hash(self, bytes: &[u8], width: Width) -> u128 {
        match width {
            Width::W64 => self.hash64(bytes) as u128,
            Width::W128 => self.hash128(bytes),
        }
    }

    /// Hashes `bytes` to 64 bits.
    #[inline]
    pub fn hash64(self, bytes: &[u8]) -> u64 {
        match self {
            FeatureHash::Xxh3 => xxhash_rust::xxh3::xxh3_64(bytes),
            FeatureHash::Fnv1a => bytes.iter().fold(FNV64_OFFSET, |h, &b| {
                (h ^ b as u64).wrapping_mul(FNV64_PRIME)
            }),
            FeatureHash::Md5 => {
                let digest = Md5::digest(bytes);
                let mut tail = [0u8; 8];
                tail.copy_from_slice(&digest[8..16]);
                u64::from_be_bytes(tail)
            }
            FeatureHash::SipHash => {
                let mut h = siphasher::sip::SipHasher24::new_with_keys(0, 0);
                h.write(bytes);
                h.finish()
            }
        }
    }

    /// Hashes `bytes` to 128 bits.
    pub fn hash128(self, bytes: &[u8]) -> u128 {
        match self {
            FeatureHash::Xxh3 => xxhash_rust::xxh3::xxh3_128(bytes),
            FeatureHash::Fnv1a => bytes.iter().fold(FNV128_OFFSET, |h, &b| {
                (h ^ b as u128).wrapping_mul(FNV128_PRIME)
            }),
            FeatureHash::Md5 => {
                let digest = Md5::digest(bytes);
                let mut all = [0u8; 16];
                all.copy_from_slice(&digest);
                u128::from_be_bytes(all)
            }
            FeatureHash::SipHash => {
                let mut h = siphasher::sip128::SipHasher24::new_with_keys(0, 0);
                h.write(bytes);
                siphasher::sip128::Hasher128::finish128(&h).as_u128()
            }
        }
    }
}

impl fmt::Display for FeatureHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for FeatureHash {
    type Err = Error;

    fn from_str(s: &str) -> Result<FeatureHash> {
        FeatureHash::ALL
            .into_iter()
            .find(|h| h.name() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "unknown feature hash {s:?}; choose one of xxh3, fnv1a, md5, siphash"
                ))
            })
    }
}

/// Builds hashers for maps keyed by feature text: one XXH3 call over the
/// bytes instead of a streaming hash.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TextKeyBuild;

/// See [`TextKeyBuild`].
#[derive(Default)]
pub(crate) struct TextKeyHasher(u64);

impl std::hash::BuildHasher for TextKeyBuild {
    type Hasher = TextKeyHasher;
    fn build_hasher(&self) -> TextKeyHasher {
        TextKeyHasher(0)
    }
}

impl std::hash::Hasher for TextKeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = self.0.rotate_left(5) ^ xxhash_rust::xxh3::xxh3_64(bytes);
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = self.0.rotate_left(5) ^ n as u64;
    }
}

/// Builds hashers for maps keyed by feature hashes, which are uniformly
/// distributed already and need no further hashing.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct IdentityBuild;

/// See [`IdentityBuild`].
#[derive(Default)]
pub(crate) struct IdentityHasher(u64);

impl std::hash::BuildHasher for IdentityBuild {
    type Hasher = IdentityHasher;
    fn build_hasher(&self) -> IdentityHasher {
        IdentityHasher(0)
    }
}

impl std::hash::Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 ^= u64::from_le_bytes(word);
        }
    }
    fn write_u128(&mut self, n: u128) {
        self.0 = (n as u64) ^ ((n >> 64) as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published test vectors, so that a wrong dependency or a typo in a
    /// constant cannot pass unnoticed.
    #[test]
    fn known_vectors() {
        // FNV-1a, from the reference (isthe.com/chongo/tech/comp/fnv).
        assert_eq!(FeatureHash::Fnv1a.hash64(b""), 0xcbf29ce484222325);
        assert_eq!(FeatureHash::Fnv1a.hash64(b"foobar"), 0x85944171f73967e8);
        assert_eq!(
            FeatureHash::Fnv1a.hash128(b""),
            0x6c62272e07bb014262b821756295c58d
        );
        // MD5("") = d41d8cd98f00b204e9800998ecf8427e (RFC 1321).
        assert_eq!(
            FeatureHash::Md5.hash128(b""),
            0xd41d8cd98f00b204e9800998ecf8427e
        );
        assert_eq!(FeatureHash::Md5.hash64(b""), 0xe9800998ecf8427e);
        // XXH3-64 of the empty input with seed 0 (xxHash's own test suite).
        assert_eq!(FeatureHash::Xxh3.hash64(b""), 0x2d06800538d394c2);
        // SipHash-2-4 of the empty input under the reference key 00..0f
        // (Aumasson and Bernstein's paper, appendix A), to check the crate.
        let mut h =
            siphasher::sip::SipHasher24::new_with_keys(0x0706050403020100, 0x0f0e0d0c0b0a0908);
        h.write(b"");
        assert_eq!(h.finish(), 0x726fdb47dd0e0e31);
    }

    #[test]
    fn names_round_trip() {
        for h in FeatureHash::ALL {
            assert_eq!(h.name().parse::<FeatureHash>().unwrap(), h);
        }
        assert!("sha1".parse::<FeatureHash>().is_err());
    }
}
