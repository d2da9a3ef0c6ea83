//! The steps `neardup.spark` takes on the driver when a corpus's sketches
//! fit there (`_spark_gathered.py`): exact copies, candidate pairs of units
//! by fingerprint and by the short-document rule, each by a parallel sort
//! over all rows, as the CLI does them in one process. Units are named by
//! ranks (Spark longs); fingerprints are longs holding the bits.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::error::NeardupError;
use crate::spark::{Longs, joined, short_pairs_of_group};

fn same_length(what: &str, lengths: &[usize]) -> PyResult<()> {
    if lengths.windows(2).all(|w| w[0] == w[1]) {
        Ok(())
    } else {
        Err(NeardupError::new_err(format!(
            "{what}: one value each per row"
        )))
    }
}

fn positions(n: usize) -> PyResult<Vec<u32>> {
    let n = u32::try_from(n).map_err(|_| {
        NeardupError::new_err("more than 2³² rows: too many to gather on the driver")
    })?;
    Ok((0..n).collect())
}

/// Each row's unit: the least rank of the rows with its fingerprint and
/// text hash (its exact copies and itself).
#[pyfunction]
pub(crate) fn exact_units<'py>(
    py: Python<'py>,
    rank: PyReadonlyArray1<'py, i64>,
    fp: PyReadonlyArray1<'py, i64>,
    text_hash: PyReadonlyArray1<'py, i64>,
) -> PyResult<Longs<'py>> {
    let (rank, fp, text_hash) = (rank.as_slice()?, fp.as_slice()?, text_hash.as_slice()?);
    same_length(
        "rank, fp and text_hash",
        &[rank.len(), fp.len(), text_hash.len()],
    )?;
    let mut order = positions(rank.len())?;
    let unit = py.detach(|| {
        let key = |&i: &u32| (fp[i as usize], text_hash[i as usize], rank[i as usize]);
        order.par_sort_unstable_by_key(key);
        let mut unit = vec![0i64; rank.len()];
        // Sorted by rank last: a run's first row has its least rank.
        for run in order.chunk_by(|&a, &b| key(&a).0 == key(&b).0 && key(&a).1 == key(&b).1) {
            let least = rank[run[0] as usize];
            for &i in run {
                unit[i as usize] = least;
            }
        }
        unit
    });
    Ok(PyArray1::from_vec(py, unit))
}

/// Every pair of the units `unit` (ranks, fingerprinted `fp`) within `k`
/// bits, each once as `(x, y)` with `x < y`: the distinct fingerprints
/// joined by the CLI's in-memory join (the plan it chooses for their
/// number), each pair of fingerprints crossed to their units, and the
/// units of one fingerprint paired among themselves. None, before any
/// pair of units is made, when there would be more than `limit` (counted
/// from the runs' sizes): the caller finds them some other way.
#[pyfunction]
pub(crate) fn unit_pairs_by_fingerprint<'py>(
    py: Python<'py>,
    unit: PyReadonlyArray1<'py, i64>,
    fp: PyReadonlyArray1<'py, i64>,
    k: u32,
    limit: u64,
) -> PyResult<Option<(Longs<'py>, Longs<'py>)>> {
    let (unit, fp) = (unit.as_slice()?, fp.as_slice()?);
    same_length("unit and fp", &[unit.len(), fp.len()])?;
    let found = py.detach(|| -> PyResult<Option<(Vec<i64>, Vec<i64>)>> {
        let mut rows: Vec<(u64, i64)> = fp
            .iter()
            .map(|&f| f as u64)
            .zip(unit.iter().copied())
            .collect();
        rows.par_sort_unstable();
        // The runs of one fingerprint: `starts[g]..starts[g + 1]`.
        let mut distinct = Vec::new();
        let mut starts = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            if distinct.last() != Some(&row.0) {
                distinct.push(row.0);
                starts.push(i);
            }
        }
        starts.push(rows.len());
        if distinct.is_empty() {
            return Ok(Some((Vec::new(), Vec::new())));
        }
        let pairs = joined(&distinct, k)?;
        let run = |g: usize| &rows[starts[g]..starts[g + 1]];
        let size = |g: usize| (starts[g + 1] - starts[g]) as u64;
        let across: u64 = pairs
            .iter()
            .map(|p| size(p.a as usize) * size(p.b as usize))
            .sum();
        let within: u64 = (0..distinct.len())
            .map(|g| size(g) * size(g).saturating_sub(1) / 2)
            .sum();
        if across.saturating_add(within) > limit {
            return Ok(None);
        }
        let mut found: Vec<(i64, i64)> = pairs
            .par_iter()
            .flat_map_iter(|p| {
                let (a, b) = (run(p.a as usize), run(p.b as usize));
                a.iter()
                    .flat_map(move |&(_, x)| b.iter().map(move |&(_, y)| (x.min(y), x.max(y))))
            })
            .collect();
        for g in 0..distinct.len() {
            let members = run(g);
            for (i, &(_, x)) in members.iter().enumerate() {
                for &(_, y) in &members[i + 1..] {
                    found.push((x.min(y), x.max(y)));
                }
            }
        }
        Ok(Some(found.into_iter().unzip()))
    })?;
    Ok(found.map(|(x, y)| (PyArray1::from_vec(py, x), PyArray1::from_vec(py, y))))
}

