//! Han text → words, cut as jieba cuts them.
//!
//! A run of Han characters is cut the way `jieba-rs` 0.11.0's
//! `Jieba::cut(text, false)` (no HMM) cuts it with its embedded dictionary:
//! of every way to split the run into dictionary words and single
//! characters, the one whose words have the largest sum of
//! log-probabilities `ln(freq) - ln(total)`, a character that starts no word
//! counting as a word of frequency 1. The sums are built from the end of the
//! run, exactly as jieba-rs builds them, so that even ties and roundings
//! agree: at each character, the candidate words are taken in order of
//! length, and a later one wins when its sum is greater or equal. A test
//! holds this cut equal to jieba-rs's over a whole newspaper month and over
//! random text.
//!
//! jieba-rs first splits text into blocks of its own Han class; characters
//! of our Han class outside it (the newest CJK extensions) stand alone, as
//! there. Where jieba-rs joins single ASCII alphanumerics left by the route,
//! nothing is to be done: a Han run has none.
//!
//! Unlike jieba-rs, the candidate words of a character are not stored as a
//! graph first: they are found in the same backward pass that sums the
//! routes, with lookups in [`dictionary`]'s flat tables.

#[cfg(test)]
mod building;
mod dictionary;
mod prefix_table;

use std::sync::OnceLock;

use dictionary::{Dictionary, deeper_key, second_key, third_key};

/// jieba's dictionary tables, as `build.rs` wrote them.
const TABLES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/jieba_tables.bin"));

/// The dictionary, decoded on first use. A test checks that it decodes; if
/// it did not (a build defect), every character would be a word of its own.
fn dictionary() -> &'static Dictionary {
    static DICTIONARY: OnceLock<Dictionary> = OnceLock::new();
    DICTIONARY.get_or_init(|| Dictionary::decode(TABLES).unwrap_or_else(Dictionary::empty))
}

/// The words of the dictionary, by id: the ids [`for_each_word`] gives.
pub(crate) fn dictionary_words() -> impl ExactSizeIterator<Item = &'static str> {
    let dict = dictionary();
    (0..dict.len() as u32).map(|id| dict.word(id))
}

/// The best way on from one character of a block.
#[derive(Clone, Copy, Debug)]
struct Step {
    /// Log-probability of the best route from here to the end.
    log_prob: f64,
    /// Where the first word of that route ends.
    end: u32,
    /// That word's id in the dictionary, [`NO_WORD`] for an unknown
    /// character.
    word: u32,
}

const NO_WORD: u32 = u32::MAX;

/// Buffers reused from block to block.
#[derive(Default, Debug)]
pub(crate) struct Scratch {
    /// Character ids of the block.
    ids: Vec<u16>,
    /// Byte offset of each character in the block, and the block's length.
    offsets: Vec<u32>,
    route: Vec<Step>,
}

/// Calls `emit` with each word of the Han run `run` and its dictionary id
/// (`None` for a character that is no word of the dictionary).
pub(crate) fn for_each_word(
    run: &str,
    scratch: &mut Scratch,
    mut emit: impl FnMut(&str, Option<u32>),
) {
    let dict = dictionary();
    let mut block_start = 0;
    for (i, c) in run.char_indices() {
        if !in_jieba_blocks(c) {
            if block_start < i {
                cut_block(dict, &run[block_start..i], scratch, &mut emit);
            }
            let end = i + c.len_utf8();
            emit(&run[i..end], None);
            block_start = end;
        }
    }
    if block_start < run.len() {
        cut_block(dict, &run[block_start..], scratch, &mut emit);
    }
}

/// Whether jieba-rs puts Han character `c` in its blocks of Han text.
fn in_jieba_blocks(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2A6DF
        | 0x2A700..=0x2EBEF | 0x2F800..=0x2FA1F)
}

/// Cuts one block of jieba's Han class.
fn cut_block(
    dict: &Dictionary,
    block: &str,
    scratch: &mut Scratch,
    emit: &mut impl FnMut(&str, Option<u32>),
) {
    let Scratch {
        ids,
        offsets,
        route,
    } = scratch;
    ids.clear();
    offsets.clear();
    for (i, c) in block.char_indices() {
        ids.push(dict.char_id(c));
        offsets.push(i as u32);
    }
    offsets.push(block.len() as u32);
    best_route(dict, ids, route);

    let mut x = 0;
    while x < ids.len() {
        let Step { end, word, .. } = route[x];
        let y = end as usize;
        let word = (word != NO_WORD).then_some(word);
        emit(&block[offsets[x] as usize..offsets[y] as usize], word);
        x = y;
    }
}

/// How many characters ahead of the route the tables are prefetched.
const PREFETCH_DISTANCE: usize = 4;

/// Fills `route` with the best step from every character of `ids`, from the
/// last to the first.
fn best_route(dict: &Dictionary, ids: &[u16], route: &mut Vec<Step>) {
    let n = ids.len();
    route.clear();
    route.resize(
        n + 1,
        Step {
            log_prob: 0.0,
            end: n as u32,
            word: NO_WORD,
        },
    );
    for i in (0..n).rev() {
        // The lookups of a character further back do not depend on this
        // one's, so their cache lines are fetched now, while this one waits.
        if let Some(ahead) = i.checked_sub(PREFETCH_DISTANCE)
            && ahead + 2 < n
        {
            let (a, b, c) = (ids[ahead], ids[ahead + 1], ids[ahead + 2]);
            dict.second().prefetch(second_key(a, b));
            dict.third().prefetch(third_key(a, b, c));
        }
        let mut best: Option<Step> = None;
        // Candidates come in order of length, so `>=` is jieba-rs's rule:
        // the greater sum, and the longer word among equal sums.
        let mut consider = |end: usize, word: u32, route: &[Step]| {
            let log_prob = dict.log_prob(word) + route[end].log_prob;
            if best.is_none_or(|b| log_prob >= b.log_prob) {
                best = Some(Step {
                    log_prob,
                    end: end as u32,
                    word,
                });
            }
        };
        let a = ids[i];
        let first = dict.first(a);
        if let Some(w) = first.word() {
            consider(i + 1, w, route);
        }
        if first.has_longer() && i + 1 < n {
            let b = ids[i + 1];
            if let Some((_, second)) = dict.second().find(second_key(a, b)) {
                if let Some(w) = second.word() {
                    consider(i + 2, w, route);
                }
                if second.has_longer() && i + 2 < n {
                    let c = ids[i + 2];
                    if let Some((slot, third)) = dict.third().find(third_key(a, b, c)) {
                        if let Some(w) = third.word() {
                            consider(i + 3, w, route);
                        }
                        let (mut parent, mut parent_is_deeper, mut entry) = (slot, false, third);
                        let mut j = i + 3;
                        while entry.has_longer() && j < n {
                            let key = deeper_key(parent, parent_is_deeper, ids[j]);
                            let Some((slot, next)) = dict.deeper().find(key) else {
                                break;
                            };
                            j += 1;
                            if let Some(w) = next.word() {
                                consider(j, w, route);
                            }
                            (parent, parent_is_deeper, entry) = (slot, true, next);
                        }
                    }
                }
            }
        }
        route[i] = best.unwrap_or(Step {
            log_prob: dict.unknown_log_prob() + route[i + 1].log_prob,
            end: i as u32 + 1,
            word: NO_WORD,
        });
    }
}

#[cfg(test)]
mod tests;
