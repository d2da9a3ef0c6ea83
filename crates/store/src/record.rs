//! A stored document as the log holds it: its sequence number, fingerprint,
//! and, when kept, its text and metadata.
//!
//! ```text
//! seq u64 | fingerprint u128 | flags u8 (1: text, 2: metadata)
//! | text length u32, text | metadata length u32, metadata (JSON)
//! ```
//! All numbers little-endian. The fingerprint takes 16 bytes at any width
//! (the low 64 bits for 64-bit fingerprints).

/// A document in the store: what the store keeps of a document written to
/// it (its fingerprint, and its text and metadata when kept), not a
/// document as read from a file (`neardup_corpus::Document`).
///
/// ```
/// use neardup_store::StoredDocument;
///
/// let doc = StoredDocument { seq: 7, fingerprint: 0xabc, text: Some("a text".into()), metadata: None };
/// assert_eq!(StoredDocument::decode(&doc.encode()), Some(doc));
/// assert_eq!(StoredDocument::decode(b"short"), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredDocument {
    /// Its place in the order of writes: later documents have larger ones.
    pub seq: u64,
    /// Its fingerprint (the low bits at width 64).
    pub fingerprint: u128,
    /// Its text, when the store keeps texts.
    pub text: Option<String>,
    /// Its metadata, a JSON value as text, when given.
    pub metadata: Option<String>,
}

const TEXT: u8 = 1;
const METADATA: u8 = 2;

impl StoredDocument {
    /// The bytes the log stores.
    pub fn encode(&self) -> Vec<u8> {
        let extra = self.text.as_ref().map_or(0, |t| t.len() + 4)
            + self.metadata.as_ref().map_or(0, |m| m.len() + 4);
        let mut out = Vec::with_capacity(25 + extra);
        out.extend_from_slice(&self.seq.to_le_bytes());
        out.extend_from_slice(&self.fingerprint.to_le_bytes());
        let flags = if self.text.is_some() { TEXT } else { 0 }
            | if self.metadata.is_some() { METADATA } else { 0 };
        out.push(flags);
        for part in [&self.text, &self.metadata].into_iter().flatten() {
            out.extend_from_slice(&(part.len() as u32).to_le_bytes());
            out.extend_from_slice(part.as_bytes());
        }
        out
    }

    /// Whether the document `bytes` encode has a text or metadata: a
    /// record more than its sequence number and fingerprint, which a
    /// segment entry holds. Damaged bytes count as having more (they are
    /// then kept where they are read whole).
    pub(crate) fn has_more(bytes: &[u8]) -> bool {
        bytes.get(24) != Some(&0) || bytes.len() != 25
    }

    /// The document `bytes` encode, or `None` when they are damaged.
    pub fn decode(bytes: &[u8]) -> Option<StoredDocument> {
        let seq = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
        let fingerprint = u128::from_le_bytes(bytes.get(8..24)?.try_into().ok()?);
        let flags = *bytes.get(24)?;
        let mut rest = bytes.get(25..)?;
        let mut part = |present: bool| -> Option<Option<String>> {
            if !present {
                return Some(None);
            }
            let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
            let text = std::str::from_utf8(rest.get(4..4 + len)?).ok()?.to_string();
            rest = &rest[4 + len..];
            Some(Some(text))
        };
        let text = part(flags & TEXT != 0)?;
        let metadata = part(flags & METADATA != 0)?;
        (rest.is_empty() && flags & !(TEXT | METADATA) == 0).then_some(StoredDocument {
            seq,
            fingerprint,
            text,
            metadata,
        })
    }
}
