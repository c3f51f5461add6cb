//! Live prompts and resources: a [`ToolServerHandle`] adds and removes them while a client is
//! connected (`notifications/prompts/list_changed`, `notifications/resources/list_changed`),
//! and tells subscribers that a resource changed (`notifications/resources/updated`).

use super::live::{CatalogChanges, LiveToolError, ToolServerHandle, ToolSetEdit};
use crate::jsonrpc::ServerNotification;
use crate::prompt::Prompt;
use crate::resource::Resource;

impl ToolServerHandle {
    /// Adds a prompt, as [`ToolServer::with_prompt`](crate::tool::ToolServer::with_prompt)
    /// does, and sends `notifications/prompts/list_changed`.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use claude_tools::mcp::{McpRouter, ServerNotification};
    /// use claude_tools::prompts::{Prompt, PromptArguments};
    /// use claude_tools::ToolServer;
    ///
    /// let sent = Arc::new(Mutex::new(Vec::new()));
    /// let sink = sent.clone();
    /// let router = McpRouter::new(ToolServer::new("demo", "1.0.0"))
    ///     .with_notifier(Arc::new(move |notification| sink.lock().unwrap().push(notification)));
    /// let handle = router.tool_server_handle();
    /// handle.add_prompt(Prompt::new("greet", |_: PromptArguments| async { "Say hello." })).unwrap();
    /// assert_eq!(*sent.lock().unwrap(), [ServerNotification::PromptsListChanged]);
    /// assert_eq!(handle.server().prompts().len(), 1);
    /// ```
    pub fn add_prompt(&self, prompt: Prompt) -> Result<(), LiveToolError> {
        self.update(|edit| edit.add_prompt(prompt))
    }

    /// Removes prompt `name` and sends `notifications/prompts/list_changed`.
    pub fn remove_prompt(&self, name: &str) -> Result<(), LiveToolError> {
        self.update(|edit| edit.remove_prompt(name))
    }

    /// Adds a resource or a resource template, as
    /// [`ToolServer::with_resource`](crate::tool::ToolServer::with_resource) does, and sends
    /// `notifications/resources/list_changed`.
    pub fn add_resource(&self, resource: Resource) -> Result<(), LiveToolError> {
        self.update(|edit| edit.add_resource(resource))
    }

    /// Removes the resource or resource template written `uri` and sends
    /// `notifications/resources/list_changed`.
    pub fn remove_resource(&self, uri: &str) -> Result<(), LiveToolError> {
        self.update(|edit| edit.remove_resource(uri))
    }

    /// Adds a skill (checked as [`ToolServer::with_skill`](crate::tool::ToolServer::with_skill)
    /// does) and sends `notifications/resources/list_changed`, on which the Claude Code CLI
    /// lists the server's skills again.
    ///
    /// ```
    /// # let root = std::env::temp_dir().join(format!("add-skill-doc-{}", std::process::id()));
    /// # let dir = root.join("greet");
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # std::fs::write(dir.join("SKILL.md"), "---\nname: greet\ndescription: Greet the user.\n---\nSay hello.\n").unwrap();
    /// use std::sync::{Arc, Mutex};
    /// use claude_tools::mcp::{McpRouter, ServerNotification};
    /// use claude_tools::ToolServer;
    ///
    /// let sent = Arc::new(Mutex::new(Vec::new()));
    /// let sink = sent.clone();
    /// let router = McpRouter::new(ToolServer::new("demo", "1.0.0"))
    ///     .with_notifier(Arc::new(move |notification| sink.lock().unwrap().push(notification)));
    /// let handle = router.tool_server_handle();
    /// handle.add_skill(dir.as_path()).unwrap();
    /// assert_eq!(*sent.lock().unwrap(), [ServerNotification::ResourcesListChanged]);
    /// handle.remove_skill("greet").unwrap();
    /// assert!(handle.server().skills().is_empty());
    /// # std::fs::remove_dir_all(&root).unwrap();
    /// ```
    pub fn add_skill(&self, skill: impl crate::skill::SkillSource) -> Result<(), LiveToolError> {
        let server = self.server().name().to_string();
        let skill = skill
            .into_skill()
            .map_err(|error| crate::tool::ServerBuildError::Skill { server, error })?;
        self.update(|edit| edit.add_skill(skill))
    }

