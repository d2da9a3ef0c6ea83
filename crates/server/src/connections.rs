//! The open connections: how many, what each is doing, and which to close.
//!
//! A connection that holds a socket but sends nothing costs a file
//! descriptor and a buffer; enough of them would starve everyone else,
//! probes included. So every connection has a [`Phase`], and each phase
//! but the work itself has a limit:
//!
//! - waiting for a request (keep-alive): closed after `idle_timeout` with
//!   no request and no byte moved;
//! - reading a request's head: closed once it has taken `header_timeout`;
//! - reading its body: answered 408 after `body_timeout` (by the guard,
//!   module `guard`, which reads bodies before a request is let in);
//! - working: a handler holds the body and a permit; never cut but at the
//!   shutdown deadline.
//!
//! At most `max_connections` are open. At the cap a new connection closes
//! the one that has made no progress for longest among those waiting or
//! reading a head, else among those reading a body; only when every open
//! connection is working (bounded by `--max-concurrent`, below the cap) is
//! the new one refused. The listener never stops accepting, so a probe
//! always gets in.

use std::collections::BTreeMap;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

use crate::metrics::Metrics;

/// What a connection is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Waiting for a request's first byte (new, or kept alive).
    Waiting = 0,
    /// Reading a request's head.
    Head = 1,
    /// Reading a request's body.
    Body = 2,
    /// A handler has the body and works on it.
    Working = 3,
}

impl Phase {
    fn of(value: u8) -> Phase {
        match value {
            0 => Phase::Waiting,
            1 => Phase::Head,
            2 => Phase::Body,
            _ => Phase::Working,
        }
    }
}

/// The time limits of connections' phases.
#[derive(Clone, Copy, Debug)]
pub struct PhaseLimits {
    /// A connection waiting for a request, no byte moving, is closed after
    /// this long.
    pub idle: Duration,
    /// A request's head must arrive within this long of its first byte.
    pub header: Duration,
}

/// One open connection: its phase since when, and how to close it.
#[derive(Debug)]
pub struct Connection {
    id: u64,
    phase: AtomicU8,
    /// Milliseconds since the registry's epoch when the phase began, or a
    /// byte last moved while waiting.
    since: AtomicU64,
    epoch: Instant,
    cut: Notify,
}

impl Connection {
    fn now(&self) -> u64 {
        millis(self.epoch.elapsed())
    }

    /// Moves it to `phase`, from now.
    pub fn enter(&self, phase: Phase) {
        self.since.store(self.now(), Ordering::Relaxed);
        self.phase.store(phase as u8, Ordering::Relaxed);
    }

    /// What it is doing.
    pub fn phase(&self) -> Phase {
        Phase::of(self.phase.load(Ordering::Relaxed))
    }

    /// When it must have moved on from its phase, if that phase has a
    /// limit; the phase with it.
    pub fn deadline(&self, limits: &PhaseLimits) -> Option<(Instant, Phase)> {
        let phase = self.phase();
        let limit = match phase {
            Phase::Waiting => limits.idle,
            Phase::Head => limits.header,
            Phase::Body | Phase::Working => return None,
        };
        let since = Duration::from_millis(self.since.load(Ordering::Relaxed));
        Some((self.epoch + since + limit, phase))
    }

    /// Resolves once the connection is to be closed (evicted at the cap,
    /// or the shutdown deadline has come).
    pub async fn cut(&self) {
        self.cut.notified().await;
    }

    /// Closes the connection: its task drops it at once.
    pub fn close(&self) {
        self.cut.notify_one();
    }

