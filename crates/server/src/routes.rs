//! The handlers of `/v1`: documents in, duplicates out.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use neardup_core::{Fingerprint, Fingerprinter};
use neardup_dedup::{Rule, Verification};
use neardup_index::Bits;
use neardup_index::Neighbour;
use neardup_store::{Duplicate, Insert, Store, Write, Written};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::Limits;
use crate::api::{BatchIn, DocumentIn, DocumentOut, DuplicateOut, MAX_ID_CHARS, Mode, StoredOut};
use crate::commit::{CommitError, Committer, SharedJudge};
use crate::error::ApiError;
use crate::metrics::Metrics;

/// What every handler shares.
pub struct App<B> {
    pub(crate) store: Store<B>,
    pub(crate) committer: Committer<B>,
    pub(crate) fingerprinter: Fingerprinter,
    pub(crate) verification: Option<Verification>,
    pub(crate) judge: Option<SharedJudge>,
    /// The rule whose short-document keys the store keeps, when it keeps
    /// them for the service's rule: short texts are found by them at any
    /// distance.
    pub(crate) keys: Option<Rule>,
    pub(crate) limits: Limits,
    /// The `k` of requests that give none.
    pub(crate) k: u32,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) ready: AtomicBool,
}

type Shared<B> = State<Arc<App<B>>>;

/// A document checked and fingerprinted, ready for the store.
struct Ready<B> {
    id: Option<String>,
    fingerprint: B,
    text: Option<String>,
    metadata: Option<String>,
    mode: Mode,
    k: u32,
}

/// Parses a JSON body, the error saying where it is malformed.
fn parse<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let body = body.map_err(|r| {
        let status = r.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                status,
                "body_too_large",
                format!("{}: send less per request", r.body_text()),
            )
        } else {
            ApiError::new(status, "bad_body", r.body_text())
        }
    })?;
    serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("the body is not the JSON expected: {e}")))
}

impl<B: Bits> App<B> {
    /// Checks document `doc` (called `what` in errors) and fingerprints it.
    fn ready(
        &self,
        doc: DocumentIn,
        mode: Option<Mode>,
        k: Option<u32>,
        what: &str,
    ) -> Result<Ready<B>, ApiError> {
        let k = self.checked_k(doc.k.or(k).unwrap_or(self.k), what)?;
        if let Some(id) = &doc.id {
            checked_id(id, what, "give another, or none to have one made")?;
        }
        let fingerprint = match (&doc.text, &doc.fingerprint) {
            (Some(text), None) => {
                if text.len() > self.limits.max_text_bytes {
                    return Err(ApiError::new(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "text_too_long",
                        format!(
                            "{what}: a text of {} bytes; this service takes at most {} (--max-text-bytes)",
                            text.len(),
                            self.limits.max_text_bytes
                        ),
                    ));
                }
                self.fingerprinter.fingerprint(text)
            }
            (None, Some(hex)) => {
                let fp = Fingerprint::from_hex(hex).map_err(|e| {
                    ApiError::bad_request(format!("{what}: fingerprint {hex:?}: {e}"))
                })?;
                if fp.width() != B::WIDTH {
                    return Err(ApiError::bad_request(format!(
                        "{what}: a {}-bit fingerprint; this store holds {}-bit ones",
                        fp.width().bits(),
                        B::WIDTH.bits()
                    )));
                }
                fp
            }
            _ => {
                return Err(ApiError::bad_request(format!(
                    "{what}: give its text or its fingerprint (one of them)"
                )));
            }
        };
        Ok(Ready {
            id: doc.id,
            fingerprint: B::from_u128(fingerprint.bits()),
            text: doc.text,
            metadata: doc.metadata.map(|m| m.get().to_string()),
            mode: doc.mode.or(mode).unwrap_or_default(),
            k,
        })
    }

    /// `k`, refused (for `what`) past the store's k.
    fn checked_k(&self, k: u32, what: &str) -> Result<u32, ApiError> {
        let most = self.store.settings().k;
        if k > most {
            return Err(ApiError::bad_request(format!(
                "{what}: k = {k}; this store finds documents at most {most} bits apart"
            )));
        }
        Ok(k)
    }

