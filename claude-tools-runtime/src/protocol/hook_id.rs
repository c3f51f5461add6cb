//! [`HookCallbackId`]: the one place that knows how a hook callback is named on the wire.
//!
//! The host registers its hook callbacks in `initialize` under ids of its choosing
//! (`"hookCallbackIds": ["hook_0", "hook_1"]`), and the CLI names one of them in each
//! `hook_callback` request (`"callback_id": "hook_1"`). The id is the callback's index in the
//! session's list, written `hook_{index}` as the official SDKs write it.

use std::fmt;
use std::str::FromStr;

use serde::{Serialize, Serializer};

/// The id of one hook callback: its index in the session's list of callbacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct HookCallbackId(usize);

impl HookCallbackId {
    /// The id of the callback at `index`.
    pub(crate) fn new(index: usize) -> Self {
        Self(index)
    }

    /// The callback's index in the session's list.
    pub(crate) fn index(self) -> usize {
        self.0
    }
}

/// `hook_{index}`.
impl fmt::Display for HookCallbackId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hook_{}", self.0)
    }
}

/// A `callback_id` that is not one the host hands out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotAHookId;

impl FromStr for HookCallbackId {
    type Err = NotAHookId;

    /// `hook_` and a number, as `usize` reads it.
    fn from_str(id: &str) -> Result<Self, Self::Err> {
        id.strip_prefix("hook_")
            .and_then(|index| index.parse::<usize>().ok())
            .map(Self)
            .ok_or(NotAHookId)
    }
}

impl Serialize for HookCallbackId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_written_and_read_back_as_hook_and_its_index() {
        for index in [0, 1, 17, usize::MAX] {
            let id = HookCallbackId::new(index);
            assert_eq!(id.to_string(), format!("hook_{index}"));
            assert_eq!(id.to_string().parse(), Ok(id));
            assert_eq!(
                serde_json::to_string(&id).unwrap(),
                format!("\"hook_{index}\"")
            );
        }
    }

    #[test]
    fn anything_else_is_not_an_id() {
        for id in [
            "", "hook_", "hook", "hook_x", "hook_-1", "Hook_1", "hook_1 ", "1",
        ] {
            assert_eq!(id.parse::<HookCallbackId>(), Err(NotAHookId), "{id:?}");
        }
        // Read as `usize` reads a number, as the session always has.
        assert_eq!(
            "hook_007"
                .parse::<HookCallbackId>()
                .map(HookCallbackId::index),
            Ok(7)
        );
        assert_eq!(
            "hook_+3"
                .parse::<HookCallbackId>()
                .map(HookCallbackId::index),
            Ok(3)
        );
    }
}
