//! What a store's fingerprints were made with, recorded when it is created
//! and checked on every open: fingerprints made otherwise are not
//! comparable, so a store refuses them instead of answering nonsense.

use neardup_core::{FingerprintSettings, Width};
use serde_json::{Value, json};

/// The settings of a store, made by [`StoreSettings::builder`].
///
/// ```
/// use neardup_core::{Fingerprinter, Profile};
/// use neardup_store::StoreSettings;
///
/// let fingerprints = Fingerprinter::new(Profile::Auto)?.settings();
/// let a = StoreSettings::builder(3).fingerprint(fingerprints).texts(true).build();
/// let b = StoreSettings::builder(4).fingerprint(a.fingerprint.clone().unwrap()).texts(true).build();
/// assert_eq!(StoreSettings::from_json(&a.to_json()), Ok(a.clone()));
/// assert!(a.difference(&b).unwrap().contains("k = 3"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct StoreSettings {
    /// The width of its fingerprints.
    pub width: Width,
    /// The most bits two fingerprints may differ by for a query to find
    /// them: the index's tables are laid out for it.
    pub k: u32,
    /// How its fingerprints are made; `None` when not known (a store of
    /// fingerprints made elsewhere, as the Python `Index.save` of an index
    /// given no fingerprinter makes), and then taken on trust.
    pub fingerprint: Option<FingerprintSettings>,
    /// Whether it keeps each document's text (for exact verification).
    pub texts: bool,
    /// The rule its documents' short-document keys were made for (as
    /// `jaccard:0.8`), when it keeps them ([`crate::Insert::keys`]): keys
    /// made for one rule find the pairs of that rule only. `None` in a
    /// store made before keys were kept.
    pub short_keys: Option<String>,
}

/// Makes [`StoreSettings`]: the `k` of its queries, then what differs from
/// the defaults (64-bit fingerprints of unknown settings, no texts, no
/// short-document keys).
///
/// ```
/// use neardup_core::Width;
/// use neardup_store::StoreSettings;
///
/// let s = StoreSettings::builder(8).width(Width::W128).texts(true).short_keys("jaccard:0.8").build();
/// assert_eq!((s.width, s.k, s.texts), (Width::W128, 8, true));
/// assert_eq!(s.short_keys.as_deref(), Some("jaccard:0.8"));
/// ```
#[derive(Clone, Debug)]
pub struct StoreSettingsBuilder {
    settings: StoreSettings,
}

impl StoreSettings {
    /// A builder of settings whose queries find fingerprints within `k`
    /// bits.
    pub fn builder(k: u32) -> StoreSettingsBuilder {
        StoreSettingsBuilder {
            settings: StoreSettings {
                width: Width::W64,
                k,
                fingerprint: None,
                texts: false,
                short_keys: None,
            },
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

    /// The settings `value` records.
    ///
    /// # Errors
    ///
    /// What is wrong with the record, said for an error that names its
    /// file: a field missing or of the wrong type, or fingerprint settings
    /// this build does not read.
    pub fn from_json(value: &Value) -> Result<StoreSettings, String> {
        let number = |field: &str| {
            value
                .get(field)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| format!("its settings have no number {field:?}"))
        };
        let width = Width::from_bits(number("width")?).map_err(|e| e.to_string())?;
        let fingerprint = match value.get("fingerprint") {
            None | Some(Value::Null) => None,
            Some(recorded) => Some(
                serde_json::from_value::<FingerprintSettings>(recorded.clone()).map_err(|e| {
                    format!(
                        "its fingerprint settings {recorded} are not ones this neardup reads \
                         ({e}); open it with the neardup that made it, or build a new index \
                         from the documents"
                    )
                })?,
            ),
        };
        let texts = value
            .get("texts")
            .and_then(Value::as_bool)
            .ok_or("its settings do not say whether it keeps texts")?;
        let short_keys = match value.get("short_keys") {
            None => None,
            Some(rule) => Some(
                rule.as_str()
                    .ok_or("its short-document keys' rule is not a string")?
                    .to_string(),
            ),
        };
        Ok(StoreSettings {
            width,
            k: number("k")?,
            fingerprint,
            texts,
            short_keys,
        })
    }

    /// What differs between these settings (the store's) and `other`
    /// (a caller's), said for an error; `None` when they agree. Fingerprint
    /// settings are compared when both record them.
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
        if let Some(differ) = self.fingerprint_difference(other) {
            said.push(format!(
                "its fingerprints are made with other settings ({differ})"
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

    /// Which fingerprint settings differ between these settings (the
    /// store's, "there") and `other` ("here"), field by field; `None` when
    /// they agree or either is not known.
    ///
    /// ```
    /// use neardup_core::{FingerprintSettings, Profile, Width};
    /// use neardup_store::StoreSettings;
    ///
    /// let of = |profile| StoreSettings::builder(3)
    ///     .fingerprint(FingerprintSettings::of_profile(profile, Width::W64))
    ///     .build();
    /// let differ = of(Profile::En).fingerprint_difference(&of(Profile::Auto));
    /// assert_eq!(differ.as_deref(), Some("profile en there, auto here"));
    /// assert_eq!(StoreSettings::builder(3).build().fingerprint_difference(&of(Profile::En)), None);
    /// ```
    pub fn fingerprint_difference(&self, other: &StoreSettings) -> Option<String> {
        match (&self.fingerprint, &other.fingerprint) {
            (Some(there), Some(here)) => there.difference(here),
            _ => None,
        }
    }
}

impl StoreSettingsBuilder {
    /// The width of its fingerprints, when no fingerprint settings give it.
    /// Default: 64 bits.
    pub fn width(&mut self, width: Width) -> &mut StoreSettingsBuilder {
        self.settings.width = width;
        self
    }

    /// How its fingerprints are made; their width is the store's.
    /// Default: not known.
    pub fn fingerprint(&mut self, settings: FingerprintSettings) -> &mut StoreSettingsBuilder {
        self.settings.width = settings.width;
        self.settings.fingerprint = Some(settings);
        self
    }

    /// Whether it keeps each document's text. Default: no.
    pub fn texts(&mut self, texts: bool) -> &mut StoreSettingsBuilder {
        self.settings.texts = texts;
        self
    }

    /// Keep short-document keys made for `rule` (as `jaccard:0.8`).
    /// Default: none.
    pub fn short_keys(&mut self, rule: impl Into<String>) -> &mut StoreSettingsBuilder {
        self.settings.short_keys = Some(rule.into());
        self
    }

    /// The settings.
    pub fn build(&self) -> StoreSettings {
        self.settings.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_core::Profile;

    #[test]
    fn reads_fingerprint_settings_written_as_json_text() {
        let old = r#"{"width":64,"k":3,"texts":true,"fingerprint":{"format":2,"profile":"en",
            "width":64,"hash":null,"features":null,"weighting":null,"top_k":null,
            "stop_words":null,"idf":null}}"#;
        let read = StoreSettings::from_json(&serde_json::from_str(old).unwrap()).unwrap();
        let wanted = StoreSettings::builder(3)
            .fingerprint(FingerprintSettings::of_profile(Profile::En, Width::W64))
            .texts(true)
            .build();
        assert_eq!(read, wanted);
    }

    #[test]
    fn unreadable_fingerprint_settings_say_what_to_do() {
        let bad = json!({"width": 64, "k": 3, "texts": false, "fingerprint": {"profile": "test"}});
        let err = StoreSettings::from_json(&bad).unwrap_err();
        assert!(
            err.contains("fingerprint settings") && err.contains("new index"),
            "{err}"
        );
    }
}
