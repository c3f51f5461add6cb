//! Tool definitions: the data `tools/list` advertises.

use serde_json::{Map, Value, json};

use super::state::StateRequirement;
use crate::schema::{InputSchemaBuilder, SchemaError};

/// MCP tool annotations (hints to the client, not guarantees).
///
/// `read_only` matters beyond documentation: the Claude Code CLI runs several calls to one server
/// concurrently only when the tools are annotated `readOnlyHint: true`; otherwise it sends them
/// one after another.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// `readOnlyHint`: the tool does not modify its environment.
    pub read_only: Option<bool>,
    /// `destructiveHint`: the tool may perform destructive updates.
    pub destructive: Option<bool>,
    /// `idempotentHint`: calling it again with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// `openWorldHint`: the tool talks to an open world of external entities.
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// A tool as `tools/list` describes it: name, description, schemas, annotations and `_meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// The tool name (the model sees `mcp__{server}__{name}`).
    pub name: String,
    /// A human-readable title.
    pub title: Option<String>,
    /// What the tool does, for the model.
    pub description: Option<String>,
    /// The JSON Schema of the arguments (root `type: object`).
    pub input_schema: Map<String, Value>,
    /// The JSON Schema of `structuredContent`, for tools returning [`Json`](super::Json).
    pub output_schema: Option<Map<String, Value>>,
    /// MCP annotations.
    pub annotations: ToolAnnotations,
    /// `_meta` entries (`anthropic/maxResultSizeChars`, `anthropic/alwaysLoad`, `anthropic/searchHint`).
    pub meta: Map<String, Value>,
}

impl ToolDef {
    /// The MCP JSON of this tool, as listed by `tools/list`.
    pub fn to_json(&self) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), Value::String(self.name.clone()));
        if let Some(title) = &self.title {
            tool.insert("title".into(), Value::String(title.clone()));
        }
        if let Some(description) = &self.description {
            tool.insert("description".into(), Value::String(description.clone()));
        }
        tool.insert(
            "inputSchema".into(),
            Value::Object(self.input_schema.clone()),
        );
        if let Some(output) = &self.output_schema {
            tool.insert("outputSchema".into(), Value::Object(output.clone()));
        }
        if !self.annotations.is_empty() || self.title.is_some() {
            let mut annotations = Map::new();
            if let Some(title) = &self.title {
                annotations.insert("title".into(), json!(title));
            }
            let hints = [
                ("readOnlyHint", self.annotations.read_only),
                ("destructiveHint", self.annotations.destructive),
                ("idempotentHint", self.annotations.idempotent),
                ("openWorldHint", self.annotations.open_world),
            ];
            for (key, value) in hints {
                if let Some(value) = value {
                    annotations.insert(key.into(), Value::Bool(value));
                }
            }
            tool.insert("annotations".into(), Value::Object(annotations));
        }
        if !self.meta.is_empty() {
            tool.insert("_meta".into(), Value::Object(self.meta.clone()));
        }
        Value::Object(tool)
    }
}

/// `_meta` key: raise the CLI's limit (about 50K chars) before a result is persisted to a file.
pub const META_MAX_RESULT_SIZE_CHARS: &str = "anthropic/maxResultSizeChars";
/// `_meta` key: never defer the tool behind the CLI's ToolSearch.
pub const META_ALWAYS_LOAD: &str = "anthropic/alwaysLoad";
/// `_meta` key: a hint the CLI's ToolSearch matches against.
pub const META_SEARCH_HINT: &str = "anthropic/searchHint";

