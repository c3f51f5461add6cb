//! The envelopes of the control protocol, as borrowed views for fast parsing (no owned strings
//! unless the JSON has escapes). Unknown fields are skipped.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// One NDJSON line in either direction.
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    /// `control_request`, `control_response`, `user`, `system`, `result`, ...
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    /// Id of a `control_request` (or of a `control_cancel_request`'s target).
    #[serde(borrow, default)]
    pub request_id: Option<Cow<'a, str>>,
    /// Body of a `control_request`.
    #[serde(borrow, default)]
    pub request: Option<Request<'a>>,
    /// Body of a `control_response`.
    #[serde(borrow, default)]
    pub response: Option<ControlResponse<'a>>,
    /// Subtype of a `system` or `result` message.
    #[serde(borrow, default)]
    pub subtype: Option<Cow<'a, str>>,
    /// `state` of a `session_state_changed` system message.
    #[serde(borrow, default)]
    pub state: Option<Cow<'a, str>>,
}

/// `request` of a `control_request`.
#[derive(Debug, Deserialize)]
pub struct Request<'a> {
    /// `initialize`, `mcp_message`, ...
    #[serde(borrow)]
    pub subtype: Cow<'a, str>,
    /// Target server of an `mcp_message`.
    #[serde(borrow, default)]
    pub server_name: Option<Cow<'a, str>>,
    /// The JSON-RPC message of an `mcp_message`.
    #[serde(borrow, default)]
    pub message: Option<McpMessage<'a>>,
    /// SDK servers announced in a (TypeScript) `initialize`.
    #[serde(rename = "sdkMcpServers", borrow, default)]
    pub sdk_mcp_servers: Option<Vec<Cow<'a, str>>>,
}

/// A JSON-RPC request or notification inside an `mcp_message`.
#[derive(Debug, Deserialize)]
pub struct McpMessage<'a> {
    /// Method name.
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// Request id (absent on notifications).
    #[serde(default)]
    pub id: Option<i64>,
    /// Params.
    #[serde(borrow, default)]
    pub params: Option<Params<'a>>,
}

/// Params of `tools/call` (other methods' params are skipped).
#[derive(Debug, Deserialize)]
pub struct Params<'a> {
    /// Tool name.
    #[serde(borrow, default)]
    pub name: Option<Cow<'a, str>>,
    /// Tool arguments, unparsed.
    #[serde(borrow, default)]
    pub arguments: Option<&'a RawValue>,
}

/// Arguments of the bench's `add` tool.
#[derive(Debug, Deserialize)]
pub struct AddArgs {
    /// First term.
    pub a: i64,
    /// Second term.
    pub b: i64,
}

/// `response` of a `control_response`.
#[derive(Debug, Deserialize)]
pub struct ControlResponse<'a> {
    /// `success` or `error`.
    #[serde(borrow)]
    pub subtype: Cow<'a, str>,
    /// The id of the request answered.
    #[serde(borrow)]
    pub request_id: Cow<'a, str>,
    /// Payload of a success.
    #[serde(borrow, default)]
    pub response: Option<Payload<'a>>,
    /// Text of an error.
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

/// Payload of a success `control_response` (only `mcp_response` is read).
#[derive(Debug, Deserialize)]
pub struct Payload<'a> {
    /// The JSON-RPC reply wrapped by an `mcp_message` answer.
    #[serde(borrow, default)]
    pub mcp_response: Option<JsonRpcReply<'a>>,
}

/// A JSON-RPC reply.
#[derive(Debug, Deserialize)]
pub struct JsonRpcReply<'a> {
    /// Id (absent on Python's notification acks).
    #[serde(default)]
    pub id: Option<i64>,
    /// Result.
    #[serde(borrow, default)]
    pub result: Option<McpResult<'a>>,
    /// Error object.
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

