//! How a store flushes, merges and plans the tables of its segments
//! ([`StoreOptions`]).

use neardup_index::TablePlan;

use crate::error::Result;
use crate::settings::StoreSettings;

/// How a store flushes, merges and plans its segments' tables:
/// [`StoreOptions::default`], or set by [`StoreOptions::builder`].
///
/// ```
/// use neardup_store::StoreOptions;
///
/// let options = StoreOptions::builder().flush_at(1000).build();
/// assert_eq!((options.flush_at(), options.merge_factor()), (1000, 4));
/// assert_eq!(options.max_bytes_per_fingerprint(), 80.0);
/// ```
///
/// Options are not recorded in the store: each segment file records the
/// plan of its own tables, so a store opened with other options reads its
/// segments as they are and writes new ones with the new options.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    pub(crate) flush_at: usize,
    pub(crate) merge_factor: usize,
    pub(crate) max_bytes_per_fingerprint: f64,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            flush_at: 1 << 16,
            merge_factor: 4,
            max_bytes_per_fingerprint: 80.0,
        }
    }
}

impl StoreOptions {
    /// The defaults, to change.
    pub fn builder() -> StoreOptionsBuilder {
        StoreOptionsBuilder {
            options: StoreOptions::default(),
        }
    }

    /// Recent documents written to a segment of their own once this many.
    pub fn flush_at(&self) -> usize {
        self.flush_at
    }

    /// Segments of about the same size merged once this many.
    pub fn merge_factor(&self) -> usize {
        self.merge_factor
    }

    /// The most bytes per fingerprint a large segment's tables take, as
    /// [`TablePlan::choose`] counts them.
    pub fn max_bytes_per_fingerprint(&self) -> f64 {
        self.max_bytes_per_fingerprint
    }
}

/// The settings of a [`StoreOptions`], set one by one; each setter says
/// its default.
#[derive(Clone, Debug)]
pub struct StoreOptionsBuilder {
    options: StoreOptions,
}

impl StoreOptionsBuilder {
    /// The options.
    pub fn build(&self) -> StoreOptions {
        self.options.clone()
    }

    /// Recent documents written to a segment of their own once this many;
    /// 65,536 by default (a segment of its own is what a query reads
    /// fastest, and a flush what a restart need not replay).
    pub fn flush_at(&mut self, documents: usize) -> &mut StoreOptionsBuilder {
        self.options.flush_at = documents;
        self
    }

    /// Segments of about the same size merged once this many; 4 by
    /// default (fewer segments to search, more rewriting).
    pub fn merge_factor(&mut self, segments: usize) -> &mut StoreOptionsBuilder {
        self.options.merge_factor = segments;
        self
    }

    /// The most bytes per fingerprint the tables of a large segment take,
    /// as [`TablePlan::choose`] counts them (the fingerprint and 4 bytes
    /// per table; a table's slots are three quarters full, so 5.3 bytes per
    /// table in the file); 80 by default. A segment takes the plan of least
    /// work per query within it (the one of fewest tables when none is);
    /// segments whose tables would take less than 4 GiB in all are not
    /// bounded, so a flush's plan, and those of most stores, are as if
    /// there were no bound. `f64::INFINITY` bounds none.
    ///
    /// For 64-bit fingerprints within k = 3, 80 holds a segment of 10⁸ to
    /// ten tables where the least work would take twenty: 61 bytes per
    /// fingerprint (the fingerprint and its tables; ids aside) instead of
    /// 115, so that 10⁸ fit a machine of 24 GB, for a query that reads
    /// about 31 places instead of 21.
    pub fn max_bytes_per_fingerprint(&mut self, bytes: f64) -> &mut StoreOptionsBuilder {
        self.options.max_bytes_per_fingerprint = bytes;
        self
    }
}

/// The plan of the recent documents' index: tables for a flush's worth.
pub(crate) fn recent_plan(settings: &StoreSettings, options: &StoreOptions) -> Result<TablePlan> {
    plan_for(settings, options, options.flush_at)
}

