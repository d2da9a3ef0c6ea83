//! [`ServeOptions`]: how the service runs, set up by
//! [`ServeOptionsBuilder`] and checked once, when built; [`Limits`]: the
//! part that bounds connections and requests.

use std::net::SocketAddr;
use std::time::Duration;

use crate::{StartError, Token};

/// Limits on connections and on what one request may ask; past them, a
/// JSON error, or the connection closed (docs/API.md, "Limits"). Set
/// through [`ServeOptionsBuilder`]; read here.
///
/// ```
/// use neardup_server::Limits;
///
/// let limits = Limits::default();
/// assert_eq!((limits.max_batch(), limits.max_body_bytes()), (1000, 32 << 20));
/// ```
#[derive(Clone, Debug)]
pub struct Limits {
    pub(crate) max_body_bytes: usize,
    pub(crate) max_batch: usize,
    pub(crate) max_text_bytes: usize,
    pub(crate) max_concurrent: usize,
    pub(crate) max_commit: usize,
    pub(crate) max_connections: usize,
    pub(crate) header_timeout: Duration,
    pub(crate) body_timeout: Duration,
    pub(crate) idle_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: 32 << 20,
            max_batch: 1000,
            max_text_bytes: 4 << 20,
            max_concurrent: 256,
            max_commit: 4096,
            max_connections: 4096,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
        }
    }
}

impl Limits {
    /// Bytes of a request body (413 past it).
    pub fn max_body_bytes(&self) -> usize {
        self.max_body_bytes
    }

    /// Documents of a batch (413 past it).
    pub fn max_batch(&self) -> usize {
        self.max_batch
    }

    /// Bytes of one text (413 past it).
    pub fn max_text_bytes(&self) -> usize {
        self.max_text_bytes
    }

    /// Requests worked on at once, their bodies in hand (503 past it).
    /// `/healthz`, `/readyz` and `/metrics` are never counted.
    pub fn max_concurrent(&self) -> usize {
        self.max_concurrent
    }

    /// Writes gathered into one commit, at most.
    pub fn max_commit(&self) -> usize {
        self.max_commit
    }

    /// Connections open at once. At the cap a new one closes the one that
    /// has made no progress for longest (waiting, or sending a head or a
    /// body); only when every open one is worked on is it refused.
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// A request's head must arrive within this long of its first byte.
    pub fn header_timeout(&self) -> Duration {
        self.header_timeout
    }

    /// A request's body must arrive within this long of its head (408).
    pub fn body_timeout(&self) -> Duration {
        self.body_timeout
    }

    /// A connection with no request and no byte moving is closed after
    /// this long.
    pub fn idle_timeout(&self) -> Duration {
        self.idle_timeout
    }
}

/// How the service runs: made by [`ServeOptions::builder`], so that every
/// value of it has been checked (or [`ServeOptions::default`], which
/// passes those checks).
///
/// ```
/// use std::time::Duration;
/// use neardup_server::{ServeOptions, Token};
///
/// let options = ServeOptions::builder("127.0.0.1:8077".parse()?)
///     .token(Some(Token::new("Zm9vYmFyYmF6cXV4cXV1eA==")?))
///     .shutdown_timeout(Duration::from_secs(5))
///     .build()?;
/// assert!(options.listen().ip().is_loopback());
/// assert_eq!(options.compact_after(), Some(Duration::from_secs(30)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub(crate) listen: SocketAddr,
    pub(crate) token: Option<Token>,
    pub(crate) limits: Limits,
    pub(crate) compact_after: Option<Duration>,
    pub(crate) shutdown_timeout: Duration,
}

/// The defaults, listening on 127.0.0.1:8077: no token, [`Limits::default`],
/// compaction after 30 s without writes, 10 s to shut down.
impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            listen: SocketAddr::from(([127, 0, 0, 1], 8077)),
            token: None,
            limits: Limits::default(),
            compact_after: Some(Duration::from_secs(30)),
            shutdown_timeout: Duration::from_secs(10),
        }
    }
}

impl ServeOptions {
    /// The defaults ([`ServeOptions::default`]) listening on `listen`, to
    /// change and check.
    pub fn builder(listen: SocketAddr) -> ServeOptionsBuilder {
        ServeOptionsBuilder {
            options: ServeOptions {
                listen,
                ..ServeOptions::default()
            },
        }
    }

    /// Where it listens.
    pub fn listen(&self) -> SocketAddr {
        self.listen
    }

    /// The bearer token every request but `/healthz` and `/readyz` must
    /// carry, if any.
    pub fn token(&self) -> Option<&Token> {
        self.token.as_ref()
    }

    /// The limits on connections and requests.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// How long after the last write every segment is merged into one;
    /// `None`: never.
    pub fn compact_after(&self) -> Option<Duration> {
        self.compact_after
    }

