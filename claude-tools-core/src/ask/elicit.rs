//! Elicitation: a form for the user, generated from a Rust type, and the typed answer.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::AskError;
use crate::jsonrpc::RawParams;
use crate::schema::InputSchemaBuilder;
use crate::schema::short_type_name;

/// The params of `elicitation/create`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ElicitParams {
    /// What the user is asked, in words.
    pub message: String,
    /// The form: a flat object schema ([`elicitation_schema`]).
    pub requested_schema: Map<String, Value>,
}

impl ElicitParams {
    /// The params asking `message` with the form `requested_schema`.
    pub fn new(message: impl Into<String>, requested_schema: Map<String, Value>) -> Self {
        Self {
            message: message.into(),
            requested_schema,
        }
    }
}

/// The user's answer to an elicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Elicitation<T> {
    /// The user filled the form in and sent it: its content, read as a `T`.
    Accepted(T),
    /// The user said no.
    Declined,
    /// The user dismissed the form without choosing.
    Cancelled,
}

impl<T> Elicitation<T> {
    /// The accepted value, if the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accepted(value) => Some(value),
            Elicitation::Declined | Elicitation::Cancelled => None,
        }
    }
}

/// The keywords MCP (2025-06-18) allows in a form field, by type; any other is left out.
const STRING_KEYWORDS: &[&str] = &[
    "type",
    "title",
    "description",
    "minLength",
    "maxLength",
    "format",
    "enum",
    "enumNames",
    "default",
];
const NUMBER_KEYWORDS: &[&str] = &[
    "type",
    "title",
    "description",
    "minimum",
    "maximum",
    "default",
];
const BOOLEAN_KEYWORDS: &[&str] = &["type", "title", "description", "default"];
/// The string `format`s a form may carry; another (`uuid`, say) is left out, the answer being
/// checked against `T` anyway.
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// The `requestedSchema` of an elicitation for `T`: what MCP (2025-06-18) allows a form to
/// be, a flat object whose properties are strings (with an optional `format` among `email`,
/// `uri`, `date`, `date-time`, or an `enum` of strings), numbers or integers (with
/// `minimum`/`maximum`) and booleans, each with its `title`, `description` and `default`.
///
/// `T` is a struct deriving `Deserialize + JsonSchema` whose fields are such values (a unit
/// enum is a string `enum`; an `Option` field is not required). Any other `T` (a nested struct,
/// a list, a map, an enum with data, a non-struct) is an [`AskError::Schema`] that names the
/// field and says what to do. Keywords the form cannot carry (`pattern`, a `uuid` format) are
/// left out: the answer is read as a `T`, which checks them anyway.
///
/// The check runs when the tool asks (the type is a parameter of the call, not of the server),
/// before anything is sent.
///
/// ```
/// use claude_tools::prelude::*;
/// use claude_tools::mcp::elicitation_schema;
/// use serde_json::json;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Confirm {
///     /// Go ahead?
///     approve: bool,
///     /// Why, if you like
///     note: Option<String>,
/// }
///
/// assert_eq!(
///     serde_json::Value::Object(elicitation_schema::<Confirm>().unwrap()),
///     json!({
///         "type": "object",
///         "properties": {
///             "approve": {"type": "boolean", "description": "Go ahead?"},
///             "note": {"type": "string", "description": "Why, if you like"}
///         },
///         "required": ["approve"]
///     })
/// );
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Nested { inner: Confirm }
/// let error = elicitation_schema::<Nested>().unwrap_err().to_string();
/// assert!(error.contains("`inner`"), "{error}");
/// ```
pub fn elicitation_schema<T: JsonSchema>() -> Result<Map<String, Value>, AskError> {
    let type_name = short_type_name::<T>();
    let mut builder = InputSchemaBuilder::new();
    builder.flatten::<T>();
    let schema = builder.finish().map_err(|error| {
        AskError::Schema(format!(
            "`{type_name}` cannot be an elicitation form: {}",
            error.message()
        ))
    })?;
    let properties = match schema.get("properties") {
        Some(Value::Object(properties)) => properties,
        _ => &Map::new(),
    };
    let mut form = Map::new();
    for (name, field) in properties {
        form.insert(name.clone(), form_field(&type_name, name, field)?);
    }
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    out.insert("properties".into(), Value::Object(form));
    if let Some(required) = schema.get("required") {
        out.insert("required".into(), required.clone());
    }
    Ok(out)
}

