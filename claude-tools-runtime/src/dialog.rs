//! User dialogs: the CLI asks the host to show a blocking dialog (`request_user_dialog`), such
//! as the choice offered when the model refuses (`refusal_fallback_prompt`), and the host's
//! [`Options::on_user_dialog`](crate::options::Options::on_user_dialog) callback answers with
//! the user's choice.
//!
//! The CLI sends only the kinds the host declared it can show (`supportedDialogKinds` in
//! `initialize`, which `on_user_dialog` sends); a flow behind a kind not declared falls back
//! to its behaviour without a dialog (for `refusal_fallback_prompt`, the plain refusal error).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// A kind of dialog (`dialog_kind`). The list is open: a kind a later CLI adds is
/// [`DialogKind::Other`], with its name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DialogKind {
    /// The choice offered when the model refuses a request (`refusal_fallback_prompt`).
    RefusalFallbackPrompt,
    /// Any other kind, by its wire name.
    Other(String),
}

impl DialogKind {
    /// The kind's wire name.
    pub fn as_str(&self) -> &str {
        match self {
            DialogKind::RefusalFallbackPrompt => "refusal_fallback_prompt",
            DialogKind::Other(name) => name,
        }
    }

    /// The kind named `name` on the wire.
    pub fn from_wire(name: &str) -> Self {
        match name {
            "refusal_fallback_prompt" => DialogKind::RefusalFallbackPrompt,
            other => DialogKind::Other(other.to_string()),
        }
    }
}

impl From<&str> for DialogKind {
    fn from(name: &str) -> Self {
        DialogKind::from_wire(name)
    }
}

/// A dialog the CLI asks the host to show.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct UserDialogRequest {
    /// Which dialog (`dialog_kind`).
    pub kind: DialogKind,
    /// What the dialog shows; its shape is the kind's (`payload`).
    pub payload: Map<String, Value>,
    /// The tool use the dialog is about, when it is about one (`tool_use_id`).
    pub tool_use_id: Option<String>,
    /// The control request's id: what an answer given later through
    /// [`Controls::answer_user_dialog`](crate::control::Controls::answer_user_dialog) names,
    /// after the callback returned [`UserDialogAnswer::Later`].
    pub request_id: Option<String>,
    /// Every field of the request.
    pub raw: Map<String, Value>,
    cancellation: CancellationToken,
}

impl UserDialogRequest {
    /// A dialog of `kind` showing `payload`: what a unit test of a callback builds.
    pub fn new(kind: DialogKind, payload: Map<String, Value>) -> Self {
        Self {
            kind,
            payload,
            tool_use_id: None,
            request_id: None,
            raw: Map::new(),
            cancellation: CancellationToken::new(),
        }
    }

    pub(crate) fn from_request(mut request: Map<String, Value>) -> Self {
        let kind = DialogKind::from_wire(
            request
                .get("dialog_kind")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        );
        let payload = match request.remove("payload") {
            Some(Value::Object(payload)) => payload,
            _ => Map::new(),
        };
        let tool_use_id = request
            .get("tool_use_id")
            .and_then(Value::as_str)
            .map(String::from);
        Self {
            kind,
            payload,
            tool_use_id,
            request_id: None,
            raw: request,
            cancellation: CancellationToken::new(),
        }
    }

    /// The same request, under the control request's id.
    pub(crate) fn with_request_id(mut self, request_id: &str) -> Self {
        self.request_id = Some(request_id.to_string());
        self
    }

    /// Fires when the CLI withdraws the dialog (`control_cancel_request`: its deadline passed,
    /// another client answered) or the session ends; no answer is sent then.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation
    }
}

/// The host's answer to a [`UserDialogRequest`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum UserDialogAnswer {
    /// The user chose: `result` in the kind's shape (`{"behavior":"completed","result":…}`).
    Completed(Value),
    /// Dismissed, or a kind the host cannot show: the CLI applies the dialog's default
    /// (`{"behavior":"cancelled"}`).
    Cancelled,
    /// No answer now: the host answers later, by the request's
    /// [`request_id`](UserDialogRequest::request_id), through
    /// [`Controls::answer_user_dialog`](crate::control::Controls::answer_user_dialog)
    /// (TypeScript's `null` result). Until then the dialog stays open, bounded by the CLI's own
    /// deadline for it.
    Later,
}

