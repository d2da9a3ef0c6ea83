//! The per-batch work of `neardup.spark`: each function takes columns of
//! one Arrow batch (as numpy arrays or Arrow strings) and gives columns
//! back, so that Spark calls Python once per batch, never per row. Spark's
//! longs carry 64-bit fingerprints as their bits.

use neardup_core::{Fingerprint, Fingerprinter, Profile, Width};
use neardup_dedup::compat::{ShortRule, is_near_short, is_short};
use neardup_dedup::{Rule, Verification, components};
use neardup_index::{Pair, TablePlan, pairs_in_group, self_join, shuffle_plan};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::error::NeardupError;
use crate::fingerprint::Fingerprinter as Fingerprinter64;
use crate::texts::Texts;

pub(crate) type Longs<'py> = Bound<'py, PyArray1<i64>>;

fn verification(spec: &str) -> PyResult<Verification> {
    spec.parse::<Verification>()
        .map_err(|e| NeardupError::new_err(format!("verify: {e}")))
}

/// The number of blocks of the plan for joining 64-bit fingerprints at
/// distance `k` by grouping rows (`k + 1`: one table per block).
#[pyfunction]
pub(crate) fn spark_plan_blocks(k: u32) -> PyResult<usize> {
    Ok(shuffle_plan(Width::W64, k)
        .map_err(|e| crate::error::settings("k", e))?
        .blocks()
        .len())
}

fn plan(k: u32, blocks: u32) -> PyResult<TablePlan> {
    TablePlan::new(Width::W64, k, blocks).map_err(|e| crate::error::settings("k", e))
}

/// Each fingerprint's key in every table: `(row, table, key)` columns, a
/// row per fingerprint per table.
#[pyfunction]
pub(crate) fn table_keys<'py>(
    py: Python<'py>,
    fingerprints: PyReadonlyArray1<'py, i64>,
    k: u32,
    blocks: u32,
) -> PyResult<(Longs<'py>, Bound<'py, PyArray1<i32>>, Longs<'py>)> {
    let plan = plan(k, blocks)?;
    let fps = fingerprints.as_slice()?;
    let tables = plan.tables();
    let mut rows = Vec::with_capacity(fps.len() * tables);
    let mut table_of = Vec::with_capacity(fps.len() * tables);
    let mut keys = Vec::with_capacity(fps.len() * tables);
    for (r, &f) in fps.iter().enumerate() {
        for t in 0..tables {
            rows.push(r as i64);
            table_of.push(t as i32);
            keys.push(plan.key(t, f as u64) as i64);
        }
    }
    Ok((
        PyArray1::from_vec(py, rows),
        PyArray1::from_vec(py, table_of),
        PyArray1::from_vec(py, keys),
    ))
}

/// The pairs of many `(table, key)` groups: group `g` is table
/// `tables[g]` and the fingerprints `fingerprints[offsets[g]..offsets[g +
/// 1]]`. Gives `(a, b, distance)`, positions in `fingerprints`.
#[pyfunction]
pub(crate) fn pairs_in_groups<'py>(
    py: Python<'py>,
    tables: PyReadonlyArray1<'py, i32>,
    offsets: PyReadonlyArray1<'py, i64>,
    fingerprints: PyReadonlyArray1<'py, i64>,
    k: u32,
    blocks: u32,
) -> PyResult<PairColumns<'py>> {
    let plan = plan(k, blocks)?;
    let (tables, offsets, fps) = (
        tables.as_slice()?,
        offsets.as_slice()?,
        fingerprints.as_slice()?,
    );
    if offsets.len() != tables.len() + 1 {
        return Err(NeardupError::new_err("offsets: one more than the groups"));
    }
    let fps: Vec<u64> = fps.iter().map(|&f| f as u64).collect();
    let found = py.detach(|| {
        (0..tables.len())
            .into_par_iter()
            .map(|g| -> PyResult<Vec<(i64, i64, i32)>> {
                let (start, end) = (offsets[g] as usize, offsets[g + 1] as usize);
                let group = fps.get(start..end).ok_or_else(|| {
                    NeardupError::new_err(format!("group {g}: offsets past the fingerprints"))
                })?;
                Ok(pairs_in_group(&plan, tables[g] as usize, group)
                    .into_iter()
                    .map(|p| {
                        (
                            start as i64 + i64::from(p.a),
                            start as i64 + i64::from(p.b),
                            p.distance as i32,
                        )
                    })
                    .collect())
            })
            .collect::<PyResult<Vec<_>>>()
    })?;
    Ok(pair_columns(py, found.into_iter().flatten()))
}

