//! How much memory a run may take: [`default_memory`], a share of what the
//! machine (or the control group the process runs in) has.

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
    fn the_default_is_at_most_half_the_machine() {
        if let Some(machine) = machine_memory() {
            assert!(default_memory() <= (machine / 2).max(64 << 20));
        }
    }
}
