//! The whole dedup job: documents from a [`Source`] in, each one's
//! [`Fate`] out.
//!
//! 1. **Fingerprint** every document (one pass over the source, on all
//!    cores), keeping 32 bytes of each ([`Record`]) and, until they are
//!    used, a hash of its text and its key. With the short-document rule,
//!    the verification sketches of short and near-short documents are
//!    written to a temporary file in the same pass.
//! 2. **Exact copies** ([`Copies`]) become one unit each.
//! 3. **Against an index**: documents near one an earlier run kept are
//!    dropped for it, and take no part in what follows.
//! 4. **Verification sketches** of the other units that have a candidate
//!    at all ([`neardup_index::with_neighbours`]): one more pass over the
//!    source.
//! 5. **Grouping**, greedy (each unit compared with the units kept before
//!    it, nearest first, until one passes verification) or by connected
//!    components.

use std::path::{Path, PathBuf};

use neardup_core::{Fingerprinter, Width};
use neardup_index::{Bits, with_neighbours};

use crate::column::Array;
use crate::copies::Copies;
use crate::earlier::Earlier;
use crate::error::Result;
use crate::greedy::{Grouped, Search, Short, greedy, join_plan, kept_bytes, unpack_similarity};
use crate::grouping::{Fate, PackedFate};
use crate::incremental::Index;
use crate::keep::Keep;
use crate::linked::linked;
use crate::memory::free_memory;
use crate::outcome::{Outcome, Record, Stats};
use crate::prefix_filter::PrefixFilter;
use crate::progress::Progress;
use crate::rule::{FoundBy, Rule};
use crate::sketches::{SketchPass, Sketches};
use crate::source::Source;
use crate::streamed::greedy_as_read;
use crate::why::Why;

mod builder;
mod scan;

pub use builder::DedupBuilder;
use scan::Scanned;

/// Documents are numbered in 32 bits, and the largest number is kept free.
const MAX_DOCUMENTS: usize = u32::MAX as usize - 1;

/// How documents are grouped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Grouping {
    /// Each document in keep order is kept unless it is near one already
    /// kept (then it is that one's duplicate): every kept document is far
    /// from every other.
    #[default]
    Greedy,
    /// Every chain of near-duplicates is one group, kept by its first
    /// document in keep order.
    Components,
}

/// A dedup job, its settings checked: the fingerprinter, how near is
/// near, which document of a group is kept, and what it runs against.
/// [`Dedup::new`] has the defaults; a [`DedupBuilder`] gives others.
///
/// ```
/// use neardup_dedup::{Dedup, Memory, Silent};
///
/// let texts = [
///     "the river rose in the night and the town woke to water in every street",
///     "the river rose in the night and the town woke to water in every lane",
///     "a recipe for bread: flour, water, salt and yeast, and a warm room",
/// ];
/// let outcome = Dedup::new()?.run(&Memory::new(&texts[..]), &Silent)?;
/// assert_eq!(outcome.unique(), 2);
/// assert_eq!(outcome.fates().get(1).and_then(|f| f.duplicate_of()), Some(0));
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Dedup {
    pub(super) rule: Rule,
    pub(super) keep: Keep,
    pub(super) grouping: Grouping,
    pub(super) against: Option<PathBuf>,
    pub(super) spill: Option<PathBuf>,
    pub(super) memory: Option<u64>,
}

impl Dedup {
    /// The defaults: the `auto` profile, k =
    /// [`DEFAULT_K`](crate::DEFAULT_K),
    /// [`DEFAULT_VERIFICATION`](crate::DEFAULT_VERIFICATION), the
    /// short-document rule, the first document of each group kept, greedy
    /// grouping. Other settings are
    /// given to a [`DedupBuilder`] ([`Dedup::builder`]).
    ///
    /// # Errors
    ///
    /// As [`Fingerprinter::new`].
    pub fn new() -> Result<Dedup> {
        DedupBuilder::new()?.build()
    }

