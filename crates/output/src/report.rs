//! `report.html`: one self-contained page (no script, no network: its
//! content security policy forbids both) that shows a person what a run
//! did: the totals of `summary.json`, the distances of the pairs, the sizes
//! of the groups, the largest groups, and sample pairs side by side with the
//! words that differ highlighted.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::error::Result;
use neardup_dedup::Fate;
use similar::{Algorithm, DiffTag, capture_diff_slices_deadline};

use crate::atomic::write_atomically_with;
use crate::faults::Faults;
use crate::markup::escape;

/// Sample pairs shown side by side.
pub(crate) const SAMPLES: usize = 24;
/// Characters of each sample document shown (and diffed).
const SAMPLE_CHARS: usize = 6_000;
/// Groups listed in "Largest groups", and members named per group.
const LARGEST: usize = 10;
const MEMBERS_NAMED: usize = 8;

/// A dropped document and the kept one it duplicates, with their texts.
pub(crate) struct Sample {
    pub kept_id: String,
    pub kept_text: String,
    pub dropped_id: String,
    pub dropped_text: String,
    pub distance: u32,
    /// Why it was dropped: the similarity that decided it, and the path.
    pub why: Option<neardup_dedup::Why>,
}

/// What decided a drop, for the page: "Jaccard 0.934 (found by
/// fingerprint), ".
fn why_said(why: Option<neardup_dedup::Why>) -> String {
    let Some(why) = why else {
        return String::new();
    };
    let path = match why.found_by {
        neardup_dedup::FoundBy::ExactCopy => "the same text",
        neardup_dedup::FoundBy::Fingerprint => "found by fingerprint",
        neardup_dedup::FoundBy::ShortDocuments => "found by the short-document rule",
    };
    match why.similarity {
        Some(similarity) => format!("similarity {similarity:.3} ({path}), "),
        None => format!("{path}, "),
    }
}

/// Everything the page shows.
pub(crate) struct Report<'a> {
    pub summary: &'a serde_json::Value,
    /// How many dropped documents are 0, 1, … k bits from the one they
    /// duplicate.
    pub dropped_by_distance: &'a [u64],
    pub k: u32,
    /// `(kept, dropped)` pairs, sorted ([`neardup_dedup::Fates::members`]).
    pub members: &'a [(u32, u32)],
    pub id: &'a dyn Fn(u32) -> String,
    pub samples: &'a [Sample],
}

/// The dropped documents to show as samples: spread over the distances,
/// the largest first (they show most), in input order within a distance.
pub(crate) fn choose_samples(
    fates: impl IntoIterator<Item = Fate>,
    k: u32,
) -> Vec<(u32, u32, u32)> {
    let mut by_distance: Vec<Vec<(u32, u32, u32)>> = vec![Vec::new(); k as usize + 1];
    for (d, fate) in fates.into_iter().enumerate() {
        if let Fate::Duplicate { of, distance } = fate
            && let Some(bucket) = by_distance.get_mut(distance as usize)
            && bucket.len() < SAMPLES
        {
            bucket.push((d as u32, of, distance));
        }
    }
    let mut chosen = Vec::new();
    let mut round = 0;
    while chosen.len() < SAMPLES && by_distance.iter().any(|b| b.len() > round) {
        for bucket in by_distance.iter().rev() {
            if let Some(&s) = bucket.get(round)
                && chosen.len() < SAMPLES
            {
                chosen.push(s);
            }
        }
        round += 1;
    }
    chosen
}

/// Writes `report.html` into `out`.
pub(crate) fn write_report(out: &Path, report: &Report, faults: &Faults) -> Result<()> {
    let page = render(report);
    write_atomically_with(&out.join("report.html"), faults, |w| {
        w.write_all(page.as_bytes())?;
        Ok(())
    })
}

