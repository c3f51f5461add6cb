//! Elicitation: a form for the user, generated from a Rust type, and the typed answer.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::AskError;
use crate::jsonrpc::RawParams;
use crate::schema::{InputSchemaBuilder, doc_description, raw_properties, short_type_name};

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

/// The keywords MCP (2025-11-25) allows in a form field, by type; any other is left out.
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
/// The keywords of a select (a single-select's `oneOf`, a multi-select's `items`, are built
/// apart).
const SINGLE_SELECT_KEYWORDS: &[&str] = &["title", "description", "default"];
const MULTI_SELECT_KEYWORDS: &[&str] = &["title", "description", "minItems", "maxItems", "default"];
/// The string `format`s a form may carry; another (`uuid`, say) is left out, the answer being
/// checked against `T` anyway.
const FORMATS: &[&str] = &["email", "uri", "date", "date-time"];

/// A type an elicitation asks for ([`ToolContext::elicit`](crate::tool::ToolContext::elicit)):
/// read from the client's answer (`Deserialize`) and described as the form (`JsonSchema`), which
/// must be a flat struct of strings, numbers, booleans and unit enums (see
/// [`elicitation_schema`]). Every `Deserialize + JsonSchema` type is one; its name is what the
/// compiler says of a type that is not.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be asked for in an elicitation",
    label = "not `Deserialize + JsonSchema`",
    note = "an elicitation's form is generated from the type and the answer read into it: add \
            #[derive(Deserialize, JsonSchema)] (both in claude_tools::prelude) to a flat struct of \
            strings, numbers, booleans and unit enums, e.g. `struct Confirm {{ confirm: bool }}`"
)]
pub trait ElicitForm: DeserializeOwned + JsonSchema {}

/// The future of one elicitation ([`ToolContext::elicit`](crate::tool::ToolContext::elicit)):
/// the user's answer, or why there is none.
pub type ElicitFuture<'a, T> = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<Elicitation<T>, AskError>> + Send + 'a>,
>;

impl<T: DeserializeOwned + JsonSchema> ElicitForm for T {}

