//! The request and answer bodies of `/v1/documents`, as JSON.
//!
//! Each optional field of a request takes `null` as missing: the Python
//! client leaves out fields it has no value for, but clients generated
//! from the OpenAPI document may send `null`, and the document says so.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

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
    /// Anything to keep with it, returned by `GET` as it was sent: the
    /// JSON text itself, so that numbers keep every digit.
    pub metadata: Option<Box<RawValue>>,
    /// What to do; `insert_if_unique` when missing.
    pub mode: Option<Mode>,
    /// Duplicates are at most this many bits away; the service's when
    /// missing.
    #[serde(default, deserialize_with = "whole_number")]
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
    #[serde(default, deserialize_with = "whole_number")]
    pub k: Option<u32>,
}

/// A `k`: any JSON number JSON Schema calls an integer from 0 to
/// `u32::MAX`, `3.0` and `3e0` as well as `3` (the schema's `integer`
/// takes them, so the service does), or `null`.
fn whole_number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u32>, D::Error> {
    let Some(number) = Option::<serde_json::Number>::deserialize(deserializer)? else {
        return Ok(None);
    };
    let whole = match (number.as_u64(), number.as_f64()) {
        (Some(n), _) => u32::try_from(n).ok(),
        // Exact: every f64 of this range with no fraction is a u32.
        (None, Some(f)) if f.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&f) => {
            Some(f as u32)
        }
        _ => None,
    };
    whole.map(Some).ok_or_else(|| {
        serde::de::Error::custom(format!(
            "k = {number}: k is a whole number of bits, from 0 to the store's k"
        ))
    })
}

/// A stored document, as `GET /v1/documents/{id}` answers it.
#[derive(Debug, Serialize)]
pub struct StoredOut<'a> {
    /// Its id.
    pub id: &'a str,
    /// Its fingerprint in hex.
    pub fingerprint: String,
    /// Its text, when the store keeps texts.
    pub text: Option<&'a str>,
    /// Its metadata, the JSON text as it was sent.
    pub metadata: Option<&'a RawValue>,
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
