//! Skills a tool server serves: the MCP skills extension (`io.modelcontextprotocol/skills`,
//! SEP-2640), which the Claude Code CLI uses with MCP 2026-07-28 servers and offers to the
//! model beside its own skills.
//!
//! A skill is a directory with a `SKILL.md` (YAML front matter with `name` and
//! `description`, then instructions for the model) and any files it refers to (scripts,
//! references, templates). A server gets one of two ways, both giving a [`Skill`] checked the
//! same way:
//!
//! - **compiled in**: `include_skill!("skills/deploy")` (the `claude_tools` facade) embeds the
//!   directory's files in the binary at compile time, so a single static binary ships its
//!   skills; the path is relative to the crate's `Cargo.toml`, and a symbolic link that leads
//!   out of the directory is a compile error. Cargo rebuilds when an embedded file changes (not
//!   when a file is added: touch `build.rs` or any source file);
//! - **read from disk at start**: [`Skill::from_dir`] (blocking file I/O: call it before the
//!   server runs, or inside `spawn_blocking`), for skills an operator edits without a rebuild.
//!
//! Either is added with `ToolServer::with_skill`, or while the server runs with
//! `ToolServerHandle::add_skill` / `remove_skill` (the CLI is told with
//! `notifications/resources/list_changed` on its listen stream and lists the skills again).
//!
//! What is checked, so that the CLI never drops a listed skill silently (its rules, read from
//! its 2.1.332 bundle, are the strictest of the SDKs'):
//!
//! | rule | error |
//! |---|---|
//! | the directory has a `SKILL.md` | [`SkillError::MissingSkillMd`] |
//! | `SKILL.md` is UTF-8 with front matter in the subset the `front_matter` module reads | [`SkillError::FrontMatter`] |
//! | `name`: 1–64 of `a-z`, `0-9`, single inner hyphens | [`SkillError::InvalidName`] |
//! | `name` equals the directory's name | [`SkillError::NameMismatch`] |
//! | `description`: 1–1024 characters | [`SkillError::FrontMatter`] |
//! | `SKILL.md` at most [`MAX_SKILL_MD_BYTES`]; the skill at most [`MAX_SKILL_BYTES`] in all, so any file too | [`SkillError::TooLarge`] |
//! | at most [`MAX_SKILL_FILES`] files | [`SkillError::TooManyFiles`] |
//! | a symbolic link leads to a file inside the directory | [`SkillError::SymlinkOutside`] (or [`SkillError::BadPath`] for a link to a directory) |
//! | file names are UTF-8 | [`SkillError::BadPath`] |
//!
//! Files and directories whose name starts with `.` (`.git`, `.DS_Store`) are not served.
//!
//! On the wire (MCP 2026-07-28 only: the CLI sends `skills/*` to no other revision), a skill
//! named `deploy` is `skill://deploy/SKILL.md`, and its files `skill://deploy/<path>` (each
//! path segment percent-encoded but for `A-Z a-z 0-9 - . _ ~`). The router's `skills` module
//! has the methods.

mod error;
pub(crate) mod front_matter;
mod load;
mod server;

use std::borrow::Cow;
use std::sync::Arc;

pub use error::SkillError;
pub use front_matter::{MAX_DESCRIPTION, MAX_FRONT_MATTER};

/// The extension's id, the key of `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The URI scheme of a skill's files.
pub const SKILL_URI_SCHEME: &str = "skill://";

/// The MIME type MCP gives a directory (`resources/directory/read`).
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The most files a skill may have (the CLI's cap).
pub const MAX_SKILL_FILES: usize = 512;

/// The most bytes a skill's files may have together (the CLI's cap, 16 MiB).
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;

/// The most bytes a `SKILL.md` may have (the CLI refuses a `SKILL.md` "over 1 MB").
pub const MAX_SKILL_MD_BYTES: u64 = 1_000_000;

/// A skill's files before they are checked: each `/`-separated path with its bytes.
type RawFiles = Vec<(String, Cow<'static, [u8]>)>;

/// One skill, checked and ready to serve: its front matter and its files, with their digests.
/// Cheap to clone.
#[derive(Clone)]
pub struct Skill {
    inner: Arc<SkillInner>,
}

struct SkillInner {
    front_matter: front_matter::FrontMatter,
    /// `skill://{name}/SKILL.md`.
    uri: String,
    /// Sorted by path; `SKILL.md` among them.
    files: Vec<SkillFile>,
}

/// One file of a skill.
#[derive(Clone)]
pub struct SkillFile {
    path: String,
    uri: String,
    bytes: Cow<'static, [u8]>,
    digest: String,
    mime_type: &'static str,
}

impl SkillFile {
    /// Its path in the skill's directory, `/`-separated (`scripts/deploy.sh`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Its URI (`skill://deploy/scripts/deploy.sh`).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Its bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Its size in bytes.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }

    /// `sha256:` and the 64 lowercase hex digits of its SHA-256.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// Its MIME type, from its extension (`application/octet-stream` when unknown).
    pub fn mime_type(&self) -> &'static str {
        self.mime_type
    }
}

impl std::fmt::Debug for SkillFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkillFile")
            .field("uri", &self.uri)
            .field("size", &self.bytes.len())
            .field("mime_type", &self.mime_type)
            .finish()
    }
}

