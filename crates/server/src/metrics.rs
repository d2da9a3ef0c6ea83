//! `/metrics`: counters in the Prometheus text format.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use neardup_store::StoreStats;

use crate::connections::Phase;

/// The service's counters.
#[derive(Debug)]
pub struct Metrics {
    /// Group commits made.
    pub commits: AtomicU64,
    /// Writes acknowledged by them.
    pub committed_writes: AtomicU64,
    /// How long each group commit took (a flush of the recent documents
    /// into a segment included): the tail an insert's latency inherits.
    pub commit_seconds: Histogram,
    /// How many writes each group commit took.
    pub commit_writes: Histogram,
    /// Compactions done (every segment merged into one, when idle).
    pub compactions: AtomicU64,
    /// Connections open now.
    pub open_connections: AtomicU64,
    /// Connections closed at the cap to make room for a new one.
    pub evicted: AtomicU64,
    /// Connections refused at the cap, every open one being worked on.
    pub refused: AtomicU64,
    /// Failed accepts (out of file descriptors, say), each waited out.
    pub accept_errors: AtomicU64,
    /// Connections closed after waiting for a request past the idle timeout.
    timed_out_idle: AtomicU64,
    /// Connections closed for a head not sent within the header timeout.
    timed_out_head: AtomicU64,
    /// Requests answered, by route and status.
    requests: Mutex<BTreeMap<(String, u16), u64>>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics {
            commits: AtomicU64::new(0),
            committed_writes: AtomicU64::new(0),
            commit_seconds: Histogram::new(&COMMIT_SECONDS),
            commit_writes: Histogram::new(&COMMIT_WRITES),
            compactions: AtomicU64::new(0),
            open_connections: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            accept_errors: AtomicU64::new(0),
            timed_out_idle: AtomicU64::new(0),
            timed_out_head: AtomicU64::new(0),
            requests: Mutex::new(BTreeMap::new()),
        }
    }
}

/// The upper bounds of the commit-time buckets, in seconds: a commit's
/// sync takes about a millisecond, so the buckets are finest there.
const COMMIT_SECONDS: [f64; 12] = [
    0.000_5, 0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0,
];

/// The upper bounds of the group-size buckets, in writes.
const COMMIT_WRITES: [f64; 11] = [
    1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 1024.0, 4096.0,
];

/// A Prometheus histogram: observations counted in fixed buckets, with
/// their sum, updated without a lock.
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [f64],
    /// Observations in each bucket alone (not cumulative), the last past
    /// every bound.
    counts: Vec<AtomicU64>,
    /// The sum, in millionths (microseconds for seconds).
    sum_millionths: AtomicU64,
}

impl Histogram {
    /// An empty histogram over `bounds`, ascending.
    pub fn new(bounds: &'static [f64]) -> Histogram {
        Histogram {
            bounds,
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum_millionths: AtomicU64::new(0),
        }
    }

    /// Counts `value` in the first bucket whose bound it does not pass.
    pub fn observe(&self, value: f64) {
        let bucket = self.bounds.partition_point(|&bound| bound < value);
        self.counts[bucket].fetch_add(1, Ordering::Relaxed);
        self.sum_millionths
            .fetch_add((value * 1e6).round() as u64, Ordering::Relaxed);
    }

    /// Appends the histogram as Prometheus text, buckets cumulative.
    pub fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut total = 0;
        for (i, count) in self.counts.iter().enumerate() {
            total += count.load(Ordering::Relaxed);
            match self.bounds.get(i) {
                Some(bound) => writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {total}"),
                None => writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {total}"),
            }
            .unwrap_or(());
        }
        let sum = self.sum_millionths.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}\n{name}_count {total}");
    }
}

impl Metrics {
    /// Counts a request to `route` answered with `status`.
    pub fn request(&self, route: &str, status: u16) {
        let mut requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        *requests.entry((route.to_string(), status)).or_default() += 1;
    }

    /// Counts a connection closed for overstaying `phase`.
    pub fn timed_out(&self, phase: Phase) {
        match phase {
            Phase::New | Phase::Head => &self.timed_out_head,
            _ => &self.timed_out_idle,
        }
        .fetch_add(1, Ordering::Relaxed);
    }

