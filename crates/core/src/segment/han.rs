//! Han text → words, with the jieba dictionary.
//!
//! The dictionary is jieba's (MIT), embedded in the `jieba-rs` crate, whose
//! version is pinned: a different dictionary cuts differently and so gives
//! different fingerprints. It is loaded once per process, on the first Han
//! text, so English-only work never pays for it.

use std::sync::OnceLock;

use jieba_rs::Jieba;

fn jieba() -> &'static Jieba {
    static JIEBA: OnceLock<Jieba> = OnceLock::new();
    JIEBA.get_or_init(Jieba::new)
}

/// Calls `emit` with each word of the Han run `run`.
pub(crate) fn for_each_word(run: &str, hmm: bool, mut emit: impl FnMut(&str)) {
    for token in jieba().cut(run, hmm) {
        emit(token.word);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_by_dictionary() {
        let mut words = Vec::new();
        for_each_word("我们中出了一个叛徒", false, |w| {
            words.push(w.to_string())
        });
        assert_eq!(words, ["我们", "中", "出", "了", "一个", "叛徒"]);
    }
}
