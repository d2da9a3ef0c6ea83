//! The open connections: how many, what each is doing, and which to close.
//!
//! A connection that holds a socket but sends nothing costs a file
//! descriptor and a buffer; enough of them would starve everyone else,
//! probes included. So every connection has a [`Phase`], and each phase
//! but the work itself has a limit:
//!
//! - new, before its first byte: closed after `header_timeout` (a client
//!   that opens a connection sends its request at once);
//! - waiting for a next request (keep-alive): closed after `idle_timeout`
//!   with no request and no byte moved;
//! - reading a request's head: closed once it has taken `header_timeout`;
//! - reading its body: answered 408 after `body_timeout` (by the guard,
//!   module `guard`, which reads bodies before a request is let in);
//! - working: a handler holds the body and a permit; never cut but at the
//!   shutdown deadline.
//!
//! At most `max_connections` are open. At the cap a new connection closes
//! one that has begun a head and not finished it, two ticks of the clock
//! ([`SWEEP_EVERY`]) or more ago; else one kept alive, or of the crowd
//! among the new and the heads just begun (whichever of the two phases
//! more connections are in; both when as many); else the one that has
//! read a body for longest. Among the first two, the one its own limit
//! would close soonest goes first; only when every open connection is
//! working (bounded by `--max-concurrent`, below the cap) is the new one
//! refused. The listener never stops accepting, so a probe always gets in.
//!
//! Why this order: a head stalled part-way is what a slow-loris attack
//! looks like, while a new connection may simply not have been read yet
//! and a client kept alive between requests has finished every request it
//! began. Within the first two ticks a flood cannot be told from a client
//! by its phase, but it is the crowd: a burst not yet read outnumbers the
//! one head being read in it (a health check that had just come in was
//! closed, seen in CI), and a flood of heads outnumbers the client that
//! connected a moment before it and has not sent its request yet (a
//! probe closed so, seen in CI). And "soonest by its own limit" rather
//! than "stalest": a kept-alive client idle for a moment has most of
//! `idle_timeout` left, a new one less than `header_timeout`; at a clock
//! that moves every [`SWEEP_EVERY`], "stalest" cannot tell a flood from
//! the clients caught in it.

use std::collections::BTreeMap;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
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
    /// New: no byte read yet.
    New = 0,
    /// Kept alive after a request, waiting for the next one's first byte.
    Waiting = 1,
    /// Reading a request's head.
    Head = 2,
    /// Reading a request's body.
    Body = 3,
    /// A handler has the body and works on it.
    Working = 4,
}

impl Phase {
    fn of(value: u8) -> Phase {
        match value {
            0 => Phase::New,
            1 => Phase::Waiting,
            2 => Phase::Head,
            3 => Phase::Body,
            _ => Phase::Working,
        }
    }
}

/// The time limits of connections' phases.
#[derive(Clone, Copy, Debug)]
pub struct PhaseLimits {
    /// A connection kept alive, waiting for a request with no byte
    /// moving, is closed after this long.
    pub idle: Duration,
    /// A request's head must arrive within this long of its first byte,
    /// and a new connection's first byte within this long of its opening.
    pub header: Duration,
}

/// How often the registry's clock moves and overstaying connections are
/// looked for: the phases' limits hold to within this.
pub const SWEEP_EVERY: Duration = Duration::from_millis(100);

/// What a connection's task is told to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Serve on.
    Serve,
    /// Finish the request under way, if any, then close (the shutdown).
    Finish,
    /// Close at once (evicted at the cap, overstayed, or the deadline).
    Close,
}

/// One open connection: its phase since when, and what its task is told.
#[derive(Debug)]
pub struct Connection {
    id: u64,
    phase: AtomicU8,
    /// The registry's clock when the phase began, or a byte last moved
    /// while waiting.
    since: AtomicU64,
    /// The registry's clock, in milliseconds: read, not the system's, at
    /// each of the few phase changes of every request.
    clock: Arc<AtomicU64>,
    order: AtomicU8,
    told: Notify,
    closed: AtomicBool,
}

impl Connection {
    /// Moves it to `phase`, from now.
    pub fn enter(&self, phase: Phase) {
        self.since
            .store(self.clock.load(Ordering::Relaxed), Ordering::Relaxed);
        // Released after `since`: who reads the phase reads its start.
        self.phase.store(phase as u8, Ordering::Release);
    }

