//! The listener: connections accepted, each served over HTTP/1.1 within
//! its phases' limits (module `connections`), and the shutdown: from
//! SIGTERM `/readyz` answers 503, requests that came before the signal get
//! until the deadline to finish, later ones are answered 503 `stopping`,
//! then every connection is cut and the writer commits what it was given.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Request, header};
use hyper::body::{Body as _, Bytes, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use neardup_dedup::Rule;
use neardup_index::Bits;
use neardup_store::Store;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tower::ServiceExt;

use crate::connections::{
    Admitted, Connection, Connections, Order, Phase, PhaseLimits, SWEEP_EVERY, Watched,
};
use crate::metrics::Metrics;
use crate::routes::App;
use crate::{ServeOptions, Service, StartError};

/// The largest request head (request line and headers) a connection
/// buffers: past it, the HTTP layer answers 431 with no body. It bounds
/// what a connection that sends a head and never ends it can hold.
const MAX_HEAD_BYTES: usize = 16 << 10;

/// Whether SIGTERM has come, as each request asks.
#[derive(Default)]
pub struct Stop {
    signalled: AtomicBool,
}

impl Stop {
    /// Whether SIGTERM has come.
    pub fn signalled(&self) -> bool {
        self.signalled.load(Ordering::Acquire)
    }
}

/// What the guard knows of a request from its connection.
#[derive(Clone)]
pub struct Arrival {
    /// The connection it came on.
    pub connection: Arc<Connection>,
    /// Whether it came after SIGTERM.
    pub after_stop: bool,
}

/// The address bound and the options checked: what a start can refuse,
/// done before the store is opened, so that a refused start changes
/// nothing on disk.
///
/// ```no_run
/// use neardup_dedup::Rule;
/// use neardup_server::{Bound, ServeOptions};
/// use neardup_store::{Store, StoreOptions, StoreSettings};
///
/// let bound = Bound::new(ServeOptions::builder("127.0.0.1:8077".parse()?).build()?)?;
/// // Only now is the store made or opened.
/// let settings = StoreSettings::builder(8).build();
/// let store = Store::<u64>::open("store".as_ref(), Some(&settings), StoreOptions::default())?;
/// let mut rule = Rule::new()?;
/// rule.verification(None);
/// bound.serve(store, rule, |at| eprintln!("on {at}"))?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Bound {
    runtime: tokio::runtime::Runtime,
    listener: TcpListener,
    address: SocketAddr,
    options: ServeOptions,
}

impl Bound {
    /// Listens on the address of `options`.
    ///
    /// # Errors
    ///
    /// [`StartError`] when the runtime cannot start or the address cannot
    /// be listened on.
    pub fn new(options: ServeOptions) -> Result<Bound, StartError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|error| StartError::Thread {
                what: "runtime",
                error,
            })?;
        let cannot = |error: std::io::Error| StartError::Listen {
            listen: options.listen,
            error,
        };
        let listener = {
            let _entered = runtime.enter();
            listen(options.listen).map_err(cannot)?
        };
        let address = listener.local_addr().map_err(cannot)?;
        Ok(Bound {
            runtime,
            listener,
            address,
            options,
        })
    }

    /// The address listened on (a port of 0 picked one).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Serves `store` until SIGTERM or Ctrl-C, then shuts down (module
    /// doc) and returns once every acknowledged write is committed.
    /// `started` is called with the address once requests are taken.
    ///
    /// # Errors
    ///
    /// [`StartError`] as [`Service::new`].
    pub fn serve<B: Bits>(
        self,
        store: Store<B>,
        rule: Rule,
        started: impl FnOnce(SocketAddr),
    ) -> Result<(), StartError> {
        let Bound {
            runtime,
            listener,
            address,
            options,
        } = self;
        let service = Service::new(store, rule, &options)?;
        let app = service.app.clone();
        // The handles of the app before any task holds one.
        let own_handles = Arc::strong_count(&app);
        let stop = Arc::new(Stop::default());
        runtime.block_on(async {
            if let Some(idle) = options.compact_after {
                tokio::spawn(compact_when_idle(app.clone(), idle));
            }
            tokio::spawn(crate::token::reload_on_sighup(options.token.clone()));
            let limits = PhaseLimits {
                idle: options.limits.idle_timeout,
                header: options.limits.header_timeout,
            };
            let connections =
                Connections::new(options.limits.max_connections, limits, app.metrics.clone());
            tokio::spawn(sweep(connections.clone()));
            let listening = Listening {
                router: service.router(),
                connections: connections.clone(),
                stop: stop.clone(),
                http: http1_builder(),
                metrics: app.metrics.clone(),
            };
            let acceptor = tokio::spawn(listening.accept(listener));
            // Taken before anyone is told: a SIGTERM between `started` and
            // a handler installed later would end the process as a kill
            // does, the store left open.
            let stop_signal = StopSignal::install();
            started(address);
            stop_signal.recv().await;
            app.ready.store(false, Ordering::Release);
            stop.signalled.store(true, Ordering::Release);
            // The requests under way finish, within the deadline; later
            // ones are answered 503 meanwhile.
            let deadline = Instant::now() + options.shutdown_timeout;
            let under_way = connections.finish_all();
            let finished = |c: &Arc<Connection>| {
                c.is_closed() || matches!(c.phase(), Phase::New | Phase::Waiting | Phase::Head)
            };
            while !under_way.iter().all(finished) && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            acceptor.abort();
            connections.close_all();
        });
        // The tasks (connections, the idle compaction) go with the runtime;
        // a compaction under way is left to finish or to die with the
        // process, which a merge survives. Then every handle of the
        // committer is gone with the app: the writer thread commits what
        // it was given and ends.
        runtime.shutdown_timeout(Duration::from_millis(500));
        // A task the runtime's workers drop late (on a loaded machine, past
        // that timeout) still holds the app: waited for, so that the writer
        // thread is joined and the log closed. A log left open is repaired,
        // that is written to, by whatever opens the store next.
        let until = Instant::now() + options.shutdown_timeout;
        while Arc::strong_count(&app) > own_handles && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(app);
        drop(service);
        Ok(())
    }
}

