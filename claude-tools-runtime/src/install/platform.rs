//! Which of the CLI's native packages fits this machine: the operating system, the processor
//! and, on Linux, the C library, as the CLI's own npm postinstall (`install.cjs`) chooses them.

use std::fmt;
use std::str::FromStr;

/// A platform the Claude Code CLI publishes a native package for
/// (`@anthropic-ai/claude-code-<platform>` on the npm registry).
///
/// ```
/// use claude_tools::install::Platform;
///
/// let platform: Platform = "linux-arm64-musl".parse().unwrap();
/// assert_eq!(platform, Platform::LinuxArm64Musl);
/// assert_eq!(platform.package(), "@anthropic-ai/claude-code-linux-arm64-musl");
/// assert_eq!(platform.executable(), "claude");
/// assert_eq!(Platform::WindowsX64.executable(), "claude.exe");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Platform {
    /// Linux on x86-64 with glibc (`linux-x64`).
    LinuxX64,
    /// Linux on 64-bit ARM with glibc (`linux-arm64`).
    LinuxArm64,
    /// Linux on x86-64 with musl, e.g. Alpine (`linux-x64-musl`).
    LinuxX64Musl,
    /// Linux on 64-bit ARM with musl (`linux-arm64-musl`).
    LinuxArm64Musl,
    /// macOS on Intel (`darwin-x64`).
    DarwinX64,
    /// macOS on Apple silicon (`darwin-arm64`).
    DarwinArm64,
    /// Windows on x86-64 (`win32-x64`).
    WindowsX64,
    /// Windows on 64-bit ARM (`win32-arm64`).
    WindowsArm64,
}

/// The C library of a Linux system, which decides between the `linux-*` and `linux-*-musl`
/// packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Libc {
    /// The GNU C library (Debian, Ubuntu, Fedora…).
    Glibc,
    /// musl (Alpine…).
    Musl,
}

/// This machine has no native Claude Code CLI package: the error of [`Platform::current`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the Claude Code CLI publishes no native package for {os} on {arch} (there are packages for {names})",
    names = platform_names()
)]
pub struct UnsupportedPlatform {
    /// The operating system, as Rust names it (`std::env::consts::OS`: `linux`, `freebsd`…).
    pub os: String,
    /// The processor, as Rust names it (`std::env::consts::ARCH`: `x86_64`, `riscv64`…).
    pub arch: String,
}

impl Platform {
    /// Every platform there is a package for.
    pub const ALL: [Platform; 8] = [
        Platform::LinuxX64,
        Platform::LinuxArm64,
        Platform::LinuxX64Musl,
        Platform::LinuxArm64Musl,
        Platform::DarwinX64,
        Platform::DarwinArm64,
        Platform::WindowsX64,
        Platform::WindowsArm64,
    ];

    /// This machine's platform.
    ///
    /// On Linux the C library is read from the system's dynamic loader (glibc's, else musl's),
    /// not from how this program was built: a static musl build of it still gets the glibc
    /// package on a glibc system. An Intel build running under Rosetta on Apple silicon gets
    /// `darwin-arm64`, as with npm (the Intel CLI needs AVX, which Rosetta lacks).
    pub fn current() -> Result<Platform, UnsupportedPlatform> {
        let os = std::env::consts::OS;
        let mut arch = std::env::consts::ARCH;
        if os == "macos" && arch == "x86_64" && under_rosetta() {
            arch = "aarch64";
        }
        let libc = if os == "linux" {
            system_libc(arch)
        } else {
            Libc::Glibc
        };
        Platform::detect(os, arch, libc)
    }

    /// The platform for an operating system and processor as Rust names them
    /// (`std::env::consts::{OS, ARCH}`) and, on Linux, the C library.
    ///
    /// ```
    /// use claude_tools::install::{Libc, Platform};
    ///
    /// assert_eq!(Platform::detect("linux", "x86_64", Libc::Musl), Ok(Platform::LinuxX64Musl));
    /// assert_eq!(Platform::detect("macos", "aarch64", Libc::Glibc), Ok(Platform::DarwinArm64));
    /// assert!(Platform::detect("freebsd", "x86_64", Libc::Glibc).is_err());
    /// ```
    pub fn detect(os: &str, arch: &str, libc: Libc) -> Result<Platform, UnsupportedPlatform> {
        let platform = match (os, arch, libc) {
            ("linux", "x86_64", Libc::Glibc) => Platform::LinuxX64,
            ("linux", "aarch64", Libc::Glibc) => Platform::LinuxArm64,
            ("linux", "x86_64", Libc::Musl) => Platform::LinuxX64Musl,
            ("linux", "aarch64", Libc::Musl) => Platform::LinuxArm64Musl,
            ("macos", "x86_64", _) => Platform::DarwinX64,
            ("macos", "aarch64", _) => Platform::DarwinArm64,
            ("windows", "x86_64", _) => Platform::WindowsX64,
            ("windows", "aarch64", _) => Platform::WindowsArm64,
            _ => {
                return Err(UnsupportedPlatform {
                    os: os.to_string(),
                    arch: arch.to_string(),
                });
            }
        };
        Ok(platform)
    }