fn render(r: &Report) -> String {
    let s = r.summary;
    let mut page = String::with_capacity(64 << 10);
    page.push_str(HEAD);
    let inputs: Vec<&str> = s["inputs"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let _ = write!(
        page,
        "<h1>neardup dedup</h1>\n<p class=\"sub\">{} &middot; k = {} bits &middot; {}-bit fingerprints &middot; profile {}</p>\n",
        escape(&input_list(&inputs)),
        r.k,
        s["settings"]["width"],
        escape(s["settings"]["profile"].as_str().unwrap_or("")),
    );

    page.push_str("<section class=\"totals\">\n");
    let seconds = s["seconds"].as_f64().unwrap_or(0.0);
    let pairs_label = if s["settings"]["verify"].is_null() {
        "pairs (no verification asked)"
    } else {
        "pairs that passed verification"
    };
    for (field, label) in [
        ("documents", "documents read"),
        ("unique", "unique (kept)"),
        ("dropped", "dropped as near-duplicates"),
        ("groups", "groups of two or more"),
        ("exact_copies", "exact copies (same text)"),
        ("candidate_pairs", "candidate pairs (SimHash)"),
        ("pairs", pairs_label),
    ] {
        card(
            &mut page,
            field,
            &group_digits(s[field].as_u64().unwrap_or(0)),
            label,
        );
    }
    card(
        &mut page,
        "skipped",
        &group_digits(s["skipped"]["total"].as_u64().unwrap_or(0)),
        "records skipped",
    );
    card(&mut page, "seconds", &format!("{seconds:.2}"), "seconds");
    page.push_str("</section>\n");

    page.push_str(
        "<section class=\"charts\">\n<figure>\n<figcaption>Dropped documents by distance to the kept one (bits)</figcaption>\n",
    );
    let bars: Vec<(String, u64)> = r
        .dropped_by_distance
        .iter()
        .enumerate()
        .map(|(d, &c)| (d.to_string(), c))
        .collect();
    bar_chart(&mut page, "distances", &bars);
    page.push_str("</figure>\n<figure>\n<figcaption>Groups by size (documents)</figcaption>\n");
    let groups = groups(r.members);
    bar_chart(&mut page, "group-sizes", &size_buckets(&groups));
    page.push_str("</figure>\n</section>\n");

    largest_groups(&mut page, &groups, r.id);
    samples(&mut page, r.samples);
    settings(&mut page, s);
    page.push_str("</body>\n</html>\n");
    page
}

fn card(page: &mut String, field: &str, value: &str, label: &str) {
    let _ = writeln!(
        page,
        "<div class=\"card\"><span class=\"value\" data-field=\"{field}\">{value}</span><span class=\"label\">{label}</span></div>"
    );
}

/// Kept documents and how many they have as duplicates, largest group
/// first, with the slice of `members` that lists them.
fn groups(members: &[(u32, u32)]) -> Vec<(u32, &[(u32, u32)])> {
    let mut groups: Vec<(u32, &[(u32, u32)])> = members
        .chunk_by(|x, y| x.0 == y.0)
        .map(|group| (group[0].0, group))
        .collect();
    groups.sort_by_key(|(keep, dups)| (std::cmp::Reverse(dups.len()), *keep));
    groups
}

fn size_buckets(groups: &[(u32, &[(u32, u32)])]) -> Vec<(String, u64)> {
    const BUCKETS: [(usize, usize, &str); 8] = [
        (2, 2, "2"),
        (3, 3, "3"),
        (4, 4, "4"),
        (5, 5, "5"),
        (6, 10, "6–10"),
        (11, 100, "11–100"),
        (101, 1000, "101–1k"),
        (1001, usize::MAX, ">1k"),
    ];
    BUCKETS
        .iter()
        .map(|&(lo, hi, label)| {
            let n = groups
                .iter()
                .filter(|(_, dups)| (lo..=hi).contains(&(dups.len() + 1)))
                .count();
            (label.to_string(), n as u64)
        })
        .collect()
}

/// An SVG bar chart, each bar labelled with its count.
fn bar_chart(page: &mut String, name: &str, bars: &[(String, u64)]) {
    const W: f64 = 560.0;
    const H: f64 = 180.0;
    const BASE: f64 = 150.0;
    let max = bars.iter().map(|b| b.1).max().unwrap_or(0).max(1) as f64;
    let slot = W / bars.len().max(1) as f64;
    let _ = writeln!(
        page,
        "<svg class=\"chart\" data-chart=\"{name}\" viewBox=\"0 0 {W} {H}\" role=\"img\">"
    );
    for (i, (label, count)) in bars.iter().enumerate() {
        let height = (BASE - 20.0) * (*count as f64 / max);
        let x = i as f64 * slot + slot * 0.15;
        let w = slot * 0.7;
        let mid = x + w / 2.0;
        let _ = writeln!(
            page,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{height:.1}\"><title>{}: {}</title></rect>\
             <text x=\"{mid:.1}\" y=\"{:.1}\" class=\"count\">{}</text>\
             <text x=\"{mid:.1}\" y=\"{:.1}\" class=\"axis\">{}</text>",
            BASE - height,
            escape(label),
            count,
            BASE - height - 4.0,
            group_digits(*count),
            BASE + 18.0,
            escape(label),
        );
    }
    let _ = writeln!(
        page,
        "<line x1=\"0\" y1=\"{BASE}\" x2=\"{W}\" y2=\"{BASE}\" class=\"base\"/></svg>"
    );
}

fn largest_groups(page: &mut String, groups: &[(u32, &[(u32, u32)])], id: &dyn Fn(u32) -> String) {
    page.push_str("<section>\n<h2>Largest groups</h2>\n");
    if groups.is_empty() {
        page.push_str("<p>No near-duplicates were found.</p>\n</section>\n");
        return;
    }
    page.push_str(
        "<table class=\"groups\"><thead><tr><th>kept</th><th>size</th><th>dropped (first few)</th></tr></thead><tbody>\n",
    );
    for (keep, dups) in groups.iter().take(LARGEST) {
        let named: Vec<String> = dups
            .iter()
            .take(MEMBERS_NAMED)
            .map(|&(_, d)| escape(&id(d)))
            .collect();
        let more = dups.len().saturating_sub(MEMBERS_NAMED);
        let _ = writeln!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}{}</td></tr>",
            escape(&id(*keep)),
            dups.len() + 1,
            named.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }
    page.push_str("</tbody></table>\n</section>\n");
}