/// Builds a [`ToolDef`]; what `#[tool]` expands to, and the way to define a tool by hand.
///
/// ```
/// use claude_tools::tools::ToolDefBuilder;
///
/// let mut builder = ToolDefBuilder::new("add");
/// builder.description("Add two numbers").read_only(true);
/// builder.input().property::<i64>("a", Some("first term"), true);
/// builder.input().property::<i64>("b", None, true);
/// let def = builder.build().unwrap();
/// assert_eq!(def.input_schema["required"], serde_json::json!(["a", "b"]));
/// ```
#[derive(Debug)]
pub struct ToolDefBuilder {
    name: String,
    title: Option<String>,
    description: Option<String>,
    annotations: ToolAnnotations,
    meta: Map<String, Value>,
    input: InputSchemaBuilder,
    /// An input schema given as written, in place of `input`'s.
    written_input: Option<Value>,
    output: Option<Result<Map<String, Value>, SchemaError>>,
    required_state: Vec<StateRequirement>,
    /// `None` until [`always_load`](Self::always_load) is called: the server then applies its
    /// default (`true`, or its `#[tool_server(always_load = ...)]`).
    always_load: Option<bool>,
    deny_unknown_arguments: bool,
    task_support: crate::task::TaskSupport,
    task_start: crate::task::TaskStart,
    /// The forms the handler asks for ([`elicits`](Self::elicits)), checked when the server is
    /// built.
    elicited_forms: Vec<ElicitedForm>,
    /// A parameter of the handler can ask the client ([`ToolParam::MAY_ASK`](super::ToolParam::MAY_ASK)), or the handler
    /// takes the raw call (which can); see [`ToolDefBuilder::may_ask`].
    may_ask: bool,
}

/// A form type a tool's handler asks for: its name, and the check that it can be a form.
#[derive(Clone, Copy)]
pub(crate) struct ElicitedForm {
    /// The type, so that one asked for twice is checked once.
    type_id: std::any::TypeId,
    /// The type's name as the errors give it (`Confirm`, not its full path).
    pub(crate) name: fn() -> String,
    /// Builds the form (and keeps it, for the first question), or says why it cannot be one.
    pub(crate) check: fn() -> Result<(), crate::ask::AskError>,
}

impl std::fmt::Debug for ElicitedForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&(self.name)())
    }
}

/// [`ElicitedForm::check`] for `T`: the form built through the question's own cache, so a type
/// checked when the server is built costs nothing when the tool asks.
fn check_form<T: crate::ask::ElicitForm + 'static>() -> Result<(), crate::ask::AskError> {
    crate::ask::cached_elicitation_schema::<T>().map(drop)
}

impl ElicitedForm {
    /// The record of form type `T`.
    pub(crate) fn of<T: crate::ask::ElicitForm + 'static>() -> Self {
        Self {
            type_id: std::any::TypeId::of::<T>(),
            name: crate::schema::short_type_name::<T>,
            check: check_form::<T>,
        }
    }

    /// Adds `self` to `forms` unless a form of its type is there already.
    pub(crate) fn add_to(self, forms: &mut Vec<ElicitedForm>) {
        if !forms.iter().any(|known| known.type_id == self.type_id) {
            forms.push(self);
        }
    }

    /// Checks every form of `forms`; the first that cannot be one is `Err((its type's name, why))`.
    /// Shared by tools, prompts and resources, whose build errors differ only in what they name.
    pub(crate) fn check_all(forms: &[ElicitedForm]) -> Result<(), (String, String)> {
        for form in forms {
            (form.check)().map_err(|error| {
                let reason = match error {
                    crate::ask::AskError::Schema(reason) => reason,
                    other => other.to_string(),
                };
                ((form.name)(), reason)
            })?;
        }
        Ok(())
    }
}

