//! `assistant` messages: the model's output.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::content::ContentBlock;
use super::field::{FieldError, read, take_typed};
use super::usage::Usage;
use super::wire::{WireForm, null_default, typed};
use crate::wire_enum::wire_enum;

/// An `assistant` message.
///
/// The usage and the error class are typed; one whose value does not fit its type does not cost
/// the message: it stays untyped in the `extra` map that holds it, and
/// [`field_errors`](Self::field_errors) names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct AssistantMessage {
    /// The API message (usually one content block per frame).
    pub message: AssistantBody,
    /// Set when a subagent produced it.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// The class of API error when the turn failed (the frame then carries the error text).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub error: Option<AssistantError>,
    /// Every other field (`tool_use_meta`, `request_id`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The typed fields whose value did not fit, kept untyped.
    #[serde(skip)]
    field_errors: Vec<FieldError>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl AssistantMessage {
    /// The typed fields whose wire value did not fit their type, each kept untyped in the
    /// `extra` map that holds it (`error` in [`extra`](Self::extra), `message.usage` in the
    /// body's): empty for a well-formed line.
    pub fn field_errors(&self) -> &[FieldError] {
        &self.field_errors
    }

    /// The response's token usage, when the frame carries one.
    pub fn usage(&self) -> Option<&Usage> {
        self.message.usage.as_ref()
    }

    /// The text blocks, joined.
    pub fn text(&self) -> String {
        self.message
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect()
    }

    /// The tool_use blocks: `(id, name, input)`.
    pub fn tool_uses(&self) -> impl Iterator<Item = (&str, &str, &Value)> {
        self.message.content.iter().filter_map(|block| match block {
            ContentBlock::ToolUse {
                id, name, input, ..
            } => Some((id.as_str(), name.as_str(), input)),
            _ => None,
        })
    }
}

/// The API message inside an `assistant` frame. A `usage` that does not fit [`Usage`] stays in
/// [`extra`](Self::extra) ([`AssistantMessage::field_errors`] says why).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct AssistantBody {
    /// The API message id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// `assistant`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The content blocks.
    #[serde(default, deserialize_with = "null_default")]
    pub content: Vec<ContentBlock>,
    /// Why the model stopped (`end_turn`, `tool_use`…).
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Token usage (on a streamed frame, the usage so far).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Serialize for AssistantMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        AssistantMessage::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for AssistantMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut message = AssistantMessage::deserialize(deserializer)?;
        message.error = take_typed(&mut message.extra, "error", &mut message.field_errors);
        // The body typed its usage already; one left in its `extra` did not fit: say why.
        if let Some(usage) = message.message.extra.get("usage")
            && let Err(error) = read::<Usage>("message.usage", usage)
        {
            message.field_errors.push(error);
        }
        Ok(message)
    }
}

impl Serialize for AssistantBody {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        AssistantBody::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for AssistantBody {
    /// A `usage` that does not fit [`Usage`] is kept in `extra`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut body = AssistantBody::deserialize(deserializer)?;
        body.usage = take_typed(&mut body.extra, "usage", &mut Vec::new());
        Ok(body)
    }
}

wire_enum! {
    /// The class of API error an `assistant` frame reports (`error`), as the TypeScript SDK
    /// 0.3.332 lists them.
    pub enum AssistantError {
        /// `authentication_failed`.
        AuthenticationFailed = "authentication_failed",
        /// `oauth_org_not_allowed`.
        OauthOrgNotAllowed = "oauth_org_not_allowed",
        /// `account_on_hold`.
        AccountOnHold = "account_on_hold",
        /// `verification_required`.
        VerificationRequired = "verification_required",
        /// `billing_error`.
        BillingError = "billing_error",
        /// `rate_limit`.
        RateLimit = "rate_limit",
        /// `overloaded`.
        Overloaded = "overloaded",
        /// `invalid_request`.
        InvalidRequest = "invalid_request",
        /// `model_not_found`.
        ModelNotFound = "model_not_found",
        /// `server_error`.
        ServerError = "server_error",
        /// `unknown`.
        Unknown = "unknown",
        /// `max_output_tokens`.
        MaxOutputTokens = "max_output_tokens",
        /// `cloud_credential_error`.
        CloudCredentialError = "cloud_credential_error",
    }
}

typed!(AssistantMessage { extra });
