//! An index directory of either width, for callers that learn the width at
//! run time (from a flag, a file, a request): the width is matched once,
//! here, and fingerprints go in and out as `u128`s (the low 64 bits for
//! 64-bit fingerprints).

use std::path::Path;

use neardup_core::Width;

use crate::directory::IndexDir;
use crate::error::Result;
use crate::plan::TablePlan;
use crate::query::Match;

/// An [`IndexDir`] of 64- or 128-bit fingerprints, as its manifest says.
///
/// ```
/// use neardup_core::Width;
/// use neardup_index::{AnyIndexDir, TablePlan};
///
/// let dir = tempfile::tempdir()?;
/// let plan = TablePlan::pigeonhole(Width::W64, 3)?;
/// AnyIndexDir::create(dir.path(), plan, &[0b1011, 0xffff_ffff_0000_0000], &["a", "b"])?;
/// let mut index = AnyIndexDir::open(dir.path())?;
/// index.add(&[0b1111], &["c"])?;
/// let near: Vec<&str> = index.query(0b1010).iter().filter_map(|m| index.name(m.id)).collect();
/// assert_eq!(near, ["a", "c"]);
/// assert_eq!((index.width(), index.len(), index.plan().k()), (Width::W64, 3, 3));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub enum AnyIndexDir {
    /// 64-bit fingerprints.
    W64(IndexDir<u64>),
    /// 128-bit fingerprints.
    W128(IndexDir<u128>),
}

impl AnyIndexDir {
    /// Creates an index of `fingerprints` (of the plan's width), named
    /// `names`, in directory `path`, as [`IndexDir::create`].
    ///
    /// # Errors
    ///
    /// As [`IndexDir::create`].
    pub fn create(
        path: &Path,
        plan: TablePlan,
        fingerprints: &[u128],
        names: &[impl AsRef<str>],
    ) -> Result<()> {
        match plan.width() {
            Width::W64 => IndexDir::create(path, plan, &narrow(fingerprints), names),
            _ => IndexDir::create(path, plan, fingerprints, names),
        }
    }

    /// Opens the index in directory `path`, of the width its manifest says.
    ///
    /// # Errors
    ///
    /// As [`IndexDir::open`].
    pub fn open(path: &Path) -> Result<AnyIndexDir> {
        Ok(match IndexDir::<u64>::width(path)? {
            Width::W64 => AnyIndexDir::W64(IndexDir::open(path)?),
            _ => AnyIndexDir::W128(IndexDir::open(path)?),
        })
    }

    /// Adds `fingerprints` named `names` and writes a new generation, as
    /// [`IndexDir::add`].
    ///
    /// # Errors
    ///
    /// As [`IndexDir::add`].
    pub fn add(&mut self, fingerprints: &[u128], names: &[impl AsRef<str>]) -> Result<()> {
        match self {
            AnyIndexDir::W64(index) => index.add(&narrow(fingerprints), names),
            AnyIndexDir::W128(index) => index.add(fingerprints, names),
        }
    }

    /// The indexed fingerprints within the plan's k of `query`, as
    /// [`IndexDir::query`].
    pub fn query(&self, query: u128) -> Vec<Match> {
        match self {
            AnyIndexDir::W64(index) => index.query(query as u64),
            AnyIndexDir::W128(index) => index.query(query),
        }
    }

    /// The name of indexed fingerprint `id`.
    pub fn name(&self, id: u32) -> Option<&str> {
        match self {
            AnyIndexDir::W64(index) => index.name(id),
            AnyIndexDir::W128(index) => index.name(id),
        }
    }

    /// The width of its fingerprints.
    pub fn width(&self) -> Width {
        self.plan().width()
    }

    /// The plan of its tables.
    pub fn plan(&self) -> &TablePlan {
        match self {
            AnyIndexDir::W64(index) => index.segment().plan(),
            AnyIndexDir::W128(index) => index.segment().plan(),
        }
    }

    /// The number of fingerprints in its segment.
    pub fn len(&self) -> usize {
        match self {
            AnyIndexDir::W64(index) => index.segment().len(),
            AnyIndexDir::W128(index) => index.segment().len(),
        }
    }

    /// Whether its segment holds no fingerprint.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The size of its segment file in bytes.
    pub fn file_bytes(&self) -> usize {
        match self {
            AnyIndexDir::W64(index) => index.segment().file_bytes(),
            AnyIndexDir::W128(index) => index.segment().file_bytes(),
        }
    }
}

/// 64-bit fingerprints from their `u128` form.
fn narrow(fingerprints: &[u128]) -> Vec<u64> {
    fingerprints.iter().map(|&f| f as u64).collect()
}