/// The `requestedSchema` of an elicitation for `T`: what MCP (2025-11-25) allows a form to
/// be, a flat object whose properties are strings (with an optional `format` among `email`,
/// `uri`, `date`, `date-time`), numbers or integers (with `minimum`/`maximum`), booleans,
/// single-selects and multi-selects (SEP-1330), each with its `title`, `description` and
/// `default`.
///
/// `T` is a struct deriving `Deserialize + JsonSchema` whose fields are such values (an
/// `Option` field is not required):
///
/// | field | form field |
/// |---|---|
/// | a unit enum whose variants have no doc comment | an untitled single-select, `{"type": "string", "enum": [...]}` |
/// | a unit enum with a doc comment (or `#[schemars(title = "...")]`) on a variant | a titled single-select, `{"type": "string", "oneOf": [{"const", "title"}, ...]}`: each option titled by its variant's `title`, else the first paragraph of its doc, else its value |
/// | `Vec<E>` of such an enum | an untitled multi-select, `{"type": "array", "items": {"type": "string", "enum": [...]}}` |
/// | `Vec<E>` of an enum with titled variants | a titled multi-select, `{"type": "array", "items": {"anyOf": [{"const", "title"}, ...]}}` |
///
/// A multi-select carries `minItems`/`maxItems` from `#[schemars(length(min = .., max = ..))]`,
/// and every field its `default` (`#[serde(default = "...")]`). Options are listed in the order
/// the variants are declared; the user's choice is read back as the enum (or `Vec` of it).
///
/// Any other `T` (a nested struct, a list of anything but a unit enum, a map, an enum with
/// data, a non-struct) is an [`AskError::Schema`] that names the field and says what to do.
/// Keywords the form cannot carry (`pattern`, a `uuid` format) are left out: the answer is read
/// as a `T`, which checks them anyway.
///
/// The check runs when the tool asks, before anything is sent, and earlier where the type is
/// known: `#[tool]` records the `T` of every `elicit::<T>()` in its body
/// ([`ToolDefBuilder::elicits`](crate::tool::ToolDefBuilder::elicits)) so that building the
/// server runs it ([`ServerBuildError::ElicitationForm`](crate::tool::ServerBuildError)), and
/// refuses at compile time a `T` that is syntactically not a struct (`String`, `Vec<..>`,
/// `Option<..>`, a map, a tuple).
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
/// enum Size {
///     /// Small (250 ml)
///     Small,
///     /// Large (500 ml)
///     Large,
/// }
///
/// #[derive(Deserialize, JsonSchema)]
/// #[serde(rename_all = "lowercase")]
/// enum Topping { Cream, Cinnamon, Honey }
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Order {
///     size: Size,
///     /// Pick up to two
///     #[schemars(length(max = 2))]
///     toppings: Vec<Topping>,
/// }
///
/// assert_eq!(
///     serde_json::Value::Object(elicitation_schema::<Order>().unwrap()),
///     json!({
///         "type": "object",
///         "properties": {
///             "size": {"type": "string", "oneOf": [
///                 {"const": "Small", "title": "Small (250 ml)"},
///                 {"const": "Large", "title": "Large (500 ml)"}
///             ]},
///             "toppings": {
///                 "type": "array",
///                 "description": "Pick up to two",
///                 "maxItems": 2,
///                 "items": {"type": "string", "enum": ["cream", "cinnamon", "honey"]}
///             }
///         },
///         "required": ["size", "toppings"]
///     })
/// );
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Nested { inner: Confirm }
/// let error = elicitation_schema::<Nested>().unwrap_err().to_string();
/// assert!(error.contains("`inner`"), "{error}");
/// ```
pub fn elicitation_schema<T: ElicitForm>() -> Result<Map<String, Value>, AskError> {
    let type_name = short_type_name::<T>();
    // A map's keys are the user's to choose, a form's fields are fixed: the builder, which
    // keeps only the named properties, would make a map an empty form.
    let root = Value::from(schemars::SchemaGenerator::default().into_root_schema_for::<T>());
    if root
        .get("additionalProperties")
        .is_some_and(|extra| *extra != Value::Bool(false))
    {
        return Err(AskError::Schema(format!(
            "`{type_name}` cannot be an elicitation form: it is a map (or flattens one), whose \
             keys a form cannot list; ask for a flat struct with one field per value"
        )));
    }
    let mut builder = InputSchemaBuilder::new();
    builder.flatten::<T>().variant_order_of::<T>();
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
    // The builder folds a unit enum with documented variants into one `enum`; the variants'
    // titles and docs are read from schemars' own schema.
    let (raw, orders) = raw_properties::<T>();
    let mut form = Map::new();
    for (name, field) in properties {
        // An untitled single-select is a string `enum`, which `form_field` keeps with what
        // goes with it (a legacy `enumNames` given with `#[schemars(extend(..))]`).
        let field = match raw.get(name).and_then(|raw| select(raw, &orders)) {
            Some(select) if select.multiple || select.titled() => {
                select_field(field, &raw[name], select)
            }
            _ => form_field(&type_name, name, field)?,
        };
        form.insert(name.clone(), field);
    }
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    out.insert("properties".into(), Value::Object(form));
    if let Some(required) = schema.get("required") {
        out.insert("required".into(), required.clone());
    }
    Ok(out)
}

/// [`elicitation_schema`] built once per type: the form a question sends, from the second
/// question of a type on a copy of the first one's.
///
/// A type's form cannot change while the process runs (it is made from the type's derived
/// schema alone), and building it (schemars, then the rewriting for MCP) costs far more than
/// copying it: a 2026-07-28 question is asked again on every retry of its call, so every
/// round trip would build it twice. A type that cannot be a form keeps its error, also
/// copied. The cache holds one entry per type ever asked for, so it stays small.
pub(crate) fn cached_elicitation_schema<T: DeserializeOwned + JsonSchema + 'static>()
-> Result<Map<String, Value>, AskError> {
    type Forms = HashMap<TypeId, Result<Arc<Map<String, Value>>, AskError>>;
    static FORMS: OnceLock<RwLock<Forms>> = OnceLock::new();
    let forms = FORMS.get_or_init(RwLock::default);
    let key = TypeId::of::<T>();
    // A poisoned lock only means a panic elsewhere while it was held; the map is still whole
    // (entries are inserted complete).
    let found = forms
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&key)
        .cloned();
    let form = match found {
        Some(form) => form,
        None => {
            let built = elicitation_schema::<T>().map(Arc::new);
            forms
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .entry(key)
                .or_insert(built)
                .clone()
        }
    };
    form.map(|form| Map::clone(&form))
}

/// One option of a select: its value, and its title when the variant has one.
struct Choice {
    value: String,
    title: Option<String>,
}