impl std::fmt::Debug for Skill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skill")
            .field("uri", &self.inner.uri)
            .field("files", &self.inner.files)
            .finish()
    }
}

/// A skill directory embedded in the binary by `include_skill!`: its path as written and its
/// files. Checked when it becomes a [`Skill`] (`ToolServer::with_skill` does it).
#[derive(Debug, Clone, Copy)]
pub struct EmbeddedSkill {
    dir: &'static str,
    files: &'static [(&'static str, &'static [u8])],
}

impl EmbeddedSkill {
    /// What `include_skill!` expands to: the directory as written, and each file's
    /// `/`-separated path in it with its bytes.
    #[doc(hidden)]
    pub const fn new(dir: &'static str, files: &'static [(&'static str, &'static [u8])]) -> Self {
        Self { dir, files }
    }
}

/// What can become a [`Skill`]: a [`Skill`], an [`EmbeddedSkill`] (`include_skill!`), or a
/// path to a skill directory on disk (read at once, blocking).
pub trait SkillSource {
    /// The skill, checked.
    fn into_skill(self) -> Result<Skill, SkillError>;
}

impl SkillSource for Skill {
    fn into_skill(self) -> Result<Skill, SkillError> {
        Ok(self)
    }
}

impl SkillSource for EmbeddedSkill {
    fn into_skill(self) -> Result<Skill, SkillError> {
        let files = self
            .files
            .iter()
            .map(|(path, bytes)| (path.to_string(), Cow::Borrowed(*bytes)))
            .collect();
        Skill::build(self.dir, files)
    }
}

impl SkillSource for &std::path::Path {
    fn into_skill(self) -> Result<Skill, SkillError> {
        Skill::from_dir(self)
    }
}

impl SkillSource for std::path::PathBuf {
    fn into_skill(self) -> Result<Skill, SkillError> {
        Skill::from_dir(&self)
    }
}

impl Skill {
    /// Reads the skill in directory `dir` (blocking file I/O; see the [module docs](self) for
    /// what is checked).
    ///
    /// ```
    /// # let root = std::env::temp_dir().join(format!("skill-doc-{}", std::process::id()));
    /// # let dir = root.join("greet");
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # std::fs::write(dir.join("SKILL.md"), "---\nname: greet\ndescription: Greet the user warmly.\n---\nSay hello.\n").unwrap();
    /// use claude_tools::skills::Skill;
    ///
    /// let skill = Skill::from_dir(&dir).unwrap();
    /// assert_eq!(skill.name(), "greet");
    /// assert_eq!(skill.uri(), "skill://greet/SKILL.md");
    /// # std::fs::remove_dir_all(&root).unwrap();
    /// ```
    pub fn from_dir(dir: impl AsRef<std::path::Path>) -> Result<Skill, SkillError> {
        let dir = dir.as_ref();
        let files = load::read_dir(dir)?;
        Skill::build(&dir.display().to_string(), files)
    }

