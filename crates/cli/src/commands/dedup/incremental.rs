//! Incremental runs: a batch deduplicated against the documents kept by
//! earlier runs, whose fingerprints an index directory holds.

use std::path::Path;

use anyhow::{Context, Result, bail};
use neardup_core::Width;
use neardup_dedup::Fate;
use neardup_index::{Bits, IndexDir, TablePlan};

use super::Record;

/// For each record, the name and distance of the nearest fingerprint within
/// `k` bits in the index at `dir` (the first by name among equals), if any.
pub(super) fn against(
    dir: &Path,
    records: &[Record],
    width: Width,
    k: u32,
) -> Result<Vec<Option<(String, u32)>>> {
    let indexed =
        IndexDir::<u64>::width(dir).with_context(|| format!("--against {}", dir.display()))?;
    if indexed != width {
        bail!(
            "--against {}: the index holds {}-bit fingerprints, these are {}-bit; use the same --width",
            dir.display(),
            indexed.bits(),
            width.bits()
        );
    }
    match width {
        Width::W64 => nearest::<u64>(dir, records, k, |b| b as u64),
        _ => nearest::<u128>(dir, records, k, |b| b),
    }
}

fn nearest<B: Bits>(
    dir: &Path,
    records: &[Record],
    k: u32,
    narrow: impl Fn(u128) -> B,
) -> Result<Vec<Option<(String, u32)>>> {
    let index = IndexDir::<B>::open(dir)?;
    let index_k = index.segment().plan().k();
    if k > index_k {
        bail!(
            "-k {k}: the index at {} finds fingerprints at most {index_k} bits apart; \
             use -k {index_k} or less, or build a new index",
            dir.display()
        );
    }
    Ok(records
        .iter()
        .map(|r| {
            let matches = index.query(narrow(r.fingerprint));
            matches
                .into_iter()
                .find(|m| m.distance <= k)
                .and_then(|m| Some((index.name(m.id)?.to_string(), m.distance)))
        })
        .collect())
}

/// Adds the kept records to the index at `dir`, creating it (planned for
/// queries at `k`) if it does not exist.
pub(super) fn save<'a>(
    dir: &Path,
    records: &[Record],
    id: &dyn Fn(u32) -> &'a str,
    fates: &[Fate],
    width: Width,
    k: u32,
) -> Result<()> {
    let kept: Vec<(u32, &Record)> = (0..records.len() as u32)
        .zip(records)
        .filter(|(d, _)| fates[*d as usize] == Fate::Kept)
        .collect();
    let names: Vec<&str> = kept.iter().map(|(d, _)| id(*d)).collect();
    let context = || format!("--save-index {}", dir.display());
    match width {
        Width::W64 => {
            let fps: Vec<u64> = kept.iter().map(|(_, r)| r.fingerprint as u64).collect();
            save_as(dir, &fps, &names, width, k).with_context(context)
        }
        _ => {
            let fps: Vec<u128> = kept.iter().map(|(_, r)| r.fingerprint).collect();
            save_as(dir, &fps, &names, width, k).with_context(context)
        }
    }
}

fn save_as<B: Bits>(dir: &Path, fps: &[B], names: &[&str], width: Width, k: u32) -> Result<()> {
    if dir.join("MANIFEST").exists() {
        IndexDir::<B>::open(dir)?.add(fps, names)?;
    } else {
        let plan = TablePlan::choose(width, k, fps.len().max(1) as f64, None)?.plan(width, k)?;
        IndexDir::create(dir, plan, fps, names)?;
    }
    Ok(())
}
