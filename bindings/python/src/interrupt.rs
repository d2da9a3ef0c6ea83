//! Ctrl-C during a long call. Python runs its signal handlers only on the
//! thread that called us, and only when that thread asks; so the job runs
//! on a thread of its own while the calling one waits with the GIL released
//! and asks every few milliseconds. An interrupt (`KeyboardInterrupt`, or
//! whatever a handler raises) tells the job to stop through
//! [`Progress::cancelled`], and is raised once the job has stopped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use neardup_dedup::Progress;
use pyo3::prelude::*;

use crate::error::NeardupError;

/// How long the calling thread waits between two looks at Python's
/// signals: short enough that Ctrl-C feels immediate.
const POLL: Duration = Duration::from_millis(50);

/// The job's [`Progress`]: cancelled once a signal handler has raised.
#[derive(Debug, Default)]
pub(crate) struct Interrupt {
    raised: AtomicBool,
}

impl Progress for Interrupt {
    fn cancelled(&self) -> bool {
        self.raised.load(Ordering::Relaxed)
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
    let interrupt = Interrupt::default();
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
            if raised.is_none()
                && let Err(e) = py.check_signals()
            {
                interrupt.raised.store(true, Ordering::Relaxed);
                raised = Some(e);
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
