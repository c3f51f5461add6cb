//! Content blocks (text, thinking, tool use, tool results) and message content, with the
//! hand-written codec that gives a block back exactly as it came (a `null` signature, an
//! explicit `is_error: false`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

use super::server_blocks::{
    self, AdvisorContent, CodeExecutionContent, Compaction, ContainerUpload, Fallback,
    McpToolListing, McpToolResult, McpToolUse, ServerToolResult, TextEditorContent,
    ToolSearchContent,
};
use super::web::{WebFetchContent, WebSearchContent};

/// A content block. Known blocks keep their other fields (`cache_control`, `citations`…) in
/// `extra`; unknown block types are kept whole as [`ContentBlock::Other`]. A known field whose
/// wire value its typed field cannot hold (`signature: null`, `is_error: false`,
/// `content: null`) stays in `extra` too, so that [`to_value`](Self::to_value) gives the block
/// back as it came.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ContentBlock {
    /// Text.
    Text {
        /// The text.
        text: String,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// Extended thinking.
    Thinking {
        /// The thinking text.
        thinking: String,
        /// Its signature.
        signature: Option<String>,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// A tool call.
    ToolUse {
        /// The tool_use id.
        id: String,
        /// The tool (e.g. `mcp__calc__add`).
        name: String,
        /// Its input.
        input: Value,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// A tool's result.
    ToolResult {
        /// The tool_use it answers.
        tool_use_id: String,
        /// A string or a list of content blocks (`None` when absent).
        content: Option<MessageContent>,
        /// Whether the tool failed.
        is_error: bool,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// Thinking the API redacted: encrypted, to be passed back as it came.
    RedactedThinking {
        /// The encrypted thinking.
        data: String,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// A call of a tool the API runs itself (`web_search`, `web_fetch`, `code_execution`…).
    ServerToolUse {
        /// The call's id (`srvtoolu_…`).
        id: String,
        /// The tool.
        name: String,
        /// Its input.
        input: Value,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// The results of a web search the API ran.
    WebSearchToolResult {
        /// The `server_tool_use` it answers.
        tool_use_id: String,
        /// The results, or the error.
        content: WebSearchContent,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// A page the API fetched.
    WebFetchToolResult {
        /// The `server_tool_use` it answers.
        tool_use_id: String,
        /// The page, or the error.
        content: WebFetchContent,
        /// Every other field.
        extra: Map<String, Value>,
    },
    /// An advisor model's answer (`advisor_tool_result`).
    AdvisorToolResult(ServerToolResult<AdvisorContent>),
    /// A code execution's result (`code_execution_tool_result`).
    CodeExecutionToolResult(ServerToolResult<CodeExecutionContent>),
    /// A bash command's result in the code execution container (`bash_code_execution_tool_result`).
    BashCodeExecutionToolResult(ServerToolResult<CodeExecutionContent>),
    /// A text editor command's result in the code execution container (`text_editor_code_execution_tool_result`).
    TextEditorCodeExecutionToolResult(ServerToolResult<TextEditorContent>),
    /// The tools a tool search found (`tool_search_tool_result`).
    ToolSearchToolResult(ServerToolResult<ToolSearchContent>),
    /// A call through the API's MCP connector (`mcp_tool_use`).
    McpToolUse(McpToolUse),
    /// The result of an MCP connector call (`mcp_tool_result`).
    McpToolResult(McpToolResult),
    /// The tools of an MCP connector server (`mcp_tool_listing`).
    McpToolListing(McpToolListing),
    /// A file uploaded to the code execution container (`container_upload`).
    ContainerUpload(ContainerUpload),
    /// A compaction's summary of the conversation before it (`compaction`).
    Compaction(Compaction),
    /// A switch to a fallback model (`fallback`).
    Fallback(Fallback),
    /// Any other block (`image`, `document`, a future type…), or a known one whose fields do
    /// not fit, kept as it came.
    Other(Value),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            extra: Map::new(),
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The block's `type`.
    pub fn block_type(&self) -> &str {
        match self {
            ContentBlock::Text { .. } => "text",
            ContentBlock::Thinking { .. } => "thinking",
            ContentBlock::ToolUse { .. } => "tool_use",
            ContentBlock::ToolResult { .. } => "tool_result",
            ContentBlock::RedactedThinking { .. } => "redacted_thinking",
            ContentBlock::ServerToolUse { .. } => "server_tool_use",
            ContentBlock::WebSearchToolResult { .. } => "web_search_tool_result",
            ContentBlock::WebFetchToolResult { .. } => "web_fetch_tool_result",
            ContentBlock::AdvisorToolResult(..) => "advisor_tool_result",
            ContentBlock::CodeExecutionToolResult(..) => "code_execution_tool_result",
            ContentBlock::BashCodeExecutionToolResult(..) => "bash_code_execution_tool_result",
            ContentBlock::TextEditorCodeExecutionToolResult(..) => {
                "text_editor_code_execution_tool_result"
            }
            ContentBlock::ToolSearchToolResult(..) => "tool_search_tool_result",
            ContentBlock::McpToolUse(..) => "mcp_tool_use",
            ContentBlock::McpToolResult(..) => "mcp_tool_result",
            ContentBlock::McpToolListing(..) => "mcp_tool_listing",
            ContentBlock::ContainerUpload(..) => "container_upload",
            ContentBlock::Compaction(..) => "compaction",
            ContentBlock::Fallback(..) => "fallback",
            ContentBlock::Other(value) => value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        }
    }

    /// A `tool_use` block's input, typed by its tool's name (`None` for any other block): see
    /// [`BuiltinToolInput::parse`](crate::builtin_tools::BuiltinToolInput::parse).
    ///
    /// ```
    /// use claude_tools::ContentBlock;
    /// use claude_tools::builtin_tools::BuiltinToolInput;
    ///
    /// let block = ContentBlock::from_value(serde_json::json!({
    ///     "type": "tool_use", "id": "toolu_1", "name": "WebFetch",
    ///     "input": {"url": "https://example.com", "prompt": "Summarise"},
    /// }));
    /// let Some(Ok(BuiltinToolInput::WebFetch(fetch))) = block.builtin_tool_input() else { panic!() };
    /// assert_eq!(fetch.url, "https://example.com");
    /// ```
    pub fn builtin_tool_input(
        &self,
    ) -> Option<Result<crate::builtin_tools::BuiltinToolInput, crate::builtin_tools::ToolInputError>>
    {
        match self {
            ContentBlock::ToolUse { name, input, .. } => {
                Some(crate::builtin_tools::BuiltinToolInput::parse(name, input))
            }
            _ => None,
        }
    }

    /// Types a block; a known type whose fields do not fit is kept as [`ContentBlock::Other`].
    pub fn from_value(value: Value) -> ContentBlock {
        let Value::Object(mut map) = value else {
            return ContentBlock::Other(value);
        };
        // Only a string is taken: anything else (a `null` signature) stays in the map, to be
        // written back as it came.
        fn take_str(map: &mut Map<String, Value>, key: &str) -> Option<String> {
            match map.remove(key)? {
                Value::String(s) => Some(s),
                other => {
                    map.insert(key.into(), other);
                    None
                }
            }
        }
        let kind = map.get("type").and_then(Value::as_str).unwrap_or_default();
        if kind == "web_search_tool_result" || kind == "web_fetch_tool_result" {
            return web_tool_result(map);
        }
        if let Some(block) = server_block(kind, &map) {
            return block;
        }
        let fits = match kind {
            "text" => map.get("text").is_some_and(Value::is_string),
            "thinking" => {
                map.get("thinking").is_some_and(Value::is_string)
                    && map
                        .get("signature")
                        .is_none_or(|s| s.is_string() || s.is_null())
            }
            "redacted_thinking" => map.get("data").is_some_and(Value::is_string),
            "tool_use" | "server_tool_use" => {
                map.get("id").is_some_and(Value::is_string)
                    && map.get("name").is_some_and(Value::is_string)
                    && map.contains_key("input")
            }
            "tool_result" => {
                map.get("tool_use_id").is_some_and(Value::is_string)
                    && map
                        .get("is_error")
                        .is_none_or(|e| e.is_boolean() || e.is_null())
                    && map
                        .get("content")
                        .is_none_or(|c| c.is_null() || c.is_string() || c.is_array())
            }
            _ => false,
        };
        if !fits {
            return ContentBlock::Other(Value::Object(map));
        }
        let kind = take_str(&mut map, "type").unwrap_or_default();
        match kind.as_str() {
            "text" => ContentBlock::Text {
                text: take_str(&mut map, "text").unwrap_or_default(),
                extra: map,
            },
            "thinking" => ContentBlock::Thinking {
                thinking: take_str(&mut map, "thinking").unwrap_or_default(),
                signature: take_str(&mut map, "signature"),
                extra: map,
            },
            "tool_use" => ContentBlock::ToolUse {
                id: take_str(&mut map, "id").unwrap_or_default(),
                name: take_str(&mut map, "name").unwrap_or_default(),
                input: map.remove("input").unwrap_or_default(),
                extra: map,
            },
            "redacted_thinking" => ContentBlock::RedactedThinking {
                data: take_str(&mut map, "data").unwrap_or_default(),
                extra: map,
            },
            "server_tool_use" => ContentBlock::ServerToolUse {
                id: take_str(&mut map, "id").unwrap_or_default(),
                name: take_str(&mut map, "name").unwrap_or_default(),
                input: map.remove("input").unwrap_or_default(),
                extra: map,
            },
            _ => {
                // Only a string or a list of blocks is typed, and only `is_error: true`: an
                // explicit `false` or `null` stays in `extra`, to be written back as it came.
                let content = match map.remove("content") {
                    Some(Value::String(text)) => Some(MessageContent::Text(text)),
                    Some(Value::Array(blocks)) => Some(MessageContent::Blocks(
                        blocks.into_iter().map(ContentBlock::from_value).collect(),
                    )),
                    Some(null) => {
                        map.insert("content".into(), null);
                        None
                    }
                    None => None,
                };
                let is_error = map.get("is_error") == Some(&Value::Bool(true));
                if is_error {
                    map.remove("is_error");
                }
                ContentBlock::ToolResult {
                    tool_use_id: take_str(&mut map, "tool_use_id").unwrap_or_default(),
                    content,
                    is_error,
                    extra: map,
                }
            }
        }
    }

    /// The block as JSON.
    pub fn to_value(&self) -> Value {
        let (extra, fields) = match self {
            ContentBlock::Other(value) => return value.clone(),
            ContentBlock::AdvisorToolResult(block) => {
                return server_blocks::with_type("advisor_tool_result", block);
            }
            ContentBlock::CodeExecutionToolResult(block) => {
                return server_blocks::with_type("code_execution_tool_result", block);
            }
            ContentBlock::BashCodeExecutionToolResult(block) => {
                return server_blocks::with_type("bash_code_execution_tool_result", block);
            }
            ContentBlock::TextEditorCodeExecutionToolResult(block) => {
                return server_blocks::with_type("text_editor_code_execution_tool_result", block);
            }
            ContentBlock::ToolSearchToolResult(block) => {
                return server_blocks::with_type("tool_search_tool_result", block);
            }
            ContentBlock::McpToolUse(block) => {
                return server_blocks::with_type("mcp_tool_use", block);
            }
            ContentBlock::McpToolResult(block) => {
                return server_blocks::with_type("mcp_tool_result", block);
            }
            ContentBlock::McpToolListing(block) => {
                return server_blocks::with_type("mcp_tool_listing", block);
            }
            ContentBlock::ContainerUpload(block) => {
                return server_blocks::with_type("container_upload", block);
            }
            ContentBlock::Compaction(block) => {
                return server_blocks::with_type("compaction", block);
            }
            ContentBlock::Fallback(block) => return server_blocks::with_type("fallback", block),
            ContentBlock::Text { text, extra } => (extra, json!({"type": "text", "text": text})),
            ContentBlock::Thinking {
                thinking,
                signature,
                extra,
            } => {
                let mut fields = json!({"type": "thinking", "thinking": thinking});
                if let Some(signature) = signature {
                    fields["signature"] = json!(signature);
                }
                (extra, fields)
            }
            ContentBlock::ToolUse {
                id,
                name,
                input,
                extra,
            } => (
                extra,
                json!({"type": "tool_use", "id": id, "name": name, "input": input}),
            ),
            ContentBlock::ToolResult {
                tool_use_id,
                content,
                is_error,
                extra,
            } => {
                let mut fields = json!({"type": "tool_result", "tool_use_id": tool_use_id});
                if let Some(content) = content {
                    fields["content"] = content.to_value();
                }
                if *is_error {
                    fields["is_error"] = json!(true);
                }
                (extra, fields)
            }
            ContentBlock::RedactedThinking { data, extra } => {
                (extra, json!({"type": "redacted_thinking", "data": data}))
            }
            ContentBlock::ServerToolUse {
                id,
                name,
                input,
                extra,
            } => (
                extra,
                json!({"type": "server_tool_use", "id": id, "name": name, "input": input}),
            ),
            ContentBlock::WebSearchToolResult {
                tool_use_id,
                content,
                extra,
            } => (
                extra,
                json!({"type": "web_search_tool_result", "tool_use_id": tool_use_id,
                       "content": content}),
            ),
            ContentBlock::WebFetchToolResult {
                tool_use_id,
                content,
                extra,
            } => (
                extra,
                json!({"type": "web_fetch_tool_result", "tool_use_id": tool_use_id,
                       "content": content}),
            ),
        };
        let mut map = extra.clone();
        if let Value::Object(fields) = fields {
            map.extend(fields);
        }
        Value::Object(map)
    }
}

/// One of the API's other blocks ([`server_blocks`]), typed when its typed form gives back
/// exactly what came; `None` for another type or a block that does not fit.
fn server_block(kind: &str, map: &Map<String, Value>) -> Option<ContentBlock> {
    const KINDS: [&str; 11] = [
        "advisor_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "mcp_tool_listing",
        "container_upload",
        "compaction",
        "fallback",
    ];
    // The common blocks (text, tool_use…) never get here with a copy of their fields.
    if !KINDS.contains(&kind) {
        return None;
    }
    let mut fields = map.clone();
    fields.shift_remove("type");
    match kind {
        "advisor_tool_result" => server_blocks::exact(&fields).map(ContentBlock::AdvisorToolResult),
        "code_execution_tool_result" => {
            server_blocks::exact(&fields).map(ContentBlock::CodeExecutionToolResult)
        }
        "bash_code_execution_tool_result" => {
            server_blocks::exact(&fields).map(ContentBlock::BashCodeExecutionToolResult)
        }
        "text_editor_code_execution_tool_result" => {
            server_blocks::exact(&fields).map(ContentBlock::TextEditorCodeExecutionToolResult)
        }
        "tool_search_tool_result" => {
            server_blocks::exact(&fields).map(ContentBlock::ToolSearchToolResult)
        }
        "mcp_tool_use" => server_blocks::exact(&fields).map(ContentBlock::McpToolUse),
        "mcp_tool_result" => server_blocks::exact(&fields).map(ContentBlock::McpToolResult),
        "mcp_tool_listing" => server_blocks::exact(&fields).map(ContentBlock::McpToolListing),
        "container_upload" => server_blocks::exact(&fields).map(ContentBlock::ContainerUpload),
        "compaction" => server_blocks::exact(&fields).map(ContentBlock::Compaction),
        "fallback" => server_blocks::exact(&fields).map(ContentBlock::Fallback),
        _ => None,
    }
}

/// A `web_search_tool_result` or `web_fetch_tool_result` block, typed only when its typed
/// content gives back exactly what came (else it is kept whole as [`ContentBlock::Other`]).
fn web_tool_result(mut map: Map<String, Value>) -> ContentBlock {
    fn exact<T: Serialize + for<'de> Deserialize<'de>>(content: &Value) -> Option<T> {
        let typed = T::deserialize(content).ok()?;
        (serde_json::to_value(&typed).ok()? == *content).then_some(typed)
    }
    let search = map.get("type").and_then(Value::as_str) == Some("web_search_tool_result");
    let typed = match (map.get("tool_use_id"), map.get("content")) {
        (Some(Value::String(id)), Some(content)) if search => {
            exact(content).map(|content| ContentBlock::WebSearchToolResult {
                tool_use_id: id.clone(),
                content,
                extra: Map::new(),
            })
        }
        (Some(Value::String(id)), Some(content)) => {
            exact(content).map(|content| ContentBlock::WebFetchToolResult {
                tool_use_id: id.clone(),
                content,
                extra: Map::new(),
            })
        }
        _ => None,
    };
    let Some(mut block) = typed else {
        return ContentBlock::Other(Value::Object(map));
    };
    for key in ["type", "tool_use_id", "content"] {
        map.shift_remove(key);
    }
    if let ContentBlock::WebSearchToolResult { extra, .. }
    | ContentBlock::WebFetchToolResult { extra, .. } = &mut block
    {
        *extra = map;
    }
    block
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(ContentBlock::from_value)
    }
}

impl Serialize for ContentBlock {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

/// Message or tool-result content: a string, or content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum MessageContent {
    /// Plain text.
    Text(String),
    /// Content blocks (text, images, tool results).
    Blocks(Vec<ContentBlock>),
}

/// The content of a user message (the same shape as any [`MessageContent`]).
pub type UserContent = MessageContent;

impl MessageContent {
    /// The text: the string, or the text blocks joined.
    pub fn text(&self) -> String {
        match self {
            MessageContent::Text(text) => text.clone(),
            MessageContent::Blocks(blocks) => {
                blocks.iter().filter_map(ContentBlock::as_text).collect()
            }
        }
    }

    /// The blocks (none for plain text).
    pub fn blocks(&self) -> &[ContentBlock] {
        match self {
            MessageContent::Text(_) => &[],
            MessageContent::Blocks(blocks) => blocks,
        }
    }

    fn to_value(&self) -> Value {
        match self {
            MessageContent::Text(text) => Value::String(text.clone()),
            MessageContent::Blocks(blocks) => {
                Value::Array(blocks.iter().map(ContentBlock::to_value).collect())
            }
        }
    }
}