    /// The short-document keys of a document's text, when the store keeps
    /// them for the service's rule.
    fn short_keys(&self, doc: &Ready<B>) -> Vec<u64> {
        match (&self.keys, &doc.text) {
            (Some(rule), Some(text)) => rule.text_keys(text),
            _ => Vec::new(),
        }
    }

    /// How duplicates of a document are decided, said in its answer.
    fn verified(&self, has_text: bool) -> String {
        match (&self.verification, has_text && self.store.settings().texts) {
            (Some(v), true) => format!("texts compared: {}", v.describe()),
            _ => "fingerprint distance only".to_string(),
        }
    }

    fn hex(&self, fingerprint: B) -> String {
        Fingerprint::new(fingerprint.to_u128(), B::WIDTH).to_hex()
    }

    /// The answer to a query: the stored documents within `k` bits,
    /// checked by their texts when both are there.
    fn query(&self, doc: &Ready<B>) -> Result<DocumentOut, ApiError> {
        let mut hits: Vec<Neighbour<String>> = self
            .store
            .query(doc.fingerprint, doc.k)
            .map_err(|e| ApiError::store(&e))?;
        // And the stored texts that share a short-document key, at any
        // distance: the rule judges them as the others.
        let keys = self.short_keys(doc);
        if !keys.is_empty() {
            let keyed = self
                .store
                .query_keys(doc.fingerprint, &keys)
                .map_err(|e| ApiError::store(&e))?;
            hits.extend(keyed);
            hits.sort_by(|a, b| (a.distance, &a.id).cmp(&(b.distance, &b.id)));
            hits.dedup_by(|a, b| a.id == b.id);
        }
        let mut duplicates = Vec::with_capacity(hits.len());
        // The query's text is prepared once, at its first candidate.
        let mut against = None;
        for hit in hits {
            let similarity = match (&self.judge, &doc.text, self.store.settings().texts) {
                (Some(judge), Some(text), true) => {
                    let stored = self.store.get(&hit.id).map_err(|e| ApiError::store(&e))?;
                    match stored.and_then(|d| d.text) {
                        Some(other) => {
                            let against = against.get_or_insert_with(|| judge.against(text));
                            match against(&other) {
                                Some(s) => Some(s),
                                None => continue,
                            }
                        }
                        None => None,
                    }
                }
                _ => None,
            };
            duplicates.push(DuplicateOut {
                id: hit.id,
                distance: hit.distance,
                similarity,
            });
        }
        Ok(DocumentOut {
            id: doc.id.clone(),
            fingerprint: self.hex(doc.fingerprint),
            duplicates,
            inserted: false,
            verified: self.verified(doc.text.is_some()),
            error: None,
        })
    }

    /// Answers `docs`: queries at once, writes in one group commit.
    async fn answer(&self, docs: Vec<Ready<B>>) -> Result<Vec<DocumentOut>, ApiError> {
        let mut answers: Vec<Option<DocumentOut>> = Vec::with_capacity(docs.len());
        let mut writes = Vec::new();
        let mut written_for = Vec::new();
        for (i, doc) in docs.into_iter().enumerate() {
            if doc.mode == Mode::Query {
                answers.push(Some(self.query(&doc)?));
                continue;
            }
            answers.push(None);
            written_for.push((i, self.hex(doc.fingerprint), doc.text.is_some()));
            let keys = self.short_keys(&doc);
            // The segments searched here, on this request's thread, not
            // one insert after another by the writer while the group
            // commit waits (a bad k fails in the writer, as without it).
            let presearch = self.store.presearch(doc.fingerprint, doc.k).ok();
            writes.push(Write::Insert(Insert {
                keys,
                id: doc.id,
                fingerprint: doc.fingerprint,
                text: doc.text,
                metadata: doc.metadata,
                k: doc.k,
                only_if_unique: doc.mode == Mode::InsertIfUnique,
                presearch,
            }));
        }
        if !writes.is_empty() {
            let written = self.committer.write(writes).await.map_err(commit_error)?;
            for ((i, fingerprint, has_text), w) in written_for.into_iter().zip(written) {
                answers[i] = Some(self.written(w, fingerprint, has_text));
            }
        }
        Ok(answers.into_iter().flatten().collect())
    }

