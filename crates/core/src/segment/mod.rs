//! Tokenisation: normalised text → words.
//!
//! The text is cut at ASCII whitespace into chunks. A chunk that is all ASCII
//! takes the [fast path](ascii): words found eight bytes at a time. Any
//! other chunk is normalised ([`crate::normalize`]) and split into runs of
//! one [script class](script::ScriptClass):
//!
//! - Han runs are segmented into words with the jieba dictionary
//!   ([`han`]);
//! - runs of scripts written without spaces and without a shipped dictionary
//!   (kana, Thai, …) become overlapping character n-grams (a run shorter than
//!   n is one token);
//! - all other runs are split on Unicode word boundaries (UAX #29), keeping
//!   the segments that contain a letter or a digit.
//!
//! Cutting at whitespace first is exact: UAX #29 never joins a word across
//! whitespace, and no NFKC composition spans it, so a chunk gives the same
//! words alone as in its context. A property test checks the whole path
//! against normalising and segmenting the text in one piece.

mod ascii;
pub(crate) mod han;
pub(crate) mod script;

use unicode_segmentation::UnicodeSegmentation;

use crate::normalize::normalize_into;
use crate::packed::head;
pub(crate) use script::ScriptClass;

/// A token: a word of the normalised text, or an n-gram of an unspaced
/// script.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Token<'a> {
    /// The token's bytes (UTF-8, cut at character boundaries).
    pub(crate) bytes: &'a [u8],
    /// The first 16 bytes, little-endian, zero after the token's end (see
    /// [`crate::packed`]): with the length, a short token in one integer, which is
    /// how stop words are matched without hashing.
    pub(crate) head: u128,
    /// The class of the token's script.
    pub(crate) class: ScriptClass,
    /// For a Han word of the dictionary, its id there (see
    /// [`han::dictionary_words`]), by which what is known of the word can
    /// be looked up without its bytes.
    pub(crate) han_word: Option<u32>,
}

impl<'a> Token<'a> {
    fn new(bytes: &'a [u8], class: ScriptClass) -> Token<'a> {
        Token {
            bytes,
            head: head(bytes),
            class,
            han_word: None,
        }
    }
}

/// Reusable buffers, so that tokenising allocates nothing per document once
/// warm.
#[derive(Default, Debug)]
pub(crate) struct Scratch {
    normalized: String,
    ascii: ascii::AsciiScratch,
    han: han::Scratch,
}

/// Cuts text into tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segmenter {
    /// Characters per n-gram in unspaced scripts.
    pub(crate) unspaced_ngram: usize,
}

