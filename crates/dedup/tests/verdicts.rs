//! One verdict: what a dedup run does agrees, pair by pair, with what
//! [`Rule::judge`] says of the same two texts, on real text from
//! `samples/` (verses, Chinese classics) and edited copies of it: one-word
//! edits, cuts, case, whitespace and punctuation, added headers.

use std::collections::HashSet;

use neardup_dedup::{Dedup, DedupBuilder, Fate, Grouping, Memory, Rule, Silent, Verification};

/// A small generator, so that the corpus is the same at every run.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// The texts of a JSON lines file of `samples/`.
fn sample(path: &str) -> Vec<String> {
    let path = format!("{}/../../samples/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            value["text"].as_str().unwrap().to_string()
        })
        .collect()
}

/// Passages of real text, from a few words to a few hundred: runs of
/// verses, and Chinese passages.
fn passages(draw: &mut Draw) -> Vec<String> {
    let mut out = Vec::new();
    for chapter in sample("bible/kjv.jsonl").iter().take(60) {
        let verses: Vec<&str> = chapter.lines().collect();
        let mut i = 0;
        while i < verses.len() && out.len() < 400 {
            let take = 1 + draw.below(6);
            out.push(verses[i..(i + take).min(verses.len())].join(" "));
            i += take;
        }
    }
    for book in sample("zh/lunyu.jsonl") {
        for passage in book.lines().filter(|p| !p.trim().is_empty()) {
            out.push(passage.to_string());
        }
    }
    out
}

/// An edited copy of `text`, as crawls and corpora have them.
fn edited(text: &str, draw: &mut Draw) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let chinese = words.len() * 8 < text.chars().count();
    match draw.below(8) {
        0 if chinese => text.replace('。', "。 "),
        0 => words.join("  \n"),
        1 if chinese => {
            let mut chars: Vec<char> = text.chars().collect();
            let at = draw.below(chars.len());
            chars[at] = '的';
            chars.into_iter().collect()
        }
        1 => {
            let mut words = words.clone();
            let at = draw.below(words.len());
            words[at] = "indeed";
            words.join(" ")
        }
        2 => text.to_uppercase(),
        3 => format!("Reprinted from the archive. {text}"),
        4 => text.chars().skip(text.chars().count() / 10).collect(),
        5 => format!("{text} {text}"),
        6 => text.replace([',', '，'], ""),
        _ => text.to_string(),
    }
}

/// Passages and edited copies of them, in an order that mixes them.
fn corpus() -> Vec<String> {
    let mut draw = Draw(0x9E37_79B9_7F4A_7C15);
    let mut texts = Vec::new();
    for passage in passages(&mut draw) {
        let copies = draw.below(3);
        texts.push(passage.clone());
        for _ in 0..copies {
            texts.push(edited(&passage, &mut draw));
        }
    }
    // Copies later than their originals, not always next to them.
    for i in (1..texts.len()).rev() {
        if draw.below(4) == 0 {
            let j = i - draw.below(i.min(20));
            texts.swap(i, j);
        }
    }
    texts
}

/// The rules the runs are checked under: the defaults, and others.
fn rules() -> Vec<Rule> {
    let mut rules = vec![Rule::new().unwrap()];
    let mut stricter = Rule::new().unwrap();
    stricter.k(4).verification(Some(Verification::Jaccard(0.9)));
    rules.push(stricter);
    let mut no_short = Rule::new().unwrap();
    no_short.short_rule(false);
    rules.push(no_short);
    rules
}