/// Connections the kernel may hold for the service to accept (it takes at
/// most `net.core.somaxconn`, 4096 on Linux since 5.4). Past them a new
/// connection's SYN is dropped and its client retries a second later: a
/// burst of connections (a client reconnecting thousands at once) must
/// not make a probe wait that long.
const LISTEN_BACKLOG: u32 = 4096;

/// A listener on `address`, with [`LISTEN_BACKLOG`].
fn listen(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = match address {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    // As a restart must: its port may still have connections in TIME_WAIT.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(address)?;
    socket.listen(LISTEN_BACKLOG)
}

/// HTTP/1.1 as the service speaks it: keep-alive, heads bounded. Its own
/// timers are left off: the phases' limits are the service's.
fn http1_builder() -> http1::Builder {
    let mut http = http1::Builder::new();
    http.keep_alive(true).max_buf_size(MAX_HEAD_BYTES);
    http
}

/// What the accept loop and each connection share.
#[derive(Clone)]
struct Listening {
    router: Router,
    connections: Arc<Connections>,
    stop: Arc<Stop>,
    http: http1::Builder,
    metrics: Arc<Metrics>,
}

impl Listening {
    /// Accepts connections until aborted. An error of `accept` (out of
    /// file descriptors, say) is counted and waited out, never the end
    /// of the listener.
    async fn accept(self, listener: TcpListener) {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    // At the cap with every connection working: refused.
                    let Some(admitted) = self.connections.admit() else {
                        continue;
                    };
                    let _ = stream.set_nodelay(true);
                    tokio::spawn(self.clone().connection(stream, admitted));
                    // Let the connection read its request before the next
                    // is admitted: a burst waiting in the backlog would
                    // otherwise be accepted a hundred at a time (tokio's
                    // budget), and at the cap each of them closes one
                    // before it was ever read, a health check included.
                    tokio::task::yield_now().await;
                }
                Err(_) => {
                    self.metrics.accept_errors.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
        }
    }

    /// Serves one connection until it ends or is told to close (evicted
    /// at the cap, overstayed its phase, the shutdown's deadline).
    async fn connection(self, stream: TcpStream, admitted: Admitted) {
        let connection = admitted.connection.clone();
        let (router, stop) = (self.router.clone(), self.stop.clone());
        let handler = connection.clone();
        let service = hyper::service::service_fn(move |request: Request<Incoming>| {
            handler.enter(Phase::Body);
            let ended = Arc::new(AtomicBool::new(request.body().is_end_stream()));
            let mut request = request.map(|body| {
                Body::new(EndNoted {
                    body,
                    ended: ended.clone(),
                })
            });
            request.extensions_mut().insert(Arrival {
                connection: handler.clone(),
                after_stop: stop.signalled(),
            });
            let answer = router.clone().oneshot(request);
            let (handler, stop) = (handler.clone(), stop.clone());
            async move {
                let Ok(mut response) = answer.await;
                // Once stopping, each connection ends with its answer; and
                // an answer given before its body was read (a refusal)
                // ends it too, and says so: the rest of the body cannot be
                // told from a next request, and a client that kept the
                // connection for its next would have that one cut.
                if stop.signalled() || !ended.load(Ordering::Acquire) {
                    response
                        .headers_mut()
                        .insert(header::CONNECTION, HeaderValue::from_static("close"));
                }
                handler.enter(Phase::Waiting);
                Ok::<_, Infallible>(response)
            }
        });
        let io = TokioIo::new(Watched::new(stream, connection.clone()));
        let served = self.http.serve_connection(io, service);
        tokio::pin!(served);
        loop {
            tokio::select! {
                _ = served.as_mut() => break,
                () = connection.told() => match connection.order() {
                    Order::Close => break,
                    // Ends after the request under way, if any.
                    Order::Finish => served.as_mut().graceful_shutdown(),
                    Order::Serve => {}
                },
            }
        }
        drop(admitted);
    }
}