/// A field that is a select: one of a unit enum's values, or several.
struct Select {
    multiple: bool,
    choices: Vec<Choice>,
}

impl Select {
    fn titled(&self) -> bool {
        self.choices.iter().any(|choice| choice.title.is_some())
    }

    /// `{"const": value, "title": title}` for each choice, the value standing for a missing title.
    fn titled_choices(&self) -> Value {
        self.choices
            .iter()
            .map(|choice| {
                let title = choice.title.as_deref().unwrap_or(&choice.value);
                serde_json::json!({"const": choice.value, "title": title})
            })
            .collect()
    }

    fn values(&self) -> Value {
        self.choices
            .iter()
            .map(|choice| Value::String(choice.value.clone()))
            .collect()
    }
}

/// The select a field's schemars schema (`raw`) makes, if it is one: a unit enum of strings, or
/// an array of one (either maybe `Option`al), its choices in declaration order when one of
/// `orders` names them all.
fn select(raw: &Value, orders: &[&'static [&'static str]]) -> Option<Select> {
    let raw = without_null(raw.as_object()?);
    let is_array = match raw.get("type") {
        Some(Value::String(ty)) => ty == "array",
        Some(Value::Array(types)) => types.iter().any(|ty| ty == "array"),
        _ => false,
    };
    let (multiple, enum_schema) = if is_array {
        (true, without_null(raw.get("items")?.as_object()?))
    } else {
        (false, raw)
    };
    let mut choices = choices(enum_schema)?;
    let order = orders
        .iter()
        .filter(|order| {
            choices
                .iter()
                .all(|choice| order.contains(&choice.value.as_str()))
        })
        .min_by_key(|order| order.len());
    if let Some(order) = order {
        choices.sort_by_key(|choice| order.iter().position(|v| *v == choice.value));
    }
    Some(Select { multiple, choices })
}

/// `schema` without the `null` of an `Option`: the inner schema of `anyOf: [X, {"type":
/// "null"}]`, else `schema` itself (an `enum` keeps its `null`, skipped when read).
fn without_null(schema: &Map<String, Value>) -> &Map<String, Value> {
    if let Some(Value::Array(branches)) = schema.get("anyOf")
        && let [first, second] = branches.as_slice()
    {
        let is_null = |v: &Value| v.get("type") == Some(&Value::String("null".into()));
        match (is_null(first), is_null(second)) {
            (false, true) => return first.as_object().unwrap_or(schema),
            (true, false) => return second.as_object().unwrap_or(schema),
            _ => {}
        }
    }
    schema
}

/// The choices of a unit enum of strings as schemars writes it: an `enum`, or a `oneOf` of
/// `{"const"}` branches (documented or titled variants) and `{"enum"}` groups (the others).
fn choices(schema: &Map<String, Value>) -> Option<Vec<Choice>> {
    let untitled = |values: &Value| -> Option<Vec<Choice>> {
        values
            .as_array()?
            .iter()
            .filter(|value| !value.is_null())
            .map(|value| {
                Some(Choice {
                    value: value.as_str()?.to_string(),
                    title: None,
                })
            })
            .collect()
    };
    if let Some(values) = schema.get("enum") {
        return untitled(values).filter(|choices| !choices.is_empty());
    }
    let Some(Value::Array(branches)) = schema.get("oneOf") else {
        return None;
    };
    let mut choices = Vec::new();
    for branch in branches {
        let branch = branch.as_object()?;
        if branch.get("type") == Some(&Value::String("null".into())) {
            continue;
        }
        match (branch.get("const"), branch.get("enum")) {
            (Some(Value::String(value)), None) => choices.push(Choice {
                value: value.clone(),
                title: variant_title(branch),
            }),
            (None, Some(values)) => choices.extend(untitled(values)?),
            _ => return None,
        }
    }
    (!choices.is_empty()).then_some(choices)
}

/// A variant's title: its `#[schemars(title)]`, else the first paragraph of its doc comment.
fn variant_title(branch: &Map<String, Value>) -> Option<String> {
    if let Some(Value::String(title)) = branch.get("title") {
        return Some(title.clone());
    }
    let Some(Value::String(doc)) = branch.get("description") else {
        return None;
    };
    let doc = doc_description(doc);
    let first = doc.split("\n\n").next().unwrap_or_default();
    let title = first.split_whitespace().collect::<Vec<_>>().join(" ");
    (!title.is_empty()).then_some(title)
}