    /// What it is doing.
    pub fn phase(&self) -> Phase {
        Phase::of(self.phase.load(Ordering::Acquire))
    }

    /// The registry's clock at which its phase's limit closes it, if its
    /// phase has a limit here (reading a body has its own, in `guard`).
    fn deadline(&self, limits: &PhaseLimits) -> Option<u64> {
        let limit = match self.phase() {
            Phase::Waiting => limits.idle,
            Phase::New | Phase::Head => limits.header,
            Phase::Body | Phase::Working => return None,
        };
        Some(
            self.since
                .load(Ordering::Relaxed)
                .saturating_add(millis(limit)),
        )
    }

    /// The phase it has stayed in past that phase's limit at clock `now`,
    /// if any.
    fn overstayed(&self, limits: &PhaseLimits, now: u64) -> Option<Phase> {
        let phase = self.phase();
        self.deadline(limits)
            .filter(|&deadline| now > deadline)
            .map(|_| phase)
    }

    /// What it is told to do now.
    pub fn order(&self) -> Order {
        match self.order.load(Ordering::Acquire) {
            0 => Order::Serve,
            1 => Order::Finish,
            _ => Order::Close,
        }
    }

    /// Resolves once it is told something (then see [`Connection::order`]).
    pub async fn told(&self) {
        self.told.notified().await;
    }

    fn tell(&self, order: Order) {
        let value = match order {
            Order::Serve => 0,
            Order::Finish => 1,
            Order::Close => 2,
        };
        // An order never goes back: closing outranks finishing.
        self.order.fetch_max(value, Ordering::AcqRel);
        self.told.notify_one();
    }

    /// Closes the connection: its task drops it at once.
    pub fn close(&self) {
        self.tell(Order::Close);
    }

