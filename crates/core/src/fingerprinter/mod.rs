//! The configured pipeline: text → tokens → features → weights → fingerprint.
//!
//! [`Fingerprinter`] is built once from a [`Profile`] and optional
//! overrides, then shared by any number of threads. Term-frequency weighting
//! of words streams each token's hash straight into a [`UnitCounter`]; every
//! other setting collects the distinct features first, weighs them, and
//! accumulates them in order of first occurrence (so that floating-point
//! sums, and so fingerprints, are the same on every platform).
//!
//! A text with no features at all (empty, blank, only punctuation or emoji)
//! gets the feature hash of its raw bytes as its fingerprint: identical such
//! texts still match, but different ones are not all piled onto one value as
//! they would be with an all-zero fingerprint.

mod collect;
mod stream;

use std::cell::RefCell;
use std::sync::Arc;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::features::FeatureKind;
use crate::fingerprint::{Fingerprint, Width};
use crate::hash::FeatureHash;
use crate::profile::{Profile, Settings};
use crate::python_compat;
use crate::segment::{Scratch, script};
use crate::settings::{FingerprintSettings, digest_name};
use crate::stopwords::StopWords;
use crate::weight::Weighting;
use crate::weight::idf::IdfTable;
use collect::{accumulate, collect_features};
use stream::{is_streamable, stream_fingerprint};

/// A feature with its hash and weight.
///
/// ```
/// use neardup_core::{Fingerprinter, Profile};
///
/// let fp = Fingerprinter::new(Profile::En)?;
/// let features = fp.weighted_features("the cat and the hat and the cat");
/// assert_eq!(features[0].text, "cat");
/// assert_eq!(features[0].weight, 2.0);
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct WeightedFeature {
    /// The feature's text (normalised).
    pub text: String,
    /// Its feature hash (a 64-bit hash is in the low half).
    pub hash: u128,
    /// Its weight.
    pub weight: f64,
}

/// What went into a fingerprint.
#[derive(Clone, Debug)]
pub struct Explanation {
    /// The fingerprint.
    pub fingerprint: Fingerprint,
    /// The profile applied (`en` or `zh` when the profile is `auto`).
    pub profile: &'static str,
    /// Every weighted feature, in the order they were accumulated.
    pub features: Vec<WeightedFeature>,
}

impl Explanation {
    /// Whether the text had no features, so that its fingerprint is the hash
    /// of its bytes.
    pub fn is_featureless(&self) -> bool {
        self.features.is_empty()
    }

    /// The `n` heaviest features, heaviest first.
    pub fn top(&self, n: usize) -> Vec<&WeightedFeature> {
        let mut all: Vec<&WeightedFeature> = self.features.iter().collect();
        all.sort_by(|a, b| b.weight.total_cmp(&a.weight));
        all.truncate(n);
        all
    }
}

#[derive(Clone, Debug)]
enum Mode {
    Fixed(Settings),
    Auto { en: Settings, zh: Settings },
    PythonSimhash(Width),
}

