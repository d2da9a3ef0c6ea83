//! What decides a fingerprint, as one typed, versioned value: what an index
//! records beside its fingerprints, and what a reader compares before it
//! compares fingerprints made elsewhere.
//!
//! Its JSON form is the one `neardup` has always written beside an index
//! (`{"format": 2, "profile": "auto", "width": 64, "hash": null, ...}`), so
//! that records written before this type existed read back as it.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, Result};
use crate::features::FeatureKind;
use crate::fingerprint::Width;
use crate::fingerprinter::FingerprinterBuilder;
use crate::hash::FeatureHash;
use crate::profile::Profile;
use crate::weight::Weighting;

/// The version of the fingerprint format defined in `docs/FINGERPRINT.md`.
/// It changes whenever any profile's output changes; golden vectors
/// (`crates/core/tests/data/golden_v2.jsonl`) pin it.
pub const FINGERPRINT_FORMAT: u32 = 2;

/// Everything that decides a fingerprint: two fingerprints are comparable
/// exactly when the settings that made them are equal.
///
/// A setting left at `None` is the profile's default. Stop-word lists and
/// IDF tables are named by a digest of the text they were read from
/// (`xxh3-128:` and 32 hex digits), or `"none"` for no stop words.
///
/// ```
/// use neardup_core::{FeatureKind, Fingerprinter, Profile};
///
/// let fp = Fingerprinter::builder(Profile::En).features(FeatureKind::Shingles(2)).build()?;
/// let settings = fp.settings();
/// assert_eq!(settings.features, Some(FeatureKind::Shingles(2)));
/// let again = Fingerprinter::from_settings(&settings)?;
/// assert_eq!(again.settings(), settings);
/// let other = Fingerprinter::new(Profile::En)?.settings();
/// assert!(settings.difference(&other).unwrap().contains("features"));
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct FingerprintSettings {
    /// The fingerprint format ([`FINGERPRINT_FORMAT`] when made by this
    /// build).
    pub format: u32,
    /// The profile.
    pub profile: Profile,
    /// The width of the fingerprints.
    pub width: Width,
    /// The feature hash, if not the profile's.
    #[serde(default)]
    pub hash: Option<FeatureHash>,
    /// The features, if not the profile's.
    #[serde(default)]
    pub features: Option<FeatureKind>,
    /// The weighting, if not the profile's.
    #[serde(default)]
    pub weighting: Option<Weighting>,
    /// The heaviest features kept, if not all.
    #[serde(default)]
    pub top_k: Option<usize>,
    /// The stop words, if not the profile's: `"none"`, or the digest of
    /// the list's text.
    #[serde(default)]
    pub stop_words: Option<String>,
    /// The digest of the IDF table's text, if not jieba's.
    #[serde(default)]
    pub idf: Option<String>,
}

/// How a stop-word list or IDF table is named in [`FingerprintSettings`].
pub(crate) fn digest_name(digest: u128) -> String {
    format!("xxh3-128:{digest:032x}")
}

/// The digest of a list's or table's text.
pub(crate) fn digest_of(text: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(text.as_bytes())
}

impl FingerprintSettings {
    /// The settings of `profile`'s fingerprinter, `width` bits wide, with
    /// nothing else changed.
    ///
    /// ```
    /// use neardup_core::{FingerprintSettings, Fingerprinter, Profile, Width};
    ///
    /// let settings = FingerprintSettings::of_profile(Profile::Auto, Width::W64);
    /// assert_eq!(settings, Fingerprinter::new(Profile::Auto)?.settings());
    /// # Ok::<(), neardup_core::Error>(())
    /// ```
    pub fn of_profile(profile: Profile, width: Width) -> FingerprintSettings {
        FingerprintSettings {
            format: FINGERPRINT_FORMAT,
            profile,
            width,
            hash: None,
            features: None,
            weighting: None,
            top_k: None,
            stop_words: None,
            idf: None,
        }
    }

    /// What differs between these settings (a store's, "there") and
    /// `other` (a caller's, "here"), one field after another, said for an
    /// error; `None` when they are equal.
    pub fn difference(&self, other: &FingerprintSettings) -> Option<String> {
        let mut said = Vec::new();
        let mut compare = |field: &str, there: String, here: String| {
            if there != here {
                said.push(format!("{field} {there} there, {here} here"));
            }
        };
        compare("format", self.format.to_string(), other.format.to_string());
        compare(
            "profile",
            self.profile.to_string(),
            other.profile.to_string(),
        );
        compare(
            "width",
            self.width.bits().to_string(),
            other.width.bits().to_string(),
        );
        compare("hash", shown(&self.hash), shown(&other.hash));
        compare("features", shown(&self.features), shown(&other.features));
        compare("weighting", shown(&self.weighting), shown(&other.weighting));
        compare("top_k", shown(&self.top_k), shown(&other.top_k));
        compare(
            "stop_words",
            shown(&self.stop_words),
            shown(&other.stop_words),
        );
        compare("idf", shown(&self.idf), shown(&other.idf));
        (!said.is_empty()).then(|| said.join("; "))
    }
}

