//! What was typed: the command line, parsed and checked, with no I/O.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod serve;
mod values;

pub use serve::ServeArgs;

use values::{parse_count, parse_k, parse_memory, parse_short_words, parse_threads};

/// Find near-duplicate text with SimHash.
#[derive(Debug, Parser)]
#[command(name = "neardup", version, about, long_about = None, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

const EXAMPLES: &str = "\
Examples:
  neardup dedup corpus/ --out deduped/          keep one of each group of near-duplicates
  neardup fingerprint docs/                     one JSON line per file under docs/
  neardup fingerprint corpus.jsonl.gz           one per JSON line (fields id, text)
  neardup compare a.txt b.txt                   distance and verdict for two files
  neardup idf corpus.jsonl -o corpus.idf        IDF table of your own corpus

Exit codes: 0 success (for compare: near-duplicates), 1 compare: not near-duplicates,
2 error.";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Fingerprint documents: one JSON line {"id", "fingerprint"} each, in input order.
    #[command(after_help = FINGERPRINT_EXAMPLES)]
    Fingerprint(FingerprintArgs),
    /// Compare two documents: distance, estimated similarity and verdict.
    #[command(after_help = COMPARE_EXAMPLES)]
    Compare(CompareArgs),
    /// Count document frequencies of a corpus into an IDF table for --idf.
    #[command(after_help = IDF_EXAMPLES)]
    Idf(IdfArgs),
    /// Every pair of fingerprints within k bits, by fingerprint alone (no
    /// verification: dedup's verdicts are `compare`'s): JSON lines
    /// {"a", "b", "distance"}.
    #[command(after_help = PAIRS_EXAMPLES)]
    Pairs(PairsArgs),
    /// The table plans for N fingerprints at distance k (fingerprints
    /// alone), and the one chosen.
    #[command(after_help = PLAN_EXAMPLES)]
    Plan(PlanArgs),
    /// Build, add to, query and describe an index directory of fingerprints.
    #[command(subcommand)]
    Index(IndexCommand),
    /// Keep one document of each group of near-duplicates; write what was
    /// kept, what was dropped and why, to a directory.
    #[command(after_help = DEDUP_EXAMPLES)]
    Dedup(Box<DedupArgs>),
    /// Score the fingerprint settings on a labelled benchmark built from
    /// real corpora: precision, recall and F1 over k, by edit, language and
    /// length.
    #[command(after_help = EVAL_EXAMPLES)]
    Eval(Box<EvalArgs>),
    /// Serve a durable store of documents over HTTP: a crawler asks of each
    /// page whether it duplicates one stored, and stores it when new.
    #[command(after_help = serve::SERVE_EXAMPLES)]
    Serve(Box<ServeArgs>),
}

const EVAL_EXAMPLES: &str = "\
Examples:
  neardup eval                                   BBC and People's Daily from data/corpora
  neardup eval --corpus en=news.jsonl --originals 500
  neardup eval --profile en --features shingles:2 --json scores.json

