//! MCP elicitation: an MCP server of the session asks the user for input (`elicitation/create`),
//! the CLI hands the question to the host as an `elicitation` control request, and the host's
//! [`Options::on_elicitation`](crate::options::Options::on_elicitation) callback answers it.
//! Without a callback the question is declined, as the official SDKs do.
//!
//! An accepted answer is checked against the schema the server asked with before it can be
//! built ([`ElicitationAnswer::accept`]), so a server never gets content of a shape it did not
//! ask for.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// What an MCP server asks the user, as the CLI forwards it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// The MCP server asking (its name in the session's configuration).
    pub server_name: String,
    /// The question, for a person.
    pub message: String,
    /// A form to fill in, or a URL to open.
    pub mode: ElicitationMode,
    /// The URL to open, in [`ElicitationMode::Url`].
    pub url: Option<String>,
    /// The id that ties a URL elicitation to its completion notification.
    pub elicitation_id: Option<String>,
    /// The JSON Schema of the answer, in [`ElicitationMode::Form`]: an object of flat fields
    /// (strings, numbers, integers, booleans, enums), as MCP allows.
    pub requested_schema: Option<Map<String, Value>>,
    /// The schema's property names in the order the server listed them.
    pub property_order: Vec<String>,
    /// A header for the question, when the server gave one.
    pub title: Option<String>,
    /// A short label of the tool or server, when the server gave one.
    pub display_name: Option<String>,
    /// A subtitle, when the server gave one.
    pub description: Option<String>,
    /// Every field of the request.
    pub raw: Map<String, Value>,
    /// The control request's id (TypeScript's `requestId`), for a question the CLI forwards:
    /// what an answer given later through
    /// [`Controls::answer_elicitation`](crate::control::Controls::answer_elicitation) names,
    /// after the callback returned [`ElicitationAnswer::later`]. `None` for a question of an
    /// in-process server's tool, which the session answers itself and which cannot wait.
    pub request_id: Option<String>,
    cancellation: CancellationToken,
}

/// How an [`ElicitationRequest`] is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ElicitationMode {
    /// Fill in a form of [`requested_schema`](ElicitationRequest::requested_schema).
    Form,
    /// Open [`url`](ElicitationRequest::url) (e.g. to sign in); the answer carries no content.
    Url,
}

impl ElicitationRequest {
    /// A form question from `server_name`, with `requested_schema`: what a unit test of a
    /// callback builds.
    pub fn form(
        server_name: impl Into<String>,
        message: impl Into<String>,
        requested_schema: Value,
    ) -> Self {
        let requested_schema = match requested_schema {
            Value::Object(schema) => Some(schema),
            _ => None,
        };
        Self {
            server_name: server_name.into(),
            message: message.into(),
            mode: ElicitationMode::Form,
            url: None,
            elicitation_id: None,
            property_order: property_names(requested_schema.as_ref()),
            requested_schema,
            title: None,
            display_name: None,
            description: None,
            raw: Map::new(),
            request_id: None,
            cancellation: CancellationToken::new(),
        }
    }

    /// The same request, withdrawn when `token` fires (an in-process tool's question is
    /// withdrawn when its call is cancelled).
    pub(crate) fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// The same request, under the control request's id.
    pub(crate) fn with_request_id(mut self, request_id: &str) -> Self {
        self.request_id = Some(request_id.to_string());
        self
    }

    pub(crate) fn from_request(request: Map<String, Value>) -> Self {
        let text = |key: &str| request.get(key).and_then(Value::as_str).map(String::from);
        let requested_schema = match request.get("requested_schema") {
            Some(Value::Object(schema)) => Some(schema.clone()),
            _ => None,
        };
        let property_order = match request.get("property_order") {
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
            _ => property_names(requested_schema.as_ref()),
        };
        Self {
            server_name: text("mcp_server_name").unwrap_or_default(),
            message: text("message").unwrap_or_default(),
            mode: match request.get("mode").and_then(Value::as_str) {
                Some("url") => ElicitationMode::Url,
                _ => ElicitationMode::Form,
            },
            url: text("url"),
            elicitation_id: text("elicitation_id"),
            requested_schema,
            property_order,
            title: text("title"),
            display_name: text("display_name"),
            description: text("description"),
            raw: request,
            request_id: None,
            cancellation: CancellationToken::new(),
        }
    }

    /// Fires when the CLI withdraws the question (`control_cancel_request`) or the session ends;
    /// no answer is sent then.
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation
    }
}