impl Segmenter {
    /// Calls `emit` with each token of `text`.
    pub(crate) fn for_each_token(
        &self,
        text: &str,
        scratch: &mut Scratch,
        mut emit: impl FnMut(Token<'_>),
    ) {
        for_each_chunk(text, Spaces::Last, |chunk| match chunk {
            Chunk::Ascii(bytes) => self.ascii_chunk(bytes, scratch, &mut emit),
            Chunk::Unicode(chunk) => self.unicode_chunk(chunk, scratch, &mut emit),
        });
    }

    fn ascii_chunk(&self, chunk: &[u8], scratch: &mut Scratch, emit: &mut impl FnMut(Token<'_>)) {
        ascii::for_each_word(
            chunk,
            &mut scratch.ascii,
            #[inline(always)]
            |bytes, head| {
                emit(Token {
                    bytes,
                    head,
                    class: ScriptClass::Spaced,
                    han_word: None,
                })
            },
        );
    }

    fn unicode_chunk(&self, chunk: &str, scratch: &mut Scratch, emit: &mut impl FnMut(Token<'_>)) {
        let mut normalized = std::mem::take(&mut scratch.normalized);
        normalize_into(chunk, &mut normalized);
        self.normalized_text(&normalized, &mut scratch.han, emit);
        scratch.normalized = normalized;
    }

    /// Tokens of text that is already normalised.
    pub(crate) fn normalized_text(
        &self,
        text: &str,
        han: &mut han::Scratch,
        emit: &mut impl FnMut(Token<'_>),
    ) {
        let mut run_start = 0;
        let mut run_class = None;
        for (i, c) in text.char_indices() {
            let class = script::class_of(c);
            if run_class != Some(class) {
                if let Some(previous) = run_class {
                    self.run(&text[run_start..i], previous, han, emit);
                }
                run_start = i;
                run_class = Some(class);
            }
        }
        if let Some(class) = run_class {
            self.run(&text[run_start..], class, han, emit);
        }
    }

    fn run(
        &self,
        run: &str,
        class: ScriptClass,
        han: &mut han::Scratch,
        emit: &mut impl FnMut(Token<'_>),
    ) {
        match class {
            ScriptClass::Spaced => {
                // Chinese text has a run of punctuation between every two
                // clauses; none can hold a letter or a digit.
                if run.chars().all(is_common_punctuation) {
                    return;
                }
                for word in run.unicode_words() {
                    emit(Token::new(word.as_bytes(), class));
                }
            }
            ScriptClass::Han => han::for_each_word(run, han, |w, id| {
                emit(Token {
                    han_word: id,
                    ..Token::new(w.as_bytes(), class)
                })
            }),
            ScriptClass::Unspaced => {
                let n = self.unspaced_ngram.max(1);
                let starts: Vec<usize> = run.char_indices().map(|(i, _)| i).collect();
                if starts.len() <= n {
                    emit(Token::new(run.as_bytes(), class));
                } else {
                    for k in 0..=starts.len() - n {
                        let end = starts.get(k + n).copied().unwrap_or(run.len());
                        emit(Token::new(&run.as_bytes()[starts[k]..end], class));
                    }
                }
            }
        }
    }
}

/// Whether `c` is ASCII punctuation or one of the punctuation marks common
/// in Chinese text (after NFKC, which turns full-width ones into ASCII).
/// Every one of them is in a Unicode punctuation category, which a test
/// checks: none is a letter or a digit.
#[inline]
fn is_common_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(c,
            '\u{b7}' | '\u{2014}' | '\u{2018}' | '\u{2019}' | '\u{201c}' | '\u{201d}' | '\u{2026}'
            | '\u{3001}' | '\u{3002}' | '\u{3008}'..='\u{3011}' | '\u{3014}'..='\u{301f}')
}

/// A piece of text between ASCII whitespace: all ASCII, or not.
enum Chunk<'a> {
    Ascii(&'a [u8]),
    Unicode(&'a str),
}

/// How much of the whitespace before a non-ASCII character its chunk
/// takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Spaces {
    /// The last whitespace byte (what fingerprints are defined by).
    Last,
    /// The whole run of spaces: UAX #29 keeps spaces together (WB3d), and a
    /// combining mark after them joins them all (WB4), so a word can start
    /// with several spaces.
    Run,
}

/// Cuts `text` at ASCII whitespace into chunks, in order: the runs of ASCII
/// text, and around each non-ASCII character the text from the whitespace
/// before it (kept, so that a combining mark after it still has its base;
/// see [`Spaces`]) to the next ASCII whitespace.
fn for_each_chunk<'a>(text: &'a str, spaces: Spaces, mut visit: impl FnMut(Chunk<'a>)) {
    let bytes = text.as_bytes();
    let mut pos = 0;
    while pos < bytes.len() {
        let Some(offset) = first_non_ascii(&bytes[pos..]) else {
            visit(Chunk::Ascii(&bytes[pos..]));
            break;
        };
        let first_wide = pos + offset;
        let mut start = bytes[pos..first_wide]
            .iter()
            .rposition(u8::is_ascii_whitespace)
            .map_or(pos, |i| pos + i);
        if spaces == Spaces::Run && bytes.get(start) == Some(&b' ') {
            while start > pos && bytes[start - 1] == b' ' {
                start -= 1;
            }
        }
        if start > pos {
            visit(Chunk::Ascii(&bytes[pos..start]));
        }
        let end = bytes[first_wide..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .map_or(bytes.len(), |i| first_wide + i);
        // Both ends are ASCII bytes or the ends of the text: char
        // boundaries.
        visit(Chunk::Unicode(&text[start..end]));
        pos = end;
    }
}

/// Calls `emit` with each word of [`crate::normalize`]`(text)` on Unicode
/// word boundaries (UAX #29) that holds a letter or a digit: what
/// `unicode_words` of the normalised text yields, Han and kana characters
/// one word each, with ASCII text taking the fast path (the same words,
/// several times faster). The words verification compares.
///
/// ```
/// let mut words = Vec::new();
/// neardup_core::for_each_word("Don't PANIC: 3.14 café 我们", |w| words.push(w.to_string()));
/// assert_eq!(words, ["don't", "panic", "3.14", "café", "我", "们"]);
/// ```
pub fn for_each_word(text: &str, mut emit: impl FnMut(&str)) {
    thread_local! {
        static SCRATCH: std::cell::RefCell<(ascii::AsciiScratch, String)> = Default::default();
    }
    SCRATCH.with(|scratch| {
        let Ok(mut scratch) = scratch.try_borrow_mut() else {
            // Called again from within `emit`: fresh buffers.
            return words_with(text, &mut Default::default(), &mut emit);
        };
        words_with(text, &mut scratch, &mut emit);
    });
}

fn words_with(
    text: &str,
    (ascii, normalized): &mut (ascii::AsciiScratch, String),
    emit: &mut impl FnMut(&str),
) {
    for_each_chunk(text, Spaces::Run, |chunk| match chunk {
        Chunk::Ascii(bytes) => ascii::for_each_word(bytes, ascii, |word, _| {
            // SAFETY: the words of an ASCII chunk are lowercased ASCII
            // bytes, which are UTF-8.
            emit(unsafe { std::str::from_utf8_unchecked(word) });
        }),
        Chunk::Unicode(chunk) => {
            normalize_into(chunk, normalized);
            normalized.unicode_words().for_each(&mut *emit);
        }
    });
}

/// The position of the first byte of `bytes` that is not ASCII, eight bytes
/// at a time.
#[inline]
fn first_non_ascii(bytes: &[u8]) -> Option<usize> {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        if u64::from_le_bytes(word) & HIGH != 0 {
            break;
        }
        offset += 8;
    }
    bytes[offset..]
        .iter()
        .position(|b| !b.is_ascii())
        .map(|i| offset + i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SEGMENTER: Segmenter = Segmenter { unspaced_ngram: 2 };

    fn tokens(text: &str) -> Vec<(String, ScriptClass)> {
        let mut out = Vec::new();
        SEGMENTER.for_each_token(text, &mut Scratch::default(), |t| {
            assert_eq!(t.head, head(t.bytes));
            out.push((String::from_utf8(t.bytes.to_vec()).unwrap(), t.class))
        });
        out
    }

    fn in_one_piece(text: &str) -> Vec<(String, ScriptClass)> {
        let mut normalized = String::new();
        normalize_into(text, &mut normalized);
        let mut out = Vec::new();
        SEGMENTER.normalized_text(
            &normalized,
            &mut han::Scratch::default(),
            &mut |t: Token<'_>| out.push((String::from_utf8(t.bytes.to_vec()).unwrap(), t.class)),
        );
        out
    }

    fn words(text: &str) -> Vec<String> {
        tokens(text).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn finds_the_first_wide_byte() {
        assert_eq!(first_non_ascii(b""), None);
        assert_eq!(first_non_ascii(b"plain ascii text of some length"), None);
        for at in 0..20 {
            let mut text = "x".repeat(20);
            text.insert(at, 'é');
            assert_eq!(first_non_ascii(text.as_bytes()), Some(at));
        }
    }

    #[test]
    fn common_punctuation_is_punctuation() {
        use unicode_general_category::{GeneralCategory as G, get_general_category};
        let mut count = 0;
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            if is_common_punctuation(c) {
                count += 1;
                let category = get_general_category(c);
                let punctuation = matches!(
                    category,
                    G::ConnectorPunctuation
                        | G::DashPunctuation
                        | G::OpenPunctuation
                        | G::ClosePunctuation
                        | G::InitialPunctuation
                        | G::FinalPunctuation
                        | G::OtherPunctuation
                );
                // ASCII's $+<=>^`|~ are symbols, no more a letter or digit.
                assert!(
                    punctuation || c.is_ascii_punctuation(),
                    "{c:?} is {category:?}"
                );
                assert!(!c.is_alphanumeric());
            }
        }
        assert_eq!(count, 32 + 7 + 2 + 10 + 12);
        assert_eq!(words("“中国”，（人民）。"), ["中国", "人民"]);
    }

    #[test]
    fn mixed_scripts() {
        assert_eq!(words("Hello, World!"), ["hello", "world"]);
        assert_eq!(words("ＡＢＣ café Ⅻ"), ["abc", "café", "xii"]);
        assert_eq!(words("iPhone手机"), ["iphone", "手机"]);
        assert_eq!(words("ひらがな"), ["ひら", "らが", "がな"]);
        assert_eq!(words("ねこ"), ["ねこ"]);
        assert_eq!(words("🙂 !!! "), Vec::<String>::new());
        assert_eq!(words("ΟΔΟΣ"), ["οδος"]);
    }

    #[test]
    fn combining_mark_after_space_keeps_its_base() {
        assert_eq!(words("cafe\u{301} x"), ["café", "x"]);
        assert_eq!(
            words("a \u{301}b"),
            in_one_piece("a \u{301}b")
                .into_iter()
                .map(|(t, _)| t)
                .collect::<Vec<_>>()
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        #[test]
        fn chunked_equals_one_piece(text in "([a-zA-Z0-9 .,'_:\t\n]|é|e\u{301}|Σ|ς|ﬁ|Ａ|①|한|ก|か|中|国|人|\u{3000}|\u{a0}|🙂|\u{200d}){0,30}") {
            prop_assert_eq!(tokens(&text), in_one_piece(&text));
        }
    }
}