#[test]
fn a_run_of_two_drops_the_second_exactly_when_the_rule_calls_them_near() {
    let texts = corpus();
    for rule in rules() {
        let job = Dedup::with_rule(rule.clone()).unwrap();
        let (mut near, mut disagreements) = (0, Vec::new());
        // A run has a fixed cost: every fourth neighbouring pair (most are a
        // passage and its copy) keeps the test short.
        for pair in texts.windows(2).step_by(4) {
            let verdict = rule.judge(&pair[0], &pair[1]);
            let outcome = job.run(&Memory::new(pair), &Silent).unwrap();
            let dropped = outcome.fates().get(1) != Some(Fate::Kept);
            near += usize::from(verdict.near);
            if dropped != verdict.near {
                disagreements.push((pair[0].clone(), pair[1].clone(), verdict));
            }
        }
        assert!(near > 20, "{near} near pairs: the corpus has edited copies");
        assert!(
            disagreements.is_empty(),
            "{} disagreements under {rule:?}, the first: {:?}",
            disagreements.len(),
            disagreements.first()
        );
    }
}

#[test]
fn greedy_keeps_no_two_near_documents_and_drops_each_for_a_near_one() {
    let texts = corpus();
    for rule in rules() {
        let prepared: Vec<_> = texts.iter().map(|t| rule.prepare(t)).collect();
        let outcome = Dedup::with_rule(rule.clone())
            .unwrap()
            .run(&Memory::new(&texts[..]), &Silent)
            .unwrap();
        let fates: Vec<Fate> = outcome.fates().iter().collect();
        let kept: Vec<usize> = (0..texts.len())
            .filter(|&d| fates[d] == Fate::Kept)
            .collect();
        for (d, fate) in fates.iter().enumerate() {
            if let Some(of) = fate.duplicate_of() {
                let of = of as usize;
                assert!(of < d || fates[of] == Fate::Kept);
                assert_eq!(fates[of], Fate::Kept);
                let verdict = rule.judge_prepared(&prepared[of], &prepared[d]);
                assert!(
                    verdict.near,
                    "{d} dropped for {of}: {verdict:?}\n{:?}\n{:?}",
                    texts[of], texts[d]
                );
            }
        }
        for (i, &a) in kept.iter().enumerate() {
            for &b in &kept[i + 1..] {
                let verdict = rule.judge_prepared(&prepared[a], &prepared[b]);
                assert!(
                    !verdict.near,
                    "{a} and {b} both kept: {verdict:?}\n{:?}\n{:?}",
                    texts[a], texts[b]
                );
            }
        }
    }
}

#[test]
fn components_join_every_near_pair() {
    let texts = corpus();
    let rule = Rule::new().unwrap();
    let prepared: Vec<_> = texts.iter().map(|t| rule.prepare(t)).collect();
    let job = DedupBuilder::with_rule(rule.clone())
        .grouping(Grouping::Components)
        .build()
        .unwrap();
    let outcome = job.run(&Memory::new(&texts[..]), &Silent).unwrap();
    let group: Vec<u32> = outcome
        .fates()
        .iter()
        .enumerate()
        .map(|(d, f)| f.duplicate_of().unwrap_or(d as u32))
        .collect();
    let mut near = HashSet::new();
    for a in 0..texts.len() {
        for b in a + 1..texts.len() {
            if rule.judge_prepared(&prepared[a], &prepared[b]).near {
                near.insert((a, b));
                assert_eq!(group[a], group[b], "{a} and {b} near, in two groups");
            }
        }
    }
    assert!(near.len() > 100, "{}", near.len());
}

#[test]
fn whitespace_never_moves_a_chinese_passage_out_of_reach() {
    let rule = Rule::new().unwrap();
    for passage in sample("zh/lunyu.jsonl")
        .iter()
        .flat_map(|b| b.lines().map(str::to_string).collect::<Vec<_>>())
    {
        let spaced = passage.replace('。', "。 ");
        let verdict = rule.judge(&passage, &spaced);
        assert!(verdict.near, "{verdict:?}\n{passage}");
        let pair = [passage.clone(), spaced];
        let outcome = Dedup::with_rule(rule.clone())
            .unwrap()
            .run(&Memory::new(&pair[..]), &Silent)
            .unwrap();
        assert_eq!(outcome.unique(), 1, "{passage}");
    }
}
