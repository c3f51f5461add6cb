//! Application state shared with tools: [`State<T>`] and the per-server type map behind it.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// Application state registered on the server with
/// [`ToolServer::with_state`](super::ToolServer::with_state), handed to every tool that takes a
/// `State<T>` parameter.
///
/// It derefs to `T`; the same `Arc<T>` can be shared with the rest of the application through
/// [`ToolServer::with_shared_state`](super::ToolServer::with_shared_state). A server may hold
/// several state types, one value per type.
pub struct State<T: ?Sized>(pub Arc<T>);

impl<T: ?Sized> State<T> {
    /// The shared pointer to the state.
    pub fn arc(&self) -> &Arc<T> {
        &self.0
    }
}

impl<T: ?Sized> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> Clone for State<T> {
    fn clone(&self) -> Self {
        State(self.0.clone())
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&&*self.0).finish()
    }
}

/// One value per type, shared by every call of a server.
#[derive(Clone, Default)]
pub(crate) struct StateMap {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.values.insert(TypeId::of::<T>(), value);
    }

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        let value = self.values.get(&TypeId::of::<T>())?.clone();
        value.downcast::<T>().ok()
    }

    pub(crate) fn contains(&self, type_id: TypeId) -> bool {
        self.values.contains_key(&type_id)
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateMap")
            .field("types", &self.values.len())
            .finish()
    }
}

/// A state type a tool needs, as recorded when the tool is described.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StateRequirement {
    pub(crate) type_id: TypeId,
    pub(crate) type_name: &'static str,
}

impl StateRequirement {
    pub(crate) fn of<T: 'static>() -> Self {
        Self {
            type_id: TypeId::of::<T>(),
            type_name: std::any::type_name::<T>(),
        }
    }
}

/// A tool, prompt or resource takes `State<T>` but its server has no `T`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{kind} `{name}` of server `{server}` takes State<{type_name}>, but the server has no such \
     state: call .with_state(value) on the server before using it"
)]
pub struct MissingState {
    /// The server's name.
    pub server: String,
    /// Whether a tool, a prompt or a resource needs the state.
    pub kind: super::CallKind,
    /// The tool's or prompt's name, or the resource's URI (template).
    pub name: String,
    /// The state type's name.
    pub type_name: &'static str,
}