Corpora are JSON lines {\"id\", \"text\"}; an id \"TOPIC/…\" names its topic, whose
other documents are the hard negatives (scripts/fetch-corpora.sh fetches the
default ones).";

/// The arguments of `neardup eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// A corpus as LANGUAGE=PATH (JSON lines); repeat for more. With no
    /// --corpus, --aligned or --all-pairs: BBC news, People's Daily, KJV
    /// verses and Chinese reviews from data/corpora, the Bibles and Tang
    /// poems of samples/ aligned, and the licences of samples/ all-pairs.
    #[arg(long = "corpus", value_name = "LANG=PATH")]
    pub corpora: Vec<String>,
    /// A small collection as LANGUAGE=PATH (files, a directory, JSON lines)
    /// whose every pair of documents is labelled, by the Jaccard truth: the
    /// near-duplicates found in the wild (licence texts that differ by a
    /// copyright line) and the hard negatives (GPL-2 and GPL-3).
    #[arg(long = "all-pairs", value_name = "LANG=PATH")]
    pub all_pairs: Vec<String>,
    /// Versions of the same documents as LANGUAGE=PATH: two documents whose
    /// ids differ only before the first '/' (kjv/Genesis 1, web/Genesis 1)
    /// are a pair, labelled by the Jaccard truth: two translations, or two
    /// digitisations of one text.
    #[arg(long, value_name = "LANG=PATH")]
    pub aligned: Vec<String>,
    /// Originals drawn from each corpus; each gives one edited copy per
    /// edit kind and rate.
    #[arg(long, default_value_t = 200)]
    pub originals: usize,
    /// Negative pairs per original (as many hard negatives again).
    #[arg(long, default_value_t = 4)]
    pub negatives: usize,
    /// The seed of every draw.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The k whose scores are broken down by edit, language and length.
    #[arg(short, long, default_value_t = crate::config::DEFAULT_K, value_parser = parse_k)]
    pub k: u32,
    #[command(flatten)]
    pub nearness: NearnessArgs,
    /// The curve goes from k = 0 to this.
    #[arg(long, default_value_t = 8, value_parser = parse_k)]
    pub k_max: u32,
    /// Also write every score as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Also draw the scores as SVG charts into DIR (scores over k, F1 by
    /// language and length, recall by edit rate).
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    /// Write the benchmark to DIR (documents.jsonl, pairs.jsonl), for other
    /// tools to answer (bench/peers/eval_peers.py).
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
    /// Score another tool's answers: NAME=FILE (FILE after the last =), one JSON line per pair of
    /// pairs.jsonl, `true`/`false`, or a distance (then scored over k).
    #[arg(long = "predictions", value_name = "NAME=FILE")]
    pub predictions: Vec<String>,
    /// Score another tool's dedup: NAME=FILE, one JSON line per document of
    /// documents.jsonl, `null` if it was kept, else the number of the
    /// document it was dropped for.
    #[arg(long = "dedup-predictions", value_name = "NAME=FILE")]
    pub dedup_predictions: Vec<String>,
    #[command(flatten)]
    pub settings: FingerprintSettings,
}

