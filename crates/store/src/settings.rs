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
    /// The rule its documents' short-document keys were made for (as
    /// `jaccard:0.8`), when it keeps them ([`crate::Insert::keys`]): keys
    /// made for one rule find the pairs of that rule only. `None` in a
    /// store made before keys were kept.
    pub short_keys: Option<String>,
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
            short_keys: None,
        }
    }

    /// The same settings, keeping short-document keys made for `rule`.
    ///
    /// ```
    /// use neardup_core::Width;
    /// use neardup_store::StoreSettings;
    ///
    /// let s = StoreSettings::new(Width::W64, 8, serde_json::json!({}), true).keyed("jaccard:0.8");
    /// assert_eq!(StoreSettings::from_json(&s.to_json()), Some(s.clone()));
    /// assert_eq!(s.short_keys.as_deref(), Some("jaccard:0.8"));
    /// ```
    pub fn keyed(self, rule: impl Into<String>) -> StoreSettings {
        StoreSettings {
            short_keys: Some(rule.into()),
            ..self
        }
    }

    /// The settings as the manifest records them.
    pub fn to_json(&self) -> Value {
        let mut value = json!({
            "width": self.width.bits(),
            "k": self.k,
            "fingerprint": self.fingerprint,
            "texts": self.texts,
        });
        // Absent, not null, when none: the record stays as it was before
        // stores kept keys.
        if let (Some(rule), Some(record)) = (&self.short_keys, value.as_object_mut()) {
            record.insert("short_keys".to_string(), json!(rule));
        }
        value
    }

    /// The settings `value` records, or `None` when it is not a record.
    pub fn from_json(value: &Value) -> Option<StoreSettings> {
        let width = Width::from_bits(u32::try_from(value.get("width")?.as_u64()?).ok()?).ok()?;
        Some(StoreSettings {
            width,
            k: u32::try_from(value.get("k")?.as_u64()?).ok()?,
            fingerprint: value.get("fingerprint")?.clone(),
            texts: value.get("texts")?.as_bool()?,
            short_keys: match value.get("short_keys") {
                None => None,
                Some(rule) => Some(rule.as_str()?.to_string()),
            },
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
        if self.short_keys != other.short_keys {
            let said_of = |keys: &Option<String>| match keys {
                Some(rule) => format!("short-document keys for {rule}"),
                None => "no short-document keys".to_string(),
            };
            said.push(format!(
                "it keeps {}, not {}",
                said_of(&self.short_keys),
                said_of(&other.short_keys)
            ));
        }
        (!said.is_empty()).then(|| said.join("; "))
    }
}
