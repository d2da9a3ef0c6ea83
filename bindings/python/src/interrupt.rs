//! Ctrl-C during a long call. Python runs its signal handlers only on the
//! thread that called us, and only when that thread asks; so the job runs
//! on a thread of its own while the calling one waits with the GIL released
//! and asks every few milliseconds. An interrupt (`KeyboardInterrupt`, or
//! whatever a handler raises) tells the job to stop through
//! [`Progress::cancelled`], and is raised once the job has stopped.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use neardup_dedup::{Progress, Stage};
use pyo3::prelude::*;

use crate::error::NeardupError;

/// How long the calling thread waits between two looks at Python's
/// signals: short enough that Ctrl-C feels immediate.
const POLL: Duration = Duration::from_millis(50);

/// The job's [`Progress`]: cancelled once a signal handler has raised;
/// when someone watches, its stage and the bytes read in it.
#[derive(Debug, Default)]
pub(crate) struct Interrupt {
    raised: AtomicBool,
    watched: bool,
    /// The stage under way: 0 for none, else 1 + its index in [`STAGES`].
    stage: AtomicUsize,
    done: AtomicU64,
    /// The stage's bytes in all, `u64::MAX` when unknown.
    total: AtomicU64,
}

/// The stages a run reports, by their index in [`Interrupt::stage`].
const STAGES: [Stage; 3] = [Stage::Fingerprinting, Stage::Verifying, Stage::Reading];

impl Progress for Interrupt {
    fn cancelled(&self) -> bool {
        self.raised.load(Ordering::Relaxed)
    }

    fn stage(&self, stage: Stage, total_bytes: Option<u64>) {
        if self.watched {
            let index = STAGES.iter().position(|&s| s == stage).map_or(0, |i| i + 1);
            self.done.store(0, Ordering::Relaxed);
            self.total
                .store(total_bytes.unwrap_or(u64::MAX), Ordering::Relaxed);
            self.stage.store(index, Ordering::Relaxed);
        }
    }

    fn document(&self, bytes: usize) {
        if self.watched {
            self.done.fetch_add(bytes as u64, Ordering::Relaxed);
        }
    }
}

impl Interrupt {
    /// What to tell a watcher: the stage's name, bytes read, bytes in all.
    fn report(&self) -> Option<(&'static str, u64, Option<u64>)> {
        let stage = self.stage.load(Ordering::Relaxed).checked_sub(1)?;
        let total = self.total.load(Ordering::Relaxed);
        Some((
            STAGES.get(stage)?.name(),
            self.done.load(Ordering::Relaxed),
            (total != u64::MAX).then_some(total),
        ))
    }
}

/// Runs `work` with the GIL released, on a thread of its own, and gives its
/// answer; if a signal handler raises meanwhile, `work` is told to stop
/// (through the [`Interrupt`] it is given) and the handler's exception is
/// raised instead of its answer.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    work: impl FnOnce(&Interrupt) -> T + Send,
) -> PyResult<T> {
    watched(py, None, work)
}

/// [`interruptible`], calling `progress(stage, bytes_read, bytes_in_all)`
/// (the last `None` when unknown) from the calling thread as the run goes:
/// a callback that raises stops the run as Ctrl-C does.
pub(crate) fn watched<T: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce(&Interrupt) -> T + Send,
) -> PyResult<T> {
    let interrupt = Interrupt {
        watched: progress.is_some(),
        ..Interrupt::default()
    };
    let mut told = None;
    let mut raised = None;
    let answer = std::thread::scope(|scope| {
        // The sender goes when the job's thread ends, however it ends: the
        // wait below never outlives the job.
        let (running, ended) = mpsc::sync_channel::<()>(0);
        let interrupt = &interrupt;
        let job = scope.spawn(move || {
            let _running = running;
            work(interrupt)
        });
        let mut ended = ended;
        loop {
            // A receiver cannot be shared, only moved: it goes to the wait
            // and comes back.
            let (waited, back) = py.detach(move || (ended.recv_timeout(POLL), ended));
            ended = back;
            if !matches!(waited, Err(RecvTimeoutError::Timeout)) {
                break;
            }
            if raised.is_none() {
                let mut looked = py.check_signals();
                if let (Ok(()), Some(progress), Some(report)) =
                    (&looked, progress, interrupt.report())
                    && told != Some(report)
                {
                    told = Some(report);
                    looked = progress.call1(report).map(drop);
                }
                if let Err(e) = looked {
                    interrupt.raised.store(true, Ordering::Relaxed);
                    raised = Some(e);
                }
            }
        }
        job.join()
    });
    if let Some(e) = raised {
        return Err(e);
    }
    answer.map_err(|_| {
        NeardupError::new_err(
            "neardup failed inside (a bug): please report it, with the call and its input, \
             at https://github.com/neardup/neardup/issues",
        )
    })
}
