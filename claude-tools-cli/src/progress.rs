//! What `install-cli` shows while it installs: a progress bar on a terminal (bytes, rate, time
//! left), one line per stage otherwise (a log, a CI job), where a bar's redraws would be noise.

use std::io::IsTerminal;
use std::time::Duration;

use claude_tools_runtime::install::{InstallProgress, InstallStage, Installer};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// `installer`, reporting to this process's stderr: a bar on a terminal, else lines. Returns
/// the bar, to be cleared before the outcome is printed.
pub(crate) fn attach(installer: Installer) -> (Installer, Option<ProgressBar>) {
    if std::io::stderr().is_terminal() {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        (installer.progress(Bar(bar.clone())), Some(bar))
    } else {
        (installer.progress(Lines), None)
    }
}

/// One line per stage, and nothing per chunk.
pub(crate) struct Lines;

impl InstallProgress for Lines {
    fn stage(&self, stage: InstallStage<'_>) {
        eprintln!("{}", describe(&stage));
    }
}

/// The line that announces a stage.
fn describe(stage: &InstallStage<'_>) -> String {
    match stage {
        InstallStage::Resolving {
            package,
            version,
            registry,
        } => format!("resolving {package}@{version} at {registry}"),
        InstallStage::Downloading {
            url,
            total_bytes: Some(total),
        } => format!("downloading {url} ({:.1} MB)", *total as f64 / 1_000_000.0),
        InstallStage::Downloading { url, .. } => format!("downloading {url}"),
        InstallStage::Placing { dir } => {
            format!("moving the install into place at {}", dir.display())
        }
        _ => format!("{stage:?}"),
    }
}

/// The bar's templates (a template indicatif refuses would leave the bar blank: the tests
/// parse each).
const RESOLVING: &str = "{spinner} {msg}";
const DOWNLOADING: &str =
    "{spinner} [{bar:30}] {bytes}/{total_bytes} at {bytes_per_sec}, {eta} left";
const DOWNLOADING_UNKNOWN_SIZE: &str = "{spinner} {bytes} at {bytes_per_sec}";

/// A bar on the terminal, redrawn at most 20 times a second (indicatif's own limit).
struct Bar(ProgressBar);

impl InstallProgress for Bar {
    fn stage(&self, stage: InstallStage<'_>) {
        match stage {
            InstallStage::Resolving { .. } => {
                if let Ok(style) = ProgressStyle::with_template(RESOLVING) {
                    self.0.set_style(style);
                }
                self.0.set_message(describe(&stage));
                self.0.enable_steady_tick(Duration::from_millis(100));
            }
            InstallStage::Downloading { total_bytes, .. } => {
                self.0.println(describe(&stage));
                let template = match total_bytes {
                    Some(_) => DOWNLOADING,
                    None => DOWNLOADING_UNKNOWN_SIZE,
                };
                if let Ok(style) = ProgressStyle::with_template(template) {
                    self.0.set_style(style.progress_chars("=> "));
                }
                if let Some(total) = total_bytes {
                    self.0.set_length(total);
                }
                self.0.reset_eta();
            }
            _ => {
                self.0.finish_and_clear();
                eprintln!("{}", describe(&stage));
            }
        }
    }

    fn downloaded(&self, bytes: u64) {
        self.0.set_position(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_is_one_indicatif_accepts() {
        for template in [RESOLVING, DOWNLOADING, DOWNLOADING_UNKNOWN_SIZE] {
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }
}
