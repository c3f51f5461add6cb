//! Small helpers shared by the model server, the fake CLI and tests: random ids and throwaway
//! directories. No external crates: the kit must build with the workspace's dependencies only.

use std::cell::Cell;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static COUNTER: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static RNG: Cell<u64> = Cell::new(seed());
}

fn seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut s =
        nanos ^ (u64::from(std::process::id()) << 32) ^ count.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    if s == 0 {
        s = 0x2545_F491_4F6C_DD1D;
    }
    s
}

/// A non-cryptographic random `u64` (xorshift64*, seeded from the clock, the pid and a counter).
pub fn random_u64() -> u64 {
    RNG.with(|cell| {
        let mut x = cell.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        cell.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    })
}

/// A random UUID v4 in its canonical lowercase form, as the CLI uses for its `request_id`s.
pub fn uuid_v4() -> String {
    let hi = random_u64();
    let lo = random_u64();
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&hi.to_be_bytes());
    b[8..].copy_from_slice(&lo.to_be_bytes());
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|byte| format!("{byte:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// A throwaway directory, removed (recursively, errors ignored) when dropped.
///
/// Paths are kept short (`$TMPDIR/ctk-<prefix>-<hex>`) because the CLI creates Unix sockets
/// under `CLAUDE_CODE_TMPDIR`, and socket paths are limited to about 100 bytes.
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates a fresh, empty directory under the system temp dir.
    pub fn new(prefix: &str) -> io::Result<TempDir> {
        let base = std::env::temp_dir();
        for _ in 0..16 {
            let path = base.join(format!(
                "ctk-{prefix}-{:012x}",
                random_u64() & 0xffff_ffff_ffff
            ));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "could not find a free temp dir name",
        ))
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the directory on disk (for post-mortem inspection) and returns its path.
    pub fn keep(self) -> PathBuf {
        let path = self.path.clone();
        std::mem::forget(self);
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_has_v4_shape() {
        let u = uuid_v4();
        assert_eq!(u.len(), 36);
        let parts: Vec<&str> = u.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
        assert!(matches!(&parts[3][..1], "8" | "9" | "a" | "b"));
        assert_ne!(uuid_v4(), u);
    }

    #[test]
    fn temp_dir_is_created_and_removed() {
        let dir = TempDir::new("unit").unwrap();
        let path = dir.path().to_path_buf();
        assert!(path.is_dir());
        drop(dir);
        assert!(!path.exists());
    }
}