fn property_names(schema: Option<&Map<String, Value>>) -> Vec<String> {
    match schema.and_then(|schema| schema.get("properties")) {
        Some(Value::Object(properties)) => properties.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// The host's answer to an [`ElicitationRequest`]: accepted with content that fits the
/// requested schema, declined, or cancelled (the question dismissed).
///
/// ```
/// use claude_tools::elicitation::{ElicitationAnswer, ElicitationRequest};
/// use serde_json::json;
///
/// let request = ElicitationRequest::form(
///     "deployer",
///     "Deploy to production?",
///     json!({"type": "object", "properties": {"approve": {"type": "boolean"}}, "required": ["approve"]}),
/// );
/// assert!(ElicitationAnswer::accept(&request, json!({"approve": true})).is_ok());
/// let wrong = ElicitationAnswer::accept(&request, json!({"approve": "yes"})).unwrap_err();
/// assert_eq!(wrong.to_string(), "`approve` must be a boolean, not a string");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationAnswer(Answer);

#[derive(Debug, Clone, PartialEq)]
enum Answer {
    Accept(Option<Map<String, Value>>),
    Decline,
    Cancel,
    Later,
}

impl ElicitationAnswer {
    /// Accepts with `content`, after checking it against the request's schema: an object whose
    /// fields are the schema's properties, each of its type (and in its `enum`, lengths and
    /// bounds), every required one present. A URL question is accepted with no content (any
    /// `content` given is refused).
    pub fn accept(
        request: &ElicitationRequest,
        content: impl Serialize,
    ) -> Result<Self, ElicitationError> {
        let content = serde_json::to_value(content)
            .map_err(|error| ElicitationError::NotSerializable(error.to_string()))?;
        if request.mode == ElicitationMode::Url {
            return match content {
                Value::Null => Ok(Self(Answer::Accept(None))),
                _ => Err(ElicitationError::ContentForUrl),
            };
        }
        let Value::Object(content) = content else {
            return Err(ElicitationError::NotAnObject);
        };
        if let Some(schema) = &request.requested_schema {
            check(schema, &content)?;
        }
        Ok(Self(Answer::Accept(Some(content))))
    }

    /// Declines: the user will not answer.
    pub fn decline() -> Self {
        Self(Answer::Decline)
    }

    /// Cancels: the question was dismissed without a choice.
    pub fn cancel() -> Self {
        Self(Answer::Cancel)
    }

    /// No answer now: the host answers later, by the request's
    /// [`request_id`](ElicitationRequest::request_id), through
    /// [`Controls::answer_elicitation`](crate::control::Controls::answer_elicitation)
    /// (TypeScript's `null` result). A question with no request id (one of an in-process
    /// server's tools) cannot wait: for it this is [`cancel`](Self::cancel).
    pub fn later() -> Self {
        Self(Answer::Later)
    }

    /// Whether this is [`later`](Self::later).
    pub fn is_later(&self) -> bool {
        self.0 == Answer::Later
    }

    /// The accepted content, for an accepted form.
    pub fn content(&self) -> Option<&Map<String, Value>> {
        match &self.0 {
            Answer::Accept(content) => content.as_ref(),
            _ => None,
        }
    }

    /// `accept`, `decline` or `cancel`: the answer's MCP `action` ([`later`](Self::later),
    /// where it cannot wait, is `cancel`).
    pub fn action(&self) -> &'static str {
        match self.0 {
            Answer::Accept(_) => "accept",
            Answer::Decline => "decline",
            Answer::Cancel | Answer::Later => "cancel",
        }
    }
}

/// `{"action": …}`, with `content` for an accepted form.
impl Serialize for ElicitationAnswer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut answer = serializer.serialize_map(None)?;
        answer.serialize_entry("action", self.action())?;
        if let Some(content) = self.content() {
            answer.serialize_entry("content", content)?;
        }
        answer.end()
    }
}

/// Why content does not fit the requested schema ([`ElicitationAnswer::accept`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ElicitationError {
    /// The content is not a JSON object.
    #[error("the content must be a JSON object of the requested fields")]
    NotAnObject,
    /// The content could not be turned into JSON.
    #[error("the content could not be serialised: {0}")]
    NotSerializable(String),
    /// A URL question is accepted without content.
    #[error("a URL elicitation is accepted without content")]
    ContentForUrl,
    /// A field the schema does not have.
    #[error("`{0}` is not a field of the requested schema")]
    UnknownField(String),
    /// A required field is missing.
    #[error("`{0}` is required")]
    Missing(String),
    /// A field of another type than the schema's.
    #[error("`{field}` must be {expected}, not {found}")]
    WrongType {
        /// The field.
        field: String,
        /// What the schema asks for (`a string`, `an integer`…).
        expected: &'static str,
        /// What the content has.
        found: &'static str,
    },
    /// A value outside the field's `enum`, length or bounds.
    #[error("`{field}` {why}")]
    OutOfRange {
        /// The field.
        field: String,
        /// What is wrong with it.
        why: String,
    },
}

