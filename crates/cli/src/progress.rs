//! The progress bar on stderr: documents/s, MB/s, and an ETA when the input
//! size is known. Hidden when stderr is not a terminal (where a dedup's
//! passes are lines instead), and with --quiet.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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

    /// The time since the bar was made.
    pub fn elapsed(&self) -> Duration {
        self.bar.elapsed()
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// The dedup library's reports as a bar per pass, named and numbered
/// ("pass 2/3 verifying"), and its skipped records as messages. When stderr
/// is not a terminal, where no bar shows, each pass is a line as it starts
/// and one as it ends.
pub struct Bars {
    quiet: bool,
    lines: bool,
    /// The passes the run makes at most.
    passes: usize,
    pass: AtomicUsize,
    rereads: AtomicUsize,
    current: Mutex<Option<(Progress, String)>>,
    skipped: AtomicU64,
    /// The parts of the run said to spill so far.
    spilling: Mutex<Vec<String>>,
    /// When the run began: the work between passes is said with the time
    /// so far.
    started: Instant,
}

impl Bars {
    /// Bars on stderr, unless `quiet`, for a run of at most `passes`
    /// passes over the documents.
    pub fn new(quiet: bool, passes: usize) -> Bars {
        Bars {
            quiet,
            lines: !quiet && !std::io::stderr().is_terminal(),
            passes,
            pass: AtomicUsize::new(0),
            rereads: AtomicUsize::new(0),
            current: Mutex::new(None),
            skipped: AtomicU64::new(0),
            spilling: Mutex::new(Vec::new()),
            started: Instant::now(),
        }
    }

    /// The name of the pass that starts now: `pass 2/3 verifying`.
    fn next_pass(&self, stage: neardup_dedup::Stage) -> String {
        let pass = self.pass.fetch_add(1, Ordering::Relaxed) + 1;
        // The outputs read the ids they name first, then --save-index the
        // kept texts.
        let name = match stage {
            neardup_dedup::Stage::Reading if self.rereads.fetch_add(1, Ordering::Relaxed) == 0 => {
                "reading the ids and samples the outputs name"
            }
            neardup_dedup::Stage::Reading => "reading the kept texts for --save-index",
            other => other.name(),
        };
        // A run may take more passes than planned (an earlier run's batch
        // to settle, say): the count grows rather than reading 4/3.
        format!("pass {pass}/{} {name}", self.passes.max(pass))
    }

    fn with_bar(&self, f: impl FnOnce(&Progress)) {
        if let Ok(current) = self.current.lock()
            && let Some((bar, _)) = current.as_ref()
        {
            f(bar);
        }
    }
}

impl neardup_dedup::Progress for Bars {
    fn stage(&self, stage: neardup_dedup::Stage, total_bytes: Option<u64>) {
        let name = self.next_pass(stage);
        if self.lines {
            let size =
                total_bytes.map_or(String::new(), |b| format!(" · {:.1} MB", b as f64 / 1e6));
            eprintln!("neardup: {name}{size}");
        }
        if let Ok(mut current) = self.current.lock() {
            *current = Some((Progress::stage(total_bytes, self.quiet, &name), name));
        }
    }

    fn document(&self, bytes: usize) {
        self.with_bar(|bar| bar.document(bytes));
    }

    fn finish(&self) {
        if let Ok(mut current) = self.current.lock()
            && let Some((bar, name)) = current.take()
        {
            bar.finish();
            if self.lines {
                eprintln!(
                    "neardup: {name}: {} in {:.1} s",
                    crate::report::count(bar.documents(), "document", "documents"),
                    bar.elapsed().as_secs_f64()
                );
            }
        }
    }

    fn working(&self, what: &str) {
        if !self.quiet {
            eprintln!(
                "neardup: {what} ({:.1} s so far)",
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    fn spilling(&self, what: &str, dir: &std::path::Path) {
        let Ok(mut said) = self.spilling.lock() else {
            return;
        };
        if self.quiet || said.iter().any(|s| s == what) {
            return;
        }
        said.push(what.to_string());
        let show = || {
            eprintln!(
                "neardup: spilling {what} to temporary files in {}: past its share of \
                 --memory (slower, the same result)",
                dir.display()
            )
        };
        match self.current.lock().as_deref() {
            Ok(Some((bar, _))) => bar.suspend(show),
            _ => show(),
        }
    }

    fn skipped(&self, error: &neardup_corpus::Error) {
        let already = self.skipped.fetch_add(1, Ordering::Relaxed);
        let show = || crate::report::show_skipped(already, error);
        match self.current.lock().as_deref() {
            Ok(Some((bar, _))) => bar.suspend(show),
            _ => show(),
        }
    }
}

/// The steps of a command that reads no documents one by one (`eval`), a
/// line each on stderr as it starts: `neardup: step 2/6 building the
/// benchmark (0.4 s so far)`.
pub struct Steps {
    total: usize,
    done: usize,
    started: Instant,
}

impl Steps {
    /// Steps of a command of `total` steps.
    pub fn new(total: usize) -> Steps {
        Steps {
            total,
            done: 0,
            started: Instant::now(),
        }
    }

    /// The next step, `name`, starts.
    pub fn next(&mut self, name: &str) {
        self.done += 1;
        eprintln!(
            "neardup: step {}/{} {name} ({:.1} s so far)",
            self.done,
            self.total.max(self.done),
            self.started.elapsed().as_secs_f64()
        );
    }
}