impl ToolDefBuilder {
    /// Starts a tool called `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            annotations: ToolAnnotations::default(),
            meta: Map::new(),
            input: InputSchemaBuilder::new(),
            written_input: None,
            output: None,
            required_state: Vec::new(),
            always_load: None,
            deny_unknown_arguments: false,
            task_support: crate::task::TaskSupport::Never,
            task_start: crate::task::TaskStart::Immediately,
            elicited_forms: Vec::new(),
            may_ask: false,
        }
    }

    /// Says that the handler can ask the client something (elicitation, sampling, roots).
    /// A handler's [`ToolParam`](super::ToolParam)s say it themselves ([`ToolParam::MAY_ASK`](super::ToolParam::MAY_ASK)) and a handler
    /// taking the raw [`ToolCall`](super::ToolCall) is taken to; call it for a parameter of
    /// yours that reaches the client some other way. A tool that cannot ask is answered at MCP
    /// 2026-07-28 without the machinery of questions.
    pub fn may_ask(&mut self) -> &mut Self {
        self.may_ask = true;
        self
    }

    /// Whether the tool may run as a task of the tasks extension (`#[tool(task)]` is
    /// [`TaskSupport::Required`](crate::task::TaskSupport::Required), `#[tool(task =
    /// "optional")]` [`TaskSupport::Optional`](crate::task::TaskSupport::Optional)); see
    /// [`crate::task`].
    pub fn task(&mut self, support: crate::task::TaskSupport) -> &mut Self {
        self.task_support = support;
        self
    }

    /// When a call of this task tool becomes a task (`#[tool(task, task_start =
    /// "first_wait")]` is [`TaskStart::AtFirstWait`](crate::task::TaskStart::AtFirstWait));
    /// meaningless without [`task`](Self::task).
    pub fn task_start(&mut self, start: crate::task::TaskStart) -> &mut Self {
        self.task_start = start;
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Logs a warning when the tool, added at run time to server `server`, has no description:
    /// the model would know it by its name alone. A `#[tool]` fn gets a compile-time warning
    /// instead; a run-time tool's description is a run-time value, so its warning is a run-time
    /// one, when the tool is added.
    pub(crate) fn warn_if_undescribed(&self, server: &str) {
        if self.description.is_none() {
            tracing::warn!(
                server,
                tool = self.name,
                "tool `{}` of server `{server}` has no description, so the model sees only its \
                 name: set one with ToolDefBuilder::description, saying what the tool does and \
                 when to use it",
                self.name
            );
        }
    }

    /// The tool's description (what the model reads to decide when to call it).
    pub fn description(&mut self, description: impl Into<String>) -> &mut Self {
        let description = description.into();
        self.description = (!description.is_empty()).then_some(description);
        self
    }

    /// A human-readable title.
    pub fn title(&mut self, title: impl Into<String>) -> &mut Self {
        self.title = Some(title.into());
        self
    }

    /// `readOnlyHint`.
    pub fn read_only(&mut self, value: bool) -> &mut Self {
        self.annotations.read_only = Some(value);
        self
    }

    /// `destructiveHint`.
    pub fn destructive(&mut self, value: bool) -> &mut Self {
        self.annotations.destructive = Some(value);
        self
    }

    /// `idempotentHint`.
    pub fn idempotent(&mut self, value: bool) -> &mut Self {
        self.annotations.idempotent = Some(value);
        self
    }

    /// `openWorldHint`.
    pub fn open_world(&mut self, value: bool) -> &mut Self {
        self.annotations.open_world = Some(value);
        self
    }

    /// `_meta["anthropic/maxResultSizeChars"]`.
    pub fn max_result_chars(&mut self, chars: u64) -> &mut Self {
        self.meta
            .insert(META_MAX_RESULT_SIZE_CHARS.into(), Value::from(chars));
        self
    }

    /// `_meta["anthropic/alwaysLoad"]`: `true` keeps the tool out of the CLI's ToolSearch
    /// deferral so the model sees it on the first turn. `false` leaves the key out.
    ///
    /// A tool that does not call this gets its server's default when it is added to a
    /// [`ToolServer`](super::ToolServer): `true`, as for `#[tool]` fns, unless the server comes
    /// from a `#[tool_server(always_load = false)]`. [`build`](Self::build) alone, with no
    /// server, leaves the key out.
    pub fn always_load(&mut self, value: bool) -> &mut Self {
        self.always_load = Some(value);
        self
    }

    /// Applies the server's `alwaysLoad` default, unless the tool chose for itself.
    pub(crate) fn default_always_load(&mut self, value: bool) {
        self.always_load.get_or_insert(value);
    }

    /// `_meta["anthropic/searchHint"]`.
    pub fn search_hint(&mut self, hint: impl Into<String>) -> &mut Self {
        self.meta
            .insert(META_SEARCH_HINT.into(), Value::String(hint.into()));
        self
    }

    /// Rejects calls carrying arguments that are not properties of the input schema, and says so
    /// in the schema (`"additionalProperties": false`, which Claude's strict tool use needs).
    ///
    /// Off by default: like serde without `deny_unknown_fields`, a tool ignores arguments it
    /// does not know. When on, a call with unknown arguments gets an `isError` result naming each
    /// of them and the accepted ones. `false` adds nothing; it does not lift a whole-input
    /// struct's own `#[serde(deny_unknown_fields)]`.
    pub fn deny_unknown_arguments(&mut self, deny: bool) -> &mut Self {
        self.deny_unknown_arguments = deny;
        self
    }

    /// The input schema under construction.
    pub fn input(&mut self) -> &mut InputSchemaBuilder {
        &mut self.input
    }

    /// Uses `schema` as the tool's input schema exactly as written, in place of one built with
    /// [`input`](Self::input): every JSON Schema 2020-12 keyword is kept (`$schema`, `$defs`,
    /// `$ref`, `$anchor`, `allOf`/`anyOf`/`oneOf` at the root, `if`/`then`/`else`, `pattern`,
    /// any `format`…), nothing is inlined or rewritten, and a `$ref`, local or on the network, is
    /// never fetched (neither here nor when a call is checked). What MCP requires is checked when
    /// the tool is built: the root is an object schema with `"type": "object"`.
    ///
    /// This is for a tool whose schema comes from elsewhere at run time (a plugin manifest, an
    /// OpenAPI document). A schema derived from Rust types stays the subset Claude accepts (see
    /// [`crate::schema`]); a schema given as written is the caller's to keep within what the
    /// clients it serves accept: the Anthropic API refuses a root `oneOf`/`anyOf`/`allOf`, for
    /// one. The handler reads the arguments as it likes ([`ToolCall`](super::ToolCall),
    /// `Input<serde_json::Value>`); [`deny_unknown_arguments`](Self::deny_unknown_arguments) and a
    /// written `"additionalProperties": false` refuse arguments that are not root `properties`.
    ///
    /// ```
    /// use claude_tools::tools::ToolDefBuilder;
    /// use serde_json::json;
    ///
    /// let schema = json!({
    ///     "$schema": "https://json-schema.org/draft/2020-12/schema",
    ///     "type": "object",
    ///     "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
    ///     "properties": {"home": {"$ref": "#/$defs/address"}},
    ///     "anyOf": [{"required": ["home"]}]
    /// });
    /// let mut def = ToolDefBuilder::new("ship");
    /// def.description("Ship a parcel").input_schema_as_written(schema.clone());
    /// assert_eq!(serde_json::Value::Object(def.build().unwrap().input_schema), schema);
    ///
    /// let mut odd = ToolDefBuilder::new("odd");
    /// odd.input_schema_as_written(json!({"type": "array"}));
    /// assert!(odd.build().unwrap_err().to_string().contains(r#""type": "object""#));
    /// ```
    pub fn input_schema_as_written(&mut self, schema: Value) -> &mut Self {
        self.written_input = Some(schema);
        self
    }

    /// Uses `schema` as the tool's output schema exactly as written, as
    /// [`input_schema_as_written`](Self::input_schema_as_written) does for the input: the root
    /// must be an object schema with `"type": "object"` (MCP's `outputSchema`).
    pub fn output_schema_as_written(&mut self, schema: Value) -> &mut Self {
        self.output = Some(written_schema(schema, "output"));
        self
    }

    /// Sets the output schema (for tools with structured results).
    pub fn output_schema(&mut self, schema: Result<Map<String, Value>, SchemaError>) -> &mut Self {
        self.output = Some(schema);
        self
    }

    /// Records that the tool takes `State<T>`, so the server can report a missing state when it
    /// starts instead of when the tool is called.
    pub fn requires_state<T: Send + Sync + 'static>(&mut self) -> &mut Self {
        let requirement = StateRequirement::of::<T>();
        if !self.required_state.contains(&requirement) {
            self.required_state.push(requirement);
        }
        self
    }

    /// Records that the tool's handler asks for a `T` form
    /// ([`ToolContext::elicit::<T>`](crate::tool::ToolContext::elicit)), so that a `T` that
    /// cannot be a form (a nested struct, a list of structs, a map) is a
    /// [`ServerBuildError::ElicitationForm`](crate::tool::ServerBuildError::ElicitationForm) when
    /// the server is built instead of an error when the tool first asks. `#[tool]` records every
    /// `elicit::<T>()` of its body; a tool added by hand records its own.
    ///
    /// ```
    /// use claude_tools::prelude::*;
    /// use claude_tools::tools::{ServerBuildError, ToolDefBuilder};
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Address { street: String }
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Shipping { address: Address }
    ///
    /// let mut def = ToolDefBuilder::new("ship");
    /// def.description("Ships the order").elicits::<Shipping>();
    /// let error = ToolServer::new("shop", "1.0.0")
    ///     .with_typed_tool(def, || async { "shipped" })
    ///     .unwrap_err();
    /// assert!(matches!(error, ServerBuildError::ElicitationForm { .. }));
    /// assert!(error.to_string().contains("field `address` is an object"), "{error}");
    /// ```
    pub fn elicits<T: crate::ask::ElicitForm + 'static>(&mut self) -> &mut Self {
        ElicitedForm::of::<T>().add_to(&mut self.elicited_forms);
        self
    }

    /// The forms recorded with [`elicits`](Self::elicits).
    pub(crate) fn elicited_forms(&self) -> &[ElicitedForm] {
        &self.elicited_forms
    }

    /// The state types recorded with [`requires_state`](Self::requires_state).
    pub(crate) fn required_state(&self) -> &[StateRequirement] {
        &self.required_state
    }

    /// Finishes the definition, failing when a schema cannot be made Claude-safe.
    pub fn build(self) -> Result<ToolDef, SchemaError> {
        self.build_parts().map(|parts| parts.def)
    }

    pub(crate) fn build_parts(self) -> Result<BuiltTool, SchemaError> {
        let (mut input_schema, rust_names) = match self.written_input {
            Some(_) if !self.input.is_empty() => {
                return Err(SchemaError::new(
                    "the input schema is given as written (input_schema_as_written) and built \
                     with input() as well: use one of the two",
                ));
            }
            Some(written) => (written_schema(written, "input")?, Vec::new()),
            None => self.input.finish_with_rust_names()?,
        };
        if self.deny_unknown_arguments {
            deny_additional_properties(&mut input_schema)?;
        }
        let output_schema = self.output.transpose()?;
        let mut meta = self.meta;
        if self.always_load == Some(true) {
            meta.insert(META_ALWAYS_LOAD.into(), Value::Bool(true));
        }
        let def = ToolDef {
            name: self.name,
            title: self.title,
            description: self.description,
            input_schema,
            output_schema,
            annotations: self.annotations,
            meta,
        };
        Ok(BuiltTool {
            def,
            required_state: self.required_state,
            rust_names,
            task_support: self.task_support,
            task_start: self.task_start,
            may_ask: self.may_ask,
        })
    }
}

