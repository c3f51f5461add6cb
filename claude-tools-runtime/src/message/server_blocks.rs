//! The API's other content blocks (`@anthropic-ai/sdk`'s `BetaContentBlock`): the results of
//! the tools the API runs itself (advisor, code execution, its bash and text editor, tool
//! search), MCP connector calls and listings, container uploads, compactions and model
//! fallbacks. The CLI passes them through in the assistant's content.
//!
//! Each is typed only when its typed form gives back exactly what came; otherwise, and for a
//! type this library does not know, the block stays [`ContentBlock::Other`](super::ContentBlock::Other).
//! Every struct keeps the fields it does not name in `extra` (a nested block's `type` among
//! them), so a block is written back as it came.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::MessageContent;
use crate::wire_enum::wire_enum;

wire_enum! {
    /// Why a server tool failed (`error_code`): the union of the advisor's, the code execution
    /// tools', the text editor's and tool search's codes.
    pub enum ServerToolErrorCode {
        /// The tool's input was invalid.
        InvalidToolInput = "invalid_tool_input",
        /// The tool is unavailable.
        Unavailable = "unavailable",
        /// Too many requests.
        TooManyRequests = "too_many_requests",
        /// The tool ran out of time.
        ExecutionTimeExceeded = "execution_time_exceeded",
        /// The request used the tool more often than `max_uses` allows.
        MaxUsesExceeded = "max_uses_exceeded",
        /// The prompt is too long (advisor).
        PromptTooLong = "prompt_too_long",
        /// The API is overloaded (advisor).
        Overloaded = "overloaded",
        /// The advisor's model was not found.
        ModelNotFound = "model_not_found",
        /// The file was not found (text editor).
        FileNotFound = "file_not_found",
        /// An output file was too large (bash).
        OutputFileTooLarge = "output_file_too_large",
    }
}

/// A server tool's error, in place of its result (`{"type": "…_tool_result_error",
/// "error_code": "unavailable"}`). The text editor's and tool search's `error_message` is in
/// `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerToolError {
    /// Why it failed.
    pub error_code: ServerToolErrorCode,
    /// Every other field (its `type` included).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A server tool's result block: the call it answers and its content, typed per tool