/// A setting as [`FingerprintSettings::difference`] says it.
fn shown<T: fmt::Display>(value: &Option<T>) -> String {
    match value {
        Some(value) => value.to_string(),
        None => "the profile's default".to_string(),
    }
}

impl FingerprinterBuilder {
    /// A builder set as `settings` say, to make fingerprints comparable with
    /// the ones they describe.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when the settings are of another fingerprint
    /// format, or name a stop-word list or IDF table by its digest (give
    /// the list with [`FingerprinterBuilder::stop_words`] or the table with
    /// [`FingerprinterBuilder::idf`], then compare
    /// [`crate::Fingerprinter::settings`] with the recorded ones).
    pub fn from_settings(settings: &FingerprintSettings) -> Result<FingerprinterBuilder> {
        if settings.format != FINGERPRINT_FORMAT {
            return Err(Error::config(format!(
                "the settings are of fingerprint format {}; this neardup makes format \
                 {FINGERPRINT_FORMAT}, whose fingerprints are not comparable with them",
                settings.format
            )));
        }
        let mut builder = FingerprinterBuilder::new(settings.profile);
        builder.width(settings.width);
        if let Some(hash) = settings.hash {
            builder.hash(hash);
        }
        if let Some(features) = settings.features {
            builder.features(features);
        }
        if let Some(weighting) = settings.weighting {
            builder.weighting(weighting);
        }
        if let Some(k) = settings.top_k {
            builder.top_k(Some(k));
        }
        match settings.stop_words.as_deref() {
            None => {}
            Some("none") => {
                builder.stop_words(None);
            }
            Some(digest) => {
                return Err(Error::config(format!(
                    "the settings name a stop-word list by its digest {digest}; give the list \
                     with FingerprinterBuilder::stop_words"
                )));
            }
        }
        if let Some(digest) = &settings.idf {
            return Err(Error::config(format!(
                "the settings name an IDF table by its digest {digest}; give the table with \
                 FingerprinterBuilder::idf"
            )));
        }
        Ok(builder)
    }
}

/// Settings written as their names (`"xxh3"`, `"shingles:2"`), read back
/// through their `FromStr`, whose error says what is wrong.
macro_rules! serde_as_name {
    ($($setting:ty),+) => {$(
        impl Serialize for $setting {
            fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $setting {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<$setting, D::Error> {
                let name = String::deserialize(deserializer)?;
                name.parse().map_err(serde::de::Error::custom)
            }
        }
    )+};
}

serde_as_name!(Profile, FeatureHash, FeatureKind, Weighting);

/// A width is written as its number of bits, 64 or 128.
impl Serialize for Width {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.bits())
    }
}

impl<'de> Deserialize<'de> for Width {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Width, D::Error> {
        let bits = u32::deserialize(deserializer)?;
        Width::from_bits(bits).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_record_written_before_the_type() {
        let old = r#"{"format":2,"profile":"auto","width":64,"hash":null,"features":"shingles:2",
            "weighting":null,"top_k":null,"stop_words":"none","idf":null}"#;
        let settings: FingerprintSettings = serde_json::from_str(old).unwrap();
        let mut wanted = FingerprintSettings::of_profile(Profile::Auto, Width::W64);
        wanted.features = Some(FeatureKind::Shingles(2));
        wanted.stop_words = Some("none".into());
        assert_eq!(settings, wanted);
        let written = serde_json::to_value(&settings).unwrap();
        assert_eq!(
            written,
            serde_json::from_str::<serde_json::Value>(old).unwrap()
        );
    }

    #[test]
    fn refuses_unknown_fields_and_values() {
        for bad in [
            r#"{"format":2,"profile":"auto","width":64,"colour":"red"}"#,
            r#"{"format":2,"profile":"fr","width":64}"#,
            r#"{"format":2,"profile":"auto","width":32}"#,
        ] {
            assert!(
                serde_json::from_str::<FingerprintSettings>(bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn another_format_is_refused() {
        let mut settings = FingerprintSettings::of_profile(Profile::En, Width::W64);
        settings.format = FINGERPRINT_FORMAT + 1;
        let err = FingerprinterBuilder::from_settings(&settings).unwrap_err();
        assert!(err.to_string().contains("format"), "{err}");
    }
}