/// Tables that take less than this in all are not bounded per fingerprint
/// (as [`TablePlan::choose`] counts their bytes): the bound is for the
/// segments that hold most of a large store, and holding small ones to it
/// would make their queries slower for no memory that matters (10⁶
/// 128-bit fingerprints within k = 8 would get nine tables instead of 45,
/// ten times the work per query).
const UNBOUNDED_TABLE_BYTES: f64 = (1u64 << 32) as f64;

/// The plan of a segment (or an index) of `n` fingerprints: the least work
/// per query within the options' bytes per fingerprint when its tables are
/// large (the fewest tables when no plan is within them).
pub(crate) fn plan_for(
    settings: &StoreSettings,
    options: &StoreOptions,
    n: usize,
) -> Result<TablePlan> {
    let (width, k) = (settings.width, settings.k);
    let n = n.max(1) as f64;
    let choice = TablePlan::choose(width, k, n, None)?;
    let bound = options
        .max_bytes_per_fingerprint
        .max(UNBOUNDED_TABLE_BYTES / n);
    let blocks = choice
        .options
        .iter()
        .filter(|o| o.bytes_per_fingerprint <= bound)
        .min_by(|a, b| a.work.total_cmp(&b.work))
        .map_or(k + 1, |o| o.blocks);
    Ok(TablePlan::new(width, k, blocks)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_core::Width;

    fn settings(width: Width, k: u32) -> StoreSettings {
        StoreSettings::builder(k).width(width).build()
    }

    fn least_work(width: Width, k: u32, n: f64) -> TablePlan {
        TablePlan::choose(width, k, n, None)
            .and_then(|c| c.plan(width, k))
            .unwrap()
    }

    /// What `TablePlan::choose` counts for a plan.
    fn bytes(plan: &TablePlan) -> f64 {
        f64::from(plan.width().bits() / 8) + 4.0 * plan.tables() as f64
    }

    #[test]
    fn ten_to_the_eight_fingerprints_take_at_most_the_bound() {
        let (defaults, w64) = (StoreOptions::default(), settings(Width::W64, 3));
        let plan = plan_for(&w64, &defaults, 100_000_000).unwrap();
        assert_eq!((plan.tables(), bytes(&plan)), (10, 48.0));
        assert!(bytes(&plan) <= defaults.max_bytes_per_fingerprint());
        assert_eq!(least_work(Width::W64, 3, 1e8).tables(), 20);
        let tight = StoreOptions::builder()
            .max_bytes_per_fingerprint(30.0)
            .build();
        assert_eq!(plan_for(&w64, &tight, 100_000_000).unwrap().tables(), 4);
        let none = StoreOptions::builder()
            .max_bytes_per_fingerprint(f64::INFINITY)
            .build();
        assert_eq!(plan_for(&w64, &none, 100_000_000).unwrap().tables(), 20);
        // No plan within the bound: the fewest tables, not an error.
        let wide = plan_for(&settings(Width::W64, 20), &defaults, 100_000_000).unwrap();
        assert_eq!(wide.tables(), 21);
    }

    #[test]
    fn smaller_segments_take_the_least_work_as_before() {
        let defaults = StoreOptions::default();
        for (width, ks) in [(Width::W64, 0..=8), (Width::W128, 0..=8)] {
            for k in ks {
                for n in [1, 1000, 1 << 16, 1_000_000] {
                    let plan = plan_for(&settings(width, k), &defaults, n).unwrap();
                    assert_eq!(
                        plan,
                        least_work(width, k, n as f64),
                        "{width:?}, k = {k}, n = {n}"
                    );
                }
            }
        }
        // Within 4 GiB of tables: 10⁷ fingerprints of 64 bits within k = 3 or 4.
        for k in [3, 4] {
            let plan = plan_for(&settings(Width::W64, k), &defaults, 10_000_000).unwrap();
            assert_eq!(plan, least_work(Width::W64, k, 1e7));
        }
    }
}