fn samples(page: &mut String, samples: &[Sample]) {
    page.push_str("<section>\n<h2>Sample pairs</h2>\n");
    if samples.is_empty() {
        page.push_str("<p>No pairs to show.</p>\n</section>\n");
        return;
    }
    page.push_str(
        "<p>Each dropped document beside the kept one it duplicates; words only in one of them are highlighted.</p>\n",
    );
    // Diffs of long texts can be slow: each gets a bounded time, after
    // which the diff is coarser, never wrong.
    let deadline_each = Duration::from_millis(200);
    for (i, s) in samples.iter().enumerate() {
        let old = tokens(truncated(&s.kept_text));
        let new = tokens(truncated(&s.dropped_text));
        let ops = capture_diff_slices_deadline(
            Algorithm::Myers,
            &old,
            &new,
            Some(Instant::now() + deadline_each),
        );
        let (mut left, mut right) = (String::new(), String::new());
        let mut changed = 0usize;
        for op in &ops {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            let old_text: String = old[old_range].concat();
            let new_text: String = new[new_range].concat();
            match tag {
                DiffTag::Equal => {
                    left.push_str(&escape(&old_text));
                    right.push_str(&escape(&new_text));
                }
                DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                    changed += 1;
                    if !old_text.is_empty() {
                        let _ = write!(left, "<mark class=\"del\">{}</mark>", escape(&old_text));
                    }
                    if !new_text.is_empty() {
                        let _ = write!(right, "<mark class=\"ins\">{}</mark>", escape(&new_text));
                    }
                }
            }
        }
        let _ = writeln!(
            page,
            "<details class=\"pair\"{}><summary><b>{}</b> dropped as a near-duplicate of <b>{}</b>: {}{} bits apart, {}</summary>\n\
             <div class=\"side\"><div><h3>kept: {}</h3><pre>{}{}</pre></div><div><h3>dropped: {}</h3><pre>{}{}</pre></div></div></details>",
            if i < 3 { " open" } else { "" },
            escape(&s.dropped_id),
            escape(&s.kept_id),
            why_said(s.why),
            s.distance,
            match changed {
                0 => "identical text".to_string(),
                1 => "1 place differs".to_string(),
                n => format!("{n} places differ"),
            },
            escape(&s.kept_id),
            left,
            more_note(&s.kept_text),
            escape(&s.dropped_id),
            right,
            more_note(&s.dropped_text),
        );
    }
    page.push_str("</section>\n");
}

fn settings(page: &mut String, s: &serde_json::Value) {
    page.push_str("<section>\n<h2>Settings</h2>\n<table class=\"settings\"><tbody>\n");
    if let Some(settings) = s["settings"].as_object() {
        for (name, value) in settings {
            let shown = match value {
                serde_json::Value::String(text) => text.clone(),
                serde_json::Value::Null => "–".to_string(),
                other => other.to_string(),
            };
            let _ = writeln!(
                page,
                "<tr><th>{}</th><td>{}</td></tr>",
                escape(name),
                escape(&shown)
            );
        }
    }
    page.push_str("</tbody></table>\n</section>\n");
}

/// The inputs shown in the header: the first few, then how many more
/// (`summary.json` lists them all).
fn input_list(inputs: &[&str]) -> String {
    const SHOWN: usize = 3;
    match inputs.len() {
        n if n <= SHOWN + 1 => inputs.join(", "),
        n => format!("{} and {} more", inputs[..SHOWN].join(", "), n - SHOWN),
    }
}