/// What a server keeps of a built tool besides its handler.
pub(crate) struct BuiltTool {
    pub(crate) def: ToolDef,
    pub(crate) required_state: Vec<StateRequirement>,
    /// `(rust name, property)` of renamed arguments: a call must not send the Rust name.
    pub(crate) rust_names: Vec<(String, String)>,
    pub(crate) task_support: crate::task::TaskSupport,
    pub(crate) task_start: crate::task::TaskStart,
    pub(crate) may_ask: bool,
}

/// A tool with only a name, described by its arguments type and its doc-less handler.
impl From<&str> for ToolDefBuilder {
    fn from(name: &str) -> Self {
        Self::new(name)
    }
}

/// A tool with only a name, described by its arguments type and its doc-less handler.
impl From<String> for ToolDefBuilder {
    fn from(name: String) -> Self {
        Self::new(name)
    }
}

/// Takes the definition out of a builder, leaving a fresh one with the same name: what lets a
/// chain of setters be passed where a definition is wanted, as with `std::process::Command`:
///
/// ```
/// use claude_tools::{ToolDefBuilder, ToolServer};
///
/// let server = ToolServer::new("demo", "1.0.0")
///     .with_typed_tool(
///         ToolDefBuilder::new("ping").description("Answers pong").read_only(true),
///         || async { "pong" },
///     )
///     .unwrap();
/// assert_eq!(server.tool("ping").unwrap().def().annotations.read_only, Some(true));
/// ```
impl From<&mut ToolDefBuilder> for ToolDefBuilder {
    fn from(builder: &mut ToolDefBuilder) -> Self {
        let fresh = ToolDefBuilder::new(builder.name.clone());
        std::mem::replace(builder, fresh)
    }
}