    fn written(&self, w: Written, fingerprint: String, has_text: bool) -> DocumentOut {
        let out = |id, duplicates: Vec<Duplicate>, inserted, error| DocumentOut {
            id,
            fingerprint: fingerprint.clone(),
            duplicates: duplicates
                .into_iter()
                .map(|d| DuplicateOut {
                    id: d.id,
                    distance: d.distance,
                    similarity: d.similarity,
                })
                .collect(),
            inserted,
            verified: self.verified(has_text),
            error,
        };
        match w {
            Written::Inserted { id, duplicates } => out(Some(id), duplicates, true, None),
            Written::NotUnique { id, duplicates } => out(id, duplicates, false, None),
            Written::IdTaken { id } => {
                let message = format!(
                    "a document of id {id:?} is stored; delete it first, or give another id"
                );
                out(
                    Some(id),
                    Vec::new(),
                    false,
                    Some(json!({"code": "id_taken", "message": message})),
                )
            }
            Written::Deleted { id } | Written::Missing { id } => {
                out(Some(id), Vec::new(), false, None)
            }
        }
    }
}

fn commit_error(e: CommitError) -> ApiError {
    match e {
        CommitError::Stopping => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "stopping",
            "the service is stopping; nothing was written: retry on its next start",
        ),
        CommitError::Failed(m) => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "store_failed",
            format!("the store failed, nothing was written: {m}"),
        ),
    }
}

/// Runs `work` (fingerprinting texts: up to a body's worth, milliseconds)
/// telling the runtime that this thread is busy, so that the requests it
/// would serve meanwhile move to another.
/// Requests of fingerprints alone (the most common in bulk) skip the
/// hand-over, which costs more than their work; so does a runtime of one
/// thread (a caller's of [`crate::Service::router`]), which has no other
/// thread to hand over to.
fn fingerprinting<T>(texts: bool, work: impl FnOnce() -> T) -> T {
    let threads = tokio::runtime::Handle::try_current()
        .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
    if texts && threads {
        tokio::task::block_in_place(work)
    } else {
        work()
    }
}

/// `POST /v1/documents`.
pub async fn post_document<B: Bits>(
    State(app): Shared<B>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let doc: DocumentIn = parse(body)?;
    let ready = fingerprinting(doc.text.is_some(), || {
        app.ready(doc, None, None, "the document")
    })?;
    let mut answers = app.answer(vec![ready]).await?;
    let answer = answers
        .pop()
        .ok_or_else(|| ApiError::bad_request("no answer"))?;
    let status = match &answer.error {
        Some(_) => StatusCode::CONFLICT,
        None if answer.inserted => StatusCode::CREATED,
        None => StatusCode::OK,
    };
    Ok((status, Json(answer)).into_response())
}

/// `POST /v1/documents:batch`.
pub async fn post_batch<B: Bits>(
    State(app): Shared<B>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let batch: BatchIn = parse(body)?;
    // The batch's k is refused as a document's is, even when every
    // document gives its own (or there is none): the schema bounds both.
    if let Some(k) = batch.k {
        app.checked_k(k, "the batch")?;
    }
    if batch.documents.len() > app.limits.max_batch {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "batch_too_large",
            format!(
                "{} documents; a batch takes at most {} (--max-batch): split it",
                batch.documents.len(),
                app.limits.max_batch
            ),
        ));
    }
    let texts = batch.documents.iter().any(|d| d.text.is_some());
    let ready = fingerprinting(texts, || {
        batch
            .documents
            .into_iter()
            .enumerate()
            .map(|(i, doc)| app.ready(doc, batch.mode, batch.k, &format!("documents[{i}]")))
            .collect::<Result<Vec<_>, _>>()
    })?;
    let results = app.answer(ready).await?;
    Ok(Json(json!({ "results": results })))
}

