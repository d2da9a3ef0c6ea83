//! Judging stored texts against a new one: the [`Judge`] a caller gives,
//! and the check of one insert's candidates, their texts judged on all
//! cores when there are many.

use neardup_index::Neighbour;
use rayon::prelude::*;

use crate::write::Duplicate;

/// Decides which stored texts duplicate a new one; the store asks it about
/// each candidate (within `k` bits, or sharing a short-document key) when
/// both texts are kept.
///
/// [`Judge::against`] prepares the new text once (a verifier sketches it
/// there) and then judges stored texts one by one, so a text with many
/// candidates, as in a cluster of templated pages, is prepared once. A
/// closure `Fn(new, stored) -> Option<f64>` is a judge that prepares
/// nothing.
///
/// ```
/// use neardup_store::Judge;
///
/// let same = |a: &str, b: &str| (a == b).then_some(1.0);
/// let against = same.against("a text");
/// assert_eq!(against("a text"), Some(1.0));
/// assert_eq!(against("another"), None);
/// ```
pub trait Judge: Sync {
    /// The judge of stored texts against `new`: a stored text's similarity
    /// to it when they are duplicates, `None` when not.
    fn against<'a>(&'a self, new: &'a str) -> Against<'a>;
}

/// Stored texts judged against one new text, as [`Judge::against`] made
/// it: a stored text's similarity when it duplicates the new one, `None`
/// when not.
///
/// ```
/// use neardup_store::{Against, Judge};
///
/// let longer = |a: &str, b: &str| (b.len() > a.len()).then_some(0.5);
/// let against: Against = longer.against("abc");
/// assert_eq!((against("abcd"), against("ab")), (Some(0.5), None));
/// ```
pub type Against<'a> = Box<dyn Fn(&str) -> Option<f64> + Sync + 'a>;

impl<F: Fn(&str, &str) -> Option<f64> + Sync> Judge for F {
    fn against<'a>(&'a self, new: &'a str) -> Against<'a> {
        Box::new(move |stored| self(new, stored))
    }
}

/// Candidates checked against one new document's text, prepared by the
/// judge at the first candidate that has a text to compare with.
pub(crate) struct TextCheck<'a> {
    judge: Option<&'a dyn Judge>,
    new: Option<&'a str>,
    against: Option<Against<'a>>,
}

impl<'a> TextCheck<'a> {
    pub(crate) fn new(judge: Option<&'a dyn Judge>, new: Option<&'a str>) -> TextCheck<'a> {
        TextCheck {
            judge,
            new,
            against: None,
        }
    }

    /// Whether candidates' texts are compared (both a judge and a text).
    pub(crate) fn wants_texts(&self) -> bool {
        self.judge.is_some() && self.new.is_some()
    }

    /// The judge against the new text, made at the first call.
    fn against(&mut self) -> Option<&Against<'a>> {
        let (judge, new) = (self.judge?, self.new?);
        Some(self.against.get_or_insert_with(|| judge.against(new)))
    }

    /// The candidate as a duplicate, or `None` when the judge says it is
    /// not (only when both texts are there to judge).
    pub(crate) fn duplicate(
        &mut self,
        stored: Option<&str>,
        id: String,
        distance: u32,
    ) -> Option<Duplicate> {
        let against = match stored {
            Some(_) => self.against(),
            None => None,
        };
        judged(against, stored, id, distance)
    }

    /// The stored candidates (with their texts when kept) that are
    /// duplicates, in order. Many texts to judge are judged on all cores:
    /// the writer would otherwise judge them alone while every write waits.
    pub(crate) fn stored_duplicates(
        &mut self,
        candidates: Vec<(Neighbour<String>, Option<String>)>,
    ) -> Vec<Duplicate> {
        let texts = candidates.iter().filter(|(_, text)| text.is_some()).count();
        match texts >= PARALLEL_JUDGING {
            true => {
                let against = self.against();
                candidates
                    .into_par_iter()
                    .filter_map(|(hit, stored)| {
                        judged(against, stored.as_deref(), hit.id, hit.distance)
                    })
                    .collect()
            }
            false => candidates
                .into_iter()
                .filter_map(|(hit, stored)| self.duplicate(stored.as_deref(), hit.id, hit.distance))
                .collect(),
        }
    }
}

/// A candidate as a duplicate of a new document, or `None` when the judge
/// says it is not (only when both texts are there to judge).
fn judged(
    against: Option<&Against>,
    stored: Option<&str>,
    id: String,
    distance: u32,
) -> Option<Duplicate> {
    let similarity = match (against, stored) {
        (Some(against), Some(stored)) => Some(against(stored)?),
        _ => None,
    };
    Some(Duplicate {
        id,
        distance,
        similarity,
    })
}

/// The fewest texts to judge that are shared out among the cores; fewer
/// are judged faster than the sharing costs.
const PARALLEL_JUDGING: usize = 8;
