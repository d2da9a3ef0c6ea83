//! The token-level edit rate of two documents, for the truth of pairs that
//! no edit of ours made: the fewest words substituted, inserted or deleted
//! to turn one into the other (Levenshtein distance over word tokens), over
//! the words of the longer.

/// The edit rate of `a` and `b` (word hashes in order), if it is at most
/// `most`; `None` above. Costs `O(len × most × len)` at worst, and nothing
/// for pairs whose words alone differ by more.
///
/// ```
/// use neardup_eval::edit_rate;
///
/// let a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
/// assert_eq!(edit_rate(&a, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 11], 0.1), Some(0.1));
/// assert_eq!(edit_rate(&a, &[1, 2, 3, 4, 5, 6, 7, 8, 9], 0.1), Some(0.1));
/// assert_eq!(edit_rate(&a, &[2, 1, 3, 4, 5, 6, 7, 8, 9, 10], 0.1), None);
/// assert_eq!(edit_rate(&[], &[], 0.1), Some(0.0));
/// ```
pub fn edit_rate(a: &[u64], b: &[u64], most: f64) -> Option<f64> {
    let longer = a.len().max(b.len());
    if longer == 0 {
        return Some(0.0);
    }
    let band = (most * longer as f64 + 1e-9).floor() as usize;
    // Words one has and the other lacks are edits whatever their order.
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    x.sort_unstable();
    y.sort_unstable();
    if bag_difference(&x, &y) > band || a.len().abs_diff(b.len()) > band {
        return None;
    }
    let distance = banded_levenshtein(a, b, band)?;
    Some(distance as f64 / longer as f64)
}

/// The larger of the words (with repeats) one sorted bag has and the other
/// lacks: a lower bound of the edit distance.
fn bag_difference(x: &[u64], y: &[u64]) -> usize {
    let common = neardup_dedup::common(x, y);
    (x.len() - common).max(y.len() - common)
}

/// The Levenshtein distance of `a` and `b` if it is at most `band`: only
/// cells within `band` of the diagonal are computed.
fn banded_levenshtein(a: &[u64], b: &[u64], band: usize) -> Option<usize> {
    const FAR: usize = usize::MAX / 2;
    let (n, m) = (a.len(), b.len());
    let mut previous = vec![FAR; m + 1];
    let mut current = vec![FAR; m + 1];
    for (j, cell) in previous.iter_mut().enumerate().take(band.min(m) + 1) {
        *cell = j;
    }
    for i in 1..=n {
        let lo = i.saturating_sub(band);
        let hi = (i + band).min(m);
        current.fill(FAR);
        if lo == 0 {
            current[0] = i;
        }
        let mut row_best = current[0];
        for j in lo.max(1)..=hi {
            let substitution = previous[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let value = substitution.min(previous[j] + 1).min(current[j - 1] + 1);
            current[j] = value;
            row_best = row_best.min(value);
        }
        if row_best > band {
            return None;
        }
        std::mem::swap(&mut previous, &mut current);
    }
    (previous[m] <= band).then_some(previous[m])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn levenshtein(a: &[u64], b: &[u64]) -> usize {
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut diagonal = row[0];
            row[0] = i;
            for j in 1..=b.len() {
                let up = row[j];
                row[j] = (diagonal + usize::from(a[i - 1] != b[j - 1]))
                    .min(up + 1)
                    .min(row[j - 1] + 1);
                diagonal = up;
            }
        }
        row[b.len()]
    }

    #[test]
    fn equals_the_full_distance_within_the_bound() {
        let mut rng = crate::Rng::new(5);
        for _ in 0..2000 {
            let n = rng.below(40);
            let a: Vec<u64> = (0..n).map(|_| rng.below(6) as u64).collect();
            let mut b = a.clone();
            for _ in 0..rng.below(8) {
                match rng.below(3) {
                    0 if !b.is_empty() => {
                        let i = rng.below(b.len());
                        b[i] = rng.below(6) as u64;
                    }
                    1 => b.insert(rng.below(b.len() + 1), rng.below(6) as u64),
                    _ if !b.is_empty() => {
                        b.remove(rng.below(b.len()));
                    }
                    _ => {}
                }
            }
            let most = [0.0, 0.1, 0.25, 0.5][rng.below(4)];
            let full = levenshtein(&a, &b);
            let longer = a.len().max(b.len());
            let want = if longer == 0 {
                Some(0.0)
            } else {
                let rate = full as f64 / longer as f64;
                (full <= (most * longer as f64 + 1e-9).floor() as usize).then_some(rate)
            };
            assert_eq!(edit_rate(&a, &b, most), want, "{a:?} {b:?} {most}");
        }
    }
}
