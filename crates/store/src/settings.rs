//! What a store's fingerprints were made with, recorded when it is created
//! and checked on every open: fingerprints made otherwise are not
//! comparable, so a store refuses them instead of answering nonsense.

use neardup_core::Width;
use serde_json::{Value, json};

/// The settings of a store.
///
/// ```
/// use neardup_core::Width;
/// use neardup_store::StoreSettings;
///
/// let a = StoreSettings::new(Width::W64, 3, serde_json::json!({"profile": "auto"}), true);
/// let b = StoreSettings { k: 4, ..a.clone() };
/// assert_eq!(StoreSettings::from_json(&a.to_json()), Some(a.clone()));
/// assert!(a.difference(&b).unwrap().contains("k"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct StoreSettings {
    /// The width of its fingerprints.
    pub width: Width,
    /// The most bits two fingerprints may differ by for a query to find
    /// them: the index's tables are laid out for it.
    pub k: u32,
    /// How its fingerprints are made (profile, features, weighting...), as
    /// the front that makes them records it; compared whole.
    pub fingerprint: Value,
    /// Whether it keeps each document's text (for exact verification).
    pub texts: bool,
}

impl StoreSettings {
    /// Settings of fingerprints `width` bits wide, searched within `k`,
    /// made as `fingerprint` says, with texts kept or not.
    pub fn new(width: Width, k: u32, fingerprint: Value, texts: bool) -> StoreSettings {
        StoreSettings {
            width,
            k,
            fingerprint,
            texts,
        }
    }

    /// The settings as the manifest records them.
    pub fn to_json(&self) -> Value {
        json!({
            "width": self.width.bits(),
            "k": self.k,
            "fingerprint": self.fingerprint,
            "texts": self.texts,
        })
    }

    /// The settings `value` records, or `None` when it is not a record.
    pub fn from_json(value: &Value) -> Option<StoreSettings> {
        let width = Width::from_bits(u32::try_from(value.get("width")?.as_u64()?).ok()?).ok()?;
        Some(StoreSettings {
            width,
            k: u32::try_from(value.get("k")?.as_u64()?).ok()?,
            fingerprint: value.get("fingerprint")?.clone(),
            texts: value.get("texts")?.as_bool()?,
        })
    }

    /// What differs between these settings (the store's) and `other`
    /// (a caller's), said for an error; `None` when they agree.
    pub fn difference(&self, other: &StoreSettings) -> Option<String> {
        let mut said = Vec::new();
        if self.width != other.width {
            said.push(format!(
                "it holds {}-bit fingerprints, not {}-bit",
                self.width.bits(),
                other.width.bits()
            ));
        }
        if self.k != other.k {
            said.push(format!(
                "it searches within k = {}, not {}",
                self.k, other.k
            ));
        }
        if self.fingerprint != other.fingerprint {
            said.push(format!(
                "its fingerprints are made with {}, not {}",
                self.fingerprint, other.fingerprint
            ));
        }
        if self.texts != other.texts {
            said.push(if self.texts {
                "it keeps texts, and these settings do not".to_string()
            } else {
                "it keeps no texts, and these settings do".to_string()
            });
        }
        (!said.is_empty()).then(|| said.join("; "))
    }
}
