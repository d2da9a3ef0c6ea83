//! Term frequency over words, streamed: every kept token votes once as it
//! comes, into a [`UnitCounter`], with no table of distinct words.

use xxhash_rust::xxh3::xxh3_64;

use super::SCRATCH;
use crate::accumulate::UnitCounter;
use crate::features::FeatureKind;
use crate::fingerprint::{Fingerprint, Width};
use crate::hash::FeatureHash;
use crate::profile::Settings;
use crate::segment::{ScriptClass, Token};
use crate::weight::Weighting;

pub(super) fn is_streamable(s: &Settings) -> bool {
    s.weighting == Weighting::Tf && s.top_k.is_none() && s.features == FeatureKind::Words
}

#[inline(always)]
pub(super) fn keeps(s: &Settings, token: &Token<'_>) -> bool {
    // Both tests are cheap, so they are made without short cuts: one
    // unpredictable branch on the outcome instead of two.
    let short_han = token.class == ScriptClass::Han
        && s.min_han_chars > 1
        && char_count(token.bytes) < s.min_han_chars;
    let stop = s
        .stop_words
        .as_ref()
        .is_some_and(|stop| stop.contains_token(token));
    !(short_han | stop)
}

/// The number of characters of UTF-8 `bytes`: the bytes that start one.
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xc0 != 0x80).count()
}

/// Term frequency over words: every kept token votes once, no table needed.
pub(super) fn stream_fingerprint(s: &Settings, text: &str) -> Fingerprint {
    let mut counter = UnitCounter::new(s.width);
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        let scratch = &mut *scratch;
        // The common case gets a loop of its own, with nothing to decide per
        // token but whether to keep it. The closures are inlined, so that
        // the per-token work runs in the tokeniser's loop without a call.
        if s.hash == FeatureHash::Xxh3 && s.width == Width::W64 {
            s.segmenter.for_each_token(
                text,
                scratch,
                #[inline(always)]
                |token| {
                    if keeps(s, &token) {
                        counter.add64(xxh3_64(token.bytes));
                    }
                },
            );
        } else {
            s.segmenter.for_each_token(text, scratch, |token| {
                if keeps(s, &token) {
                    counter.add128(s.hash.hash(token.bytes, s.width));
                }
            });
        }
    });
    if counter.total() == 0 {
        return featureless(s, text);
    }
    counter.fingerprint()
}

pub(super) fn featureless(s: &Settings, text: &str) -> Fingerprint {
    Fingerprint::new(s.hash.hash(text.as_bytes(), s.width), s.width)
}
