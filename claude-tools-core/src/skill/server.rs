//! A [`ToolServer`]'s skills: adding them when the server is built, and finding them.

use std::sync::Arc;

use super::{Skill, SkillSource};
use crate::tool::{ServerBuildError, ToolServer};

impl ToolServer {
    /// Adds a skill: compiled in (`include_skill!("skills/deploy")`), read from disk (a
    /// `&Path` or `PathBuf` to its directory, read now), or a [`Skill`] built before. It is
    /// checked here (see [`crate::skill`]): a skill the Claude Code CLI would drop is an error
    /// now, not a silent absence later.
    ///
    /// The server then declares the skills extension in `server/discover` and serves
    /// `skills/list`, `skills/get`, its files through `resources/read` and its directories
    /// through `resources/directory/read`, to MCP 2026-07-28 clients (the Claude Code CLI asks
    /// no other revision for skills).
    ///
    /// ```
    /// # let root = std::env::temp_dir().join(format!("with-skill-doc-{}", std::process::id()));
    /// # let dir = root.join("greet");
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # std::fs::write(dir.join("SKILL.md"), "---\nname: greet\ndescription: Greet the user warmly.\n---\nSay hello.\n").unwrap();
    /// use claude_tools::ToolServer;
    ///
    /// let server = ToolServer::new("front-desk", "1.0.0").with_skill(dir.as_path()).unwrap();
    /// assert_eq!(server.skills()[0].name(), "greet");
    ///
    /// // The same skill twice is refused.
    /// assert!(server.with_skill(dir.as_path()).is_err());
    /// # std::fs::remove_dir_all(&root).unwrap();
    /// ```
    pub fn with_skill(mut self, skill: impl SkillSource) -> Result<Self, ServerBuildError> {
        let skill = skill
            .into_skill()
            .map_err(|error| ServerBuildError::Skill {
                server: self.name().to_string(),
                error,
            })?;
        self.add_skill(skill)?;
        Ok(self)
    }

    /// The server's skills, sorted by name.
    pub fn skills(&self) -> &[Skill] {
        &self.inner.skills
    }

    /// The skill called `name`.
    pub fn skill(&self, name: &str) -> Option<&Skill> {
        self.skill_index(name)
            .ok()
            .map(|index| &self.inner.skills[index])
    }

    /// Whether the server serves skills.
    pub fn has_skills(&self) -> bool {
        !self.inner.skills.is_empty()
    }

    /// Adds `skill`, refusing a second skill of the same name.
    pub(crate) fn add_skill(&mut self, skill: Skill) -> Result<(), ServerBuildError> {
        match self.skill_index(skill.name()) {
            Ok(_) => Err(ServerBuildError::DuplicateSkill {
                server: self.name().to_string(),
                skill: skill.name().to_string(),
            }),
            Err(position) => {
                Arc::make_mut(&mut self.inner)
                    .skills
                    .insert(position, skill);
                Ok(())
            }
        }
    }

    /// Takes skill `name` out; `false` when there is none.
    pub(crate) fn remove_skill(&mut self, name: &str) -> bool {
        match self.skill_index(name) {
            Ok(index) => {
                Arc::make_mut(&mut self.inner).skills.remove(index);
                true
            }
            Err(_) => false,
        }
    }

    fn skill_index(&self, name: &str) -> Result<usize, usize> {
        self.inner
            .skills
            .binary_search_by(|skill| skill.name().cmp(name))
    }
}
