//! The edits that near-duplicates differ by in the wild, applied to a real
//! document at a rate, from a seed.
//!
//! A text is cut into units: words with the spaces after them for text
//! written with spaces, single characters for text without (Chinese,
//! Japanese). An edit at rate `r` touches `max(1, round(r × units))` of them
//! (or of the sentences, for [`EditKind::Reorder`]); everything it does not
//! touch is left byte for byte.

use crate::rng::Rng;

/// A kind of edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EditKind {
    /// Units replaced by other units of the same document.
    Substitute,
    /// Units of the same document inserted at random places.
    Insert,
    /// Units deleted.
    Delete,
    /// Sentences moved to other places.
    Reorder,
    /// A boilerplate header and footer added (a date line, "Read more", a
    /// copyright line); the rate says nothing.
    Boilerplate,
    /// Case, punctuation and whitespace changed on units.
    Noise,
    /// The end cut off: the rate is the share of units lost.
    Truncate,
    /// Chinese written in traditional characters instead of simplified
    /// ones (OpenCC's character table); the rate says nothing. Only for
    /// text with Han characters.
    Traditional,
}

impl EditKind {
    /// Every kind, in a fixed order.
    pub const ALL: [EditKind; 8] = [
        EditKind::Substitute,
        EditKind::Insert,
        EditKind::Delete,
        EditKind::Reorder,
        EditKind::Boilerplate,
        EditKind::Noise,
        EditKind::Truncate,
        EditKind::Traditional,
    ];

    /// Its name in reports.
    ///
    /// ```
    /// assert_eq!(neardup_eval::EditKind::Noise.name(), "noise");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            EditKind::Substitute => "substitute",
            EditKind::Insert => "insert",
            EditKind::Delete => "delete",
            EditKind::Reorder => "reorder",
            EditKind::Boilerplate => "boilerplate",
            EditKind::Noise => "noise",
            EditKind::Truncate => "truncate",
            EditKind::Traditional => "traditional",
        }
    }
}

/// Whether `text` is written with spaces between words: one space or more
/// per 20 characters.
fn spaced(text: &str) -> bool {
    let chars = text.chars().count();
    text.chars().filter(|c| c.is_whitespace()).count() * 20 >= chars
}

