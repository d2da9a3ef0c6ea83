//! Queries over the segments a store of 10 million fingerprints holds.
//!
//! ```text
//! cargo bench -p neardup-index --bench segments
//! ```
//!
//! A bulk load leaves tiers: two segments of 4 Mi fingerprints, one of
//! 1 Mi, two of 256 Ki and a few small ones (flushes of 64 Ki merged four
//! at a time). Each group answers the same 65,536 queries, half of them
//! within 3 bits of a stored fingerprint, over random 64-bit fingerprints
//! with k = 3, each segment with the plan `TablePlan::choose` gives its
//! size (as the store does):
//!
//! | bench | what |
//! |---|---|
//! | `tiers/query` | `Segment::query` on each segment in turn, as the store does |
//! | `one/query` | `Segment::query` on one segment of them all (after compaction) |
//!
//! Each table lookup and each candidate's fingerprint is a random read from
//! memory, so a query's time follows their count: about 10 lookups and 2.5
//! candidates on one segment of 10⁷, some 60 lookups and 15 candidates on
//! the tiers. The queries are many, so that what they read is not in the
//! caches from one iteration to the next (a service's queries are all
//! different).

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, Throughput};
use neardup_core::Width;
use neardup_index::{Segment, TablePlan};

const TIERS: [usize; 8] = [
    4 << 20,
    4 << 20,
    1 << 20,
    256 << 10,
    256 << 10,
    64 << 10,
    64 << 10,
    64 << 10,
];
const QUERIES: usize = 1 << 16;

fn mix(x: u64) -> u64 {
    let h = (x ^ x >> 31).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let h = (h ^ h >> 29).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ h >> 32
}

fn segment(dir: &Path, name: &str, fps: &[u64]) -> Segment<u64> {
    let plan = TablePlan::choose(Width::W64, 3, fps.len() as f64, None)
        .and_then(|choice| choice.plan(Width::W64, 3))
        .unwrap();
    let path = dir.join(name);
    let names: Vec<String> = (0..fps.len()).map(|i| i.to_string()).collect();
    Segment::write(&path, plan, fps, &names).unwrap();
    Segment::open(&path).unwrap()
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let all: Vec<u64> = (0..TIERS.iter().sum::<usize>() as u64).map(mix).collect();
    let mut tiers = Vec::new();
    let mut at = 0;
    for (i, &n) in TIERS.iter().enumerate() {
        tiers.push(segment(dir.path(), &format!("tier-{i}"), &all[at..at + n]));
        at += n;
    }
    let one = segment(dir.path(), "one", &all);
    let queries: Vec<u64> = (0..QUERIES as u64)
        .map(|i| {
            let stored = all[mix(i) as usize % all.len()];
            if i % 2 == 0 {
                stored ^ (0b1011 << (i % 60))
            } else {
                mix((i + 1) << 40)
            }
        })
        .collect();
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    let mut group = c.benchmark_group("tiers");
    group.throughput(Throughput::Elements(QUERIES as u64));
    group.bench_function("query", |b| {
        b.iter(|| {
            for &q in &queries {
                for s in &tiers {
                    black_box(s.query(q));
                }
            }
        })
    });
    group.finish();
    let mut group = c.benchmark_group("one");
    group.throughput(Throughput::Elements(QUERIES as u64));
    group.bench_function("query", |b| {
        b.iter(|| {
            for &q in &queries {
                black_box(one.query(q));
            }
        })
    });
    group.finish();
    c.final_summary();
}