const DEDUP_EXAMPLES: &str = "\
Examples:
  neardup dedup samples/ --out deduped/
  neardup dedup news.jsonl.gz --out out/ -k 4 --keep longest
  neardup dedup corpus/ --out out/ --cluster components --force
  neardup dedup crawl.jsonl.zst --out out/ --verify jaccard:0.8
  neardup dedup shards/*.parquet --out out/ --text-field content --keep max:score
  neardup dedup day1/ --out out1/ --save-index seen/
  neardup dedup day2/ --out out2/ --against seen/ --save-index seen/

Outputs in DIR: unique.jsonl (the kept JSON lines, byte for byte),
unique.parquet (the kept Parquet rows, every column as it was; inputs must
share one schema) and/or unique.txt (kept text lines, and paths of kept
whole-file documents), each if some input is of its kind; duplicates.jsonl,
clusters.jsonl, report.html, summary.json.";

/// Which document of a group is kept: `first`, `longest`, `shortest`,
/// `max:FIELD` (alias `field:FIELD`) or `min:FIELD`.
#[derive(Clone, Debug, PartialEq)]
pub enum KeepArg {
    /// The first in input order.
    First,
    /// The longest (the first among equals).
    Longest,
    /// The shortest (the first among equals).
    Shortest,
    /// The one whose JSON field holds the greatest value (numbers by value,
    /// strings in byte order, so ISO dates by date; the first among equals;
    /// records without it come last).
    Max(String),
    /// The one whose JSON field holds the least value.
    Min(String),
}

impl KeepArg {
    /// The JSON field this choice reads, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            KeepArg::Max(name) | KeepArg::Min(name) => Some(name),
            _ => None,
        }
    }

    /// How `summary.json` names it.
    pub fn describe(&self) -> String {
        match self {
            KeepArg::First => "first".to_string(),
            KeepArg::Longest => "longest".to_string(),
            KeepArg::Shortest => "shortest".to_string(),
            KeepArg::Max(name) => format!("max:{name}"),
            KeepArg::Min(name) => format!("min:{name}"),
        }
    }
}

impl std::str::FromStr for KeepArg {
    type Err = String;

    fn from_str(text: &str) -> Result<KeepArg, String> {
        let field = |name: &str| {
            if name.is_empty() {
                Err(format!("{text:?}: name the JSON field, as in max:score"))
            } else {
                Ok(name.to_string())
            }
        };
        match text {
            "first" => Ok(KeepArg::First),
            "longest" => Ok(KeepArg::Longest),
            "shortest" => Ok(KeepArg::Shortest),
            _ => match text.split_once(':') {
                Some(("max" | "field", name)) => field(name).map(KeepArg::Max),
                Some(("min", name)) => field(name).map(KeepArg::Min),
                _ => Err(format!(
                    "{text:?}: give first, longest, shortest, max:FIELD (or field:FIELD) or min:FIELD"
                )),
            },
        }
    }
}

/// How documents are grouped.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ClusterArg {
    /// Documents taken in --keep order; each is dropped only as a
    /// near-duplicate of a kept one it is itself within k of.
    Greedy,
    /// Connected components of the pairs: a chain a~b~c is one group even
    /// when a and c are far apart; one kept per group.
    Components,
}

#[derive(Debug, Args)]
pub struct DedupArgs {
    /// Files or directories (walked recursively); read twice, so not stdin.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// The directory to write the outputs to.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub out: PathBuf,
    /// Candidates by fingerprint are at most K bits apart (a short text and
    /// a near-short one are compared at any distance); verification judges
    /// them.
    #[arg(short, long, default_value_t = crate::config::DEFAULT_K, value_parser = parse_k)]
    pub k: u32,
    /// Also write annotated.jsonl: every document's fate, in input order
    /// (kept, its cluster, what it duplicates, the distance, the
    /// similarity and how the pair was found), to join back to the records.
    #[arg(long)]
    pub annotate: bool,
    /// Which document of a group is kept: first, longest, shortest,
    /// max:FIELD (alias field:FIELD) or min:FIELD, the one with the
    /// greatest (least) value of a JSON field or Parquet column, e.g. a
    /// quality score or a date.
    #[arg(long, default_value = "first", value_name = "RULE")]
    pub keep: KeepArg,
    /// How documents are grouped.
    #[arg(long, value_enum, default_value_t = ClusterArg::Greedy)]
    pub cluster: ClusterArg,
    #[command(flatten)]
    pub nearness: NearnessArgs,
    /// Keep the fingerprints of what was kept in this index directory
    /// (created, or added to), for later runs' --against.
    #[arg(long, value_name = "INDEX")]
    pub save_index: Option<PathBuf>,
    /// Also drop documents near one kept by an earlier run (its --save-index).
    #[arg(long, value_name = "INDEX")]
    pub against: Option<PathBuf>,
    /// Memory for the run (e.g. 2G, 512M), the program's own included: past
    /// their shares of it, per-document arrays, pairs and the kept
    /// documents' sketches go to temporary files in --out, and a line says
    /// so [default: half the machine's memory, or of the cgroup's limit].
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    pub memory: Option<u64>,
    /// Write into DIR even if it is not empty.
    #[arg(long)]
    pub force: bool,
    /// Worker threads [default: all cores].
    #[arg(long, short = 'j', value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// No progress bar or summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub settings: FingerprintSettings,
    #[command(flatten)]
    pub input: InputArgs,
}

/// The subcommands of `neardup index`.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Build an index directory from fingerprint JSON lines.
    #[command(after_help = INDEX_EXAMPLES)]
    Build(IndexBuildArgs),
    /// Add fingerprint JSON lines to an index directory.
    #[command(after_help = INDEX_EXAMPLES)]
    Add(IndexAddArgs),
    /// For each fingerprint line, the indexed fingerprints within k bits.
    #[command(after_help = INDEX_EXAMPLES)]
    Query(Box<IndexQueryArgs>),
    /// What an index directory holds, as one JSON object.
    #[command(after_help = INDEX_EXAMPLES)]
    Stats(IndexStatsArgs),
}

const INDEX_EXAMPLES: &str = "\
Examples:
  neardup fingerprint corpus/ > prints.jsonl
  neardup index build prints.jsonl --index idx/ -k 3
  neardup fingerprint new/ | neardup index add - --index idx/
  neardup fingerprint queries.jsonl | neardup index query - --index idx/
  neardup index query --documents new-articles/ --index idx/
  neardup index stats --index idx/";

/// The fields of fingerprint JSON lines.
#[derive(Debug, Args)]
#[command(next_help_heading = "Input")]
pub struct FingerprintFields {
    /// JSON field holding the fingerprint.
    #[arg(long, default_value = "fingerprint", value_name = "NAME")]
    pub fingerprint_field: String,
    /// JSON field holding the id.
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_field: String,
}

#[derive(Debug, Args)]
pub struct IndexBuildArgs {
    /// Fingerprint JSON lines, or - for stdin.
    #[arg(required = true, value_name = "FILE")]
    pub paths: Vec<PathBuf>,
    /// The index directory to create: a store, as `neardup serve` keeps.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// Queries find fingerprints at most K bits apart (as dedup's and the
    /// service's -k).
    #[arg(short, long, default_value_t = crate::config::DEFAULT_K, value_parser = parse_k)]
    pub k: u32,
    #[command(flatten)]
    pub fields: FingerprintFields,
    /// The settings the fingerprints were made with, recorded in the
    /// index: `index query --documents`, `dedup --against` and `serve`
    /// check theirs against them.
    #[command(flatten)]
    pub settings: FingerprintSettings,
}

#[derive(Debug, Args)]
pub struct IndexAddArgs {
    /// Fingerprint JSON lines, or - for stdin.
    #[arg(required = true, value_name = "FILE")]
    pub paths: Vec<PathBuf>,
    /// The index directory.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    #[command(flatten)]
    pub fields: FingerprintFields,
}

#[derive(Debug, Args)]
pub struct IndexQueryArgs {
    /// Fingerprint JSON lines (or documents, with --documents), or - for stdin.
    #[arg(required = true, value_name = "FILE")]
    pub paths: Vec<PathBuf>,
    /// The index directory.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
    /// Report matches at most K bits apart [default: the index's k].
    #[arg(short, long, value_parser = parse_k)]
    pub k: Option<u32>,
    /// The inputs are documents: fingerprint them first, with the settings
    /// below, which must be those of the indexed fingerprints.
    #[arg(long)]
    pub documents: bool,
    /// JSON field holding the fingerprint (without --documents).
    #[arg(long, default_value = "fingerprint", value_name = "NAME")]
    pub fingerprint_field: String,
    /// Worker threads [default: all cores].
    #[arg(long, short = 'j', value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub settings: FingerprintSettings,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct IndexStatsArgs {
    /// The index directory.
    #[arg(long, value_name = "DIR")]
    pub index: PathBuf,
}

const FINGERPRINT_EXAMPLES: &str = "\
Examples:
  neardup fingerprint README.md LICENSE-MIT
  neardup fingerprint corpus/ > prints.jsonl
  neardup fingerprint news.jsonl --text-field body --id-field url
  cat titles.txt | neardup fingerprint - --lines
  neardup fingerprint notes.txt --explain 5 --profile en
  neardup fingerprint data.jsonl.zst --skip-invalid --width 128";

const COMPARE_EXAMPLES: &str = "\
Examples:
  neardup compare a.txt b.txt
  neardup compare --text 'the cat sat on the mat today' 'the cat sat on the mat today!'
  neardup compare a.txt b.txt --threshold 0.9 -k 12   # what dedup with these settings says
  neardup compare a.txt b.txt --explain --json

The verdict is neardup dedup's: near-duplicates when a run finds the pair
(the same text, fingerprints within k bits, or a short text and a
near-short one at any distance: -k does not matter for those) and its
verification passes. Exit code 0 for near-duplicates, 1 otherwise.";

const IDF_EXAMPLES: &str = "\
Examples:
  neardup idf corpus.jsonl -o corpus.idf
  neardup fingerprint corpus.jsonl --idf corpus.idf";

const PAIRS_EXAMPLES: &str = "\
Examples:
  neardup fingerprint corpus/ > prints.jsonl
  neardup pairs prints.jsonl -k 3 > pairs.jsonl
  neardup pairs new.jsonl --against old.jsonl
  neardup pairs prints.jsonl --id-field url --blocks 6";

const PLAN_EXAMPLES: &str = "\
Examples:
  neardup plan -n 1e9 -k 3
  neardup plan -n 1e7 -k 3 --max-bytes 48
  neardup plan -n 5e6 -k 6 --width 128";

/// The settings of the fingerprint itself.
#[derive(Debug, Args)]
#[command(next_help_heading = "Fingerprint settings")]
pub struct FingerprintSettings {
    /// Preset of all settings: auto picks en or zh per document by script.
    #[arg(long, default_value = "auto", value_parser = ["auto", "en", "zh", "python-simhash"])]
    pub profile: String,
    /// Fingerprint width in bits.
    #[arg(long, value_parser = ["64", "128"])]
    pub width: Option<String>,
    /// Feature hash [default: xxh3].
    #[arg(long, value_parser = ["xxh3", "fnv1a", "md5", "siphash"])]
    pub hash: Option<String>,
    /// Features: words, shingles:N (N words) or chars:N (N characters) [default: words].
    #[arg(long, value_name = "KIND")]
    pub features: Option<String>,
    /// Weights [default: tf for en, tfidf for zh].
    #[arg(long, value_parser = ["tf", "binary", "tfidf", "textrank"])]
    pub weighting: Option<String>,
    /// Keep only the K heaviest features of each document.
    #[arg(long, value_name = "K")]
    pub top_k: Option<usize>,
    /// Stop-word list: a file with one word per line, or "none" [default: the profile's].
    #[arg(long, value_name = "FILE|none")]
    pub stop_words: Option<String>,
    /// IDF table written by `neardup idf`; implies --weighting tfidf [default: jieba's].
    #[arg(long, value_name = "FILE")]
    pub idf: Option<PathBuf>,
}

/// How documents are read.
#[derive(Debug, Args)]
#[command(next_help_heading = "Input")]
pub struct InputArgs {
    /// Input format; auto: .jsonl/.ndjson are JSON lines, .parquet Parquet
    /// (one document per row), anything else text.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,
    /// JSON field (or Parquet column) holding the text.
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_field: String,
    /// JSON field (or Parquet column) holding the id (else FILE:LINE, or
    /// FILE:ROW).
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_field: String,
    /// Each line of a text file is one document (blank lines skipped).
    #[arg(long)]
    pub lines: bool,
    /// Largest document accepted, in bytes.
    #[arg(long, default_value_t = 256 << 20, value_name = "BYTES")]
    pub max_bytes: u64,
    /// Skip bad records (invalid JSON, missing field, invalid UTF-8, too large,
    /// binary), count them on stderr, and go on.
    #[arg(long)]
    pub skip_invalid: bool,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    Auto,
    Jsonl,
    Text,
    Parquet,
}

#[derive(Debug, Args)]
pub struct FingerprintArgs {
    /// Files, directories (walked recursively) or - for stdin.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub settings: FingerprintSettings,
    #[command(flatten)]
    pub input: InputArgs,
    /// Add the N heaviest features with their weights to each line.
    #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "10")]
    pub explain: Option<usize>,
    /// Worker threads [default: all cores].
    #[arg(long, short = 'j', value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// No progress bar or summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The first file (or - for stdin), or the first text with --text.
    #[arg(value_name = "A")]
    pub a: String,
    /// The second file (or - for stdin), or the second text with --text.
    #[arg(value_name = "B")]
    pub b: String,
    /// Take A and B as the texts themselves, not as paths.
    #[arg(long)]
    pub text: bool,
    /// Candidates by fingerprint are at most K bits apart (a short text and
    /// a near-short one are compared at any distance); verification judges
    /// them.
    #[arg(short, long, default_value_t = crate::config::DEFAULT_K, value_parser = parse_k)]
    pub k: u32,
    #[command(flatten)]
    pub nearness: NearnessArgs,
    /// Show the features that pushed the differing bits.
    #[arg(long)]
    pub explain: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub settings: FingerprintSettings,
}

#[derive(Debug, Args)]
pub struct IdfArgs {
    /// Files, directories (walked recursively) or - for stdin.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Where to write the table.
    #[arg(
        short = 'o',
        long = "out",
        visible_alias = "output",
        value_name = "FILE"
    )]
    pub out: PathBuf,
    /// Keep features seen in at least this many documents.
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub min_df: u64,
    #[command(flatten)]
    pub settings: FingerprintSettings,
    #[command(flatten)]
    pub input: InputArgs,
    /// No progress bar or summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct PairsArgs {
    /// Fingerprint JSON lines (the output of `neardup fingerprint`), or - for stdin.
    #[arg(required = true, value_name = "FILE")]
    pub paths: Vec<PathBuf>,
    /// Pairs are at most K bits apart, by fingerprint alone (the seeds' k;
    /// the verdicts of dedup and compare take candidates within 8).
    #[arg(short, long, default_value_t = 3, value_parser = parse_k)]
    pub k: u32,
    /// Pair FILE's fingerprints with these instead of with each other.
    #[arg(long, value_name = "BASE", num_args = 1..)]
    pub against: Option<Vec<PathBuf>>,
    /// Blocks of the table plan [default: the planner's choice].
    #[arg(long, value_name = "R")]
    pub blocks: Option<u32>,
    /// JSON field holding the fingerprint.
    #[arg(long, default_value = "fingerprint", value_name = "NAME")]
    pub fingerprint_field: String,
    /// JSON field holding the id.
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_field: String,
    /// Memory for the pairs (e.g. 2G): past half of it, they are sorted in
    /// runs in the temporary directory ($TMPDIR) [default: 256M, so that
    /// a dense cluster's millions of pairs go to disk, not to memory].
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    pub memory: Option<u64>,
    /// Worker threads [default: all cores].
    #[arg(long, short = 'j', value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Expected number of fingerprints (1e9 and the like accepted).
    #[arg(short, long, value_parser = parse_count)]
    pub n: f64,
    /// Pairs are at most K bits apart, by fingerprint alone (the seeds' k;
    /// the verdicts of dedup and compare take candidates within 8).
    #[arg(short, long, default_value_t = 3, value_parser = parse_k)]
    pub k: u32,
    /// Fingerprint width in bits: 64 or 128.
    #[arg(long, default_value_t = 64)]
    pub width: u32,
    /// Memory budget of an online index, in bytes per fingerprint.
    #[arg(long, value_name = "BYTES", value_parser = parse_count)]
    pub max_bytes: Option<f64>,
}

#[cfg(test)]
mod tests;

/// What near means once SimHash has found the candidates: `dedup`,
/// `compare` and `eval` share it.
#[derive(Debug, Args)]
pub struct NearnessArgs {
    /// Two documents are near-duplicates when the exact Jaccard similarity
    /// of their shingles (word 3-shingles; character 4-grams for Chinese
    /// and Japanese) is at least T: the same as --verify jaccard:T.
    #[arg(long, value_name = "T", conflicts_with = "verify")]
    pub threshold: Option<f64>,
    /// Another check of the candidate pairs: jaccard:T (as --threshold),
    /// words:D (at most a share D of the two documents' words differ, in
    /// any order), or none (trust the fingerprints alone, hold no pairs:
    /// the fastest and the least memory).
    #[arg(long, value_name = "jaccard:T|words:D|none", default_value_t = crate::config::default_verify())]
    pub verify: String,
    /// Turn off the short-document rule: by default, with verification,
    /// two short documents (under 50 words or 100 Chinese characters) are
    /// compared whatever their distance, when their shingles overlap enough
    /// to pass.
    #[arg(long)]
    pub no_short_rule: bool,
    /// Texts under N words (2N Chinese characters) are short: each pair of
    /// a short text and one under 2N words that passes is found whatever
    /// the fingerprints' distance. `all`: every pair at or above the
    /// threshold is found, at the cost of sketching and joining every text
    /// by its shingles (docs/DEDUP.md).
    #[arg(long, value_name = "N|all", default_value_t = neardup_dedup::SHORT_WORDS, value_parser = parse_short_words)]
    pub short_words: usize,
}