    /// Checks and builds a skill from its files (`/`-separated paths in directory `dir`).
    fn build(dir: &str, mut files: RawFiles) -> Result<Skill, SkillError> {
        let dir_name = dir
            .trim_end_matches(['/', '\\'])
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(dir)
            .to_string();
        let Some(skill_md) = files.iter().find(|(path, _)| path == "SKILL.md") else {
            return Err(SkillError::MissingSkillMd(dir.to_string()));
        };
        if skill_md.1.len() as u64 > MAX_SKILL_MD_BYTES {
            return Err(SkillError::TooLarge {
                skill: dir.to_string(),
                what: "SKILL.md".into(),
                size: skill_md.1.len() as u64,
                cap: MAX_SKILL_MD_BYTES,
            });
        }
        let text = std::str::from_utf8(&skill_md.1).map_err(|error| SkillError::FrontMatter {
            dir: dir.to_string(),
            reason: format!("it is not UTF-8 ({error})"),
        })?;
        let front_matter = front_matter::parse(text).map_err(|reason| SkillError::FrontMatter {
            dir: dir.to_string(),
            reason,
        })?;
        if !is_valid_name(&front_matter.name) {
            return Err(SkillError::InvalidName {
                dir: dir.to_string(),
                name: front_matter.name.clone(),
            });
        }
        if front_matter.name != dir_name {
            return Err(SkillError::NameMismatch {
                name: front_matter.name.clone(),
                dir_name,
            });
        }
        if files.len() > MAX_SKILL_FILES {
            return Err(SkillError::TooManyFiles {
                skill: dir.to_string(),
                count: files.len(),
                cap: MAX_SKILL_FILES,
            });
        }
        let mut total = 0u64;
        for (path, bytes) in &files {
            total += bytes.len() as u64;
            if total > MAX_SKILL_BYTES {
                let single = bytes.len() as u64 > MAX_SKILL_BYTES;
                return Err(SkillError::TooLarge {
                    skill: dir.to_string(),
                    what: if single {
                        path.clone()
                    } else {
                        "the skill (all its files)".into()
                    },
                    size: if single { bytes.len() as u64 } else { total },
                    cap: MAX_SKILL_BYTES,
                });
            }
        }
        files.sort_by(|a, b| a.0.cmp(&b.0));
        let root = format!("{SKILL_URI_SCHEME}{}", front_matter.name);
        let files = files
            .into_iter()
            .map(|(path, bytes)| {
                let uri = format!("{root}/{}", encode_path(&path));
                SkillFile {
                    digest: digest(&bytes),
                    mime_type: mime_type(&path),
                    path,
                    uri,
                    bytes,
                }
            })
            .collect();
        Ok(Skill {
            inner: Arc::new(SkillInner {
                uri: format!("{root}/SKILL.md"),
                front_matter,
                files,
            }),
        })
    }

    /// The skill's name (its front matter's `name`).
    pub fn name(&self) -> &str {
        &self.inner.front_matter.name
    }

    /// Its description.
    pub fn description(&self) -> &str {
        &self.inner.front_matter.description
    }

    /// The URI of its `SKILL.md`, which names it on the wire (`skill://deploy/SKILL.md`).
    pub fn uri(&self) -> &str {
        &self.inner.uri
    }

    /// The URI of its directory (`skill://deploy`).
    pub fn root_uri(&self) -> &str {
        self.inner
            .uri
            .strip_suffix("/SKILL.md")
            .unwrap_or(&self.inner.uri)
    }

    /// Every key of its front matter, as the client will read it.
    pub fn front_matter(&self) -> &serde_json::Map<String, serde_json::Value> {
        &self.inner.front_matter.fields
    }

    /// Its files, sorted by path, `SKILL.md` among them.
    pub fn files(&self) -> &[SkillFile] {
        &self.inner.files
    }

    /// The file at `uri`, if it is one of this skill's.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        self.inner.files.iter().find(|file| file.uri == uri)
    }

    /// Whether two skills serve the same bytes under the same front matter.
    pub(crate) fn same_as(&self, other: &Skill) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
            || (self.inner.uri == other.inner.uri
                && self.inner.front_matter == other.inner.front_matter
                && self.inner.files.len() == other.inner.files.len()
                && self
                    .inner
                    .files
                    .iter()
                    .zip(&other.inner.files)
                    .all(|(a, b)| a.uri == b.uri && a.digest == b.digest))
    }
}

