//! How much memory a run may take, and how it is shared: [`default_memory`],
//! a share of what the machine (or the control group the process runs in)
//! has; what any run holds whatever its budget ([`RUN_OVERHEAD`], and
//! [`HELD_PER_DOCUMENT`] for each document); the arrays of a number per
//! document, each in memory up to an eighth of the budget and in a mapped
//! file past it; and the rest, free, for the sorts and stores that grow
//! with the text (pairs, keys, the kept documents' sketches), which spill
//! to temporary files past their shares of it.

use neardup_core::Width;

/// What any run holds before its first document: the program with its
/// fingerprinter (35 MB measured fingerprinting `samples/licenses`) and
/// the documents being read while the cores work (up to three batches of
/// 8 MB). The budget counts it; Chinese text adds 50 MB more (the word
/// dictionary), which it does not.
///
/// ```
/// assert_eq!(neardup_dedup::RUN_OVERHEAD, 59 << 20);
/// ```
pub const RUN_OVERHEAD: u64 = 59 << 20;

/// What a run holds in memory per document whatever the budget (greedy
/// grouping's fate and similarity of each unit, per-unit flags, the lists
/// of searched units and their fingerprints while they are joined), with
/// a margin; measured: 19.3 bytes a document between 10⁶ and 3.39·10⁶
/// documents of 85 to 115 words at `--memory 1M`, 13 on short ones
/// (docs/BENCHMARKS-LOG.md). Part of the floor below which `--memory`
/// cannot hold.
///
/// ```
/// assert_eq!(neardup_dedup::HELD_PER_DOCUMENT, 24);
/// ```
pub const HELD_PER_DOCUMENT: u64 = 24;

/// The least a sort or store takes of the budget, however little is left.
///
/// ```
/// assert_eq!(neardup_dedup::LEAST_BUDGET, 16 << 20);
/// ```
pub const LEAST_BUDGET: u64 = 16 << 20;

/// The bytes per document of the arrays held at once while documents are
/// grouped, each in memory up to an eighth of the budget: the records (32),
/// the unit of each document and the representative of each unit (4 + 4),
/// and each unit's fingerprint (8 or 16 by `width`).
fn array_bytes(width: Width) -> [u64; 4] {
    let fingerprint = if width == Width::W64 { 8 } else { 16 };
    [32, 4, 4, fingerprint]
}

/// What a run of `documents` documents at `width` has left of `memory`
/// for its sorts and stores: the budget less what it holds whatever the
/// budget and the arrays' shares in memory, and at least
/// [`LEAST_BUDGET`].
pub(crate) fn free_memory(memory: u64, documents: usize, width: Width) -> u64 {
    let n = documents as u64;
    let arrays: u64 = array_bytes(width)
        .iter()
        .map(|&size| n.saturating_mul(size).min(memory / 8))
        .sum();
    let held = RUN_OVERHEAD
        .saturating_add(n.saturating_mul(HELD_PER_DOCUMENT))
        .saturating_add(arrays);
    memory.saturating_sub(held).max(LEAST_BUDGET)
}

/// The memory budget when none is given: half of the machine's memory, or
/// of the control group's limit if that is lower (a container, a `systemd`
/// slice); 2 GiB where neither can be read.
///
/// ```
/// let budget = neardup_dedup::default_memory();
/// assert!(budget >= 64 << 20);
/// ```
pub fn default_memory() -> u64 {
    let machine = machine_memory();
    let limit = [cgroup_limit(), machine].into_iter().flatten().min();
    limit.map_or(2 << 30, |bytes| bytes / 2).max(64 << 20)
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The memory limit of this process's control group (v2 `memory.max`, or
/// v1 `memory.limit_in_bytes`), if it or one of its ancestors has one: the
/// lowest along the path, since each bounds the groups below it.
fn cgroup_limit() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let read = |file: String| -> Option<u64> {
        // "max" (no limit) does not parse; v1's no-limit is a huge number
        // that the machine's memory undercuts.
        std::fs::read_to_string(file).ok()?.trim().parse().ok()
    };
    own.lines()
        .filter_map(|line| {
            // "0::/path" (v2) or "N:memory:/path" (v1).
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            let (root, file) = match controllers {
                "" => ("/sys/fs/cgroup", "memory.max"),
                c if c.split(',').any(|c| c == "memory") => {
                    ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
                }
                _ => return None,
            };
            ancestors(path)
                .filter_map(|dir| read(format!("{root}{dir}/{file}")))
                .min()
        })
        .min()
}

/// A cgroup path and the paths above it: `/a/b`, `/a`, then the root
/// (`""`).
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    let path = path.trim_end_matches('/');
    std::iter::successors(Some(path), |p| p.rfind('/').map(|i| &p[..i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cgroup_path_goes_up_to_the_root() {
        let up: Vec<&str> = ancestors("/system.slice/app.service").collect();
        assert_eq!(up, ["/system.slice/app.service", "/system.slice", ""]);
        assert_eq!(ancestors("/").collect::<Vec<_>>(), [""]);
    }

    #[test]
    fn the_free_budget_is_what_the_held_state_and_arrays_leave() {
        let mb = 1u64 << 20;
        // Few documents: the arrays whole, the rest free.
        let free = free_memory(1024 * mb, 1_000_000, Width::W64);
        assert_eq!(free, 1024 * mb - RUN_OVERHEAD - 24_000_000 - 48_000_000);
        // Many: the arrays at an eighth of the budget at most each.
        let free = free_memory(266 * mb, 3_390_000, Width::W64);
        let arrays = 266 * mb / 8 + 2 * 4 * 3_390_000 + 8 * 3_390_000;
        assert_eq!(free, 266 * mb - RUN_OVERHEAD - 24 * 3_390_000 - arrays);
        // Too many: the least a sort takes.
        assert_eq!(free_memory(64 * mb, 10_000_000, Width::W128), LEAST_BUDGET);
        // No overflow, whatever the numbers.
        assert_eq!(free_memory(u64::MAX, usize::MAX, Width::W128), LEAST_BUDGET);
    }

    #[test]
    fn the_default_is_at_most_half_the_machine() {
        if let Some(machine) = machine_memory() {
            assert!(default_memory() <= (machine / 2).max(64 << 20));
        }
    }
}