fn truncated(text: &str) -> &str {
    match text.char_indices().nth(SAMPLE_CHARS) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

fn more_note(text: &str) -> String {
    let total = text.chars().count();
    if total > SAMPLE_CHARS {
        format!(
            "<span class=\"more\">… ({} more characters not shown)</span>",
            group_digits((total - SAMPLE_CHARS) as u64)
        )
    } else {
        String::new()
    }
}

/// The text cut into words, runs of spaces, and single other characters
/// (so a Han character, which has no spaces around it, is a word of its own).
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let class = |c: char| {
            if c.is_whitespace() {
                1
            } else if c.is_alphanumeric() && (c as u32) < 0x2E80 {
                2
            } else {
                0
            }
        };
        let kind = class(c);
        let next_same = chars
            .peek()
            .is_some_and(|&(_, n)| kind != 0 && class(n) == kind);
        if !next_same {
            let end = i + c.len_utf8();
            out.push(&text[start..end]);
            start = end;
        }
    }
    out
}

/// `1234567` as `1,234,567`.
fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

const HEAD: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>neardup dedup report</title>
<style>
body { font: 15px/1.45 system-ui, "Noto Sans CJK SC", "Source Han Sans SC", "Source Han Sans", "PingFang SC", "Hiragino Sans", "Hiragino Sans GB", "Microsoft YaHei", "WenQuanYi Micro Hei", sans-serif; margin: 2rem auto; max-width: 76rem; padding: 0 1rem; color: #1b1f24; }
h1 { margin-bottom: .2rem; }
.sub { color: #57606a; margin-top: 0; word-break: break-all; }
.totals { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .8rem; margin: 1.5rem 0; }
.card { border: 1px solid #d0d7de; border-radius: 8px; padding: .8rem 1rem; }
.card .value { display: block; font-size: 1.7rem; font-weight: 600; }
.card .label { color: #57606a; font-size: .85rem; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(24rem, 1fr)); gap: 1.5rem; }
figure { margin: 0; }
figcaption { font-weight: 600; margin-bottom: .4rem; }
.chart { width: 100%; height: auto; }
.chart rect { fill: #2f81f7; }
.chart text { font-size: 12px; text-anchor: middle; fill: #1b1f24; }
.chart .axis { fill: #57606a; }
.chart .base { stroke: #8c959f; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .6rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
td { word-break: break-word; }
.pair { border: 1px solid #d0d7de; border-radius: 8px; margin: .6rem 0; padding: .4rem .8rem; }
.pair summary { cursor: pointer; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.side h3 { font-size: .9rem; color: #57606a; word-break: break-all; }
pre { white-space: pre-wrap; word-break: break-word; font: 13px/1.4 ui-monospace, "Noto Sans Mono CJK SC", "Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans", "Microsoft YaHei", monospace; max-height: 28rem; overflow: auto; background: #f6f8fa; padding: .6rem; border-radius: 6px; }
mark.del { background: #ffd7d5; text-decoration: line-through; }
mark.ins { background: #ccffd8; }
.more { color: #57606a; font-style: italic; }
</style>
</head>
<body>
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_lists_a_few_inputs_and_counts_the_rest() {
        let many: Vec<String> = (0..705).map(|i| format!("in/{i}.txt")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(
            input_list(&many),
            "in/0.txt, in/1.txt, in/2.txt and 702 more"
        );
        assert_eq!(
            input_list(&many[..4]),
            "in/0.txt, in/1.txt, in/2.txt, in/3.txt"
        );
        assert_eq!(input_list(&[]), "");
    }

    #[test]
    fn tokens_cover_the_text() {
        let text = "Hello,  world 北京欢迎你 x2";
        let t = tokens(text);
        assert_eq!(t.concat(), text);
        assert_eq!(
            t,
            [
                "Hello", ",", "  ", "world", " ", "北", "京", "欢", "迎", "你", " ", "x2"
            ]
        );
    }

    #[test]
    fn digits_grouped_and_html_escaped() {
        assert_eq!(group_digits(0), "0");
        assert_eq!(group_digits(1234567), "1,234,567");
        assert_eq!(
            escape("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }

    #[test]
    fn samples_spread_over_distances() {
        let mut fates = [Fate::Kept; 10];
        fates[1] = Fate::Duplicate { of: 0, distance: 0 };
        fates[2] = Fate::Duplicate { of: 0, distance: 0 };
        fates[3] = Fate::Duplicate { of: 0, distance: 3 };
        fates[4] = Fate::DuplicateOfIndexed {
            entry: 0,
            distance: 1,
        };
        let chosen = choose_samples(fates, 3);
        assert_eq!(chosen, [(3, 0, 3), (1, 0, 0), (2, 0, 0)]);
    }
}