/// The CLI's rule: `^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$`.
pub(crate) fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// `path` with each segment percent-encoded but for RFC 3986's unreserved characters.
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `sha256:` and the hex of `bytes`' SHA-256.
fn digest(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write;
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in hash {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The MIME type of a file, from its extension.
fn mime_type(path: &str) -> &'static str {
    let extension = path
        .rsplit('/')
        .next()
        .and_then(|name| name.rsplit_once('.'))
        .map(|(_, extension)| extension.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt") => "text/plain",
        Some("json") => "application/json",
        Some("yaml" | "yml") => "application/yaml",
        Some("toml") => "application/toml",
        Some("csv") => "text/csv",
        Some("html" | "htm") => "text/html",
        Some("xml") => "application/xml",
        Some("sh" | "bash") => "text/x-shellscript",
        Some("py") => "text/x-python",
        Some("js" | "mjs") => "text/javascript",
        Some("ts") => "text/x-typescript",
        Some("rs") => "text/x-rust",
        Some("sql") => "application/sql",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("pdf") => "application/pdf",
        _ => "application/octet-stream",
    }
}

/// Whether a file of `mime_type` is served as `text` (else as a base64 `blob`).
pub(crate) fn is_textual(mime_type: &str) -> bool {
    mime_type.starts_with("text/")
        || matches!(
            mime_type,
            "application/json"
                | "application/yaml"
                | "application/toml"
                | "application/xml"
                | "application/sql"
                | "image/svg+xml"
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(files: &[(&str, &[u8])]) -> Result<Skill, SkillError> {
        Skill::build(
            "skills/deploy",
            files
                .iter()
                .map(|(path, bytes)| (path.to_string(), Cow::Owned(bytes.to_vec())))
                .collect(),
        )
    }

    const SKILL_MD: &[u8] = b"---\nname: deploy\ndescription: Deploy the app.\n---\nRun it.\n";

    #[test]
    fn builds_uris_digests_and_mime_types() {
        let skill = build(&[("SKILL.md", SKILL_MD), ("scripts/run me.sh", b"echo hi\n")]).unwrap();
        assert_eq!(skill.uri(), "skill://deploy/SKILL.md");
        assert_eq!(skill.root_uri(), "skill://deploy");
        let script = &skill.files()[1];
        assert_eq!(script.uri(), "skill://deploy/scripts/run%20me.sh");
        assert_eq!(script.mime_type(), "text/x-shellscript");
        assert_eq!(script.digest().len(), 71);
        assert_eq!(
            digest(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn names_follow_the_cli_rule() {
        for (name, valid) in [
            ("a", true),
            ("deploy-app-2", true),
            (&"a".repeat(64) as &str, true),
            (&"a".repeat(65) as &str, false),
            ("", false),
            ("Deploy", false),
            ("two--words", false),
            ("-x", false),
            ("x-", false),
            ("two_words", false),
            ("résumé", false),
        ] {
            assert_eq!(is_valid_name(name), valid, "{name:?}");
        }
    }

    #[test]
    fn refuses_each_bad_skill_with_its_error() {
        assert!(matches!(
            build(&[("README.md", b"x")]),
            Err(SkillError::MissingSkillMd(_))
        ));
        assert!(matches!(
            build(&[("SKILL.md", b"no front matter")]),
            Err(SkillError::FrontMatter { .. })
        ));
        assert!(matches!(
            build(&[("SKILL.md", b"\xff\xfe")]),
            Err(SkillError::FrontMatter { .. })
        ));
        assert!(matches!(
            build(&[("SKILL.md", b"---\nname: Deploy\ndescription: d\n---\n")]),
            Err(SkillError::InvalidName { .. })
        ));
        assert!(matches!(
            build(&[("SKILL.md", b"---\nname: ship\ndescription: d\n---\n")]),
            Err(SkillError::NameMismatch { .. })
        ));
        let big = vec![b'x'; (MAX_SKILL_BYTES + 1) as usize];
        match build(&[("SKILL.md", SKILL_MD), ("data.bin", &big)]) {
            Err(SkillError::TooLarge { what, .. }) => assert_eq!(what, "data.bin"),
            other => panic!("{other:?}"),
        }
        let mut md = SKILL_MD.to_vec();
        md.resize((MAX_SKILL_MD_BYTES + 1) as usize, b'x');
        match build(&[("SKILL.md", &md)]) {
            Err(SkillError::TooLarge { what, .. }) => assert_eq!(what, "SKILL.md"),
            other => panic!("{other:?}"),
        }
        let many: Vec<(String, &[u8])> = (0..MAX_SKILL_FILES)
            .map(|i| (format!("f{i}"), &b""[..]))
            .collect();
        let mut files: Vec<(&str, &[u8])> = many.iter().map(|(p, b)| (p.as_str(), *b)).collect();
        files.push(("SKILL.md", SKILL_MD));
        assert!(matches!(
            build(&files),
            Err(SkillError::TooManyFiles { .. })
        ));
    }
}