/// Pairs as Python's `(a, b, distance)` columns.
type PairColumns<'py> = (Longs<'py>, Longs<'py>, Bound<'py, PyArray1<i32>>);

fn pair_columns(py: Python<'_>, pairs: impl Iterator<Item = (i64, i64, i32)>) -> PairColumns<'_> {
    let (mut a, mut b, mut d) = (Vec::new(), Vec::new(), Vec::new());
    for (x, y, z) in pairs {
        a.push(x);
        b.push(y);
        d.push(z);
    }
    (
        PyArray1::from_vec(py, a),
        PyArray1::from_vec(py, b),
        PyArray1::from_vec(py, d),
    )
}

/// [`sketch_rows`]' columns: fingerprints, kinds, key offsets, keys.
type SketchedRows<'py> = (
    Longs<'py>,
    Bound<'py, PyArray1<i8>>,
    Bound<'py, PyArray1<i32>>,
    Longs<'py>,
);

/// What the first pass of `neardup.spark.fates` makes of a batch of texts,
/// each text read once: its fingerprint, its short kind (2 short, 1
/// near-short only, 0 otherwise) and, under the short-document rule
/// (`verify` given), the rule's keys of the near-short ones, as list
/// offsets (one more than the texts) and the keys they delimit.
#[pyfunction]
#[pyo3(signature = (fingerprinter, texts, verify=None))]
pub(crate) fn sketch_rows<'py>(
    py: Python<'py>,
    fingerprinter: &Fingerprinter64,
    texts: &Bound<'py, PyAny>,
    verify: Option<&str>,
) -> PyResult<SketchedRows<'py>> {
    let rule = verify.map(verification).transpose()?.map(ShortRule::new);
    let texts = Texts::from_py(texts, "texts")?;
    let fingerprinter = &fingerprinter.inner;
    if fingerprinter.width() != Width::W64 {
        return Err(NeardupError::new_err(
            "sketch_rows: a fingerprinter of 64 bits (Spark's longs)",
        ));
    }
    let rows = py.detach(|| -> PyResult<Vec<(i64, i8, Vec<u64>)>> {
        let strs = texts.strs("texts")?;
        Ok(strs
            .par_iter()
            .map(|t| {
                let fp = fingerprinter.fingerprint(t).bits() as u64 as i64;
                let Some(rule) = &rule else {
                    return (fp, 0, Vec::new());
                };
                let kind = if is_short(t) {
                    2
                } else {
                    i8::from(is_near_short(t))
                };
                (fp, kind, if kind > 0 { rule.keys(t) } else { Vec::new() })
            })
            .collect())
    })?;
    let mut fps = Vec::with_capacity(rows.len());
    let mut kinds = Vec::with_capacity(rows.len());
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    let mut keys = Vec::new();
    offsets.push(0i32);
    for (fp, kind, ks) in rows {
        fps.push(fp);
        kinds.push(kind);
        keys.extend(ks.into_iter().map(|k| k as i64));
        offsets.push(
            i32::try_from(keys.len()).map_err(|_| {
                NeardupError::new_err("sketch_rows: more than 2^31 keys in one batch")
            })?,
        );
    }
    Ok((
        PyArray1::from_vec(py, fps),
        PyArray1::from_vec(py, kinds),
        PyArray1::from_vec(py, offsets),
        PyArray1::from_vec(py, keys),
    ))
}