/// Checks `content` against an elicitation schema: flat properties of primitive types.
fn check(
    schema: &Map<String, Value>,
    content: &Map<String, Value>,
) -> Result<(), ElicitationError> {
    let empty = Map::new();
    let properties = match schema.get("properties") {
        Some(Value::Object(properties)) => properties,
        _ => &empty,
    };
    for (field, value) in content {
        let Some(Value::Object(property)) = properties.get(field) else {
            return Err(ElicitationError::UnknownField(field.clone()));
        };
        check_field(field, property, value)?;
    }
    if let Some(Value::Array(required)) = schema.get("required") {
        for field in required.iter().filter_map(Value::as_str) {
            if !content.contains_key(field) {
                return Err(ElicitationError::Missing(field.to_string()));
            }
        }
    }
    Ok(())
}

fn check_field(
    field: &str,
    property: &Map<String, Value>,
    value: &Value,
) -> Result<(), ElicitationError> {
    let out_of_range = |why: String| ElicitationError::OutOfRange {
        field: field.to_string(),
        why,
    };
    let wrong = |expected| ElicitationError::WrongType {
        field: field.to_string(),
        expected,
        found: kind(value),
    };
    match property.get("type").and_then(Value::as_str) {
        Some("string") => {
            let Some(text) = value.as_str() else {
                return Err(wrong("a string"));
            };
            let length = text.chars().count() as u64;
            if let Some(min) = property.get("minLength").and_then(Value::as_u64)
                && length < min
            {
                return Err(out_of_range(format!(
                    "must be at least {min} characters long"
                )));
            }
            if let Some(max) = property.get("maxLength").and_then(Value::as_u64)
                && length > max
            {
                return Err(out_of_range(format!(
                    "must be at most {max} characters long"
                )));
            }
        }
        Some("boolean") if !value.is_boolean() => return Err(wrong("a boolean")),
        Some("integer") if !(value.is_i64() || value.is_u64()) => {
            return Err(wrong("an integer"));
        }
        Some("number") if !value.is_number() => return Err(wrong("a number")),
        _ => {}
    }
    if let Some(number) = value.as_f64() {
        if let Some(min) = property.get("minimum").and_then(Value::as_f64)
            && number < min
        {
            return Err(out_of_range(format!("must be at least {min}")));
        }
        if let Some(max) = property.get("maximum").and_then(Value::as_f64)
            && number > max
        {
            return Err(out_of_range(format!("must be at most {max}")));
        }
    }
    // `enum`, or `oneOf` of `{const, title}` (MCP's titled enums).
    let allowed: Option<Vec<&Value>> = match (property.get("enum"), property.get("oneOf")) {
        (Some(Value::Array(values)), _) => Some(values.iter().collect()),
        (_, Some(Value::Array(options))) => Some(
            options
                .iter()
                .filter_map(|option| option.get("const"))
                .collect(),
        ),
        _ => None,
    };
    if let Some(allowed) = allowed
        && !allowed.contains(&value)
    {
        let listed: Vec<String> = allowed.iter().map(|value| value.to_string()).collect();
        return Err(out_of_range(format!(
            "must be one of {}",
            listed.join(", ")
        )));
    }
    Ok(())
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

type ElicitationFuture = Pin<Box<dyn Future<Output = ElicitationAnswer> + Send>>;

/// The host's elicitation callback ([`Options::on_elicitation`](crate::options::Options::on_elicitation)).
#[derive(Clone)]
pub struct OnElicitation(Arc<dyn Fn(ElicitationRequest) -> ElicitationFuture + Send + Sync>);

impl OnElicitation {
    pub(crate) fn new<F, Fut>(callback: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ElicitationAnswer> + Send + 'static,
    {
        OnElicitation(Arc::new(move |request| Box::pin(callback(request))))
    }

    pub(crate) fn call(&self, request: ElicitationRequest) -> ElicitationFuture {
        (self.0)(request)
    }
}

impl std::fmt::Debug for OnElicitation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnElicitation(..)")
    }
}

