//! One table of JSON-RPC wire cases, served through every transport a tool server has: the
//! Claude Code CLI's control protocol (in-process, `mcp_message` over a memory pipe), stdio,
//! Streamable HTTP without sessions and Streamable HTTP with sessions. Each case asserts what
//! JSON-RPC 2.0 and the MCP spec ask (answered or not, the id, the code) and that every
//! transport answers the same bytes, modulo its own envelope:
//!
//! - the control protocol answers what JSON-RPC does not with the placeholder
//!   `{"jsonrpc":"2.0","result":{}}` (the CLI awaits one for every `mcp_message`);
//! - HTTP answers nothing with `202`, an invalid message with `400` and its error, the rest
//!   with `200`; with sessions, `initialize` says `listChanged: true` (it has a stream to send
//!   the notification on);
//! - stateless HTTP has no stream for `notifications/resources/updated`: its `initialize` says
//!   `subscribe: false` and it answers `resources/subscribe` and `unsubscribe` with `-32601`
//!   (those cases name its answer apart);
//! - bytes that are not JSON cannot be put inside a control frame at all: the control line
//!   is then broken as a whole, and its recovery is proven in the runtime's `faults_lines`;
//! - a message the decoder cannot read and whose JSON-RPC id a scan cannot find is answered
//!   over the control protocol with a control error, which ends the CLI's `mcp_message` by its
//!   own `request_id` (a JSON-RPC error of `id: null` would leave the CLI's call waiting).

use std::net::SocketAddr;
use std::time::Duration;

use claude_tools::mcp::http::HttpServer;
use claude_tools::mcp::{Elicitation, PanicDetail};
use claude_tools::prompts::{Prompt, PromptArguments, PromptError};
use claude_tools::resources::{Blob, Resource, ResourceError, ResourceRequest};
use claude_tools::tools::{ToolDefBuilder, ToolError, ToolServer};
use claude_tools::transport::{MemoryCli, MemoryTransport};
use claude_tools::{Client, Options};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::net::TcpListener;

const WAIT: Duration = Duration::from_secs(10);

