//! An online index of either width, for callers that learn the width at
//! run time (from a flag, a file, a request): the width is matched once,
//! here, and fingerprints go in and out as `u128`s (the low 64 bits for
//! 64-bit fingerprints).

use neardup_core::Width;

use crate::error::Result;
use crate::online::OnlineIndex;
use crate::plan::TablePlan;
use crate::query::Neighbour;

/// An [`OnlineIndex`] of 64- or 128-bit fingerprints, as its plan says;
/// fingerprints go in and out as `u128`s.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{AnyOnlineIndex, TablePlan};
///
/// let mut index = AnyOnlineIndex::new(TablePlan::pigeonhole(Width::W128, 3)?)?;
/// let a = index.insert(1 << 100)?;
/// let b = index.insert(0xffff)?;
/// assert_eq!(index.query_batch(&[1 << 100 | 1])[0].iter().map(|m| m.id).collect::<Vec<_>>(), [a]);
/// assert!(index.remove(b) && !index.remove(b));
/// assert_eq!((index.len(), index.get(a)), (1, Some(1 << 100)));
/// # Ok::<(), neardup_index::Error>(())
/// ```
#[derive(Debug)]
pub enum AnyOnlineIndex {
    /// 64-bit fingerprints.
    W64(OnlineIndex<u64>),
    /// 128-bit fingerprints.
    W128(OnlineIndex<u128>),
}

impl AnyOnlineIndex {
    /// An empty index of `plan`'s width and tables.
    ///
    /// # Errors
    ///
    /// As [`OnlineIndex::new`].
    pub fn new(plan: TablePlan) -> Result<AnyOnlineIndex> {
        Ok(match plan.width() {
            Width::W64 => AnyOnlineIndex::W64(OnlineIndex::new(plan)?),
            _ => AnyOnlineIndex::W128(OnlineIndex::new(plan)?),
        })
    }

    /// Adds `fingerprint` (its low 64 bits at width 64) and gives its id.
    ///
    /// # Errors
    ///
    /// As [`OnlineIndex::insert`].
    pub fn insert(&mut self, fingerprint: u128) -> Result<u32> {
        match self {
            AnyOnlineIndex::W64(index) => index.insert(fingerprint as u64),
            AnyOnlineIndex::W128(index) => index.insert(fingerprint),
        }
    }

    /// Removes fingerprint `id`; whether it was there.
    pub fn remove(&mut self, id: u32) -> bool {
        match self {
            AnyOnlineIndex::W64(index) => index.remove(id),
            AnyOnlineIndex::W128(index) => index.remove(id),
        }
    }

    /// Fingerprint `id`, if it is there.
    pub fn get(&self, id: u32) -> Option<u128> {
        match self {
            AnyOnlineIndex::W64(index) => index.get(id).map(u128::from),
            AnyOnlineIndex::W128(index) => index.get(id),
        }
    }

    /// The fingerprints within the plan's k of `query` (its low 64 bits at
    /// width 64), nearest first, as [`OnlineIndex::query`].
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_index::{AnyOnlineIndex, TablePlan};
    ///
    /// let mut index = AnyOnlineIndex::new(TablePlan::pigeonhole(Width::W64, 3)?)?;
    /// let near = index.insert(0b1011)?;
    /// index.insert(u64::MAX as u128)?;
    /// let found = index.query(0b1001);
    /// assert_eq!((found.len(), found[0].id, found[0].distance), (1, near, 1));
    /// # Ok::<(), neardup_index::Error>(())
    /// ```
    pub fn query(&self, query: u128) -> Vec<Neighbour> {
        match self {
            AnyOnlineIndex::W64(index) => index.query(query as u64),
            AnyOnlineIndex::W128(index) => index.query(query),
        }
    }

    /// For each query, the fingerprints within the plan's k, on all cores,
    /// as [`OnlineIndex::query_batch`].
    pub fn query_batch(&self, queries: &[u128]) -> Vec<Vec<Neighbour>> {
        match self {
            AnyOnlineIndex::W64(index) => index.query_batch(&narrow(queries)),
            AnyOnlineIndex::W128(index) => index.query_batch(queries),
        }
    }

    /// The plan of its tables.
    pub fn plan(&self) -> &TablePlan {
        match self {
            AnyOnlineIndex::W64(index) => index.plan(),
            AnyOnlineIndex::W128(index) => index.plan(),
        }
    }

    /// The number of fingerprints in it.
    pub fn len(&self) -> usize {
        match self {
            AnyOnlineIndex::W64(index) => index.len(),
            AnyOnlineIndex::W128(index) => index.len(),
        }
    }

    /// Whether it holds no fingerprint.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// 64-bit fingerprints from their `u128` form.
fn narrow(fingerprints: &[u128]) -> Vec<u64> {
    fingerprints.iter().map(|&f| f as u64).collect()
}
