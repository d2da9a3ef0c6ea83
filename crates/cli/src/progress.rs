//! The progress bar on stderr: documents/s, MB/s, and an ETA when the input
//! size is known. Hidden when stderr is not a terminal, and with --quiet.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Progress of a run over documents.
pub struct Progress {
    bar: ProgressBar,
    docs: AtomicU64,
}

impl Progress {
    /// A bar over `total` bytes if known, else a counter.
    pub fn new(total: Option<u64>, quiet: bool) -> Progress {
        Progress::stage(total, quiet, "")
    }

    /// A bar as [`Progress::new`], after the name of a `stage` of the run
    /// (`"verifying"`), for commands that read their inputs more than once.
    pub fn stage(total: Option<u64>, quiet: bool, stage: &str) -> Progress {
        let prefix = if stage.is_empty() { "" } else { "{prefix} " };
        let bar = match total {
            Some(total) => ProgressBar::new(total).with_style(
                ProgressStyle::with_template(&format!(
                    "{prefix}{{bar:30}} {{bytes}}/{{total_bytes}} {{bytes_per_sec}} {{msg}} ETA {{eta}}"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
            None => ProgressBar::no_length().with_style(
                ProgressStyle::with_template(&format!(
                    "{prefix}{{spinner}} {{bytes}} read {{bytes_per_sec}} {{msg}}"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        };
        bar.set_prefix(stage.to_string());
        // stderr() is hidden when stderr is not a terminal.
        bar.set_draw_target(if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        });
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress {
            bar,
            docs: AtomicU64::new(0),
        }
    }

    /// One document of `bytes` bytes done.
    pub fn document(&self, bytes: usize) {
        self.bar.inc(bytes as u64);
        let n = self.docs.fetch_add(1, Ordering::Relaxed) + 1;

        if n.is_multiple_of(256) {
            let rate = n as f64 / self.bar.elapsed().as_secs_f64().max(1e-9);
            self.bar.set_message(format!("{n} docs {rate:.0} docs/s"));
        }
    }

    /// The number of documents done.
    pub fn documents(&self) -> u64 {
        self.docs.load(Ordering::Relaxed)
    }

    /// Runs `f` with the bar hidden, to print a message.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The dedup library's reports as a bar per stage, and its skipped records
/// as messages.
pub struct Bars {
    quiet: bool,
    current: Mutex<Option<Progress>>,
    skipped: AtomicU64,
}

impl Bars {
    /// Bars on stderr, unless `quiet`.
    pub fn new(quiet: bool) -> Bars {
        Bars {
            quiet,
            current: Mutex::new(None),
            skipped: AtomicU64::new(0),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&Progress)) {
        if let Ok(current) = self.current.lock()
            && let Some(bar) = current.as_ref()
        {
            f(bar);
        }
    }
}

impl neardup_dedup::Progress for Bars {
    fn stage(&self, stage: neardup_dedup::Stage, total_bytes: Option<u64>) {
        // The first pass is the run itself: its bar needs no name.
        let name = match stage {
            neardup_dedup::Stage::Fingerprinting => "",
            neardup_dedup::Stage::Reading => "reading ids",
            other => other.name(),
        };
        if let Ok(mut current) = self.current.lock() {
            *current = Some(Progress::stage(total_bytes, self.quiet, name));
        }
    }

    fn document(&self, bytes: usize) {
        self.with_bar(|bar| bar.document(bytes));
    }

    fn finish(&self) {
        if let Ok(mut current) = self.current.lock()
            && let Some(bar) = current.take()
        {
            bar.finish();
        }
    }

    fn skipped(&self, error: &neardup_corpus::Error) {
        let already = self.skipped.fetch_add(1, Ordering::Relaxed);
        let show = || crate::report::show_skipped(already, error);
        match self.current.lock().as_deref() {
            Ok(Some(bar)) => bar.suspend(show),
            _ => show(),
        }
    }
}