    /// Removes skill `name` and sends `notifications/resources/list_changed`.
    pub fn remove_skill(&self, name: &str) -> Result<(), LiveToolError> {
        self.update(|edit| edit.remove_skill(name))
    }

    /// Tells the clients that subscribed to `uri` (`resources/subscribe`) that the resource
    /// changed: `notifications/resources/updated`, on the transports that can send it (stdio,
    /// HTTP with sessions). Nothing is sent when no client subscribed.
    pub fn resource_updated(&self, uri: &str) {
        self.tools
            .listeners
            .publish(&ServerNotification::ResourceUpdated {
                uri: uri.to_string(),
            });
        if !self.tools.subscribers.any(uri) {
            return;
        }
        if let Some(notifier) = &self.notifier {
            notifier(ServerNotification::ResourceUpdated {
                uri: uri.to_string(),
            });
        }
    }

    pub(super) fn notify_catalog_changes(&self, changes: CatalogChanges) {
        let listeners = &self.tools.listeners;
        if changes.prompts {
            listeners.publish(&ServerNotification::PromptsListChanged);
        }
        if changes.resources {
            listeners.publish(&ServerNotification::ResourcesListChanged);
        }
        let Some(notifier) = &self.notifier else {
            return;
        };
        if changes.prompts {
            notifier(ServerNotification::PromptsListChanged);
        }
        if changes.resources {
            notifier(ServerNotification::ResourcesListChanged);
        }
    }
}

impl ToolSetEdit {
    /// [`ToolServerHandle::add_prompt`], within the update.
    pub fn add_prompt(&mut self, prompt: Prompt) -> Result<(), LiveToolError> {
        self.all.add_prompt(prompt)?;
        self.catalog.prompts = true;
        Ok(())
    }

    /// [`ToolServerHandle::remove_prompt`], within the update.
    pub fn remove_prompt(&mut self, name: &str) -> Result<(), LiveToolError> {
        if !self.all.catalog_mut().remove_prompt(name) {
            return Err(LiveToolError::UnknownPrompt {
                server: self.all.name().to_string(),
                prompt: name.to_string(),
            });
        }
        self.catalog.prompts = true;
        Ok(())
    }

    /// [`ToolServerHandle::add_resource`], within the update.
    pub fn add_resource(&mut self, resource: Resource) -> Result<(), LiveToolError> {
        self.all.add_resource(resource)?;
        self.catalog.resources = true;
        Ok(())
    }

    /// [`ToolServerHandle::add_skill`], within the update.
    pub fn add_skill(&mut self, skill: crate::skill::Skill) -> Result<(), LiveToolError> {
        self.all.add_skill(skill)?;
        self.catalog.resources = true;
        Ok(())
    }

    /// [`ToolServerHandle::remove_skill`], within the update.
    pub fn remove_skill(&mut self, name: &str) -> Result<(), LiveToolError> {
        if !self.all.remove_skill(name) {
            return Err(LiveToolError::UnknownSkill {
                server: self.all.name().to_string(),
                skill: name.to_string(),
            });
        }
        self.catalog.resources = true;
        Ok(())
    }

    /// [`ToolServerHandle::remove_resource`], within the update.
    pub fn remove_resource(&mut self, uri: &str) -> Result<(), LiveToolError> {
        if !self.all.catalog_mut().remove_resource(uri) {
            return Err(LiveToolError::UnknownResource {
                server: self.all.name().to_string(),
                uri: uri.to_string(),
            });
        }
        self.catalog.resources = true;
        Ok(())
    }
}
