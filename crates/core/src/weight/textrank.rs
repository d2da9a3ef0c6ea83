//! TextRank (Mihalcea and Tarau, 2004): a word is important when important
//! words occur near it.
//!
//! Words are the nodes of an undirected graph; two words are joined with a
//! weight equal to the number of times they occur within [`WINDOW`] tokens
//! of each other. Scores follow PageRank with damping 0.85 for
//! [`ITERATIONS`] rounds, then are scaled so that the highest is 1. Nodes
//! are numbered by first occurrence and every sum runs in that order, so the
//! result is the same on every platform.

use std::collections::HashMap;

use xxhash_rust::xxh3::Xxh3DefaultBuilder;

/// Co-occurrence window, in tokens.
pub const WINDOW: usize = 5;
/// PageRank rounds.
pub const ITERATIONS: usize = 10;
const DAMPING: f64 = 0.85;

/// The TextRank score of each distinct token, in order of first occurrence.
pub(crate) fn scores<'a>(tokens: &[&'a str]) -> Vec<(&'a str, f64)> {
    let mut ids: HashMap<&str, usize, Xxh3DefaultBuilder> = HashMap::default();
    let mut nodes: Vec<&str> = Vec::new();
    let sequence: Vec<usize> = tokens
        .iter()
        .map(|t| {
            *ids.entry(t).or_insert_with(|| {
                nodes.push(t);
                nodes.len() - 1
            })
        })
        .collect();
    let n = nodes.len();
    if n == 0 {
        return Vec::new();
    }
    let mut edges: HashMap<(usize, usize), f64, Xxh3DefaultBuilder> = HashMap::default();
    for (i, &a) in sequence.iter().enumerate() {
        for &b in sequence.iter().skip(i + 1).take(WINDOW - 1) {
            if a != b {
                *edges.entry((a.min(b), a.max(b))).or_insert(0.0) += 1.0;
            }
        }
    }
    let mut adjacency: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    let mut sorted: Vec<((usize, usize), f64)> = edges.into_iter().collect();
    sorted.sort_by_key(|(pair, _)| *pair);
    for ((a, b), w) in sorted {
        adjacency[a].push((b, w));
        adjacency[b].push((a, w));
    }
    let strength: Vec<f64> = adjacency
        .iter()
        .map(|edges| edges.iter().map(|(_, w)| w).sum())
        .collect();
    let mut score = vec![1.0; n];
    for _ in 0..ITERATIONS {
        let next: Vec<f64> = (0..n)
            .map(|i| {
                let inflow: f64 = adjacency[i]
                    .iter()
                    .map(|&(j, w)| w / strength[j] * score[j])
                    .sum();
                (1.0 - DAMPING) + DAMPING * inflow
            })
            .collect();
        score = next;
    }
    let max = score.iter().copied().fold(0.0, f64::max);
    nodes
        .into_iter()
        .zip(score)
        .map(|(t, s)| (t, if max > 0.0 { s / max } else { 1.0 }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn central_word_scores_highest() {
        let tokens = ["hub", "a", "hub", "b", "hub", "c", "hub", "d"];
        let scores = scores(&tokens);
        assert_eq!(scores[0].0, "hub");
        assert_eq!(scores[0].1, 1.0);
        assert!(scores[1..].iter().all(|(_, s)| *s < 1.0));
    }

    #[test]
    fn lone_words_still_score() {
        assert_eq!(scores(&["only"]), [("only", 1.0)]);
        assert!(scores(&[]).is_empty());
    }
}
