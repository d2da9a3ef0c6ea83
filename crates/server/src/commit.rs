//! Group commit: the writes of concurrent requests gathered into one
//! transaction of the store, so that one sync to disk acknowledges many.
//!
//! One thread owns the writing. It waits for a request, takes every other
//! request already waiting (up to a batch's worth of writes), writes them
//! all in one [`Store::write`], and answers each request with its part.
//! Under load, the batches grow by themselves; alone, a request waits for
//! no one.

use std::sync::Arc;
use std::sync::mpsc;
use std::thread::JoinHandle;

use neardup_index::Bits;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::metrics::Metrics;
use neardup_store::{Judge, Store, Write, Written};
use tokio::sync::oneshot;

/// Decides which stored texts duplicate a new one, shared by the writer
/// and the queries.
pub type SharedJudge = Arc<dyn Judge + Send>;

/// One request's writes and where to send their outcome.
pub struct Job<B> {
    writes: Vec<Write<B>>,
    reply: oneshot::Sender<Result<Vec<Written>, CommitError>>,
}

/// Why writes were not acknowledged.
#[derive(Clone, Debug)]
pub enum CommitError {
    /// The service is shutting down and takes no more writes.
    Stopping,
    /// The store failed; nothing of the group was written.
    Failed(String),
}

/// The handle requests submit writes through.
pub struct Committer<B> {
    queue: mpsc::Sender<Job<B>>,
}

impl<B> Clone for Committer<B> {
    fn clone(&self) -> Self {
        Committer {
            queue: self.queue.clone(),
        }
    }
}

impl<B: Bits> Committer<B> {
    /// Starts the writing thread; it ends when every handle is dropped,
    /// after writing what was submitted.
    pub fn start(
        store: Store<B>,
        judge: Option<SharedJudge>,
        most_per_commit: usize,
        metrics: Arc<Metrics>,
    ) -> std::io::Result<(Committer<B>, JoinHandle<()>)> {
        let (queue, jobs) = mpsc::channel::<Job<B>>();
        let thread = std::thread::Builder::new()
            .name("neardup-commit".into())
            .spawn(move || {
                while let Ok(first) = jobs.recv() {
                    let mut group = vec![first];
                    let mut writes = group[0].writes.len();
                    while writes < most_per_commit {
                        match jobs.try_recv() {
                            Ok(job) => {
                                writes += job.writes.len();
                                group.push(job);
                            }
                            Err(_) => break,
                        }
                    }
                    commit(&store, judge.as_ref(), group, &metrics);
                }
            })?;
        Ok((Committer { queue }, thread))
    }

    /// Writes `writes` in the next group commit; answers once they are
    /// durable (or failed, and nothing of them is written).
    pub async fn write(&self, writes: Vec<Write<B>>) -> Result<Vec<Written>, CommitError> {
        let (reply, answer) = oneshot::channel();
        self.queue
            .send(Job { writes, reply })
            .map_err(|_| CommitError::Stopping)?;
        answer.await.map_err(|_| CommitError::Stopping)?
    }
}

/// Writes a group's jobs in one transaction and answers each.
fn commit<B: Bits>(
    store: &Store<B>,
    judge: Option<&SharedJudge>,
    group: Vec<Job<B>>,
    metrics: &Metrics,
) {
    let mut all = Vec::new();
    let mut replies = Vec::with_capacity(group.len());
    for job in group {
        replies.push((job.writes.len(), job.reply));
        all.extend(job.writes);
    }
    let writes = all.len();
    let started = Instant::now();
    let result = store.write(all, judge.map(|j| &**j as &dyn Judge));
    metrics
        .commit_seconds
        .observe(started.elapsed().as_secs_f64());
    metrics.commit_writes.observe(writes as f64);
    match result {
        Ok(written) => {
            metrics.commits.fetch_add(1, Ordering::Relaxed);
            metrics
                .committed_writes
                .fetch_add(written.len() as u64, Ordering::Relaxed);
            let mut written = written.into_iter();
            for (n, reply) in replies {
                let _ = reply.send(Ok(written.by_ref().take(n).collect()));
            }
        }
        Err(e) => {
            let message = e.to_string();
            for (_, reply) in replies {
                let _ = reply.send(Err(CommitError::Failed(message.clone())));
            }
        }
    }
}
