//! The heap a store's compaction takes, as one JSON line.
//!
//! ```text
//! compact_heap fill DIR N     a store of N random 64-bit fingerprints (k = 3,
//!                             ids d0, d1, …) written in batches of 10,000 as
//!                             crates/server/examples/load.rs fills one, but
//!                             never merged: a segment every flush
//! compact_heap compact DIR    the store opened and compacted into one segment
//! ```
//!
//! `compact` prints the heap held before the compaction, the most held
//! during it (counted by the global allocator: every allocation, whether or
//! not its pages were touched), its time and the size of the segment files.
//! Run it under `/usr/bin/time -v` for the peak RSS, which also counts the
//! mapped segment files' pages read. Copy the filled directory to compact
//! the same store again.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use neardup_store::{Insert, Store, StoreOptions, StoreSettings, Write};
use serde_json::json;

/// The system allocator, counting the bytes held now and the most held.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = HELD.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is passed to the system allocator unchanged; the
// counters only add and subtract sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees for `layout` are System's.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        // SAFETY: `p` was allocated by System with `layout`.
        unsafe { System.dealloc(p, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        // SAFETY: `p` was allocated by System with `layout`.
        let q = unsafe { System.realloc(p, layout, size) };
        if !q.is_null() {
            HELD.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(size);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The `i`th stored fingerprint (splitmix64), as the load example draws it.
fn stored(i: u64) -> u64 {
    let mut z = i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match (args.first().map(String::as_str), args.get(1), args.get(2)) {
        (Some("fill"), Some(dir), Some(n)) => fill(Path::new(dir), n.parse::<f64>()? as u64),
        (Some("compact"), Some(dir), None) => compact(Path::new(dir)),
        _ => Err("usage: compact_heap fill DIR N | compact_heap compact DIR".into()),
    }
}

fn fill(dir: &Path, n: u64) -> Result<(), Box<dyn std::error::Error>> {
    let settings = StoreSettings::builder(3).build();
    // No merges while filling: the compaction merges every flush.
    let options = StoreOptions::builder().merge_factor(usize::MAX).build();
    let store = Store::<u64>::open(dir, Some(&settings), options)?;
    let started = Instant::now();
    let mut i = 0;
    while i < n {
        let end = (i + 10_000).min(n);
        let writes = (i..end)
            .map(|j| Write::Insert(Insert::new(stored(j), 3).id(format!("d{j}"))))
            .collect();
        store.write(writes, None)?;
        i = end;
    }
    let seconds = started.elapsed().as_secs_f64();
    let stats = store.stats();
    println!(
        "{}",
        json!({"what": "fill", "fingerprints": n, "seconds": seconds,
               "segments": stats.segments, "recent": stats.recent})
    );
    Ok(())
}

fn compact(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let store = Store::<u64>::open(dir, None, StoreOptions::default())?;
    let before = store.stats().segments;
    let merged: usize = before.iter().sum();
    let held = HELD.load(Ordering::Relaxed);
    PEAK.store(held, Ordering::Relaxed);
    let started = Instant::now();
    store.compact()?;
    let seconds = started.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed);
    let file: u64 = std::fs::read_dir(dir)?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".ndx"))
        .map(|e| e.metadata().map_or(0, |m| m.len()))
        .sum();
    println!(
        "{}",
        json!({
            "what": "compact", "merged": merged, "segments_before": before.len(),
            "segments_after": store.stats().segments, "seconds": seconds,
            "heap_before_mb": held as f64 / 1e6, "heap_peak_mb": peak as f64 / 1e6,
            "heap_peak_bytes_per_merged": (peak - held) as f64 / merged.max(1) as f64,
            "segment_file_mb": file as f64 / 1e6,
        })
    );
    Ok(())
}