/// `text` cut into units, each with the whitespace that follows it; the
/// units joined are the text.
fn units(text: &str) -> Vec<&str> {
    let by_word = spaced(text);
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        // A unit ends where a non-space follows spaces, or at every
        // character of unspaced text.
        if i > start && !space && (in_space || !by_word) {
            out.push(&text[start..i]);
            start = i;
        }
        in_space = space;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// A unit without the whitespace after it.
fn core(unit: &str) -> &str {
    unit.trim_end()
}

/// How many of `n` things an edit at `rate` touches: at least one.
fn count(rate: f64, n: usize) -> usize {
    ((rate * n as f64).round() as usize).clamp(1, n.max(1))
}

const HEADERS_EN: [&str; 8] = [
    "Published 12 March 2024, updated 13:45 GMT",
    "By Staff Reporter | Monday 4 November",
    "BREAKING NEWS",
    "Share this article: Facebook Twitter Email",
    "Home | World | Business | Politics | Technology | Science | Health | Sport",
    "We use cookies to give you the best experience on our website. By continuing you agree to our use of cookies.",
    "Listen to this article, 5 minutes",
    "Advertisement",
];
const FOOTERS_EN: [&str; 8] = [
    "Read more: the latest stories from our newsroom.",
    "Copyright (c) 2024 Example News Ltd. All rights reserved.",
    "Sign up for our newsletter to get the top stories every morning.",
    "This article was amended on 5 March to correct a name.",
    "Related stories: Markets close higher as rates hold steady; Ten things to know before the weekend",
    "Follow us on social media and share your views in the comments below.",
    "About us | Contact | Terms of use | Privacy policy | Accessibility | Careers",
    "More from this section",
];
const HEADERS_ZH: [&str; 6] = [
    "本报讯（2024年3月12日）",
    "来源：新华网｜编辑：王明",
    "【最新消息】",
    "首页｜新闻｜国际｜财经｜体育｜娱乐｜科技｜健康",
    "分享到：微信｜微博｜QQ空间",
    "本文约需阅读五分钟",
];
const FOOTERS_ZH: [&str; 6] = [
    "（责任编辑：李华）",
    "版权所有，未经授权不得转载。",
    "阅读更多精彩内容，请关注我们的公众号。",
    "相关阅读：股市收盘小幅上涨；周末出行前必知的十件事",
    "关于我们｜联系我们｜用户协议｜隐私政策｜网站地图",
    "欢迎在下方留言发表您的看法。",
];

/// Lines of boilerplate drawn from `pool` until they hold `units` units (the
/// last line cut to fit), each followed by a blank line.
fn boilerplate(pool: &[&str], units_wanted: usize, rng: &mut Rng) -> String {
    let mut out = String::new();
    let mut left = units_wanted;
    while left > 0 {
        let line = units(pool[rng.below(pool.len())]);
        let taken = line.len().min(left);
        out.push_str(line[..taken].concat().trim_end());
        out.push_str("\n\n");
        left -= taken;
    }
    out
}

/// `text` edited by `kind` at `rate` (0 to 1), from `seed`.
///
/// ```
/// use neardup_eval::{EditKind, edit};
///
/// let text = "the quick brown fox jumps over the lazy dog";
/// let edited = edit(text, EditKind::Delete, 0.2, 7);
/// assert_eq!(edited.split_whitespace().count(), 7);
/// assert_eq!(edit(text, EditKind::Delete, 0.2, 7), edited);
/// assert_eq!(edit(text, EditKind::Truncate, 0.5, 7), "the quick brown fox ");
/// ```
pub fn edit(text: &str, kind: EditKind, rate: f64, seed: u64) -> String {
    let mut rng = Rng::new(seed ^ (kind as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let units = units(text);
    let n = units.len();
    if n == 0 {
        return text.to_string();
    }
    let by_word = spaced(text);
    match kind {
        EditKind::Substitute => {
            let mut out: Vec<String> = units.iter().map(|u| u.to_string()).collect();
            for i in distinct(&mut rng, count(rate, n), n) {
                let word = core(units[i]);
                // Another word of the text, not this one again (a few draws:
                // a text of one repeated word stays as it is).
                let other = (0..16)
                    .map(|_| core(units[rng.below(n)]))
                    .find(|o| o.to_lowercase() != word.to_lowercase())
                    .unwrap_or(word);
                out[i] = format!("{other}{}", &units[i][word.len()..]);
            }
            out.concat()
        }
        EditKind::Insert => {
            let mut out: Vec<String> = units.iter().map(|u| u.to_string()).collect();
            for _ in 0..count(rate, n) {
                let word = core(units[rng.below(n)]);
                let at = rng.below(out.len() + 1);
                // After a unit with no space behind it (the text's last),
                // the space goes before the word.
                let unit = match at
                    .checked_sub(1)
                    .map(|p| out[p].ends_with(char::is_whitespace))
                {
                    _ if !by_word => word.to_string(),
                    Some(false) => format!(" {word}"),
                    _ => format!("{word} "),
                };
                out.insert(at, unit);
            }
            out.concat()
        }
        EditKind::Delete => {
            let gone = distinct(&mut rng, count(rate, n), n);
            let mut keep = vec![true; n];
            for i in gone {
                keep[i] = false;
            }
            units
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(u, _)| *u)
                .collect()
        }
        EditKind::Reorder => {
            let mut sentences = sentences(text);
            let s = sentences.len();
            if s < 2 {
                return text.to_string();
            }
            for _ in 0..count(rate, s) {
                let from = rng.below(sentences.len());
                let moved = sentences.remove(from);
                let to = rng.below(sentences.len() + 1);
                sentences.insert(to, moved);
            }
            sentences.concat()
        }
        EditKind::Boilerplate => {
            let (headers, footers): (&[&str], &[&str]) = if by_word {
                (&HEADERS_EN, &FOOTERS_EN)
            } else {
                (&HEADERS_ZH, &FOOTERS_ZH)
            };
            // At least a line: a header of its own, or a footer at half.
            let added = count(rate, n).max(1);
            let header = boilerplate(headers, added.div_ceil(2), &mut rng);
            let footer = boilerplate(footers, added / 2, &mut rng);
            format!("{header}{text}\n\n{}", footer.trim_end())
        }
        EditKind::Noise => {
            let mut out: Vec<String> = units.iter().map(|u| u.to_string()).collect();
            for i in distinct(&mut rng, count(rate, n), n) {
                let word = core(units[i]);
                let tail = &units[i][word.len()..];
                out[i] = match rng.below(3) {
                    0 if word.chars().any(char::is_lowercase) => {
                        format!("{}{tail}", word.to_uppercase())
                    }
                    1 => match word.strip_suffix(|c: char| c.is_ascii_punctuation()) {
                        Some(bare) => format!("{bare}{tail}"),
                        None => format!("{word},{tail}"),
                    },
                    _ => format!("{word}{tail}{}", if by_word { " " } else { "\n" }),
                };
            }
            out.concat()
        }
        EditKind::Truncate => {
            let lost = ((rate * n as f64).round() as usize).min(n - 1);
            units[..n - lost].concat()
        }
        EditKind::Traditional => text.chars().map(traditional).collect(),
    }
}

/// OpenCC's simplified-to-traditional character table (Apache-2.0,
/// `data/opencc/`): a character and its traditional forms, the usual first.
pub(crate) const ST_CHARACTERS: &str = include_str!("../data/opencc/STCharacters.txt");

/// The traditional form of `c` (its first in OpenCC's table), or `c`.
///
/// ```
/// assert_eq!(neardup_eval::traditional('汉'), '漢');
/// assert_eq!(neardup_eval::traditional('a'), 'a');
/// ```
pub fn traditional(c: char) -> char {
    static TABLE: std::sync::LazyLock<std::collections::HashMap<char, char>> =
        std::sync::LazyLock::new(|| {
            ST_CHARACTERS
                .lines()
                .filter(|l| !l.starts_with('#'))
                .filter_map(|l| {
                    let (from, to) = l.split_once('\t')?;
                    let mut from = from.chars();
                    let first = from.next()?;
                    let to = to.split(' ').next()?.chars().next()?;
                    from.next().is_none().then_some((first, to))
                })
                .collect()
        });
    TABLE.get(&c).copied().unwrap_or(c)
}

/// The share of `original`'s units whose content an edit changed, as the
/// truth of edited pairs counts it: units substituted, inserted or deleted,
/// cut off, or added as boilerplate; case, punctuation and whitespace
/// ([`EditKind::Noise`]) and the order of sentences ([`EditKind::Reorder`])
/// change no content.
///
/// ```
/// use neardup_eval::{EditKind, content_change};
///
/// let text = "one two three four five six seven eight nine ten";
/// assert_eq!(content_change(text, EditKind::Truncate, 0.3), 0.3);
/// assert_eq!(content_change(text, EditKind::Noise, 0.3), 0.0);
/// ```
pub fn content_change(original: &str, kind: EditKind, rate: f64) -> f64 {
    let n = units(original).len();
    if n == 0 {
        return 0.0;
    }
    let changed = match kind {
        EditKind::Substitute | EditKind::Insert | EditKind::Delete => count(rate, n),
        EditKind::Truncate => ((rate * n as f64).round() as usize).min(n - 1),
        // The lines added hold this many units, the last cut to fit.
        EditKind::Boilerplate => count(rate, n).max(1),
        EditKind::Noise | EditKind::Reorder | EditKind::Traditional => 0,
    };
    changed as f64 / n as f64
}

/// `k` distinct positions in `0..n`, in order.
fn distinct(rng: &mut Rng, k: usize, n: usize) -> Vec<usize> {
    // A partial Fisher-Yates shuffle of the positions.
    let mut all: Vec<usize> = (0..n).collect();
    let k = k.min(n);
    for i in 0..k {
        let j = i + rng.below(n - i);
        all.swap(i, j);
    }
    let mut chosen = all[..k].to_vec();
    chosen.sort_unstable();
    chosen
}

/// `text` cut after each sentence end (`.`, `!`, `?`, `。`, `！`, `？`,
/// and a newline) with the whitespace that follows; joined, the text.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut after_end = false;
    for (i, c) in text.char_indices() {
        if after_end && !c.is_whitespace() {
            out.push(&text[start..i]);
            start = i;
            after_end = false;
        }
        if matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '\n') {
            after_end = true;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const EN: &str = "One fish. Two fish! Red fish, blue fish? The end.\nA new line here.";
    const ZH: &str = "中华人民共和国成立了。人民站起来了！今天天气很好。";

    #[test]
    fn units_and_sentences_cover_the_text() {
        for text in [EN, ZH, "", "  lead", "trail  "] {
            assert_eq!(units(text).concat(), text);
            assert_eq!(sentences(text).concat(), text);
        }
        assert_eq!(units("a  b\nc"), ["a  ", "b\n", "c"]);
        assert_eq!(units(ZH).len(), ZH.chars().count());
        assert_eq!(sentences(ZH).len(), 3);
    }

    #[test]
    fn each_kind_changes_what_it_says() {
        for (text, seed) in [(EN, 1), (ZH, 2)] {
            let n = units(text).len();
            let deleted = edit(text, EditKind::Delete, 0.2, seed);
            assert_eq!(units(&deleted).len(), n - count(0.2, n), "{deleted}");
            let inserted = edit(text, EditKind::Insert, 0.2, seed);
            assert_eq!(units(&inserted).len(), n + count(0.2, n), "{inserted}");
            let substituted = edit(text, EditKind::Substitute, 0.2, seed);
            assert_eq!(units(&substituted).len(), n);
            let reordered = edit(text, EditKind::Reorder, 0.5, seed);
            let mut a = sentences(text).iter().map(|s| s.trim()).collect::<Vec<_>>();
            let mut b = sentences(&reordered)
                .iter()
                .map(|s| s.trim())
                .collect::<Vec<_>>();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "{reordered}");
            let framed = edit(text, EditKind::Boilerplate, 0.0, seed);
            assert!(framed.contains(text) && framed.len() > text.len());
            let framed = edit(text, EditKind::Boilerplate, 0.2, seed);
            // The lines added hold a fifth of the units (words; characters
            // other than spaces for Chinese), as content_change counts.
            let size = |t: &str| match spaced(text) {
                true => t.split_whitespace().count(),
                false => t.chars().filter(|c| !c.is_whitespace()).count(),
            };
            let added = content_change(text, EditKind::Boilerplate, 0.2);
            assert!(framed.contains(text), "{framed}");
            assert_eq!(size(&framed) - size(text), count(0.2, n), "{framed}");
            assert_eq!(added, count(0.2, n) as f64 / n as f64);
            assert_ne!(edit(text, EditKind::Noise, 0.3, seed), text);
            let cut = edit(text, EditKind::Truncate, 0.5, seed);
            assert!(text.starts_with(&cut) && cut.len() < text.len());
        }
    }

    #[test]
    fn seeds_decide() {
        let a = edit(EN, EditKind::Substitute, 0.3, 1);
        assert_eq!(a, edit(EN, EditKind::Substitute, 0.3, 1));
        let differ = (2..10).any(|s| edit(EN, EditKind::Substitute, 0.3, s) != a);
        assert!(differ);
    }
}
