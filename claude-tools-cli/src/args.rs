//! The command line, parsed by hand: one subcommand and a few flags do not need a parser crate.

use std::ffi::OsString;
use std::path::PathBuf;

use claude_tools_runtime::install::Platform;

/// The usage text.
pub const USAGE: &str = "\
claude-tools: installs the Claude Code CLI that claude-tools drives, without npm or Node

Usage:
  claude-tools install-cli [--version V] [--registry URL] [--dir D] [--platform P] [--check]
      Install the Claude Code CLI (the pinned version, this platform's package) from the npm
      registry, checked against its integrity hash, into the per-user cache, and print the
      executable's path. Does nothing when it is there already.
        --version V     another version than the pinned one
        --registry URL  another registry (default: CLAUDE_TOOLS_NPM_REGISTRY, else
                        https://registry.npmjs.org)
        --dir D         install under D instead of the per-user cache (default:
                        CLAUDE_TOOLS_CLI_DIR, else ~/.cache/claude-tools/cli)
        --platform P    another platform's package (linux-x64, linux-arm64, linux-x64-musl,
                        linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64, win32-arm64)
        --check         do not install: print the path and exit 0 if installed, else exit 1
  claude-tools where
      Print the Claude Code CLI a claude-tools program would run (exit 1 if none is found).
  claude-tools --help | --version
";

/// What to do.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    /// `install-cli`.
    Install(InstallArgs),
    /// `where`.
    Where,
    /// `--help`.
    Help,
    /// `--version`.
    Version,
}

/// The flags of `install-cli`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct InstallArgs {
    pub version: Option<String>,
    pub registry: Option<String>,
    pub dir: Option<PathBuf>,
    pub platform: Option<Platform>,
    pub check: bool,
}

/// Parses the arguments after the program's name; `Err` is a message for the user.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, String> {
    let mut args = args.into_iter();
    let Some(command) = args.next() else {
        return Ok(Command::Help);
    };
    let command = utf8(command)?;
    match command.as_str() {
        "-h" | "--help" | "help" => Ok(Command::Help),
        "-V" | "--version" => Ok(Command::Version),
        "where" => match args.next() {
            None => Ok(Command::Where),
            Some(extra) => Err(format!(
                "`where` takes no argument, got `{}`",
                extra.to_string_lossy()
            )),
        },
        "install-cli" => install_args(args).map(Command::Install),
        other => Err(format!("unknown command `{other}`")),
    }
}

fn install_args(mut args: impl Iterator<Item = OsString>) -> Result<InstallArgs, String> {
    let mut parsed = InstallArgs::default();
    while let Some(arg) = args.next() {
        let arg = utf8(arg)?;
        // `--flag=value` and `--flag value` alike.
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                (flag.to_string(), Some(value.to_string()))
            }
            _ => (arg, None),
        };
        let mut value = |name: &str| -> Result<OsString, String> {
            match inline.clone() {
                Some(value) => Ok(value.into()),
                None => args.next().ok_or_else(|| format!("{name} needs a value")),
            }
        };
        match flag.as_str() {
            "--version" => parsed.version = Some(utf8(value("--version")?)?),
            "--registry" => parsed.registry = Some(utf8(value("--registry")?)?),
            "--dir" => parsed.dir = Some(PathBuf::from(value("--dir")?)),
            "--platform" => {
                let name = utf8(value("--platform")?)?;
                parsed.platform = Some(name.parse().map_err(|e| format!("{e}"))?);
            }
            "--check" if inline.is_none() => parsed.check = true,
            other => return Err(format!("unknown option `{other}` for install-cli")),
        }
    }
    Ok(parsed)
}

fn utf8(arg: OsString) -> Result<String, String> {
    arg.into_string()
        .map_err(|arg| format!("`{}` is not UTF-8", arg.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn install_flags_in_both_spellings() {
        let parsed = parse_strs(&[
            "install-cli",
            "--version",
            "2.1.330",
            "--registry=http://127.0.0.1:9/",
            "--dir",
            "/tmp/cli",
            "--platform",
            "linux-arm64-musl",
            "--check",
        ]);
        assert_eq!(
            parsed,
            Ok(Command::Install(InstallArgs {
                version: Some("2.1.330".into()),
                registry: Some("http://127.0.0.1:9/".into()),
                dir: Some("/tmp/cli".into()),
                platform: Some(Platform::LinuxArm64Musl),
                check: true,
            }))
        );
        assert_eq!(
            parse_strs(&["install-cli"]),
            Ok(Command::Install(InstallArgs::default()))
        );
        assert_eq!(parse_strs(&[]), Ok(Command::Help));
        assert_eq!(parse_strs(&["where"]), Ok(Command::Where));
        assert_eq!(parse_strs(&["--version"]), Ok(Command::Version));
    }

    #[test]
    fn mistakes_are_messages() {
        for (args, says) in [
            (&["install-cli", "--version"][..], "--version needs a value"),
            (&["install-cli", "--nope"][..], "unknown option `--nope`"),
            (
                &["install-cli", "--platform", "beos-x64"][..],
                "`beos-x64` is not a platform",
            ),
            (
                &["install-cli", "--check=yes"][..],
                "unknown option `--check`",
            ),
            (&["uninstall"][..], "unknown command `uninstall`"),
            (&["where", "now"][..], "takes no argument"),
        ] {
            let err = parse_strs(args).unwrap_err();
            assert!(err.contains(says), "{args:?}: {err}");
        }
    }
}