type DialogFuture = Pin<Box<dyn Future<Output = UserDialogAnswer> + Send>>;

/// The dialog callback of [`Options::on_user_dialog`](crate::options::Options::on_user_dialog),
/// with the kinds it can show.
#[derive(Clone)]
pub struct OnUserDialog {
    pub(crate) kinds: Vec<DialogKind>,
    callback: Arc<dyn Fn(UserDialogRequest) -> DialogFuture + Send + Sync>,
}

impl OnUserDialog {
    pub(crate) fn call(&self, request: UserDialogRequest) -> DialogFuture {
        (self.callback)(request)
    }
}

impl std::fmt::Debug for OnUserDialog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnUserDialog")
            .field("kinds", &self.kinds)
            .finish_non_exhaustive()
    }
}

impl crate::options::Options {
    /// Shows the CLI's dialogs of `kinds` with `callback` (TypeScript's `onUserDialog` with
    /// `supportedDialogKinds`): the kinds are declared in `initialize`, and the CLI sends only
    /// those. Declare only the kinds the host really shows and answers; for one it cannot show,
    /// answer [`UserDialogAnswer::Cancelled`]. Without this call (or with no kinds) the CLI
    /// sends no dialog, and each flow behind one takes its path without it.
    ///
    /// ```
    /// use claude_tools::dialog::{DialogKind, UserDialogAnswer};
    /// use claude_tools::options::Options;
    /// use serde_json::json;
    ///
    /// let options = Options::new().on_user_dialog([DialogKind::RefusalFallbackPrompt], |dialog| async move {
    ///     match dialog.kind {
    ///         // Show the choice to the user here; this host always takes the first option.
    ///         DialogKind::RefusalFallbackPrompt => UserDialogAnswer::Completed(json!({"choice": 0})),
    ///         _ => UserDialogAnswer::Cancelled,
    ///     }
    /// });
    /// # let _ = options;
    /// ```
    pub fn on_user_dialog<F, Fut>(
        mut self,
        kinds: impl IntoIterator<Item = DialogKind>,
        callback: F,
    ) -> Self
    where
        F: Fn(UserDialogRequest) -> Fut + Send + Sync + 'static,
        Fut: crate::callback::CallbackFuture<UserDialogAnswer> + Send + 'static,
    {
        self.on_user_dialog = Some(OnUserDialog {
            kinds: kinds.into_iter().collect(),
            callback: Arc::new(move |request| Box::pin(callback(request))),
        });
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_request_reads_the_fields_the_cli_sends_and_keeps_an_unknown_kind() {
        let Value::Object(fields) = json!({"subtype": "request_user_dialog",
            "dialog_kind": "refusal_fallback_prompt", "payload": {"options": ["a", "b"]},
            "tool_use_id": "toolu_1", "deadline_ms": 5})
        else {
            unreachable!()
        };
        let request = UserDialogRequest::from_request(fields).with_request_id("r-9");
        assert_eq!(request.kind, DialogKind::RefusalFallbackPrompt);
        assert_eq!(request.payload["options"], json!(["a", "b"]));
        assert_eq!(request.tool_use_id.as_deref(), Some("toolu_1"));
        assert_eq!(request.request_id.as_deref(), Some("r-9"));
        assert_eq!(request.raw["deadline_ms"], 5);
        let Value::Object(fields) = json!({"dialog_kind": "brand_new_kind"}) else {
            unreachable!()
        };
        let newer = UserDialogRequest::from_request(fields);
        assert_eq!(newer.kind, DialogKind::Other("brand_new_kind".into()));
        assert_eq!(newer.kind.as_str(), "brand_new_kind");
        assert!(newer.payload.is_empty());
    }
}