/// A request's body that notes when it has been read to its end.
struct EndNoted {
    body: Incoming,
    ended: Arc<AtomicBool>,
}

impl hyper::body::Body for EndNoted {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || self.body.is_end_stream() {
            self.ended.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Every [`SWEEP_EVERY`]: the connections' clock moved on, and those that
/// overstayed their phase closed.
async fn sweep(connections: Arc<Connections>) {
    let mut tick = tokio::time::interval(SWEEP_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        connections.sweep();
    }
}

/// Merges every segment into one once no write has come for `idle`: a
/// store loaded and then mostly read answers from one segment's tables
/// (at 10^7 fingerprints, twice the queries a second of the tiers a
/// bulk load leaves; docs/BENCHMARKS.md). A lone segment of a former
/// format is written again, with the filter of its names that spares the
/// writer a read of the documents file for each new id. Writes go on
/// meanwhile.
async fn compact_when_idle<B: Bits>(app: Arc<App<B>>, idle: Duration) {
    let mut seen = app.metrics.committed_writes.load(Ordering::Relaxed);
    let mut quiet_since = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1).min(idle));
    loop {
        tick.tick().await;
        let now = app.metrics.committed_writes.load(Ordering::Relaxed);
        if now != seen {
            (seen, quiet_since) = (now, Instant::now());
            continue;
        }
        let stats = app.store.stats();
        if quiet_since.elapsed() < idle || (stats.segments.len() < 2 && stats.former_segments == 0)
        {
            continue;
        }
        let store = app.store.clone();
        match tokio::task::spawn_blocking(move || store.compact()).await {
            Ok(Ok(())) => {
                app.metrics.compactions.fetch_add(1, Ordering::Relaxed);
            }
            // Also in `/v1/stats` as `merge_error`; tried again when next
            // idle.
            Ok(Err(e)) => eprintln!("neardup: the idle compaction failed: {e}"),
            Err(e) => eprintln!("neardup: the idle compaction stopped: {e}"),
        }
        quiet_since = Instant::now();
    }
}

/// SIGTERM or Ctrl-C, caught from the moment [`StopSignal::install`]
/// returns (tokio installs a handler when a signal's stream is made, not
/// when it is first awaited).
struct StopSignal {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
}

impl StopSignal {
    /// Installs the handlers; a signal that cannot be caught is never
    /// waited for (its default action stays).
    fn install() -> StopSignal {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            StopSignal {
                term: signal(SignalKind::terminate()).ok(),
                interrupt: signal(SignalKind::interrupt()).ok(),
            }
        }
        #[cfg(not(unix))]
        StopSignal {}
    }

    /// Returns once either signal has come.
    async fn recv(self) {
        #[cfg(unix)]
        {
            let StopSignal {
                mut term,
                mut interrupt,
            } = self;
            async fn next(signal: Option<&mut tokio::signal::unix::Signal>) {
                match signal {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            tokio::select! {
                () = next(term.as_mut()) => {},
                () = next(interrupt.as_mut()) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
