//! Why a document was dropped: how its pair was found, and the similarity
//! that decided it, kept in 4 bytes per document for the outputs
//! (`duplicates.jsonl`, the report, the annotated records).

use crate::greedy::{pack_similarity, unpack_similarity};
use crate::rule::FoundBy;

/// How a dropped document's pair was found, and its similarity.
///
/// ```
/// use neardup_dedup::{Dedup, FoundBy, Memory, Silent};
///
/// let texts = ["the river rose in the night and the town woke to water in every street",
///              "the river rose in the night and the town woke to water in every lane",
///              "the river rose in the night and the town woke to water in every street"];
/// let outcome = Dedup::new()?.run(&Memory::new(&texts[..]), &Silent)?;
/// let why = outcome.why(1).unwrap();
/// assert_eq!(why.found_by, FoundBy::ShortDocuments);
/// assert!(why.similarity.is_some_and(|s| s >= 0.8));
/// assert_eq!(outcome.why(2).map(|w| w.found_by), Some(FoundBy::ExactCopy));
/// assert_eq!(outcome.why(0), None);
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Why {
    /// How the pair was found.
    pub found_by: FoundBy,
    /// The verification's measure of the pair (the Jaccard similarity of
    /// their shingles by default), to four decimals; `None` when pairs are
    /// not verified, or for components (a document joins its group by a
    /// chain of pairs).
    pub similarity: Option<f32>,
}

impl Why {
    /// In 32 bits: the path in bits 16–17 (0: none), the similarity in the
    /// low 16 ([`pack_similarity`], as grouping keeps it).
    pub(crate) fn pack(why: Option<Why>) -> u32 {
        let Some(why) = why else { return 0 };
        let path = match why.found_by {
            FoundBy::ExactCopy => 1,
            FoundBy::Fingerprint => 2,
            FoundBy::ShortDocuments => 3,
        };
        let similarity = why.similarity.map_or(0, pack_similarity);
        path << 16 | u32::from(similarity)
    }

    /// What [`Why::pack`] packed.
    pub(crate) fn unpack(packed: u32) -> Option<Why> {
        let found_by = match packed >> 16 & 3 {
            1 => FoundBy::ExactCopy,
            2 => FoundBy::Fingerprint,
            3 => FoundBy::ShortDocuments,
            _ => return None,
        };
        Some(Why {
            found_by,
            similarity: unpack_similarity((packed & 0xFFFF) as u16),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_and_unpacks() {
        for found_by in [
            FoundBy::ExactCopy,
            FoundBy::Fingerprint,
            FoundBy::ShortDocuments,
        ] {
            for similarity in [None, Some(0.0), Some(0.8), Some(1.0)] {
                let why = Why {
                    found_by,
                    similarity,
                };
                let back = Why::unpack(Why::pack(Some(why))).unwrap();
                assert_eq!(back.found_by, found_by);
                match (similarity, back.similarity) {
                    (None, None) => {}
                    (Some(a), Some(b)) => assert!((a - b).abs() < 1e-4, "{a} {b}"),
                    other => panic!("{other:?}"),
                }
            }
        }
        assert_eq!(Why::unpack(Why::pack(None)), None);
    }
}