    /// From SIGTERM, how long requests already in flight may take to
    /// finish before their connections are cut.
    pub fn shutdown_timeout(&self) -> Duration {
        self.shutdown_timeout
    }
}

/// The settings of a [`ServeOptions`], set one by one and checked together
/// by [`ServeOptionsBuilder::build`]; each setter says its default.
///
/// ```
/// use neardup_server::ServeOptions;
///
/// let open = ServeOptions::builder("0.0.0.0:8077".parse()?).build();
/// assert!(open.is_err(), "anyone could write: a token is needed");
/// # Ok::<(), std::net::AddrParseError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ServeOptionsBuilder {
    options: ServeOptions,
}

impl ServeOptionsBuilder {
    /// The options, checked.
    ///
    /// # Errors
    ///
    /// [`StartError`] when the address is not loopback and no token is
    /// given, or the limits cannot work together.
    pub fn build(&self) -> Result<ServeOptions, StartError> {
        let options = &self.options;
        if !options.listen.ip().is_loopback() && options.token.is_none() {
            return Err(StartError::OpenWithoutToken {
                listen: options.listen,
            });
        }
        let limits = &options.limits;
        if limits.max_connections <= limits.max_concurrent {
            return Err(StartError::TooFewConnections {
                max_connections: limits.max_connections,
                max_concurrent: limits.max_concurrent,
            });
        }
        let zero = [
            ("--header-timeout", limits.header_timeout),
            ("--body-timeout", limits.body_timeout),
            ("--idle-timeout", limits.idle_timeout),
        ];
        if let Some(&(flag, _)) = zero.iter().find(|(_, d)| d.is_zero()) {
            return Err(StartError::ZeroTimeout { flag });
        }
        Ok(options.clone())
    }

    /// The bearer token every request but `/healthz` and `/readyz` must
    /// carry; none by default, and required unless the address is
    /// loopback. One read from a file ([`Token::from_file`]) is read again
    /// on SIGHUP, what came of it said on stderr.
    pub fn token(&mut self, token: Option<Token>) -> &mut ServeOptionsBuilder {
        self.options.token = token;
        self
    }

    /// Once no write has come for this long, every segment is merged into
    /// one, so that a query reads one segment's tables; `None`: never. 30 s
    /// by default.
    pub fn compact_after(&mut self, idle: Option<Duration>) -> &mut ServeOptionsBuilder {
        self.options.compact_after = idle;
        self
    }

    /// From SIGTERM, how long requests already in flight may take to
    /// finish before their connections are cut; 10 s by default.
    pub fn shutdown_timeout(&mut self, timeout: Duration) -> &mut ServeOptionsBuilder {
        self.options.shutdown_timeout = timeout;
        self
    }

    /// [`Limits::max_body_bytes`]; 32 MiB by default.
    pub fn max_body_bytes(&mut self, bytes: usize) -> &mut ServeOptionsBuilder {
        self.options.limits.max_body_bytes = bytes;
        self
    }

    /// [`Limits::max_batch`]; 1000 by default.
    pub fn max_batch(&mut self, documents: usize) -> &mut ServeOptionsBuilder {
        self.options.limits.max_batch = documents;
        self
    }

    /// [`Limits::max_text_bytes`]; 4 MiB by default.
    pub fn max_text_bytes(&mut self, bytes: usize) -> &mut ServeOptionsBuilder {
        self.options.limits.max_text_bytes = bytes;
        self
    }

    /// [`Limits::max_concurrent`]; 256 by default.
    pub fn max_concurrent(&mut self, requests: usize) -> &mut ServeOptionsBuilder {
        self.options.limits.max_concurrent = requests;
        self
    }

    /// [`Limits::max_commit`]; 4096 by default.
    pub fn max_commit(&mut self, writes: usize) -> &mut ServeOptionsBuilder {
        self.options.limits.max_commit = writes;
        self
    }

    /// [`Limits::max_connections`]; 4096 by default (more than
    /// [`Limits::max_concurrent`], or [`build`](Self::build) refuses).
    pub fn max_connections(&mut self, connections: usize) -> &mut ServeOptionsBuilder {
        self.options.limits.max_connections = connections;
        self
    }

    /// [`Limits::header_timeout`]; 10 s by default.
    pub fn header_timeout(&mut self, timeout: Duration) -> &mut ServeOptionsBuilder {
        self.options.limits.header_timeout = timeout;
        self
    }

    /// [`Limits::body_timeout`]; 30 s by default.
    pub fn body_timeout(&mut self, timeout: Duration) -> &mut ServeOptionsBuilder {
        self.options.limits.body_timeout = timeout;
        self
    }

    /// [`Limits::idle_timeout`]; 60 s by default.
    pub fn idle_timeout(&mut self, timeout: Duration) -> &mut ServeOptionsBuilder {
        self.options.limits.idle_timeout = timeout;
        self
    }
}