/// One property of the form, restricted to what MCP allows.
fn form_field(type_name: &str, name: &str, field: &Value) -> Result<Value, AskError> {
    let refuse = |what: &str| {
        AskError::Schema(format!(
            "`{type_name}` cannot be an elicitation form: its field `{name}` is {what}, but an \
             elicitation form (MCP 2025-06-18) holds only strings, numbers, integers, booleans \
             and string enums; ask for a flat struct of such fields (and ask again for the \
             rest)"
        ))
    };
    let Value::Object(field) = field else {
        return Err(refuse("of any type"));
    };
    // An `Option` field is `["<type>", "null"]`: a form field is optional by not being required.
    let ty = match field.get("type") {
        Some(Value::String(ty)) => ty.as_str(),
        Some(Value::Array(types)) => {
            let mut named = types.iter().filter(|ty| ty.as_str() != Some("null"));
            match (named.next().and_then(Value::as_str), named.next()) {
                (Some(ty), None) => ty,
                _ => return Err(refuse("of several types")),
            }
        }
        _ => return Err(refuse("an enum with data, or of any type")),
    };
    let allowed = match ty {
        "string" => STRING_KEYWORDS,
        "number" | "integer" => NUMBER_KEYWORDS,
        "boolean" => BOOLEAN_KEYWORDS,
        "object" => return Err(refuse("an object")),
        "array" => return Err(refuse("a list")),
        other => return Err(refuse(&format!("of type `{other}`"))),
    };
    let mut out = Map::new();
    for (key, value) in field {
        if !allowed.contains(&key.as_str()) {
            continue;
        }
        let value = match key.as_str() {
            "type" => Value::String(ty.into()),
            "format"
                if !value
                    .as_str()
                    .is_some_and(|format| FORMATS.contains(&format)) =>
            {
                continue;
            }
            "enum" => match value {
                Value::Array(values) => {
                    let values: Vec<Value> =
                        values.iter().filter(|v| !v.is_null()).cloned().collect();
                    if !values.iter().all(Value::is_string) {
                        return Err(refuse("an enum of values that are not all strings"));
                    }
                    Value::Array(values)
                }
                _ => return Err(refuse("an enum of values that are not all strings")),
            },
            "default" if value.is_null() => continue,
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    Ok(Value::Object(out))
}

/// The result of `elicitation/create`, as the client writes it.
#[derive(Deserialize)]
struct ElicitResult {
    action: Action,
    #[serde(default)]
    content: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum Action {
    Accept,
    Decline,
    Cancel,
}

/// Reads the client's answer: an accepted content must be a `T`.
pub(crate) fn read_answer<T: DeserializeOwned>(
    result: &RawParams,
) -> Result<Elicitation<T>, AskError> {
    let result: ElicitResult = result.parse().map_err(|error| {
        AskError::InvalidAnswer(format!(
            "an elicitation result is {{\"action\": \"accept\" | \"decline\" | \"cancel\", \
             \"content\"?: {{…}}}} ({error})"
        ))
    })?;
    match result.action {
        Action::Decline => Ok(Elicitation::Declined),
        Action::Cancel => Ok(Elicitation::Cancelled),
        Action::Accept => {
            let content = result.content.unwrap_or_else(|| Value::Object(Map::new()));
            serde_path_to_error::deserialize(content)
                .map(Elicitation::Accepted)
                .map_err(|error| {
                    let path = error.path().to_string();
                    let at = if path == "." {
                        String::new()
                    } else {
                        format!(" at `{path}`")
                    };
                    AskError::InvalidAnswer(format!(
                        "the accepted content is not a `{}`{at}: {}",
                        short_type_name::<T>(),
                        error.inner()
                    ))
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::Message;
    use serde_json::json;

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Size {
        Small,
        Large,
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    struct Order {
        /// How many
        #[schemars(range(min = 1, max = 9))]
        count: u8,
        size: Option<Size>,
        email: String,
        ratio: f64,
    }

    fn raw(value: Value) -> RawParams {
        let message = json!({"jsonrpc": "2.0", "method": "x", "params": value}).to_string();
        match Message::decode(message.as_bytes()) {
            Message::Notification(crate::jsonrpc::Notification::Other {
                params: Some(params),
                ..
            }) => params,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_flat_struct_is_a_form() {
        let schema = Value::Object(elicitation_schema::<Order>().unwrap());
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "count": {"type": "integer", "description": "How many", "minimum": 1, "maximum": 9},
                    "size": {"type": "string", "enum": ["Small", "Large"]},
                    "email": {"type": "string"},
                    "ratio": {"type": "number"}
                },
                "required": ["count", "email", "ratio"]
            })
        );
    }

    #[test]
    fn lists_maps_and_nested_structs_are_refused() {
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct Tags {
            tags: Vec<String>,
        }
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        enum Shape {
            Circle { radius: f64 },
            Square(f64),
        }
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct WithShape {
            shape: Shape,
        }
        let tags = elicitation_schema::<Tags>().unwrap_err().to_string();
        assert!(
            tags.contains("`Tags`") && tags.contains("`tags` is a list"),
            "{tags}"
        );
        let shape = elicitation_schema::<WithShape>().unwrap_err().to_string();
        assert!(shape.contains("`shape`"), "{shape}");
        let string = elicitation_schema::<String>().unwrap_err();
        assert!(matches!(string, AskError::Schema(_)), "{string:?}");
    }

    #[test]
    fn answers_are_read_as_the_type() {
        let accepted = read_answer::<Order>(&raw(
            json!({"action": "accept", "content": {"count": 2, "size": "Large", "email": "a@b", "ratio": 0.5}}),
        ));
        assert_eq!(
            accepted.unwrap(),
            Elicitation::Accepted(Order {
                count: 2,
                size: Some(Size::Large),
                email: "a@b".into(),
                ratio: 0.5
            })
        );
        assert_eq!(
            read_answer::<Order>(&raw(json!({"action": "decline"}))).unwrap(),
            Elicitation::Declined
        );
        assert_eq!(
            read_answer::<Order>(&raw(json!({"action": "cancel"}))).unwrap(),
            Elicitation::Cancelled
        );
        let wrong = read_answer::<Order>(&raw(
            json!({"action": "accept", "content": {"count": "two", "email": "a", "ratio": 1}}),
        ))
        .unwrap_err()
        .to_string();
        assert!(
            wrong.contains("`count`") && wrong.contains("`Order`"),
            "{wrong}"
        );
        let odd = read_answer::<Order>(&raw(json!({"action": "maybe"}))).unwrap_err();
        assert!(matches!(odd, AskError::InvalidAnswer(_)), "{odd:?}");
    }
}
