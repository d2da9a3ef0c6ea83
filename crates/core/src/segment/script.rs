//! Which way a character is segmented: by dictionary, by n-grams, or on
//! Unicode word boundaries.

/// How a run of characters is cut into tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScriptClass {
    /// Han ideographs: words from the jieba dictionary.
    Han,
    /// Scripts written without spaces for which neardup ships no dictionary
    /// (Hiragana, Katakana, Thai, Lao, Khmer, Myanmar, Tibetan): character
    /// n-grams.
    Unspaced,
    /// Everything else: UAX #29 words.
    Spaced,
}

/// The class of `c`, by Unicode block.
///
/// ```text
/// Han:      3400–4DBF, 4E00–9FFF, F900–FAFF, 20000–2A6DF, 2A700–2EE5F,
///           2F800–2FA1F, 30000–323AF
/// Unspaced: 0E00–0EFF (Thai, Lao), 0F00–0FFF (Tibetan), 1000–109F (Myanmar),
///           1780–17FF (Khmer), 3040–30FF, 31F0–31FF (kana)
/// ```
#[inline]
pub(crate) fn class_of(c: char) -> ScriptClass {
    match c as u32 {
        0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2EE5F
        | 0x2F800..=0x2FA1F
        | 0x30000..=0x323AF => ScriptClass::Han,
        0x0E00..=0x0FFF | 0x1000..=0x109F | 0x1780..=0x17FF | 0x3040..=0x30FF | 0x31F0..=0x31FF => {
            ScriptClass::Unspaced
        }
        _ => ScriptClass::Spaced,
    }
}

/// Whether `c` is a Han ideograph.
#[inline]
pub(crate) fn is_han(c: char) -> bool {
    class_of(c) == ScriptClass::Han
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(class_of('中'), ScriptClass::Han);
        assert_eq!(class_of('𠀀'), ScriptClass::Han);
        assert_eq!(class_of('か'), ScriptClass::Unspaced);
        assert_eq!(class_of('カ'), ScriptClass::Unspaced);
        assert_eq!(class_of('ก'), ScriptClass::Unspaced);
        assert_eq!(class_of('a'), ScriptClass::Spaced);
        assert_eq!(class_of('한'), ScriptClass::Spaced);
        assert_eq!(class_of('。'), ScriptClass::Spaced);
    }
}
