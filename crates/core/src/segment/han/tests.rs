//! The cut against its definition: jieba-rs 0.11.0's `cut(text, false)`.

use std::path::Path;
use std::sync::OnceLock;

use jieba_rs::Jieba;
use proptest::prelude::*;

use super::*;

fn jieba() -> &'static Jieba {
    static JIEBA: OnceLock<Jieba> = OnceLock::new();
    JIEBA.get_or_init(Jieba::new)
}

fn ours(run: &str) -> Vec<String> {
    let mut words = Vec::new();
    for_each_word(run, &mut Scratch::default(), |w, id| {
        if let Some(id) = id {
            assert_eq!(dictionary().word(id), w);
        }
        words.push(w.to_string())
    });
    words
}

fn theirs(run: &str) -> Vec<String> {
    jieba()
        .cut(run, false)
        .into_iter()
        .map(|t| t.word.to_string())
        .collect()
}

#[test]
fn cuts_by_dictionary() {
    assert_eq!(
        ours("我们中出了一个叛徒"),
        ["我们", "中", "出", "了", "一个", "叛徒"]
    );
    assert_eq!(ours(""), Vec::<String>::new());
    // 𰀀 (U+30000) is Han to us but outside jieba-rs's blocks: it stands
    // alone and splits the run.
    assert_eq!(ours("中国𰀀人民"), ["中国", "𰀀", "人民"]);
    assert_eq!(ours("中国𰀀人民"), theirs("中国𰀀人民"));
}

#[test]
fn word_ids_are_the_dictionary_words() {
    for_each_word(
        "中华人民共和国成立了",
        &mut Scratch::default(),
        |w, id| {
            let id = id.unwrap();
            assert!(dictionary().log_prob(id) < 0.0, "{w}");
        },
    );
}

/// Every Han run of People's Daily, January 1998 (fetched by
/// `scripts/fetch-corpora.sh`), cut as jieba-rs cuts it.
#[test]
fn equals_jieba_rs_on_a_newspaper_month() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/corpora/peoples_daily.jsonl");
    let Ok(text) = std::fs::read_to_string(&path) else {
        assert!(
            std::env::var_os("NEARDUP_REQUIRE_CORPORA").is_none(),
            "{} is missing: run scripts/fetch-corpora.sh",
            path.display()
        );
        eprintln!("skipped: {} is missing", path.display());
        return;
    };
    let (mut runs, mut words) = (0, 0);
    for line in text.lines() {
        let doc: serde_json::Value = serde_json::from_str(line).unwrap();
        let body = doc["text"].as_str().unwrap();
        for run in body.split(|c: char| !crate::segment::script::is_han(c)) {
            if run.is_empty() {
                continue;
            }
            let expected = theirs(run);
            assert_eq!(ours(run), expected, "run {run:?}");
            runs += 1;
            words += expected.len();
        }
    }
    assert!(
        runs > 100_000 && words > 500_000,
        "{runs} runs, {words} words"
    );
}

/// Characters for random runs: common ones, ones that start long words,
/// ones in no word, and ones outside jieba-rs's blocks.
const POOL: &str = "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坐集编宝谈府拉黑且随格尽剑讲布杀微怕母调局根曾准团段终乐切级克精哪官示冷域读鬘龘𠀀𪜀𰀀";

fn pool() -> &'static [char] {
    static CHARS: OnceLock<Vec<char>> = OnceLock::new();
    CHARS.get_or_init(|| POOL.chars().collect())
}

/// Dictionary words of three characters and more, to build runs where long
/// words compete.
fn long_words() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut text = String::new();
        let gz = include_bytes!("../../../data/jieba_dict.txt.gz");
        std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gz[..]), &mut text)
            .unwrap();
        text.lines()
            .filter_map(|l| l.split(' ').next())
            .filter(|w| w.chars().count() >= 3 && w.chars().all(crate::segment::script::is_han))
            .step_by(7)
            .map(str::to_string)
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn equals_jieba_rs_on_random_characters(picks in prop::collection::vec(any::<prop::sample::Index>(), 0..40)) {
        let run: String = picks.iter().map(|i| *i.get(pool())).collect();
        prop_assert_eq!(ours(&run), theirs(&run));
    }

    #[test]
    fn equals_jieba_rs_on_words_run_together(
        picks in prop::collection::vec((any::<prop::sample::Index>(), 0..4usize, any::<prop::sample::Index>()), 1..12)
    ) {
        // Whole words, words cut short and stray characters, so that long
        // words overlap and compete.
        let mut run = String::new();
        for (word, cut, stray) in &picks {
            let word = word.get(long_words());
            let chars: Vec<char> = word.chars().collect();
            run.extend(&chars[..chars.len() - cut.min(&(chars.len() - 1))]);
            if *cut == 3 {
                run.push(*stray.get(pool()));
            }
        }
        prop_assert_eq!(ours(&run), theirs(&run));
    }
}
