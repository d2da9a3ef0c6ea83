//! `/metrics`: counters in the Prometheus text format.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use neardup_store::StoreStats;

use crate::connections::Phase;

/// The service's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Group commits made.
    pub commits: AtomicU64,
    /// Writes acknowledged by them.
    pub committed_writes: AtomicU64,
    /// Microseconds spent committing.
    pub commit_micros: AtomicU64,
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
            "neardup_commit_seconds_total",
            "counter",
            "Time spent committing.",
            load(&self.commit_micros) / 1e6,
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
