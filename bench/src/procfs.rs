//! CPU time and memory of a process from `/proc`, CPU pinning and a monotonic clock.

use std::collections::BTreeMap;
use std::fs;
use std::sync::Mutex;

/// CPU time (ns) a process has spent on a CPU: the sum over its threads of the first field of
/// `/proc/<pid>/task/<tid>/schedstat`, each thread counted at the last value read of it. A
/// thread that has exited since an earlier reading keeps its share (the host's session threads
/// come and go with its sessions), so two readings of one process never go backwards. `None`
/// when the process is gone or the directory is missing.
pub fn cpu_ns(pid: u32) -> Option<u64> {
    static SEEN: Mutex<BTreeMap<(u32, u32), u64>> = Mutex::new(BTreeMap::new());
    let dir = fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut seen = SEEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for entry in dir.flatten() {
        let Some(tid) = entry
            .file_name()
            .to_str()
            .and_then(|tid| tid.parse::<u32>().ok())
        else {
            continue;
        };
        let mut path = entry.path();
        path.push("schedstat");
        if let Ok(text) = fs::read_to_string(&path)
            && let Some(ns) = parse_schedstat(&text)
        {
            let slot = seen.entry((pid, tid)).or_insert(0);
            *slot = (*slot).max(ns);
        }
    }
    Some(
        seen.range((pid, 0)..=(pid, u32::MAX))
            .map(|(_, ns)| ns)
            .sum(),
    )
}

/// First field of a `schedstat` line (ns on CPU).
pub fn parse_schedstat(text: &str) -> Option<u64> {
    text.split_ascii_whitespace().next()?.parse().ok()
}

/// `(VmRSS, VmHWM)` of a process in KiB.
pub fn rss_kib(pid: u32) -> Option<(u64, u64)> {
    let text = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_status_rss(&text)
}

/// `(VmRSS, VmHWM)` from the text of `/proc/<pid>/status`.
pub fn parse_status_rss(text: &str) -> Option<(u64, u64)> {
    let field = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// Pins the calling thread (and the threads it starts later) to one CPU.
pub fn pin_to_cpu(cpu: usize) -> std::io::Result<()> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET stays within it for cpu < CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(std::io::Error::other("cpu index out of range"));
        }
        libc::CPU_SET(cpu, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Pins the process to the CPU named by the environment variable `var`, if it is set.
pub fn pin_from_env(var: &str) -> Result<(), String> {
    match std::env::var(var) {
        Ok(value) if !value.is_empty() => {
            let cpu: usize = value
                .parse()
                .map_err(|_| format!("{var}={value} is not a CPU index"))?;
            pin_to_cpu(cpu).map_err(|e| format!("pinning to CPU {cpu}: {e}"))
        }
        _ => Ok(()),
    }
}

/// `CLOCK_MONOTONIC` in ns: comparable across processes on this machine.
pub fn mono_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_rss() {
        let text = "Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n";
        assert_eq!(parse_status_rss(text), Some((1024, 2048)));
        assert_eq!(parse_status_rss("Name: x\n"), None);
    }

    #[test]
    fn schedstat() {
        assert_eq!(parse_schedstat("970994 0 2\n"), Some(970994));
        assert_eq!(parse_schedstat(""), None);
    }

    #[test]
    fn own_process_is_readable() {
        assert!(cpu_ns(std::process::id()).is_some());
        let (rss, hwm) = rss_kib(std::process::id()).expect("own status");
        assert!(rss > 0 && hwm >= rss);
    }
}
