//! The request and answer bodies of `/v1/documents`, as JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most characters (Unicode scalar values, what JSON Schema's
/// `maxLength` counts) of an id. Percent-encoded, the longest id of
/// 4-byte characters makes a path of about 3 KiB, well within
/// [`crate::uri::MAX_URI_BYTES`]: every id stored can be read back.
pub const MAX_ID_CHARS: usize = 256;

/// What a request asks of a document.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Store it, and say what it duplicates.
    Insert,
    /// Store it only when nothing stored duplicates it (the crawler's call).
    #[default]
    InsertIfUnique,
    /// Only say what it duplicates.
    Query,
}

/// A document in a request: its text or its fingerprint.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DocumentIn {
    /// Its id; the service makes one when missing.
    pub id: Option<String>,
    /// Its text, fingerprinted by the service.
    pub text: Option<String>,
    /// Its fingerprint in hex, as `neardup fingerprint` writes it.
    pub fingerprint: Option<String>,
    /// Anything to keep with it, returned by `GET`.
    pub metadata: Option<Value>,
    /// What to do; `insert_if_unique` when missing.
    pub mode: Option<Mode>,
    /// Duplicates are at most this many bits away; the service's when
    /// missing.
    pub k: Option<u32>,
}

/// A batch request.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchIn {
    /// The documents, answered in order.
    pub documents: Vec<DocumentIn>,
    /// The mode of documents that name none.
    pub mode: Option<Mode>,
    /// The `k` of documents that give none.
    pub k: Option<u32>,
}

/// A duplicate found.
#[derive(Clone, Debug, Serialize)]
pub struct DuplicateOut {
    /// Its id.
    pub id: String,
    /// How many bits the fingerprints differ by.
    pub distance: u32,
    /// The texts' similarity, when both were compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
}

/// The answer for one document.
#[derive(Clone, Debug, Serialize)]
pub struct DocumentOut {
    /// Its id (the one made for it, when it gave none and was stored).
    pub id: Option<String>,
    /// Its fingerprint in hex.
    pub fingerprint: String,
    /// Its duplicates among the stored documents, nearest first.
    pub duplicates: Vec<DuplicateOut>,
    /// Whether it was stored (and is now durable).
    pub inserted: bool,
    /// How duplicates were decided: texts compared, or distance alone.
    pub verified: String,
    /// Why it was not stored, when asked to be and it has an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}
