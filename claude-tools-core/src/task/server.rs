//! A [`ToolServer`]'s tasks: where they are kept, their settings, and whether any tool runs as
//! one.

use std::sync::Arc;

use crate::tool::ToolServer;

impl ToolServer {
    /// Keeps this server's tasks in `store` ([`crate::task::TaskStore`]; a shared one lets
    /// replicas answer each other's `tasks/*`) instead of a
    /// [`MemoryTaskStore`](crate::task::MemoryTaskStore) of the router's tool set.
    pub fn with_task_store(mut self, store: Arc<dyn crate::task::TaskStore>) -> Self {
        Arc::make_mut(&mut self.inner).task_store = Some(store);
        self
    }

    /// The store set with [`with_task_store`](Self::with_task_store), if any.
    pub fn task_store(&self) -> Option<&Arc<dyn crate::task::TaskStore>> {
        self.inner.task_store.as_ref()
    }

    /// Sets the TTL, poll interval and per-caller bound of this server's tasks
    /// ([`crate::task::TaskSettings`]).
    pub fn with_task_settings(mut self, settings: crate::task::TaskSettings) -> Self {
        Arc::make_mut(&mut self.inner).task_settings = settings;
        self
    }

    /// The settings of this server's tasks.
    pub fn task_settings(&self) -> crate::task::TaskSettings {
        self.inner.task_settings
    }

    /// Whether a tool of this server may run as a task ([`crate::task`]).
    pub fn has_task_tools(&self) -> bool {
        self.inner
            .tools
            .iter()
            .any(|tool| tool.task_support() != crate::task::TaskSupport::Never)
    }
}
