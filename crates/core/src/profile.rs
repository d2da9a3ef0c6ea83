//! Profiles: named, documented presets of every setting.
//!
//! A user picks a profile, not ten flags. Each profile is specified in
//! `docs/FINGERPRINT.md` and pinned by golden vectors.
//!
//! | profile | tokens | features | weights | notes |
//! |---|---|---|---|---|
//! | `en` | UAX #29 words | words | term frequency | English stop words dropped |
//! | `zh` | jieba words (no HMM) | character bigrams of the kept words | term frequency | Chinese and English stop words and one-character Han words dropped |
//! | `auto` | per document: `zh` when Han characters are at least a quarter as many as other letters, else `en` | | | the default |
//! | `python-simhash` | PyPI `simhash` 2.x: `[\w]` characters, 4-grams | | counts, MD5 | bit for bit |

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::features::FeatureKind;
use crate::fingerprint::Width;
use crate::hash::FeatureHash;
use crate::segment::Segmenter;
use crate::stopwords::StopWords;
use crate::weight::Weighting;
use crate::weight::idf::IdfTable;

/// A named preset of settings.
///
/// ```
/// use neardup_core::Profile;
///
/// assert_eq!("python-simhash".parse::<Profile>()?, Profile::PythonSimhash);
/// assert_eq!(Profile::default(), Profile::Auto);
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Profile {
    /// `en` or `zh`, chosen per document by its script; the default.
    #[default]
    Auto,
    /// English and other space-separated languages.
    En,
    /// Chinese.
    Zh,
    /// Reproduces PyPI `simhash` 2.x `Simhash(text)` bit for bit.
    PythonSimhash,
}

impl Profile {
    /// Every profile.
    pub const ALL: [Profile; 4] = [
        Profile::Auto,
        Profile::En,
        Profile::Zh,
        Profile::PythonSimhash,
    ];

    /// The name used in flags and files.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Auto => "auto",
            Profile::En => "en",
            Profile::Zh => "zh",
            Profile::PythonSimhash => "python-simhash",
        }
    }

    /// One line on what the profile is for.
    pub fn description(self) -> &'static str {
        match self {
            Profile::Auto => "en or zh per document, by script (default)",
            Profile::En => "words, term frequency, English stop words dropped",
            Profile::Zh => "character bigrams of jieba words, term frequency, stop words dropped",
            Profile::PythonSimhash => "bit-for-bit PyPI simhash 2.x Simhash(text)",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Profile {
    type Err = Error;

    fn from_str(s: &str) -> Result<Profile> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                Error::config(format!(
                    "unknown profile {s:?}; choose one of auto, en, zh, python-simhash"
                ))
            })
    }
}

/// Every setting of the text pipeline for one kind of document.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) name: &'static str,
    pub(crate) segmenter: Segmenter,
    pub(crate) stop_words: Option<Arc<StopWords>>,
    /// Han words with fewer characters are dropped (1 keeps them all).
    pub(crate) min_han_chars: usize,
    pub(crate) features: FeatureKind,
    pub(crate) weighting: Weighting,
    /// The IDF table of TF-IDF weighting; `None` is jieba's, loaded on
    /// first use.
    pub(crate) idf: Option<Arc<IdfTable>>,
    pub(crate) top_k: Option<usize>,
    pub(crate) hash: FeatureHash,
    pub(crate) width: Width,
}

const SEGMENTER: Segmenter = Segmenter { unspaced_ngram: 2 };

impl Settings {
    pub(crate) fn en() -> Settings {
        Settings {
            name: "en",
            segmenter: SEGMENTER,
            // Kept, English function words would pull all English texts
            // together: 155 times the candidate pairs on BBC News at k = 6,
            // for 0.009 of F1 (docs/QUALITY.md).
            stop_words: Some(Arc::new(StopWords::english())),
            min_han_chars: 1,
            features: FeatureKind::Words,
            weighting: Weighting::Tf,
            idf: None,
            top_k: None,
            hash: FeatureHash::Xxh3,
            width: Width::W64,
        }
    }

    pub(crate) fn zh() -> Settings {
        Settings {
            name: "zh",
            segmenter: SEGMENTER,
            stop_words: Some(Arc::new(StopWords::english_and_chinese())),
            min_han_chars: 2,
            // Bigrams of the kept words beat the words, weighed by TF or
            // TF-IDF, at every k (docs/QUALITY.md, format 2).
            features: FeatureKind::CharNgrams(2),
            weighting: Weighting::Tf,
            idf: None,
            top_k: None,
            hash: FeatureHash::Xxh3,
            width: Width::W64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Profile::ALL {
            assert_eq!(p.name().parse::<Profile>().unwrap(), p);
            assert!(!p.description().is_empty());
        }
        assert!("english".parse::<Profile>().is_err());
    }
}