/// The short-document rule's pairs of units: two units that share a key
/// (`keys[i]` is a key of unit `units[i]`), one of them short
/// (`short[i]`). Gives `(x, y)`, `x < y`, each pair once; None, before
/// any pair is made, when the key groups would give more than `limit`
/// (a pair counted once for each key it shares).
#[pyfunction]
pub(crate) fn short_unit_pairs<'py>(
    py: Python<'py>,
    keys: PyReadonlyArray1<'py, i64>,
    units: PyReadonlyArray1<'py, i64>,
    short: PyReadonlyArray1<'py, bool>,
    limit: u64,
) -> PyResult<Option<(Longs<'py>, Longs<'py>)>> {
    let (keys, units, short) = (keys.as_slice()?, units.as_slice()?, short.as_slice()?);
    same_length(
        "keys, units and short",
        &[keys.len(), units.len(), short.len()],
    )?;
    let found = py.detach(|| {
        let mut rows: Vec<(i64, (i64, bool))> = (0..keys.len())
            .map(|i| (keys[i], (units[i], short[i])))
            .collect();
        rows.par_sort_unstable_by_key(|r| r.0);
        let members: Vec<(i64, bool)> = rows.iter().map(|r| r.1).collect();
        let mut groups = Vec::new();
        let mut start = 0;
        for run in rows.chunk_by(|a, b| a.0 == b.0) {
            groups.push(start..start + run.len());
            start += run.len();
        }
        drop(rows);
        // Pairs with a short member: all of a group's pairs but those of
        // two members that are not short.
        let pairs = |n: u64| n * n.saturating_sub(1) / 2;
        let count: u64 = groups
            .iter()
            .map(|g| {
                let long = members[g.clone()].iter().filter(|m| !m.1).count() as u64;
                pairs(g.len() as u64) - pairs(long)
            })
            .sum();
        if count > limit {
            return None;
        }
        Some(distinct(
            groups
                .into_par_iter()
                .flat_map_iter(|g| short_pairs_of_group(&members[g]))
                .collect(),
        ))
    });
    Ok(found.map(|(x, y)| (PyArray1::from_vec(py, x), PyArray1::from_vec(py, y))))
}

/// The pairs `(x[i], y[i])` each once, as `(u, v)` with `u < v`, sorted.
#[pyfunction]
pub(crate) fn distinct_unit_pairs<'py>(
    py: Python<'py>,
    x: PyReadonlyArray1<'py, i64>,
    y: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Longs<'py>, Longs<'py>)> {
    let (x, y) = (x.as_slice()?, y.as_slice()?);
    same_length("x and y", &[x.len(), y.len()])?;
    let (u, v) = py.detach(|| {
        distinct(
            x.par_iter()
                .zip(y)
                .map(|(&a, &b)| (a.min(b), a.max(b)))
                .collect(),
        )
    });
    Ok((PyArray1::from_vec(py, u), PyArray1::from_vec(py, v)))
}

/// `pairs` sorted, each once, as two columns.
fn distinct(mut pairs: Vec<(i64, i64)>) -> (Vec<i64>, Vec<i64>) {
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs.into_iter().unzip()
}