/// `GET /v1/documents/{id}`.
pub async fn get_document<B: Bits>(
    State(app): Shared<B>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let id = document_id(id)?;
    let doc = app
        .store
        .get(&id)
        .map_err(|e| ApiError::store(&e))?
        .ok_or_else(|| not_found(&id))?;
    // The metadata's JSON text as it was sent, not parsed into a `Value`
    // and printed again, which would round numbers past f64's precision.
    // Text that is not JSON (a store written by other means) is `null`.
    let metadata = doc
        .metadata
        .as_deref()
        .and_then(|m| serde_json::from_str::<&serde_json::value::RawValue>(m).ok());
    Ok(Json(StoredOut {
        id: &id,
        fingerprint: app.hex(B::from_u128(doc.fingerprint)),
        text: doc.text.as_deref(),
        metadata,
    })
    .into_response())
}

/// `DELETE /v1/documents/{id}`.
pub async fn delete_document<B: Bits>(
    State(app): Shared<B>,
    id: Result<Path<String>, PathRejection>,
) -> Result<Json<Value>, ApiError> {
    let id = document_id(id)?;
    let written = app
        .committer
        .write(vec![Write::Delete(id.clone())])
        .await
        .map_err(commit_error)?;
    match written.first() {
        Some(Written::Deleted { .. }) => Ok(Json(json!({"id": id, "deleted": true}))),
        _ => Err(not_found(&id)),
    }
}

/// The id of a `/v1/documents/{id}` path, or the API's error when it is
/// not text (percent-encoded bytes that are not UTF-8) or is longer than
/// any id stored.
///
/// A longer id is a bad request (400), as the OpenAPI document says by
/// its `maxLength`, rather than a 404: no insert takes such an id, so the
/// request is outside the API, and 400 says that whatever the store
/// holds (a store filled by `neardup index add` may hold longer ids,
/// which queries still find).
fn document_id(id: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    let id = id.map(|Path(id)| id).map_err(|r| {
        ApiError::bad_request(format!(
            "{}: an id is text, percent-encoded as UTF-8",
            r.body_text()
        ))
    })?;
    checked_id(&id, "the path's id", "the service stores none so long")?;
    Ok(id)
}

/// Refuses an id (of document `what`) outside 1 to [`MAX_ID_CHARS`]
/// characters, the message ending with `advice`.
fn checked_id(id: &str, what: &str, advice: &str) -> Result<(), ApiError> {
    let chars = id.chars().count();
    if (1..=MAX_ID_CHARS).contains(&chars) {
        return Ok(());
    }
    Err(ApiError::bad_request(format!(
        "{what}: an id of {chars} characters; an id is 1 to {MAX_ID_CHARS} characters \
         (Unicode scalar values): {advice}"
    )))
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no document has id {id:?}"),
    )
}

/// `GET /v1/stats`.
pub async fn stats<B: Bits>(State(app): Shared<B>) -> Json<Value> {
    let stats = app.store.stats();
    let settings = app.store.settings();
    Json(json!({
        "documents": stats.documents,
        "segments": stats.segments,
        "recent": stats.recent,
        "deleted_entries": stats.deleted,
        "merges": stats.merges,
        "merge_error": stats.merge_error,
        "flush_error": stats.flush_error,
        "checkpoints": stats.checkpoints,
        "checkpoint_error": stats.checkpoint_error,
        "width": settings.width.bits(),
        "k": settings.k,
        "default_k": app.k,
        "texts": settings.texts,
        "verification": app.verification.as_ref().map(Verification::describe),
        "fingerprint": settings.fingerprint,
    }))
}

/// `GET /healthz`: the process answers.
pub async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// `GET /readyz`: the store is open and the service is not stopping.
pub async fn readyz<B: Bits>(State(app): Shared<B>) -> Response {
    if app.ready.load(Ordering::Acquire) {
        Json(json!({"status": "ready"})).into_response()
    } else {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "not_ready",
            "the service is stopping",
        )
        .into_response()
    }
}

/// `GET /metrics`.
pub async fn metrics<B: Bits>(State(app): Shared<B>) -> Response {
    let text = app.metrics.render(&app.store.stats());
    ([("content-type", "text/plain; version=0.0.4")], text).into_response()
}

/// A route asked with a method it does not take.
pub async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!(
            "{method} {}: this route takes other methods (the Allow header names them; see /openapi.json)",
            uri.path()
        ),
    )
}

/// Any other path.
pub async fn unknown() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no_such_route",
        "no such route: see /openapi.json for the API",
    )
}