/// Whether short documents are found by the short-document rule alone
/// (and left out of the fingerprint join) under `verify`.
#[pyfunction]
pub(crate) fn short_rule_alone(verify: &str) -> PyResult<bool> {
    Ok(ShortRule::new(verification(verify)?).finds_short_alone())
}

/// Whether each candidate pair `(texts[a[i]], texts[b[i]])` is a pair of
/// near-duplicates by the rule of `neardup dedup` (the library's `Rule`,
/// as every front asks it): found (within `k` bits, or by the
/// short-document rule) and passed by `verify`. `fingerprints[j]` is text
/// `j`'s; each text is prepared once, however many pairs it is in, and
/// read in place (no copy per pair).
#[pyfunction]
#[pyo3(signature = (texts, fingerprints, a, b, *, verify, k, short_rule, profile))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn judge_pairs<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    fingerprints: PyReadonlyArray1<'py, i64>,
    a: PyReadonlyArray1<'py, i64>,
    b: PyReadonlyArray1<'py, i64>,
    verify: &str,
    k: u32,
    short_rule: bool,
    profile: &str,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let profile: Profile = profile
        .parse()
        .map_err(|e| crate::error::settings("profile", e))?;
    let mut rule = Rule::with_fingerprinter(
        Fingerprinter::new(profile).map_err(|e| crate::error::settings("profile", e))?,
    );
    rule.k(k)
        .verification(Some(verification(verify)?))
        .short_rule(short_rule);
    let texts = Texts::from_py(texts, "texts")?;
    let (prints, a, b) = (fingerprints.as_slice()?, a.as_slice()?, b.as_slice()?);
    let count = texts.len();
    if prints.len() != count || a.len() != b.len() {
        return Err(NeardupError::new_err(
            "judge_pairs: one fingerprint per text, and as many a as b",
        ));
    }
    let at = |i: i64| usize::try_from(i).ok().filter(|&i| i < count);
    let (Some(a), Some(b)) = (
        a.iter().map(|&i| at(i)).collect::<Option<Vec<usize>>>(),
        b.iter().map(|&i| at(i)).collect::<Option<Vec<usize>>>(),
    ) else {
        return Err(NeardupError::new_err(format!(
            "judge_pairs: a pair names a text outside 0..{count}"
        )));
    };
    let near = py.detach(|| -> PyResult<Vec<bool>> {
        let texts = texts.strs("texts")?;
        let prepared: Vec<_> = texts
            .par_iter()
            .zip(prints.par_iter())
            .map(|(text, &f)| rule.prepare_fingerprinted(text, Fingerprint::from_u64(f as u64)))
            .collect();
        Ok(a.par_iter()
            .zip(b.par_iter())
            .map(|(&x, &y)| rule.judge_prepared(&prepared[x], &prepared[y]).near)
            .collect())
    })?;
    Ok(PyArray1::from_vec(py, near))
}

/// The short-document rule's pairs of many key groups: group `g` is the
/// units `units[offsets[g]..offsets[g + 1]]`; a pair is two units of a
/// group, one of them short (`short[i]`). Gives `(a, b)` units, `a < b`,
/// once per group (a pair that shares several keys comes once from each).
#[pyfunction]
pub(crate) fn short_pairs_in_groups<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    units: PyReadonlyArray1<'py, i64>,
    short: PyReadonlyArray1<'py, bool>,
) -> PyResult<(Longs<'py>, Longs<'py>)> {
    let (offsets, units, short) = (offsets.as_slice()?, units.as_slice()?, short.as_slice()?);
    if units.len() != short.len() || offsets.last().is_some_and(|&e| e as usize > units.len()) {
        return Err(NeardupError::new_err(
            "units, short and offsets do not agree",
        ));
    }
    let members: Vec<(i64, bool)> = units.iter().copied().zip(short.iter().copied()).collect();
    let (a, b): (Vec<i64>, Vec<i64>) = offsets
        .windows(2)
        .flat_map(|g| short_pairs_of_group(&members[g[0] as usize..g[1] as usize]))
        .unzip();
    Ok((PyArray1::from_vec(py, a), PyArray1::from_vec(py, b)))
}