    /// A builder of a job, from the defaults of [`Dedup::new`].
    ///
    /// # Errors
    ///
    /// As [`Fingerprinter::new`].
    pub fn builder() -> Result<DedupBuilder> {
        DedupBuilder::new()
    }

    /// A job that decides by `rule`, keeping the first of each group, by
    /// greedy grouping.
    ///
    /// ```
    /// use neardup_dedup::{Dedup, Rule};
    ///
    /// let mut rule = Rule::new()?;
    /// rule.k(6);
    /// assert_eq!(Dedup::with_rule(rule)?.rule().k_bits(), 6);
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`DedupBuilder::build`]: a k the rule's fingerprints cannot have.
    pub fn with_rule(rule: Rule) -> Result<Dedup> {
        DedupBuilder::with_rule(rule).build()
    }

    /// The fingerprinter.
    pub fn fingerprinter(&self) -> &Fingerprinter {
        &self.rule.fingerprinter
    }

    /// The rule that decides what is near.
    pub fn rule(&self) -> &Rule {
        &self.rule
    }

    /// Whether the short-document rule holds: it is on, and pairs are
    /// verified.
    pub fn short_rule_holds(&self) -> bool {
        self.rule.short_rule_holds()
    }

    /// The index directory the job runs against, if any
    /// ([`DedupBuilder::against`]).
    pub fn against_dir(&self) -> Option<&Path> {
        self.against.as_deref()
    }

    /// The memory budget the job was given, in bytes, if any
    /// ([`DedupBuilder::memory`]).
    ///
    /// ```
    /// let mut builder = neardup_dedup::Dedup::builder()?;
    /// assert_eq!(builder.memory(Some(256 << 20)).build()?.memory(), Some(256 << 20));
    /// # Ok::<(), neardup_dedup::Error>(())
    /// ```
    pub fn memory(&self) -> Option<u64> {
        self.memory
    }

    /// Runs the job over `source` on all cores of the current rayon pool,
    /// telling `progress` how it goes.
    ///
    /// # Errors
    ///
    /// A document that cannot be read (skipped instead if the source skips
    /// invalid records), more than 2³² − 2 documents, a source that changed
    /// between passes, an index to run against that cannot be used, a
    /// temporary file that cannot be written, or
    /// [`Error::Cancelled`](crate::Error::Cancelled).
    pub fn run(&self, source: &dyn Source, progress: &dyn Progress) -> Result<Outcome> {
        let width = self.rule.fingerprinter.width();
        let spill = self.spill.clone().unwrap_or_else(std::env::temp_dir);
        let memory = self.memory.unwrap_or_else(crate::default_memory);
        // Documents near one kept by an earlier run are found as they are
        // read, by the rule, and dropped for it.
        let index = match &self.against {
            Some(dir) => Some(Index::open(dir, &self.rule)?),
            None => None,
        };
        let scanned = self.scan(source, progress, &spill, memory, index.as_ref())?;
        let Scanned {
            records,
            text_hashes,
            short_docs,
            member_docs,
            member_sketches,
            element_counts,
            keys,
            indexed,
            skipped,
        } = scanned;
        let by_fingerprint_alone = index.as_ref().is_some_and(Index::by_fingerprint_alone);
        drop(index);
        let n = records.len();
        let free = free_memory(memory, n, width);
        let bytes: Vec<u32> = records.iter().map(|r| r.bytes).collect();
        let order = self.keep.order(&bytes, &keys);
        drop(bytes);
        let with_key = keys.iter().filter(|k| k.is_some()).count();
        drop(keys);
        // Each array of a number per document or unit takes up to an
        // eighth of the budget in memory, as the first pass's columns do.
        let share = memory / 8;
        progress.working("grouping exact copies");
        let copies = Copies::spilling(
            |d| records[d as usize].fingerprint,
            &text_hashes,
            &order,
            share,
            &spill,
        )?;
        drop((text_hashes, order));
        if copies.spilled() {
            progress.spilling("the units of exact copies", &spill);
        }
        let units = copies.units();
        let short_filter = self
            .rule
            .verification
            .zip(element_counts)
            .map(|(verification, counts)| PrefixFilter::new(verification, counts));
        let per_unit = |docs: &mut dyn Iterator<Item = u32>, on: bool| {
            let mut of = vec![false; if on { units } else { 0 }];
            for d in docs {
                if let Some(slot) = of.get_mut(copies.unit_of(d) as usize) {
                    *slot = true;
                }
            }
            of
        };
        let members = per_unit(
            &mut member_docs.iter().map(|&[d, _]| d),
            short_filter.is_some(),
        );
        let short_units = per_unit(&mut short_docs.iter().copied(), short_filter.is_some());
        drop(short_docs);
        // The units' sketches from the first pass: their representatives'.
        // They were written in document order, one after another.
        let member_sketches = match member_sketches {
            Some(file) => Some(
                file.finish(
                    units,
                    member_docs
                        .iter()
                        .scan(0u64, |start, &[d, len]| {
                            let at = *start;
                            *start += u64::from(len);
                            Some((d, at, len))
                        })
                        .filter_map(|(d, start, len)| {
                            let u = copies.unit_of(d);
                            (copies.representative(u) == d).then_some((u, start, len))
                        }),
                    share,
                )?,
            ),
            None => None,
        };
        drop(member_docs);
        let short =
            short_filter
                .as_ref()
                .zip(member_sketches.as_ref())
                .map(|(filter, sketches)| Short {
                    members: &members,
                    short: &short_units,
                    filter,
                    sketches,
                    spill: &spill,
                    memory: free,
                });

        let excluded = |u: u32| indexed.has(copies.representative(u));
        let settings = (n, spill.as_path(), free);
        let grouped = match width {
            Width::W64 => self.group(
                &unit_bits::<u64>(&records, &copies, share, &spill, progress)?,
                short,
                &excluded,
                &copies,
                source,
                progress,
                settings,
            )?,
            _ => self.group(
                &unit_bits::<u128>(&records, &copies, share, &spill, progress)?,
                short,
                &excluded,
                &copies,
                source,
                progress,
                settings,
            )?,
        };
        // How each dropped unit's pair was found: as the rule says, a short
        // unit and a near-short one are the short-document rule's.
        let short_rule = short.is_some();
        let is = |of: &[bool], u: u32| of.get(u as usize).copied().unwrap_or(false);
        let unit_why = |u: u32, of: u32| Why {
            found_by: match short_rule
                && ((is(&short_units, u) && is(&members, of))
                    || (is(&short_units, of) && is(&members, u)))
            {
                true => FoundBy::ShortDocuments,
                false => FoundBy::Fingerprint,
            },
            similarity: grouped
                .similarity
                .get(u as usize)
                .copied()
                .and_then(unpack_similarity),
        };
        let mut fates = Array::<PackedFate>::zeroed(n, share, &spill)?;
        let mut whys = Array::<u32>::zeroed(n, share, &spill)?;
        if fates.is_mapped() {
            progress.spilling("the documents' fates", &spill);
        }
        for (d, (slot, why)) in fates.iter_mut().zip(whys.iter_mut()).enumerate() {
            let (fate, reason) = match indexed.nearest.get(d).copied().flatten() {
                Some((entry, distance)) => (
                    Fate::DuplicateOfIndexed { entry, distance },
                    indexed.why.get(d).copied().flatten(),
                ),
                None => {
                    let u = copies.unit_of(d as u32);
                    let fate = copies.fate_of(d as u32, |u| grouped.fates[u as usize].into());
                    let reason = match Fate::from(grouped.fates[u as usize]) {
                        Fate::Duplicate { of, .. } => Some(unit_why(u, of)),
                        // A copy of its unit's representative, kept.
                        _ if fate != Fate::Kept => Some(Why {
                            found_by: FoundBy::ExactCopy,
                            similarity: Some(1.0),
                        }),
                        _ => None,
                    };
                    (fate, reason)
                }
            };
            *slot = fate.into();
            *why = Why::pack(reason);
        }
        // What grouping used is let go.
        drop((member_sketches, members, short_units));
        drop((copies, grouped.fates, grouped.similarity));
        let kept = PackedFate::from(Fate::Kept);
        Ok(Outcome {
            stats: Stats {
                documents: n,
                unique: fates.iter().filter(|&&f| f == kept).count(),
                exact_copies: n - units,
                dropped_against_index: indexed.nearest.iter().flatten().count(),
                candidate_pairs: grouped.candidates,
                pairs_by_distance: grouped.pairs_by_distance,
                with_key,
                k: self.rule.k,
                short_rule,
                index_by_fingerprint_alone: by_fingerprint_alone,
            },
            records,
            fates,
            whys,
            skipped,
            indexed_names: indexed.names,
        })
    }

    /// The units' fates, their fingerprints `bits` numbered in keep order.
    #[allow(clippy::too_many_arguments)]
    fn group<B: Bits>(
        &self,
        bits: &[B],
        short: Option<Short>,
        excluded: &(dyn Fn(u32) -> bool + Sync),
        copies: &Copies,
        source: &dyn Source,
        progress: &dyn Progress,
        (documents, spill, free): (usize, &Path, u64),
    ) -> Result<Grouped> {
        let mut rule = Search {
            k: self.rule.k,
            short,
            excluded,
            verify: None,
            kept_bytes: kept_bytes(free, bits.len()),
            near: None,
            earlier: None,
        };
        // Which units have a neighbour by fingerprint: greedy grouping
        // searches those alone, and verification sketches them. Greedy
        // takes the lists of each unit's earlier neighbours instead, when
        // the pairs are few: at most a few per unit, and an eighth of the
        // free memory.
        progress.working("pairing near fingerprints");
        let earlier = self.earlier_by_fingerprint(bits, &rule, free / 8, spill)?;
        if earlier.as_ref().is_some_and(Earlier::spilled) {
            progress.spilling("the pairs of near fingerprints", spill);
        }
        let near = match (self.grouping, self.rule.verification, &earlier) {
            (_, _, Some(earlier)) => Some(earlier.near().to_vec()),
            (Grouping::Components, None, None) => None,
            _ => Some(self.near_by_fingerprint(bits, &rule)?),
        };
        rule.near = near.as_deref();
        rule.earlier = earlier.as_ref();
        let Some(verification) = self.rule.verification else {
            return match self.grouping {
                Grouping::Greedy => greedy(bits, &rule, progress),
                Grouping::Components => linked(bits, &rule, progress),
            };
        };
        let mut needed = near.clone().unwrap_or_default();
        // And the prefix filter's units: it needs their sketches to tell.
        if let Some(short) = rule.short {
            for (needed, &member) in needed.iter_mut().zip(short.members) {
                *needed |= member;
            }
        }
        // The units the prefix filter holds have their sketches from the
        // first pass.
        let at_hand = |u: u32| short.and_then(|s| s.sketches.get(u));
        // A document past the first pass's count (the source grew) is not
        // wanted; the count, checked after the pass, says so.
        let wanted = |d: u32| {
            (d as usize) < documents && {
                let u = copies.unit_of(d);
                copies.representative(u) == d
                    && needed[u as usize]
                    && !excluded(u)
                    && at_hand(u).is_none()
            }
        };
        // When the first pass sketched every unit the rule verifies (all
        // of them short, say), the source is not read again.
        let from_source = (0..bits.len() as u32).any(|u| wanted(copies.representative(u)));
        if !from_source {
            source.check_unchanged()?;
            let verify = |a: u32, b: u32| match (at_hand(a), at_hand(b)) {
                (Some(x), Some(y)) => verification.passed(x, y).map(|s| s as f32),
                _ => None,
            };
            rule.verify = Some(&verify);
            return match self.grouping {
                Grouping::Greedy => greedy(bits, &rule, progress),
                Grouping::Components => linked(bits, &rule, progress),
            };
        }
        let pass = SketchPass {
            source,
            progress,
            verification,
            documents,
            units: bits.len(),
            wanted: &wanted,
            unit_of: &|d| copies.unit_of(d),
            spill,
            memory: free,
        };
        // Units in the source's order are decided as it is read.
        let in_source_order =
            (1..bits.len() as u32).all(|u| copies.representative(u - 1) < copies.representative(u));
        if self.grouping == Grouping::Greedy && in_source_order {
            return greedy_as_read(bits, &rule, &pass);
        }
        let sketches = Sketches::build(&pass)?;
        let sketch = |u: u32| sketches.get(u).or_else(|| at_hand(u));
        let verify = |a: u32, b: u32| match (sketch(a), sketch(b)) {
            (Some(x), Some(y)) => verification.passed(x, y).map(|s| s as f32),
            _ => None,
        };
        rule.verify = Some(&verify);
        match self.grouping {
            Grouping::Greedy => greedy(bits, &rule, progress),
            Grouping::Components => linked(bits, &rule, progress),
        }
    }

    /// The lists of each unit's earlier neighbours within k among the
    /// searched units, if there are few enough: their pairs take `bytes`
    /// of memory, and sorted runs in `spill` past it.
    fn earlier_by_fingerprint<B: Bits>(
        &self,
        bits: &[B],
        rule: &Search,
        bytes: u64,
        spill: &Path,
    ) -> Result<Option<Earlier>> {
        let searched: Vec<u32> = (0..bits.len() as u32)
            .filter(|&u| rule.searched(u))
            .collect();
        let searched_bits: Vec<B> = searched.iter().map(|&u| bits[u as usize]).collect();
        Earlier::join(
            &join_plan(B::WIDTH, self.rule.k, searched.len())?,
            (bits.len(), &searched, &searched_bits),
            Earlier::PAIRS_PER_UNIT * searched.len() as u64,
            // Grouping by components reads the pairs again after greedy.
            (bytes, self.grouping == Grouping::Components),
            spill,
        )
    }

    /// Which units the search by fingerprint holds with another within k.
    fn near_by_fingerprint<B: Bits>(&self, bits: &[B], rule: &Search) -> Result<Vec<bool>> {
        let searched: Vec<u32> = (0..bits.len() as u32)
            .filter(|&u| rule.searched(u))
            .collect();
        let searched_bits: Vec<B> = searched.iter().map(|&u| bits[u as usize]).collect();
        let near = with_neighbours(
            &join_plan(B::WIDTH, self.rule.k, searched.len())?,
            &searched_bits,
        )?;
        let mut out = vec![false; bits.len()];
        for (&u, near) in searched.iter().zip(near) {
            out[u as usize] = near;
        }
        Ok(out)
    }
}

/// Each unit's fingerprint (its representative's), at the run's width, in
/// memory up to `budget` bytes, else in a temporary file in `spill`.
fn unit_bits<B: Bits>(
    records: &[Record],
    copies: &Copies,
    budget: u64,
    spill: &Path,
    progress: &dyn Progress,
) -> Result<Array<B>> {
    let mut bits = Array::<B>::zeroed(copies.units(), budget, spill)?;
    if bits.is_mapped() {
        progress.spilling("the units' fingerprints", spill);
    }
    for (u, slot) in bits.iter_mut().enumerate() {
        *slot = B::from_u128(records[copies.representative(u as u32) as usize].fingerprint);
    }
    Ok(bits)
}
