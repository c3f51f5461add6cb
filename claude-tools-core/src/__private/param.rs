//! What one parameter contributes to a tool: how it is described and how it is extracted.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tool::{ArgumentError, ToolCall, ToolDefBuilder, ToolError};

/// What one parameter contributes to a tool: how it is described, how it is extracted.
pub struct Param<T> {
    pub(super) describe: fn(&'static str, Option<&'static str>, &mut ToolDefBuilder),
    pub(super) extract: fn(&'static str, &mut ToolCall) -> Result<T, ToolError>,
    /// For a model argument with a default (`#[arg(default)]`, `#[serde(default)]`): added as
    /// an optional property carrying `default`.
    pub(super) describe_defaulted:
        fn(&'static str, Option<&'static str>, Option<Value>, &mut ToolDefBuilder),
    /// For a model argument with a default: `None` when the model left it out.
    pub(super) extract_present: fn(&'static str, &mut ToolCall) -> Option<Result<T, ToolError>>,
}

impl<T> Param<T> {
    /// Adds the parameter to the tool's definition.
    pub fn describe(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        tool: &mut ToolDefBuilder,
    ) {
        (self.describe)(name, doc, tool);
    }

    /// Extracts the parameter from a call.
    pub fn extract(&self, name: &'static str, call: &mut ToolCall) -> Result<T, ToolError> {
        (self.extract)(name, call)
    }

    /// Adds the parameter, which has a default, to the tool's definition: not required, and
    /// with `"default": default` when the default value serializes.
    pub fn describe_defaulted(
        &self,
        name: &'static str,
        doc: Option<&'static str>,
        default: Option<Value>,
        tool: &mut ToolDefBuilder,
    ) {
        (self.describe_defaulted)(name, doc, default, tool);
    }

    /// Extracts the parameter, which has a default: `None` when the call leaves it out.
    pub fn extract_present(
        &self,
        name: &'static str,
        call: &mut ToolCall,
    ) -> Option<Result<T, ToolError>> {
        (self.extract_present)(name, call)
    }
}

pub(super) fn deserialize_argument<T: DeserializeOwned>(
    name: &str,
    value: Value,
    call: &ToolCall,
) -> Result<T, ToolError> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|error| {
        let path = error.path().to_string();
        let argument = if path == "." {
            name.to_string()
        } else {
            format!("{name}.{path}")
        };
        let argument = argument.replace(".[", "[");
        call.invalid_arguments(&ArgumentError::for_argument(
            argument,
            error.into_inner().to_string(),
        ))
    })
}