/// ([`AdvisorContent`], [`CodeExecutionContent`], [`TextEditorContent`],
/// [`ToolSearchContent`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerToolResult<C> {
    /// The `server_tool_use` it answers.
    pub tool_use_id: String,
    /// The result, or the error.
    pub content: C,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The content of an `advisor_tool_result` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum AdvisorContent {
    /// The advisor's answer (`advisor_result`).
    Result {
        /// Its text.
        text: String,
        /// Why the advisor stopped (`None`: `null`).
        stop_reason: Option<String>,
        /// Every other field (its `type` included).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// An answer the API keeps encrypted, to be passed back as it came
    /// (`advisor_redacted_result`).
    Redacted {
        /// The encrypted answer.
        encrypted_content: String,
        /// Why the advisor stopped (`None`: `null`).
        stop_reason: Option<String>,
        /// Every other field (its `type` included).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// The advisor failed.
    Error(ServerToolError),
}

/// A file a code execution wrote (`code_execution_output`, `bash_code_execution_output`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct OutputFile {
    /// The file's id in the Files API.
    pub file_id: String,
    /// Every other field (its `type` included).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The content of a `code_execution_tool_result` or `bash_code_execution_tool_result` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum CodeExecutionContent {
    /// The run (`code_execution_result`, `bash_code_execution_result`).
    Result {
        /// What it printed.
        stdout: String,
        /// What it printed to stderr.
        stderr: String,
        /// Its exit code.
        return_code: i64,
        /// The files it wrote.
        content: Vec<OutputFile>,
        /// Every other field (its `type` included).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// A run whose stdout the API keeps encrypted (`encrypted_code_execution_result`).
    Encrypted {
        /// The encrypted stdout, to be passed back as it came.
        encrypted_stdout: String,
        /// What it printed to stderr.
        stderr: String,
        /// Its exit code.
        return_code: i64,
        /// The files it wrote.
        content: Vec<OutputFile>,
        /// Every other field (its `type` included).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// The run failed.
    Error(ServerToolError),
}

/// The content of a `text_editor_code_execution_tool_result` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum TextEditorContent {
    /// The command failed.
    Error(ServerToolError),
    /// A file viewed (`text_editor_code_execution_view_result`).
    View {
        /// The file's content.
        content: String,
        /// `text`, `image` or `pdf`.
        file_type: String,
        /// The lines shown (`None`: `null`).
        num_lines: Option<u64>,
        /// The first line shown (`None`: `null`).
        start_line: Option<u64>,
        /// The file's lines (`None`: `null`).
        total_lines: Option<u64>,
        /// Every other field (its `type` included).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// A file created or overwritten (`text_editor_code_execution_create_result`).
    Create {
        /// Whether it existed and was overwritten.
        is_file_update: bool,
        /// Every other field (its `type` included).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
    /// A replacement made (`text_editor_code_execution_str_replace_result`); each field is
    /// `None` for `null`.
    StrReplace {
        /// The changed lines.
        lines: Option<Vec<String>>,
        /// How many lines replaced them.
        new_lines: Option<u64>,
        /// Where the new lines start.
        new_start: Option<u64>,
        /// How many lines were replaced.
        old_lines: Option<u64>,
        /// Where the old lines started.
        old_start: Option<u64>,
        /// Every other field (its `type` included).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
}

/// A tool found by tool search (`tool_reference`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolReference {
    /// The tool's name.
    pub tool_name: String,
    /// Every other field (its `type` included).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The content of a `tool_search_tool_result` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ToolSearchContent {
    /// The search failed.
    Error(ServerToolError),
    /// The tools found (`tool_search_tool_search_result`).
    Result {
        /// The tools, now loaded for the model.
        tool_references: Vec<ToolReference>,
        /// Every other field (its `type` included).
        #[serde(flatten)]
        extra: Map<String, Value>,
    },
}

/// A call of a tool of a remote MCP server through the API's MCP connector (`mcp_tool_use`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpToolUse {
    /// The call's id.
    pub id: String,
    /// The tool.
    pub name: String,
    /// Its server.
    pub server_name: String,
    /// Its input.
    pub input: Value,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of an [`McpToolUse`] (`mcp_tool_result`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpToolResult {
    /// The `mcp_tool_use` it answers.
    pub tool_use_id: String,
    /// A string or text blocks.
    pub content: MessageContent,
    /// Whether the tool failed.
    pub is_error: bool,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool of an MCP server, in an [`McpToolListing`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpListedTool {
    /// The tool's name.
    pub name: String,
    /// Its input's JSON Schema.
    pub input_schema: Map<String, Value>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The tools an MCP server of the connector offers (`mcp_tool_listing`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpToolListing {
    /// The server.
    pub mcp_server_name: String,
    /// Its tools.
    pub tools: Vec<McpListedTool>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file uploaded to the code execution container (`container_upload`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContainerUpload {
    /// The file's id in the Files API.
    pub file_id: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A summary of the conversation before it, written by the API's context compaction
/// (`compaction`); its optional `signature` is in `extra`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Compaction {
    /// The summary (`None`: `null`).
    pub content: Option<String>,
    /// The summary, encrypted, to be passed back as it came (`None`: `null`).
    pub encrypted_content: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A model of a [`Fallback`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FallbackModel {
    /// The model's id.
    pub model: String,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why a [`Fallback`] happened: the `from` model refused (`{"type": "refusal"}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FallbackTrigger {
    /// The policy category of the refusal (`cyber`, `bio`, `frontier_llm`,
    /// `reasoning_extraction`, `general_harms`; `None`: `null`).
    pub category: Option<String>,
    /// Every other field (its `type` included).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The API went on with another model from here on (`fallback`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Fallback {
    /// The model that refused.
    pub from: FallbackModel,
    /// The model that answers instead.
    pub to: FallbackModel,
    /// Why.
    pub trigger: FallbackTrigger,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Types `map` (a block without its `type`) as `T` when `T` gives back exactly the same JSON.
pub(super) fn exact<T: Serialize + for<'de> Deserialize<'de>>(
    map: &Map<String, Value>,
) -> Option<T> {
    let came = Value::Object(map.clone());
    let typed = T::deserialize(&came).ok()?;
    (serde_json::to_value(&typed).ok()? == came).then_some(typed)
}

/// `typed` as a block of type `kind`: its fields after the `type`.
pub(super) fn with_type<T: Serialize>(kind: &str, typed: &T) -> Value {
    let mut map = Map::new();
    map.insert("type".into(), Value::String(kind.into()));
    if let Ok(Value::Object(fields)) = serde_json::to_value(typed) {
        map.extend(fields);
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::message::ContentBlock;

    /// One block of each type, as the API writes them.
    fn samples() -> Vec<Value> {
        vec![
            json!({"type": "advisor_tool_result", "tool_use_id": "srvtoolu_1",
                   "content": {"type": "advisor_result", "text": "Check the index first.",
                               "stop_reason": "end_turn"}}),
            json!({"type": "advisor_tool_result", "tool_use_id": "srvtoolu_2",
                   "content": {"type": "advisor_redacted_result", "encrypted_content": "EncB64",
                               "stop_reason": null}}),
            json!({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_3",
                   "content": {"type": "code_execution_result", "stdout": "4\n", "stderr": "",
                               "return_code": 0,
                               "content": [{"type": "code_execution_output", "file_id": "file_1"}]}}),
            json!({"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_4",
                   "content": {"type": "encrypted_code_execution_result",
                               "encrypted_stdout": "Enc", "stderr": "", "return_code": 1,
                               "content": []}}),
            json!({"type": "bash_code_execution_tool_result", "tool_use_id": "srvtoolu_5",
                   "content": {"type": "bash_code_execution_tool_result_error",
                               "error_code": "output_file_too_large"}}),
            json!({"type": "text_editor_code_execution_tool_result", "tool_use_id": "srvtoolu_6",
                   "content": {"type": "text_editor_code_execution_view_result",
                               "content": "fn main() {}\n", "file_type": "text",
                               "num_lines": 1, "start_line": 1, "total_lines": 1}}),
            json!({"type": "text_editor_code_execution_tool_result", "tool_use_id": "srvtoolu_7",
                   "content": {"type": "text_editor_code_execution_str_replace_result",
                               "lines": ["let x = 2;"], "new_lines": 1, "new_start": 3,
                               "old_lines": 1, "old_start": 3}}),
            json!({"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_8",
                   "content": {"type": "tool_search_tool_search_result",
                               "tool_references": [{"type": "tool_reference",
                                                    "tool_name": "get_weather"}]}}),
            json!({"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "search",
                   "server_name": "docs", "input": {"q": "rust"}}),
            json!({"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": false,
                   "content": [{"type": "text", "text": "3 hits"}]}),
            json!({"type": "mcp_tool_listing", "mcp_server_name": "docs",
                   "tools": [{"name": "search", "input_schema": {"type": "object"},
                              "description": "Searches the docs"}]}),
            json!({"type": "container_upload", "file_id": "file_2"}),
            json!({"type": "compaction", "content": "Earlier: the user asked for a plan.",
                   "encrypted_content": null, "signature": "sig"}),
            json!({"type": "fallback", "from": {"model": "claude-opus-4-5"},
                   "to": {"model": "claude-sonnet-4-5"},
                   "trigger": {"type": "refusal", "category": null}}),
        ]
    }

    #[test]
    fn every_block_is_typed_and_written_back_as_it_came() {
        for sample in samples() {
            let block = ContentBlock::from_value(sample.clone());
            assert!(
                !matches!(block, ContentBlock::Other(_)),
                "not typed: {sample}"
            );
            assert_eq!(block.block_type(), sample["type"], "{sample}");
            assert_eq!(block.to_value(), sample);
            let read: ContentBlock = serde_json::from_value(sample.clone()).unwrap();
            assert_eq!(serde_json::to_value(&read).unwrap(), sample);
        }
    }

    #[test]
    fn the_typed_fields_read_what_came() {
        let mut blocks = samples().into_iter().map(ContentBlock::from_value);
        let Some(ContentBlock::AdvisorToolResult(advisor)) = blocks.next() else {
            panic!("advisor")
        };
        assert_eq!(advisor.tool_use_id, "srvtoolu_1");
        assert!(matches!(
            advisor.content,
            AdvisorContent::Result { ref text, ref stop_reason, .. }
                if text == "Check the index first." && stop_reason.as_deref() == Some("end_turn")
        ));
        let _redacted = blocks.next();
        let Some(ContentBlock::CodeExecutionToolResult(run)) = blocks.next() else {
            panic!("code execution")
        };
        let CodeExecutionContent::Result {
            stdout,
            return_code,
            content,
            ..
        } = run.content
        else {
            panic!("a run")
        };
        assert_eq!((stdout.as_str(), return_code), ("4\n", 0));
        assert_eq!(content[0].file_id, "file_1");
        let _encrypted = blocks.next();
        let Some(ContentBlock::BashCodeExecutionToolResult(bash)) = blocks.next() else {
            panic!("bash")
        };
        assert!(matches!(
            bash.content,
            CodeExecutionContent::Error(ServerToolError {
                error_code: ServerToolErrorCode::OutputFileTooLarge,
                ..
            })
        ));
        let Some(ContentBlock::TextEditorCodeExecutionToolResult(view)) = blocks.next() else {
            panic!("view")
        };
        assert!(matches!(
            view.content,
            TextEditorContent::View {
                total_lines: Some(1),
                ..
            }
        ));
        let Some(ContentBlock::TextEditorCodeExecutionToolResult(replace)) = blocks.next() else {
            panic!("str_replace")
        };
        assert!(matches!(
            replace.content,
            TextEditorContent::StrReplace {
                new_start: Some(3),
                ..
            }
        ));
        let Some(ContentBlock::ToolSearchToolResult(search)) = blocks.next() else {
            panic!("tool search")
        };
        let ToolSearchContent::Result {
            tool_references, ..
        } = search.content
        else {
            panic!("found tools")
        };
        assert_eq!(tool_references[0].tool_name, "get_weather");
        let Some(ContentBlock::McpToolUse(call)) = blocks.next() else {
            panic!("mcp_tool_use")
        };
        assert_eq!(
            (call.server_name.as_str(), &call.input),
            ("docs", &json!({"q": "rust"}))
        );
        let Some(ContentBlock::McpToolResult(result)) = blocks.next() else {
            panic!("mcp_tool_result")
        };
        assert!(!result.is_error);
        assert!(
            matches!(result.content, MessageContent::Blocks(ref b) if b[0].as_text() == Some("3 hits"))
        );
        let Some(ContentBlock::McpToolListing(listing)) = blocks.next() else {
            panic!("mcp_tool_listing")
        };
        assert_eq!(
            listing.tools[0].description.as_deref(),
            Some("Searches the docs")
        );
        let Some(ContentBlock::ContainerUpload(upload)) = blocks.next() else {
            panic!("container_upload")
        };
        assert_eq!(upload.file_id, "file_2");
        let Some(ContentBlock::Compaction(compaction)) = blocks.next() else {
            panic!("compaction")
        };
        assert_eq!(compaction.encrypted_content, None);
        assert_eq!(compaction.extra.get("signature"), Some(&json!("sig")));
        let Some(ContentBlock::Fallback(fallback)) = blocks.next() else {
            panic!("fallback")
        };
        assert_eq!(fallback.to.model, "claude-sonnet-4-5");
        assert_eq!(fallback.trigger.category, None);
    }

    #[test]
    fn a_newer_error_code_and_new_fields_are_kept() {
        let sample = json!({"type": "advisor_tool_result", "tool_use_id": "srvtoolu_9",
            "cache_control": {"type": "ephemeral"},
            "content": {"type": "advisor_tool_result_error", "error_code": "budget_spent"}});
        let block = ContentBlock::from_value(sample.clone());
        let ContentBlock::AdvisorToolResult(advisor) = &block else {
            panic!("{block:?}")
        };
        assert!(matches!(
            &advisor.content,
            AdvisorContent::Error(ServerToolError { error_code: ServerToolErrorCode::Other(code), .. })
                if code == "budget_spent"
        ));
        assert!(advisor.extra.contains_key("cache_control"));
        assert_eq!(block.to_value(), sample);
    }

    #[test]
    fn a_block_whose_fields_do_not_fit_stays_other_as_it_came() {
        for sample in [
            // No tool_use_id.
            json!({"type": "advisor_tool_result",
                   "content": {"type": "advisor_result", "text": "t", "stop_reason": null}}),
            // A return code that is not an integer.
            json!({"type": "code_execution_tool_result", "tool_use_id": "s",
                   "content": {"type": "code_execution_result", "stdout": "", "stderr": "",
                               "return_code": "0", "content": []}}),
            // A str_replace result without its fields would be written back with nulls.
            json!({"type": "text_editor_code_execution_tool_result", "tool_use_id": "s",
                   "content": {"type": "text_editor_code_execution_str_replace_result"}}),
            json!({"type": "mcp_tool_use", "id": "m", "name": "n", "input": {}}),
            json!({"type": "container_upload", "file_id": 7}),
        ] {
            let block = ContentBlock::from_value(sample.clone());
            assert!(matches!(block, ContentBlock::Other(_)), "{block:?}");
            assert_eq!(block.to_value(), sample);
        }
    }
}
