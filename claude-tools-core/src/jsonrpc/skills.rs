//! The results of the skills extension's methods (`io.modelcontextprotocol/skills`),
//! typed: `skills/list`, `skills/get` and `resources/directory/read`.

use serde::Serialize;
use serde::ser::{SerializeMap, SerializeSeq};

use crate::skill::Skill;

/// The answer to a method of the skills extension.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SkillsAnswer {
    /// `skills/list`: every skill, on one page (`{"skills": [entry...]}`).
    List(Vec<Skill>),
    /// `skills/get`: one skill (`{"skill": entry}`).
    Get(Skill),
    /// `resources/directory/read`: the entries of a directory of a skill
    /// (`{"resources": [...]}`).
    Directory(Vec<DirectoryEntry>),
}

/// One entry of a directory listing: a file (with its MIME type and size) or a directory
/// (MIME type `inode/directory`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DirectoryEntry {
    /// Its URI.
    pub uri: String,
    /// Its name (the last path segment).
    pub name: String,
    /// Its MIME type.
    pub mime_type: String,
    /// Its size in bytes (files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

impl PartialEq for SkillsAnswer {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::List(a), Self::List(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.same_as(b))
            }
            (Self::Get(a), Self::Get(b)) => a.same_as(b),
            (Self::Directory(a), Self::Directory(b)) => a == b,
            _ => false,
        }
    }
}

/// A skill as `skills/list` and `skills/get` write it: `{uri, frontmatter, resources}`.
struct Entry<'a>(&'a Skill);

/// One file of a skill's manifest: `{uri, digest, size}`.
struct ManifestFile<'a>(&'a crate::skill::SkillFile);

impl Serialize for ManifestFile<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("uri", self.0.uri())?;
        map.serialize_entry("digest", self.0.digest())?;
        map.serialize_entry("size", &self.0.size())?;
        map.end()
    }
}

/// The files of a skill.
struct Manifest<'a>(&'a Skill);

impl Serialize for Manifest<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let files = self.0.files();
        let mut seq = serializer.serialize_seq(Some(files.len()))?;
        for file in files {
            seq.serialize_element(&ManifestFile(file))?;
        }
        seq.end()
    }
}

impl Serialize for Entry<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("uri", self.0.uri())?;
        map.serialize_entry("frontmatter", self.0.front_matter())?;
        map.serialize_entry("resources", &Manifest(self.0))?;
        map.end()
    }
}

/// A list of skills.
struct Entries<'a>(&'a [Skill]);

impl Serialize for Entries<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for skill in self.0 {
            seq.serialize_element(&Entry(skill))?;
        }
        seq.end()
    }
}

impl Serialize for SkillsAnswer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        match self {
            SkillsAnswer::List(skills) => map.serialize_entry("skills", &Entries(skills))?,
            SkillsAnswer::Get(skill) => map.serialize_entry("skill", &Entry(skill))?,
            SkillsAnswer::Directory(entries) => map.serialize_entry("resources", entries)?,
        }
        map.end()
    }
}
