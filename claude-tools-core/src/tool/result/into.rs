//! [`IntoToolResult`]: what a tool may return, and how each such value becomes a
//! [`ToolResult`].

use std::borrow::Cow;
use std::fmt::Display;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{Audio, Content, Image, Json, ToolResult};
use crate::resource::ResourceContents;
use crate::schema::{self, SchemaError};

/// Turns a handler's return value into a [`ToolResult`].
///
/// Implemented for text (`String`, `&'static str`, `Cow<'static, str>`), numbers and `bool`
/// (sent as text), `()` (an empty success), [`Json<T>`], [`Image`], [`Audio`], a
/// [`ResourceContents`] (an embedded resource), [`Content`],
/// `Vec<Content>`, [`ToolResult`] itself, and `Result<T, E: Display>` of any of these, where `Err`
/// becomes an `isError` result carrying the error's message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a tool",
    label = "this return type cannot become a tool result",
    note = "return String, &'static str, a number, bool, (), Json<T>, Image, Audio, ResourceContents, Content, Vec<Content> or ToolResult",
    note = "or Result<T, E> of one of those, where E: Display (the error becomes an isError result)"
)]
pub trait IntoToolResult {
    /// Converts the value.
    fn into_tool_result(self) -> ToolResult;

    /// The output schema this return type advertises, if it has structured content.
    fn output_schema() -> Option<Result<Map<String, Value>, SchemaError>> {
        None
    }
}

impl IntoToolResult for ToolResult {
    fn into_tool_result(self) -> ToolResult {
        self
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self)
    }
}

impl IntoToolResult for Cow<'static, str> {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::text(self.into_owned())
    }
}

impl IntoToolResult for () {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::default()
    }
}

macro_rules! display_as_text {
    ($($ty:ty),*) => {$(
        impl IntoToolResult for $ty {
            fn into_tool_result(self) -> ToolResult {
                ToolResult::text(self.to_string())
            }
        }
    )*};
}
display_as_text!(
    bool, char, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);

impl IntoToolResult for Content {
    fn into_tool_result(self) -> ToolResult {
        ToolResult {
            content: vec![self],
            ..ToolResult::default()
        }
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> ToolResult {
        ToolResult {
            content: self,
            ..ToolResult::default()
        }
    }
}

impl IntoToolResult for Image {
    fn into_tool_result(self) -> ToolResult {
        Content::Image(self).into_tool_result()
    }
}

impl IntoToolResult for Audio {
    fn into_tool_result(self) -> ToolResult {
        Content::Audio(self).into_tool_result()
    }
}

/// An embedded resource.
impl IntoToolResult for ResourceContents {
    fn into_tool_result(self) -> ToolResult {
        Content::Resource(self).into_tool_result()
    }
}

impl<T: Serialize + JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> ToolResult {
        match serde_json::to_value(&self.0) {
            Ok(value) => ToolResult {
                content: vec![Content::Text(value.to_string())],
                structured_content: Some(value),
                ..ToolResult::default()
            },
            Err(error) => ToolResult::error(format!(
                "the tool's result could not be serialized: {error}"
            )),
        }
    }

    fn output_schema() -> Option<Result<Map<String, Value>, SchemaError>> {
        Some(schema::output_schema::<T>())
    }
}

impl<T: IntoToolResult, E: Display> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> ToolResult {
        match self {
            Ok(value) => value.into_tool_result(),
            Err(error) => ToolResult::error(error.to_string()),
        }
    }

    fn output_schema() -> Option<Result<Map<String, Value>, SchemaError>> {
        T::output_schema()
    }
}
