//! Where and when a result was measured: the date, the machine, the repository's revision.

use std::process::Command;

use crate::Paths;

/// The current UTC time, `YYYY-MM-DD HH:MM UTC`.
pub fn now_utc() -> String {
    sh("date", &["-u", "+%Y-%m-%d %H:%M UTC"]).unwrap_or_else(|| "unknown date".into())
}

fn sh(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// `git rev-parse --short HEAD`, marked when the library crates have uncommitted changes.
pub fn revision(paths: &Paths) -> String {
    let root = paths.root.display().to_string();
    let head = sh("git", &["-C", &root, "rev-parse", "--short", "HEAD"])
        .unwrap_or_else(|| "unknown".into());
    let dirty = sh(
        "git",
        &[
            "-C",
            &root,
            "status",
            "--porcelain",
            "--",
            "claude-tools",
            "claude-tools-macros",
            "claude-tools-runtime",
        ],
    )
    .is_some_and(|s| !s.is_empty());
    if dirty {
        format!("{head} + uncommitted changes to the library crates")
    } else {
        head
    }
}

/// One line describing the machine and the toolchains.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|r| r.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("MemTotal:")
                    .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
        })
        .map(|kib| format!("{:.0} GiB", kib as f64 / 1024.0 / 1024.0))
        .unwrap_or_default();
    let kernel = sh("uname", &["-r"]).unwrap_or_default();
    let rustc = sh("rustc", &["-V"]).unwrap_or_default();
    let node = sh("node", &["--version"]).unwrap_or_default();
    let python = sh("python3", &["--version"]).unwrap_or_default();
    format!("{cpu}, {cores} cores, {mem}, Linux {kernel}; {rustc}; node {node}; {python}")
}