/// The fields of MCP results the bench checks (`initialize`, `tools/list`, `tools/call`, and
/// over HTTP `prompts/get` and `resources/read`).
#[derive(Debug, Deserialize)]
pub struct McpResult<'a> {
    /// `tools/call` content blocks.
    #[serde(borrow, default)]
    pub content: Option<Vec<Block<'a>>>,
    /// `tools/call` error flag (TypeScript leaves it out on success).
    #[serde(rename = "isError", default)]
    pub is_error: Option<bool>,
    /// `tools/list` tools.
    #[serde(borrow, default)]
    pub tools: Option<Vec<ToolEntry<'a>>>,
    /// `initialize` protocol version.
    #[serde(rename = "protocolVersion", borrow, default)]
    pub protocol_version: Option<Cow<'a, str>>,
    /// `prompts/get` messages.
    #[serde(borrow, default)]
    pub messages: Option<Vec<PromptMessage<'a>>>,
    /// `resources/read` contents.
    #[serde(borrow, default)]
    pub contents: Option<Vec<ResourceContents<'a>>>,
}

/// A message of a `prompts/get` result.
#[derive(Debug, Deserialize)]
pub struct PromptMessage<'a> {
    /// `user` or `assistant`.
    #[serde(borrow)]
    pub role: Cow<'a, str>,
    /// Its one content block.
    #[serde(borrow)]
    pub content: Block<'a>,
}

/// One entry of a `resources/read` result's `contents`.
#[derive(Debug, Deserialize)]
pub struct ResourceContents<'a> {
    /// The URI read.
    #[serde(borrow)]
    pub uri: Cow<'a, str>,
    /// Its text (absent on a binary resource, which has a `blob`).
    #[serde(borrow, default)]
    pub text: Option<Cow<'a, str>>,
}

/// A content block.
#[derive(Debug, Deserialize)]
pub struct Block<'a> {
    /// Block type.
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    /// Text of a text block.
    #[serde(borrow, default)]
    pub text: Option<Cow<'a, str>>,
}

/// A `tools/list` entry.
#[derive(Debug, Deserialize)]
pub struct ToolEntry<'a> {
    /// Tool name.
    #[serde(borrow)]
    pub name: Cow<'a, str>,
}

/// Writes a UUID-shaped control request id that carries `index` in its last 12 hex digits.
pub fn write_request_id(out: &mut Vec<u8>, seed: u64, index: u64) {
    use std::io::Write;
    let _ = write!(
        out,
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        (seed >> 32) as u32,
        (seed >> 16) as u16,
        (seed >> 4) as u16 & 0xfff,
        seed as u16 & 0xfff,
        index & 0xffff_ffff_ffff
    );
}

/// The index carried by a request id from [`write_request_id`], if it has that shape.
pub fn request_index(id: &str) -> Option<u64> {
    if id.len() != 36 {
        return None;
    }
    u64::from_str_radix(&id[24..], 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_round_trip() {
        let mut out = Vec::new();
        write_request_id(&mut out, 0x0123_4567_89ab_cdef, 42);
        let id = std::str::from_utf8(&out).unwrap();
        assert_eq!(id.len(), 36);
        assert_eq!(request_index(id), Some(42));
        assert_eq!(request_index("req_1_abc"), None);
    }

    #[test]
    fn parses_a_tools_call_reply() {
        let line = br#"{"type":"control_response","response":{"subtype":"success","request_id":"x","response":{"mcp_response":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"5"}],"isError":false}}}}}"#;
        let env: Envelope = serde_json::from_slice(line).unwrap();
        let resp = env.response.unwrap();
        let reply = resp.response.unwrap().mcp_response.unwrap();
        assert_eq!(reply.id, Some(2));
        let result = reply.result.unwrap();
        assert_eq!(result.is_error, Some(false));
        assert_eq!(result.content.unwrap()[0].text.as_deref(), Some("5"));
    }

    #[test]
    fn parses_a_tools_call_request() {
        let line = br#"{"type":"control_request","request_id":"r","request":{"subtype":"mcp_message","server_name":"bench","message":{"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},"_meta":{"progressToken":2}},"jsonrpc":"2.0","id":2}}}"#;
        let env: Envelope = serde_json::from_slice(line).unwrap();
        let msg = env.request.unwrap().message.unwrap();
        assert_eq!(msg.method.as_deref(), Some("tools/call"));
        let args: AddArgs =
            serde_json::from_str(msg.params.unwrap().arguments.unwrap().get()).unwrap();
        assert_eq!((args.a, args.b), (2, 3));
    }
}