/// Turns texts into fingerprints.
///
/// ```
/// use neardup_core::{Fingerprinter, Profile};
///
/// let fp = Fingerprinter::new(Profile::Auto)?;
/// let a = fp.fingerprint("The quick brown fox jumps over the lazy dog near the river bank today");
/// let b = fp.fingerprint("The quick brown fox jumped over the lazy dog near the river bank today");
/// let c = fp.fingerprint("Completely unrelated words about stock markets and interest rates");
/// assert!(a.distance(&b)? < a.distance(&c)?);
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Fingerprinter {
    mode: Mode,
    /// The builder it was built by, whose settings [`Fingerprinter::settings`]
    /// reports.
    given: FingerprinterBuilder,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl Fingerprinter {
    /// A fingerprinter with the settings of `profile`.
    ///
    /// # Errors
    ///
    /// None for the shipped profiles; the signature matches
    /// [`FingerprinterBuilder::build`].
    pub fn new(profile: Profile) -> Result<Fingerprinter> {
        FingerprinterBuilder::new(profile).build()
    }

    /// A builder, to change settings of a profile.
    pub fn builder(profile: Profile) -> FingerprinterBuilder {
        FingerprinterBuilder::new(profile)
    }

    /// The fingerprinter `settings` describe (as
    /// [`FingerprinterBuilder::from_settings`], then built).
    ///
    /// # Errors
    ///
    /// As [`FingerprinterBuilder::from_settings`] and
    /// [`FingerprinterBuilder::build`].
    pub fn from_settings(settings: &FingerprintSettings) -> Result<Fingerprinter> {
        FingerprinterBuilder::from_settings(settings)?.build()
    }

    /// What decides its fingerprints: the value an index records, and
    /// compares with another fingerprinter's before it takes fingerprints
    /// made elsewhere.
    ///
    /// ```
    /// use neardup_core::{Fingerprinter, Profile, StopWords, Width};
    ///
    /// let fp = Fingerprinter::builder(Profile::Auto).width(Width::W128).stop_words(None).build()?;
    /// let settings = fp.settings();
    /// assert_eq!((settings.width, settings.stop_words.as_deref()), (Width::W128, Some("none")));
    /// let mine = Fingerprinter::builder(Profile::En)
    ///     .stop_words(Some(StopWords::from_lines("foo\n")?))
    ///     .build()?;
    /// assert!(mine.settings().stop_words.unwrap().starts_with("xxh3-128:"));
    /// # Ok::<(), neardup_core::Error>(())
    /// ```
    pub fn settings(&self) -> FingerprintSettings {
        let given = &self.given;
        let mut settings = FingerprintSettings::of_profile(given.profile, self.width());
        settings.hash = given.hash;
        settings.features = given.features;
        settings.weighting = given.weighting;
        // Every profile keeps all features, so "all" given is the default.
        settings.top_k = given.top_k.flatten();
        settings.stop_words = given.stop_words.as_ref().map(|list| match list {
            None => "none".to_string(),
            Some(list) => digest_name(list.digest()),
        });
        settings.idf = given.idf.as_ref().map(|table| digest_name(table.digest()));
        settings
    }

    /// The width of the fingerprints made.
    pub fn width(&self) -> Width {
        match &self.mode {
            Mode::Fixed(s) => s.width,
            Mode::Auto { en, .. } => en.width,
            Mode::PythonSimhash(w) => *w,
        }
    }

    /// The fingerprint of `text`.
    pub fn fingerprint(&self, text: &str) -> Fingerprint {
        match self.settings_for(text) {
            None => python_compat::fingerprint(text, self.width()),
            Some(settings) if is_streamable(settings) => stream_fingerprint(settings, text),
            Some(settings) => collect::fingerprint(settings, text),
        }
    }

    /// The fingerprints of many texts, in order, on all cores.
    pub fn fingerprint_batch<S: AsRef<str> + Sync>(&self, texts: &[S]) -> Vec<Fingerprint> {
        texts
            .par_iter()
            .map(|t| self.fingerprint(t.as_ref()))
            .collect()
    }

    /// The weighted features of `text`, in the order they are accumulated.
    pub fn weighted_features(&self, text: &str) -> Vec<WeightedFeature> {
        match self.settings_for(text) {
            None => python_compat::weighted_features(text, self.width()),
            Some(settings) => collect_features(settings, text, true),
        }
    }

    /// The fingerprint of `text` with the features that made it.
    pub fn explain(&self, text: &str) -> Explanation {
        match self.settings_for(text) {
            None => Explanation {
                fingerprint: python_compat::fingerprint(text, self.width()),
                profile: "python-simhash",
                features: python_compat::weighted_features(text, self.width()),
            },
            Some(settings) => {
                // The features are collected once; accumulating them gives
                // the same bits as the streaming path (a test checks it).
                let features = collect_features(settings, text, true);
                Explanation {
                    fingerprint: accumulate(settings, text, &features),
                    profile: settings.name,
                    features,
                }
            }
        }
    }

    /// The settings that apply to `text`; `None` for `python-simhash`, whose
    /// pipeline is fixed.
    fn settings_for(&self, text: &str) -> Option<&Settings> {
        match &self.mode {
            Mode::Fixed(s) => Some(s),
            Mode::Auto { en, zh } => Some(if is_mostly_han(text) { zh } else { en }),
            Mode::PythonSimhash(_) => None,
        }
    }
}

/// `auto`'s rule: Chinese when the Han characters are at least a quarter as
/// many as the other letters (a Chinese word has about 1.6 characters, an
/// English one about 5.5, so this is about equal numbers of words).
fn is_mostly_han(text: &str) -> bool {
    // Han characters start with UTF-8 lead bytes E3–E9, EF or F0: a text
    // without any byte in E3..=F0 has none. ASCII text is passed over eight
    // bytes at a time, so most non-Chinese text is settled by one quick pass.
    let (blocks, tail) = text.as_bytes().as_chunks::<32>();
    let has_lead = |bytes: &[u8]| bytes.iter().any(|b| b.wrapping_sub(0xe3) <= 0x0d);
    let may_have_han = has_lead(tail)
        || blocks.iter().any(|block| {
            let (words, _) = block.as_chunks::<8>();
            let high = words.iter().fold(0, |acc, w| acc | u64::from_ne_bytes(*w));
            high & 0x8080_8080_8080_8080 != 0 && has_lead(block)
        });
    if !may_have_han {
        return false;
    }
    let (mut han, mut other) = (0usize, 0usize);
    for c in text.chars() {
        if script::is_han(c) {
            han += 1;
        } else if c.is_alphabetic() {
            other += 1;
        }
    }
    han > 0 && 4 * han >= other
}

/// Builds a [`Fingerprinter`]: a profile, then any setting changed.
///
/// Settings left alone keep the profile's value; with `auto`, a changed
/// setting applies to both of its languages.
///
/// ```
/// use neardup_core::{FeatureHash, FeatureKind, Fingerprinter, Profile, Weighting, Width};
///
/// let fp = Fingerprinter::builder(Profile::En)
///     .width(Width::W128)
///     .hash(FeatureHash::Fnv1a)
///     .features(FeatureKind::Shingles(2))
///     .weighting(Weighting::Binary)
///     .build()?;
/// assert_eq!(fp.fingerprint("a b c").width(), Width::W128);
/// # Ok::<(), neardup_core::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct FingerprinterBuilder {
    profile: Profile,
    width: Option<Width>,
    hash: Option<FeatureHash>,
    features: Option<FeatureKind>,
    weighting: Option<Weighting>,
    top_k: Option<Option<usize>>,
    stop_words: Option<Option<Arc<StopWords>>>,
    idf: Option<Arc<IdfTable>>,
}

