//! [`Response`]: the one answer to a request, typed, and how it is written.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use super::{ErrorCode, ErrorObject, RequestId, ResultMeta};
use crate::tool::ToolResult;

/// The answer to one request: its id and its result or error.
///
/// ```
/// use claude_tools::mcp::{Answer, ErrorObject, RequestId, Response};
///
/// let pong = Response::success(RequestId::from(1), Answer::Empty);
/// assert_eq!(pong.to_json(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
/// let refused = Response::error(None, ErrorObject::invalid_request("not an object"));
/// assert_eq!(
///     refused.to_json(),
///     r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"not an object"}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The request's id; `None` (written `null`) when the request's id could not be read.
    pub id: Option<RequestId>,
    /// The result, or the error.
    pub outcome: Result<Answer, ErrorObject>,
    /// What an MCP 2026-07-28 result carries beside its own fields (`resultType`, cache hints,
    /// the server's info); `None` for a 2025-11-25 answer and for every error.
    pub result_meta: Option<Box<ResultMeta>>,
}

/// A successful result, typed by what it answers.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// A tool's result (`tools/call`), serialised straight from the value the tool returned.
    Tool(ToolResult),
    /// `tools/list`.
    ToolsList(super::ToolsList),
    /// `initialize`.
    Initialize(super::InitializeResult),
    /// `{}` (`ping`, `resources/subscribe`, `resources/unsubscribe`).
    Empty,
    /// A prompt, resource or completion result.
    Catalog(super::CatalogAnswer),
    /// `server/discover` (MCP 2026-07-28).
    Discover(super::DiscoverResult),
    /// An MCP 2026-07-28 `input_required` result: questions for the client.
    InputRequired(super::InputRequiredResult),
    /// A result of the skills extension (`skills/list`, `skills/get`,
    /// `resources/directory/read`).
    Skills(super::SkillsAnswer),
    /// A task of the tasks extension: the `CreateTaskResult` of a `tools/call`, or what
    /// `tasks/get` answers ([`crate::task`]).
    Task(Box<crate::task::wire::TaskAnswer>),
    /// Any other result.
    Json(Value),
}

impl Response {
    /// A successful answer.
    pub fn success(id: RequestId, answer: Answer) -> Self {
        Self {
            id: Some(id),
            outcome: Ok(answer),
            result_meta: None,
        }
    }

    /// The same answer with the 2026-07-28 fields `meta` (kept off an error answer, which
    /// has none).
    pub fn with_result_meta(mut self, meta: ResultMeta) -> Self {
        if self.outcome.is_ok() {
            self.result_meta = Some(Box::new(meta));
        }
        self
    }

    /// An error answer; `id` is `None` when the request's id could not be read.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self {
            id,
            outcome: Err(error),
            result_meta: None,
        }
    }

    /// The error's code, for an error answer.
    pub fn error_code(&self) -> Option<ErrorCode> {
        self.outcome.as_ref().err().map(|error| error.code)
    }

    /// Whether this answers a request that was cancelled (`-32800`).
    pub fn is_cancelled(&self) -> bool {
        self.error_code() == Some(ErrorCode::REQUEST_CANCELLED)
    }

    /// Appends the response as JSON to `out`. Should the result fail to serialise, what was
    /// written of it is taken back and a `-32603` with the same id goes in its place: the
    /// request still gets its one answer.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let start = out.len();
        if let Err(error) = self.write_json(out) {
            tracing::error!(%error, "a JSON-RPC response did not serialise");
            out.truncate(start);
            let fallback = Response::error(
                self.id.clone(),
                ErrorObject::internal_error(format!("the result could not be written: {error}")),
            );
            // An id and an error of strings serialise.
            let _ = fallback.write_json(out);
        }
    }

    /// The bytes of [`Serialize`], written without the serializer where they are fixed: the
    /// envelope's keys and a tool result's frame are ASCII known in advance, so they are copied
    /// rather than escaped one character at a time (every call pays for this writer). What
    /// varies (the id, texts, other answers) goes through serde_json.
    fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        match &self.id {
            Some(id) => id.write_json(out)?,
            None => out.extend_from_slice(b"null"),
        }
        match (&self.outcome, &self.result_meta) {
            // Unless a tool result has a `_meta` of its own and the 2026-07-28 fields go with
            // it (then the server's info is merged into that `_meta`, in the arm of the other
            // answers), it is written by its own writer.
            (Ok(Answer::Tool(result)), meta)
                if meta.is_none() || result.written_meta().is_none() =>
            {
                out.extend_from_slice(br#","result":"#);
                result.write_json(out)?;
                // A tool result is an object with at least `content` and here no `_meta` of
                // its own: the 2026-07-28 fields go in before its closing brace.
                if let Some(meta) = meta
                    && out.last() == Some(&b'}')
                {
                    out.pop();
                    meta.write_members(out, false)?;
                    out.push(b'}');
                }
            }
            (Ok(answer), None) => {
                out.extend_from_slice(br#","result":"#);
                serde_json::to_writer(&mut *out, answer)?;
            }
            (Ok(answer), Some(meta)) => {
                out.extend_from_slice(br#","result":"#);
                serde_json::to_writer(&mut *out, &modern_result(answer, meta)?)?;
            }
            (Err(error), _) => {
                out.extend_from_slice(br#","error":"#);
                serde_json::to_writer(&mut *out, error)?;
            }
        }
        out.push(b'}');
        Ok(())
    }

    /// The response as a JSON string ([`Response::write_to`]).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(128);
        self.write_to(&mut out);
        // serde_json writes UTF-8.
        String::from_utf8(out).unwrap_or_default()
    }

    /// The response as a `serde_json::Value` (for tests and logs; the transports write it
    /// straight with [`Response::write_to`]).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.to_json()).unwrap_or(Value::Null)
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut response = serializer.serialize_map(Some(3))?;
        response.serialize_entry("jsonrpc", "2.0")?;
        match &self.id {
            Some(id) => response.serialize_entry("id", id)?,
            None => response.serialize_entry("id", &())?,
        }
        match (&self.outcome, &self.result_meta) {
            (Ok(answer), None) => response.serialize_entry("result", answer)?,
            (Ok(answer), Some(meta)) => response.serialize_entry(
                "result",
                &modern_result(answer, meta).map_err(serde::ser::Error::custom)?,
            )?,
            (Err(error), _) => response.serialize_entry("error", error)?,
        }
        response.end()
    }
}

