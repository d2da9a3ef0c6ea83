//! The plots of `neardup eval --plots DIR`: self-contained SVG line charts
//! of the scores, for docs/QUALITY.md.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use neardup_eval::{Counts, EditKind, RATES, Scores};

use neardup_output::markup::escape;
use neardup_output::write_atomically;

/// One line of a chart: its name and a value (0 to 1) per x, or none.
type Series = (String, Vec<Option<f64>>);

const COLOURS: [&str; 8] = [
    "#2f81f7", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a",
];

/// Writes the charts of `curve` (scores by k), `at_k`, and `compared`
/// (detectors' scores by k, neardup's among them) into `dir`.
pub(super) fn write_plots(
    dir: &Path,
    curve: &[(u32, Scores)],
    at_k: &Scores,
    k: u32,
    compared: &[(String, Vec<Scores>)],
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let ks: Vec<String> = curve.iter().map(|(k, _)| k.to_string()).collect();
    let over_k = |f: &dyn Fn(&Scores) -> Option<f64>| curve.iter().map(|(_, s)| f(s)).collect();
    let main: Vec<Series> = vec![
        ("precision".into(), over_k(&|s| Some(s.all.precision()))),
        ("recall".into(), over_k(&|s| Some(s.all.recall()))),
        ("F1".into(), over_k(&|s| Some(s.all.f1()))),
        ("F1, ≥ 50 words".into(), over_k(&|s| Some(s.long.f1()))),
    ];
    save(
        dir,
        "scores-over-k.svg",
        &chart("Precision, recall and F1 over k", "k (bits)", &ks, &main),
    )?;
    let detectors: Vec<Series> = compared
        .iter()
        .map(|(name, scores)| {
            let values = scores.iter().map(|s| Some(s.long.f1())).collect();
            (name.clone(), values)
        })
        .collect();
    save(
        dir,
        "detectors-over-k.svg",
        &chart(
            "F1 over k, documents of 50 words or more",
            "k (bits; MinHash has none)",
            &ks,
            &detectors,
        ),
    )?;

    let languages: Vec<String> = curve
        .first()
        .map(|(_, s)| s.by_language.keys().cloned().collect())
        .unwrap_or_default();
    let lengths: Vec<&str> = ["<50", "50-500", ">500"].to_vec();
    let mut parts: Vec<Series> = languages
        .iter()
        .map(|l| {
            (
                format!("F1, {l}"),
                over_k(&|s| s.by_language.get(l).map(Counts::f1)),
            )
        })
        .collect();
    parts.extend(lengths.iter().map(|b| {
        (
            format!("F1, {b} words"),
            over_k(&|s| s.by_length.get(b).map(Counts::f1)),
        )
    }));
    save(
        dir,
        "f1-by-language-and-length.svg",
        &chart(
            "F1 over k, by language and by length",
            "k (bits)",
            &ks,
            &parts,
        ),
    )?;

    let rates: Vec<String> = RATES.iter().map(|r| format!("{}%", r * 100.0)).collect();
    let edits: Vec<Series> = EditKind::ALL
        .iter()
        .filter(|kind| **kind != EditKind::Traditional)
        .map(|kind| {
            let values = RATES
                .iter()
                .map(|r| {
                    let c = at_k
                        .by_edit
                        .get(&(kind.name().to_string(), (r * 1000.0).round() as u32))?;
                    (c.true_positives + c.false_negatives > 0).then(|| c.recall())
                })
                .collect();
            (kind.name().to_string(), values)
        })
        .collect();
    save(
        dir,
        "recall-by-edit.svg",
        &chart(
            &format!("Recall at k = {k} over the edit rate"),
            "share of units edited",
            &rates,
            &edits,
        ),
    )
}

fn save(dir: &Path, name: &str, svg: &str) -> Result<()> {
    write_atomically(&dir.join(name), |out| {
        out.write_all(svg.as_bytes())?;
        Ok(())
    })?;
    Ok(())
}

/// A line chart of `series` over `xs`, values from 0 to 1, with a legend.
fn chart(title: &str, x_title: &str, xs: &[String], series: &[Series]) -> String {
    const W: f64 = 680.0;
    const H: f64 = 360.0;
    const LEFT: f64 = 50.0;
    const RIGHT: f64 = 200.0;
    const TOP: f64 = 40.0;
    const BOTTOM: f64 = 50.0;
    let plot_w = W - LEFT - RIGHT;
    let plot_h = H - TOP - BOTTOM;
    let x = |i: usize| LEFT + plot_w * i as f64 / (xs.len().max(2) - 1) as f64;
    let y = |v: f64| TOP + plot_h * (1.0 - v.clamp(0.0, 1.0));
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"{W}\" height=\"{H}\" fill=\"white\"/>\n\
         <text x=\"{LEFT}\" y=\"22\" font-size=\"15\" font-weight=\"600\">{}</text>",
        escape(title)
    );
    for tick in 0..=5 {
        let v = tick as f64 / 5.0;
        let _ = writeln!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#d0d7de\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{v:.1}</text>",
            LEFT + plot_w,
            y(v),
            y(v),
            LEFT - 6.0,
            y(v) + 4.0
        );
    }
    for (i, label) in xs.iter().enumerate() {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x(i),
            TOP + plot_h + 18.0,
            escape(label)
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#57606a\">{}</text>",
        LEFT + plot_w / 2.0,
        H - 10.0,
        escape(x_title)
    );
    for (n, (name, values)) in series.iter().enumerate() {
        let colour = COLOURS[n % COLOURS.len()];
        let points: Vec<String> = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.map(|v| format!("{:.1},{:.1}", x(i), y(v))))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/>",
            points.join(" ")
        );
        for p in &points {
            let (px, py) = p.split_once(',').unwrap_or(("0", "0"));
            let _ = writeln!(
                svg,
                "<circle cx=\"{px}\" cy=\"{py}\" r=\"3\" fill=\"{colour}\"/>"
            );
        }
        let ly = TOP + 10.0 + 20.0 * n as f64;
        let _ = writeln!(
            svg,
            "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{ly:.1}\" y2=\"{ly:.1}\" stroke=\"{colour}\" stroke-width=\"3\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            W - RIGHT + 15.0,
            W - RIGHT + 35.0,
            W - RIGHT + 40.0,
            ly + 4.0,
            escape(name)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_has_a_line_per_series_and_skips_missing_points() {
        let xs = ["0".to_string(), "1".to_string(), "2".to_string()];
        let series = vec![
            ("a".to_string(), vec![Some(0.0), Some(0.5), Some(1.0)]),
            ("b <".to_string(), vec![None, Some(0.5), None]),
        ];
        let svg = chart("t", "x", &xs, &series);
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains("b &lt;"));
        // 0 at the bottom of the plot, 1 at the top.
        assert!(
            svg.contains("points=\"50.0,310.0 265.0,175.0 480.0,40.0\""),
            "{svg}"
        );
    }
}
