//! Tools that change the served tool and prompt lists, so that the suite sees the
//! list-changed notifications (`server-stateless`: `test_trigger_tool_change`,
//! `test_trigger_prompt_change` while a `subscriptions/listen` stream is open).

use std::sync::OnceLock;

use claude_tools::prelude::*;
use claude_tools::prompts::{Prompt, PromptArguments};
use claude_tools::tools::ToolDefBuilder;
use claude_tools::{LiveToolError, ToolServerHandle};

use crate::Everything;

/// The tool [`test_trigger_tool_change`] adds and removes in turn.
const DYNAMIC_TOOL: &str = "test_dynamic_tool";
/// The prompt [`test_trigger_prompt_change`] adds and removes in turn.
const DYNAMIC_PROMPT: &str = "test_dynamic_prompt";

/// The served tool set's handle, set once the HTTP server exists (the tools need the handle
/// of the server that serves them).
#[derive(Default)]
pub struct Handle(OnceLock<ToolServerHandle>);

impl Handle {
    /// Stores the handle; a second call keeps the first.
    pub fn set(&self, handle: ToolServerHandle) {
        // Set once, in `main`, before the server serves anything.
        let _ = self.0.set(handle);
    }

    fn get(&self) -> Result<&ToolServerHandle, ToolError> {
        self.0
            .get()
            .ok_or_else(|| ToolError::new("the server is not serving yet"))
    }
}

fn live_error(error: LiveToolError) -> ToolError {
    ToolError::new(format!("could not change the lists: {error}"))
}

/// Adds the tool `test_dynamic_tool` when it is absent and removes it when it is there: each
/// call changes the tool list (`notifications/tools/list_changed`).
#[tool(server = Everything)]
async fn test_trigger_tool_change(handle: State<Handle>) -> Result<String, ToolError> {
    let handle = handle.get()?;
    if handle
        .enabled_tools()
        .iter()
        .any(|name| name == DYNAMIC_TOOL)
    {
        handle.remove_tool(DYNAMIC_TOOL).map_err(live_error)?;
        return Ok(format!("removed the tool {DYNAMIC_TOOL}"));
    }
    let mut def = ToolDefBuilder::new(DYNAMIC_TOOL);
    def.description("A tool added at run time by test_trigger_tool_change.")
        .read_only(true);
    handle
        .add_typed_tool(def, || async { "dynamic tool called" })
        .map_err(live_error)?;
    Ok(format!("added the tool {DYNAMIC_TOOL}"))
}

/// Adds the prompt `test_dynamic_prompt` when it is absent and removes it when it is there:
/// each call changes the prompt list (`notifications/prompts/list_changed`).
#[tool(server = Everything)]
async fn test_trigger_prompt_change(handle: State<Handle>) -> Result<String, ToolError> {
    let handle = handle.get()?;
    if handle.server().prompt(DYNAMIC_PROMPT).is_some() {
        handle.remove_prompt(DYNAMIC_PROMPT).map_err(live_error)?;
        return Ok(format!("removed the prompt {DYNAMIC_PROMPT}"));
    }
    let prompt = Prompt::new(DYNAMIC_PROMPT, |_: PromptArguments| async {
        "A prompt added at run time."
    })
    .description("A prompt added at run time by test_trigger_prompt_change.");
    handle.add_prompt(prompt).map_err(live_error)?;
    Ok(format!("added the prompt {DYNAMIC_PROMPT}"))
}