/// What a case must get back.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// A result, with this id (as JSON text).
    Result(&'static str),
    /// A JSON-RPC error of this code, with this id (`"null"` when none could be read).
    Error(&'static str, i64),
    /// Not a JSON-RPC message: an error of this code with this id (HTTP: `400`).
    Invalid(&'static str, i64),
    /// No answer (a notification, a client's response).
    Nothing,
}

struct Case {
    name: &'static str,
    message: String,
    expect: Expect,
    /// The control protocol answers with a control error of its own (see the module docs).
    control_error: bool,
    /// What stateless HTTP answers instead, where it cannot do what the others do (it has no
    /// stream for `notifications/resources/updated`, so it takes no subscription); its answer
    /// is then checked on its own, not compared.
    stateless: Option<Expect>,
}

fn case(name: &'static str, message: impl Into<String>, expect: Expect) -> Case {
    Case {
        name,
        message: message.into(),
        expect,
        control_error: false,
        stateless: None,
    }
}

impl Case {
    fn with_control_error(mut self) -> Case {
        self.control_error = true;
        self
    }

    fn stateless_answers(mut self, expect: Expect) -> Case {
        self.stateless = Some(expect);
        self
    }
}

use Expect::{Error, Invalid, Nothing, Result as Answered};

fn cases() -> Vec<Case> {
    let long_method = "x".repeat(10_000);
    vec![
        // The lifecycle.
        case(
            "initialize",
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            Answered("0"),
        ),
        case(
            "initialize 2024-11-05 is echoed",
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05"}}"#,
            Answered("1"),
        ),
        case(
            "initialize 2025-03-26 is echoed",
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}"#,
            Answered("2"),
        ),
        case(
            "initialize 2025-06-18 is echoed",
            r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#,
            Answered("3"),
        ),
        case(
            "initialize of an unknown version gets the latest",
            r#"{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}"#,
            Answered("4"),
        ),
        case(
            "initialize without params gets the latest",
            r#"{"jsonrpc":"2.0","id":5,"method":"initialize"}"#,
            Answered("5"),
        ),
        case(
            "initialize with a numeric version gets the latest",
            r#"{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":20251125}}"#,
            Answered("6"),
        ),
        case(
            "notifications/initialized is not answered",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            Nothing,
        ),
        case(
            "ping",
            r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#,
            Answered("7"),
        ),
        case(
            "ping with empty params",
            r#"{"jsonrpc":"2.0","id":"p","method":"ping","params":{}}"#,
            Answered(r#""p""#),
        ),
        // Tools.
        case(
            "tools/list",
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#,
            Answered("8"),
        ),
        case(
            "tools/list with a cursor the server never issued is -32602 (MCP: invalid cursor)",
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"next"}}"#,
            Error("9", -32602),
        ),
        case(
            "tools/list with a null cursor is the first page",
            r#"{"jsonrpc":"2.0","id":"9n","method":"tools/list","params":{"cursor":null}}"#,
            Answered(r#""9n""#),
        ),
        case(
            "tools/call",
            r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            Answered("10"),
        ),
        case(
            "tools/call with params before the method",
            r#"{"params":{"arguments":{"text":"hi"},"name":"echo"},"id":11,"method":"tools/call","jsonrpc":"2.0"}"#,
            Answered("11"),
        ),
        case(
            "tools/call with a tool_use id and a progress token",
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"whoami","_meta":{"claudecode/toolUseId":"toolu_1","progressToken":"t"}}}"#,
            Answered("12"),
        ),
        case(
            "tools/call of an unknown tool is -32602 (MCP: a protocol error)",
            r#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"nope"}}"#,
            Error("13", -32602),
        ),
        case(
            "tools/call with an argument of the wrong type",
            r#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"echo","arguments":{"text":5}}}"#,
            Answered("14"),
        ),
        case(
            "tools/call with a missing argument",
            r#"{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#,
            Answered("15"),
        ),
        case(
            "tools/call with arguments that are not an object",
            r#"{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"echo","arguments":[1]}}"#,
            Answered("16"),
        ),
        case(
            "tools/call whose handler fails",
            r#"{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"fail"}}"#,
            Answered("17"),
        ),
        case(
            "tools/call whose handler panics",
            r#"{"jsonrpc":"2.0","id":18,"method":"tools/call","params":{"name":"boom"}}"#,
            Answered("18"),
        ),
        case(
            "tools/call without params",
            r#"{"jsonrpc":"2.0","id":19,"method":"tools/call"}"#,
            Error("19", -32602),
        ),
        case(
            "tools/call with params that are not an object",
            r#"{"jsonrpc":"2.0","id":20,"method":"tools/call","params":["echo"]}"#,
            Error("20", -32602),
        ),
        case(
            "tools/call with a name that is not a string",
            r#"{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":7}}"#,
            Error("21", -32602),
        ),
        case(
            "tools/call naming two tools",
            r#"{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"echo","name":"boom","arguments":{"text":"x"}}}"#,
            Error("22", -32602),
        ),
        case(
            "tools/call without an id is a notification and does not run",
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"boom"}}"#,
            Nothing,
        ),
        // Prompts, resources and completions.
        case(
            "prompts/list",
            r#"{"jsonrpc":"2.0","id":"c1","method":"prompts/list"}"#,
            Answered(r#""c1""#),
        ),
        case(
            "prompts/list with a cursor the server never issued is -32602",
            r#"{"jsonrpc":"2.0","id":"c2","method":"prompts/list","params":{"cursor":"next"}}"#,
            Error(r#""c2""#, -32602),
        ),
        case(
            "prompts/get",
            r#"{"jsonrpc":"2.0","id":"c3","method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada","times":"2"}}}"#,
            Answered(r#""c3""#),
        ),
        case(
            "prompts/get with arguments that do not parse is -32602",
            r#"{"jsonrpc":"2.0","id":"c4","method":"prompts/get","params":{"name":"greet","arguments":{"times":"x"}}}"#,
            Error(r#""c4""#, -32602),
        ),
        case(
            "prompts/get with an argument that is not a string is -32602",
            r#"{"jsonrpc":"2.0","id":"c5","method":"prompts/get","params":{"name":"greet","arguments":{"name":1}}}"#,
            Error(r#""c5""#, -32602),
        ),
        case(
            "prompts/get of an unknown prompt is -32602",
            r#"{"jsonrpc":"2.0","id":"c6","method":"prompts/get","params":{"name":"nope"}}"#,
            Error(r#""c6""#, -32602),
        ),
        case(
            "prompts/get without params is -32602",
            r#"{"jsonrpc":"2.0","id":"c7","method":"prompts/get"}"#,
            Error(r#""c7""#, -32602),
        ),
        case(
            "prompts/get of a prompt that fails is -32603",
            r#"{"jsonrpc":"2.0","id":"c8","method":"prompts/get","params":{"name":"broken"}}"#,
            Error(r#""c8""#, -32603),
        ),
        case(
            "resources/list",
            r#"{"jsonrpc":"2.0","id":"r1","method":"resources/list"}"#,
            Answered(r#""r1""#),
        ),
        case(
            "resources/list with a cursor the server never issued is -32602",
            r#"{"jsonrpc":"2.0","id":"r2","method":"resources/list","params":{"cursor":"next"}}"#,
            Error(r#""r2""#, -32602),
        ),
        case(
            "resources/templates/list",
            r#"{"jsonrpc":"2.0","id":"r3","method":"resources/templates/list","params":{}}"#,
            Answered(r#""r3""#),
        ),
        case(
            "resources/templates/list with a cursor is -32602",
            r#"{"jsonrpc":"2.0","id":"r4","method":"resources/templates/list","params":{"cursor":"2"}}"#,
            Error(r#""r4""#, -32602),
        ),
        case(
            "resources/read of a fixed text resource",
            r#"{"jsonrpc":"2.0","id":"r5","method":"resources/read","params":{"uri":"agree://motd"}}"#,
            Answered(r#""r5""#),
        ),
        case(
            "resources/read of a binary resource",
            r#"{"jsonrpc":"2.0","id":"r6","method":"resources/read","params":{"uri":"agree://logo"}}"#,
            Answered(r#""r6""#),
        ),
        case(
            "resources/read of a template",
            r#"{"jsonrpc":"2.0","id":"r7","method":"resources/read","params":{"uri":"agree://items/42"}}"#,
            Answered(r#""r7""#),
        ),
        case(
            "resources/read of an unknown URI is -32002",
            r#"{"jsonrpc":"2.0","id":"r8","method":"resources/read","params":{"uri":"agree://nothing"}}"#,
            Error(r#""r8""#, -32002),
        ),
        case(
            "resources/read of a template whose variable does not parse is -32602",
            r#"{"jsonrpc":"2.0","id":"r9","method":"resources/read","params":{"uri":"agree://items/x"}}"#,
            Error(r#""r9""#, -32602),
        ),
        case(
            "resources/read without a uri is -32602",
            r#"{"jsonrpc":"2.0","id":"r10","method":"resources/read","params":{}}"#,
            Error(r#""r10""#, -32602),
        ),
        case(
            "resources/read of a resource that panics is -32603",
            r#"{"jsonrpc":"2.0","id":"r11","method":"resources/read","params":{"uri":"agree://boom"}}"#,
            Error(r#""r11""#, -32603),
        ),
        case(
            "resources/subscribe (stateless HTTP cannot send updates: -32601)",
            r#"{"jsonrpc":"2.0","id":"r12","method":"resources/subscribe","params":{"uri":"agree://motd"}}"#,
            Answered(r#""r12""#),
        )
        .stateless_answers(Error(r#""r12""#, -32601)),
        case(
            "resources/subscribe to an unknown URI is -32002",
            r#"{"jsonrpc":"2.0","id":"r13","method":"resources/subscribe","params":{"uri":"agree://nothing"}}"#,
            Error(r#""r13""#, -32002),
        )
        .stateless_answers(Error(r#""r13""#, -32601)),
        case(
            "resources/unsubscribe",
            r#"{"jsonrpc":"2.0","id":"r14","method":"resources/unsubscribe","params":{"uri":"agree://motd"}}"#,
            Answered(r#""r14""#),
        )
        .stateless_answers(Error(r#""r14""#, -32601)),
        case(
            "completion/complete of a prompt argument",
            r#"{"jsonrpc":"2.0","id":"k1","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"A"}}}"#,
            Answered(r#""k1""#),
        ),
        case(
            "completion/complete of a template variable",
            r#"{"jsonrpc":"2.0","id":"k2","method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"agree://items/{id}"},"argument":{"name":"id","value":"4"}}}"#,
            Answered(r#""k2""#),
        ),
        case(
            "completion/complete of an unknown prompt is -32602",
            r#"{"jsonrpc":"2.0","id":"k3","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"x","value":""}}}"#,
            Error(r#""k3""#, -32602),
        ),
        case(
            "completion/complete with an unknown ref type is -32602",
            r#"{"jsonrpc":"2.0","id":"k4","method":"completion/complete","params":{"ref":{"type":"ref/tool","name":"echo"},"argument":{"name":"x","value":""}}}"#,
            Error(r#""k4""#, -32602),
        ),
        // Other methods.
        case(
            "an unknown method",
            r#"{"jsonrpc":"2.0","id":23,"method":"bogus/list"}"#,
            Error("23", -32601),
        ),
        case(
            "an unknown method's name is echoed cut short",
            format!(r#"{{"jsonrpc":"2.0","id":24,"method":"{long_method}"}}"#),
            Error("24", -32601),
        ),
        case(
            "a notifications/ method with an id is a request the server lacks",
            r#"{"jsonrpc":"2.0","id":25,"method":"notifications/initialized"}"#,
            Error("25", -32601),
        ),
        // Notifications and responses.
        case(
            "cancelling an unknown request",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}"#,
            Nothing,
        ),
        case(
            "a cancellation without params",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#,
            Nothing,
        ),
        case(
            "an unknown notification",
            r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"a":1}}"#,
            Nothing,
        ),
        case(
            "a client's result",
            r#"{"jsonrpc":"2.0","id":26,"result":{}}"#,
            Nothing,
        ),
        case(
            "a client's error",
            r#"{"jsonrpc":"2.0","id":27,"error":{"code":-1,"message":"no"}}"#,
            Nothing,
        ),
        // The envelope.
        case(
            "jsonrpc 1.0 in a notification",
            r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
            Invalid("null", -32600),
        ),
        case(
            "jsonrpc 1.0 in a request keeps its id",
            r#"{"jsonrpc":"1.0","id":28,"method":"ping"}"#,
            Invalid("28", -32600),
        ),
        case(
            "no jsonrpc",
            r#"{"id":29,"method":"ping"}"#,
            Invalid("29", -32600),
        ),
        case(
            "jsonrpc as a number",
            r#"{"jsonrpc":2.0,"id":30,"method":"ping"}"#,
            Invalid("30", -32600),
        ),
        case(
            "no method",
            r#"{"jsonrpc":"2.0","id":31}"#,
            Invalid("31", -32600),
        ),
        case(
            "a method that is not a string",
            r#"{"jsonrpc":"2.0","id":32,"method":["ping"]}"#,
            Invalid("32", -32600),
        ),
        case(
            "two methods",
            r#"{"jsonrpc":"2.0","id":33,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}},"method":"tools/list"}"#,
            Invalid("33", -32600),
        ),
        case(
            "two ids",
            r#"{"jsonrpc":"2.0","id":34,"id":35,"method":"ping"}"#,
            Invalid("34", -32600),
        ),
        case(
            "a result and an error",
            r#"{"jsonrpc":"2.0","id":36,"result":{},"error":{"code":1,"message":"x"}}"#,
            Invalid("36", -32600),
        ),
        // Ids of every JSON type.
        case(
            "a string id",
            r#"{"jsonrpc":"2.0","id":"a-1","method":"ping"}"#,
            Answered(r#""a-1""#),
        ),
        case(
            "an empty string id",
            r#"{"jsonrpc":"2.0","id":"","method":"ping"}"#,
            Answered(r#""""#),
        ),
        case(
            "a negative id",
            r#"{"jsonrpc":"2.0","id":-7,"method":"ping"}"#,
            Answered("-7"),
        ),
        case(
            "a fractional id",
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            Answered("1.5"),
        ),
        case(
            "an id written 1.50 comes back 1.50",
            r#"{"jsonrpc":"2.0","id":1.50,"method":"ping"}"#,
            Answered("1.50"),
        ),
        case(
            "an id past u64 comes back as written",
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
            Answered("123456789012345678901234567890"),
        ),
        case(
            "an id past a float comes back as written",
            r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#,
            Answered("1e400"),
        ),
        case(
            "a null id",
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            Invalid("null", -32600),
        ),
        case(
            "an object id",
            r#"{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}"#,
            Invalid("null", -32600),
        ),
        case(
            "an array id",
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            Invalid("null", -32600),
        ),
        case(
            "a boolean id",
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            Invalid("null", -32600),
        ),
        case(
            "a tool call with an id past u64",
            r#"{"jsonrpc":"2.0","id":98765432109876543210,"method":"tools/call","params":{"name":"echo","arguments":{"text":"big"}}}"#,
            Answered("98765432109876543210"),
        ),
        // Not one message.
        case(
            "a batch",
            r#"[{"jsonrpc":"2.0","id":37,"method":"ping"}]"#,
            Invalid("null", -32600),
        ),
        case("an empty batch", "[]", Invalid("null", -32600)),
        case("a string", r#""ping""#, Invalid("null", -32600)),
        case("a number", "7", Invalid("null", -32600)),
        case("null", "null", Invalid("null", -32600)),
        // Not JSON (not carried by the control protocol: see the module docs).
        case("not JSON", "{oops", Invalid("null", -32700)),
        case(
            "a tool call cut short, its id and tool still readable",
            r#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"#,
            Answered("42"),
        ),
        case(
            "cut short, its id still readable",
            r#"{"jsonrpc":"2.0","id":38,"method":"ping""#,
            Invalid("38", -32700),
        ),
        // JSON the decoder cannot read, which the control protocol can carry: a tool call gets an
        // isError result the model reads (HTTP: 200), anything else a parse error.
        case(
            "a number out of a float's range in a tool's arguments",
            r#"{"jsonrpc":"2.0","id":39,"method":"tools/call","params":{"name":"echo","arguments":{"text":1e400}}}"#,
            Answered("39"),
        ),
        case(
            "arguments nested too deeply",
            format!(
                r#"{{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":{}1{}}}}}}}"#,
                "[".repeat(130),
                "]".repeat(130)
            ),
            Answered("40"),
        ),
        case(
            "a number out of range in params the server does not read",
            r#"{"jsonrpc":"2.0","id":41,"method":"ping","params":{"n":1e400}}"#,
            Answered("41"),
        ),
        case(
            "an unreadable tool call without an id",
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":1e400}}}"#,
            Invalid("null", -32700),
        )
        .with_control_error(),
    ]
}

/// Whether the control protocol can carry `message` inside its frame (it must be JSON).
fn fits_a_control_frame(message: &str) -> bool {
    serde_json::from_str::<&RawValue>(message).is_ok()
}

fn server() -> ToolServer {
    let mut echo = ToolDefBuilder::new("echo");
    echo.description("Echo the text back");
    echo.input()
        .property::<String>("text", Some("What to echo"), true);
    ToolServer::new("agree", "1.0.0")
        .with_tool(echo, |mut call| async move {
            let text = call.take_argument("text").unwrap_or_default();
            format!("ECHO:{}", text.as_str().unwrap_or_default())
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("whoami"), |call| async move {
            format!(
                "{} {}",
                call.context().tool_use_id().unwrap_or("-"),
                call.context()
                    .request_id()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            )
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("fail"), |_| async {
            Err::<String, _>(ToolError::new("disk on fire"))
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("boom"), |_| async {
            if true {
                panic!("kaboom");
            }
            "unreachable"
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("progress"), |call| async move {
            let context = call.context();
            context.report_progress(1.0, Some(2.0), Some("half"));
            tokio::task::yield_now().await;
            context.report_progress(2.0, Some(2.0), None);
            "done"
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("ask"), |call| async move {
            match call.context().elicit::<Approve>("Go?").await {
                Ok(Elicitation::Accepted(Approve { approve })) => format!("approve={approve}"),
                Ok(Elicitation::Declined) => "declined".to_string(),
                Ok(Elicitation::Cancelled) => "cancelled".to_string(),
                Err(error) => format!("error: {error}"),
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("wait_for_cancel"), |call| async move {
            let id = call
                .context()
                .request_id()
                .map(ToString::to_string)
                .unwrap_or_default();
            log(format!("started {id}"));
            call.context().cancelled().await;
            log(format!("cancelled {id}"));
            "stopped"
        })
        .unwrap()
        .with_prompt(
            Prompt::new("greet", |mut args: PromptArguments| async move {
                let name: String = args.required("name")?;
                let times: Option<u32> = args.optional("times")?;
                Ok::<_, PromptError>(format!("Greet {name} {} times.", times.unwrap_or(1)))
            })
            .description("Greet someone")
            .argument("name", "Who", true)
            .argument("times", "How often", false)
            .complete_from("name", ["Ada", "Alan", "Grace"]),
        )
        .unwrap()
        .with_prompt(Prompt::new("broken", |_: PromptArguments| async {
            Err::<String, _>(PromptError::new("no prompt today"))
        }))
        .unwrap()
        .with_resource(
            Resource::new("agree://motd", "motd", |_: ResourceRequest| async {
                "Be kind."
            })
            .mime_type("text/plain"),
        )
        .unwrap()
        .with_resource(
            Resource::new("agree://logo", "logo", |_: ResourceRequest| async {
                Blob(vec![0, 1, 2, 255])
            })
            .mime_type("image/png"),
        )
        .unwrap()
        .with_resource(
            Resource::new(
                "agree://items/{id}",
                "item",
                |read: ResourceRequest| async move {
                    let id: u32 = read.variable("id")?;
                    Ok::<_, ResourceError>(format!("item {id}"))
                },
            )
            .complete_from("id", ["4", "42", "7"]),
        )
        .unwrap()
        .with_resource(Resource::new(
            "agree://boom",
            "boom",
            |_: ResourceRequest| async {
                if true {
                    panic!("kaboom");
                }
                "unreachable"
            },
        ))
        .unwrap()
}

/// The form of the `ask` tool.
#[derive(Deserialize, schemars::JsonSchema)]
struct Approve {
    approve: bool,
}

/// What the `wait_for_cancel` tool saw, across the tests of this file.
static LOG: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn log(entry: String) {
    LOG.lock().unwrap().push(entry);
}

/// Waits until the log holds `entry`.
async fn logged(entry: &str) {
    let waited = tokio::time::timeout(WAIT, async {
        while !LOG.lock().unwrap().iter().any(|e| e == entry) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(waited.is_ok(), "`{entry}` was not logged in time");
}

/// An answer as a transport delivered it, its envelope taken off: the JSON-RPC text, or `None`.
type Answer = Option<String>;

/// The control protocol: a `Client` whose CLI is a memory pipe held here.
struct Control {
    _client: Client,
    cli: MemoryCli,
    sent: u64,
}

#[derive(Deserialize)]
struct ControlResponse<'a> {
    #[serde(borrow)]
    response: ControlResponseBody<'a>,
}

#[derive(Deserialize)]
struct ControlResponseBody<'a> {
    subtype: String,
    request_id: String,
    #[serde(borrow)]
    response: Option<McpResponse<'a>>,
}

#[derive(Deserialize)]
struct McpResponse<'a> {
    #[serde(borrow)]
    mcp_response: &'a RawValue,
}

const PLACEHOLDER: &str = r#"{"jsonrpc":"2.0","result":{}}"#;

impl Control {
    async fn start() -> Control {
        let (transport, mut cli) = MemoryTransport::pair();
        let connecting = tokio::spawn(Client::connect_with(
            Options::new().mcp_server(server()),
            transport,
        ));
        let initialize = tokio::time::timeout(WAIT, cli.next_json())
            .await
            .expect("the host's initialize in time")
            .unwrap()
            .expect("an initialize request");
        cli.write_json(
            &json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": initialize["request_id"], "response": {}}}),
        )
        .await
        .unwrap();
        let client = tokio::time::timeout(WAIT, connecting)
            .await
            .expect("connected in time")
            .unwrap()
            .expect("connected");
        Control {
            _client: client,
            cli,
            sent: 0,
        }
    }

    /// Writes `message` in an `mcp_message` control request, and returns its `request_id`.
    async fn write(&mut self, message: &str) -> String {
        self.sent += 1;
        let request_id = format!("agree-{}", self.sent);
        self.cli
            .write_line(&format!(
                r#"{{"type":"control_request","request_id":"{request_id}","request":{{"subtype":"mcp_message","server_name":"agree","message":{message}}}}}"#
            ))
            .await
            .unwrap();
        request_id
    }

    async fn line(&mut self) -> String {
        tokio::time::timeout(WAIT, self.cli.next_line())
            .await
            .expect("a line from the host in time")
            .unwrap()
            .expect("the host is alive")
    }

    /// The JSON-RPC answer; `Err` with the control error when the host answered with one.
    async fn send(&mut self, message: &str) -> Result<Answer, String> {
        let request_id = self.write(message).await;
        let line = self.line().await;
        let frame: ControlResponse<'_> =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(frame.response.request_id, request_id, "{line}");
        if frame.response.subtype == "error" {
            return Err(line.clone());
        }
        assert_eq!(frame.response.subtype, "success", "{line}");
        let answer = frame
            .response
            .response
            .expect("an mcp_response")
            .mcp_response
            .get();
        // The CLI awaits an answer to every `mcp_message`: none is the placeholder.
        Ok((answer != PLACEHOLDER).then(|| answer.to_string()))
    }
}

/// stdio: the server's stdin and stdout as a memory pipe.
struct Stdio {
    to_server: WriteHalf<DuplexStream>,
    from_server: Lines<BufReader<ReadHalf<DuplexStream>>>,
    sentinels: u64,
    /// The `_meta` of the sentinel requests, for a connection that speaks 2026-07-28 (whose
    /// `ping` is removed).
    sentinel_meta: Option<Value>,
}

impl Stdio {
    fn start() -> Stdio {
        let (client, server_side) = tokio::io::duplex(1 << 20);
        let (from_client, to_client) = tokio::io::split(server_side);
        // The same policy for a handler's panic as in-process: the message is shown (stdio and
        // HTTP hide it by default, a transport's own policy: `claude-tools-mcp/tests/mcp_panics.rs`).
        tokio::spawn(
            claude_tools::mcp::stdio::serve(server(), from_client, to_client)
                .panic_detail(PanicDetail::Shown)
                .into_future(),
        );
        let (from_server, to_server) = tokio::io::split(client);
        Stdio {
            to_server,
            from_server: BufReader::new(from_server).lines(),
            sentinels: 0,
            sentinel_meta: None,
        }
    }

    /// A stdio server spoken to at 2026-07-28: its sentinel is a `tools/list` with `_meta`.
    fn start_modern() -> Stdio {
        let mut stdio = Stdio::start();
        stdio.sentinel_meta = Some(modern_meta("2026-07-28"));
        stdio
    }

    async fn line(&mut self, within: Duration) -> Option<String> {
        tokio::time::timeout(within, self.from_server.next_line())
            .await
            .ok()
            .map(|line| line.unwrap().expect("the server is alive"))
    }

    /// Sends `message`; when it expects no answer, a `ping` follows it and must be the next
    /// thing answered (with nothing after it for a moment).
    async fn send(&mut self, message: &str, answered: bool) -> Answer {
        self.to_server
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
        if answered {
            // None when no answer comes in time: the case then fails as unanswered.
            return self.line(Duration::from_secs(3)).await;
        }
        self.sentinels += 1;
        let id = format!("sentinel-{}", self.sentinels);
        let sentinel = match &self.sentinel_meta {
            None => format!(r#"{{"jsonrpc":"2.0","id":"{id}","method":"ping"}}"#),
            Some(meta) => modern_message(json!(id), "tools/list", json!({}), meta.clone()),
        };
        let pong = format!(r#"{{"jsonrpc":"2.0","id":"{id}","result":"#);
        self.to_server
            .write_all(format!("{sentinel}\n").as_bytes())
            .await
            .unwrap();
        let mut answer = None;
        loop {
            let line = self
                .line(WAIT)
                .await
                .expect("the sentinel's answer in time");
            if line.starts_with(&pong) {
                break;
            }
            assert!(answer.is_none(), "two answers: {answer:?} and {line}");
            answer = Some(line);
        }
        if let Some(late) = self.line(Duration::from_millis(50)).await {
            panic!("a late answer: {late}");
        }
        answer
    }
}

/// Streamable HTTP, with or without sessions.
struct Http {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
}

impl Http {
    async fn start(sessions: bool) -> Http {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr: SocketAddr = listener.local_addr().unwrap();
        let serve = HttpServer::new(server())
            .sessions(sessions)
            .panic_detail(PanicDetail::Shown)
            .serve(listener);
        tokio::spawn(serve.into_future());
        let mut http = Http {
            http: reqwest::Client::builder()
                .no_proxy()
                .timeout(WAIT)
                .build()
                .unwrap(),
            url: format!("http://{addr}/mcp"),
            session: None,
        };
        if sessions {
            let (status, session, _) = http
                .post(r#"{"jsonrpc":"2.0","id":"open","method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#, false)
                .await;
            assert_eq!(status, 200);
            http.session = Some(session.expect("a session id"));
        }
        http
    }

    /// POSTs `message` (in the session, when there is one and `in_session`): the status, the
    /// session id answered, and the JSON-RPC answer (an SSE body's one event's data).
    async fn post(&self, message: &str, in_session: bool) -> (u16, Option<String>, Answer) {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(message.to_string());
        if let (Some(session), true) = (&self.session, in_session) {
            request = request.header("mcp-session-id", session);
        }
        let response = request.send().await.expect("an HTTP answer");
        let status = response.status().as_u16();
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|value| value.to_str().ok())
            .map(String::from);
        let sse = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .is_some_and(|kind| kind.starts_with("text/event-stream"));
        let body = response.text().await.expect("a body");
        let answer = if sse {
            body.lines()
                .rev()
                .find_map(|line| line.strip_prefix("data:"))
                .map(|data| data.trim_start().to_string())
        } else {
            (!body.is_empty()).then_some(body)
        };
        (status, session, answer)
    }

    /// POSTs `message` in the session `session`.
    async fn post_in(&self, message: &str, session: &str) -> (u16, Answer) {
        let response = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", session)
            .body(message.to_string())
            .send()
            .await
            .expect("an HTTP answer");
        let status = response.status().as_u16();
        let body = response.text().await.expect("a body");
        (status, (!body.is_empty()).then_some(body))
    }

    /// The answer, and its status when it is not what HTTP's policy says for `expect`.
    async fn send(&self, message: &str, expect: Expect) -> (Answer, Option<u16>) {
        // An `initialize` opens a session of its own; every other message goes in the one
        // opened at the start.
        let in_session = !message.contains(r#""method":"initialize""#);
        let (status, _, answer) = self.post(message, in_session).await;
        let wanted = match expect {
            Expect::Nothing => 202,
            Expect::Invalid(..) => 400,
            Expect::Result(_) | Expect::Error(..) => 200,
        };
        (answer, (status != wanted).then_some(status))
    }
}

/// The parts of an answer a case checks.
#[derive(Deserialize)]
struct Parts<'a> {
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<ErrorParts>,
}

#[derive(Deserialize)]
struct ErrorParts {
    code: i64,
    message: String,
    #[serde(default)]
    data: Option<Value>,
}

fn check(case: &Case, expect: Expect, transport: &str, answer: &Answer) -> Result<(), String> {
    let name = case.name;
    let (id, code) = match (expect, answer) {
        (Expect::Nothing, None) => return Ok(()),
        (Expect::Nothing, Some(answer)) => {
            return Err(format!("{name} over {transport}: answered {answer}"));
        }
        (_, None) => return Err(format!("{name} over {transport}: no answer")),
        (Expect::Result(id), Some(_)) => (id, None),
        (Expect::Error(id, code) | Expect::Invalid(id, code), Some(_)) => (id, Some(code)),
    };
    let text = answer.as_deref().unwrap_or_default();
    let parts: Parts<'_> =
        serde_json::from_str(text).map_err(|e| format!("{name} over {transport}: {e}: {text}"))?;
    if parts.jsonrpc != "2.0" || parts.id.get() != id {
        return Err(format!(
            "{name} over {transport}: expected the id {id} in {text}"
        ));
    }
    match (code, parts.result, parts.error) {
        (None, Some(_), None) => Ok(()),
        (Some(code), None, Some(error)) if error.code == code && !error.message.is_empty() => {
            match error.data {
                // What a client sent comes back bounded (a method name, a reason).
                Some(Value::String(data)) if data.len() > 1024 => Err(format!(
                    "{name} over {transport}: {} bytes of data",
                    data.len()
                )),
                _ => Ok(()),
            }
        }
        _ => Err(format!(
            "{name} over {transport}: expected {expect:?}, got {text}"
        )),
    }
}

/// `answer` with the transports' own envelope differences taken off, for comparing: with
/// sessions, `initialize` says `listChanged: true`; stateless HTTP has no stream for resource
/// updates, so its `initialize` says `subscribe: false`.
fn comparable(answer: &Answer) -> Answer {
    answer.as_ref().map(|text| {
        text.replace(r#""listChanged":true"#, r#""listChanged":false"#)
            .replace(r#""subscribe":false"#, r#""subscribe":true"#)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_transport_gives_the_same_bytes_the_same_answer() {
    let cases = cases();
    assert!(cases.len() >= 40, "the table has {} cases", cases.len());
    let mut control = Control::start().await;
    let mut stdio = Stdio::start();
    let stateless = Http::start(false).await;
    let sessions = Http::start(true).await;
    // Every case runs; the failures are listed together at the end.
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.name;
        let answered = !matches!(case.expect, Expect::Nothing);
        let mut answers: Vec<(&str, Answer)> = Vec::new();
        if fits_a_control_frame(&case.message) {
            match (control.send(&case.message).await, case.control_error) {
                (Ok(answer), false) => answers.push(("the control protocol", answer)),
                (Err(_), true) => {}
                (Ok(answer), true) => failures.push(format!(
                    "{name} over the control protocol: expected a control error, got {answer:?}"
                )),
                (Err(line), false) => {
                    failures.push(format!("{name} over the control protocol: {line}"));
                }
            }
        }
        answers.push(("stdio", stdio.send(&case.message, answered).await));
        if let Some(expect) = case.stateless {
            // Checked on its own: stateless HTTP answers this one differently, by design.
            let (answer, wrong_status) = stateless.send(&case.message, expect).await;
            if let Some(status) = wrong_status {
                failures.push(format!("{name} over HTTP: status {status}"));
            }
            if let Err(failure) = check(case, expect, "HTTP", &answer) {
                failures.push(failure);
            }
        }
        for (transport, http) in [("HTTP", &stateless), ("HTTP with sessions", &sessions)] {
            if transport == "HTTP" && case.stateless.is_some() {
                continue;
            }
            let (answer, wrong_status) = http.send(&case.message, case.expect).await;
            if let Some(status) = wrong_status {
                failures.push(format!("{name} over {transport}: status {status}"));
            }
            answers.push((transport, answer));
        }
        for (transport, answer) in &answers {
            if let Err(failure) = check(case, case.expect, transport, answer) {
                failures.push(failure);
            }
        }
        let (first, first_answer) = &answers[0];
        for (transport, answer) in &answers[1..] {
            if comparable(answer) != comparable(first_answer) {
                failures.push(format!(
                    "{name}: {transport} and {first} differ: {answer:?} and {first_answer:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The two disagreements the redesign found, pinned on their own: the same bytes, once
/// answered differently by stdio and HTTP, now get one answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_two_old_disagreements_are_settled() {
    let mut stdio = Stdio::start();
    let http = Http::start(false).await;
    let with_id = r#"{"jsonrpc":"2.0","id":5,"method":"notifications/initialized"}"#;
    let old_version = r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#;
    let expected_with_id = r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found","data":"notifications/initialized"}}"#;
    let expected_old = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"`jsonrpc` must be \"2.0\""}}"#;
    assert_eq!(
        stdio.send(with_id, true).await.as_deref(),
        Some(expected_with_id)
    );
    assert_eq!(
        http.send(with_id, Expect::Error("5", -32601)).await,
        (Some(expected_with_id.to_string()), None)
    );
    assert_eq!(
        stdio.send(old_version, true).await.as_deref(),
        Some(expected_old)
    );
    assert_eq!(
        http.send(old_version, Expect::Invalid("null", -32600))
            .await,
        (Some(expected_old.to_string()), None)
    );
}

/// A host→CLI `mcp_message` (what an in-process server sends unasked).
#[derive(Deserialize)]
struct HostMessage<'a> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(borrow)]
    request: HostMessageBody<'a>,
}

#[derive(Deserialize)]
struct HostMessageBody<'a> {
    subtype: String,
    #[serde(borrow)]
    message: &'a RawValue,
}

/// The mcp_response of a control response line, or what a host→CLI `mcp_message` carries.
fn control_json_rpc(line: &str) -> String {
    if let Ok(frame) = serde_json::from_str::<ControlResponse<'_>>(line)
        && let Some(response) = frame.response.response
    {
        return response.mcp_response.get().to_string();
    }
    let message: HostMessage<'_> =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(
        (message.kind.as_str(), message.request.subtype.as_str()),
        ("control_request", "mcp_message")
    );
    message.request.message.get().to_string()
}

/// Progress reported by a call reaches the client before the call's answer, the same bytes on
/// every transport: host→CLI `mcp_message`s in-process, lines over stdio, SSE events over HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_comes_before_the_answer_the_same_on_every_transport() {
    let call = r#"{"jsonrpc":"2.0","id":"p1","method":"tools/call","params":{"name":"progress","_meta":{"progressToken":"tok"}}}"#;
    let expected = [
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":1.0,"total":2.0,"message":"half"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":2.0,"total":2.0}}"#,
        r#"{"jsonrpc":"2.0","id":"p1","result":{"content":[{"type":"text","text":"done"}],"isError":false}}"#,
    ];

    let mut control = Control::start().await;
    control.write(call).await;
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(control_json_rpc(&control.line().await));
    }
    assert_eq!(seen, expected, "the control protocol");

    let mut stdio = Stdio::start();
    stdio
        .to_server
        .write_all(format!("{call}\n").as_bytes())
        .await
        .unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(stdio.line(WAIT).await.expect("a line in time"));
    }
    assert_eq!(seen, expected, "stdio");

    for sessions in [false, true] {
        let http = Http::start(sessions).await;
        let response = http
            .http
            .post(&http.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .headers(session_header(&http))
            .body(call)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let body = response.text().await.unwrap();
        let events: Vec<&str> = body
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .collect();
        assert_eq!(events, expected, "HTTP, sessions {sessions}");
    }
}

fn session_header(http: &Http) -> reqwest::header::HeaderMap {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(session) = &http.session {
        headers.insert("mcp-session-id", session.parse().unwrap());
    }
    headers
}

/// `notifications/cancelled` reaches the running call's handler on every transport that has
/// the call's connection (in-process, stdio, HTTP with sessions); the cancelled request is
/// answered as each transport's policy says: `-32800` where a caller awaits an answer (the
/// CLI's control request, an HTTP POST), nothing over stdio (MCP: the receiver of a
/// cancellation does not answer). Stateless HTTP has no connection to cancel on: a client
/// there cancels by closing its request (proven in `claude-tools-mcp`'s tests).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_reaches_the_handler_on_every_transport_with_a_connection() {
    let call = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"wait_for_cancel"}}}}"#
        )
    };
    let cancel = |id: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":"{id}","reason":"bye"}}}}"#
        )
    };

    let mut control = Control::start().await;
    let call_request = control.write(&call("in-process")).await;
    logged(r#"started "in-process""#).await;
    let cancel_request = control.write(&cancel("in-process")).await;
    let mut answers = std::collections::BTreeMap::new();
    for _ in 0..2 {
        let line = control.line().await;
        let frame: ControlResponse<'_> = serde_json::from_str(&line).unwrap();
        answers.insert(frame.response.request_id.clone(), control_json_rpc(&line));
    }
    assert_eq!(answers[&cancel_request], PLACEHOLDER);
    assert_eq!(
        answers[&call_request],
        r#"{"jsonrpc":"2.0","id":"in-process","error":{"code":-32800,"message":"Request cancelled"}}"#
    );
    logged(r#"cancelled "in-process""#).await;

    let mut stdio = Stdio::start();
    stdio
        .to_server
        .write_all(format!("{}\n", call("stdio")).as_bytes())
        .await
        .unwrap();
    logged(r#"started "stdio""#).await;
    // Not answered: the next answer is the sentinel ping's.
    assert_eq!(stdio.send(&cancel("stdio"), false).await, None);
    logged(r#"cancelled "stdio""#).await;

    let http = Http::start(true).await;
    let running = tokio::spawn({
        let client = http.http.clone();
        let url = http.url.clone();
        let headers = session_header(&http);
        let body = call("http");
        async move {
            let response = client
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .headers(headers)
                .body(body)
                .send()
                .await
                .unwrap();
            (response.status().as_u16(), response.text().await.unwrap())
        }
    });
    logged(r#"started "http""#).await;
    assert_eq!(
        http.send(&cancel("http"), Expect::Nothing).await,
        (None, None)
    );
    let (status, body) = tokio::time::timeout(WAIT, running).await.unwrap().unwrap();
    assert_eq!(
        (status, body.as_str()),
        (
            200,
            r#"{"jsonrpc":"2.0","id":"http","error":{"code":-32800,"message":"Request cancelled"}}"#
        )
    );
    logged(r#"cancelled "http""#).await;
}

/// A tool's question (`elicitation/create`) is the same bytes on every transport that sends
/// it, and the client's answer reaches the tool on each: a line each way over stdio; over HTTP
/// with sessions an SSE event of the call's stream, answered by a `POST` of the session.
/// In-process the session answers it itself (with the host's callback: here none, so declined)
/// and nothing goes to the CLI; stateless HTTP refuses to ask.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tools_question_goes_out_the_same_and_its_answer_comes_back_on_every_transport() {
    let initialize = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}}}}"#;
    let call = r#"{"jsonrpc":"2.0","id":"q1","method":"tools/call","params":{"name":"ask"}}"#;
    let question = r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Go?","requestedSchema":{"type":"object","properties":{"approve":{"type":"boolean"}},"required":["approve"]}}}"#;
    let answer =
        r#"{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"approve":true}}}"#;
    let acted = r#"{"jsonrpc":"2.0","id":"q1","result":{"content":[{"type":"text","text":"approve=true"}],"isError":false}}"#;

    let mut control = Control::start().await;
    assert_eq!(
        control.send(call).await,
        Ok(Some(
            r#"{"jsonrpc":"2.0","id":"q1","result":{"content":[{"type":"text","text":"declined"}],"isError":false}}"#.to_string()
        )),
        "in-process: answered by the session, nothing sent to the CLI first"
    );

    let mut stdio = Stdio::start();
    assert!(stdio.send(initialize, true).await.is_some());
    stdio
        .to_server
        .write_all(format!("{call}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(stdio.line(WAIT).await.as_deref(), Some(question), "stdio");
    stdio
        .to_server
        .write_all(format!("{answer}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(stdio.line(WAIT).await.as_deref(), Some(acted), "stdio");

    let http = Http::start(true).await;
    let (status, session, _) = http.post(initialize, false).await;
    assert_eq!(status, 200);
    let session = session.expect("a session id");
    let mut streamed = http
        .http
        .post(&http.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .body(call)
        .send()
        .await
        .unwrap();
    assert_eq!(streamed.status(), 200);
    let mut body = String::new();
    let events = |body: &str| -> Vec<String> {
        body.lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(String::from)
            .collect()
    };
    let mut answered = false;
    while events(&body).len() < 2 {
        let chunk = tokio::time::timeout(WAIT, streamed.chunk())
            .await
            .expect("an event in time")
            .unwrap()
            .expect("the stream goes on");
        body.push_str(std::str::from_utf8(&chunk).unwrap());
        // The question is whole: answer it in the session.
        if !answered && events(&body).len() == 1 && body.ends_with("\n\n") {
            answered = true;
            let (status, nothing) = http.post_in(answer, &session).await;
            assert_eq!((status, nothing), (202, None));
        }
    }
    let events = events(&body);
    assert_eq!(events, [question, acted], "HTTP with sessions");

    let stateless = Http::start(false).await;
    let (status, _, refused) = stateless.post(call, false).await;
    assert_eq!(status, 200);
    let refused: Value = serde_json::from_str(&refused.expect("an answer")).unwrap();
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("error: this MCP server is stateless") && text.contains("sessions(true)"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// MCP 2026-07-28: the same table idea for requests that carry their revision in `_meta`, on
// fresh connections (a stdio process or an in-process router keeps the era its first request
// chose). HTTP adds the headers a 2026-07-28 client sends (`MCP-Protocol-Version`,
// `Mcp-Method`, `Mcp-Name`) and answers with the status of the revision's error table; only
// stdio and HTTP hold listen streams, which their `server/discover` says (`comparable_2026`).

/// A 2026-07-28 case: the message, what every transport answers, and HTTP's status.
struct ModernCase {
    name: &'static str,
    message: String,
    expect: Expect,
    status: u16,
}

/// `{"_meta": …}` of a 2026-07-28 request at `version`.
fn modern_meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "agree", "version": "1"},
    })
}

fn modern_message(id: Value, method: &str, mut params: Value, meta: Value) -> String {
    params["_meta"] = meta;
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn modern_cases() -> Vec<ModernCase> {
    let at = |id: i64, method: &str, params: Value| {
        modern_message(json!(id), method, params, modern_meta("2026-07-28"))
    };
    let case = |name, message, expect, status| ModernCase {
        name,
        message,
        expect,
        status,
    };
    let mut bad_capabilities = modern_meta("2026-07-28");
    bad_capabilities["io.modelcontextprotocol/clientCapabilities"] = json!([]);
    let mut bad_level = modern_meta("2026-07-28");
    bad_level["io.modelcontextprotocol/logLevel"] = json!("loud");
    vec![
        case(
            "discover",
            at(1, "server/discover", json!({})),
            Answered("1"),
            200,
        ),
        case(
            "tools/list",
            at(2, "tools/list", json!({})),
            Answered("2"),
            200,
        ),
        case(
            "tools/call",
            at(
                3,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "hi"}}),
            ),
            Answered("3"),
            200,
        ),
        case(
            "a tool's error is a result",
            at(4, "tools/call", json!({"name": "fail"})),
            Answered("4"),
            200,
        ),
        case(
            "a tool's panic is a result",
            at(5, "tools/call", json!({"name": "boom"})),
            Answered("5"),
            200,
        ),
        case(
            "an unknown tool",
            at(6, "tools/call", json!({"name": "nope"})),
            Error("6", -32602),
            200,
        ),
        case(
            "prompts/list",
            at(7, "prompts/list", json!({})),
            Answered("7"),
            200,
        ),
        case(
            "prompts/get",
            at(
                8,
                "prompts/get",
                json!({"name": "greet", "arguments": {"name": "Ada"}}),
            ),
            Answered("8"),
            200,
        ),
        case(
            "a prompt's failure",
            at(9, "prompts/get", json!({"name": "broken"})),
            Error("9", -32603),
            200,
        ),
        case(
            "resources/list",
            at(10, "resources/list", json!({})),
            Answered("10"),
            200,
        ),
        case(
            "resources/templates/list",
            at(11, "resources/templates/list", json!({})),
            Answered("11"),
            200,
        ),
        case(
            "resources/read",
            at(12, "resources/read", json!({"uri": "agree://motd"})),
            Answered("12"),
            200,
        ),
        case(
            "a missing resource is -32602",
            at(13, "resources/read", json!({"uri": "agree://nothing"})),
            Error("13", -32602),
            200,
        ),
        case(
            "completion/complete",
            at(
                14,
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"},
                       "argument": {"name": "name", "value": "A"}}),
            ),
            Answered("14"),
            200,
        ),
        case(
            "initialize is removed",
            at(15, "initialize", json!({"protocolVersion": "2025-11-25"})),
            Error("15", -32601),
            404,
        ),
        case(
            "ping is removed",
            at(16, "ping", json!({})),
            Error("16", -32601),
            404,
        ),
        case(
            "logging/setLevel is removed",
            at(17, "logging/setLevel", json!({"level": "info"})),
            Error("17", -32601),
            404,
        ),
        case(
            "resources/subscribe is removed",
            at(18, "resources/subscribe", json!({"uri": "agree://motd"})),
            Error("18", -32601),
            404,
        ),
        case(
            "an unknown method",
            at(19, "x/y", json!({})),
            Error("19", -32601),
            404,
        ),
        case(
            "an unserved revision",
            modern_message(
                json!(20),
                "tools/list",
                json!({}),
                modern_meta("2031-01-01"),
            ),
            Error("20", -32022),
            400,
        ),
        case(
            "capabilities that are not an object",
            modern_message(json!(21), "tools/list", json!({}), bad_capabilities),
            Error("21", -32602),
            400,
        ),
        case(
            "a log level MCP does not define",
            modern_message(json!(22), "tools/list", json!({}), bad_level),
            Error("22", -32602),
            400,
        ),
        case(
            "a notification",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 99, "_meta": modern_meta("2026-07-28")}})
            .to_string(),
            Nothing,
            202,
        ),
    ]
}

impl Http {
    /// POSTs a 2026-07-28 `message` with the headers its client sends: the status and the
    /// JSON-RPC answer.
    async fn post_modern(&self, message: &str) -> (u16, Answer) {
        let value: Value = serde_json::from_str(message).unwrap();
        let version = value["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
            .as_str()
            .unwrap_or("2026-07-28")
            .to_string();
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", version)
            .header("mcp-method", value["method"].as_str().unwrap_or_default());
        let name = match value["method"].as_str() {
            Some("tools/call" | "prompts/get") => value["params"]["name"].as_str(),
            Some("resources/read") => value["params"]["uri"].as_str(),
            _ => None,
        };
        if let Some(name) = name {
            request = request.header("mcp-name", name);
        }
        // A session id is ignored by 2026-07-28 traffic: send it when there is one.
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let response = request.body(message.to_string()).send().await.unwrap();
        let status = response.status().as_u16();
        assert!(
            response.headers().get("mcp-session-id").is_none(),
            "a session id answered to 2026-07-28 traffic"
        );
        let body = response.text().await.unwrap();
        (status, (!body.is_empty()).then_some(body))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_transport_gives_the_same_2026_bytes_the_same_answer() {
    let cases = modern_cases();
    let mut control = Control::start().await;
    let mut stdio = Stdio::start_modern();
    let stateless = Http::start(false).await;
    let sessions = Http::start(true).await;
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.name;
        let answered = !matches!(case.expect, Expect::Nothing);
        let mut answers: Vec<(&str, Answer)> = Vec::new();
        match control.send(&case.message).await {
            Ok(answer) => answers.push(("the control protocol", answer)),
            Err(line) => failures.push(format!("{name} over the control protocol: {line}")),
        }
        answers.push(("stdio", stdio.send(&case.message, answered).await));
        for (transport, http) in [("HTTP", &stateless), ("HTTP with sessions", &sessions)] {
            let (status, answer) = http.post_modern(&case.message).await;
            if status != case.status {
                failures.push(format!(
                    "{name} over {transport}: status {status}, not {}",
                    case.status
                ));
            }
            answers.push((transport, answer));
        }
        for (transport, answer) in &answers {
            if let Err(failure) = check_modern(case, transport, answer) {
                failures.push(failure);
            }
        }
        let (first, first_answer) = &answers[0];
        for (transport, answer) in &answers[1..] {
            if comparable_2026(answer) != comparable_2026(first_answer) {
                failures.push(format!(
                    "{name}: {transport} and {first} differ: {answer:?} and {first_answer:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// `answer` with the one difference of the transports at 2026-07-28 taken off: stdio and HTTP
/// hold listen streams, so their `server/discover` says `listChanged` and `subscribe`; the
/// control protocol (in-process) holds none and says neither.
fn comparable_2026(answer: &Answer) -> Answer {
    answer.as_ref().map(|text| {
        text.replace(r#""listChanged":true"#, r#""listChanged":false"#)
            .replace(r#""subscribe":true"#, r#""subscribe":false"#)
    })
}

/// [`check`] for a 2026-07-28 case, and every result carries `resultType` and `serverInfo`.
fn check_modern(case: &ModernCase, transport: &str, answer: &Answer) -> Result<(), String> {
    let legacy_shaped = Case {
        name: case.name,
        message: case.message.clone(),
        expect: case.expect,
        control_error: false,
        stateless: None,
    };
    check(&legacy_shaped, case.expect, transport, answer)?;
    if let (Expect::Result(_), Some(text)) = (case.expect, answer) {
        let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let result = &value["result"];
        if result["resultType"] != "complete"
            || result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] != "agree"
        {
            return Err(format!(
                "{} over {transport}: no resultType or serverInfo in {text}",
                case.name
            ));
        }
    }
    Ok(())
}