impl FingerprinterBuilder {
    /// A builder starting from `profile`.
    pub fn new(profile: Profile) -> FingerprinterBuilder {
        FingerprinterBuilder {
            profile,
            width: None,
            hash: None,
            features: None,
            weighting: None,
            top_k: None,
            stop_words: None,
            idf: None,
        }
    }

    /// The fingerprint width. Default: 64 bits.
    pub fn width(&mut self, width: Width) -> &mut FingerprinterBuilder {
        self.width = Some(width);
        self
    }

    /// The feature hash. Default: XXH3.
    pub fn hash(&mut self, hash: FeatureHash) -> &mut FingerprinterBuilder {
        self.hash = Some(hash);
        self
    }

    /// The kind of features. Default: words.
    pub fn features(&mut self, features: FeatureKind) -> &mut FingerprinterBuilder {
        self.features = Some(features);
        self
    }

    /// The weighting. Default: the profile's (`tf` for `en`, `tfidf` for
    /// `zh`).
    pub fn weighting(&mut self, weighting: Weighting) -> &mut FingerprinterBuilder {
        self.weighting = Some(weighting);
        self
    }

    /// Keep only the `k` heaviest features of each text (seed 004's
    /// `ExtractWithWeight`), or all with `None`. Default: all.
    pub fn top_k(&mut self, k: Option<usize>) -> &mut FingerprinterBuilder {
        self.top_k = Some(k);
        self
    }

    /// The stop words, or none. Default: the profile's list.
    pub fn stop_words(&mut self, stop_words: Option<StopWords>) -> &mut FingerprinterBuilder {
        self.stop_words = Some(stop_words.map(Arc::new));
        self
    }

    /// The IDF table for TF-IDF weighting. Default: jieba's.
    pub fn idf(&mut self, table: IdfTable) -> &mut FingerprinterBuilder {
        self.idf = Some(Arc::new(table));
        self
    }

    /// The fingerprinter.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when settings contradict each other: TextRank with
    /// features other than words, a top-K of 0, or any change to
    /// `python-simhash` other than its width.
    pub fn build(&self) -> Result<Fingerprinter> {
        if self.top_k == Some(Some(0)) {
            return Err(Error::config("top-K must keep at least one feature"));
        }
        let mode = match self.profile {
            Profile::PythonSimhash => {
                if self.hash.is_some()
                    || self.features.is_some()
                    || self.weighting.is_some()
                    || self.top_k.is_some()
                    || self.stop_words.is_some()
                    || self.idf.is_some()
                {
                    return Err(Error::config(
                        "python-simhash reproduces PyPI simhash exactly; only its width can change",
                    ));
                }
                Mode::PythonSimhash(self.width.unwrap_or_default())
            }
            Profile::En => Mode::Fixed(self.apply(Settings::en())?),
            Profile::Zh => Mode::Fixed(self.apply(Settings::zh())?),
            Profile::Auto => Mode::Auto {
                en: self.apply(Settings::en())?,
                zh: self.apply(Settings::zh())?,
            },
        };
        Ok(Fingerprinter {
            mode,
            given: self.clone(),
        })
    }

    fn apply(&self, mut s: Settings) -> Result<Settings> {
        if let Some(w) = self.width {
            s.width = w;
        }
        if let Some(h) = self.hash {
            s.hash = h;
        }
        if let Some(f) = self.features {
            s.features = f;
        }
        if let Some(w) = self.weighting {
            s.weighting = w;
        }
        if let Some(k) = self.top_k {
            s.top_k = k;
        }
        if let Some(stop) = &self.stop_words {
            s.stop_words = stop.clone();
        }
        if let Some(idf) = &self.idf {
            s.idf = Some(idf.clone());
        }
        if s.weighting == Weighting::TextRank && s.features != FeatureKind::Words {
            return Err(Error::config(format!(
                "TextRank ranks words; it cannot weigh {} features",
                s.features
            )));
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests;
