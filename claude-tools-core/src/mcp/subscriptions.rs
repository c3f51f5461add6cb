//! Resource subscriptions: which URIs each connection subscribed to (`resources/subscribe`),
//! and, over all connections to one tool set, whether anyone did.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

/// How many connections subscribed to each URI, over every connection to one tool set: a
/// [`ToolServerHandle::resource_updated`](super::ToolServerHandle::resource_updated) nobody
/// subscribed to sends nothing.
#[derive(Debug, Default)]
pub(crate) struct Subscribers {
    counts: Mutex<HashMap<String, usize>>,
}

impl Subscribers {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, usize>> {
        // Single inserts and removes: a poisoned lock is still consistent.
        self.counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether some connection subscribed to `uri`.
    pub(crate) fn any(&self, uri: &str) -> bool {
        self.lock().contains_key(uri)
    }

    fn add(&self, uri: &str) {
        *self.lock().entry(uri.to_string()).or_default() += 1;
    }

    fn remove(&self, uri: &str) {
        let mut counts = self.lock();
        if let Some(count) = counts.get_mut(uri) {
            *count -= 1;
            if *count == 0 {
                counts.remove(uri);
            }
        }
    }
}

/// The URIs one connection subscribed to; dropping it (the connection ends) unsubscribes them.
#[derive(Debug)]
pub(crate) struct Subscriptions {
    uris: Mutex<BTreeSet<String>>,
    subscribers: Arc<Subscribers>,
}

impl Subscriptions {
    pub(crate) fn new(subscribers: Arc<Subscribers>) -> Self {
        Self {
            uris: Mutex::default(),
            subscribers,
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeSet<String>> {
        self.uris
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Subscribes to `uri` (again: no change).
    pub(crate) fn subscribe(&self, uri: &str) {
        if self.lock().insert(uri.to_string()) {
            self.subscribers.add(uri);
        }
    }

    /// Unsubscribes from `uri` (not subscribed: no change).
    pub(crate) fn unsubscribe(&self, uri: &str) {
        if self.lock().remove(uri) {
            self.subscribers.remove(uri);
        }
    }

    pub(crate) fn contains(&self, uri: &str) -> bool {
        self.lock().contains(uri)
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        for uri in std::mem::take(&mut *self.lock()) {
            self.subscribers.remove(&uri);
        }
    }
}
