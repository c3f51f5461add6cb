//! What the tests against the `scripted-cli` binary share: a fake CLI driven by a script file,
//! writing a transcript of what it read.

use std::path::PathBuf;

use claude_tools::Options;
use claude_tools_testkit::TempDir;
use claude_tools_testkit::fake_cli::{FakeScript, Transcript};

/// A script for the `scripted-cli` fake and the transcript it writes, in a temporary directory
/// that lives as long as this.
pub struct Fake {
    _dir: TempDir,
    script: PathBuf,
    /// Where the fake writes its transcript.
    pub transcript: PathBuf,
}

impl Fake {
    /// Writes `script` where the fake will read it.
    pub fn new(script: FakeScript) -> Self {
        let dir = TempDir::new("scripted-cli").unwrap();
        let script_path = dir.path().join("script.json");
        script.write_to(&script_path).unwrap();
        let transcript = dir.path().join("transcript.jsonl");
        Fake {
            script: script_path,
            transcript,
            _dir: dir,
        }
    }

    /// Options that run the fake with this script. Its `expect` steps wait 20 s for a line
    /// before they fail: far above what any step needs.
    pub fn options(&self) -> Options {
        Options::new()
            .cli_path(env!("CARGO_BIN_EXE_scripted-cli"))
            .env("FAKE_CLAUDE_SCRIPT", self.script.display().to_string())
            .env(
                "FAKE_CLAUDE_TRANSCRIPT",
                self.transcript.display().to_string(),
            )
            .env("FAKE_CLAUDE_EXPECT_TIMEOUT_MS", "20000")
    }

    /// What the fake read and did, once it has ended.
    #[allow(dead_code)]
    pub fn transcript(&self) -> Transcript {
        Transcript::read(&self.transcript).unwrap()
    }
}