impl crate::options::Options {
    /// Answers the questions MCP servers ask the user (elicitation) with `callback`; without
    /// one they are declined. The callback gets the question and its schema and answers with
    /// [`ElicitationAnswer::accept`] (checked against the schema), [`decline`](ElicitationAnswer::decline)
    /// or [`cancel`](ElicitationAnswer::cancel).
    ///
    /// ```
    /// use claude_tools::elicitation::ElicitationAnswer;
    /// use claude_tools::options::Options;
    /// use serde_json::json;
    ///
    /// let options = Options::new().on_elicitation(|request| async move {
    ///     // Ask a person here; this host approves deployments of its own service only.
    ///     let approve = request.message.contains("billing-api");
    ///     ElicitationAnswer::accept(&request, json!({"approve": approve}))
    ///         .unwrap_or_else(|_| ElicitationAnswer::decline())
    /// });
    /// # let _ = options;
    /// ```
    pub fn on_elicitation<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(ElicitationRequest) -> Fut + Send + Sync + 'static,
        Fut: crate::callback::CallbackFuture<ElicitationAnswer> + Send + 'static,
    {
        self.on_elicitation = Some(OnElicitation::new(callback));
        self
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn request() -> ElicitationRequest {
        ElicitationRequest::form(
            "deployer",
            "Deploy?",
            json!({"type": "object", "properties": {
                "approve": {"type": "boolean"},
                "replicas": {"type": "integer", "minimum": 1, "maximum": 5},
                "note": {"type": "string", "maxLength": 10},
                "region": {"type": "string", "enum": ["eu", "us"]},
                "tier": {"type": "string", "oneOf": [{"const": "gold", "title": "Gold"}]},
                "ratio": {"type": "number"}
            }, "required": ["approve"]}),
        )
    }

    #[test]
    fn content_that_fits_is_accepted_and_written_as_mcp_has_it() {
        let answer = ElicitationAnswer::accept(
            &request(),
            json!({"approve": true, "replicas": 3, "note": "ok", "region": "eu", "tier": "gold", "ratio": 0.5}),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&answer).unwrap(),
            json!({"action": "accept", "content": {"approve": true, "replicas": 3, "note": "ok",
                "region": "eu", "tier": "gold", "ratio": 0.5}})
        );
        assert_eq!(
            serde_json::to_value(ElicitationAnswer::decline()).unwrap(),
            json!({"action": "decline"})
        );
        assert_eq!(
            serde_json::to_value(ElicitationAnswer::cancel()).unwrap(),
            json!({"action": "cancel"})
        );
    }

    #[test]
    fn content_that_does_not_fit_is_refused_with_the_field_named() {
        let refused = |content: Value| {
            ElicitationAnswer::accept(&request(), content)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(refused(json!({})), "`approve` is required");
        assert_eq!(
            refused(json!({"approve": 1})),
            "`approve` must be a boolean, not an integer"
        );
        assert_eq!(
            refused(json!({"approve": true, "replicas": 2.5})),
            "`replicas` must be an integer, not a number"
        );
        assert_eq!(
            refused(json!({"approve": true, "replicas": 9})),
            "`replicas` must be at most 5"
        );
        assert_eq!(
            refused(json!({"approve": true, "note": "much too long"})),
            "`note` must be at most 10 characters long"
        );
        assert_eq!(
            refused(json!({"approve": true, "region": "ap"})),
            "`region` must be one of \"eu\", \"us\""
        );
        assert_eq!(
            refused(json!({"approve": true, "tier": "silver"})),
            "`tier` must be one of \"gold\""
        );
        assert_eq!(
            refused(json!({"approve": true, "extra": 1})),
            "`extra` is not a field of the requested schema"
        );
        assert_eq!(
            refused(json!(["approve"])),
            "the content must be a JSON object of the requested fields"
        );
    }

    #[test]
    fn a_request_reads_the_fields_the_cli_sends() {
        let Value::Object(fields) = json!({"subtype": "elicitation", "mcp_server_name": "deployer",
            "message": "Sign in", "mode": "url", "url": "https://example.com/login",
            "elicitation_id": "e-1", "title": "Deploy", "display_name": "Deployer",
            "description": "Signs you in"})
        else {
            unreachable!()
        };
        let request = ElicitationRequest::from_request(fields);
        assert_eq!(request.server_name, "deployer");
        assert_eq!(request.mode, ElicitationMode::Url);
        assert_eq!(request.url.as_deref(), Some("https://example.com/login"));
        assert_eq!(request.elicitation_id.as_deref(), Some("e-1"));
        assert_eq!(request.title.as_deref(), Some("Deploy"));
        // A URL question is accepted without content.
        assert_eq!(
            serde_json::to_value(ElicitationAnswer::accept(&request, ()).unwrap()).unwrap(),
            json!({"action": "accept"})
        );
        assert_eq!(
            ElicitationAnswer::accept(&request, json!({"x": 1})),
            Err(ElicitationError::ContentForUrl)
        );
    }
}
