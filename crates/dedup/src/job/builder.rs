//! [`DedupBuilder`]: a job's settings, checked once, when the job is
//! built.

use std::path::PathBuf;

use neardup_core::Fingerprinter;
use neardup_index::TablePlan;

use super::{Dedup, Grouping};
use crate::error::{Error, Result};
use crate::greedy::{KEPT_BYTES_LEAST, kept_plan};
use crate::keep::Keep;
use crate::rule::Rule;
use crate::verify::Verification;

/// The settings of a [`Dedup`] job, set one by one and checked together by
/// [`DedupBuilder::build`]. Each setter says its default.
///
/// ```
/// use neardup_dedup::{Dedup, Grouping, Keep, Verification};
///
/// let mut builder = Dedup::builder()?;
/// builder
///     .k(8)
///     .verification(Some(Verification::Jaccard(0.8)))
///     .keep(Keep::Longest)
///     .grouping(Grouping::Components);
/// assert!(builder.build()?.short_rule_holds());
/// builder.verification(None);
/// assert!(!builder.build()?.short_rule_holds());
/// assert!(builder.k(64).build().is_err(), "no 64-bit fingerprints differ in 64 bits or more");
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct DedupBuilder {
    job: Dedup,
}

impl DedupBuilder {
    /// The defaults of [`Dedup::new`].
    ///
    /// # Errors
    ///
    /// As [`Fingerprinter::new`].
    pub fn new() -> Result<DedupBuilder> {
        Ok(DedupBuilder::with_rule(Rule::new()?))
    }

    /// The defaults of [`Dedup::new`] with another fingerprinter.
    pub fn with_fingerprinter(fingerprinter: Fingerprinter) -> DedupBuilder {
        DedupBuilder::with_rule(Rule::with_fingerprinter(fingerprinter))
    }

    /// A job that decides by `rule`, keeping the first of each group, by
    /// greedy grouping.
    pub fn with_rule(rule: Rule) -> DedupBuilder {
        DedupBuilder {
            job: Dedup {
                rule,
                keep: Keep::First,
                grouping: Grouping::Greedy,
                against: None,
                spill: None,
                memory: None,
            },
        }
    }

    /// The job, its settings checked.
    ///
    /// # Errors
    ///
    /// [`Error::Index`](crate::Error::Index) naming a k that the
    /// fingerprints cannot have (not below their width), and
    /// [`Error::KTooWideForGreedy`](crate::Error::KTooWideForGreedy) for
    /// one that no index of the kept documents can search.
    pub fn build(&self) -> Result<Dedup> {
        let rule = &self.job.rule;
        let width = rule.fingerprinter.width();
        TablePlan::pigeonhole(width, rule.k)?;
        if self.job.memory == Some(0) {
            return Err(Error::NoMemory);
        }
        // The index of kept documents must have a plan for k.
        kept_plan(width, rule.k, 1, KEPT_BYTES_LEAST)?;
        Ok(self.job.clone())
    }

    /// Near-duplicates are at most `k` bits apart; [`DEFAULT_K`](crate::DEFAULT_K)
    /// by default.
    pub fn k(&mut self, k: u32) -> &mut DedupBuilder {
        self.job.rule.k(k);
        self
    }

    /// The short-document rule (on by default): two short documents
    /// ([`compat::is_short`](crate::compat::is_short)) are a candidate pair
    /// whatever their fingerprints' distance when their verification
    /// sketches share enough to pass, and verification judges them. It
    /// holds only with verification.
    pub fn short_rule(&mut self, yes: bool) -> &mut DedupBuilder {
        self.job.rule.short_rule(yes);
        self
    }

    /// How candidate pairs are checked; `None` trusts the fingerprints.
    /// [`DEFAULT_VERIFICATION`](crate::DEFAULT_VERIFICATION) by default.
    pub fn verification(&mut self, verification: Option<Verification>) -> &mut DedupBuilder {
        self.job.rule.verification(verification);
        self
    }

    /// Which document of a group is kept; the first by default.
    pub fn keep(&mut self, keep: Keep) -> &mut DedupBuilder {
        self.job.keep = keep;
        self
    }

    /// How documents are grouped; greedily by default.
    pub fn grouping(&mut self, grouping: Grouping) -> &mut DedupBuilder {
        self.job.grouping = grouping;
        self
    }

    /// Drops, too, documents that the rule calls near-duplicates of one in
    /// the index directory `dir` (one that [`crate::save_to_index`] wrote),
    /// as one run over the documents of both would: each is judged against
    /// the stored texts found within k bits or by the short-document rule.
    /// An index that keeps no texts (made before they were kept) is
    /// searched by fingerprint alone. None by default.
    pub fn against(&mut self, dir: Option<PathBuf>) -> &mut DedupBuilder {
        self.job.against = dir;
        self
    }

    /// Where temporary files go (the verification sketches); the system's
    /// temporary directory by default.
    pub fn spill_to(&mut self, dir: Option<PathBuf>) -> &mut DedupBuilder {
        self.job.spill = dir;
        self
    }

    /// How much memory the run may take, in bytes; `None` (the default):
    /// half of the machine's or the control group's memory. What the run
    /// holds of each document (docs/DEDUP.md gives the bytes) stays in
    /// memory; the verification sketches of kept documents go to a file in
    /// [`DedupBuilder::spill_to`] past half the budget.
    ///
    /// ```
    /// use neardup_dedup::{Dedup, Memory, Silent};
    ///
    /// let texts = ["the river rose in the night and the town woke to water",
    ///              "the river rose in the night and the town woke to water!"];
    /// // One byte: every per-document array and sort goes to files.
    /// let job = Dedup::builder()?.memory(Some(1)).build()?;
    /// assert_eq!(job.run(&Memory::new(&texts[..]), &Silent)?.unique(), 1);
    /// assert!(Dedup::builder()?.memory(Some(0)).build().is_err());
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    pub fn memory(&mut self, bytes: Option<u64>) -> &mut DedupBuilder {
        self.job.memory = bytes;
        self
    }
}