    /// Whether its task has ended.
    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Notes bytes read or written: a first byte starts a request's head;
    /// any byte keeps a waiting connection alive.
    fn moved(&self, read: bool) {
        match self.phase() {
            Phase::New | Phase::Waiting if read => self.enter(Phase::Head),
            Phase::Waiting => self
                .since
                .store(self.clock.load(Ordering::Relaxed), Ordering::Relaxed),
            _ => {}
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Every open connection, the cap on them, and the clock of their phases.
pub struct Connections {
    most: usize,
    limits: PhaseLimits,
    epoch: Instant,
    clock: Arc<AtomicU64>,
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
        self.connection.closed.store(true, Ordering::Release);
        let mut open = self.registry.open.lock().unwrap_or_else(|e| e.into_inner());
        open.remove(&self.connection.id);
        self.registry.gauge(open.len());
    }
}

impl Connections {
    /// A registry keeping at most `most` connections open, each within
    /// `limits` (once [`Connections::sweep`] runs).
    pub fn new(most: usize, limits: PhaseLimits, metrics: Arc<Metrics>) -> Arc<Connections> {
        Arc::new(Connections {
            most: most.max(1),
            limits,
            epoch: Instant::now(),
            clock: Arc::new(AtomicU64::new(0)),
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

    /// Admits a new connection, when at the cap closing one by the
    /// module's rule; `None` when every open one is working. Ties go to
    /// the oldest connection.
    pub fn admit(self: &Arc<Self>) -> Option<Admitted> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() >= self.most {
            let soonest = |which: &dyn Fn(&Connection) -> bool| {
                open.values()
                    .filter(|c| which(c))
                    .filter_map(|c| Some((c.deadline(&self.limits)?, c.id)))
                    .min()
            };
            let longest_body = || {
                open.values()
                    .filter(|c| c.phase() == Phase::Body)
                    .map(|c| (c.since.load(Ordering::Relaxed), c.id))
                    .min()
            };
            // A head begun at this tick of the clock or the last may be a
            // whole request being read right now, not a stalled one.
            let now = self.clock.load(Ordering::Relaxed);
            let stalled = |c: &Connection| {
                c.phase() == Phase::Head
                    && c.since.load(Ordering::Relaxed) + 2 * millis(SWEEP_EVERY) <= now
            };
            // The unread and the heads just begun, counted apart: only
            // the more numerous may go (both when as many).
            let count = |phase: Phase| open.values().filter(|c| c.phase() == phase).count();
            let (unread, heads) = (count(Phase::New), count(Phase::Head));
            let in_the_crowd = |c: &Connection| match c.phase() {
                Phase::Waiting => true,
                Phase::New => unread >= heads,
                Phase::Head => heads >= unread,
                Phase::Body | Phase::Working => false,
            };
            let victim = soonest(&stalled)
                .or_else(|| soonest(&in_the_crowd))
                .or_else(longest_body)
                .map(|(_, id)| id);
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
            phase: AtomicU8::new(Phase::New as u8),
            since: AtomicU64::new(self.clock.load(Ordering::Relaxed)),
            clock: self.clock.clone(),
            order: AtomicU8::new(0),
            told: Notify::new(),
            closed: AtomicBool::new(false),
        });
        open.insert(connection.id, connection.clone());
        self.gauge(open.len());
        Some(Admitted {
            registry: self.clone(),
            connection,
        })
    }

    /// Moves the clock to now and closes the connections that overstayed
    /// their phase. Run every [`SWEEP_EVERY`] (module `listen`): one sweep
    /// of every connection costs less than a timer for each.
    pub fn sweep(&self) {
        let now = millis(self.epoch.elapsed());
        self.clock.store(now, Ordering::Relaxed);
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        for connection in open.values() {
            if let Some(phase) = connection.overstayed(&self.limits, now)
                && connection.order() != Order::Close
            {
                connection.close();
                self.metrics.timed_out(phase);
            }
        }
    }

    /// Tells every open connection to finish its request and close (the
    /// shutdown); the ones in a request, to wait for.
    pub fn finish_all(&self) -> Vec<Arc<Connection>> {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.values()
            .inspect(|c| c.tell(Order::Finish))
            .filter(|c| matches!(c.phase(), Phase::Body | Phase::Working))
            .cloned()
            .collect()
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

    const LIMITS: PhaseLimits = PhaseLimits {
        idle: Duration::from_secs(60),
        header: Duration::from_secs(10),
    };

    fn registry(most: usize) -> Arc<Connections> {
        Connections::new(most, LIMITS, Arc::new(Metrics::default()))
    }

    fn is_open(registry: &Connections, c: &Admitted) -> bool {
        registry.open.lock().unwrap().contains_key(&c.connection.id)
    }

    #[test]
    fn at_the_cap_the_waiting_make_room_then_the_bodies_never_the_working() {
        let open = registry(3);
        let a = open.admit().expect("room");
        let b = open.admit().expect("room");
        let c = open.admit().expect("room");
        a.connection.enter(Phase::Working);
        b.connection.enter(Phase::Body);
        // c is new, b reads a body: c goes first, then b.
        let d = open.admit().expect("c evicted");
        assert!(is_open(&open, &b) && !is_open(&open, &c));
        assert_eq!(c.connection.order(), Order::Close);
        d.connection.enter(Phase::Working);
        let e = open.admit().expect("b evicted");
        assert!(!is_open(&open, &b));
        e.connection.enter(Phase::Working);
        // Every one works: refused.
        assert!(open.admit().is_none());
        drop(a);
        assert!(open.admit().is_some(), "a's end made room");
    }

    #[test]
    fn at_the_cap_stalled_heads_make_room_then_the_waiting_due_first() {
        let open = registry(4);
        let [client, unread, early, late] = [(); 4].map(|()| open.admit().expect("room"));
        // The client finished a request at 5 s and waits for its next;
        // `unread` came at 0 s and has not been read; two heads began at
        // 5 s and 6 s and never finished.
        open.clock.store(5_000, Ordering::Relaxed);
        client.connection.enter(Phase::Waiting);
        early.connection.moved(true);
        open.clock.store(6_000, Ordering::Relaxed);
        late.connection.moved(true);
        // At 9 s: the heads make room, the one due first first, though
        // the unread one is due sooner still (at 10 s).
        open.clock.store(9_000, Ordering::Relaxed);
        let new = open.admit().expect("room made");
        assert!(!is_open(&open, &early) && is_open(&open, &late));
        let _newer = open.admit().expect("room made");
        assert!(!is_open(&open, &late) && is_open(&open, &unread));
        // Then the waiting, due first first: the unread one (10 s), then
        // the new ones (19 s), before the kept-alive client (65 s).
        let _newest = open.admit().expect("room made");
        assert!(!is_open(&open, &unread) && is_open(&open, &client));
        let _last = open.admit().expect("room made");
        assert!(!is_open(&open, &new) && is_open(&open, &client));
    }

    #[test]
    fn at_the_cap_a_head_just_begun_outlasts_the_unread() {
        let open = registry(3);
        let [unread, older, client] = [(); 3].map(|()| open.admit().expect("room"));
        // At 1 s, a burst not read yet (two connections from 0 s) and a
        // client whose request is being read this instant.
        open.clock.store(1_000, Ordering::Relaxed);
        client.connection.moved(true);
        let _new = open.admit().expect("room made");
        assert!(!is_open(&open, &unread) && is_open(&open, &client));
        // Two ticks on, its head is stalled, and it goes first.
        open.clock
            .store(1_000 + 2 * millis(SWEEP_EVERY), Ordering::Relaxed);
        let _newer = open.admit().expect("room made");
        assert!(!is_open(&open, &client) && is_open(&open, &older));
    }

    #[test]
    fn at_the_cap_a_flood_of_heads_spares_a_client_not_yet_read() {
        let open = registry(4);
        // A client connects and has not sent its request yet; a flood of
        // heads comes in the same tick, each read at once.
        let client = open.admit().expect("room");
        let mut flood = Vec::new();
        for _ in 0..20 {
            let head = open.admit().expect("room made");
            head.connection.moved(true);
            flood.push(head);
            assert!(is_open(&open, &client));
        }
        // The flood made room within itself, the heads due first first.
        let open_heads: Vec<bool> = flood.iter().map(|h| is_open(&open, h)).collect();
        assert_eq!(open_heads.iter().filter(|&&o| o).count(), 3);
        assert!(open_heads[17..].iter().all(|&o| o));
    }

    #[test]
    fn a_sweep_closes_who_overstayed_its_phase_and_no_one_else() {
        let open = registry(8);
        let [silent, idle, head, body, work] = [(); 5].map(|()| open.admit().expect("room"));
        idle.connection.enter(Phase::Waiting);
        head.connection.moved(true);
        body.connection.enter(Phase::Body);
        work.connection.enter(Phase::Working);
        // 11 s on: past the header limit, within the idle one. A new
        // connection that never sent a byte is held to the header limit.
        open.clock.store(11_000, Ordering::Relaxed);
        let now = open.clock.load(Ordering::Relaxed);
        let overstayed: Vec<_> = [&silent, &idle, &head, &body, &work]
            .map(|c| c.connection.overstayed(&LIMITS, now))
            .into();
        assert_eq!(
            overstayed,
            [Some(Phase::New), None, Some(Phase::Head), None, None]
        );
        // A byte moving while waiting keeps it alive.
        idle.connection.moved(false);
        assert_eq!(idle.connection.overstayed(&LIMITS, 70_000), None);
        assert_eq!(
            idle.connection.overstayed(&LIMITS, 72_000),
            Some(Phase::Waiting)
        );
        assert_eq!(work.connection.overstayed(&LIMITS, u64::MAX), None);
    }

    #[test]
    fn the_shutdown_tells_all_to_finish_and_waits_for_those_in_a_request() {
        let open = registry(8);
        let [idle, body, work] = [(); 3].map(|()| open.admit().expect("room"));
        idle.connection.enter(Phase::Waiting);
        body.connection.enter(Phase::Body);
        work.connection.enter(Phase::Working);
        let waited: Vec<u64> = open.finish_all().iter().map(|c| c.id).collect();
        assert_eq!(waited, [body.connection.id, work.connection.id]);
        assert_eq!(idle.connection.order(), Order::Finish);
        // Closing outranks finishing, and is never undone.
        work.connection.close();
        work.connection.tell(Order::Finish);
        assert_eq!(work.connection.order(), Order::Close);
        let connection = body.connection.clone();
        drop(body);
        assert!(connection.is_closed());
    }
}