/// A select's form field: the field's own `title`, `default` (and a multi-select's
/// `minItems`/`maxItems`) from the built schema `field`, its `description` from schemars'
/// schema `raw` (the built one has the variant docs appended, which the options' titles carry
/// here), and its choices in the shape SEP-1330 gives them.
fn select_field(field: &Value, raw: &Value, select: Select) -> Value {
    let keywords = if select.multiple {
        MULTI_SELECT_KEYWORDS
    } else {
        SINGLE_SELECT_KEYWORDS
    };
    let mut out = Map::new();
    out.insert(
        "type".into(),
        Value::String(if select.multiple { "array" } else { "string" }.into()),
    );
    if let Some(Value::String(doc)) = raw.get("description") {
        let doc = doc_description(doc);
        if !doc.is_empty() {
            out.insert("description".into(), Value::String(doc));
        }
    }
    if let Value::Object(field) = field {
        for (key, value) in field {
            if keywords.contains(&key.as_str()) && key != "description" && !value.is_null() {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    let choices = match (select.multiple, select.titled()) {
        (false, false) => ("enum", select.values()),
        (false, true) => ("oneOf", select.titled_choices()),
        (true, false) => (
            "items",
            serde_json::json!({"type": "string", "enum": select.values()}),
        ),
        (true, true) => (
            "items",
            serde_json::json!({"anyOf": select.titled_choices()}),
        ),
    };
    out.insert(choices.0.into(), choices.1);
    Value::Object(out)
}

/// One property of the form, restricted to what MCP allows.
fn form_field(type_name: &str, name: &str, field: &Value) -> Result<Value, AskError> {
    let refuse = |what: &str| {
        AskError::Schema(format!(
            "`{type_name}` cannot be an elicitation form: its field `{name}` is {what}, but an \
             elicitation form (MCP 2025-11-25) holds only strings, numbers, integers, booleans, \
             unit enums and lists of unit enums; ask for a flat struct of such fields (and ask \
             again for the rest)"
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
        "array" => return Err(refuse("a list of something other than a unit enum")),
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

    /// A form type whose schema counts how often schemars is asked for it.
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Counted {
        ok: bool,
    }

    static COUNTED_SCHEMAS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    impl JsonSchema for Counted {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Counted".into()
        }

        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            #[derive(JsonSchema)]
            #[allow(dead_code)]
            struct Counted {
                /// All right?
                ok: bool,
            }
            COUNTED_SCHEMAS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Counted::json_schema(generator)
        }
    }

    /// A question's form is built once per type: the second question of `Counted` asks
    /// schemars nothing and gets the same form.
    #[test]
    fn a_types_form_is_built_once() {
        use std::sync::atomic::Ordering::SeqCst;
        let first = cached_elicitation_schema::<Counted>().unwrap();
        let built = COUNTED_SCHEMAS.load(SeqCst);
        assert!(built > 0);
        let second = cached_elicitation_schema::<Counted>().unwrap();
        assert_eq!(
            COUNTED_SCHEMAS.load(SeqCst),
            built,
            "the form was built again"
        );
        assert_eq!(first, second);
        assert_eq!(
            Value::Object(first),
            Value::Object(elicitation_schema::<Counted>().unwrap())
        );
    }

    /// A type that cannot be a form keeps its error on every question.
    #[test]
    fn a_types_refusal_is_kept() {
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct Nested {
            inner: Order,
        }
        let first = cached_elicitation_schema::<Nested>().unwrap_err();
        let second = cached_elicitation_schema::<Nested>().unwrap_err();
        assert_eq!(first, second);
        assert!(first.to_string().contains("`inner`"), "{first}");
    }

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
        // What `#[tool]` refuses at compile time is refused here too: the macro's check is
        // only earlier, never stricter.
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct Flat {
            ok: bool,
        }
        assert!(elicitation_schema::<Option<Flat>>().is_err());
        assert!(elicitation_schema::<Vec<Flat>>().is_err());
        let map = elicitation_schema::<HashMap<String, String>>();
        assert!(map.is_err(), "{map:?}");
        assert!(elicitation_schema::<(bool, u8)>().is_err());
        assert!(elicitation_schema::<serde_json::Value>().is_err());
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Untitled {
        Option1,
        Option2,
        Option3,
    }

    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum Titled {
        /// First Option
        ///
        /// Only the first paragraph titles the option.
        Value1,
        #[schemars(title = "Second Option")]
        Value2,
        /// Third Option
        Value3,
    }

    // Only some variants documented: schemars groups the others first, the form keeps the
    // declaration order and titles the undocumented ones by their value.
    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(rename_all = "lowercase")]
    enum PartlyTitled {
        /// Alpha
        A,
        B,
        /// Gamma
        C,
    }

    fn two_untitled() -> Vec<Untitled> {
        vec![Untitled::Option1, Untitled::Option2]
    }

    /// The fields of the conformance suite's `elicitation-sep1330-enums` scenario (all but the
    /// deprecated `enumNames` form, which no Rust type implies).
    #[derive(Debug, PartialEq, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct Sep1330 {
        untitled_single: Untitled,
        titled_single: Titled,
        untitled_multi: Vec<Untitled>,
        /// Choose any
        #[schemars(length(min = 1, max = 2))]
        titled_multi: Vec<Titled>,
        maybe_titled: Option<Titled>,
        maybe_multi: Option<Vec<Untitled>>,
        #[serde(default = "two_untitled")]
        defaulted_multi: Vec<Untitled>,
        /// Which letter
        partly: PartlyTitled,
    }

    #[test]
    fn enums_become_the_sep1330_selects() {
        let titled = json!([
            {"const": "value1", "title": "First Option"},
            {"const": "value2", "title": "Second Option"},
            {"const": "value3", "title": "Third Option"}
        ]);
        let untitled = json!({"type": "string", "enum": ["option1", "option2", "option3"]});
        assert_eq!(
            Value::Object(elicitation_schema::<Sep1330>().unwrap()),
            json!({
                "type": "object",
                "properties": {
                    "untitledSingle": untitled,
                    "titledSingle": {"type": "string", "oneOf": titled},
                    "untitledMulti": {"type": "array", "items": untitled},
                    "titledMulti": {
                        "type": "array",
                        "description": "Choose any",
                        "minItems": 1,
                        "maxItems": 2,
                        "items": {"anyOf": titled}
                    },
                    "maybeTitled": {"type": "string", "oneOf": titled},
                    "maybeMulti": {"type": "array", "items": untitled},
                    "defaultedMulti": {"type": "array", "items": untitled, "default": ["option1", "option2"]},
                    "partly": {"type": "string", "description": "Which letter", "oneOf": [
                        {"const": "a", "title": "Alpha"},
                        {"const": "b", "title": "b"},
                        {"const": "c", "title": "Gamma"}
                    ]}
                },
                "required": ["untitledSingle", "titledSingle", "untitledMulti", "titledMulti", "partly"]
            })
        );
    }

    /// The deprecated titled form, `enumNames`, is not implied by any Rust type, but a schemars
    /// `extend` that writes it is kept.
    #[test]
    fn a_legacy_enum_names_extension_is_kept() {
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        #[serde(rename_all = "lowercase")]
        #[schemars(extend("enumNames" = ["Option One", "Option Two"]))]
        enum Legacy {
            Opt1,
            Opt2,
        }
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        #[serde(rename_all = "camelCase")]
        struct Form {
            legacy_enum: Legacy,
        }
        assert_eq!(
            Value::Object(elicitation_schema::<Form>().unwrap())["properties"]["legacyEnum"],
            json!({"type": "string", "enum": ["opt1", "opt2"], "enumNames": ["Option One", "Option Two"]})
        );
    }

    #[test]
    fn selections_are_read_back_as_the_enums() {
        let accepted = read_answer::<Sep1330>(&raw(json!({"action": "accept", "content": {
            "untitledSingle": "option1",
            "titledSingle": "value1",
            "untitledMulti": ["option1", "option2"],
            "titledMulti": ["value1", "value2"],
            "partly": "b"
        }})));
        assert_eq!(
            accepted.unwrap(),
            Elicitation::Accepted(Sep1330 {
                untitled_single: Untitled::Option1,
                titled_single: Titled::Value1,
                untitled_multi: vec![Untitled::Option1, Untitled::Option2],
                titled_multi: vec![Titled::Value1, Titled::Value2],
                maybe_titled: None,
                maybe_multi: None,
                defaulted_multi: two_untitled(),
                partly: PartlyTitled::B,
            })
        );
        let wrong = read_answer::<Sep1330>(&raw(json!({"action": "accept", "content": {
            "untitledSingle": "option1",
            "titledSingle": "value1",
            "untitledMulti": ["option9"],
            "titledMulti": [],
            "partly": "a"
        }})))
        .unwrap_err()
        .to_string();
        assert!(wrong.contains("untitledMulti"), "{wrong}");
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
