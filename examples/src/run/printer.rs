//! What an example prints, kept for [`Run::printed`](super::Run::printed).

use std::sync::{Arc, Mutex};

/// Prints unless quiet, and keeps a copy of everything (for
/// [`Run::printed`](super::Run::printed)).
#[derive(Clone, Default)]
pub(super) struct Printer {
    pub(super) quiet: bool,
    pub(super) copy: Arc<Mutex<String>>,
}

impl Printer {
    pub(super) fn line(&self, text: &str) {
        if !self.quiet {
            // Not `println!`: a closed pipe (`| head`) must not panic the example.
            use std::io::Write;
            let _ = writeln!(std::io::stdout().lock(), "{text}");
        }
        let mut copy = self.copy.lock().unwrap_or_else(|p| p.into_inner());
        copy.push_str(text);
        copy.push('\n');
    }

    pub(super) fn take(&self) -> String {
        std::mem::take(&mut *self.copy.lock().unwrap_or_else(|p| p.into_inner()))
    }
}
