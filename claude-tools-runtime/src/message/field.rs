//! Typed fields that cannot cost the message: a field whose wire value does not fit its type
//! (a newer CLI changed its shape, a producer wrote it wrong) is left untyped, kept as it came
//! in the message's `extra` map, and named in a [`FieldError`]. The message itself still
//! parses, so a `result` is still a [`Message::Result`](super::Message::Result) and the turn
//! still ends where the caller waits for it.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A field of a message that did not fit its type: the value stays in the message's `extra`
/// map under [`field`](Self::field)'s first segment, untyped, and the typed field is empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the field `{path}` did not fit its type ({reason}); it is kept untyped in `extra`")]
#[non_exhaustive]
pub struct FieldError {
    /// Where the value that did not fit is: the top-level key, then the path inside it
    /// (`usage.input_tokens`, `modelUsage.claude-opus-5-5.costUSD`).
    pub path: String,
    /// What serde said about it.
    pub reason: String,
}

impl FieldError {
    /// The top-level key the untyped value is kept under in `extra`.
    pub fn field(&self) -> &str {
        self.path.split('.').next().unwrap_or(&self.path)
    }
}

/// Takes `key` out of `extra` and types it. Absent or `null`: `None`. A value that does not fit:
/// put back into `extra` as it was, `None`, and a [`FieldError`] naming the innermost path.
pub(super) fn take_typed<T: DeserializeOwned>(
    extra: &mut Map<String, Value>,
    key: &str,
    errors: &mut Vec<FieldError>,
) -> Option<T> {
    let value = extra.get(key)?;
    if value.is_null() {
        // The typed field's empty form stands for it; the wire form keeps the `null`.
        extra.shift_remove(key);
        return None;
    }
    match read::<T>(key, value) {
        Ok(typed) => {
            extra.shift_remove(key);
            Some(typed)
        }
        Err(error) => {
            errors.push(error);
            None
        }
    }
}

/// Types the value of `key` (a path: `usage`, `message.usage`), or says where it did not fit.
pub(super) fn read<T: DeserializeOwned>(key: &str, value: &Value) -> Result<T, FieldError> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|error| {
        let inner = error.path().to_string();
        let path = if inner == "." || inner.is_empty() {
            key.to_owned()
        } else {
            format!("{key}.{inner}")
        };
        FieldError {
            path,
            reason: error.into_inner().to_string(),
        }
    })
}