    /// Notes bytes read or written: a first byte starts a request's head;
    /// any byte keeps a waiting connection alive.
    fn moved(&self, read: bool) {
        match self.phase() {
            Phase::Waiting if read => self.enter(Phase::Head),
            Phase::Waiting => self.since.store(self.now(), Ordering::Relaxed),
            _ => {}
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Every open connection, and the cap on them.
pub struct Connections {
    most: usize,
    epoch: Instant,
    next: AtomicU64,
    open: Mutex<BTreeMap<u64, Arc<Connection>>>,
    metrics: Arc<Metrics>,
}

/// An admitted connection: removed from the open ones when dropped (its
/// task ended, whatever ended it).
pub struct Admitted {
    registry: Arc<Connections>,
    /// The connection's state.
    pub connection: Arc<Connection>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut open = self.registry.open.lock().unwrap_or_else(|e| e.into_inner());
        open.remove(&self.connection.id);
        self.registry.gauge(open.len());
    }
}

impl Connections {
    /// A registry keeping at most `most` connections open.
    pub fn new(most: usize, metrics: Arc<Metrics>) -> Arc<Connections> {
        Arc::new(Connections {
            most: most.max(1),
            epoch: Instant::now(),
            next: AtomicU64::new(0),
            open: Mutex::new(BTreeMap::new()),
            metrics,
        })
    }

    fn gauge(&self, open: usize) {
        self.metrics
            .open_connections
            .store(open as u64, Ordering::Relaxed);
    }

    /// Admits a new connection, closing the stalest one that is not
    /// working when at the cap; `None` when every open one is working.
    pub fn admit(self: &Arc<Self>) -> Option<Admitted> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() >= self.most {
            let stalest = |phases: &[Phase]| {
                open.values()
                    .filter(|c| phases.contains(&c.phase()))
                    .min_by_key(|c| c.since.load(Ordering::Relaxed))
                    .map(|c| c.id)
            };
            let victim =
                stalest(&[Phase::Waiting, Phase::Head]).or_else(|| stalest(&[Phase::Body]));
            match victim.and_then(|id| open.remove(&id)) {
                Some(victim) => {
                    victim.close();
                    self.metrics.evicted.fetch_add(1, Ordering::Relaxed);
                }
                None => {
                    self.metrics.refused.fetch_add(1, Ordering::Relaxed);
                    return None;
                }
            }
        }
        let connection = Arc::new(Connection {
            id: self.next.fetch_add(1, Ordering::Relaxed),
            phase: AtomicU8::new(Phase::Waiting as u8),
            since: AtomicU64::new(millis(self.epoch.elapsed())),
            epoch: self.epoch,
            cut: Notify::new(),
        });
        open.insert(connection.id, connection.clone());
        self.gauge(open.len());
        Some(Admitted {
            registry: self.clone(),
            connection,
        })
    }

    /// Closes every open connection (the shutdown deadline).
    pub fn close_all(&self) {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        for connection in open.values() {
            connection.close();
        }
    }
}

/// A socket that tells its connection when bytes move.
pub struct Watched<T> {
    io: T,
    connection: Arc<Connection>,
}

impl<T> Watched<T> {
    /// `io`, reporting to `connection`.
    pub fn new(io: T, connection: Arc<Connection>) -> Watched<T> {
        Watched { io, connection }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.connection.moved(true);
        }
        polled
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write(cx, buf);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.connection.moved(false);
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.connection.moved(false);
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(most: usize) -> Arc<Connections> {
        Connections::new(most, Arc::new(Metrics::default()))
    }

    #[test]
    fn at_the_cap_the_stalest_idle_connection_makes_room() {
        let open = registry(3);
        let a = open.admit().expect("room");
        let b = open.admit().expect("room");
        let c = open.admit().expect("room");
        a.connection.enter(Phase::Working);
        b.connection.enter(Phase::Body);
        // c waits, b reads a body: c goes first, then b.
        let d = open.admit().expect("c evicted");
        assert_eq!(open.open.lock().unwrap().len(), 3);
        assert!(open.open.lock().unwrap().contains_key(&b.connection.id));
        assert!(!open.open.lock().unwrap().contains_key(&c.connection.id));
        d.connection.enter(Phase::Working);
        let e = open.admit().expect("b evicted");
        assert!(!open.open.lock().unwrap().contains_key(&b.connection.id));
        e.connection.enter(Phase::Working);
        // Every one works: refused.
        assert!(open.admit().is_none());
        drop(a);
        assert!(open.admit().is_some(), "a's end made room");
    }

    #[test]
    fn a_waiting_connection_has_the_idle_deadline_and_a_working_one_none() {
        let open = registry(2);
        let limits = PhaseLimits {
            idle: Duration::from_secs(60),
            header: Duration::from_secs(10),
        };
        let a = open.admit().expect("room");
        let (at, phase) = a.connection.deadline(&limits).expect("a deadline");
        assert_eq!(phase, Phase::Waiting);
        assert!(at > Instant::now() + Duration::from_secs(50));
        a.connection.moved(true);
        let (at, phase) = a.connection.deadline(&limits).expect("a deadline");
        assert_eq!(phase, Phase::Head);
        assert!(at < Instant::now() + Duration::from_secs(11));
        a.connection.enter(Phase::Working);
        assert!(a.connection.deadline(&limits).is_none());
    }
}