    /// The platform's name in the package's name: `linux-x64`, `darwin-arm64`, `win32-x64`…
    pub fn name(self) -> &'static str {
        match self {
            Platform::LinuxX64 => "linux-x64",
            Platform::LinuxArm64 => "linux-arm64",
            Platform::LinuxX64Musl => "linux-x64-musl",
            Platform::LinuxArm64Musl => "linux-arm64-musl",
            Platform::DarwinX64 => "darwin-x64",
            Platform::DarwinArm64 => "darwin-arm64",
            Platform::WindowsX64 => "win32-x64",
            Platform::WindowsArm64 => "win32-arm64",
        }
    }

    /// The npm package holding the native CLI: `@anthropic-ai/claude-code-<name>`.
    pub fn package(self) -> String {
        format!("@anthropic-ai/claude-code-{}", self.name())
    }

    /// The executable's file name in the package (and in the install): `claude`, or
    /// `claude.exe` on Windows.
    pub fn executable(self) -> &'static str {
        match self {
            Platform::WindowsX64 | Platform::WindowsArm64 => "claude.exe",
            _ => "claude",
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name of a platform that has no package; the error of parsing a [`Platform`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a platform of the Claude Code CLI (one of {names})", names = platform_names())]
pub struct UnknownPlatform(pub String);

impl FromStr for Platform {
    type Err = UnknownPlatform;

    /// A platform by its [name](Platform::name).
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Platform::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| UnknownPlatform(name.to_string()))
    }
}

fn platform_names() -> String {
    Platform::ALL.map(Platform::name).join(", ")
}

/// The C library of this Linux system: glibc when its dynamic loader is there, else musl when
/// musl's is, else the one this program was built for. (glibc first: a glibc system may have
/// musl's loader installed beside its own, as Debian's `musl` package does.)
fn system_libc(arch: &str) -> Libc {
    let (glibc, musl) = match arch {
        "x86_64" => (
            &[
                "/lib64/ld-linux-x86-64.so.2",
                "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
            ][..],
            "/lib/ld-musl-x86_64.so.1",
        ),
        "aarch64" => (
            &[
                "/lib/ld-linux-aarch64.so.1",
                "/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",
            ][..],
            "/lib/ld-musl-aarch64.so.1",
        ),
        _ => (&[][..], ""),
    };
    let exists = |path: &str| !path.is_empty() && std::path::Path::new(path).exists();
    if glibc.iter().any(|path| exists(path)) {
        Libc::Glibc
    } else if exists(musl) || cfg!(target_env = "musl") {
        Libc::Musl
    } else {
        Libc::Glibc
    }
}

/// Whether this (Intel) process runs translated by Rosetta 2, as `sysctl.proc_translated`
/// says; `false` when that cannot be read.
fn under_rosetta() -> bool {
    std::process::Command::new("sysctl")
        .args(["-n", "sysctl.proc_translated"])
        .stderr(std::process::Stdio::null())
        .output()
        .is_ok_and(|out| out.stdout.trim_ascii() == b"1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_supported_os_and_arch_has_its_package() {
        let cases = [
            ("linux", "x86_64", Libc::Glibc, "linux-x64"),
            ("linux", "aarch64", Libc::Glibc, "linux-arm64"),
            ("linux", "x86_64", Libc::Musl, "linux-x64-musl"),
            ("linux", "aarch64", Libc::Musl, "linux-arm64-musl"),
            ("macos", "x86_64", Libc::Glibc, "darwin-x64"),
            ("macos", "aarch64", Libc::Musl, "darwin-arm64"),
            ("windows", "x86_64", Libc::Glibc, "win32-x64"),
            ("windows", "aarch64", Libc::Glibc, "win32-arm64"),
        ];
        for (os, arch, libc, name) in cases {
            let platform = Platform::detect(os, arch, libc).unwrap();
            assert_eq!(platform.name(), name);
            assert_eq!(name.parse::<Platform>(), Ok(platform));
            assert_eq!(
                platform.package(),
                format!("@anthropic-ai/claude-code-{name}")
            );
        }
    }

    #[test]
    fn an_unsupported_platform_is_a_typed_error_naming_it() {
        for (os, arch) in [
            ("freebsd", "x86_64"),
            ("linux", "riscv64"),
            ("linux", "x86"),
            ("linux", "arm"),
            ("macos", "powerpc"),
            ("windows", "x86"),
            ("android", "aarch64"),
        ] {
            let err = Platform::detect(os, arch, Libc::Glibc).unwrap_err();
            assert_eq!(
                err,
                UnsupportedPlatform {
                    os: os.into(),
                    arch: arch.into()
                }
            );
            let message = err.to_string();
            assert!(message.contains(os) && message.contains(arch), "{message}");
            assert!(message.contains("linux-x64, linux-arm64"), "{message}");
        }
        assert_eq!(
            "linux-riscv64".parse::<Platform>(),
            Err(UnknownPlatform("linux-riscv64".into()))
        );
    }

    #[test]
    fn this_machine_has_a_platform_matching_its_build() {
        // The test machines (Linux, macOS, Windows on x86-64 or ARM) all have a package.
        let platform = Platform::current().unwrap();
        let expected_os = match std::env::consts::OS {
            "linux" => "linux-",
            "macos" => "darwin-",
            "windows" => "win32-",
            other => panic!("no package for {other}"),
        };
        assert!(platform.name().starts_with(expected_os), "{platform}");
    }
}
