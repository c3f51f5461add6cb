//! The params a client adds when it retries a request that was answered `input_required`
//! (MCP 2026-07-28's multi round-trip requests): `inputResponses` and `requestState`, read raw
//! in the decoder's pass over a `tools/call`, `prompts/get` or `resources/read` and checked by
//! the router.

use serde::de::MapAccess;
use serde_json::value::RawValue;

use super::RawParams;
use super::message::Retry;

/// The retry keys of one request's params, as the pass read them.
#[derive(Default)]
pub(super) struct RetryKeys<'de> {
    input_responses: Option<&'de RawValue>,
    request_state: Option<&'de RawValue>,
}

impl<'de> RetryKeys<'de> {
    /// For a retry key, whether it was read already; `None` for any other key.
    pub(super) fn seen(&self, key: &str) -> Option<bool> {
        match key {
            "inputResponses" => Some(self.input_responses.is_some()),
            "requestState" => Some(self.request_state.is_some()),
            _ => None,
        }
    }

    /// Reads the value of the retry key `key` (one [`seen`](Self::seen) named).
    pub(super) fn read<A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        let slot = if key == "inputResponses" {
            &mut self.input_responses
        } else {
            &mut self.request_state
        };
        *slot = Some(map.next_value()?);
        Ok(())
    }

    /// The retry, when the params had either key.
    // Inline: every `tools/call` asks, and almost none is a retry.
    #[inline]
    pub(super) fn into_retry(self) -> Option<Box<Retry>> {
        if self.input_responses.is_none() && self.request_state.is_none() {
            return None;
        }
        self.owned()
    }

    #[cold]
    fn owned(self) -> Option<Box<Retry>> {
        let own = |raw: &RawValue| RawParams(raw.to_owned());
        Some(Box::new(Retry {
            input_responses: self.input_responses.map(own),
            request_state: self.request_state.map(own),
        }))
    }
}
