//! `report.html` in a real browser: headless Chromium loads the page with
//! no console message (the page has no script, and its content security
//! policy blocks any network load, which Chromium would report on the
//! console) and the DOM it builds shows the numbers of `summary.json`.
//!
//! Needs `chromium` (Debian's package) or `$NEARDUP_CHROMIUM`. Without it
//! each test passes without checking anything, and says so on the test
//! run's stderr ("SKIPPED: …", shown without `--nocapture`); it fails
//! instead when `NEARDUP_REQUIRE_BROWSER` is set, as CI does.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::Dir;

/// The browser, or `None` after saying that `test` is skipped.
///
/// # Panics
///
/// Without a browser when `NEARDUP_REQUIRE_BROWSER` is set.
fn chromium(test: &str) -> Option<PathBuf> {
    let found = match std::env::var_os("NEARDUP_CHROMIUM") {
        Some(path) => Some(PathBuf::from(path)).filter(|p| p.is_file()),
        None => std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
                .find(|candidate| candidate.is_file())
        }),
    };
    if found.is_none() {
        assert!(
            std::env::var_os("NEARDUP_REQUIRE_BROWSER").is_none(),
            "NEARDUP_REQUIRE_BROWSER is set but chromium is not found (apt-get install chromium, \
             or set NEARDUP_CHROMIUM)"
        );
        // Written to the process's stderr, not through eprintln!, which the
        // test harness captures and shows only for a failed test.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: chromium not found (apt-get install chromium, or set NEARDUP_CHROMIUM): \
             report::{test} checked nothing"
        );
    }
    found
}

/// The DOM Chromium builds from `page`, and the console lines it logged.
fn load(browser: &Path, page: &Path, profile: &Path) -> (String, Vec<String>) {
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let log = String::from_utf8_lossy(&output.stderr);
    let console = log
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect();
    (String::from_utf8(output.stdout).unwrap(), console)
}

/// The text of the element with `data-field="NAME"`, digits grouped.
fn field<'a>(dom: &'a str, name: &str) -> &'a str {
    let marker = format!("data-field=\"{name}\">");
    let start = dom
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in the page"))
        + marker.len();
    let end = start + dom[start..].find('<').unwrap();
    &dom[start..end]
}

#[test]
fn report_loads_in_chromium_and_shows_the_summary() {
    let Some(browser) = chromium("report_loads_in_chromium_and_shows_the_summary") else {
        return;
    };
    let d = Dir::new();
    let base = "the committee met on tuesday to discuss the budget for the new library \
                and agreed to open it in the spring after a long debate about the costs";
    let mut lines = String::new();
    for i in 0..40 {
        // Ten stories, four versions each: the same, one word changed, one
        // added, and a story of its own; a quote and an angle bracket test
        // the page's escaping.
        let town = [
            "york", "leeds", "bath", "ely", "hull", "wells", "ripon", "truro", "derby", "perth",
        ][i / 4];
        // Thirty words of the town's own keep the stories apart under any
        // rule (they are short, so the short-document rule compares them).
        let own: Vec<String> = (0..30).map(|w| format!("{town}{w}")).collect();
        let story = format!("story <b>\"{town}\"</b> {base} in {}", own.join(" "));
        let text = match i % 4 {
            0 | 1 => story,
            2 => story.replace("tuesday", "wednesday"),
            // Words of its own: near-duplicate of nothing, however short.
            _ => (0..8)
                .map(|w| format!("n{i}w{w}"))
                .collect::<Vec<_>>()
                .join(" "),
        };
        lines.push_str(&serde_json::json!({"id": format!("doc-{i}"), "text": text}).to_string());
        lines.push('\n');
    }
    d.write("in.jsonl", lines);
    let run = d.run(
        &[
            "dedup",
            "in.jsonl",
            "--out",
            "out",
            "--verify",
            "jaccard:0.5",
            "-q",
        ],
        b"",
    );
    assert_eq!(run.code(), 0, "{}", run.stderr());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.path("out/summary.json")).unwrap())
            .unwrap();
    assert!(summary["dropped"].as_u64().unwrap() > 0, "{summary}");

    let (dom, console) = load(&browser, &d.path("out/report.html"), &d.path("profile"));
    assert!(console.is_empty(), "console messages: {console:#?}");
    for name in [
        "documents",
        "unique",
        "dropped",
        "groups",
        "candidate_pairs",
        "pairs",
    ] {
        assert_eq!(
            field(&dom, name).replace(',', ""),
            summary[name].to_string(),
            "{name}"
        );
    }
    assert_eq!(
        field(&dom, "skipped"),
        summary["skipped"]["total"].to_string()
    );
    assert_eq!(
        field(&dom, "seconds"),
        format!("{:.2}", summary["seconds"].as_f64().unwrap())
    );
    assert_eq!(dom.matches("<svg class=\"chart\"").count(), 2);
    // Every dropped document is a sample here (fewer than the page's limit),
    // shown with its words that differ highlighted; the text is escaped.
    assert_eq!(
        dom.matches("<details class=\"pair\"").count() as u64,
        summary["dropped"].as_u64().unwrap()
    );
    assert!(
        dom.contains("<mark class=\"ins\">wednesday</mark>"),
        "{dom}"
    );
    assert!(dom.contains("&lt;b&gt;"));
    assert!(!dom.contains("<b>\""));
    // Each says what decided it: the similarity, and how it was found.
    assert_eq!(
        dom.matches("</b>: similarity ").count() as u64,
        summary["dropped"].as_u64().unwrap(),
        "{dom}"
    );
}

#[test]
fn a_page_with_a_script_fails_the_check() {
    // The check above would pass a page it cannot see into: show that a
    // console message and a blocked load are caught.
    let Some(browser) = chromium("a_page_with_a_script_fails_the_check") else {
        return;
    };
    let d = Dir::new();
    let page = d.write(
        "bad.html",
        "<!doctype html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">\
         <img src=\"http://192.0.2.1/x.png\"><p>hi</p>",
    );
    let (_, console) = load(&browser, &page, &d.path("profile"));
    assert_eq!(console.len(), 1, "{console:#?}");
}