/// `answer` as a JSON object with the 2026-07-28 fields `meta` added (into its `_meta` when it
/// has one).
fn modern_result(answer: &Answer, meta: &ResultMeta) -> serde_json::Result<Value> {
    let mut value = serde_json::to_value(answer)?;
    if let Value::Object(result) = &mut value {
        meta.merge_into(result);
    }
    Ok(value)
}

impl Serialize for Answer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::Tool(result) => result.serialize(serializer),
            Answer::ToolsList(list) => list.serialize(serializer),
            Answer::Initialize(result) => result.serialize(serializer),
            Answer::Empty => serializer.serialize_map(Some(0))?.end(),
            Answer::Catalog(answer) => answer.serialize(serializer),
            Answer::Discover(result) => result.serialize(serializer),
            Answer::InputRequired(result) => result.serialize(serializer),
            Answer::Skills(answer) => answer.serialize(serializer),
            Answer::Task(task) => task.serialize(serializer),
            Answer::Json(value) => value.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tool::{Content, Image};

    /// `write_to` copies the fixed parts instead of serialising them: its bytes must be
    /// exactly the `Serialize` form's, for every kind of id, answer and content.
    #[test]
    fn write_to_writes_the_bytes_of_serialize() {
        let ids = [
            Some(RequestId::from(7)),
            Some(RequestId::from(-3)),
            Some(RequestId::from("a \"quoted\" \\ id\n\u{1}é")),
            Some(serde_json::from_str::<RequestId>("123456789012345678901234567890").unwrap()),
            Some(serde_json::from_str::<RequestId>("1.50").unwrap()),
            None,
        ];
        let results = [
            ToolResult::text("80235"),
            ToolResult::error("boom: \"quoted\"\n\ttab \u{7f} ✓"),
            ToolResult::default(),
            ToolResult {
                content: vec![
                    Content::text("one"),
                    Content::Image(Image::from_base64("aGk=", "image/png")),
                    Content::Raw(json!({"type": "resource", "resource": {"uri": "x:/y"}})),
                    Content::text(""),
                ],
                structured_content: Some(json!({"sum": 3, "nested": {"a": [1, "b"]}})),
                is_error: false,
                meta: None,
            },
            ToolResult::text("tagged").with_meta("example.com/k", json!({"v": [1, "\""]})),
        ];
        let mut outcomes: Vec<Result<Answer, ErrorObject>> = results
            .into_iter()
            .map(|result| Ok(Answer::Tool(result)))
            .collect();
        outcomes.push(Ok(Answer::Empty));
        outcomes.push(Ok(Answer::Json(json!({"k": "v\"", "n": null}))));
        outcomes.push(Err(ErrorObject::invalid_request("not an object")));
        outcomes.push(Err(ErrorObject::method_not_found("x\"y")));
        for id in &ids {
            for outcome in &outcomes {
                let response = Response {
                    id: id.clone(),
                    outcome: outcome.clone(),
                    result_meta: None,
                };
                let mut written = b"prefix ".to_vec();
                response.write_to(&mut written);
                let expected = serde_json::to_vec(&response).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&written[7..]),
                    String::from_utf8_lossy(&expected),
                    "{response:?}"
                );
            }
        }
    }

    /// A tool result's own `_meta` and the 2026-07-28 server info share one `_meta`, and
    /// `write_to` writes the bytes of `Serialize` there too.
    #[test]
    fn a_tool_results_meta_takes_the_server_info_beside_its_own_entries() {
        use super::super::{Implementation, ResultType};

        let response = Response::success(
            RequestId::from(4),
            Answer::Tool(ToolResult::text("ok").with_meta("example.com/k", "v")),
        )
        .with_result_meta(ResultMeta::new(
            ResultType::Complete,
            Implementation::new("demo", "1.0"),
        ));
        assert_eq!(
            response.to_value(),
            json!({"jsonrpc": "2.0", "id": 4, "result": {
                "content": [{"type": "text", "text": "ok"}], "isError": false,
                "resultType": "complete",
                "_meta": {"example.com/k": "v",
                    "io.modelcontextprotocol/serverInfo": {"name": "demo", "version": "1.0"}}}})
        );
        assert_eq!(
            response.to_json(),
            serde_json::to_string(&response).unwrap()
        );
    }
}
