//! What a dedup run takes whatever `--memory` says: the budget bounds what
//! grows with the text (docs/DEDUP.md), not the program itself or what the
//! run holds per document. A budget below that floor is said, with what
//! the floor is made of, rather than silently overrun.
//!
//! Checked at `--memory 1M`, release build, on documents of 85 to 115
//! words (`bench/short_documents.py`): 10⁶ of them took at most 95 MB of
//! anonymous memory against a floor of 99 MB by the figures below, and
//! 3.39·10⁶ took 139 MB against 156 MB.

/// The program with its fingerprinter (measured: 32 MB peak RSS
/// fingerprinting `samples/licenses`).
const PROGRAM: u64 = 35 << 20;
/// Chinese word segmentation's dictionary, loaded once Chinese text is
/// met (measured: 84 MB fingerprinting `samples/zh`).
const CHINESE: u64 = 50 << 20;
/// Documents being read while the cores work: up to three batches of 8 MB.
const READING: u64 = 24 << 20;
/// The least a sort or store takes of the budget.
const LEAST_WORKING: u64 = neardup_dedup::LEAST_BUDGET;
/// Held per document whatever the budget.
const PER_DOCUMENT: u64 = neardup_dedup::HELD_PER_DOCUMENT;

// The library's budget counts the program and the reading as one.
const _: () = assert!(PROGRAM + READING == neardup_dedup::RUN_OVERHEAD);

fn megabytes(bytes: u64) -> String {
    match bytes {
        0..1024 => format!("{bytes} bytes"),
        1024..1_048_576 => format!("{:.0} KB", bytes as f64 / 1024.0),
        _ => format!("{:.0} MB", bytes as f64 / f64::from(1 << 20)),
    }
}

/// What to say when `budget` (bytes) is below the floor of a run over
/// `documents` documents (`None` before they are counted: the floor of
/// any run), or `None` when it is not.
///
/// ```
/// use neardup_output::below_memory_floor;
///
/// let note = below_memory_floor(1 << 20, Some(3_000)).unwrap();
/// assert!(note.starts_with("--memory 1 MB is below this run's floor of ~75 MB"));
/// assert!(below_memory_floor(1 << 30, Some(3_000)).is_none());
/// ```
pub fn below_memory_floor(budget: u64, documents: Option<u64>) -> Option<String> {
    let held = documents.unwrap_or(0).saturating_mul(PER_DOCUMENT);
    let floor = PROGRAM + READING + LEAST_WORKING + held;
    if budget >= floor {
        return None;
    }
    let (whose, per_document) = match documents {
        Some(n) => (
            "this run's",
            format!(
                "{PER_DOCUMENT} bytes for each of its {n} documents ({})",
                megabytes(held)
            ),
        ),
        None => ("any run's", format!("{PER_DOCUMENT} bytes per document")),
    };
    Some(format!(
        "--memory {} is below {whose} floor of ~{}: the program and its fingerprinter ({}; {} \
         more once Chinese text loads the word dictionary), the documents being read (up to {}), \
         the least a sort takes ({}), and {per_document}, held whatever the budget; the run \
         takes what it needs and spills the rest to temporary files (resident memory also \
         counts the pages of mapped temporary files, which the system takes back when short)",
        megabytes(budget),
        megabytes(floor),
        megabytes(PROGRAM),
        megabytes(CHINESE),
        megabytes(READING),
        megabytes(LEAST_WORKING),
    ))
}