    /// The counters, and the store's figures, as Prometheus text.
    pub fn render(&self, stats: &StoreStats) -> String {
        let mut out = String::new();
        let mut metric = |name: &str, kind: &str, help: &str, value: f64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        };
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed) as f64;
        metric(
            "neardup_documents",
            "gauge",
            "Documents stored.",
            stats.documents as f64,
        );
        metric(
            "neardup_segments",
            "gauge",
            "Index segments on disk.",
            stats.segments.len() as f64,
        );
        metric(
            "neardup_recent_documents",
            "gauge",
            "Documents in no segment yet.",
            stats.recent as f64,
        );
        metric(
            "neardup_deleted_entries",
            "gauge",
            "Segment entries deleted, not merged away yet.",
            stats.deleted as f64,
        );
        metric(
            "neardup_merges_total",
            "counter",
            "Segment merges since start.",
            stats.merges as f64,
        );
        metric(
            "neardup_merge_seconds_total",
            "counter",
            "Time those merges took, in the background, from writing their segment to its swap.",
            stats.merge_time.as_secs_f64(),
        );
        metric(
            "neardup_flushes_total",
            "counter",
            "Flushes of the recent documents into a segment since start.",
            stats.flushes as f64,
        );
        metric(
            "neardup_flush_seconds_total",
            "counter",
            "Time those flushes took, in the background, from freeze to swap.",
            stats.flush_time.as_secs_f64(),
        );
        metric(
            "neardup_flush_records_seconds_total",
            "counter",
            "The part of it spent taking their records from the log, and committing those with a text or metadata to the documents file.",
            stats.flush_records_time.as_secs_f64(),
        );
        metric(
            "neardup_checkpoints_total",
            "counter",
            "Checkpoints of the write-ahead log into the store's log since start.",
            stats.checkpoints as f64,
        );
        metric(
            "neardup_checkpoint_seconds_total",
            "counter",
            "Time the writer spent in those checkpoints.",
            stats.checkpoint_time.as_secs_f64(),
        );
        metric(
            "neardup_commits_total",
            "counter",
            "Group commits since start.",
            load(&self.commits),
        );
        metric(
            "neardup_committed_writes_total",
            "counter",
            "Writes acknowledged since start.",
            load(&self.committed_writes),
        );
        metric(
            "neardup_compactions_total",
            "counter",
            "Compactions into one segment, when idle.",
            load(&self.compactions),
        );
        metric(
            "neardup_connections",
            "gauge",
            "Connections open.",
            load(&self.open_connections),
        );
        metric(
            "neardup_connections_evicted_total",
            "counter",
            "Connections closed at --max-connections to make room for a new one.",
            load(&self.evicted),
        );
        metric(
            "neardup_connections_refused_total",
            "counter",
            "Connections refused at --max-connections, every open one being worked on.",
            load(&self.refused),
        );
        metric(
            "neardup_accept_errors_total",
            "counter",
            "Failed accepts (out of file descriptors, say).",
            load(&self.accept_errors),
        );
        self.commit_seconds.render(
            &mut out,
            "neardup_commit_seconds",
            "How long each group commit took, a flush into a segment included.",
        );
        self.commit_writes.render(
            &mut out,
            "neardup_commit_writes",
            "Writes each group commit took.",
        );
        let _ = writeln!(
            out,
            "# HELP neardup_connections_timed_out_total Connections closed for overstaying a phase: \
             idle (--idle-timeout), head (--header-timeout).\n\
             # TYPE neardup_connections_timed_out_total counter\n\
             neardup_connections_timed_out_total{{phase=\"idle\"}} {}\n\
             neardup_connections_timed_out_total{{phase=\"head\"}} {}",
            load(&self.timed_out_idle),
            load(&self.timed_out_head)
        );
        let _ = writeln!(
            out,
            "# HELP neardup_requests_total Requests answered, by route and status.\n\
             # TYPE neardup_requests_total counter"
        );
        let requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        for ((route, status), n) in requests.iter() {
            let _ = writeln!(
                out,
                "neardup_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_counts_each_value_in_its_bucket_and_renders_them_cumulative() {
        let h = Histogram::new(&[0.001, 0.01]);
        for value in [0.0005, 0.001, 0.002, 0.5] {
            h.observe(value);
        }
        let mut out = String::new();
        h.render(&mut out, "took_seconds", "How long it took.");
        assert_eq!(
            out,
            "# HELP took_seconds How long it took.\n# TYPE took_seconds histogram\n\
             took_seconds_bucket{le=\"0.001\"} 2\n\
             took_seconds_bucket{le=\"0.01\"} 3\n\
             took_seconds_bucket{le=\"+Inf\"} 4\n\
             took_seconds_sum 0.5035\ntook_seconds_count 4\n"
        );
    }
}