/// The short-document rule's pairs among the `(unit, short)` members of
/// one key's group: two different units, one of them short, as `(a, b)`
/// with `a < b`.
pub(crate) fn short_pairs_of_group(
    members: &[(i64, bool)],
) -> impl Iterator<Item = (i64, i64)> + '_ {
    members.iter().enumerate().flat_map(move |(i, &(a, sa))| {
        members[i + 1..]
            .iter()
            .filter(move |&&(b, sb)| (sa || sb) && a != b)
            .map(move |&(b, _)| (a.min(b), a.max(b)))
    })
}

/// The connected components of the undirected edges `(u[i], v[i])`, as
/// `(nodes, labels)`: every node of an edge, ascending, and the least node
/// of its component. The library's [`components`] (the CLI's
/// `--cluster components`) over the nodes numbered in ascending order, so
/// a component's first member is its least node.
#[pyfunction]
pub(crate) fn least_in_components<'py>(
    py: Python<'py>,
    u: PyReadonlyArray1<'py, i64>,
    v: PyReadonlyArray1<'py, i64>,
) -> PyResult<(Longs<'py>, Longs<'py>)> {
    let (u, v) = (u.as_slice()?, v.as_slice()?);
    if u.len() != v.len() {
        return Err(NeardupError::new_err("u and v: one node each per edge"));
    }
    let (nodes, labels) = py.detach(|| -> PyResult<(Vec<i64>, Vec<i64>)> {
        let mut nodes: Vec<i64> = u.iter().chain(v).copied().collect();
        nodes.par_sort_unstable();
        nodes.dedup();
        let number = |x: i64| nodes.binary_search(&x).unwrap_or_default() as u32;
        if u32::try_from(nodes.len()).is_err() {
            return Err(NeardupError::new_err(
                "more than 2³² nodes: too many to label on the driver",
            ));
        }
        let pairs: Vec<Pair> = u
            .par_iter()
            .zip(v)
            .map(|(&a, &b)| Pair {
                a: number(a),
                b: number(b),
                distance: 0,
            })
            .collect();
        let mut labels = vec![0i64; nodes.len()];
        for group in components(nodes.len(), &pairs) {
            let least = nodes[group[0] as usize];
            for member in group {
                labels[member as usize] = least;
            }
        }
        Ok((nodes, labels))
    })?;
    Ok((
        PyArray1::from_vec(py, nodes),
        PyArray1::from_vec(py, labels),
    ))
}

/// Every pair of the distinct fingerprints `fingerprints` within `k` bits,
/// by the in-memory join of `neardup dedup` (the plan it chooses for
/// their number): `(a, b, distance)`, positions in `fingerprints`.
#[pyfunction]
pub(crate) fn fingerprint_pairs<'py>(
    py: Python<'py>,
    fingerprints: PyReadonlyArray1<'py, i64>,
    k: u32,
) -> PyResult<PairColumns<'py>> {
    let fps: Vec<u64> = fingerprints.as_slice()?.iter().map(|&f| f as u64).collect();
    let pairs = py.detach(|| joined(&fps, k))?;
    Ok(pair_columns(
        py,
        pairs
            .iter()
            .map(|p| (i64::from(p.a), i64::from(p.b), p.distance as i32)),
    ))
}

/// Every pair of the distinct fingerprints `fps` within `k` bits, by the
/// in-memory join of `neardup dedup` with the plan it chooses for their
/// number.
pub(crate) fn joined(fps: &[u64], k: u32) -> PyResult<Vec<Pair>> {
    let plan = TablePlan::choose_for_join(Width::W64, k, fps.len() as f64)
        .and_then(|choice| choice.plan(Width::W64, k))
        .map_err(|e| crate::error::settings("k", e))?;
    self_join(&plan, fps).map_err(|e| NeardupError::new_err(e.to_string()))
}
