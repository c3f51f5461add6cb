//! CPU time and memory of a process from `/proc`, CPU pinning and a monotonic clock.

use std::fs;

/// CPU time (ns) a process has spent on a CPU: the sum over its live threads of the first field of
/// `/proc/<pid>/task/<tid>/schedstat`. `None` when the process is gone or the file is missing.
pub fn cpu_ns(pid: u32) -> Option<u64> {
    let dir = fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = 0u64;
    for entry in dir.flatten() {
        let mut path = entry.path();
        path.push("schedstat");
        if let Ok(text) = fs::read_to_string(&path) {
            total += parse_schedstat(&text).unwrap_or(0);
        }
    }
    Some(total)
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
