//! Questions from a running handler to the client, the same on every MCP revision: sent as
//! requests on a 2025-11-25 connection; at 2026-07-28, where a server cannot send the client a
//! request, asked through the call's rounds (an `input_required` result the client answers by
//! retrying the call).
//!
//! # What a handler must keep safe to repeat (2026-07-28)
//!
//! At 2026-07-28 a question ends the handler's run: the client gets the question, answers it,
//! and sends the call again, and the handler **runs again from its start**, on any replica,
//! finding this time the answers it asked for (each question is looked up by its key). So
//! everything a handler does before its last question runs once per round:
//!
//! - reading (a lookup, a query) is harmless;
//! - work that must not run twice (a payment, a message sent, a row inserted) goes after the
//!   questions, or inside [`ToolContext::remember`], which runs it once and carries its result
//!   to the later rounds in the sealed `requestState`;
//! - a question's key must name the same question on every run: the default keys number the
//!   questions in the order they are asked (`elicitation-1`, `sampling-2`…), which holds when
//!   the handler asks in the same order each time; name a question ([`ToolContext::question`])
//!   when the order may change, or when a client expects a given key.
//!
//! An answer is the client's word, not proof that a person saw the question: a client may send
//! the answer under a question's key before it was asked (the retry's `inputResponses` need no
//! `requestState`), as it may answer a 2025 `elicitation/create` without showing it. Trust a
//! confirmation as far as you trust the client.
//!
//! Questions asked at the same time (`tokio::join!`) go out together in one `input_required`.
//! A question needing a capability the request did not declare ends the call with `-32021`
//! (check [`ClientPeer::capabilities`](crate::ask::ClientPeer::capabilities) first to do without
//! it), and an answer that does not fit its question ends it with `-32602`.

use std::future::Future;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use super::ToolContext;
use crate::ask::{
    AskError, CreateMessageRequest, CreateMessageResult, ElicitParams, Root, ServerRequestParams,
};

/// A question with a key of the handler's choosing ([`ToolContext::question`]).
///
/// ```no_run
/// use claude_tools::prelude::*;
/// use claude_tools::mcp::Elicitation;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Name {
///     name: String,
/// }
///
/// async fn greet(ctx: ToolContext) -> Result<String, ToolError> {
///     match ctx.question("user_name").elicit::<Name>("What is your name?").await? {
///         Elicitation::Accepted(Name { name }) => Ok(format!("Hello, {name}!")),
///         _ => Ok("Hello, stranger!".to_string()),
///     }
/// }
/// ```
#[derive(Debug)]
pub struct Question<'a> {
    ctx: &'a ToolContext,
    key: Option<String>,
}

impl ToolContext {
    /// A question under `key`: at MCP 2026-07-28, the key of its input request in the
    /// `input_required` result and of its answer in the client's `inputResponses` (on a 2025
    /// connection the key is not sent). See the [module docs](self) for when to name one.
    pub fn question(&self, key: impl Into<String>) -> Question<'_> {
        Question {
            ctx: self,
            key: Some(key.into()),
        }
    }

    /// A question under the default key.
    pub(super) fn unnamed_question(&self) -> Question<'_> {
        Question {
            ctx: self,
            key: None,
        }
    }

    /// Runs `work` once per call, whatever the rounds: at MCP 2026-07-28, where a handler that
    /// asks questions runs again from its start on every round, the value `work` returned in an
    /// earlier round is read back from the sealed `requestState` (kept under `key`) instead of
    /// running it again; on a 2025 connection (one run) it simply runs. For work that must not
    /// repeat before a question: a payment, a message sent, an id allocated.
    ///
    /// Fails with [`AskError::Kept`] when the value does not serialize, or a value kept by an
    /// earlier round is not a `T` (the handler changed between rounds).
    ///
    /// ```no_run
    /// use claude_tools::prelude::*;
    /// use claude_tools::mcp::Elicitation;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Confirm {
    ///     confirm: bool,
    /// }
    ///
    /// async fn reserve(ctx: ToolContext, seat: String) -> Result<String, ToolError> {
    ///     // Held once, whatever the number of rounds.
    ///     let hold: u64 = ctx.remember("hold", || async { 4711 /* hold the seat */ }).await?;
    ///     match ctx.elicit::<Confirm>(format!("Book seat {seat}?")).await? {
    ///         Elicitation::Accepted(Confirm { confirm: true }) => Ok(format!("booked with hold {hold}")),
    ///         _ => Ok(format!("released hold {hold}")),
    ///     }
    /// }
    /// ```
    pub async fn remember<T, F, Fut>(&self, key: &str, work: F) -> Result<T, AskError>
    where
        T: Serialize + DeserializeOwned,
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        let round = self.client().and_then(|client| client.round.clone());
        let Some(round) = round else {
            return Ok(work().await);
        };
        if let Some(kept) = round.kept(key) {
            return serde_json::from_str(kept.get()).map_err(|error| {
                AskError::Kept(format!(
                    "the value kept under `{key}` by an earlier round is not a `{}`: {error}",
                    std::any::type_name::<T>()
                ))
            });
        }
        let value = work().await;
        let raw = serde_json::to_string(&value)
            .and_then(RawValue::from_string)
            .map_err(|error| {
                AskError::Kept(format!(
                    "the value to keep under `{key}` does not serialize: {error}"
                ))
            })?;
        round.keep(key, raw);
        Ok(value)
    }
}

impl<'a> Question<'a> {
    /// [`ToolContext::elicit`] under this question's key.
    ///
    /// A plain fn returning a boxed future rather than an `async fn`, so that a `T` that cannot
    /// be a form is one error at the call (`ElicitForm`'s message), not one more at every
    /// `.await` of the future's type.
    pub fn elicit<T: crate::ask::ElicitForm + Send + 'static>(
        self,
        message: impl Into<String>,
    ) -> crate::ask::ElicitFuture<'a, T> {
        let message = message.into();
        Box::pin(async move {
            let client = self.ctx.client().ok_or(AskError::NoClient)?;
            let schema = crate::ask::cached_elicitation_schema::<T>()?;
            let params = ServerRequestParams::Elicit(ElicitParams::new(message, schema));
            let asked = client
                .ask(
                    self.key.as_deref(),
                    "elicitation",
                    "a form (elicitation)",
                    |c| c.elicitation,
                    params,
                    self.ctx.cancellation_token(),
                )
                .await?;
            client.read(asked, crate::ask::read_answer).await
        })
    }

    /// [`ToolContext::create_message`] under this question's key.
    pub async fn create_message(
        self,
        request: CreateMessageRequest,
    ) -> Result<CreateMessageResult, AskError> {
        let client = self.ctx.client().ok_or(AskError::NoClient)?;
        let asked = client
            .ask(
                self.key.as_deref(),
                "sampling",
                "a message from its model (sampling)",
                |c| c.sampling,
                ServerRequestParams::CreateMessage(request),
                self.ctx.cancellation_token(),
            )
            .await?;
        client.read(asked, crate::ask::read_message).await
    }

    /// [`ToolContext::list_roots`] under this question's key.
    pub async fn list_roots(self) -> Result<Vec<Root>, AskError> {
        let client = self.ctx.client().ok_or(AskError::NoClient)?;
        let asked = client
            .ask(
                self.key.as_deref(),
                "roots",
                "its roots",
                |c| c.roots,
                ServerRequestParams::ListRoots,
                self.ctx.cancellation_token(),
            )
            .await?;
        client.read(asked, crate::ask::read_roots).await
    }
}