/// A schema given as written: kept whole, once its root is what MCP requires of a tool's
/// `inputSchema` or `outputSchema`, an object schema with `"type": "object"`.
fn written_schema(schema: Value, which: &str) -> Result<Map<String, Value>, SchemaError> {
    let kind = match &schema {
        Value::Object(root) if root.get("type") == Some(&Value::String("object".into())) => {
            return match schema {
                Value::Object(root) => Ok(root),
                _ => Err(SchemaError::new(
                    "internal error: the schema is not an object",
                )),
            };
        }
        Value::Object(root) => match root.get("type") {
            None => "an object schema without a \"type\"".to_string(),
            Some(ty) => format!(
                "an object schema of \"type\": {}",
                crate::jsonrpc::echo(&ty.to_string())
            ),
        },
        Value::Bool(_) => "a boolean schema".to_string(),
        Value::Array(_) => "a JSON array".to_string(),
        other => crate::jsonrpc::echo(&other.to_string()),
    };
    Err(SchemaError::new(format!(
        "a tool's {which} schema must be a JSON object with \"type\": \"object\" at its root \
         (MCP), but the one given as written is {kind}"
    )))
}

/// Sets `"additionalProperties": false`, unless the input already accepts extra properties of
/// some schema (a whole-input struct with a `#[serde(flatten)]` map), which would contradict it.
fn deny_additional_properties(schema: &mut Map<String, Value>) -> Result<(), SchemaError> {
    match schema.get("additionalProperties") {
        None | Some(Value::Bool(false)) => {
            schema.insert("additionalProperties".into(), Value::Bool(false));
            Ok(())
        }
        Some(_) => Err(SchemaError::new(
            "deny_unknown_arguments contradicts the input's own extra properties (a \
             #[serde(flatten)] map in the whole-input struct): drop one of the two",
        )),
    }
}

impl ToolDefBuilder {
    /// Describes parameter `T` of a handler, noting whether the handler can ask through it.
    pub(crate) fn describe_param<T: super::ToolParam>(
        &mut self,
        name: &'static str,
        description: Option<&'static str>,
    ) {
        if T::MAY_ASK {
            self.may_ask = true;
        }
        T::describe(name, description, self);
    }
}
